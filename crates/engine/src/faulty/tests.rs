use super::*;
use crate::backend::open_queue;
use crate::queue::QueueUser;
use crate::queue_config::QueueConfig;
use crate::registry::Backend;
use crate::request::Op;
use crate::sync::{PreadPwrite, SyncQueue};
use crate::target::{OpenOptions, Target};
use crate::test_io::complete_one;
use crate::uring::UringQueue;
use std::os::fd::RawFd;
use std::path::Path;

const BS: usize = 4096;
const BLOCKS: usize = 8;
const DEPTH: u32 = 4;
const EIO: i64 = -(libc::EIO as i64);

fn config() -> QueueConfig {
    QueueConfig {
        depth: DEPTH,
        buffer_size: BS,
        buffer_align: 4096,
        ..QueueConfig::default()
    }
}

fn fault(kind: FaultKind, percent: f64, seed: u64) -> FaultConfig {
    FaultConfig {
        kind,
        percent,
        seed,
    }
}

/// The byte block `i` of a fresh file is filled with.
fn old_byte(block: usize) -> u8 {
    0x10 + block as u8
}

/// A file of `BLOCKS` blocks, each filled with its [`old_byte`].
fn fresh_file(dir: &Path) -> Target {
    let path = dir.join("f");
    let data: Vec<u8> = (0..BLOCKS * BS).map(|i| old_byte(i / BS)).collect();
    std::fs::write(&path, data).unwrap();
    Target::open(
        &path,
        &OpenOptions {
            read: true,
            write: true,
            create: false,
            direct: false,
            pi_in_data: false,
        },
    )
    .unwrap()
}

/// The two backends the tests run on: one that completes in `submit`,
/// one that queues.
#[derive(Clone, Copy, Debug)]
enum Inner {
    Psync,
    IoUring,
}

const INNERS: [Inner; 2] = [Inner::Psync, Inner::IoUring];

/// Runs `f` on a faulty queue over `fd` of the `inner` backend.
fn with_queue<R>(inner: Inner, fd: RawFd, fault: FaultConfig, f: impl Tester<R>) -> R {
    match inner {
        Inner::Psync => {
            let q = SyncQueue::<PreadPwrite>::new(&config(), &[fd]).unwrap();
            f.test(FaultyQueue::new(q, fault, DEPTH, true).unwrap())
        }
        Inner::IoUring => {
            let q = UringQueue::new(&config(), &[fd]).unwrap();
            f.test(FaultyQueue::new(q, fault, DEPTH, false).unwrap())
        }
    }
}

/// A test body generic over the inner queue's type.
trait Tester<R> {
    fn test<Q: Queue>(self, q: FaultyQueue<Q>) -> R;
}

/// What one request did to the file, and what it returned.
struct Outcome {
    result: i64,
    /// The slot's buffer after the request.
    buffer: Vec<u8>,
    file: Vec<u8>,
    injected: u64,
}

/// Fills slot 0 with 0xaa (for a write) or 0xee (for a read), sends
/// one request with every eligible request faulted, and reports.
struct One {
    op: Op,
    offset: u64,
    len: u32,
    path: std::path::PathBuf,
}

impl Tester<Outcome> for One {
    fn test<Q: Queue>(self, mut q: FaultyQueue<Q>) -> Outcome {
        q.buffer(0)
            .fill(if self.op == Op::Write { 0xaa } else { 0xee });
        let result = complete_one(&mut q, self.op, self.offset, self.len);
        Outcome {
            result,
            buffer: q.buffer(0)[..self.len as usize].to_vec(),
            file: std::fs::read(&self.path).unwrap(),
            injected: q.faults_injected(),
        }
    }
}

fn one(inner: Inner, kind: FaultKind, op: Op, offset: u64, len: u32) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let t = fresh_file(dir.path());
    let test = One {
        op,
        offset,
        len,
        path: t.path().to_owned(),
    };
    with_queue(inner, t.fd(), fault(kind, 100.0, 7), test)
}

/// Blocks of `file` (by index) that differ from a fresh file.
fn changed_blocks(file: &[u8]) -> Vec<usize> {
    (0..BLOCKS)
        .filter(|&b| file[b * BS..(b + 1) * BS].iter().any(|&x| x != old_byte(b)))
        .collect()
}

fn block(file: &[u8], b: usize) -> &[u8] {
    &file[b * BS..(b + 1) * BS]
}

#[test]
fn bitflip_changes_exactly_one_bit_of_the_written_data() {
    for inner in INNERS {
        let o = one(
            inner,
            FaultKind::BitFlip,
            Op::Write,
            3 * BS as u64,
            BS as u32,
        );
        assert_eq!(o.result, BS as i64, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), vec![3], "{inner:?}");
        let flipped: u32 = block(&o.file, 3)
            .iter()
            .map(|&b| (b ^ 0xaa).count_ones())
            .sum();
        assert_eq!(flipped, 1, "{inner:?}");
        assert_eq!(
            o.buffer,
            block(&o.file, 3),
            "{inner:?}: the buffer holds the flip"
        );
        assert_eq!(o.injected, 1);
    }
}

#[test]
fn drop_write_leaves_the_file_unchanged_and_reports_success() {
    for inner in INNERS {
        let o = one(
            inner,
            FaultKind::DropWrite,
            Op::Write,
            3 * BS as u64,
            BS as u32,
        );
        assert_eq!(o.result, BS as i64, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), Vec::<usize>::new(), "{inner:?}");
        assert_eq!(o.injected, 1);
    }
}

#[test]
fn misdirect_writes_the_neighbouring_block() {
    for inner in INNERS {
        let o = one(
            inner,
            FaultKind::Misdirect,
            Op::Write,
            3 * BS as u64,
            BS as u32,
        );
        assert_eq!(o.result, BS as i64, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), vec![2], "{inner:?}");
        assert!(block(&o.file, 2).iter().all(|&b| b == 0xaa), "{inner:?}");
        // The first block has no block before it: the next one gets it.
        let o = one(inner, FaultKind::Misdirect, Op::Write, 0, BS as u32);
        assert_eq!(o.result, BS as i64, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), vec![1], "{inner:?}");
        assert!(block(&o.file, 1).iter().all(|&b| b == 0xaa), "{inner:?}");
        assert_eq!(o.injected, 1);
    }
}

#[test]
fn torn_write_lands_only_its_first_half() {
    for inner in INNERS {
        let o = one(
            inner,
            FaultKind::TornWrite,
            Op::Write,
            3 * BS as u64,
            BS as u32,
        );
        assert_eq!(o.result, BS as i64, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), vec![3], "{inner:?}");
        let (landed, lost) = block(&o.file, 3).split_at(BS / 2);
        assert!(landed.iter().all(|&b| b == 0xaa), "{inner:?}");
        assert!(lost.iter().all(|&b| b == old_byte(3)), "{inner:?}");
        assert_eq!(o.injected, 1);
        // Half of 1536 is 768, rounded down to 512.
        let o = one(inner, FaultKind::TornWrite, Op::Write, 3 * BS as u64, 1536);
        assert_eq!(o.result, 1536, "{inner:?}");
        let written = block(&o.file, 3);
        assert!(written[..512].iter().all(|&b| b == 0xaa), "{inner:?}");
        assert!(
            written[512..].iter().all(|&b| b == old_byte(3)),
            "{inner:?}"
        );
        // 512 bytes cannot tear: nothing is sent.
        let o = one(inner, FaultKind::TornWrite, Op::Write, 3 * BS as u64, 512);
        assert_eq!(o.result, 512, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), Vec::<usize>::new(), "{inner:?}");
    }
}

#[test]
fn short_read_reads_and_reports_half() {
    for inner in INNERS {
        let o = one(
            inner,
            FaultKind::ShortRead,
            Op::Read,
            5 * BS as u64,
            BS as u32,
        );
        assert_eq!(o.result, BS as i64 / 2, "{inner:?}");
        assert!(o.buffer.iter().all(|&b| b == old_byte(5)), "{inner:?}");
        assert_eq!(o.injected, 1);
        // Half of 1000 rounded down to 512 is nothing.
        let o = one(inner, FaultKind::ShortRead, Op::Read, 5 * BS as u64, 1000);
        assert_eq!(o.result, 0, "{inner:?}");
        // Never more than the read got: 100 bytes from the end.
        let end = (BLOCKS * BS) as u64 - 100;
        let o = one(inner, FaultKind::ShortRead, Op::Read, end, BS as u32);
        assert_eq!(o.result, 100, "{inner:?}");
    }
}

#[test]
fn errors_are_eio_and_nothing_is_sent() {
    for inner in INNERS {
        let o = one(inner, FaultKind::ReadError, Op::Read, 0, BS as u32);
        assert_eq!(o.result, EIO, "{inner:?}");
        assert!(
            o.buffer.iter().all(|&b| b == 0xee),
            "{inner:?}: nothing read"
        );
        assert_eq!(o.injected, 1);
        let o = one(inner, FaultKind::WriteError, Op::Write, 0, BS as u32);
        assert_eq!(o.result, EIO, "{inner:?}");
        assert_eq!(changed_blocks(&o.file), Vec::<usize>::new(), "{inner:?}");
        assert_eq!(o.injected, 1);
    }
}

/// Requests a kind does not act on pass through untouched and are not
/// counted: reads for the write faults, writes for the read faults, and
/// fsync and trim for all.
#[test]
fn ineligible_requests_pass_through() {
    for inner in INNERS {
        for kind in FaultKind::ALL {
            let reads = kind.applies_to(Op::Read);
            let other = if reads { Op::Write } else { Op::Read };
            let o = one(inner, kind, other, 2 * BS as u64, BS as u32);
            assert_eq!(o.result, BS as i64, "{inner:?} {kind:?}");
            assert_eq!(o.injected, 0, "{inner:?} {kind:?}");
            if reads {
                assert!(block(&o.file, 2).iter().all(|&b| b == 0xaa));
            } else {
                assert!(o.buffer.iter().all(|&b| b == old_byte(2)));
            }
            let o = one(inner, kind, Op::Trim, 2 * BS as u64, BS as u32);
            assert_eq!(o.result, BS as i64, "{inner:?} {kind:?}");
            assert!(block(&o.file, 2).iter().all(|&b| b == 0));
            assert_eq!(o.injected, 0, "{inner:?} {kind:?}");
            let o = one(inner, kind, Op::Fsync, 0, 0);
            assert_eq!((o.result, o.injected), (0, 0), "{inner:?} {kind:?}");
        }
    }
}

/// Writes every block once and reads every block once, one request at
/// a time, and gives each request's result in that order.
struct WriteThenRead;

impl Tester<(Vec<i64>, u64)> for WriteThenRead {
    fn test<Q: Queue>(self, mut q: FaultyQueue<Q>) -> (Vec<i64>, u64) {
        let mut results = Vec::new();
        for op in [Op::Write, Op::Read] {
            for b in 0..BLOCKS as u64 {
                q.buffer(0).fill(0xaa);
                results.push(complete_one(&mut q, op, b * BS as u64, BS as u32));
            }
        }
        (results, q.faults_injected())
    }
}

fn write_then_read(inner: Inner, fault: FaultConfig) -> (Vec<i64>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let t = fresh_file(dir.path());
    with_queue(inner, t.fd(), fault, WriteThenRead)
}

#[test]
fn percent_zero_injects_nothing_and_percent_100_every_eligible_request() {
    for inner in INNERS {
        for kind in FaultKind::ALL {
            let (results, injected) = write_then_read(inner, fault(kind, 0.0, 1));
            assert_eq!(injected, 0, "{inner:?} {kind:?}");
            assert!(
                results.iter().all(|&r| r == BS as i64),
                "{inner:?} {kind:?}"
            );
            let (_, injected) = write_then_read(inner, fault(kind, 100.0, 1));
            assert_eq!(injected, BLOCKS as u64, "{inner:?} {kind:?}");
        }
        let (results, _) = write_then_read(inner, fault(FaultKind::WriteError, 100.0, 1));
        let (writes, reads) = results.split_at(BLOCKS);
        assert!(writes.iter().all(|&r| r == EIO) && reads.iter().all(|&r| r == BS as i64));
    }
}

/// A share of the requests gets the fault; which ones depends only on
/// the seed, and the count is the number that failed.
#[test]
fn a_seeded_share_is_repeatable_and_counted() {
    struct Many(u64);
    impl Tester<(Vec<bool>, u64)> for Many {
        fn test<Q: Queue>(self, mut q: FaultyQueue<Q>) -> (Vec<bool>, u64) {
            let failed = (0..self.0)
                .map(|i| {
                    complete_one(&mut q, Op::Read, (i % BLOCKS as u64) * BS as u64, 512) == EIO
                })
                .collect();
            (failed, q.faults_injected())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let t = fresh_file(dir.path());
    let run = |inner, seed| {
        with_queue(
            inner,
            t.fd(),
            fault(FaultKind::ReadError, 25.0, seed),
            Many(2000),
        )
    };
    let (failed, injected) = run(Inner::Psync, 42);
    let count = failed.iter().filter(|&&f| f).count() as u64;
    assert_eq!(count, injected);
    assert!((400..600).contains(&count), "{count} of 2000 at 25%");
    assert_eq!(run(Inner::IoUring, 42), (failed.clone(), injected));
    assert_ne!(run(Inner::Psync, 43).0, failed);
}

/// With a queueing backend, requests that are never sent stay in
/// flight until a reap hands them out, within its `max`, before and
/// along with the requests the inner queue sent.
#[test]
fn unsent_requests_come_back_from_reap_within_its_limits() {
    struct Batch;
    impl Tester<()> for Batch {
        fn test<Q: Queue>(self, mut q: FaultyQueue<Q>) {
            let req = |op, slot: u32| Request {
                op,
                file: 0,
                offset: u64::from(slot) * BS as u64,
                len: BS as u32,
                slot,
            };
            for (slot, op) in [Op::Write, Op::Read, Op::Write, Op::Read]
                .into_iter()
                .enumerate()
            {
                let r = q.submit(&req(op, slot as u32)).unwrap();
                assert_eq!(r, Submitted::Queued);
            }
            assert_eq!(q.in_flight(), 4);
            assert_eq!(q.commit().unwrap(), 2, "only the reads are sent");
            let mut got = Vec::new();
            assert_eq!(q.reap(0, 1, |c| got.push(c)).unwrap(), 1);
            assert_eq!(q.in_flight(), 3);
            while q.in_flight() > 0 {
                q.reap(1, 4, |c| got.push(c)).unwrap();
            }
            got.sort_by_key(|c| c.slot);
            let results: Vec<i64> = got.iter().map(|c| c.result).collect();
            assert_eq!(results, vec![EIO, BS as i64, EIO, BS as i64]);
            assert_eq!(q.faults_injected(), 2);
            assert_eq!(q.reap(1, 4, |_| panic!("nothing in flight")).unwrap(), 0);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let t = fresh_file(dir.path());
    with_queue(
        Inner::IoUring,
        t.fd(),
        fault(FaultKind::WriteError, 100.0, 0),
        Batch,
    );
}

/// `open_queue` wraps the queue when the config asks for faults, and
/// only then.
#[test]
fn open_queue_wraps_only_when_asked() {
    struct WriteOnce;
    impl QueueUser for WriteOnce {
        type Output = (i64, u64);
        fn run<Q: Queue>(self, mut q: Q) -> (i64, u64) {
            (
                complete_one(&mut q, Op::Write, 0, BS as u32),
                q.faults_injected(),
            )
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let t = fresh_file(dir.path());
    for backend in [
        Backend::Psync,
        Backend::Libaio,
        Backend::IoUring,
        Backend::Null,
    ] {
        let plain = open_queue(backend, &config(), &[t.fd()], WriteOnce).unwrap();
        assert_eq!(plain, (BS as i64, 0), "{backend:?}");
        let faulty = QueueConfig {
            fault: Some(fault(FaultKind::WriteError, 100.0, 0)),
            ..config()
        };
        let r = open_queue(backend, &faulty, &[t.fd()], WriteOnce).unwrap();
        assert_eq!(r, (EIO, 1), "{backend:?}");
    }
    let bad = QueueConfig {
        fault: Some(fault(FaultKind::BitFlip, 100.5, 0)),
        ..config()
    };
    let e = open_queue(Backend::Psync, &bad, &[t.fd()], WriteOnce)
        .err()
        .unwrap();
    assert!(e.to_string().contains("outside 0 to 100"), "{e}");
}

#[test]
fn kinds_have_names() {
    let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        names,
        [
            "bitflip",
            "drop",
            "misdirect",
            "torn",
            "short_read",
            "read_eio",
            "write_eio"
        ]
    );
    for kind in FaultKind::ALL {
        assert_eq!(FaultKind::from_name(kind.name()), Some(kind));
    }
    assert_eq!(FaultKind::from_name("bit_flip"), None);
}
