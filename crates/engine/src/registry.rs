//! The engine registry: every I/O path of this crate, one line each.
//!
//! Each engine module describes itself in an [`EngineDesc`] and has a
//! function that builds its queue. The one line that names them here gives
//! the engine its [`Backend`] value, its place in [`Backend::ALL`] and its
//! arm in [`crate::open_queue`]'s dispatch. What a front end knows of engines
//! (the `ioengine=` values, which options an engine takes, what it refuses
//! before a run, whether it has a ring) comes from the descriptors.

use std::os::fd::RawFd;

use crate::descriptor::{EngineDesc, EngineKind, Shape};
use crate::error::EngineError;
use crate::queue::QueueUser;
use crate::queue_config::QueueConfig;
use crate::request::Op;

/// Declares the registry: `Variant => descriptor, queue builder;` for each
/// engine with a queue of its own, then the wrappers.
macro_rules! engines {
    (
        queues { $( $(#[$doc:meta])* $variant:ident => $desc:path, $open:path; )+ }
        wrappers { $( $(#[$wdoc:meta])* $wvariant:ident => $wdesc:path; )* }
    ) => {
        /// The engines of this crate, named as fio names its ioengines.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Backend {
            $( $(#[$doc])* $variant, )+
            $( $(#[$wdoc])* $wvariant, )*
        }

        impl Backend {
            /// Every engine, in the order `--cmdhelp=ioengine` lists them.
            pub const ALL: &'static [Backend] =
                &[$( Backend::$variant, )+ $( Backend::$wvariant, )*];

            /// The engine's descriptor.
            pub fn desc(self) -> &'static EngineDesc {
                match self {
                    $( Backend::$variant => &$desc, )+
                    $( Backend::$wvariant => &$wdesc, )*
                }
            }
        }

        /// Builds `backend`'s queue over `fds` and runs `user` with it.
        pub(crate) fn run_backend<U: QueueUser>(
            backend: Backend,
            config: &QueueConfig,
            fds: &[RawFd],
            user: U,
        ) -> Result<U::Output, EngineError> {
            match backend {
                $( Backend::$variant => Ok(user.run($open(config, fds)?)), )+
                $( Backend::$wvariant => Err(EngineError::Setup(format!(
                    "ioengine={} wraps another engine: build that one, with the wrapper's \
                     settings in QueueConfig",
                    $wdesc.name
                ))), )*
            }
        }
    };
}

engines! {
    queues {
        /// read/write after lseek (fio `sync`).
        Sync => crate::sync::SYNC, crate::sync::open::<crate::sync::ReadWrite>;
        /// pread/pwrite (fio `psync`).
        Psync => crate::sync::PSYNC, crate::sync::open::<crate::sync::PreadPwrite>;
        /// readv/writev after lseek, contiguous requests gathered (fio `vsync`).
        Vsync => crate::vsync::VSYNC, crate::vsync::open;
        /// preadv/pwritev with one iovec (fio `pvsync`).
        Pvsync => crate::pvsync::PVSYNC, crate::sync::open::<crate::pvsync::PreadvPwritev>;
        /// preadv2/pwritev2, with RWF_HIPRI when `hipri` is set (fio `pvsync2`).
        Pvsync2 => crate::sync::PVSYNC2, crate::sync::open::<crate::sync::Preadv2Pwritev2>;
        /// No I/O at all: measures the caller (fio `null`).
        Null => crate::null::NULL, crate::null::open;
        /// Linux native AIO through io_submit/io_getevents (fio `libaio`),
        /// with the options in [`QueueConfig::aio`].
        Libaio => crate::libaio::LIBAIO, crate::libaio::open;
        /// POSIX AIO through the C library's aio_read/aio_write (fio `posixaio`).
        Posixaio => crate::posixaio::POSIXAIO, crate::posixaio::open;
        /// io_uring (fio `io_uring`), with the options in [`QueueConfig::uring`]
        /// and `hipri` for polled completions.
        IoUring => crate::uring::IO_URING, crate::uring::open;
        /// NVMe passthrough through io_uring (fio `io_uring_cmd`, `cmd_type=nvme`)
        /// on /dev/ngXnY, with the io_uring options in [`QueueConfig::uring`] and
        /// the NVMe ones in [`UringOptions::nvme`](crate::UringOptions::nvme).
        IoUringCmd => crate::uring_cmd::IO_URING_CMD, crate::uring_cmd::open;
        /// memcpy to and from a shared mapping of each file (fio `mmap`).
        Mmap => crate::mmap::MMAP, crate::mmap::open;
        /// io_uring NOP requests: no I/O, measures the ring itself. fio has no
        /// such engine; the name is `nop`.
        Nop => crate::nop::NOP, crate::nop::open;
        /// splice/vmsplice through a pipe (fio `splice`).
        Splice => crate::splice::SPLICE, crate::sync::open::<crate::splice::SpliceCalls>;
        /// send/recv on a socket (fio `net`).
        Net => crate::net::NET, crate::net::open;
        /// send/recv on a socket, TCP data through splice/vmsplice (fio `netsplice`).
        Netsplice => crate::net::NETSPLICE, crate::net::open_splice;
        /// fallocate(2) per request (fio `falloc`).
        Falloc => crate::falloc::FALLOC, crate::sync::open::<crate::falloc::Fallocate>;
        /// ftruncate(2) to each write's offset (fio `ftruncate`).
        Ftruncate => crate::ftruncate::FTRUNCATE, crate::sync::open::<crate::ftruncate::Ftruncate>;
        /// Times the creation of each file (fio `filecreate`).
        Filecreate => crate::file_ops::FILECREATE, crate::file_ops::open_create;
        /// Times a stat of each file (fio `filestat`).
        Filestat => crate::file_ops::FILESTAT, crate::file_ops::open_stat;
        /// Times the unlink of each file (fio `filedelete`).
        Filedelete => crate::file_ops::FILEDELETE, crate::file_ops::open_delete;
        /// Times the creation of each directory (a newer fio's `dircreate`).
        Dircreate => crate::file_ops::DIRCREATE, crate::file_ops::open_mkdir;
        /// Times a stat of each directory (a newer fio's `dirstat`).
        Dirstat => crate::file_ops::DIRSTAT, crate::file_ops::open_stat;
        /// Times the removal of each directory (a newer fio's `dirdelete`).
        Dirdelete => crate::file_ops::DIRDELETE, crate::file_ops::open_rmdir;
        /// Burns CPU at a given load (fio `cpuio`).
        Cpuio => crate::cpuio::CPUIO, crate::cpuio::open;
        /// Runs a program for the job's runtime (fio `exec`).
        Exec => crate::exec::EXEC, crate::exec::open;
        /// Moves blocks in from a donor file on ext4 (fio `e4defrag`).
        E4defrag => crate::e4defrag::E4DEFRAG, crate::e4defrag::open;
    }
    wrappers {
        /// Another engine with faults injected into its requests, for testing
        /// verify (ioscope's own `faulty`; see [`crate::FaultyQueue`]).
        Faulty => crate::faulty::FAULTY;
        /// fio's xNVMe engine, run on the backend its `xnvme_async` and
        /// `xnvme_sync` name ([`crate::XnvmeOptions::backend`]).
        Xnvme => crate::xnvme::XNVME;
    }
}

impl Backend {
    /// What `ioengine=name` needs that ioscope lacks (a library, a device,
    /// another system), as a sentence, for fio's engines that ioscope will
    /// not have (so a front end can say why rather than "unknown").
    pub fn needs(name: &str) -> Option<String> {
        crate::not_here::why(name)
    }

    /// The engine `ioengine=name` names, if this crate has it.
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL
            .iter()
            .copied()
            .find(|b| b.desc().is_named(name))
    }

    /// The name `ioengine=` takes.
    pub fn name(self) -> &'static str {
        self.desc().name
    }

    /// True when the backend touches no file, so no target needs to exist.
    pub fn is_diskless(self) -> bool {
        self.desc().kind == EngineKind::Diskless
    }

    /// True when requests go through an io_uring, which may hand them to
    /// its io-wq worker threads instead of completing them inline.
    pub fn uses_io_uring(self) -> bool {
        self.desc().ring
    }

    /// True for the file and directory engines (filecreate, filestat,
    /// filedelete, dircreate, dirstat, dirdelete), which
    /// take the files' paths ([`crate::QueueConfig::file_paths`]) and do
    /// their own operation on each: the caller neither creates nor opens
    /// the files, and times the operation ([`crate::Queue::op_latency`]),
    /// not the requests.
    pub fn works_on_paths(self) -> bool {
        matches!(
            self,
            Backend::Filecreate | Backend::Filestat | Backend::Filedelete
        ) || self.works_on_directories()
    }

    /// True for the directory engines (dircreate, dirstat, dirdelete): the
    /// job's "files" are directories, which dirstat and dirdelete need
    /// made beforehand and `unlink` removes with rmdir.
    pub fn works_on_directories(self) -> bool {
        matches!(
            self,
            Backend::Dircreate | Backend::Dirstat | Backend::Dirdelete
        )
    }

    /// True for the engines whose files fio sizes at the job's smallest
    /// block whatever is on disk (the get_file_size of filecreate,
    /// dircreate and dirdelete): one request each unless `size` or
    /// `filesize` says more.
    pub fn sizes_files_by_block(self) -> bool {
        matches!(
            self,
            Backend::Filecreate | Backend::Dircreate | Backend::Dirdelete
        )
    }

    /// True for the engines that do no I/O but something else for the
    /// job's runtime (cpuio, exec, fio's FIO_NOIO): their requests are
    /// counted, move no bytes, and are timed by the engine
    /// ([`crate::Queue::op_latency`]).
    pub fn moves_no_data(self) -> bool {
        matches!(self, Backend::Cpuio | Backend::Exec)
    }

    /// True when requests complete inside `submit`.
    pub fn is_sync(self) -> bool {
        matches!(
            self.desc().kind,
            EngineKind::Synchronous | EngineKind::Network
        )
    }

    /// True when the target is a connection ([`crate::NetLink`]), not a file.
    pub fn is_network(self) -> bool {
        self.desc().kind == EngineKind::Network
    }

    /// Whether the backend can carry `op` at all ([`EngineDesc::carries`]).
    /// Every engine that does I/O trims: `io_uring_cmd` with NVMe Dataset
    /// Management, the others by punching a hole in a file or discarding a
    /// block device's range. Several ranges in one request
    /// ([`Op::TrimRanges`]) and commands without data need an NVMe command
    /// that carries them, which only `io_uring_cmd` has.
    pub fn supports(self, op: Op) -> bool {
        (self.desc().carries)(op)
    }

    /// Refuses, before any target is opened, what the engine cannot do for
    /// a job of `shape`.
    pub fn check(self, shape: &Shape) -> Result<(), EngineError> {
        (self.desc().check)(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_again() {
        for (i, b) in Backend::ALL.iter().enumerate() {
            assert_eq!(Backend::from_name(b.name()), Some(*b));
            for other in &Backend::ALL[i + 1..] {
                assert_ne!(b.name(), other.name());
                for alias in other.desc().aliases {
                    assert!(!b.desc().is_named(alias), "{alias} names two engines");
                }
            }
        }
        assert_eq!(Backend::from_name("no-such-engine"), None);
    }

    #[test]
    fn only_diskless_and_wrapper_engines_carry_commands_without_data() {
        let zeroes = Op::WriteZeroes { deac: false };
        for b in Backend::ALL {
            let kind = b.desc().kind;
            if b.supports(zeroes) && kind != EngineKind::Diskless {
                assert_eq!(*b, Backend::IoUringCmd, "{} carries Write Zeroes", b.name());
            }
            assert!(b.supports(Op::Read), "{} cannot read", b.name());
        }
    }
}
