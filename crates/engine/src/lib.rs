//! ioscope's I/O backend library.
//!
//! A [`Target`] is a file or device opened once. A backend turns a set of open
//! targets into a [`Queue`]: the caller hands it [`Request`]s and gets
//! [`Completion`]s back. Timing, pinning and choosing what to issue next are
//! the caller's business, so this crate can be used without the rest of
//! ioscope.
//!
//! The queue trait is used generically: [`open_queue`] picks the backend once
//! and hands the concrete queue type to a [`QueueUser`], so the caller's hot
//! loop is monomorphised per backend with no virtual call per I/O.
//!
//! # Using the crate on its own
//!
//! Open the targets, describe the queue, and write the loop once as a
//! [`QueueUser`]. The same loop serves every backend: a synchronous one
//! answers [`Submitted::Completed`] from `submit`, a queueing one answers
//! [`Submitted::Queued`] and the completion comes back from `reap`.
//!
//! ```
//! use std::path::Path;
//! use ioscope_engine::{
//!     open_queue, Backend, OpenOptions, Queue, QueueConfig, QueueUser, Op, Request,
//!     Submitted, Target,
//! };
//!
//! /// Reads one block into slot 0 and returns its bytes.
//! struct ReadBlock {
//!     offset: u64,
//!     len: u32,
//! }
//!
//! impl QueueUser for ReadBlock {
//!     type Output = std::io::Result<Vec<u8>>;
//!
//!     fn run<Q: Queue>(self, mut queue: Q) -> Self::Output {
//!         let req = Request { op: Op::Read, file: 0, offset: self.offset, len: self.len, slot: 0 };
//!         let result = match queue.submit(&req)? {
//!             Submitted::Completed(result) => result,
//!             Submitted::Queued => {
//!                 queue.commit()?;
//!                 let mut result = 0;
//!                 queue.reap(1, 1, |c| result = c.result)?;
//!                 result
//!             }
//!         };
//!         if result < 0 {
//!             return Err(std::io::Error::from_raw_os_error(-result as i32));
//!         }
//!         Ok(queue.buffer(0)[..result as usize].to_vec())
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("data");
//! std::fs::write(&path, vec![0x5a; 8192])?;
//!
//! let target = Target::open(&path, &OpenOptions { read: true, ..Default::default() })?;
//! let config = QueueConfig { depth: 1, buffer_size: 4096, buffer_align: 4096, ..Default::default() };
//! let block = open_queue(Backend::Psync, &config, &[target.fd()], ReadBlock { offset: 4096, len: 4096 })??;
//! assert_eq!(block, vec![0x5a; 4096]);
//! # Ok(())
//! # }
//! ```
//!
//! # Batches
//!
//! A loop that hands requests over in batches can give a whole batch to
//! [`Queue::submit_batch`], which takes each request from a closure and
//! reports the ones a synchronous backend completed on the way. By default
//! it calls `submit` once per request. The NOP backend writes the whole
//! batch straight into the SQ ring with the ring's tail kept in a register
//! (that is the path `ioscope peak -N1` measures). Every io_uring queue
//! writes its SQEs in place, through a second mapping of the SQ ring, and
//! moves the tail the kernel sees once per [`Queue::commit`].
//!
//! Before reading a regular file that may be missing or short, lay it out
//! with [`layout_file`] (as fio does); before writing to a block device, ask
//! [`mounted_use`] whether the system is using it. For O_DIRECT, check the
//! block sizes with [`Target::check_direct_io`] and align buffers to at least
//! [`Target::direct_io_align`] (the page size is always enough).
//!
//! # Trims
//!
//! Every backend carries [`Op::Trim`]. `io_uring_cmd` sends NVMe Dataset
//! Management (see below); sync, psync, pvsync2, libaio, posixaio, io_uring
//! and mmap punch a hole in a regular file (fallocate with FALLOC_FL_PUNCH_HOLE and
//! FALLOC_FL_KEEP_SIZE: the range reads back as zeroes, its blocks are
//! freed, the size stays) or discard a block device's range (BLKDISCARD,
//! aligned to the logical block size), chosen per descriptor when the queue
//! is built. Linux AIO and POSIX AIO have no trim command, and io_uring's
//! (FALLOCATE, Linux 5.6; the block discard command, 6.12) are not in every
//! kernel, so libaio, posixaio and io_uring trim synchronously inside
//! [`Queue::submit`] and answer [`Submitted::Completed`], as fio's engines
//! do. Hole punching needs Linux 2.6.38 and a filesystem that has holes
//! (others answer -EOPNOTSUPP); what a discarded block device range reads
//! back as is the device's business (zeroes on zram).
//!
//! Several ranges in one request ([`Op::TrimRanges`], laid in the slot's
//! buffer as [`TrimRange`]s) need a command that carries a range list:
//! `io_uring_cmd` sends them as one Dataset Management, and the other
//! backends that do I/O refuse them.
//!
//! # Fault injection, for testing verify
//!
//! [`FaultyQueue`] wraps any backend's queue and injects one [`FaultKind`]
//! (a flipped bit, a dropped, misdirected or torn write, a short read, an
//! EIO) into a seeded share of the reads or writes, so a test can prove
//! that verify catches each kind. It exists for testing verify and is used
//! only when asked for by name: [`open_queue`] wraps the queue when
//! [`QueueConfig::fault`] is set, and [`Queue::faults_injected`] says how
//! many faults went in.
//!
//! # fio's xnvme engine
//!
//! [`Backend::Xnvme`] has no queue of its own: [`XnvmeOptions::backend`]
//! says which backend runs a job of fio's xNVMe engine, from its
//! `xnvme_async` and `xnvme_sync` interfaces (io_uring, io_uring_cmd,
//! libaio, psync, io_uring with IOSQE_ASYNC for `thrpool`, null for
//! `nil`), and [`XnvmeMapping::configure`] sets that backend's
//! [`QueueConfig`]. The user-space NVMe drivers (SPDK, vfio) are refused.
//!
//! # Kernel requirements
//!
//! Linux. `pvsync2` needs preadv2/pwritev2 (Linux 4.6); the exact O_DIRECT
//! alignment of a regular file is read with statx(STATX_DIOALIGN) (Linux
//! 6.1), falling back to the filesystem block size on older kernels.
//! `libaio` needs a kernel built with CONFIG_AIO; its fsync is asynchronous
//! from Linux 4.18 and runs as fsync(2) on older kernels; RWF_NOWAIT needs
//! Linux 4.13. `posixaio` needs the C library's POSIX AIO (in libc itself
//! from glibc 2.34, in librt before), which runs each request on a helper
//! thread of its own.
//! `io_uring` and `nop` need Linux 5.1; fio's default non-vectored
//! READ/WRITE, the opcode probe and `force_async` need 5.6, the registered
//! ring fd 5.18 (without it the ring fd is used as is), and the newer ring
//! flags (COOP_TASKRUN 5.19, SINGLE_ISSUER 6.0, DEFER_TASKRUN 6.1,
//! NO_SQARRAY 6.6) are dropped where the kernel refuses them; `uncached`
//! needs RWF_DONTCACHE (Linux 6.14, some filesystems only); `nop` gets its
//! results from the kernel with IORING_NOP_INJECT_RESULT (6.10) and fills
//! them in itself before. The io_uring queues are not `Send`: build them on
//! the thread that uses them.
//!
//! # NVMe
//!
//! [`nvme`] holds the command model (the 72-byte passthrough command, its
//! builders, status decoding, Identify parsing) and the admin paths behind
//! [`nvme::DeviceReport`]; [`Backend::IoUringCmd`] sends the commands through
//! io_uring to a namespace's generic char device (/dev/ngXnY), including
//! those without data ([`Op::WriteZeroes`], [`Op::Trim`]); ask
//! [`Backend::supports`] before a run whether a backend can send one.
//! `io_uring_cmd` needs Linux 5.19 (IORING_OP_URING_CMD, big SQEs and CQEs),
//! 6.1 for polled passthrough and for fixed buffers; the generic char
//! device appears with Linux 5.13; Identify needs CAP_SYS_ADMIN. See
//! `examples/nvme_read.rs` for the crate used on its own.

mod backend;
mod buffer;
mod buffer_memory;
mod cpuio;
mod cq_ring;
mod descriptor;
mod device_report;
mod dontcache;
mod e4defrag;
mod engine_options;
mod error;
mod exec;
mod falloc;
mod faulty;
mod file_ops;
mod ftruncate;
mod ioctl;
mod libaio;
mod mmap;
mod net;
mod nop;
mod not_here;
mod null;
mod posixaio;
mod pvsync;
mod queue;
mod queue_config;
mod registry;
mod request;
mod safety;
mod sigbus;
mod splice;
mod sq_ring;
mod sync;
mod syscall;
mod target;
#[cfg(test)]
mod test_io;
#[cfg(test)]
mod test_module_graph;
mod trim;
mod uring;
mod uring_cmd;
mod vsync;
mod whole;
mod xnvme;
mod xnvme_backend;
mod zoned;

pub use backend::open_queue;
pub use buffer::{page_size, AlignedBuffer};
pub use buffer_memory::{BufferMemory, MemoryKind};
pub use cpuio::CpuQueue;
pub use descriptor::{EngineDesc, EngineKind, Shape};
pub use e4defrag::E4defragQueue;
pub use engine_options::{CpuBurn, Donor, ExecProgram, NetOptions, NetProtocol, StatType};
pub use error::{Advice, EngineError, FioWords, Knob, NoPolling, OptionWords};
pub use exec::ExecQueue;
pub use faulty::FaultyQueue;
pub use file_ops::FileOpQueue;
pub use libaio::LibaioQueue;
pub use mmap::MmapQueue;
pub use net::{vsock_cid, Connection, NetEndpoint, NetLink, NetQueue};
pub use nop::NopQueue;
pub use null::NullQueue;
pub use posixaio::PosixAioQueue;
pub use pvsync::PreadvPwritev;
pub use queue::{Queue, QueueUser, Submitted};
pub use queue_config::{
    AioOptions, FaultConfig, FaultKind, NvmeOptions, Pvsync2Options, QueueConfig, UringOptions,
};
pub use registry::Backend;
pub use request::{
    describe_error, Completion, Op, Request, TrimRange, MAX_TRIM_RANGES, NVME_STATUS_BIAS,
    PI_CHECK_BIAS,
};
pub use safety::{find_signature, mounted_use, Signature};
pub use splice::SpliceCalls;
pub use sync::{PreadPwrite, Preadv2Pwritev2, ReadWrite, SyncCalls, SyncQueue};
pub use target::{
    layout_file, layout_file_until, layout_file_with, preallocate_file, AccessAdvice, NvmeIdentity,
    OpenOptions, Preallocate, Target, TargetKind,
};
pub use uring::{cannot_poll, poll_queue_warning, setup_flag_names, UringQueue};
pub use uring_cmd::UringCmdQueue;
pub use vsync::VsyncQueue;
pub use xnvme::{
    check_target_name as xnvme_check_target_name, XnvmeAdmin, XnvmeAsync, XnvmeBe, XnvmeMem,
    XnvmeOptions, XnvmeSync,
};
pub use xnvme_backend::XnvmeMapping;
pub use zoned::{
    finish_zones, max_open_zones, move_write_pointer, report_zone, report_zones, reset_zones,
    zoned_model, Zone, ZonedModel,
};

pub mod nvme {
    //! NVMe: the passthrough command model ([`Command`] and its builders), the
    //! decoding of completion status and Identify data, and the admin paths
    //! that describe a device ([`DeviceReport`]). The `uring_cmd` backend sends
    //! these commands through io_uring; a program can also use them alone.
    //!
    //! The device report is built on [`crate::Target`], which itself uses
    //! Identify; it lives in its own module (`device_report`) and is
    //! re-exported here, so the command model stays below the targets.

    mod abi;
    mod admin;
    pub mod command;
    mod geometry;
    mod identify;
    pub mod pi;
    mod status;
    mod zns;

    pub use crate::device_report::{nvme_names, AdminPath, DeviceReport, QueueSettings};
    pub use abi::{
        Command, Command64, NVME_IOCTL_ADMIN64_CMD, NVME_IOCTL_ADMIN_CMD, NVME_IOCTL_ID,
        NVME_IOCTL_IO64_CMD, NVME_IOCTL_IO_CMD, NVME_URING_CMD_ADMIN, NVME_URING_CMD_IO,
        NVME_URING_CMD_IO_VEC,
    };
    pub use admin::{
        admin_command, identify_controller_of, identify_namespace_of, io_command, namespace_id,
        nvm_limits_of, nvm_namespace_of, zoned_namespace_of, AdminError,
    };
    pub use command::DsmRange;
    pub use geometry::Geometry;
    pub use identify::{
        Controller, LbaFormat, Namespace, NvmLimits, NvmNamespace, ZonedNamespace, ONCS_BITS,
    };
    pub use status::{Outcome, Status};
    pub use zns::ZonedNamespaceIo;
}

#[cfg(test)]
mod tests {
    /// Workers build their queues on one thread and may hand them to
    /// another; every public queue and buffer type must allow that.
    #[test]
    fn queues_and_buffers_are_send() {
        fn assert_send<T: Send>() {}
        assert_send::<crate::SyncQueue<crate::PreadPwrite>>();
        assert_send::<crate::NullQueue>();
        assert_send::<crate::LibaioQueue>();
        assert_send::<crate::MmapQueue>();
        assert_send::<crate::FaultyQueue<crate::SyncQueue<crate::PreadPwrite>>>();
        assert_send::<crate::AlignedBuffer>();
        assert_send::<crate::Target>();
    }
}
