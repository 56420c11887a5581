//! Zones as the workload sees them: `zonemode=strided`'s walk over the
//! file, zone by zone, and `zonemode=zbd`'s write pointers on files.

mod strided;
mod zbd;

pub(crate) use strided::{Strided, ZoneView};
pub(crate) use zbd::{Extent, Zbd};
