//! Keeping a run from destroying what the system uses: whether a block
//! device is mounted or in use (`mounts`), and whether it holds a
//! filesystem, a partition table or other data worth keeping (`signature`).

mod mounts;
mod signature;

pub use mounts::mounted_use;
pub use signature::{find_signature, Signature};
