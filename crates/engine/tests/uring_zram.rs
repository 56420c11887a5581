//! io_uring on a block device: O_DIRECT reads and writes on a zram device
//! made for the test, in every buffer and file mode, and what hipri and
//! uncached do there. Needs root and the zram module: `require!(zram(..))`
//! skips otherwise.

use std::path::Path;

use ioscope_engine::{
    poll_queue_warning, Completion, Op, Queue, QueueConfig, Request, Submitted, UringOptions,
    UringQueue,
};
use ioscope_testutil::{open_rw, queue_config, require, zram};

const ZRAM: &str = "/dev/zram0";
const SYS: &str = "/sys/block/zram0";
const SIZE: u64 = 64 << 20;
const BS: usize = 4096;

fn config(depth: u32, hipri: bool, uring: UringOptions) -> QueueConfig {
    QueueConfig {
        hipri,
        uring,
        ..queue_config(depth, BS)
    }
}

fn byte(block: u64, seed: u8) -> u8 {
    (block as u8).wrapping_mul(13).wrapping_add(seed)
}

/// Writes then reads back `blocks` blocks spread over the device, `depth`
/// in flight, committing every `batch`; checks every result and byte.
fn round_trip(q: &mut UringQueue, depth: u32, batch: u32, blocks: u64, seed: u8) {
    let stride = SIZE / BS as u64 / blocks;
    for op in [Op::Write, Op::Read] {
        let mut free: Vec<u32> = (0..depth).rev().collect();
        let mut block_of = vec![0u64; depth as usize];
        let (mut pending, mut done) = (0, 0);
        let mut finish = |q: &mut UringQueue, c: Completion, block_of: &[u64]| {
            let block = block_of[c.slot as usize];
            assert_eq!(c.result, BS as i64, "{op:?} of block {block}");
            if op == Op::Read {
                assert!(
                    q.buffer(c.slot).iter().all(|&b| b == byte(block, seed)),
                    "block {block} read back wrong data"
                );
            }
            done += 1;
        };
        for block in 0..blocks {
            let slot = loop {
                if let Some(slot) = free.pop() {
                    break slot;
                }
                let mut got = Vec::new();
                q.reap(1, depth, |c| got.push(c)).unwrap();
                for c in got {
                    finish(q, c, &block_of);
                    free.push(c.slot);
                }
            };
            q.buffer(slot).fill(if op == Op::Write {
                byte(block, seed)
            } else {
                0
            });
            block_of[slot as usize] = block;
            let req = Request {
                op,
                file: 0,
                offset: block * stride * BS as u64,
                len: BS as u32,
                slot,
            };
            assert_eq!(q.submit(&req).unwrap(), Submitted::Queued);
            pending += 1;
            if pending == batch {
                q.commit().unwrap();
                pending = 0;
            }
        }
        q.commit().unwrap();
        while q.in_flight() > 0 {
            let mut got = Vec::new();
            q.reap(1, depth, |c| got.push(c)).unwrap();
            for c in got {
                finish(q, c, &block_of);
            }
        }
        assert_eq!(done, blocks);
    }
}

#[test]
fn uring_on_zram() {
    let _zram = require!(zram(SIZE));
    let t = open_rw(Path::new(ZRAM), true);
    let variants = [
        UringOptions::default(),
        UringOptions {
            nonvectored: Some(false),
            ..Default::default()
        },
        UringOptions {
            fixed_buffers: true,
            register_files: true,
            ..Default::default()
        },
        UringOptions {
            sqpoll: true,
            ..Default::default()
        },
        UringOptions {
            force_async: 1,
            ..Default::default()
        },
    ];
    for (i, uring) in variants.into_iter().enumerate() {
        for (depth, batch) in [(1, 1), (32, 8), (64, 64)] {
            let mut q = UringQueue::new(&config(depth, false, uring.clone()), &[t.fd()])
                .unwrap_or_else(|e| panic!("{uring:?}: {e}"));
            round_trip(&mut q, depth, batch, 256, i as u8 * 3 + depth as u8);
        }
    }

    // zram has no poll queues: hipri is refused before any I/O.
    let io_poll = std::fs::read_to_string(format!("{SYS}/queue/io_poll")).unwrap_or_default();
    if io_poll.trim() != "1" {
        let e = UringQueue::new(&config(8, true, UringOptions::default()), &[t.fd()])
            .err()
            .expect("hipri on zram must be refused")
            .to_string();
        assert!(e.contains("zram0 has none"), "{e}");
        let w = poll_queue_warning(Path::new(ZRAM)).unwrap();
        assert!(w.contains("zram0 has none"), "{w}");
    }

    // RWF_DONTCACHE on a block device: works or is refused up front.
    let uncached = UringOptions {
        uncached: true,
        ..Default::default()
    };
    match UringQueue::new(&config(8, false, uncached), &[t.fd()]) {
        Ok(mut q) => round_trip(&mut q, 8, 4, 64, 99),
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains("drop uncached"), "{e}");
            eprintln!("uncached refused on zram: {e}");
        }
    }
}
