//! Trims on a block device: BLKDISCARD on a zram device made for the test,
//! through every backend that trims with it, buffered and with O_DIRECT.
//! Needs root and the zram module: `require!(zram(..))` skips otherwise.

use ioscope_engine::{open_queue, Backend, Op, Queue, QueueUser, Request, Submitted, TargetKind};
use ioscope_testutil::{complete_one as complete, open_rw, queue_config, require, zram};

const SIZE: u64 = 16 << 20;
const BS: u64 = 4096;

/// Fills blocks `first..first + 8` with 0x77, trims the middle four (whole
/// pages: zram ignores the parts of a discard smaller than a page), reads
/// the eight back, and tries a trim the device cannot take.
struct WriteTrimRead {
    first: u64,
}

/// What [`WriteTrimRead`] saw.
#[derive(Debug, PartialEq)]
struct Seen {
    trimmed: i64,
    trim_completed_in_submit: bool,
    /// Per block: whether it read back all zero (else all 0x77).
    zero: Vec<bool>,
    unaligned: i64,
}

impl QueueUser for WriteTrimRead {
    type Output = Seen;

    fn run<Q: Queue>(self, mut q: Q) -> Seen {
        q.buffer(0).fill(0x77);
        for block in self.first..self.first + 8 {
            assert_eq!(
                complete(&mut q, Op::Write, block * BS, BS as u32),
                BS as i64
            );
        }
        assert_eq!(complete(&mut q, Op::Fsync, 0, 0), 0);
        let trim = Request {
            op: Op::Trim,
            file: 0,
            offset: (self.first + 2) * BS,
            len: (4 * BS) as u32,
            slot: 1,
        };
        let (trimmed, trim_completed_in_submit) = match q.submit(&trim).unwrap() {
            Submitted::Completed(r) => (r, true),
            Submitted::Queued => (complete(&mut q, Op::Trim, trim.offset, trim.len), false),
        };
        let mut zero = Vec::new();
        for block in self.first..self.first + 8 {
            q.buffer(0).fill(0xff);
            assert_eq!(complete(&mut q, Op::Read, block * BS, BS as u32), BS as i64);
            let data = q.buffer(0);
            if data.iter().all(|&b| b == 0) {
                zero.push(true);
            } else {
                assert!(data.iter().all(|&b| b == 0x77), "block {block}");
                zero.push(false);
            }
        }
        let unaligned = complete(&mut q, Op::Trim, self.first * BS + 1, BS as u32);
        Seen {
            trimmed,
            trim_completed_in_submit,
            zero,
            unaligned,
        }
    }
}

/// Pages zram has freed on request so far (`notify_free`, the fourth field
/// of io_stat): a discard frees each whole page it covers. zram does not
/// count discards in the block layer's stat file.
fn freed_pages() -> u64 {
    std::fs::read_to_string("/sys/block/zram0/io_stat")
        .unwrap()
        .split_whitespace()
        .nth(3)
        .and_then(|f| f.parse().ok())
        .unwrap()
}

#[test]
fn blkdiscard_on_zram_reads_back_zeroes() {
    let zram = require!(zram(SIZE));
    let config = queue_config(2, BS as usize);
    let backends = [
        Backend::Sync,
        Backend::Psync,
        Backend::Pvsync2,
        Backend::Libaio,
        Backend::IoUring,
        Backend::Mmap,
    ];
    let mut first = 0;
    for direct in [false, true] {
        let t = open_rw(zram.path(), direct);
        assert_eq!(t.kind(), TargetKind::BlockDevice);
        for backend in backends {
            assert!(backend.supports(Op::Trim));
            let what = format!("{backend:?}, O_DIRECT {direct}");
            let before = freed_pages();
            let seen = open_queue(backend, &config, &[t.fd()], WriteTrimRead { first }).unwrap();
            assert_eq!(
                seen,
                Seen {
                    trimmed: 4 * BS as i64,
                    trim_completed_in_submit: true,
                    zero: vec![false, false, true, true, true, true, false, false],
                    unaligned: -i64::from(libc::EINVAL),
                },
                "{what}"
            );
            assert_eq!(
                freed_pages() - before,
                4,
                "{what}: the device saw the discard"
            );
            first += 8;
        }
    }
}
