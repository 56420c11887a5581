//! Zones as the workload sees them: `zonemode=strided`'s walk over the
//! file, zone by zone.

mod strided;

pub(crate) use strided::{Strided, ZoneView};
