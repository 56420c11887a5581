//! Block-device behaviour on a zram device made for the test: size and
//! sector size from the kernel, O_DIRECT checks, I/O, and the mounted/swap
//! check. Needs root and /dev/zram0: `require!` skips otherwise.

use std::path::Path;
use std::process::Command;

use ioscope_engine::{
    mounted_use, open_queue, AioOptions, Backend, Op, Queue, QueueConfig, QueueUser, Request,
    Submitted, TargetKind,
};
use ioscope_testutil::{open_rw, part, program, queue_config, require, Missing};

const ZRAM: &str = "/dev/zram0";
const SYS: &str = "/sys/block/zram0";
const SIZE: u64 = 64 << 20;

/// The shared zram guard, plus the mount or swap a test put on the device,
/// undone before the guard resets it.
struct Zram {
    mount: Option<std::path::PathBuf>,
    swap: bool,
    _device: ioscope_testutil::Zram,
}

impl Zram {
    fn make() -> Result<Zram, Missing> {
        Ok(Zram {
            mount: None,
            swap: false,
            _device: ioscope_testutil::zram(SIZE)?,
        })
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        if let Some(dir) = &self.mount {
            let _ = Command::new("umount").arg(dir).status();
        }
        if self.swap {
            let _ = Command::new("swapoff").arg(ZRAM).status();
        }
    }
}

struct RoundTrip;

impl QueueUser for RoundTrip {
    type Output = Vec<i64>;

    fn run<Q: Queue>(self, mut q: Q) -> Vec<i64> {
        let mut results = Vec::new();
        let mut issue = |q: &mut Q, op: Op, offset: u64| match q
            .submit(&Request {
                op,
                file: 0,
                offset,
                len: 4096,
                slot: 0,
            })
            .unwrap()
        {
            Submitted::Completed(n) => results.push(n),
            Submitted::Queued => unreachable!("sync backends complete in submit"),
        };
        q.buffer(0).fill(0x3c);
        issue(&mut q, Op::Write, SIZE - 4096);
        q.buffer(0).fill(0);
        issue(&mut q, Op::Read, SIZE - 4096);
        assert!(q.buffer(0).iter().all(|&b| b == 0x3c));
        // Past the end of the device: nothing to read.
        issue(&mut q, Op::Read, SIZE);
        results
    }
}

#[test]
fn zram_block_device() {
    let mut zram = require!(Zram::make());

    {
        let t = open_rw(Path::new(ZRAM), true);
        assert_eq!(t.kind(), TargetKind::BlockDevice);
        assert_eq!(t.size(), SIZE);
        let lbs: u32 = std::fs::read_to_string(format!("{SYS}/queue/logical_block_size"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(t.logical_block_size(), lbs);
        assert_eq!(t.direct_io_align(), lbs);
        if lbs > 512 {
            let msg = t.check_direct_io(&[512], 0).unwrap_err().to_string();
            assert!(msg.contains(&format!("block size 512 is not a multiple of {lbs} bytes, which O_DIRECT on this block device requires")), "{msg}");
        }
        t.check_direct_io(&[4096], 0).unwrap();

        let config = QueueConfig {
            hipri: true,
            ..queue_config(1, 4096)
        };
        for backend in [Backend::Sync, Backend::Psync, Backend::Pvsync2] {
            let results = open_queue(backend, &config, &[t.fd()], RoundTrip).unwrap();
            assert_eq!(results, vec![4096, 4096, 0], "{backend:?}");
        }
        assert_eq!(mounted_use(Path::new(ZRAM)).unwrap(), None);
    }

    // The mount check: mkfs.ext4 and mount are installed wherever CI runs,
    // so as root on a device of our own, both must work.
    if let Some(mkfs) = part!("the mount check", program("mkfs.ext4")) {
        let dir = tempfile::tempdir().unwrap();
        let made = Command::new(mkfs).args(["-q", "-F", ZRAM]).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfs.ext4 {ZRAM} failed");
        let mounted = Command::new("mount").arg(ZRAM).arg(dir.path()).status();
        assert!(mounted.is_ok_and(|s| s.success()), "mount {ZRAM} failed");
        zram.mount = Some(dir.path().to_path_buf());
        let use_ = mounted_use(Path::new(ZRAM)).unwrap();
        assert_eq!(
            use_,
            Some(format!("{ZRAM} is mounted on {}", dir.path().display()))
        );
        let _ = Command::new("umount").arg(dir.path()).status();
        zram.mount = None;
    }

    // The swap check: swapon can be refused even to root (a container, a
    // kernel without swap), so a refusal skips this part, strict or not.
    if part!("the swap check", swap_on(ZRAM)).is_some() {
        zram.swap = true;
        let use_ = mounted_use(Path::new(ZRAM)).unwrap();
        assert_eq!(use_, Some(format!("{ZRAM} is in use as swap")));
    }
}

/// mkswap and swapon on `dev`, or why not.
fn swap_on(dev: &str) -> Result<(), Missing> {
    let mkswap = program("mkswap")?;
    let made = Command::new(mkswap).arg(dev).output();
    if !made.as_ref().is_ok_and(|o| o.status.success()) {
        return Err(Missing::soft(format!("mkswap {dev} failed: {made:?}")));
    }
    let on = Command::new(program("swapon")?).arg(dev).output();
    if !on.as_ref().is_ok_and(|o| o.status.success()) {
        return Err(Missing::soft(format!("swapon {dev} refused: {on:?}")));
    }
    Ok(())
}

/// Writes 32 blocks spread over the device in one batch, each with its own
/// byte, reads them back in another batch and checks them, then asks for
/// one block at the end of the device and one past it. Returns the results
/// of those two.
struct BatchRoundTrip;

impl QueueUser for BatchRoundTrip {
    type Output = Vec<i64>;

    fn run<Q: Queue>(self, mut q: Q) -> Vec<i64> {
        const N: u32 = 32;
        let offset = |i: u32| u64::from(i) * 37 * 4096 % SIZE;
        let run = |q: &mut Q, reqs: &[Request]| -> Vec<i64> {
            let mut results = vec![i64::MIN; reqs.len()];
            for r in reqs {
                match q.submit(r).unwrap() {
                    Submitted::Completed(n) => results[r.slot as usize] = n,
                    Submitted::Queued => {}
                }
            }
            q.commit().unwrap();
            while q.in_flight() > 0 {
                q.reap(1, N, |c| results[c.slot as usize] = c.result)
                    .unwrap();
            }
            results
        };
        let block = |op, i: u32| Request {
            op,
            file: 0,
            offset: offset(i),
            len: 4096,
            slot: i,
        };
        for i in 0..N {
            q.buffer(i).fill(i as u8 + 1);
        }
        let writes: Vec<_> = (0..N).map(|i| block(Op::Write, i)).collect();
        assert_eq!(run(&mut q, &writes), vec![4096; N as usize]);
        let mut fsync = block(Op::Fsync, 0);
        fsync.len = 0;
        assert_eq!(run(&mut q, &[fsync]), vec![0]);
        for i in 0..N {
            q.buffer(i).fill(0);
        }
        let reads: Vec<_> = (0..N).rev().map(|i| block(Op::Read, i)).collect();
        assert_eq!(run(&mut q, &reads), vec![4096; N as usize]);
        for i in 0..N {
            assert!(q.buffer(i).iter().all(|&b| b == i as u8 + 1), "block {i}");
        }
        let last = Request {
            offset: SIZE - 4096,
            ..block(Op::Read, 0)
        };
        let past = Request {
            offset: SIZE,
            slot: 1,
            ..block(Op::Read, 0)
        };
        run(&mut q, &[last, past])
    }
}

#[test]
fn zram_libaio_and_mmap() {
    let _zram = require!(Zram::make());
    let t = open_rw(Path::new(ZRAM), true);
    let mut aio_sets = Vec::new();
    for vectored in [false, true] {
        for userspace_reap in [false, true] {
            aio_sets.push(AioOptions {
                vectored,
                userspace_reap,
                nowait: false,
            });
        }
    }
    for aio in aio_sets {
        let config = QueueConfig {
            aio,
            ..queue_config(32, 4096)
        };
        let results = open_queue(Backend::Libaio, &config, &[t.fd()], BatchRoundTrip).unwrap();
        assert_eq!(results, vec![4096, 0], "libaio {aio:?}");
    }
    let config = queue_config(32, 4096);
    let results = open_queue(Backend::Mmap, &config, &[t.fd()], BatchRoundTrip).unwrap();
    assert_eq!(results, vec![4096, 0], "mmap");
}
