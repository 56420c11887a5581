//! Files and devices: opening them, learning their size and block size,
//! and laying regular files out before they are read.
//!
//! `open` opens a target and answers what it is, `probe` holds the system
//! calls that ask the kernel, and `layout` writes regular files out before
//! a job reads them. Whether a device is safe to write is [`crate::safety`]'s
//! business.

use std::os::fd::OwnedFd;
use std::path::PathBuf;

use crate::nvme::{Controller, Geometry, Namespace, NvmLimits, NvmNamespace, ZonedNamespace};

mod layout;
mod open;
mod probe;
#[cfg(test)]
mod tests;

pub use layout::{layout_file, layout_file_until, layout_file_with, preallocate_file, Preallocate};
pub(crate) use open::io_error;
pub(crate) use probe::{block_device_size, c_path, fstat, stat_path};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    RegularFile,
    BlockDevice,
    CharDevice,
}

impl TargetKind {
    fn from_mode(mode: libc::mode_t) -> Result<TargetKind, &'static str> {
        match mode & libc::S_IFMT {
            libc::S_IFREG => Ok(TargetKind::RegularFile),
            libc::S_IFBLK => Ok(TargetKind::BlockDevice),
            libc::S_IFCHR => Ok(TargetKind::CharDevice),
            libc::S_IFDIR => Err("is a directory; name a file inside it, or a device"),
            libc::S_IFIFO => Err("is a FIFO; give a regular file, a block device or a character device"),
            libc::S_IFSOCK => Err("is a socket; give a regular file, a block device or a character device"),
            _ => Err("is neither a regular file nor a device; give a regular file, a block device or a character device"),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            TargetKind::RegularFile => "file",
            TargetKind::BlockDevice => "block device",
            TargetKind::CharDevice => "character device",
        }
    }
}

/// What [`Target::advise`] tells the kernel about the target's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessAdvice {
    Random,
    Sequential,
    NoReuse,
}

/// How to open a target.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    pub read: bool,
    pub write: bool,
    /// Create a regular file that does not exist.
    pub create: bool,
    /// O_DIRECT.
    pub direct: bool,
    /// An NVMe job with `pi_act=0`: protection information travels with
    /// the data, so a namespace's blocks may be larger than their data
    /// (extended LBAs) and so is its size.
    pub pi_in_data: bool,
}

/// An open file or device.
#[derive(Debug)]
pub struct Target {
    path: PathBuf,
    fd: OwnedFd,
    kind: TargetKind,
    size: u64,
    logical_block_size: u32,
    direct_io_align: u32,
    direct: bool,
    nvme: Option<Box<NvmeIdentity>>,
}

/// What Identify says about the NVMe namespace behind a target.
#[derive(Clone, Debug)]
pub struct NvmeIdentity {
    pub nsid: u32,
    pub controller: Controller,
    pub namespace: Namespace,
    /// The NVM command set's Write Zeroes and Dataset Management limits.
    pub limits: NvmLimits,
    /// The NVM command set's Identify Namespace, where the controller
    /// describes extended LBA formats and answered.
    pub nvm_namespace: Option<NvmNamespace>,
    /// The Zoned Namespace command set's Identify Namespace, where the
    /// namespace is zoned.
    pub zoned: Option<ZonedNamespace>,
}

impl NvmeIdentity {
    /// The namespace's blocks as a job with `pi_act` moves them.
    pub fn geometry(&self, pi_act: bool) -> Result<Geometry, String> {
        Geometry::of(
            &self.controller,
            &self.namespace,
            self.nvm_namespace.as_ref(),
            pi_act,
        )
    }

    /// The zone size, in blocks, of a zoned namespace's LBA format; None
    /// where the namespace is not zoned.
    pub fn zone_blocks(&self) -> Option<u64> {
        let zoned = self.zoned.as_ref()?;
        zoned.zsze.get(self.namespace.format_index()).copied()
    }
}
