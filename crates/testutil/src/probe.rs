//! The probes behind `require!`: each looks at this machine and gives
//! `Ok` (with what the test needs, where there is something) or the
//! [`Missing`] requirement, marked strict where CI always has it.

use std::fs::{self, OpenOptions};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::hugepages::HugePages;
use crate::skip::Missing;
use crate::zram::Zram;

/// The effective user is root. Strict: CI runs as root.
pub fn root() -> Result<(), Missing> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        Ok(())
    } else {
        Err(Missing::strict("not root"))
    }
}

/// `/dev/zram0`, sized to `bytes` for this test and reset when the guard
/// drops. Strict: .ci/run loads the module and runs as root.
pub fn zram(bytes: u64) -> Result<Zram, Missing> {
    Zram::acquire(bytes).map_err(Missing::strict)
}

/// At least `pages` huge pages reserved for this test, the old count put
/// back when the guard drops. Strict: CI runs as root on a fresh machine,
/// with the memory for a few.
pub fn huge_pages(pages: u64) -> Result<HugePages, Missing> {
    HugePages::reserve(pages).map_err(Missing::strict)
}

/// The running kernel's version, as (major, minor).
pub fn kernel_version() -> Option<(u32, u32)> {
    let release = fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    let mut parts = release.trim().split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// A kernel at least `major.minor`. Soft: CI runs whatever kernel its
/// machine has. Prefer probing the feature itself where that is possible.
pub fn kernel(major: u32, minor: u32) -> Result<(), Missing> {
    match kernel_version() {
        Some(have) if have >= (major, minor) => Ok(()),
        Some((a, b)) => Err(Missing::soft(format!(
            "needs Linux {major}.{minor}, this is {a}.{b}"
        ))),
        None => Err(Missing::soft(
            "cannot read the kernel version from /proc/sys/kernel/osrelease",
        )),
    }
}

/// The kernel's io_uring takes opcode `code` (`name` is for the reason):
/// asked of the kernel with IORING_REGISTER_PROBE (Linux 5.6). Soft.
pub fn uring_opcode(name: &str, code: u8) -> Result<(), Missing> {
    let ring = io_uring::IoUring::new(2)
        .map_err(|e| Missing::soft(format!("io_uring_setup failed: {e}")))?;
    let mut probe = io_uring::Probe::new();
    ring.submitter().register_probe(&mut probe).map_err(|e| {
        Missing::soft(format!(
            "cannot ask the kernel which io_uring opcodes it has (IORING_REGISTER_PROBE, Linux 5.6): {e}"
        ))
    })?;
    if probe.is_supported(code) {
        Ok(())
    } else {
        Err(Missing::soft(format!(
            "this kernel's io_uring has no {name} (opcode {code})"
        )))
    }
}

/// io_uring setup flags, with the kernel that added each, for
/// [`uring_setup`].
pub mod setup {
    /// IORING_SETUP_IOPOLL (5.1).
    pub const IOPOLL: u32 = 1 << 0;
    /// IORING_SETUP_SQPOLL (5.1; without root from 5.11).
    pub const SQPOLL: u32 = 1 << 1;
    /// IORING_SETUP_COOP_TASKRUN (5.19).
    pub const COOP_TASKRUN: u32 = 1 << 8;
    /// IORING_SETUP_SQE128 (5.19).
    pub const SQE128: u32 = 1 << 10;
    /// IORING_SETUP_CQE32 (5.19).
    pub const CQE32: u32 = 1 << 11;
    /// IORING_SETUP_SINGLE_ISSUER (6.0).
    pub const SINGLE_ISSUER: u32 = 1 << 12;
    /// IORING_SETUP_DEFER_TASKRUN (6.1; needs SINGLE_ISSUER).
    pub const DEFER_TASKRUN: u32 = 1 << 13;
    /// IORING_SETUP_NO_SQARRAY (6.6).
    pub const NO_SQARRAY: u32 = 1 << 16;
}

/// io_uring_setup takes `flags` (an OR of [`setup`] values, or any other
/// IORING_SETUP_* bits): a ring of 4 entries is made with them and closed.
/// Soft: older kernels refuse newer flags, and SQPOLL needed root before
/// 5.11.
pub fn uring_setup(flags: u32) -> Result<(), Missing> {
    // struct io_uring_params is 120 bytes: sq_entries, cq_entries, flags,
    // sq_thread_cpu, sq_thread_idle, features, wq_fd, resv[3], then the
    // two 40-byte offset blocks the kernel fills in. All zero but flags.
    let mut params = [0u32; 30];
    params[2] = flags;
    // SAFETY: io_uring_setup reads and writes the 120 bytes of `params`,
    // which outlives the call.
    let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 4u32, params.as_mut_ptr()) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(Missing::soft(format!(
            "io_uring_setup refuses flags {flags:#x}: {e}"
        )));
    }
    // SAFETY: a descriptor the call above just opened, owned by nothing else.
    drop(unsafe { OwnedFd::from_raw_fd(fd as i32) });
    Ok(())
}

/// The tracefs directory with the kernel's trace events, where it is
/// mounted (/sys/kernel/tracing, or the older debugfs place).
pub fn tracefs_events() -> Option<PathBuf> {
    [
        "/sys/kernel/tracing/events",
        "/sys/kernel/debug/tracing/events",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.is_dir())
}

/// tracefs mounted, with its events readable. Strict: .ci/run mounts it.
pub fn tracefs() -> Result<PathBuf, Missing> {
    tracefs_events().ok_or_else(|| {
        Missing::strict("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)")
    })
}

/// What count_punts=1 needs: root, and tracefs with io_uring's
/// `io_uring_queue_async_work` tracepoint (Linux 5.5). Strict.
pub fn punt_counter() -> Result<(), Missing> {
    root().map_err(|m| Missing::strict(format!("counting punts: {}", m.reason)))?;
    let events = tracefs()?;
    let id = events.join("io_uring/io_uring_queue_async_work/id");
    if id.exists() {
        Ok(())
    } else {
        Err(Missing::strict(format!(
            "no tracepoint: {} is missing",
            id.display()
        )))
    }
}

/// fio on PATH (`fio --version` prints `fio-…`). Strict: .ci/run installs it.
pub fn fio() -> Result<(), Missing> {
    let out = Command::new("fio")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() && o.stdout.starts_with(b"fio-") => Ok(()),
        Ok(o) => Err(Missing::strict(format!(
            "`fio --version` did not answer as fio does ({}, {:?})",
            o.status,
            String::from_utf8_lossy(&o.stdout).trim()
        ))),
        Err(e) => Err(Missing::strict(format!(
            "fio is not installed ({e}; apt-get install fio)"
        ))),
    }
}

/// fio `major.minor` or later on PATH. Soft: CI installs the
/// distribution's fio (3.33 on Debian 12), which may be older; missing fio
/// altogether is [`fio`]'s strict failure.
pub fn fio_at_least(major: u32, minor: u32) -> Result<(), Missing> {
    fio()?;
    let out = Command::new("fio")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Missing::strict(format!("fio --version: {e}")))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.trim().trim_start_matches("fio-").split(['.', '-']);
    let mut next = || {
        parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    };
    let have = (next(), next());
    if have >= (major, minor) {
        return Ok(());
    }
    Err(Missing::soft(format!(
        "needs fio {major}.{minor} or later on PATH, this is fio {}.{}",
        have.0, have.1
    )))
}

/// A program on PATH, such as `mkfs.ext4`. Strict: the tests use only
/// what .ci/run installs (e2fsprogs, util-linux, xfsprogs, btrfs-progs,
/// dosfstools, exfatprogs, f2fs-tools, fdisk).
pub fn program(name: &str) -> Result<PathBuf, Missing> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
        .ok_or_else(|| Missing::strict(format!("{name} is not on PATH")))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The script that boots the NVMe guest (../shared/nvme-vm beside the
/// checkout, or NVME_VM_SCRIPT). Soft: it lives outside the repository,
/// and a machine without it is not broken. `manifest_dir` is the asking
/// crate's CARGO_MANIFEST_DIR.
pub fn nvme_guest(manifest_dir: &str) -> Result<PathBuf, Missing> {
    let path = match std::env::var_os("NVME_VM_SCRIPT") {
        Some(p) => PathBuf::from(p),
        None => {
            // The workspace root is the first ancestor with a `crates` folder.
            let root = Path::new(manifest_dir)
                .ancestors()
                .find(|d| d.join("crates").is_dir())
                .unwrap_or(Path::new(manifest_dir));
            root.join("../shared/nvme-vm/run-in-nvme-vm.sh")
        }
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(Missing::soft(format!(
            "no NVMe guest harness at {} (set NVME_VM_SCRIPT to run-in-nvme-vm.sh)",
            path.display()
        )))
    }
}

/// The file system under `dir` opens files with O_DIRECT: a scratch file
/// is made there, opened so, and removed. Strict: the test directories
/// live on a disk file system in CI.
pub fn o_direct(dir: &Path) -> Result<(), Missing> {
    let path = dir.join(format!(".o_direct-probe-{}", std::process::id()));
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path);
    let _ = fs::remove_file(&path);
    opened.map(drop).map_err(|e| {
        Missing::strict(format!(
            "the file system under {} refuses O_DIRECT: {e}",
            dir.display()
        ))
    })
}

/// Buffered reads that leave no pages cached (RWF_DONTCACHE, Linux 6.14,
/// and a file system that supports it) work on files under `dir`: one
/// preadv2 with the flag on a scratch file. Soft.
pub fn uncached_buffered_io(dir: &Path) -> Result<(), Missing> {
    let path = dir.join(format!(".dontcache-probe-{}", std::process::id()));
    let result = (|| {
        fs::write(&path, [0u8; 4096])?;
        let file = fs::File::open(&path)?;
        let mut buf = [0u8; 4096];
        let iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        // SAFETY: one iovec over `buf`, which outlives the call.
        let n = unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, 0, libc::RWF_DONTCACHE) };
        if n < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    })();
    let _ = fs::remove_file(&path);
    result.map_err(|e| {
        Missing::soft(format!(
            "no RWF_DONTCACHE (Linux 6.14) for files under {}: {e}",
            dir.display()
        ))
    })
}
