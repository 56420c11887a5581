//! Helpers for ioscope's tests, shared by every crate's test suite (a
//! dev-dependency only: nothing here ships).
//!
//! # Probe, then skip
//!
//! A test that needs something this machine may lack asks for it first:
//!
//! ```ignore
//! use ioscope_testutil::{require, zram, fio};
//!
//! #[test]
//! fn reads_back_from_zram() {
//!     let z = require!(zram(64 << 20));
//!     require!(fio());
//!     // ...
//! }
//! ```
//!
//! Where the probe fails, the test prints exactly one line,
//! `SKIP <test>: <reason>` (the test's path as libtest names it), on the
//! process's stderr so that it shows without `--nocapture`, and returns.
//! `part!` does the same for one part of a test that goes on without it;
//! `skip!` for a reason found only while the test runs (a guest that did
//! not boot).
//!
//! # Strict mode
//!
//! With `IOSCOPE_STRICT_SKIPS=1` (.ci/run sets it), a missing requirement
//! that CI always has is a failure: the test panics, naming itself and the
//! reason, instead of skipping. The others skip in either mode.
//!
//! | probe | needs | strict |
//! | --- | --- | --- |
//! | [`root`] | effective uid 0 | yes |
//! | [`zram`] | `/dev/zram0` (module loaded, root), taken under the shared lock | yes |
//! | [`huge_pages`] | huge pages reserved (root), under a shared lock | yes |
//! | [`fio`] | fio on PATH | yes |
//! | [`program`] | a tool .ci/run installs (mkfs.ext4, mkswap, …) on PATH | yes |
//! | [`tracefs`] | tracefs mounted with its `events` | yes |
//! | [`punt_counter`] | root, tracefs, the `io_uring_queue_async_work` tracepoint (5.5) | yes |
//! | [`o_direct`] | O_DIRECT on the file system of a test directory | yes |
//! | [`kernel`] | Linux at least a given version | no |
//! | [`uring_opcode`] | an io_uring opcode (IORING_REGISTER_PROBE, 5.6) | no |
//! | [`uring_setup`] | io_uring setup flags (see [`setup`] for their kernels) | no |
//! | [`uncached_buffered_io`] | RWF_DONTCACHE (6.14) on a directory's file system | no |
//! | [`vsock`] | AF_VSOCK sockets (the vsock module) | no |
//! | [`vsock_loopback`] | a vsock connection to this machine, CID 1 (the vsock_loopback module) | no |
//! | [`nvme_guest`] | the QEMU NVMe guest harness (../shared/nvme-vm) | no |
//!
//! A requirement is strict when .ci/run installs or sets it up on every
//! machine; the kernel's features depend on the machine CI gets, and the
//! NVMe guest lives outside the repository (and needs QEMU to boot), so
//! those stay soft. A guest that was found but could not boot (harness exit
//! 125) is soft too.
//!
//! # Shared helpers
//!
//! [`Zram`] (the `/dev/zram0` guard), [`HugePages`] (reserved huge pages),
//! [`resident_pages`], and with the
//! `engine` feature the engine tests' `queue_config`, `open_rw` and
//! `complete_one`.

mod hugepages;
mod lock;
mod pages;
mod probe;
#[cfg(feature = "engine")]
mod queue;
mod skip;
mod vsock;
mod zram;

pub use hugepages::HugePages;
pub use pages::resident_pages;
pub use probe::{
    fio, fio_at_least, huge_pages, kernel, kernel_version, nvme_guest, o_direct, program,
    punt_counter, root, setup, tracefs, tracefs_events, uncached_buffered_io, uring_opcode,
    uring_setup, zram,
};
#[cfg(feature = "engine")]
pub use queue::{complete_one, open_rw, queue_config};
pub use skip::{check, report, strict_mode, test_name, Kind, Missing, STRICT_ENV};
pub use vsock::{vsock, vsock_loopback};
pub use zram::Zram;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_kernel_is_newer_than_linux_1_0() {
        assert!(kernel(1, 0).is_ok());
        assert!(kernel(999, 0).is_err_and(|m| m.kind == Kind::Soft));
    }

    #[test]
    fn a_nop_ring_is_there_wherever_io_uring_is() {
        if uring_setup(0).is_ok() {
            assert_eq!(uring_opcode("NOP", 0), Ok(()));
            assert!(uring_opcode("opcode 255", 255).is_err());
        }
    }

    #[test]
    fn no_such_program_is_missing() {
        assert!(program("no-such-program-ioscope").is_err());
        assert!(program("sh").is_ok());
    }

    #[test]
    fn a_page_cached_file_counts_its_pages() {
        let path = std::env::temp_dir().join(format!("testutil-pages-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; 8192]).unwrap();
        let _ = std::fs::read(&path).unwrap();
        let n = resident_pages(&path);
        std::fs::remove_file(&path).unwrap();
        assert!(n >= 1, "{n}");
    }
}
