use std::io;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

use super::abi::AioRing;
use super::queue::LibaioQueue;
use crate::queue::{Queue, Submitted};
use crate::queue_config::AioOptions;
use crate::queue_config::QueueConfig;
use crate::request::{Completion, Op, Request};
use crate::target::{OpenOptions, Target};
use std::path::Path;

const BS: usize = 4096;

fn config(depth: u32, aio: AioOptions) -> QueueConfig {
    QueueConfig {
        depth,
        buffer_size: BS,
        buffer_align: 4096,
        aio,
        ..QueueConfig::default()
    }
}

fn open(path: &Path, direct: bool) -> Target {
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
    .unwrap()
}

fn req(op: Op, block: u64, slot: u32) -> Request {
    Request {
        op,
        file: 0,
        offset: block * BS as u64,
        len: BS as u32,
        slot,
    }
}

fn queued(q: &mut LibaioQueue, r: Request) {
    assert_eq!(q.submit(&r).unwrap(), Submitted::Queued, "{r:?}");
}

/// Reaps until nothing is in flight, with `min`/`max` as given, and
/// returns the results by slot.
fn drain(q: &mut LibaioQueue, min: u32, max: u32) -> Vec<Completion> {
    let mut all = Vec::new();
    while q.in_flight() > 0 {
        let mut got = Vec::new();
        let n = q.reap(min, max, |c| got.push(c)).unwrap();
        assert_eq!(n as usize, got.len());
        assert!(n <= max, "reap({min}, {max}) took {n}");
        all.extend(got);
    }
    all
}

/// Writes `blocks` blocks in batches of up to the depth, each filled
/// with its own byte and written out of order, then reads them back in
/// another order and checks them, and checks the file on disk.
fn round_trip(target: &Target, depth: u32, aio: AioOptions, min: u32, max: u32) {
    let what = format!("depth {depth} {aio:?} reap({min}, {max})");
    let mut q = LibaioQueue::new(&config(depth, aio), &[target.fd()]).unwrap();
    let blocks = 64u64;
    let order = |i: u64| (i * 37 + 5) % blocks;
    for pass in [Op::Write, Op::Read] {
        let mut i = 0;
        while i < blocks {
            let batch = u64::from(depth).min(blocks - i);
            let mut slot_block = vec![0u64; depth as usize];
            for s in 0..batch as u32 {
                let block = order(if pass == Op::Write { i } else { blocks - 1 - i });
                slot_block[s as usize] = block;
                if pass == Op::Write {
                    q.buffer(s).fill(block as u8 + 1);
                } else {
                    q.buffer(s).fill(0);
                }
                queued(&mut q, req(pass, block, s));
                i += 1;
            }
            assert_eq!(q.in_flight(), batch as u32, "{what}");
            assert_eq!(q.commit().unwrap(), batch as u32, "{what}");
            let done = drain(&mut q, min, max);
            assert_eq!(done.len() as u64, batch, "{what}");
            let mut seen = vec![false; depth as usize];
            for c in done {
                assert_eq!(c.result, BS as i64, "{what} {pass:?} slot {}", c.slot);
                assert!(!seen[c.slot as usize], "{what}: slot {} twice", c.slot);
                seen[c.slot as usize] = true;
                if pass == Op::Read {
                    let want = slot_block[c.slot as usize] as u8 + 1;
                    assert!(
                        q.buffer(c.slot).iter().all(|&b| b == want),
                        "{what}: block {} read back wrong",
                        slot_block[c.slot as usize]
                    );
                }
            }
        }
    }
    let on_disk = std::fs::read(target.path()).unwrap();
    assert_eq!(on_disk.len(), blocks as usize * BS, "{what}");
    for (i, block) in on_disk.chunks(BS).enumerate() {
        assert!(
            block.iter().all(|&b| b == i as u8 + 1),
            "{what}: file block {i}"
        );
    }
}

fn every_option_set() -> Vec<AioOptions> {
    let mut all = Vec::new();
    for vectored in [false, true] {
        for userspace_reap in [false, true] {
            all.push(AioOptions {
                vectored,
                userspace_reap,
                nowait: false,
            });
        }
    }
    all
}

#[test]
fn reads_back_what_it_wrote_with_o_direct() {
    for aio in every_option_set() {
        for (depth, min, max) in [(1, 1, 1), (32, 1, 32), (32, 0, 32), (32, 4, 7), (8, 8, 8)] {
            let dir = tempfile::tempdir().unwrap();
            let t = open(&dir.path().join("f"), true);
            round_trip(&t, depth, aio, min, max);
        }
    }
}

/// Buffered AIO runs inside io_submit; the results are the same.
#[test]
fn reads_back_what_it_wrote_buffered() {
    for aio in every_option_set() {
        for (depth, min, max) in [(1, 1, 1), (32, 1, 32), (16, 0, 3)] {
            let dir = tempfile::tempdir().unwrap();
            let t = open(&dir.path().join("f"), false);
            round_trip(&t, depth, aio, min, max);
        }
    }
}

/// One io_submit per commit and one io_getevents per waiting reap, so a
/// caller can show how many requests each system call carried.
#[test]
fn counts_its_system_calls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 8 * BS]).unwrap();
    let t = read_only(&path);
    let mut q = LibaioQueue::new(&config(8, AioOptions::default()), &[t.fd()]).unwrap();
    assert_eq!(q.calls(), (0, 0));
    for slot in 0..8 {
        queued(&mut q, req(Op::Read, u64::from(slot), slot));
    }
    assert_eq!(q.commit().unwrap(), 8);
    assert_eq!(q.calls(), (1, 0));
    assert_eq!(
        q.reap(8, 8, |c| assert_eq!(c.result, BS as i64)).unwrap(),
        8
    );
    assert_eq!(q.calls(), (1, 1));
}

fn read_only(path: &Path) -> Target {
    Target::open(
        path,
        &OpenOptions {
            read: true,
            ..Default::default()
        },
    )
    .unwrap()
}

/// The reap that does not wait takes completions from the mapped ring;
/// a reap that waits calls io_getevents. Both move the same ring head,
/// so mixing them loses and repeats nothing.
#[test]
fn userspace_reap_reads_the_ring_and_mixes_with_io_getevents() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let aio = AioOptions {
        userspace_reap: true,
        ..Default::default()
    };
    let mut q = LibaioQueue::new(&config(8, aio), &[t.fd()]).unwrap();
    let ring = q.ring.expect("userspace_reap maps the ring");
    // SAFETY: the ring stays mapped while `q` lives.
    let ring_state = |r: NonNull<AioRing>| unsafe {
        (
            r.as_ref().head.load(Ordering::Acquire),
            r.as_ref().tail.load(Ordering::Acquire),
        )
    };
    // SAFETY: as above.
    let nr = |r: NonNull<AioRing>| unsafe { r.as_ref().nr };
    let before = ring_state(ring);
    for s in 0..8 {
        queued(&mut q, req(Op::Write, u64::from(s), s));
    }
    assert_eq!(q.commit().unwrap(), 8);
    // Buffered writes complete inside io_submit: all 8 events are in
    // the ring already.
    let (h, t) = ring_state(ring);
    assert_eq!(h, before.0);
    assert_eq!((t + nr(ring) - h) % nr(ring), 8);
    let mut slots = Vec::new();
    assert_eq!(q.reap(0, 3, |c| slots.push(c.slot)).unwrap(), 3);
    assert_eq!(ring_state(ring).0, (before.0 + 3) % nr(ring));
    // Waiting reaps go through io_getevents, which takes the next ones.
    assert_eq!(q.reap(2, 2, |c| slots.push(c.slot)).unwrap(), 2);
    assert_eq!(q.reap(0, 8, |c| slots.push(c.slot)).unwrap(), 3);
    assert_eq!(q.in_flight(), 0);
    let (h, t) = ring_state(ring);
    assert_eq!(h, t);
    slots.sort_unstable();
    assert_eq!(slots, (0..8).collect::<Vec<_>>());
    // Nothing in flight: nothing to take, and no wait.
    assert_eq!(q.reap(0, 8, |_| panic!("nothing in flight")).unwrap(), 0);
}

/// Submits `reqs` (slots 0..) in one batch and returns the results by slot.
fn batch(q: &mut LibaioQueue, reqs: &[Request]) -> Vec<i64> {
    for r in reqs {
        queued(q, *r);
    }
    assert_eq!(q.commit().unwrap(), reqs.len() as u32);
    let mut results = vec![i64::MIN; reqs.len()];
    for c in drain(q, 1, 64) {
        results[c.slot as usize] = c.result;
    }
    results
}

/// RWF_NOWAIT turns "would block" into -EAGAIN results; what would
/// block depends on the filesystem. On ext4 (Linux 6.18): buffered
/// writes refuse the flag (-EOPNOTSUPP); O_DIRECT reads block (and
/// fail) while dirty cached pages cover the range, and succeed once
/// they are written back; O_DIRECT writes failed with -EAGAIN in every
/// case tried, overwrites of written-back blocks included (the kernel
/// refuses a NOWAIT write that must allocate blocks or update the
/// file's timestamps). Without the flag the same requests all succeed.
#[test]
fn nowait_gives_eagain_or_success_as_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![1u8; 8 * BS]).unwrap();
    let nowait = AioOptions {
        nowait: true,
        ..Default::default()
    };
    let eagain = -i64::from(libc::EAGAIN);
    let unsupported = -i64::from(libc::EOPNOTSUPP);

    let buffered = open(&path, false);
    let mut q = LibaioQueue::new(&config(4, nowait), &[buffered.fd()]).unwrap();
    assert_eq!(q.rw_flags, libc::RWF_NOWAIT);
    let r = batch(&mut q, &[req(Op::Read, 1, 0), req(Op::Write, 2, 1)]);
    assert_eq!(r[0], BS as i64, "a cached buffered read never blocks");
    assert!([BS as i64, eagain, unsupported].contains(&r[1]), "{r:?}");

    let direct = open(&path, true);
    let mut q = LibaioQueue::new(&config(4, nowait), &[direct.fd()]).unwrap();
    let r = batch(&mut q, &[req(Op::Read, 3, 0), req(Op::Write, 12, 1)]);
    assert_eq!(r[0], eagain, "O_DIRECT read over dirty cached pages");
    assert!([BS as i64, eagain].contains(&r[1]), "{r:?}");
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    let r = batch(&mut q, &[req(Op::Read, 3, 0)]);
    assert_eq!(r[0], BS as i64, "O_DIRECT read of written-back blocks");

    let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[direct.fd()]).unwrap();
    let r = batch(&mut q, &[req(Op::Read, 3, 0), req(Op::Write, 12, 1)]);
    assert_eq!(r, vec![BS as i64; 2]);
}

/// ext4 on Linux 6.18 (and every filesystem with fsync(2), since Linux
/// 4.18) takes IOCB_CMD_FSYNC asynchronously: io_submit accepts it and
/// its completion comes back through io_getevents with 0. A file
/// without fsync (/dev/null) fails it with -EINVAL, as fsync(2) would.
#[test]
fn fsync_goes_through_aio() {
    let dir = tempfile::tempdir().unwrap();
    for direct in [false, true] {
        let t = open(&dir.path().join(format!("f{direct}")), direct);
        let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[t.fd()]).unwrap();
        let r = batch(&mut q, &[req(Op::Write, 0, 0), req(Op::Write, 1, 1)]);
        assert_eq!(r, vec![BS as i64; 2]);
        queued(&mut q, req(Op::Fsync, 0, 0));
        assert_eq!(q.commit().unwrap(), 1);
        assert_eq!(
            (q.in_kernel, q.refused_len),
            (1, 0),
            "the kernel accepted the fsync"
        );
        assert_eq!(drain(&mut q, 1, 1), vec![Completion { slot: 0, result: 0 }]);
    }
    let null = Target::open(
        Path::new("/dev/null"),
        &OpenOptions {
            read: true,
            write: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[null.fd()]).unwrap();
    let r = batch(&mut q, &[req(Op::Write, 0, 0), req(Op::Fsync, 0, 1)]);
    assert_eq!(r, vec![BS as i64, -i64::from(libc::EINVAL)]);
}

/// io_submit stops at the first request it refuses; the refused one
/// becomes an error result and the rest of the batch is sent on.
#[test]
fn refused_requests_are_results_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 4 * BS]).unwrap();
    let t = read_only(&path);
    for aio in every_option_set() {
        let mut q = LibaioQueue::new(&config(6, aio), &[t.fd()]).unwrap();
        let reqs = [
            req(Op::Read, 0, 0),
            req(Op::Write, 1, 1),
            req(Op::Write, 2, 2),
            req(Op::Read, 3, 3),
            req(Op::Write, 0, 4),
            req(Op::Read, 1, 5),
        ];
        let ebadf = -i64::from(libc::EBADF);
        let r = batch(&mut q, &reqs);
        let ok = BS as i64;
        assert_eq!(r, vec![ok, ebadf, ebadf, ok, ebadf, ok], "{aio:?}");
        assert!(q.buffer(5).iter().all(|&b| b == 7));
    }
}

#[test]
fn per_io_errors_come_back_as_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; BS + 100]).unwrap();
    let t = open(&path, false);
    let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[t.fd()]).unwrap();
    let r = batch(&mut q, &[req(Op::Read, 1, 0), req(Op::Read, 2, 1)]);
    assert_eq!(r, vec![100, 0], "short read, then end of file");

    let t = open(&path, true);
    let mut q = LibaioQueue::new(&config(4, AioOptions::default()), &[t.fd()]).unwrap();
    let unaligned = Request {
        offset: 1,
        ..req(Op::Read, 0, 0)
    };
    let r = batch(&mut q, &[unaligned]);
    assert_eq!(r, vec![-i64::from(libc::EINVAL)], "unaligned O_DIRECT");
}

/// `min` counts only what can complete: a reap never waits for more
/// than was sent, nor for requests not yet committed.
#[test]
fn reaps_never_wait_for_what_cannot_come() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), true);
    let mut q = LibaioQueue::new(&config(8, AioOptions::default()), &[t.fd()]).unwrap();
    for s in 0..3 {
        queued(&mut q, req(Op::Write, u64::from(s), s));
    }
    assert_eq!(q.commit().unwrap(), 3);
    queued(&mut q, req(Op::Write, 3, 3));
    assert_eq!(q.in_flight(), 4);
    let mut got = Vec::new();
    let n = q.reap(8, 8, |c| got.push(c)).unwrap();
    assert_eq!(n, 3, "the three sent, not the one still queued");
    assert_eq!(q.in_flight(), 1);
    assert_eq!(q.reap(1, 8, |_| panic!("not sent yet")).unwrap(), 0);
    assert_eq!(q.commit().unwrap(), 1);
    assert_eq!(drain(&mut q, 4, 8).len(), 1);
    assert_eq!(q.reap(0, 0, |_| panic!("max 0")).unwrap(), 0);
}

/// Dropping a queue with I/O in flight waits for it (io_destroy) before
/// the buffers are freed.
#[test]
fn drop_with_requests_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), true);
    let mut q = LibaioQueue::new(&config(32, AioOptions::default()), &[t.fd()]).unwrap();
    for s in 0..32 {
        q.buffer(s).fill(9);
        queued(&mut q, req(Op::Write, u64::from(s), s));
    }
    assert_eq!(q.commit().unwrap(), 32);
    drop(q);
    let data = std::fs::read(t.path()).unwrap();
    assert_eq!(data.len(), 32 * BS);
    assert!(data.iter().all(|&b| b == 9));
}

#[test]
fn hipri_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), true);
    let cfg = QueueConfig {
        hipri: true,
        ..config(4, AioOptions::default())
    };
    let e = LibaioQueue::new(&cfg, &[t.fd()]).err().unwrap().to_string();
    assert!(e.contains("never polls") && e.contains("io_uring"), "{e}");
}

#[test]
fn setup_errors_say_what_to_change() {
    let aio = AioOptions::default();
    let e = LibaioQueue::new(&config(1, aio), &[]).err().unwrap();
    assert!(e.to_string().contains("at least one open file"), "{e}");
    let e = LibaioQueue::new(&config(1, aio), &[-1]).err().unwrap();
    assert!(e.to_string().contains("not valid"), "{e}");
    let e = LibaioQueue::new(&config(0, aio), &[0]).err().unwrap();
    assert!(e.to_string().contains("queue depth 0"), "{e}");
    // One more event than the whole system may have.
    let max: u32 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    if let Some(depth) = max.checked_add(1) {
        let cfg = QueueConfig {
            buffer_size: 8,
            buffer_align: 8,
            ..config(depth, aio)
        };
        let e = LibaioQueue::new(&cfg, &[0]).err().unwrap().to_string();
        assert!(
            e.contains("/proc/sys/fs/aio-max-nr") && e.contains("lower iodepth"),
            "{e}"
        );
    }
}

#[test]
fn requests_outside_the_queue_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let mut q = LibaioQueue::new(&config(2, AioOptions::default()), &[t.fd()]).unwrap();
    let bad = [
        req(Op::Read, 0, 2),
        req(Op::Fsync, 0, 2),
        Request {
            len: BS as u32 + 1,
            ..req(Op::Read, 0, 0)
        },
        Request {
            file: 1,
            ..req(Op::Read, 0, 0)
        },
    ];
    for r in bad {
        let e = q.submit(&r).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
    }
    assert_eq!(q.in_flight(), 0);
    queued(&mut q, req(Op::Write, 0, 0));
    queued(&mut q, req(Op::Write, 1, 1));
    let e = q.submit(&req(Op::Write, 2, 0)).unwrap_err();
    assert!(e.to_string().contains("queue full"), "{e}");
    assert_eq!(q.commit().unwrap(), 2);
    assert_eq!(drain(&mut q, 2, 2).len(), 2);
}
