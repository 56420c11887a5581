//! Which of this crate's backends runs a job of fio's `xnvme` engine
//! ([`XnvmeOptions::backend`]), and how that backend is set
//! ([`XnvmeMapping::configure`]).

use crate::error::EngineError;
use crate::queue_config::QueueConfig;
use crate::registry::Backend;
use crate::xnvme::{
    refuse, XnvmeAsync, XnvmeBe, XnvmeMem, XnvmeOptions, XnvmeSync, USER_SPACE_DRIVER,
};

/// Which backend runs an xnvme job, and how it is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XnvmeMapping {
    pub backend: Backend,
    /// Requests in flight at most, where the xNVMe interface issues fewer
    /// than the job's depth (`emu`: one at a time). None: the job's depth.
    pub max_depth: Option<u32>,
    /// Polled completions (io_uring, io_uring_cmd: IORING_SETUP_IOPOLL).
    pub hipri: bool,
    /// IORING_SETUP_SQPOLL.
    pub sqpoll: bool,
    /// The vectored variant of the backend's commands.
    pub vectored: bool,
    /// libaio: reap from the AIO ring in user space.
    pub userspace_reap: bool,
    /// io_uring: IOSQE_ASYNC on every request, so io-wq's kernel threads do
    /// each transfer synchronously (`thrpool`).
    pub force_async: bool,
}

impl XnvmeOptions {
    /// The backend that runs a job with these settings, `hipri` and
    /// `sqthread_poll`, or why none can. fio's xnvme engine sends every
    /// read and write through the async interface; the sync one serves
    /// I/O only under `emu` and `thrpool`, which call it for each command.
    pub fn backend(&self, hipri: bool, sqpoll: bool) -> Result<XnvmeMapping, EngineError> {
        self.check_settings()?;
        let iface = self.async_iface;
        let polls = matches!(
            iface,
            XnvmeAsync::IoUring | XnvmeAsync::IoUringCmd | XnvmeAsync::Libaio
        );
        if hipri && !polls {
            return Err(refuse(
                format!(
                    "hipri with xnvme_async={}: xNVMe polls completions with io_uring, \
                     io_uring_cmd and libaio only",
                    iface.name()
                ),
                "drop hipri, or give xnvme_async=io_uring, io_uring_cmd or libaio",
            ));
        }
        let sq_polls = matches!(iface, XnvmeAsync::IoUring | XnvmeAsync::IoUringCmd);
        if sqpoll && !sq_polls {
            return Err(refuse(
                format!(
                    "sqthread_poll with xnvme_async={}: only io_uring and io_uring_cmd have an \
                     SQ polling thread",
                    iface.name()
                ),
                "drop sqthread_poll, or give xnvme_async=io_uring or io_uring_cmd",
            ));
        }
        let mapping = |backend| XnvmeMapping {
            backend,
            max_depth: None,
            hipri: false,
            sqpoll: false,
            vectored: self.iovec,
            userspace_reap: false,
            force_async: false,
        };
        let run = match iface {
            XnvmeAsync::IoUring | XnvmeAsync::IoUringCmd => XnvmeMapping {
                hipri,
                sqpoll,
                ..mapping(if iface == XnvmeAsync::IoUring {
                    Backend::IoUring
                } else {
                    Backend::IoUringCmd
                })
            },
            // xNVMe's libaio polls by reaping the AIO ring from user space
            // instead of waiting in io_getevents.
            XnvmeAsync::Libaio => XnvmeMapping {
                userspace_reap: hipri,
                ..mapping(Backend::Libaio)
            },
            // xNVMe's posix backend is POSIX AIO, as fio's posixaio is;
            // it has no vectored form.
            XnvmeAsync::Posix => mapping(Backend::Posixaio),
            XnvmeAsync::Emu => {
                let run = self.synchronous(self.sync_iface, mapping);
                XnvmeMapping {
                    max_depth: Some(1),
                    ..run
                }
            }
            XnvmeAsync::Thrpool => match self.sync_iface {
                // A pool of threads, each doing a synchronous transfer:
                // io-wq's kernel threads doing the same for a ring.
                XnvmeSync::Psync | XnvmeSync::Block => XnvmeMapping {
                    force_async: true,
                    ..mapping(Backend::IoUring)
                },
                XnvmeSync::Nvme => mapping(Backend::IoUringCmd),
            },
            XnvmeAsync::Nil => XnvmeMapping {
                vectored: false,
                ..mapping(Backend::Null)
            },
            XnvmeAsync::Vfio | XnvmeAsync::Spdk => {
                return Err(refuse(
                    format!("xnvme_async={} is {USER_SPACE_DRIVER}", iface.name()),
                    "give xnvme_async=io_uring (block device) or io_uring_cmd (/dev/ngXnY)",
                ))
            }
        };
        Ok(run)
    }

    /// The backend of a synchronous interface: pread/pwrite (preadv2 and
    /// pwritev2 when vectored), or NVMe passthrough, which this crate sends
    /// through io_uring only.
    fn synchronous(
        &self,
        sync: XnvmeSync,
        mapping: impl Fn(Backend) -> XnvmeMapping,
    ) -> XnvmeMapping {
        match sync {
            XnvmeSync::Psync | XnvmeSync::Block if self.iovec => mapping(Backend::Pvsync2),
            XnvmeSync::Psync | XnvmeSync::Block => mapping(Backend::Psync),
            XnvmeSync::Nvme => mapping(Backend::IoUringCmd),
        }
    }

    /// Refuses the settings that need what this crate does not have.
    fn check_settings(&self) -> Result<(), EngineError> {
        let be = match self.be {
            XnvmeBe::Linux => None,
            XnvmeBe::Spdk | XnvmeBe::Vfio => Some(USER_SPACE_DRIVER.to_string()),
            XnvmeBe::Fbsd | XnvmeBe::Macos | XnvmeBe::Windows => {
                Some("another operating system's backend; ioscope runs on Linux".to_string())
            }
            XnvmeBe::Ramdisk => Some(
                "xNVMe's RAM disk, which ioscope does not have (a zram device or \
                 ioengine=null measures without a drive)"
                    .to_string(),
            ),
        };
        if let Some(why) = be {
            return Err(refuse(
                format!("xnvme_be={} is {why}", be_name(self.be)),
                "give xnvme_be=linux or leave it out",
            ));
        }
        match self.mem {
            // Huge pages are the buffers' memory, which the caller maps
            // (mem=mmaphuge's way).
            XnvmeMem::Posix | XnvmeMem::Hugepage => Ok(()),
            XnvmeMem::Spdk | XnvmeMem::Vfio => Err(refuse(
                format!(
                    "xnvme_mem={} is the memory of {USER_SPACE_DRIVER}",
                    if self.mem == XnvmeMem::Spdk {
                        "spdk"
                    } else {
                        "vfio"
                    }
                ),
                "give xnvme_mem=posix or leave it out",
            )),
        }
    }
}

fn be_name(be: XnvmeBe) -> &'static str {
    match be {
        XnvmeBe::Linux => "linux",
        XnvmeBe::Spdk => "spdk",
        XnvmeBe::Vfio => "vfio",
        XnvmeBe::Fbsd => "fbsd",
        XnvmeBe::Macos => "macos",
        XnvmeBe::Windows => "windows",
        XnvmeBe::Ramdisk => "ramdisk",
    }
}

impl XnvmeMapping {
    /// Sets `config` for the backend: polling, SQ polling, the vectored
    /// commands, user-space reaping, IOSQE_ASYNC and the depth.
    pub fn configure(&self, config: &mut QueueConfig) {
        config.hipri = self.hipri;
        config.uring.sqpoll = self.sqpoll;
        config.uring.nonvectored = self.vectored.then_some(false);
        config.uring.force_async = u32::from(self.force_async);
        config.aio.vectored = self.vectored;
        config.aio.userspace_reap = self.userspace_reap;
        if let Some(max) = self.max_depth {
            config.depth = config.depth.min(max);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(async_iface: XnvmeAsync, sync_iface: XnvmeSync) -> XnvmeOptions {
        XnvmeOptions {
            async_iface,
            sync_iface,
            ..XnvmeOptions::default()
        }
    }

    fn backend_of(async_iface: XnvmeAsync, sync_iface: XnvmeSync) -> Backend {
        with(async_iface, sync_iface)
            .backend(false, false)
            .unwrap()
            .backend
    }

    #[test]
    fn each_async_interface_runs_on_its_backend() {
        use XnvmeAsync as A;
        use XnvmeSync as S;
        let table = [
            (A::IoUring, S::Nvme, Backend::IoUring),
            (A::IoUringCmd, S::Nvme, Backend::IoUringCmd),
            (A::Libaio, S::Nvme, Backend::Libaio),
            (A::Posix, S::Nvme, Backend::Posixaio),
            (A::Emu, S::Psync, Backend::Psync),
            (A::Emu, S::Block, Backend::Psync),
            (A::Emu, S::Nvme, Backend::IoUringCmd),
            (A::Thrpool, S::Psync, Backend::IoUring),
            (A::Thrpool, S::Nvme, Backend::IoUringCmd),
            (A::Nil, S::Nvme, Backend::Null),
        ];
        for (a, s, backend) in table {
            assert_eq!(
                backend_of(a, s),
                backend,
                "xnvme_async={a:?} xnvme_sync={s:?}"
            );
        }
    }

    #[test]
    fn fios_defaults_are_emu_on_nvme_ioctls_one_at_a_time() {
        let run = XnvmeOptions::default().backend(false, false).unwrap();
        assert_eq!(run.backend, Backend::IoUringCmd);
        assert_eq!(run.max_depth, Some(1));
    }

    #[test]
    fn thrpool_sends_every_request_to_io_wq() {
        let run = with(XnvmeAsync::Thrpool, XnvmeSync::Psync)
            .backend(false, false)
            .unwrap();
        let mut config = QueueConfig {
            depth: 8,
            ..QueueConfig::default()
        };
        run.configure(&mut config);
        assert_eq!(config.uring.force_async, 1);
        assert_eq!(config.depth, 8);
    }

    #[test]
    fn polling_and_vectors_go_to_the_backends_own_settings() {
        let mut o = with(XnvmeAsync::IoUring, XnvmeSync::Nvme);
        o.iovec = true;
        let mut config = QueueConfig {
            depth: 4,
            ..QueueConfig::default()
        };
        o.backend(true, true).unwrap().configure(&mut config);
        assert!(config.hipri && config.uring.sqpoll);
        assert_eq!(config.uring.nonvectored, Some(false));

        let mut o = with(XnvmeAsync::Libaio, XnvmeSync::Nvme);
        o.iovec = true;
        let mut config = QueueConfig::default();
        o.backend(true, false).unwrap().configure(&mut config);
        assert!(
            !config.hipri,
            "libaio polls from user space, not with RWF_HIPRI"
        );
        assert!(config.aio.userspace_reap && config.aio.vectored);

        let mut o = with(XnvmeAsync::Emu, XnvmeSync::Psync);
        o.iovec = true;
        assert_eq!(o.backend(false, false).unwrap().backend, Backend::Pvsync2);
    }

    #[test]
    fn polling_is_refused_where_xnvme_cannot_poll() {
        for a in [
            XnvmeAsync::Emu,
            XnvmeAsync::Thrpool,
            XnvmeAsync::Posix,
            XnvmeAsync::Nil,
        ] {
            let o = with(a, XnvmeSync::Psync);
            assert!(o.backend(true, false).is_err(), "hipri with {a:?}");
            assert!(o.backend(false, true).is_err(), "sqthread_poll with {a:?}");
        }
        let o = with(XnvmeAsync::Libaio, XnvmeSync::Psync);
        assert!(o.backend(false, true).is_err(), "sqthread_poll with libaio");
    }

    #[test]
    fn user_space_drivers_are_refused() {
        for a in [XnvmeAsync::Spdk, XnvmeAsync::Vfio] {
            let e = with(a, XnvmeSync::Nvme).backend(false, false).unwrap_err();
            assert!(e.to_string().contains("user-space NVMe driver"), "{e}");
        }
        let o = XnvmeOptions {
            be: XnvmeBe::Spdk,
            ..XnvmeOptions::default()
        };
        assert!(o.backend(false, false).is_err());
        let o = XnvmeOptions {
            mem: XnvmeMem::Vfio,
            ..XnvmeOptions::default()
        };
        assert!(o.backend(false, false).is_err());
        // Huge pages are the caller's buffer memory, not a driver's.
        let o = XnvmeOptions {
            mem: XnvmeMem::Hugepage,
            ..XnvmeOptions::default()
        };
        assert!(o.backend(false, false).is_ok());
    }
}
