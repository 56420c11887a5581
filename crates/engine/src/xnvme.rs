//! fio's `xnvme` engine, mapped onto this crate's own backends.
//!
//! fio's xnvme engine hands every read and write to an xNVMe queue, whose
//! "async interface" (`xnvme_async`) is one of the Linux I/O paths this
//! crate has as a backend of its own: io_uring, NVMe passthrough through
//! io_uring, Linux AIO, POSIX AIO, or xNVMe's emulations of a queue built on
//! a synchronous interface (`xnvme_sync`) — `emu` calls it on the caller's
//! thread, `thrpool` from a pool of threads. So `xnvme` has no queue here:
//! [`XnvmeOptions::backend`] (in `xnvme_backend`) says which backend runs a job and how that
//! backend is set, and the caller builds that backend's queue. The user-space
//! NVMe drivers xNVMe can also use (SPDK, libvfn/vfio) are refused.

use crate::descriptor::{any_shape, EngineDesc, EngineKind};
use crate::error::{Advice, EngineError};
use crate::request::Op;

/// The xnvme engine: a wrapper, mapped by [`XnvmeOptions::backend`].
pub(crate) static XNVME: EngineDesc = EngineDesc {
    name: "xnvme",
    aliases: &[],
    help: "fio's xNVMe engine, run on the ioscope backend its xnvme_async/xnvme_sync name",
    kind: EngineKind::Wrapper,
    fio: true,
    ring: false,
    carries: reads_and_writes,
    options: &[
        "hipri",
        "sqthread_poll",
        "xnvme_async",
        "xnvme_sync",
        "xnvme_admin",
        "xnvme_dev_nsid",
        "xnvme_dev_subnqn",
        "xnvme_iovec",
        "xnvme_mem",
        "xnvme_be",
    ],
    check: any_shape,
};

/// fio's xnvme engine sends NVMe Read and Write only: a trim or a flush
/// reaches its queue as "ENOSYS".
fn reads_and_writes(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write)
}

/// `xnvme_async`: the queue xNVMe builds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XnvmeAsync {
    /// A queue emulated on the synchronous interface, on the caller's
    /// thread (xNVMe's default, the first of its Linux async mixins).
    #[default]
    Emu,
    /// A queue served by a pool of threads (4 by default) that call the
    /// synchronous interface.
    Thrpool,
    IoUring,
    IoUringCmd,
    Libaio,
    /// POSIX AIO (aio_read/aio_write).
    Posix,
    /// No I/O: completes every command at once.
    Nil,
    /// libvfn's user-space NVMe driver over vfio-pci.
    Vfio,
    /// SPDK's user-space NVMe driver (xNVMe's `nvme` async of `be=spdk`).
    Spdk,
}

/// `xnvme_sync`: the synchronous interface that `emu` and `thrpool` call
/// for each command (and xNVMe's own synchronous commands use).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XnvmeSync {
    /// The NVMe driver's passthrough ioctl (NVME_IOCTL_IO64_CMD), xNVMe's
    /// default.
    #[default]
    Nvme,
    /// pread/pwrite (preadv/pwritev with `xnvme_iovec`).
    Psync,
    /// pread/pwrite, with the block layer's ioctls for zone management.
    Block,
}

/// `xnvme_admin`: how xNVMe sends admin commands (Identify).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XnvmeAdmin {
    /// The NVMe driver's admin ioctl.
    #[default]
    Nvme,
    /// The block layer's ioctls and sysfs.
    Block,
}

/// `xnvme_mem`: where xNVMe takes I/O buffers from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XnvmeMem {
    /// Aligned heap memory: this crate's own buffers are the same.
    #[default]
    Posix,
    /// hugetlbfs pages.
    Hugepage,
    /// SPDK's DMA allocator.
    Spdk,
    /// libvfn's DMA allocator.
    Vfio,
}

/// `xnvme_be`: xNVMe's backend (its family of interfaces).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XnvmeBe {
    /// Linux's kernel paths: the only one this crate has.
    #[default]
    Linux,
    Spdk,
    Vfio,
    Fbsd,
    Macos,
    Windows,
    Ramdisk,
}

/// The xnvme engine's settings, as a job gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct XnvmeOptions {
    pub async_iface: XnvmeAsync,
    pub sync_iface: XnvmeSync,
    pub admin: XnvmeAdmin,
    pub mem: XnvmeMem,
    pub be: XnvmeBe,
    /// `xnvme_iovec`: vectored commands.
    pub iovec: bool,
    /// `xnvme_dev_nsid`: the namespace the job means (None: the device's).
    pub dev_nsid: Option<u32>,
    /// `xnvme_dev_subnqn`: the NVMe-oF subsystem (xNVMe's user-space
    /// fabrics initiator only).
    pub dev_subnqn: Option<String>,
}

/// How `xnvme_async` reads in a refusal.
fn async_name(a: XnvmeAsync) -> &'static str {
    match a {
        XnvmeAsync::Emu => "emu",
        XnvmeAsync::Thrpool => "thrpool",
        XnvmeAsync::IoUring => "io_uring",
        XnvmeAsync::IoUringCmd => "io_uring_cmd",
        XnvmeAsync::Libaio => "libaio",
        XnvmeAsync::Posix => "posix",
        XnvmeAsync::Nil => "nil",
        XnvmeAsync::Vfio => "vfio",
        XnvmeAsync::Spdk => "spdk",
    }
}

impl XnvmeAsync {
    /// The value `xnvme_async=` takes.
    pub fn name(self) -> &'static str {
        async_name(self)
    }

    /// Whether this interface calls `xnvme_sync`'s for each command.
    pub fn uses_sync_interface(self) -> bool {
        matches!(self, XnvmeAsync::Emu | XnvmeAsync::Thrpool)
    }
}

impl XnvmeSync {
    /// The value `xnvme_sync=` takes.
    pub fn name(self) -> &'static str {
        match self {
            XnvmeSync::Nvme => "nvme",
            XnvmeSync::Psync => "psync",
            XnvmeSync::Block => "block",
        }
    }
}

/// The reason a user-space NVMe driver is refused.
pub(crate) const USER_SPACE_DRIVER: &str =
    "a user-space NVMe driver (SPDK/vfio) that ioscope does not have";

pub(crate) fn refuse(what: String, fix: &str) -> EngineError {
    EngineError::Refused {
        what,
        fix: vec![Advice::Other(fix.to_string())],
    }
}

/// Refuses a target name that is a PCIe address (`0000:01:00.0`, or
/// `01:00.0`): xNVMe opens one with a user-space driver.
pub fn check_target_name(name: &str) -> Result<(), EngineError> {
    if is_pci_address(name) {
        return Err(refuse(
            format!("{name} is a PCIe address: it needs {USER_SPACE_DRIVER}"),
            "give the kernel's device: /dev/nvmeXnY (block) or /dev/ngXnY (passthrough)",
        ));
    }
    Ok(())
}

/// `[dddd:]bb:dd.f` in hexadecimal.
fn is_pci_address(name: &str) -> bool {
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let Some((rest, function)) = name.rsplit_once('.') else {
        return false;
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let (domain_ok, bus, device) = match parts[..] {
        [domain, bus, device] => (hex(domain, 4), bus, device),
        [bus, device] => (true, bus, device),
        _ => return false,
    };
    domain_ok && hex(bus, 2) && hex(device, 2) && hex(function, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcie_addresses_are_refused_as_targets() {
        let e = check_target_name("0000:01:00.0").unwrap_err();
        assert!(e.to_string().contains("user-space NVMe driver"), "{e}");
        assert!(check_target_name("01:00.0").is_err());
        assert!(check_target_name("/dev/nvme0n1").is_ok());
        assert!(check_target_name("data.0").is_ok());
        assert!(check_target_name("host:12.3").is_ok());
    }
}
