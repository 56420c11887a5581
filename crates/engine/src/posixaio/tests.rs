use std::io;
use std::path::Path;

use super::PosixAioQueue;
use crate::backend::open_queue;
use crate::queue::{Queue, QueueUser, Submitted};
use crate::queue_config::QueueConfig;
use crate::registry::Backend;
use crate::request::{Completion, Op, Request};
use crate::target::{OpenOptions, Target};
use crate::test_io::complete_one;
use ioscope_testutil::{o_direct, require};

const BS: usize = 4096;

fn config(depth: u32) -> QueueConfig {
    QueueConfig {
        depth,
        buffer_size: BS,
        buffer_align: 4096,
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

fn req(op: Op, block: u64, slot: u32) -> Request {
    Request {
        op,
        file: 0,
        offset: block * BS as u64,
        len: BS as u32,
        slot,
    }
}

fn queued(q: &mut PosixAioQueue, r: Request) {
    assert_eq!(q.submit(&r).unwrap(), Submitted::Queued, "{r:?}");
}

/// Reaps until nothing is in flight, with `min`/`max` as given, checking
/// that each reap takes between `min` (or what is left) and `max`.
fn drain(q: &mut PosixAioQueue, min: u32, max: u32) -> Vec<Completion> {
    let mut all = Vec::new();
    while q.in_flight() > 0 {
        let left = q.in_flight();
        let mut got = Vec::new();
        let n = q.reap(min, max, |c| got.push(c)).unwrap();
        assert_eq!(n as usize, got.len());
        assert!(n <= max, "reap({min}, {max}) took {n}");
        assert!(n >= min.min(left).min(max), "reap({min}, {max}) took {n}");
        assert_eq!(q.in_flight(), left - n);
        all.extend(got);
    }
    all
}

/// Submits `reqs` (slots 0..) and returns their results by slot, from
/// `submit` or from the reaps.
fn batch(q: &mut PosixAioQueue, reqs: &[Request]) -> Vec<i64> {
    let mut results = vec![i64::MIN; reqs.len()];
    for r in reqs {
        if let Submitted::Completed(n) = q.submit(r).unwrap() {
            results[r.slot as usize] = n;
        }
    }
    q.commit().unwrap();
    for c in drain(q, 1, 64) {
        results[c.slot as usize] = c.result;
    }
    results
}

/// Writes 64 blocks in batches of up to the depth, each filled with its own
/// byte and written out of order, reads them back in another order through
/// the same queue, and checks the file on disk.
fn round_trip(target: &Target, depth: u32, min: u32, max: u32) {
    let what = format!("depth {depth} reap({min}, {max})");
    let mut q = PosixAioQueue::new(&config(depth), &[target.fd()]).unwrap();
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
                q.buffer(s).fill(if pass == Op::Write {
                    block as u8 + 1
                } else {
                    0
                });
                queued(&mut q, req(pass, block, s));
                i += 1;
            }
            assert_eq!(q.in_flight(), batch as u32, "{what}");
            assert_eq!(q.commit().unwrap(), batch as u32, "{what}");
            assert_eq!(q.commit().unwrap(), 0, "{what}: nothing left to send");
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
    assert_eq!(q.reap(1, 8, |_| panic!("nothing in flight")).unwrap(), 0);
    let on_disk = std::fs::read(target.path()).unwrap();
    assert_eq!(on_disk.len(), blocks as usize * BS, "{what}");
    for (i, block) in on_disk.chunks(BS).enumerate() {
        assert!(
            block.iter().all(|&b| b == i as u8 + 1),
            "{what}: file block {i}"
        );
    }
}

const SHAPES: [(u32, u32, u32); 5] = [(1, 1, 1), (8, 1, 8), (8, 0, 8), (8, 3, 5), (8, 8, 8)];

#[test]
fn reads_back_what_it_wrote_buffered() {
    for (depth, min, max) in SHAPES {
        let dir = tempfile::tempdir().unwrap();
        round_trip(&open(&dir.path().join("f"), false), depth, min, max);
    }
}

#[test]
fn reads_back_what_it_wrote_with_o_direct() {
    let dir = tempfile::tempdir().unwrap();
    require!(o_direct(dir.path()));
    for (i, (depth, min, max)) in SHAPES.into_iter().enumerate() {
        let t = open(&dir.path().join(format!("f{i}")), true);
        round_trip(&t, depth, min, max);
    }
}

/// The registry's line builds this queue for `ioengine=posixaio`.
#[test]
fn the_registry_builds_it() {
    struct Kind;
    impl QueueUser for Kind {
        type Output = &'static str;
        fn run<Q: Queue>(self, _: Q) -> &'static str {
            std::any::type_name::<Q>()
        }
    }
    let b = Backend::from_name("posixaio").unwrap();
    assert!(!b.is_sync() && !b.is_diskless() && !b.uses_io_uring());
    assert!(b.supports(Op::Trim) && b.supports(Op::Fsync));
    assert!(!b.supports(Op::WriteZeroes { deac: false }));
    assert!(Backend::needs("posixaio").is_none());
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let name = open_queue(b, &config(1), &[t.fd()], Kind).unwrap();
    assert!(name.ends_with("PosixAioQueue"), "{name}");
}

#[test]
fn the_queue_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<PosixAioQueue>();
}

/// A read that runs past the end of the file is short, then empty: results,
/// as pread(2) would give them.
#[test]
fn reads_at_the_end_of_the_file_are_short() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; BS + 100]).unwrap();
    let t = open(&path, false);
    let mut q = PosixAioQueue::new(&config(4), &[t.fd()]).unwrap();
    let r = batch(&mut q, &[req(Op::Read, 1, 0), req(Op::Read, 2, 1)]);
    assert_eq!(r, vec![100, 0], "short read, then end of file");
    assert!(q.buffer(0)[..100].iter().all(|&b| b == 7));
}

/// Per-I/O failures come back as negative errno results, from a reap or
/// from `submit`, never as an error of the queue.
#[test]
fn per_io_errors_come_back_as_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 4 * BS]).unwrap();
    let t = read_only(&path);
    let mut q = PosixAioQueue::new(&config(4), &[t.fd()]).unwrap();
    let ebadf = -i64::from(libc::EBADF);
    let r = batch(
        &mut q,
        &[
            req(Op::Read, 0, 0),
            req(Op::Write, 1, 1),
            req(Op::Read, 3, 2),
        ],
    );
    assert_eq!(r, vec![BS as i64, ebadf, BS as i64]);

    let dir = tempfile::tempdir().unwrap();
    require!(o_direct(dir.path()));
    let t = open(&dir.path().join("d"), true);
    let mut q = PosixAioQueue::new(&config(4), &[t.fd()]).unwrap();
    let unaligned = Request {
        offset: 1,
        ..req(Op::Write, 0, 0)
    };
    assert_eq!(batch(&mut q, &[unaligned]), vec![-i64::from(libc::EINVAL)]);
}

/// aio_fsync(O_SYNC) goes through the C library like a write and completes
/// with 0; a file without fsync (/dev/null) gives -EINVAL, as fsync(2) does.
#[test]
fn fsync_goes_through_aio() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let mut q = PosixAioQueue::new(&config(4), &[t.fd()]).unwrap();
    let r = batch(
        &mut q,
        &[
            req(Op::Write, 0, 0),
            req(Op::Write, 1, 1),
            req(Op::Fsync, 0, 2),
        ],
    );
    assert_eq!(r, vec![BS as i64, BS as i64, 0]);
    let null = Target::open(
        Path::new("/dev/null"),
        &OpenOptions {
            read: true,
            write: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut q = PosixAioQueue::new(&config(4), &[null.fd()]).unwrap();
    let r = batch(&mut q, &[req(Op::Write, 0, 0), req(Op::Fsync, 0, 1)]);
    assert_eq!(r, vec![BS as i64, -i64::from(libc::EINVAL)]);
}

/// A reap takes no more than `max` and waits for no fewer than `min`, or
/// than what is in flight; with nothing in flight it returns at once.
#[test]
fn reaps_honour_min_and_max() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![3u8; 8 * BS]).unwrap();
    let t = read_only(&path);
    let mut q = PosixAioQueue::new(&config(8), &[t.fd()]).unwrap();
    assert_eq!(q.reap(4, 8, |_| panic!("nothing in flight")).unwrap(), 0);
    for s in 0..8 {
        queued(&mut q, req(Op::Read, u64::from(s), s));
    }
    assert_eq!(q.commit().unwrap(), 8);
    let mut slots = Vec::new();
    assert_eq!(q.reap(0, 0, |_| panic!("max 0")).unwrap(), 0);
    assert_eq!(q.reap(2, 2, |c| slots.push(c.slot)).unwrap(), 2);
    let n = q.reap(0, 3, |c| slots.push(c.slot)).unwrap();
    assert!(n <= 3, "{n}");
    assert_eq!(q.in_flight(), 6 - n);
    // More asked for than is in flight: waits for what there is.
    let left = q.in_flight();
    assert_eq!(q.reap(8, 8, |c| slots.push(c.slot)).unwrap(), left);
    assert_eq!(q.in_flight(), 0);
    slots.sort_unstable();
    assert_eq!(slots, (0..8).collect::<Vec<_>>());
}

fn allocated_bytes(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap().blocks() * 512
}

/// A trim punches a hole synchronously inside `submit`: the blocks are
/// freed, the size stays, and the range reads back as zeroes through the
/// queue while the data around it stays. A read-only descriptor gives
/// -EBADF.
#[test]
fn trim_punches_a_hole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let blocks = 64;
    std::fs::write(&path, vec![0xa5; blocks * BS]).unwrap();
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    let before = allocated_bytes(&path);
    let t = open(&path, false);
    let mut q = PosixAioQueue::new(&config(2), &[t.fd()]).unwrap();
    // One read in flight beside the trim: trims do not wait for it.
    queued(&mut q, req(Op::Read, 60, 0));
    let trim = Request {
        len: (32 * BS) as u32,
        ..req(Op::Trim, 8, 1)
    };
    assert_eq!(
        q.submit(&trim).unwrap(),
        Submitted::Completed(32 * BS as i64)
    );
    assert_eq!(q.in_flight(), 1);
    assert_eq!(
        drain(&mut q, 1, 1),
        vec![Completion {
            slot: 0,
            result: BS as i64
        }]
    );
    let after = allocated_bytes(&path);
    assert!(
        after <= before - 32 * BS as u64,
        "{before} bytes allocated, then {after}"
    );
    for block in 0..blocks as u64 {
        assert_eq!(
            complete_one(&mut q, Op::Read, block * BS as u64, BS as u32),
            BS as i64
        );
        let want = if (8..40).contains(&block) { 0 } else { 0xa5 };
        assert!(q.buffer(0).iter().all(|&b| b == want), "block {block}");
    }
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        (blocks * BS) as u64
    );

    let t = read_only(&path);
    let mut q = PosixAioQueue::new(&config(2), &[t.fd()]).unwrap();
    assert_eq!(
        complete_one(&mut q, Op::Trim, 0, BS as u32),
        -i64::from(libc::EBADF)
    );
}

/// Dropping a queue with requests in flight waits for them before the
/// buffers they read from are freed.
#[test]
fn drop_with_requests_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let mut q = PosixAioQueue::new(&config(32), &[t.fd()]).unwrap();
    for s in 0..32 {
        q.buffer(s).fill(9);
        queued(&mut q, req(Op::Write, u64::from(s), s));
    }
    drop(q);
    let data = std::fs::read(t.path()).unwrap();
    assert_eq!(data.len(), 32 * BS);
    assert!(data.iter().all(|&b| b == 9));
}

#[test]
fn hipri_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let cfg = QueueConfig {
        hipri: true,
        ..config(4)
    };
    let e = PosixAioQueue::new(&cfg, &[t.fd()])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("never polls") && e.contains("io_uring"), "{e}");
}

#[test]
fn setup_errors_say_what_to_change() {
    let e = PosixAioQueue::new(&config(1), &[]).err().unwrap();
    assert!(e.to_string().contains("at least one open file"), "{e}");
    let e = PosixAioQueue::new(&config(1), &[-1]).err().unwrap();
    assert!(e.to_string().contains("not valid"), "{e}");
    let e = PosixAioQueue::new(&config(0), &[0]).err().unwrap();
    assert!(e.to_string().contains("queue depth 0"), "{e}");
}

#[test]
fn requests_outside_the_queue_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = open(&dir.path().join("f"), false);
    let mut q = PosixAioQueue::new(&config(2), &[t.fd()]).unwrap();
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
        req(Op::WriteZeroes { deac: false }, 0, 0),
    ];
    for r in bad {
        let e = q.submit(&r).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{r:?}");
    }
    assert_eq!(q.in_flight(), 0);
    queued(&mut q, req(Op::Write, 0, 0));
    let e = q.submit(&req(Op::Write, 1, 0)).unwrap_err();
    assert!(e.to_string().contains("in flight"), "{e}");
    assert_eq!(drain(&mut q, 1, 2).len(), 1);
}
