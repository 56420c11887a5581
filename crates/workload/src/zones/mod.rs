//! Zones as the workload sees them: `zonemode=strided`'s walk over the
//! file, zone by zone, and `zonemode=zbd`'s write pointers on files,
//! shared by every worker that names the file.

mod shared;
mod strided;
mod zbd;

pub use shared::ZoneBook;
pub(crate) use strided::{Strided, ZoneView};
pub use zbd::{DeviceZone, DeviceZones, ZoneCommand, ZoneDevice, ZoneOp, ZoneWrite};
pub(crate) use zbd::{Extent, Held, Zbd};
