//! The NVMe passthrough backend (fio's `io_uring_cmd` engine with
//! `cmd_type=nvme`): NVMe commands sent to a namespace's generic char device
//! (/dev/ngXnY) as IORING_OP_URING_CMD, on a ring of 128-byte SQEs and
//! 32-byte CQEs built by the same [`Ring`] code as the io_uring backend.
//!
//! Needs Linux 5.19 (uring_cmd passthrough); polled completions (hipri)
//! need 6.1 and an NVMe driver with poll queues; fixed buffers
//! (IORING_URING_CMD_FIXED) need 6.1.

use std::io;
use std::os::fd::RawFd;

use io_uring::{cqueue, opcode, squeue, types};

use crate::buffer::{AlignedBuffer, SlotBuffers};
use crate::error::{Advice, EngineError, Knob, NoPolling};
use crate::nvme::command::{self, DsmRange, MAX_BLOCKS, MAX_DSM_RANGES};
use crate::nvme::pi;
use crate::nvme::{
    identify_controller_of, identify_namespace_of, namespace_id, nvm_namespace_of, nvme_names,
    zoned_namespace_of, Command, Geometry, Status, NVME_URING_CMD_IO, NVME_URING_CMD_IO_VEC,
};
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{
    bad_request, Completion, Op, Request, TrimRange, MAX_TRIM_RANGES, NVME_STATUS_BIAS,
    PI_CHECK_BIAS,
};
use crate::target::TargetKind;
use crate::uring::{ForceAsync, Ring, RingMode};

use crate::descriptor::{EngineDesc, EngineKind};

pub(crate) static IO_URING_CMD: EngineDesc = EngineDesc {
    name: "io_uring_cmd",
    aliases: &[],
    help: "NVMe passthrough through io_uring (IORING_OP_URING_CMD) on /dev/ngXnY",
    kind: EngineKind::Queued,
    fio: true,
    ring: true,
    // NVMe has a command for each, Write Zeroes and ranged Dataset
    // Management included; none syncs a range of a file.
    carries: |op| !matches!(op, Op::SyncFileRange { .. }),
    options: &[
        "hipri",
        "sqthread_poll",
        "sqthread_poll_cpu",
        "fixedbufs",
        "registerfiles",
        "nonvectored",
        "count_punts",
        "force_async",
        "cmd_type",
        "write_mode",
        "verify_mode",
        "deac",
        "readfua",
        "writefua",
        "md_per_io_size",
        "pi_act",
        "pi_chk",
        "apptag",
        "apptag_mask",
    ],
    check: crate::descriptor::any_shape,
};

pub(crate) fn open(config: &QueueConfig, fds: &[RawFd]) -> Result<UringCmdQueue, EngineError> {
    UringCmdQueue::new(config, fds)
}

/// What the queue knows of each namespace it was opened over.
#[derive(Clone, Copy, Debug)]
struct NamespaceGeometry {
    nsid: u32,
    /// log2 of the LBA size.
    lba_shift: u32,
    /// Bytes of an extended LBA (data and metadata); 0 where the data
    /// buffer holds data alone, so that offsets are LBAs shifted.
    ext_block: u32,
    /// Metadata bytes per block in the slot's metadata buffer.
    separate_ms: u32,
    /// The namespace's protection information format and how its blocks
    /// lie in memory; None without protection information.
    pi: Option<(pi::Format, pi::Layout)>,
    /// Blocks per zone when writes go as Zone Appends; 0 when they go as
    /// Writes.
    append_zone: u64,
    /// Reads may go as Compares ([`Queue::compare_in_device`]): the
    /// controller has the command (ONCS), and the host moves data alone,
    /// so the buffer holds nothing but what is compared (metadata the host
    /// moves would be compared too, and the caller has no expected
    /// metadata to lay there).
    compare: bool,
}

impl NamespaceGeometry {
    /// Bytes of one block in the data buffer.
    fn block(&self) -> u32 {
        match self.ext_block {
            0 => 1 << self.lba_shift,
            ext => ext,
        }
    }

    /// The command that writes `blocks` blocks at `slba` from `len` bytes
    /// at `addr`: a Write, or with `write_mode=zone_append` a Zone Append
    /// to the zone `slba` is in, as fio sends it (engines/nvme.c); the
    /// device puts the data at the zone's write pointer, where the job
    /// chose the offset.
    #[inline]
    fn write(&self, slba: u64, blocks: u32, addr: u64, len: u32, fua: bool) -> Command {
        match self.append_zone {
            0 => command::write(self.nsid, slba, blocks, addr, len, fua),
            zone => {
                let zslba = slba - slba % zone;
                command::zone_append(self.nsid, zslba, blocks, addr, len, fua)
            }
        }
    }

    /// The first LBA and the count of `len` bytes at `offset`, when both
    /// are whole blocks.
    #[inline]
    fn lbas(&self, offset: u64, len: u64) -> Option<(u64, u64)> {
        if self.ext_block == 0 {
            let mask = (1u64 << self.lba_shift) - 1;
            ((offset | len) & mask == 0).then(|| (offset >> self.lba_shift, len >> self.lba_shift))
        } else {
            let b = u64::from(self.ext_block);
            (offset.is_multiple_of(b) && len.is_multiple_of(b)).then(|| (offset / b, len / b))
        }
    }
}

/// The `io_uring_cmd` queue.
///
/// [`Queue::submit`] turns a request into one NVMe command in a big SQE
/// (user_data is the slot), [`Queue::commit`] and [`Queue::reap`] are the
/// io_uring backend's. Offsets and lengths must be multiples of the
/// namespace's LBA size: a request that is not is refused, never rounded.
/// A completion's result is the bytes the command covered, -errno when the
/// kernel failed it, or -([`NVME_STATUS_BIAS`] + status) when the device did.
///
/// A read the caller asked to compare ([`Queue::compare_in_device`]) goes
/// as an NVMe Compare against the slot's buffer: it completes with its
/// length when the blocks match, with the Compare Failure status when
/// they do not.
///
/// Write Zeroes and a one-range Dataset Management ([`Op::Trim`]) never
/// touch the slot's data buffer: that range lives in memory of its own, one
/// entry per slot. A request of several ranges ([`Op::TrimRanges`]) brings
/// its list in the slot's buffer, and the queue turns it into the device's
/// range list there, in place, so nothing is copied or allocated per
/// request.
pub struct UringCmdQueue {
    ring: Ring<squeue::Entry128, cqueue::Entry32>,
    fds: Box<[RawFd]>,
    namespaces: Box<[NamespaceGeometry]>,
    buffers: SlotBuffers,
    /// One iovec per slot for NVME_URING_CMD_IO_VEC.
    iovecs: Box<[libc::iovec]>,
    /// One Dataset Management range per slot.
    ranges: AlignedBuffer,
    /// The length of the request in each slot, reported on success (the
    /// CQE's result is 0 for a successful command).
    lens: Box<[u32]>,
    /// `md_per_io_size` bytes of metadata per slot, when the job has them.
    metadata: Option<AlignedBuffer>,
    md_per_io: usize,
    /// PRACT and the checks asked for, for namespaces with protection
    /// information.
    pi_act: bool,
    pi_checks: pi::Checks,
    /// A read whose protection information the host checks on completion
    /// (PRACT clear): its namespace and first LBA, per slot.
    pi_reads: Box<[Option<(u32, u64)>]>,
    /// Some namespace has protection information and PRACT is clear: the
    /// host checks reads as they complete.
    host_checks: bool,
    /// The read each slot's next submission turns into a Compare, if it is
    /// that read ([`Queue::compare_in_device`]).
    compares: Box<[Option<Request>]>,
    fixed_files: bool,
    fixed_buffers: bool,
    vectored: bool,
    readfua: bool,
    writefua: bool,
    force_async: ForceAsync,
    note: String,
}

impl UringCmdQueue {
    /// A queue over the NVMe generic char devices `fds` (indexed by
    /// [`Request::file`]). Each is identified here (namespace id and LBA
    /// size), so nothing is learnt at the first I/O.
    pub fn new(config: &QueueConfig, fds: &[RawFd]) -> Result<UringCmdQueue, EngineError> {
        let opts = &config.uring;
        if fds.is_empty() {
            return Err(EngineError::Setup(
                "the io_uring_cmd backend needs at least one NVMe char device (/dev/ngXnY)".into(),
            ));
        }
        let nvme = &opts.nvme;
        let mut namespaces = Vec::with_capacity(fds.len());
        for &fd in fds {
            namespaces.push(namespace_geometry(fd, nvme.pi_act, nvme.zone_append)?);
        }
        if config.hipri {
            for &fd in fds {
                check_poll_queues(fd)?;
            }
        }
        if opts.fixed_buffers && opts.nonvectored == Some(false) {
            return Err(EngineError::Setup(
                "fixedbufs cannot be used with vectored passthrough (nonvectored=0): \
                 the kernel refuses fixed buffers with NVME_URING_CMD_IO_VEC; drop one"
                    .into(),
            ));
        }
        let mut buffers = SlotBuffers::new(config)?;
        let ring =
            Ring::<squeue::Entry128, cqueue::Entry32>::new(config.depth, RingMode::of(config))
                .map_err(|e| {
                    EngineError::Setup(format!(
                        "{e} (io_uring_cmd needs IORING_SETUP_SQE128 and CQE32: Linux 5.19)"
                    ))
                })?;
        match ring.probe() {
            Some(p) if p.is_supported(opcode::UringCmd80::CODE) => {}
            _ => {
                return Err(EngineError::Setup(
                    "this kernel's io_uring has no IORING_OP_URING_CMD (Linux 5.19); \
                     use ioengine=io_uring on the block device instead"
                        .into(),
                ))
            }
        }
        let fixed_files = opts.register_files || opts.sqpoll;
        if fixed_files {
            ring.submitter()
                .register_files(fds)
                .map_err(|e| EngineError::Refused {
                    what: format!("cannot register {} files with the io_uring: {e}", fds.len()),
                    fix: vec![Advice::Drop(Knob::RegisterFiles)],
                })?;
        }
        let mut iovecs = Vec::with_capacity(config.depth as usize);
        for slot in 0..config.depth {
            let base = buffers
                .io_ptr(slot, 0)
                .expect("every slot below the depth has a buffer");
            iovecs.push(libc::iovec {
                iov_base: base.cast(),
                iov_len: config.buffer_size,
            });
        }
        let iovecs = iovecs.into_boxed_slice();
        if opts.fixed_buffers {
            // SAFETY: the iovecs name the queue's buffers, which live as
            // long as the ring (the ring is dropped first).
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
                EngineError::Refused {
                    what: format!(
                        "cannot register {} buffers of {} bytes with the io_uring: {e}",
                        config.depth, config.buffer_size
                    ),
                    fix: vec![
                        Advice::Other("raise ulimit -l".into()),
                        Advice::Lower(Knob::Depth),
                        Advice::Lower(Knob::BlockSize),
                        Advice::Drop(Knob::FixedBuffers),
                    ],
                }
            })?;
        }
        // fio's io_uring_cmd default is non-vectored (NVME_URING_CMD_IO).
        let vectored = opts.nonvectored == Some(false);
        let ranges =
            AlignedBuffer::try_new(config.depth as usize * DsmRange::BYTES, DsmRange::BYTES)?;
        let host_checks = !nvme.pi_act && namespaces.iter().any(|n| n.pi.is_some());
        let md_per_io = nvme.md_per_io_size as usize;
        let metadata = match md_per_io {
            0 => None,
            n => Some(AlignedBuffer::try_new(config.depth as usize * n, 4096)?),
        };
        let note = format!(
            "{}; SQE128|CQE32; {}{}",
            ring.note(),
            if opts.fixed_buffers {
                "fixed buffers"
            } else if vectored {
                "vectored (NVME_URING_CMD_IO_VEC)"
            } else {
                "non-vectored"
            },
            if fixed_files {
                ", registered files"
            } else {
                ""
            },
        );
        Ok(UringCmdQueue {
            ring,
            fds: fds.into(),
            namespaces: namespaces.into_boxed_slice(),
            buffers,
            iovecs,
            ranges,
            lens: vec![0; config.depth as usize].into_boxed_slice(),
            metadata,
            md_per_io,
            pi_act: nvme.pi_act,
            pi_checks: pi::Checks {
                flags: pi::parse_checks(&nvme.pi_chk),
                apptag: nvme.apptag,
                apptag_mask: nvme.apptag_mask,
            },
            pi_reads: vec![None; config.depth as usize].into_boxed_slice(),
            host_checks,
            compares: vec![None; config.depth as usize].into_boxed_slice(),
            fixed_files,
            fixed_buffers: opts.fixed_buffers,
            vectored,
            readfua: opts.nvme.readfua,
            writefua: opts.nvme.writefua,
            force_async: ForceAsync::every(opts.force_async),
            note,
        })
    }

    /// The bytes one logical block of the namespace behind file `file`
    /// takes in a request's data buffer: its data, and its metadata too
    /// on an extended-LBA format. Offsets and lengths are multiples of it.
    pub fn lba_size(&self, file: u32) -> Option<u32> {
        self.namespaces
            .get(file as usize)
            .map(NamespaceGeometry::block)
    }
}

/// Namespace id and block layout of an NVMe char or block device, for a
/// job with `pi_act` or without, and its zone size where writes go as
/// Zone Appends (`zone_append`).
fn namespace_geometry(
    fd: RawFd,
    pi_act: bool,
    zone_append: bool,
) -> Result<NamespaceGeometry, EngineError> {
    let name = crate::queue::fd_name(fd);
    let nsid = namespace_id(fd).map_err(|e| {
        EngineError::Setup(format!(
            "{name}: not an NVMe namespace (NVME_IOCTL_ID: {e}); io_uring_cmd needs /dev/ngXnY"
        ))
    })?;
    let ns =
        identify_namespace_of(fd, nsid).map_err(|e| EngineError::Setup(format!("{name}: {e}")))?;
    let lbads = ns.format().lbads;
    if !(9..=16).contains(&lbads) {
        return Err(EngineError::Setup(format!(
            "{name}: the namespace's LBA format has a block size of 2^{lbads}, which \
             io_uring_cmd cannot use"
        )));
    }
    let controller =
        identify_controller_of(fd).map_err(|e| EngineError::Setup(format!("{name}: {e}")))?;
    let nvm = nvm_namespace_of(fd, nsid, &controller);
    let g = Geometry::of(&controller, &ns, nvm.as_ref(), pi_act)
        .map_err(|why| EngineError::Setup(format!("{name}: {why}")))?;
    let append_zone = if zone_append {
        append_zone_blocks(&name, fd, nsid, &ns, g.pi.is_some())?
    } else {
        0
    };
    Ok(NamespaceGeometry {
        nsid,
        lba_shift: u32::from(lbads),
        ext_block: if g.extended { g.block() } else { 0 },
        separate_ms: g.separate_ms(),
        pi: g.pi.map(|f| (f, g.layout())),
        append_zone,
        compare: controller.has_compare() && g.ms == 0,
    })
}

/// The zone size in blocks of namespace `nsid` behind `fd` (`name`), which
/// Zone Appends need to name a zone's start; refused where the namespace
/// has no zones, and where it has protection information (an append's
/// reference tags would need remapping, which the queue does not do).
fn append_zone_blocks(
    name: &str,
    fd: RawFd,
    nsid: u32,
    ns: &crate::nvme::Namespace,
    protected: bool,
) -> Result<u64, EngineError> {
    let refuse =
        |why: &str| EngineError::Setup(format!("{name}: write_mode=zone_append needs {why}"));
    let zoned = zoned_namespace_of(fd, nsid).ok_or_else(|| {
        refuse("a zoned namespace, and this one answers no Zoned Namespace Identify")
    })?;
    if protected {
        return Err(refuse(
            "a namespace without protection information in ioscope (the reference \
             tags of an append are not remapped)",
        ));
    }
    match zoned.zsze.get(ns.format_index()).copied() {
        Some(blocks) if blocks > 0 => Ok(blocks),
        _ => Err(refuse(
            "a zone size, and this namespace reports 0 for its LBA format",
        )),
    }
}

/// Polled passthrough completes only on a poll queue; without one the
/// driver would wait on an interrupt that never comes for a polled request.
fn check_poll_queues(fd: RawFd) -> Result<(), EngineError> {
    let name = crate::queue::fd_name(fd);
    let (_, block) = nvme_names(std::path::Path::new(&name), TargetKind::CharDevice);
    let disk = block
        .as_ref()
        .and_then(|b| b.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match std::fs::read_to_string(format!("/sys/block/{disk}/queue/io_poll")) {
        Ok(v) if v.trim() == "1" => Ok(()),
        _ => Err(EngineError::CannotPoll {
            why: NoPolling::NoPollQueues {
                why: format!("/sys/block/{disk}/queue/io_poll is not 1"),
                disk,
            },
            path: name,
        }),
    }
}

/// Whether `result` is this queue's report of a command the device failed
/// with Compare Failure.
fn compare_failure(result: i64) -> bool {
    u16::try_from(result.saturating_neg() - NVME_STATUS_BIAS)
        .is_ok_and(|s| Status(s).is_compare_failure())
}

// The request's limit is the command's.
const _: () = assert!(MAX_TRIM_RANGES as usize == MAX_DSM_RANGES);
const _: () = assert!(TrimRange::BYTES == DsmRange::BYTES);

/// Slot `slot`'s part of the metadata buffers.
fn slot_metadata(all: &mut AlignedBuffer, slot: u32, per_io: usize) -> &mut [u8] {
    let at = slot as usize * per_io;
    &mut all.as_mut_slice()[at..at + per_io]
}

/// Turns the `count` [`TrimRange`]s laid at the start of `list` into the
/// Dataset Management range list the device reads, in place: the two
/// entries are the same size, and each is read whole before the device's
/// form overwrites it. Returns the ranges' total bytes, or why the list
/// cannot be sent.
fn dsm_list_in_place(
    list: &mut [u8],
    count: u16,
    ns: &NamespaceGeometry,
) -> Result<u64, &'static str> {
    if count == 0 || count > MAX_TRIM_RANGES {
        return Err("carries no range or more than 256 (what one Dataset Management can)");
    }
    let mut total = 0;
    for i in 0..usize::from(count) {
        let range = TrimRange::load(list, i);
        let lbas = (range.len != 0)
            .then(|| ns.lbas(range.offset, u64::from(range.len)))
            .flatten();
        let Some((slba, blocks)) = lbas else {
            return Err(
                "has a range that is not a whole number of logical blocks of the namespace",
            );
        };
        let entry = DsmRange::new(slba, blocks as u32);
        list[i * DsmRange::BYTES..(i + 1) * DsmRange::BYTES].copy_from_slice(&entry.to_le_bytes());
        total += u64::from(range.len);
    }
    Ok(total)
}

impl Queue for UringCmdQueue {
    const COMPLETES_IN_SUBMIT: bool = false;
    const WAITS_IN_SUBMIT: bool = true;

    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let (Some(&fd), Some(&ns)) = (
            self.fds.get(req.file as usize),
            self.namespaces.get(req.file as usize),
        ) else {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        };
        if req.slot as usize >= self.lens.len() {
            return Err(bad_request(req, "names a slot beyond the queue depth"));
        }
        let lbas = match req.op {
            Op::Fsync | Op::Fdatasync => Some((0, 0)),
            _ if req.len == 0 => None,
            _ => ns.lbas(req.offset, u64::from(req.len)),
        };
        let Some((slba, blocks)) = lbas else {
            return Err(bad_request(
                req,
                "is not a whole number of logical blocks of the namespace",
            ));
        };
        // Below 2^32: a request's length is.
        let blocks = blocks as u32;
        // A Dataset Management range counts its blocks in 32 bits.
        let counted_in_16_bits = !matches!(req.op, Op::Trim | Op::TrimRanges { .. });
        if counted_in_16_bits && blocks > MAX_BLOCKS {
            return Err(bad_request(req, "covers more than 65536 logical blocks"));
        }
        // Taken at every submission of the slot, so an ask for a request
        // that was never submitted dies with the slot's next one.
        let compare = self.compares[req.slot as usize].take() == Some(*req);
        let nsid = ns.nsid;
        let mut cmd_op = NVME_URING_CMD_IO;
        let mut buf_index = None;
        let cmd: Command = match req.op {
            Op::Read | Op::Write => {
                let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
                    return Err(bad_request(req, "is longer than the queue's buffers"));
                };
                let (addr, len) = if self.vectored && !self.fixed_buffers {
                    let iov = &mut self.iovecs[req.slot as usize];
                    iov.iov_len = req.len as usize;
                    cmd_op = NVME_URING_CMD_IO_VEC;
                    // With _VEC, addr names the iovec array and data_len
                    // counts its entries.
                    (iov as *const libc::iovec as u64, 1)
                } else {
                    (ptr as u64, req.len)
                };
                if self.fixed_buffers {
                    // The slot's buffer is registered at the slot's index.
                    buf_index = Some(req.slot as u16);
                }
                // fio sends a Compare with a Read's FUA (its cdw12 flags of
                // DDIR_READ).
                let mut cmd = if compare {
                    command::compare(nsid, slba, blocks, addr, len, self.readfua)
                } else if req.op == Op::Read {
                    command::read(nsid, slba, blocks, addr, len, self.readfua)
                } else {
                    ns.write(slba, blocks, addr, len, self.writefua)
                };
                if ns.separate_ms != 0 {
                    let need = blocks as usize * ns.separate_ms as usize;
                    let Some(md) = self.metadata.as_mut().filter(|_| need <= self.md_per_io) else {
                        return Err(bad_request(
                            req,
                            "needs more metadata than md_per_io_size holds",
                        ));
                    };
                    let at = req.slot as usize * self.md_per_io;
                    cmd.metadata = md.as_mut_slice()[at..].as_ptr() as u64;
                    cmd.metadata_len = need as u32;
                }
                if let Some((format, layout)) = ns.pi.filter(|_| !self.pi_act) {
                    if req.op == Op::Write {
                        // The host writes what PRACT would have the
                        // controller write.
                        let data = &mut self.buffers.slot(req.slot)[..req.len as usize];
                        let md = match self.metadata.as_mut() {
                            Some(m) => slot_metadata(m, req.slot, self.md_per_io),
                            None => &mut [],
                        };
                        format.generate(&layout, &self.pi_checks, slba, blocks as usize, data, md);
                    } else {
                        self.pi_reads[req.slot as usize] = Some((req.file, slba));
                    }
                }
                cmd
            }
            Op::WriteZeroes { deac } => {
                command::write_zeroes(nsid, slba, blocks, deac, self.writefua)
            }
            Op::WriteUncorrectable => command::write_uncorrectable(nsid, slba, blocks),
            Op::DeviceVerify => command::verify(nsid, slba, blocks, self.writefua),
            Op::Trim => {
                let at = req.slot as usize * DsmRange::BYTES;
                let entry = &mut self.ranges.as_mut_slice()[at..at + DsmRange::BYTES];
                entry.copy_from_slice(&DsmRange::new(slba, blocks).to_le_bytes());
                command::deallocate(nsid, entry.as_ptr() as u64, 1)
            }
            Op::TrimRanges { count } => {
                let bytes = usize::from(count) * TrimRange::BYTES;
                let Some(addr) = self.buffers.io_ptr(req.slot, bytes as u32) else {
                    return Err(bad_request(
                        req,
                        "has more ranges than the slot's buffer holds",
                    ));
                };
                let list = &mut self.buffers.slot(req.slot)[..bytes];
                match dsm_list_in_place(list, count, &ns) {
                    Ok(total) if total == u64::from(req.len) => {}
                    Ok(_) => {
                        return Err(bad_request(req, "has a len other than its ranges' total"))
                    }
                    Err(why) => return Err(bad_request(req, why)),
                }
                command::deallocate(nsid, addr as u64, u32::from(count))
            }
            // NVMe has one Flush for both.
            Op::Fsync | Op::Fdatasync => command::flush(nsid),
            Op::SyncFileRange { .. } => {
                return Err(bad_request(req, "is not supported by this backend"))
            }
        };
        let mut cmd = cmd;
        if let Some((format, _)) = ns.pi {
            if matches!(
                req.op,
                Op::Read | Op::Write | Op::WriteZeroes { .. } | Op::DeviceVerify
            ) {
                // PRINFO and the tags the checks compare against, as fio
                // sets them on every read and write.
                let act = if self.pi_act { pi::PRACT } else { 0 };
                cmd.cdw12 |= act | self.pi_checks.flags;
                (cmd.cdw3, cmd.cdw14, cmd.cdw15) = format.dwords(&self.pi_checks, slba);
            }
        }
        self.lens[req.slot as usize] = if matches!(req.op, Op::Fsync | Op::Fdatasync) {
            0
        } else {
            req.len
        };
        let entry = if self.fixed_files {
            opcode::UringCmd80::new(types::Fixed(req.file), cmd_op)
        } else {
            opcode::UringCmd80::new(types::Fd(fd), cmd_op)
        };
        let mut sqe = entry
            .cmd(cmd.to_sqe_bytes())
            .buf_index(buf_index)
            .build()
            .user_data(u64::from(req.slot));
        if self.force_async.this_one() {
            sqe = sqe.flags(squeue::Flags::ASYNC);
        }
        // SAFETY: the command's data buffer, iovec or range entry belongs to
        // the slot, which is not reused before the request completes, and
        // the descriptor is kept open by the caller; the queue waits for
        // every request before its memory is freed.
        unsafe { self.ring.push(&sqe)? };
        Ok(Submitted::Queued)
    }

    fn compare_in_device(&mut self, req: &Request) -> bool {
        let can = req.op == Op::Read
            && self
                .namespaces
                .get(req.file as usize)
                .is_some_and(|ns| ns.compare);
        match self.compares.get_mut(req.slot as usize) {
            Some(ask) if can => {
                *ask = Some(*req);
                true
            }
            _ => false,
        }
    }

    fn compare_mismatch(result: i64) -> bool {
        compare_failure(result)
    }

    #[inline(always)]
    fn commit(&mut self) -> io::Result<u32> {
        self.ring.commit()
    }

    #[inline(always)]
    fn submit_and_wait(&mut self, want: u32) -> io::Result<u32> {
        self.ring.submit_and_wait(want)
    }

    #[inline(always)]
    fn reap<F: FnMut(Completion)>(
        &mut self,
        min: u32,
        max: u32,
        mut on_complete: F,
    ) -> io::Result<u32> {
        let UringCmdQueue {
            ring,
            lens,
            pi_reads,
            namespaces,
            buffers,
            metadata,
            md_per_io,
            pi_checks,
            host_checks,
            ..
        } = self;
        let host_checks = *host_checks;
        ring.reap(min, max, |slot, res| {
            let mut result = match res {
                0 => i64::from(lens[slot as usize]),
                r if r < 0 => i64::from(r),
                status => -(NVME_STATUS_BIAS + i64::from(status)),
            };
            if host_checks {
                if let Some((file, slba)) = pi_reads[slot as usize].take() {
                    if let (0, Some((format, layout))) = (res, namespaces[file as usize].pi) {
                        let len = lens[slot as usize] as usize;
                        let data = &mut buffers.slot(slot as u32)[..len];
                        let md = match metadata.as_mut() {
                            Some(m) => slot_metadata(m, slot as u32, *md_per_io),
                            None => &mut [],
                        };
                        let blocks = len / layout.block();
                        if let Err((m, _, _)) =
                            format.verify(&layout, pi_checks, slba, blocks, data, md)
                        {
                            result = -(PI_CHECK_BIAS + m.code());
                        }
                    }
                }
            }
            on_complete(Completion {
                slot: slot as u32,
                result,
            })
        })
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn in_flight(&self) -> u32 {
        self.ring.in_flight()
    }

    fn setup_note(&self) -> Option<&str> {
        Some(&self.note)
    }

    fn refused_setup_flags(&self) -> Option<String> {
        self.ring.refused_flags()
    }

    fn calls(&self) -> (u64, u64) {
        self.ring.calls()
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    use super::*;
    use crate::registry::Backend;

    /// Every backend trims (the ones without a trim command of their own
    /// punch holes or discard); only passthrough and the backends that do
    /// no I/O send the write commands without data.
    #[test]
    fn only_passthrough_and_the_no_io_backends_write_zeroes() {
        let zeroes = [
            Op::WriteZeroes { deac: false },
            Op::WriteZeroes { deac: true },
            Op::WriteUncorrectable,
            Op::DeviceVerify,
        ];
        let ranges = Op::TrimRanges { count: 2 };
        for b in [
            Backend::Sync,
            Backend::Psync,
            Backend::Pvsync2,
            Backend::Libaio,
            Backend::Mmap,
            Backend::IoUring,
        ] {
            assert!(zeroes.iter().all(|&op| !b.supports(op)), "{b:?}");
            assert!(b.supports(Op::Read) && b.supports(Op::Write), "{b:?}");
            assert!(b.supports(Op::Trim), "{b:?}");
            assert!(!b.supports(ranges), "{b:?} has no command for a range list");
        }
        for b in [Backend::IoUringCmd, Backend::Null, Backend::Nop] {
            assert!(zeroes.iter().all(|&op| b.supports(op)), "{b:?}");
            assert!(b.supports(Op::Trim) && b.supports(ranges), "{b:?}");
        }
        assert_eq!(
            Backend::from_name("io_uring_cmd"),
            Some(Backend::IoUringCmd)
        );
        assert_eq!(Backend::IoUringCmd.name(), "io_uring_cmd");
    }

    /// A namespace of 2^`shift`-byte blocks without metadata.
    fn plain(shift: u32) -> NamespaceGeometry {
        NamespaceGeometry {
            nsid: 1,
            lba_shift: shift,
            ext_block: 0,
            separate_ms: 0,
            pi: None,
            append_zone: 0,
            compare: true,
        }
    }

    /// With write_mode=zone_append a write goes as a Zone Append naming
    /// the start of its zone (zones of 1000 blocks here: a zoned
    /// namespace's need not be a power of two); without, as a Write at its
    /// own LBA.
    #[test]
    fn writes_go_as_zone_appends_to_their_zone_start() {
        let append = NamespaceGeometry {
            append_zone: 1000,
            ..plain(12)
        };
        let c = append.write(2345, 8, 0x1000, 32768, true);
        assert_eq!(c.opcode, 0x7d);
        assert_eq!((c.cdw10, c.cdw11), (2000, 0));
        assert_eq!(c.cdw12, 7 | command::CDW12_FUA);
        assert_eq!((c.addr, c.data_len, c.nsid), (0x1000, 32768, 1));
        let far = append.write(5_000_000_123, 1, 0x1000, 4096, false);
        assert_eq!(
            far.cdw10 as u64 | (u64::from(far.cdw11) << 32),
            5_000_000_000
        );
        let c = plain(12).write(2345, 8, 0x1000, 32768, false);
        assert_eq!(c.opcode, 0x01);
        assert_eq!((c.cdw10, c.cdw12), (2345, 7));
    }

    /// Only the device's Compare Failure, with or without DNR, is a
    /// mismatch: not another status, an errno, or the host's check of
    /// protection information.
    #[test]
    fn compare_failures_are_told_from_other_errors() {
        let nvme = |status: i64| -(NVME_STATUS_BIAS + status);
        assert!(UringCmdQueue::compare_mismatch(nvme(0x285)));
        assert!(UringCmdQueue::compare_mismatch(nvme(0x4285)));
        assert!(!UringCmdQueue::compare_mismatch(nvme(0x281)));
        assert!(!UringCmdQueue::compare_mismatch(nvme(0x4001)));
        assert!(!UringCmdQueue::compare_mismatch(-i64::from(libc::EIO)));
        assert!(!UringCmdQueue::compare_mismatch(-(PI_CHECK_BIAS + 0x285)));
        assert!(!UringCmdQueue::compare_mismatch(4096));
        assert!(!UringCmdQueue::compare_mismatch(i64::MIN));
    }

    #[test]
    fn extended_lbas_are_counted_whole() {
        let ns = NamespaceGeometry {
            ext_block: 520,
            ..plain(9)
        };
        assert_eq!(ns.block(), 520);
        assert_eq!(plain(12).block(), 4096);
        assert_eq!(ns.lbas(520 * 3, 520 * 2), Some((3, 2)));
        assert_eq!(ns.lbas(512 * 3, 520 * 2), None);
        assert_eq!(ns.lbas(520, 512), None);
        assert_eq!(plain(9).lbas(1024, 4096), Some((2, 8)));
        assert_eq!(plain(9).lbas(1000, 4096), None);
    }

    /// The caller's ranges become the device's 16-byte entries in place:
    /// context attributes 0, the block count (1-based) at bytes 4..8, the
    /// starting LBA at 8..16, little-endian; the command counts them
    /// 0-based.
    #[test]
    fn trim_ranges_become_the_dsm_range_list_in_place() {
        let mut list = [0xaau8; 4 * TrimRange::BYTES];
        let ranges = [(0x2_0000_1000u64, 4096u32), (0, 512), (1 << 20, 1 << 20)];
        for (i, &(offset, len)) in ranges.iter().enumerate() {
            TrimRange { offset, len }.store(&mut list, i);
        }
        let total = dsm_list_in_place(&mut list, 3, &plain(9)).unwrap();
        assert_eq!(total, 4096 + 512 + (1 << 20));
        let entry = |i: usize| &list[i * 16..(i + 1) * 16];
        assert_eq!(&entry(0)[..4], &[0; 4]);
        assert_eq!(&entry(0)[4..8], &8u32.to_le_bytes());
        assert_eq!(&entry(0)[8..], &(0x2_0000_1000u64 >> 9).to_le_bytes());
        assert_eq!(&entry(1)[4..8], &1u32.to_le_bytes());
        assert_eq!(&entry(1)[8..], &0u64.to_le_bytes());
        assert_eq!(&entry(2)[4..8], &2048u32.to_le_bytes());
        assert_eq!(&entry(2)[8..], &2048u64.to_le_bytes());
        assert!(entry(3).iter().all(|&b| b == 0xaa), "past the count");
        let cmd = command::deallocate(1, list.as_ptr() as u64, 3);
        assert_eq!((cmd.cdw10, cmd.data_len), (2, 48));
    }

    #[test]
    fn a_range_list_is_1_to_256_whole_block_ranges() {
        let mut list = vec![0u8; 257 * TrimRange::BYTES];
        for i in 0..257 {
            TrimRange {
                offset: i as u64 * 4096,
                len: 4096,
            }
            .store(&mut list, i);
        }
        let mut full = list.clone();
        assert_eq!(
            dsm_list_in_place(&mut full, 256, &plain(12)),
            Ok(256 * 4096)
        );
        assert_eq!(command::deallocate(1, 0, 256).cdw10, 255, "NR is 0-based");
        assert!(dsm_list_in_place(&mut list.clone(), 257, &plain(12)).is_err());
        assert!(dsm_list_in_place(&mut list.clone(), 0, &plain(12)).is_err());
        TrimRange {
            offset: 4096,
            len: 2048,
        }
        .store(&mut list, 1);
        let err = dsm_list_in_place(&mut list, 2, &plain(12)).unwrap_err();
        assert!(err.contains("whole number of logical blocks"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_an_nvme_namespace_is_refused_up_front() {
        let file = tempfile::tempfile().unwrap();
        let config = QueueConfig {
            depth: 4,
            buffer_size: 4096,
            buffer_align: 4096,
            ..Default::default()
        };
        let err = UringCmdQueue::new(&config, &[file.as_raw_fd()])
            .err()
            .expect("a regular file is no namespace");
        assert!(err.to_string().contains("not an NVMe namespace"), "{err}");
        assert!(UringCmdQueue::new(&config, &[]).is_err());
    }
}
