use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use io_uring::{opcode, squeue, types};

use super::checks::poll_queue_warning;
use super::queue::UringQueue;
use super::ring::Ring;
use super::setup_flags::{
    setup_flag_names, RingMode, IORING_SETUP_CQSIZE, IORING_SETUP_DEFER_TASKRUN,
    IORING_SETUP_IOPOLL, IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_SQPOLL, IORING_SETUP_SQ_AFF,
};
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::queue_config::UringOptions;
use crate::request::{Completion, Op, Request};
use crate::target::{OpenOptions, Target};
use ioscope_testutil::{
    o_direct, part, require, resident_pages, setup, uncached_buffered_io, uring_setup,
};

const BS: usize = 4096;

pub(crate) fn config(depth: u32, hipri: bool, uring: UringOptions) -> QueueConfig {
    QueueConfig {
        depth,
        buffer_size: BS,
        buffer_align: 4096,
        hipri,
        uring,
        ..QueueConfig::default()
    }
}

fn open(path: &Path, direct: bool) -> Result<Target, EngineError> {
    Target::open(
        path,
        &OpenOptions {
            read: true,
            write: true,
            create: true,
            direct,
            pi_in_data: false,
        },
    )
}

fn fill_byte(block: u64) -> u8 {
    (block as u8).wrapping_mul(7).wrapping_add(1)
}

/// Writes `blocks` blocks, each filled with its own byte, keeping up to
/// `depth` in flight and committing every `batch`, then fsyncs and reads
/// them all back the same way, checking every result and every byte.
pub(crate) fn round_trip<Q: Queue>(q: &mut Q, depth: u32, batch: u32, blocks: u64) {
    for op in [Op::Write, Op::Read] {
        let mut free: Vec<u32> = (0..depth).rev().collect();
        let mut block_of = vec![u64::MAX; depth as usize];
        let mut pending = 0;
        let mut done = 0u64;
        let check = |q: &mut Q, c: Completion, block_of: &[u64]| {
            let block = block_of[c.slot as usize];
            assert_eq!(c.result, BS as i64, "{op:?} of block {block}");
            if op == Op::Read {
                let want = fill_byte(block);
                assert!(
                    q.buffer(c.slot).iter().all(|&b| b == want),
                    "block {block} read back wrong data"
                );
            }
        };
        for block in 0..blocks {
            let slot = loop {
                if let Some(slot) = free.pop() {
                    break slot;
                }
                let mut got = Vec::new();
                q.reap(1, depth, |c| got.push(c)).unwrap();
                assert!(!got.is_empty(), "reap(1, ..) returned nothing");
                for c in got {
                    check(q, c, &block_of);
                    free.push(c.slot);
                    done += 1;
                }
            };
            if op == Op::Write {
                q.buffer(slot).fill(fill_byte(block));
            } else {
                q.buffer(slot).fill(0);
            }
            block_of[slot as usize] = block;
            let req = Request {
                op,
                file: 0,
                offset: block * BS as u64,
                len: BS as u32,
                slot,
            };
            assert_eq!(q.submit(&req).unwrap(), Submitted::Queued);
            pending += 1;
            if pending == batch {
                assert!(q.commit().unwrap() <= batch);
                pending = 0;
            }
        }
        q.commit().unwrap();
        while done < blocks {
            let mut got = Vec::new();
            let n = q.reap(1, depth, |c| got.push(c)).unwrap();
            assert_eq!(n as usize, got.len());
            for c in got {
                check(q, c, &block_of);
                done += 1;
            }
        }
        assert_eq!(q.in_flight(), 0);
        if op == Op::Write {
            let fsync = Request {
                op: Op::Fsync,
                file: 0,
                offset: 0,
                len: 0,
                slot: 0,
            };
            let r = match q.submit(&fsync).unwrap() {
                Submitted::Completed(r) => r,
                Submitted::Queued => {
                    q.commit().unwrap();
                    let mut r = None;
                    q.reap(1, 1, |c| r = Some(c.result)).unwrap();
                    r.unwrap()
                }
            };
            assert_eq!(r, 0, "fsync");
        }
    }
}

fn check_file(path: &Path, blocks: u64) {
    let data = std::fs::read(path).unwrap();
    assert_eq!(data.len() as u64, blocks * BS as u64);
    for (i, block) in data.chunks(BS).enumerate() {
        assert!(block.iter().all(|&b| b == fill_byte(i as u64)), "block {i}");
    }
}

fn variants() -> Vec<(&'static str, UringOptions)> {
    vec![
        ("default", UringOptions::default()),
        (
            "vectored",
            UringOptions {
                nonvectored: Some(false),
                ..Default::default()
            },
        ),
        (
            "nonvectored",
            UringOptions {
                nonvectored: Some(true),
                ..Default::default()
            },
        ),
        (
            "fixed buffers",
            UringOptions {
                fixed_buffers: true,
                ..Default::default()
            },
        ),
        (
            "registered files",
            UringOptions {
                register_files: true,
                ..Default::default()
            },
        ),
        (
            "fixed buffers and registered files, vectored asked for",
            UringOptions {
                fixed_buffers: true,
                register_files: true,
                nonvectored: Some(false),
                ..Default::default()
            },
        ),
        (
            "force_async every 3rd",
            UringOptions {
                force_async: 3,
                ..Default::default()
            },
        ),
    ]
}

fn every_variant_reads_back(direct: bool) {
    for (name, opts) in variants() {
        for (depth, batch) in [(1, 1), (32, 1), (32, 8), (32, 32)] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            let t = open(&path, direct).unwrap();
            let mut q = UringQueue::new(&config(depth, false, opts.clone()), &[t.fd()])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            round_trip(&mut q, depth, batch, 100);
            drop(q);
            check_file(&path, 100);
        }
    }
}

#[test]
fn every_variant_reads_back_what_it_wrote_buffered() {
    every_variant_reads_back(false);
}

#[test]
fn every_variant_reads_back_what_it_wrote_with_o_direct() {
    // Each variant's file is in a fresh directory under the temp directory.
    require!(o_direct(&std::env::temp_dir()));
    every_variant_reads_back(true);
}

#[test]
fn vectored_follows_the_option_and_defaults_to_read_write() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    let q = |opts| UringQueue::new(&config(4, false, opts), &[t.fd()]).unwrap();
    // Every kernel this runs on has IORING_OP_READ (5.6), so fio's
    // default picks the non-vectored opcodes.
    assert!(!q(UringOptions::default()).is_vectored());
    let vectored = UringOptions {
        nonvectored: Some(false),
        ..Default::default()
    };
    assert!(q(vectored.clone()).is_vectored());
    assert!(!q(UringOptions {
        fixed_buffers: true,
        ..vectored
    })
    .is_vectored());
}

#[test]
fn ring_uses_modern_flags_and_a_registered_fd() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    let q = UringQueue::new(&config(8, false, UringOptions::default()), &[t.fd()]).unwrap();
    let note = q.setup_note().unwrap().to_string();
    assert!(note.contains("ring fd registered"), "{note}");
    assert!(q.setup_flags() & IORING_SETUP_SINGLE_ISSUER != 0, "{note}");
    assert_eq!(
        q.setup_flags() & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL),
        0
    );
}

/// A registered ring fd takes one of the 16 slots of the thread's table
/// until it is unregistered: dropping a queue must give it back, or the
/// 17th queue a worker builds would go unregistered.
#[test]
fn dropping_a_queue_unregisters_its_ring_fd() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    for i in 0..40 {
        let q = UringQueue::new(&config(2, false, UringOptions::default()), &[t.fd()]).unwrap();
        let note = q.setup_note().unwrap();
        assert!(note.contains("ring fd registered"), "queue {i}: {note}");
    }
}

/// An IOPOLL ring comes up (on Linux 6.18 with every optional flag).
#[test]
fn polled_ring_comes_up() {
    let ring = Ring::<squeue::Entry>::new(
        4,
        RingMode {
            iopoll: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(ring.iopoll(), "{}", ring.note());
}

/// The kernel refuses DEFER_TASKRUN (and the other task-run flags) with
/// SQPOLL: the ring must still come up, without them, and say so.
#[test]
fn refused_flags_are_dropped_one_at_a_time() {
    require!(uring_setup(setup::SQPOLL));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let t = open(&path, false).unwrap();
    let opts = UringOptions {
        sqpoll: true,
        ..Default::default()
    };
    let mut q =
        UringQueue::new(&config(8, false, opts), &[t.fd()]).unwrap_or_else(|e| panic!("{e}"));
    let flags = q.setup_flags();
    let note = q.setup_note().unwrap().to_string();
    assert!(flags & IORING_SETUP_SQPOLL != 0);
    assert_eq!(flags & IORING_SETUP_DEFER_TASKRUN, 0, "{note}");
    assert!(
        note.contains("kernel refused") && note.contains("DEFER_TASKRUN"),
        "{note}"
    );
    assert!(
        note.contains("registered files"),
        "SQPOLL registers the files as fio does"
    );
    round_trip(&mut q, 8, 4, 40);
    drop(q);
    check_file(&path, 40);
}

#[test]
fn sqpoll_with_a_cpu_and_idle_time_round_trips() {
    require!(uring_setup(setup::SQPOLL));
    let dir = tempfile::tempdir().unwrap();
    require!(o_direct(dir.path()));
    let path = dir.path().join("f");
    let t = open(&path, true).unwrap();
    let opts = UringOptions {
        sqpoll: true,
        sqpoll_cpu: Some(0),
        // A short idle time so the thread sleeps between the phases
        // below and commit has to wake it.
        sqpoll_idle_ms: Some(1),
        ..Default::default()
    };
    let mut q =
        UringQueue::new(&config(16, false, opts), &[t.fd()]).unwrap_or_else(|e| panic!("{e}"));
    assert!(q.setup_flags() & IORING_SETUP_SQ_AFF != 0);
    round_trip(&mut q, 16, 16, 64);
    std::thread::sleep(std::time::Duration::from_millis(20));
    round_trip(&mut q, 16, 3, 64);
    drop(q);
    check_file(&path, 64);
}

#[test]
fn sqpoll_options_without_sqpoll_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    let opts = UringOptions {
        sqpoll_cpu: Some(0),
        ..Default::default()
    };
    let e = UringQueue::new(&config(4, false, opts), &[t.fd()])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("only apply with sqthread_poll"), "{e}");
}

#[test]
fn hipri_on_a_buffered_file_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    let e = UringQueue::new(&config(4, true, UringOptions::default()), &[t.fd()])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("needs files opened with O_DIRECT"), "{e}");
    assert!(e.contains("direct=1"), "{e}");
}

/// hipri on an O_DIRECT file: where the device has poll queues the data
/// moves, and fsync (which the ring refuses with IOPOLL) runs
/// synchronously; where it has none (virtio-blk here) the queue refuses
/// up front, since the kernel would fail the reads.
#[test]
fn hipri_with_o_direct_round_trips_or_is_refused_without_poll_queues() {
    let dir = tempfile::tempdir().unwrap();
    require!(o_direct(dir.path()));
    let path = dir.path().join("f");
    let t = open(&path, true).unwrap();
    let warning = poll_queue_warning(&path);
    for opts in [
        UringOptions::default(),
        UringOptions {
            fixed_buffers: true,
            register_files: true,
            ..Default::default()
        },
    ] {
        match UringQueue::new(&config(16, true, opts), &[t.fd()]) {
            Ok(mut q) => {
                assert!(q.setup_flags() & IORING_SETUP_IOPOLL != 0);
                round_trip(&mut q, 16, 4, 64);
            }
            Err(e) => {
                let e = e.to_string();
                let w = warning.as_deref().unwrap_or_default();
                assert!(
                    e.contains("has no poll queues") || e.contains("has none"),
                    "{e}"
                );
                assert!(w.contains("has none"), "the warning says the same: {w}");
                return;
            }
        }
    }
    check_file(&path, 64);
}

/// What the kernel does, bypassing the queue's checks, with a polled read
/// on a device without poll queues (Linux 6.18 fails it with EOPNOTSUPP;
/// older kernels completed it by interrupt), and with an fsync on an
/// IOPOLL ring (EINVAL: only pollable opcodes are allowed there).
#[test]
fn kernel_facts_polled_read_and_fsync() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![5u8; BS]).unwrap();
    require!(o_direct(dir.path()));
    let t = open(&path, true).unwrap();
    let mut buf = crate::AlignedBuffer::new(BS, 4096);
    let mut ring = Ring::<squeue::Entry>::new(
        1,
        RingMode {
            iopoll: true,
            ..Default::default()
        },
    )
    .unwrap();
    let sqe = opcode::Read::new(
        types::Fd(t.fd()),
        buf.as_mut_slice().as_mut_ptr(),
        BS as u32,
    )
    .build();
    // SAFETY: the buffer outlives the ring's wait for the completion.
    unsafe { ring.push(&sqe).unwrap() };
    ring.commit().unwrap();
    let mut res = None;
    ring.reap(1, 1, |_, r| res = Some(r)).unwrap();
    let res = res.unwrap();
    assert!(
        res == BS as i32 || res == -libc::EOPNOTSUPP,
        "polled read: {res}; device: {:?}",
        poll_queue_warning(&path)
    );
    if res == BS as i32 {
        assert!(buf.as_slice().iter().all(|&b| b == 5));
    }
    // An fsync cannot be polled for; the ring refuses it.
    let sqe = opcode::Fsync::new(types::Fd(t.fd())).build();
    // SAFETY: an fsync names no memory.
    unsafe { ring.push(&sqe).unwrap() };
    ring.commit().unwrap();
    let mut res = None;
    ring.reap(1, 1, |_, r| res = Some(r)).unwrap();
    assert_eq!(res, Some(-libc::EINVAL), "fsync on an IOPOLL ring");
}

#[test]
fn poll_queue_warning_matches_sysfs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, b"x").unwrap();
    let warning = poll_queue_warning(&path);
    if let Some(w) = &warning {
        assert!(w.contains("hipri"), "{w}");
    }
    assert_eq!(poll_queue_warning(Path::new("/no/such/file")), None);
}

/// With uncached, buffered reads leave nothing in the page cache (where
/// the kernel has RWF_DONTCACHE; elsewhere the queue refuses up front).
#[test]
fn uncached_reads_leave_no_pages_cached_or_are_refused_up_front() {
    const BLOCKS: u64 = 32;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let data: Vec<u8> = (0..BLOCKS).flat_map(|b| vec![fill_byte(b); BS]).collect();
    std::fs::write(&path, data).unwrap();
    let dontcache = part!("the uncached reads", uncached_buffered_io(dir.path()));
    let t = open(&path, false).unwrap();
    let evict = || {
        // SAFETY: plain calls on an open descriptor.
        unsafe {
            libc::fsync(t.fd());
            libc::posix_fadvise(t.fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
        }
    };
    for uncached in [false, true] {
        evict();
        let opts = UringOptions {
            uncached,
            ..Default::default()
        };
        let made = UringQueue::new(&config(8, false, opts), &[t.fd()]);
        if uncached && dontcache.is_none() {
            // Where the kernel or the file system lacks RWF_DONTCACHE the
            // queue says so before any I/O.
            let e = made
                .err()
                .expect("uncached accepted without RWF_DONTCACHE")
                .to_string();
            assert!(e.contains("drop uncached"), "{e}");
            return;
        }
        let mut q = made.unwrap_or_else(|e| panic!("uncached {uncached}: {e}"));
        let mut read_all = 0;
        for slot in 0..8u32 {
            for block in (u64::from(slot)..BLOCKS).step_by(8) {
                q.submit(&Request {
                    op: Op::Read,
                    file: 0,
                    offset: block * BS as u64,
                    len: BS as u32,
                    slot,
                })
                .unwrap();
                q.commit().unwrap();
                q.reap(1, 1, |c| {
                    assert_eq!(c.result, BS as i64);
                    read_all += 1;
                })
                .unwrap();
                assert!(q.buffer(slot).iter().all(|&b| b == fill_byte(block)));
            }
        }
        assert_eq!(read_all, BLOCKS);
        let cached = resident_pages(&path);
        if uncached {
            assert_eq!(cached, 0, "{cached} of {BLOCKS} pages cached");
        } else {
            assert!(cached > 0, "plain buffered reads fill the page cache");
        }
    }
}

/// RWF_NOWAIT fails a transfer that would block with -EAGAIN instead of
/// waiting; reads of data in the page cache never block.
#[test]
fn nowait_reads_cached_data_or_says_eagain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![0x42u8; 8 * BS]).unwrap();
    let t = open(&path, false).unwrap();
    let opts = UringOptions {
        nowait: true,
        ..Default::default()
    };
    let mut q = UringQueue::new(&config(8, false, opts), &[t.fd()]).unwrap();
    for slot in 0..8 {
        let req = Request {
            op: Op::Read,
            file: 0,
            offset: u64::from(slot) * BS as u64,
            len: BS as u32,
            slot,
        };
        q.submit(&req).unwrap();
    }
    assert_eq!(q.commit().unwrap(), 8);
    let mut results = Vec::new();
    while q.in_flight() > 0 {
        q.reap(1, 8, |c| results.push(c)).unwrap();
    }
    for c in results {
        assert!(
            c.result == BS as i64 || c.result == -i64::from(libc::EAGAIN),
            "{c:?}"
        );
        if c.result == BS as i64 {
            assert!(q.buffer(c.slot).iter().all(|&b| b == 0x42));
        }
    }
}

#[test]
fn per_io_errors_and_short_reads_are_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![9u8; BS + 100]).unwrap();
    let t = Target::open(
        &path,
        &OpenOptions {
            read: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut q = UringQueue::new(&config(4, false, UringOptions::default()), &[t.fd()]).unwrap();
    let reqs = [
        (Op::Write, 0, -i64::from(libc::EBADF)),
        (Op::Read, BS as u64, 100),
        (Op::Read, 2 * BS as u64, 0),
    ];
    for (slot, &(op, offset, _)) in reqs.iter().enumerate() {
        q.submit(&Request {
            op,
            file: 0,
            offset,
            len: BS as u32,
            slot: slot as u32,
        })
        .unwrap();
    }
    assert_eq!(q.commit().unwrap(), 3);
    let mut got = [None; 3];
    while q.in_flight() > 0 {
        q.reap(1, 4, |c| got[c.slot as usize] = Some(c.result))
            .unwrap();
    }
    for (slot, &(op, _, want)) in reqs.iter().enumerate() {
        assert_eq!(got[slot], Some(want), "{op:?} in slot {slot}");
    }
}

#[test]
fn reap_takes_no_more_than_asked_and_never_waits_on_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![1u8; 8 * BS]).unwrap();
    let t = open(&path, false).unwrap();
    let mut q = UringQueue::new(&config(8, false, UringOptions::default()), &[t.fd()]).unwrap();
    // Nothing in flight: even min 1 returns at once.
    assert_eq!(q.reap(1, 8, |_| panic!("nothing to reap")).unwrap(), 0);
    for slot in 0..8 {
        q.submit(&Request {
            op: Op::Read,
            file: 0,
            offset: u64::from(slot) * BS as u64,
            len: BS as u32,
            slot,
        })
        .unwrap();
    }
    assert_eq!(q.in_flight(), 8);
    // Not committed: reap submits them itself when it must wait.
    let mut seen = Vec::new();
    assert_eq!(q.reap(3, 3, |c| seen.push(c.slot)).unwrap(), 3);
    assert_eq!(q.in_flight(), 5);
    while q.in_flight() > 0 {
        q.reap(1, 8, |c| seen.push(c.slot)).unwrap();
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

#[test]
fn requests_outside_the_queue_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    let mut q = UringQueue::new(&config(2, false, UringOptions::default()), &[t.fd()]).unwrap();
    let req = |file, len, slot| Request {
        op: Op::Read,
        file,
        offset: 0,
        len,
        slot,
    };
    for r in [
        req(0, BS as u32, 2),
        req(0, BS as u32 + 1, 0),
        req(1, 512, 0),
    ] {
        let e = q.submit(&r).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
    }
    q.submit(&req(0, 512, 0)).unwrap();
    q.submit(&req(0, 512, 1)).unwrap();
    let e = q.submit(&req(0, 512, 0)).unwrap_err();
    assert!(e.to_string().contains("queue full"), "{e}");
}

#[test]
fn requests_pick_their_file_by_fd_or_by_registered_index() {
    for register_files in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let a = open(&dir.path().join("a"), false).unwrap();
        let b = open(&dir.path().join("b"), false).unwrap();
        let opts = UringOptions {
            register_files,
            ..Default::default()
        };
        let mut q = UringQueue::new(&config(2, false, opts), &[a.fd(), b.fd()]).unwrap();
        q.buffer(0).fill(0xaa);
        q.buffer(1).fill(0xbb);
        for file in 0..2 {
            q.submit(&Request {
                op: Op::Write,
                file,
                offset: 0,
                len: 512,
                slot: file,
            })
            .unwrap();
        }
        q.commit().unwrap();
        let mut n = 0;
        while q.in_flight() > 0 {
            q.reap(1, 2, |c| {
                assert_eq!(c.result, 512);
                n += 1
            })
            .unwrap();
        }
        assert_eq!(n, 2);
        assert_eq!(std::fs::read(a.path()).unwrap(), vec![0xaa; 512]);
        assert_eq!(std::fs::read(b.path()).unwrap(), vec![0xbb; 512]);
    }
}

#[test]
fn setup_errors_say_what_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false).unwrap();
    let e = |c: QueueConfig, fds: &[RawFd]| UringQueue::new(&c, fds).err().unwrap().to_string();
    let d = UringOptions::default;
    assert!(e(config(1, false, d()), &[]).contains("at least one open file"));
    assert!(e(config(1, false, d()), &[-1]).contains("not valid"));
    assert!(e(config(0, false, d()), &[t.fd()]).contains("queue depth 0"));
    assert!(e(config(65536, false, d()), &[t.fd()]).contains("lower iodepth"));
    let fixed = UringOptions {
        fixed_buffers: true,
        ..d()
    };
    assert!(e(config(20000, false, fixed), &[t.fd()]).contains("drop fixedbufs"));
}

#[test]
fn flag_names() {
    assert_eq!(setup_flag_names(0), "none");
    assert_eq!(
        setup_flag_names(IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_CQSIZE),
        "SQPOLL|SINGLE_ISSUER|CQSIZE"
    );
}

/// At QD1, commit_and_reap submits a read and waits for it in one
/// io_uring_enter: O_DIRECT reads complete after the call that submits
/// them, so only the reads that go out alone, to see whether completions
/// now come inside the call (the first, then one in 64), take a second.
#[test]
fn commit_and_reap_waits_in_the_call_that_submits() {
    require!(o_direct(&std::env::temp_dir()));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 64 * BS]).unwrap();
    let t = open(&path, true).unwrap();
    let mut q = UringQueue::new(&config(1, false, UringOptions::default()), &[t.fd()]).unwrap();
    let (s0, r0) = q.calls();
    let reads = 256u64;
    for i in 0..reads {
        let req = Request {
            op: Op::Read,
            file: 0,
            offset: (i % 64) * BS as u64,
            len: BS as u32,
            slot: 0,
        };
        assert!(matches!(q.submit(&req).unwrap(), Submitted::Queued));
        let mut got = Vec::new();
        assert_eq!(q.commit_and_reap(1, 1, |c| got.push(c)).unwrap(), 1);
        assert_eq!(
            got,
            [Completion {
                slot: 0,
                result: BS as i64
            }]
        );
    }
    let (s, r) = q.calls();
    let calls = (s - s0) + (r - r0);
    assert!(
        calls <= reads + reads / 64 + 1,
        "{calls} calls for {reads} reads"
    );
}
