use super::*;
use crate::layout::plan_files;
use crate::test_spec::spec;
use ioscope_job::{BlockSize, PerDir, SizeSpec};

fn extents(spec: &JobSpec) -> Vec<FileExtent> {
    let files = plan_files(spec, &vec![None; spec.nrfiles as usize], &[], 0).unwrap();
    files.iter().map(|p| p.extent).collect()
}

fn all(spec: &JobSpec, worker: u32) -> Vec<IoUnit> {
    let mut w = Workload::new(spec, &extents(spec), worker);
    std::iter::from_fn(|| w.next()).collect()
}

fn offsets(ios: &[IoUnit]) -> Vec<u64> {
    let mut v: Vec<u64> = ios.iter().map(|io| io.offset).collect();
    v.sort_unstable();
    v
}

#[test]
fn trim_jobs_issue_trims_of_the_trim_block_size() {
    let mut s = spec(RwKind::Trim, 1 << 20, 4096);
    s.bs.trim = BlockSize::Fixed(65536);
    let ios = all(&s, 0);
    assert!(ios
        .iter()
        .all(|io| io.dir == DataDir::Trim && io.len == 65536));
    let want: Vec<u64> = (0..16).map(|i| i * 65536).collect();
    assert_eq!(ios.iter().map(|io| io.offset).collect::<Vec<_>>(), want);
    // randtrim covers every block once, in some order.
    let ios = all(&spec(RwKind::RandTrim, 1 << 20, 4096), 0);
    assert!(ios.iter().all(|io| io.dir == DataDir::Trim));
    let want: Vec<u64> = (0..256).map(|i| i * 4096).collect();
    assert_eq!(offsets(&ios), want);
    assert_ne!(ios.iter().map(|io| io.offset).collect::<Vec<_>>(), want);
}

/// `(dir, offset, len)` of every I/O, with `t`/`w` for trim and write.
fn steps(ios: &[IoUnit]) -> Vec<(char, u64, u32)> {
    ios.iter()
        .map(|io| {
            let d = match io.dir {
                DataDir::Trim => 't',
                DataDir::Write => 'w',
                DataDir::Read => 'r',
            };
            (d, io.offset, io.len)
        })
        .collect()
}

/// Checks that `ios` is trim/write pairs of the same block, and returns
/// the blocks as `(offset, len)`.
fn trimwrite_pairs(ios: &[IoUnit]) -> Vec<(u64, u32)> {
    assert_eq!(ios.len() % 2, 0, "{:?}", steps(ios));
    ios.chunks(2)
        .map(|p| {
            assert_eq!(p[0].dir, DataDir::Trim, "{:?}", steps(p));
            assert_eq!(
                p[1],
                IoUnit {
                    dir: DataDir::Write,
                    ..p[0]
                }
            );
            (p[0].offset, p[0].len)
        })
        .collect()
}

#[test]
fn trimwrite_trims_each_block_then_writes_it() {
    let s = spec(RwKind::TrimWrite, 64 << 10, 4096);
    let ios = all(&s, 0);
    let want: Vec<(u64, u32)> = (0..16).map(|i| (i * 4096, 4096)).collect();
    assert_eq!(trimwrite_pairs(&ios), want);
    // Trims and writes each go with their own block size, a trim coming
    // when the last write began where the last trim did (fio 3.33 and
    // 3.42, --ioengine=null --bs=4k,16k,512 --rw=trimwrite --size=64k).
    let mut s = spec(RwKind::TrimWrite, 64 << 10, 4096);
    s.bs.write = BlockSize::Fixed(16384);
    s.bs.trim = BlockSize::Fixed(512);
    let want: [(char, u64, u32); 6] = [
        ('t', 0, 512),
        ('w', 0, 16384),
        ('t', 512, 512),
        ('w', 16384, 16384),
        ('w', 32768, 16384),
        ('w', 49152, 16384),
    ];
    assert_eq!(steps(&all(&s, 0)), want);
}

#[test]
fn trimwrite_matches_fio() {
    // fio 3.33 --name=t --ioengine=null --write_iolog=log --bs=4k
    //   --rw=trimwrite <options>: the trim/write pairs of the log.
    type Tweak = fn(&mut JobSpec);
    let cases: [(Tweak, usize, u64); 8] = [
        // --size=64k: (pairs, offset of the last)
        (|_| {}, 16, 61440),
        // --size=64k --io_size=32k
        (|s| s.io_size = Some(32 << 10), 8, 28672),
        // --size=64k --loops=2
        (|s| s.loops = 2, 32, 61440),
        // --size=64k --io_size=32k --loops=3
        (
            |s| {
                s.io_size = Some(32 << 10);
                s.loops = 3;
            },
            24,
            28672,
        ),
        // --size=64k --io_size=96k: trims and writes add up to 96k
        // after one pass, so there is no second.
        (|s| s.io_size = Some(96 << 10), 16, 61440),
        // --size=64k --io_size=160k: they do not, so a second pass.
        (|s| s.io_size = Some(160 << 10), 32, 61440),
        // --size=64k --io_size=96k --loops=2
        (
            |s| {
                s.io_size = Some(96 << 10);
                s.loops = 2;
            },
            32,
            61440,
        ),
        // --size=64k --io_size=40k --bs=16k: each direction's 40k is
        // rounded up to whole blocks.
        (
            |s| {
                s.io_size = Some(40 << 10);
                s.bs = PerDir::all(BlockSize::Fixed(16384));
            },
            3,
            32768,
        ),
    ];
    for (i, (tweak, pairs, last)) in cases.iter().enumerate() {
        let mut s = spec(RwKind::TrimWrite, 64 << 10, 4096);
        tweak(&mut s);
        let got = trimwrite_pairs(&all(&s, 0));
        assert_eq!(got.len(), *pairs, "case {i}");
        assert_eq!(got.last().map(|p| p.0), Some(*last), "case {i}");
    }
    // --size=256k --bsrange=4k-64k: the lengths rw=write draws.
    let mut s = spec(RwKind::TrimWrite, 256 << 10, 4096);
    s.bs = PerDir::all(BlockSize::Range {
        min: 4096,
        max: 65536,
    });
    let want = [
        (0, 16384),
        (16384, 4096),
        (20480, 28672),
        (49152, 36864),
        (86016, 36864),
        (122880, 20480),
        (143360, 53248),
        (196608, 12288),
        (208896, 45056),
        (253952, 8192),
    ];
    assert_eq!(trimwrite_pairs(&all(&s, 0)), want);
    // --rw=randtrimwrite --size=256k --bsrange=4k-64k
    s.rw.kind = RwKind::RandTrimWrite;
    let want = [
        (12288, 16384),
        (192512, 4096),
        (217088, 28672),
        (122880, 36864),
        (102400, 20480),
        (245760, 12288),
        (98304, 4096),
        (90112, 8192),
        (258048, 4096),
        (28672, 8192),
        (0, 12288),
        (167936, 24576),
        (36864, 36864),
        (73728, 16384),
        (159744, 8192),
        (196608, 20480),
    ];
    assert_eq!(trimwrite_pairs(&all(&s, 0)), want);
}

#[test]
fn randtrimwrite_covers_every_block_once() {
    let s = spec(RwKind::RandTrimWrite, 64 << 10, 4096);
    let pairs = trimwrite_pairs(&all(&s, 0));
    // fio 3.33: trim 0, write 0, trim 45056, write 45056, trim 53248, ...
    let first: Vec<u64> = pairs.iter().take(3).map(|p| p.0).collect();
    assert_eq!(first, [0, 45056, 53248]);
    let mut offsets: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    offsets.sort_unstable();
    assert_eq!(offsets, (0..16).map(|i| i * 4096).collect::<Vec<_>>());
}

#[test]
fn a_time_based_trimwrite_keeps_its_pairs_across_the_wrap() {
    let mut s = spec(RwKind::TrimWrite, 16 << 10, 4096);
    s.time_based = true;
    let mut w = Workload::new(&s, &extents(&s), 0);
    let ios: Vec<IoUnit> = (0..40).map(|_| w.next().unwrap()).collect();
    let pairs = trimwrite_pairs(&ios);
    let want: Vec<(u64, u32)> = (0..20).map(|i| (i % 4 * 4096, 4096)).collect();
    assert_eq!(pairs, want);
}

#[test]
fn random_map_visits_every_block_once_per_loop() {
    for generator in [
        RandomGenerator::Tausworthe,
        RandomGenerator::Tausworthe64,
        RandomGenerator::Lfsr,
    ] {
        let mut s = spec(RwKind::RandRead, 1000 * 4096, 4096);
        s.random_generator = generator;
        s.loops = 3;
        let ios = all(&s, 0);
        assert_eq!(ios.len(), 3000, "{generator:?}");
        let every: Vec<u64> = (0..1000).map(|b| b * 4096).collect();
        for pass in ios.chunks(1000) {
            assert_eq!(offsets(pass), every, "{generator:?}");
        }
        // Not simply sequential.
        assert_ne!(
            ios[..1000].iter().map(|io| io.offset).collect::<Vec<_>>(),
            every
        );
    }
}

#[test]
fn without_a_map_blocks_repeat() {
    let mut s = spec(RwKind::RandRead, 1000 * 4096, 4096);
    s.norandommap = true;
    let ios = all(&s, 0);
    assert_eq!(ios.len(), 1000);
    let mut o = offsets(&ios);
    o.dedup();
    assert!(
        o.len() < 900,
        "uniform draws over 1000 blocks repeat: {}",
        o.len()
    );
}

#[test]
fn seeds_repeat_and_differ_per_worker() {
    let s = spec(RwKind::RandRw, 1 << 20, 4096);
    assert_eq!(all(&s, 0), all(&s, 0));
    assert_eq!(all(&s, 3), all(&s, 3));
    assert_ne!(all(&s, 0), all(&s, 1));
    // fio --name=t --size=1m --bs=4k --rw=randread --numjobs=2
    //   --write_iolog=log: the second clone (t.1.0) starts 266240 188416 626688
    let r = spec(RwKind::RandRead, 1 << 20, 4096);
    let first: Vec<u64> = all(&r, 1).iter().take(3).map(|io| io.offset).collect();
    assert_eq!(first, [266240, 188416, 626688]);
    let mut other = r.clone();
    other.randrepeat = false;
    other.randseed = Some(7);
    assert_ne!(all(&r, 0), all(&other, 0));
    assert_eq!(all(&other, 0), all(&other, 0));
}

/// FNV-1a over `"<file> <r|w> <offset> <len>\n"` of the first `n` I/Os.
fn prefix_hash(w: &mut Workload, n: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..n {
        let io = w.next().expect("time-based jobs never end");
        let d = if io.dir == DataDir::Read { 'r' } else { 'w' };
        for b in format!("{} {d} {} {}\n", io.file, io.offset, io.len).bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

#[test]
fn time_based_wraps_like_fio() {
    // fio --name=t --filename_format='f.$filenum' --ioengine=psync
    //   --time_based --runtime=1 --write_iolog=log <options>: hash of the
    //   first 300 I/Os of the log, as in fio_cases.rs.
    type Tweak = fn(&mut JobSpec);
    let cases: [(Tweak, u64); 6] = [
        // --size=64k --bs=4k --rw=read
        (
            |s| s.size = Some(SizeSpec::Bytes(64 << 10)),
            0x4cdc27583a3ecc16,
        ),
        // --size=64k --bs=4k --rw=randread
        (
            |s| {
                s.size = Some(SizeSpec::Bytes(64 << 10));
                s.rw.kind = RwKind::RandRead;
            },
            0x2980dcfe728a3186,
        ),
        // --size=64k --bs=4k --rw=randrw
        (
            |s| {
                s.size = Some(SizeSpec::Bytes(64 << 10));
                s.rw.kind = RwKind::RandRw;
            },
            0x8502c7068ab1e4f6,
        ),
        // --size=96k --bs=4k --rw=read --nrfiles=2
        (
            |s| {
                s.size = Some(SizeSpec::Bytes(96 << 10));
                s.nrfiles = 2;
            },
            0xb38dad0bebf234db,
        ),
        // --size=10000 --bs=4k --rw=randwrite --random_generator=lfsr
        (
            |s| {
                s.size = Some(SizeSpec::Bytes(10000));
                s.rw.kind = RwKind::RandWrite;
                s.random_generator = RandomGenerator::Lfsr;
            },
            0xdd1d2bec8b5af4f3,
        ),
        // --size=64k --bs=4k --rw=rw
        (
            |s| {
                s.size = Some(SizeSpec::Bytes(64 << 10));
                s.rw.kind = RwKind::ReadWrite;
            },
            0x927ba7ac2027d47e,
        ),
    ];
    for (i, (tweak, want)) in cases.iter().enumerate() {
        let mut s = spec(RwKind::Read, 1 << 20, 4096);
        s.time_based = true;
        tweak(&mut s);
        let mut w = Workload::new(&s, &extents(&s), 0);
        assert_eq!(prefix_hash(&mut w, 300), *want, "case {i}");
    }
}

#[test]
fn time_based_never_ends() {
    let mut s = spec(RwKind::RandRw, 10 * 4096, 4096);
    s.time_based = true;
    s.bs = PerDir::all(BlockSize::Range {
        min: 4096,
        max: 16384,
    });
    let mut w = Workload::new(&s, &extents(&s), 0);
    let mut at_zero = 0;
    for _ in 0..10_000 {
        let io = w.next().unwrap();
        assert!(io.offset + u64::from(io.len) <= 10 * 4096);
        at_zero += usize::from(io.offset == 0);
    }
    // Each round over the 10 blocks has at most 10 I/Os and exactly one
    // that starts at block 0.
    assert!(at_zero >= 1000, "{at_zero}");
}

#[test]
fn sequential_covers_the_extent_once_per_loop() {
    let mut s = spec(RwKind::Write, 1 << 20, 4096);
    s.offset = SizeSpec::Bytes(1 << 20);
    s.loops = 2;
    let ios = all(&s, 0);
    let want: Vec<u64> = (0..256).map(|b| (1 << 20) + b * 4096).collect();
    assert_eq!(
        ios.iter().take(256).map(|io| io.offset).collect::<Vec<_>>(),
        want
    );
    assert_eq!(
        ios.iter().skip(256).map(|io| io.offset).collect::<Vec<_>>(),
        want
    );
}

/// An appended file's region gets the first pass only: fio starts each
/// pass at the file's size, which the first pass's layout made the
/// region's end. A file that does not append keeps its passes.
#[test]
fn an_appended_region_gets_one_pass() {
    let mut s = spec(RwKind::Write, 2 << 20, 4096);
    s.nrfiles = 2;
    s.loops = 3;
    let files = [true, false].map(|appends| FileExtent {
        offset: 1 << 20,
        len: 1 << 20,
        appends,
    });
    let mut w = Workload::new(&s, &files, 0);
    let ios: Vec<IoUnit> = std::iter::from_fn(|| w.next()).collect();
    let per_file = |f: u32| ios.iter().filter(|io| io.file == f).count();
    assert_eq!((per_file(0), per_file(1)), (256, 3 * 256));
    let mut r = s.clone();
    r.rw.kind = RwKind::Read;
    let mut w = Workload::new(&r, &files, 0);
    let n = std::iter::from_fn(|| w.next())
        .filter(|io| io.file == 0)
        .count();
    assert_eq!(n, 256, "a read job's appended region");
}

#[test]
fn last_block_runs_past_the_extent_on_a_longer_file() {
    // fio --name=t --filename=F --bs=4k --write_iolog=log <options>, F an
    // existing 10 MiB file: (read bytes, read I/Os)
    type Tweak = fn(&mut JobSpec);
    let cases: [(Tweak, (u64, usize)); 6] = [
        // --size=10000 --rw=read
        (|_| {}, (12288, 3)),
        // --size=10000 --rw=randread
        (|s| s.rw.kind = RwKind::RandRead, (8192, 2)),
        // --size=10000 --rw=read --io_size=30000
        (|s| s.io_size = Some(30000), (32768, 8)),
        // --size=10000 --rw=read --loops=2
        (|s| s.loops = 2, (20480, 5)),
        // --size=10000 --rw=read --bsrange=4k-8k
        (
            |s| {
                s.bs = PerDir::all(BlockSize::Range {
                    min: 4096,
                    max: 8192,
                })
            },
            (8192, 2),
        ),
        // --size=10000 --rw=rw: the first three draws are reads
        (|s| s.rw.kind = RwKind::ReadWrite, (12288, 3)),
    ];
    for (i, (tweak, want)) in cases.iter().enumerate() {
        let mut s = spec(RwKind::Read, 10000, 4096);
        tweak(&mut s);
        let plans = plan_files(&s, &[Some(10 << 20)], &[], 0).unwrap();
        assert_eq!(plans[0].file_size, 10 << 20);
        let extents: Vec<FileExtent> = plans.iter().map(|p| p.extent).collect();
        let sizes: Vec<u64> = plans.iter().map(|p| p.file_size).collect();
        let mut w = Workload::with_file_sizes(&s, &extents, &sizes, 0, None);
        let ios: Vec<IoUnit> = std::iter::from_fn(|| w.next()).collect();
        assert!(ios.iter().all(|io| io.dir == DataDir::Read), "case {i}");
        let bytes: u64 = ios.iter().map(|io| u64::from(io.len)).sum();
        assert_eq!((bytes, ios.len()), *want, "case {i}");
    }
}

#[test]
fn odd_inputs_end_cleanly() {
    let s = spec(RwKind::RandRw, 1 << 20, 4096);
    // Extent smaller than one block, empty extent, no files.
    for files in [
        &[FileExtent {
            offset: 0,
            len: 100,
            appends: false,
        }][..],
        &[FileExtent {
            offset: 0,
            len: 0,
            appends: false,
        }],
        &[],
    ] {
        assert_eq!(Workload::new(&s, files, 0).next(), None, "{files:?}");
        let mut t = s.clone();
        t.time_based = true;
        assert_eq!(Workload::new(&t, files, 0).next(), None, "{files:?}");
    }
    // A zero block size issues nothing rather than dividing by zero.
    let mut z = s.clone();
    z.bs = PerDir::all(BlockSize::Fixed(0));
    assert_eq!(
        Workload::new(
            &z,
            &[FileExtent {
                offset: 0,
                len: 4096,
                appends: false,
            }],
            0
        )
        .next(),
        None
    );
    // One file too small, the other fine: the small one is skipped.
    let ios: Vec<_> = {
        let mut w = Workload::new(
            &s,
            &[
                FileExtent {
                    offset: 0,
                    len: 100,
                    appends: false,
                },
                FileExtent {
                    offset: 0,
                    len: 8192,
                    appends: false,
                },
            ],
            0,
        );
        std::iter::from_fn(|| w.next()).collect()
    };
    assert!(ios.iter().all(|io| io.file == 1));
    assert_eq!(ios.len(), 2);
}

/// The I/O numbers (from 1) whose choice called for a cache drop, and
/// which drop, over the first `n` I/Os.
fn drops(s: &JobSpec, n: usize) -> Vec<(usize, CacheDrop)> {
    let mut w = Workload::new(s, &extents(s), 0);
    let mut seen = Vec::new();
    for i in 1..=n {
        if w.next().is_none() {
            break;
        }
        if let Some(events) = w.take_file_events() {
            seen.extend(events.drop.map(|d| (i, d)));
        }
    }
    seen
}

#[test]
fn cache_drops_come_where_fio_drops_the_cache() {
    // 8 blocks: a timed random job starts the file over at the 9th I/O,
    // the 17th...; a timed sequential one too.
    let mut s = spec(RwKind::RandRead, 32 << 10, 4096);
    s.time_based = true;
    assert_eq!(
        drops(&s, 20),
        vec![(9, CacheDrop::File(0)), (17, CacheDrop::File(0))]
    );
    let mut seq = spec(RwKind::Read, 32 << 10, 4096);
    seq.time_based = true;
    assert_eq!(drops(&seq, 10), vec![(9, CacheDrop::File(0))]);
    // O_DIRECT has no cache to drop there; invalidate=0 drops nothing.
    s.direct = true;
    assert_eq!(drops(&s, 20), vec![]);
    s.direct = false;
    s.invalidate = false;
    assert_eq!(drops(&s, 20), vec![]);
    // Loops: every file at each new pass, O_DIRECT or not.
    let mut looped = spec(RwKind::RandRead, 32 << 10, 4096);
    looped.loops = 3;
    looped.direct = true;
    assert_eq!(
        drops(&looped, 30),
        vec![(9, CacheDrop::All), (17, CacheDrop::All)]
    );
}

#[test]
fn each_new_loop_is_told_when_its_files_are_unlinked_first() {
    let mut s = spec(RwKind::Write, 32 << 10, 4096);
    s.loops = 3;
    s.file_handling.unlink_each_loop = true;
    let mut w = Workload::new(&s, &extents(&s), 0);
    let mut unlinked = Vec::new();
    for i in 1..=30 {
        if w.next().is_none() {
            break;
        }
        if let Some(events) = w.take_file_events() {
            assert!(events.unlink, "{events:?}");
            unlinked.push(i);
            // invalidate=1: the new loop drops every file's pages too.
            assert_eq!(events.drop, Some(CacheDrop::All));
        }
    }
    // 8 writes a loop: the 9th and the 17th open a new one.
    assert_eq!(unlinked, vec![9, 17]);
    assert_eq!(w.take_file_events(), None);
}

/// With a break between loops, each loop ends in None until resumed, and
/// the last loop ends for good; the loops are the ones made without it.
#[test]
fn a_break_between_loops_stops_each_loop_until_resumed() {
    let mut s = spec(RwKind::Write, 16 << 10, 4096);
    s.loops = 3;
    let whole = all(&s, 0);
    let mut w = Workload::new(&s, &extents(&s), 0);
    w.break_between_loops(false);
    let mut got = Vec::new();
    let mut breaks = 0;
    loop {
        got.extend(std::iter::from_fn(|| w.next()));
        assert!(w.next().is_none(), "a break gives nothing until resumed");
        if !w.resume_loop(None) {
            break;
        }
        breaks += 1;
        assert_eq!(got.len(), 4 * breaks, "a loop is 4 writes");
    }
    assert_eq!(breaks, 2);
    assert_eq!(w.loops_begun(), 2);
    assert_eq!(steps(&got), steps(&whole));
}

/// Passes towards an `io_size` beyond `size` break as loops do, and what
/// verify read back counts towards `io_size` (fio's keep_running weighs
/// its io_bytes, reads included): with 16 KiB read back after each pass,
/// `io_size=48k` writes two passes where it would otherwise write three.
#[test]
fn passes_towards_io_size_break_and_count_what_verify_read() {
    let mut s = spec(RwKind::Write, 16 << 10, 4096);
    s.io_size = Some(48 << 10);
    let mut w = Workload::new(&s, &extents(&s), 0);
    w.break_between_loops(false);
    assert_eq!(std::iter::from_fn(|| w.next()).count(), 4);
    assert!(w.paused_at_loop());
    assert!(w.resume_loop(Some(32 << 10)));
    assert_eq!(std::iter::from_fn(|| w.next()).count(), 4);
    assert!(
        w.paused_at_loop(),
        "16 KiB of io_size are left by the writes alone"
    );
    assert!(!w.resume_loop(Some(64 << 10)));
    assert!(w.next().is_none());
    assert_eq!(w.loops_begun(), 1);
    // Without verify the writes make up io_size: three passes, and the
    // last ends the job without a break.
    let mut w = Workload::new(&s, &extents(&s), 0);
    w.break_between_loops(false);
    let mut passes = 0;
    loop {
        assert_eq!(std::iter::from_fn(|| w.next()).count(), 4);
        passes += 1;
        if !w.resume_loop(None) {
            break;
        }
    }
    assert_eq!((passes, w.loops_begun()), (3, 2));
}

/// The simple path gives the general path's I/Os, pass for pass, for the
/// jobs it takes: random and sequential, with and without the random
/// map, over loops, io_size, an offset, block sizes that do not divide
/// the extent, time-based wrap-arounds, several workers' seeds; and
/// the jobs it does not take are left on the general path.
#[test]
fn the_simple_path_gives_the_general_paths_ios() {
    let kinds = [
        RwKind::Read,
        RwKind::Write,
        RwKind::RandRead,
        RwKind::RandWrite,
        RwKind::Trim,
        RwKind::RandTrim,
    ];
    let tweaks: &[fn(&mut JobSpec)] = &[
        |_| {},
        |s| s.norandommap = true,
        |s| s.loops = 3,
        |s| s.io_size = Some(3 << 20),
        |s| s.time_based = true,
        |s| {
            s.time_based = true;
            s.norandommap = true;
        },
        |s| s.bs = PerDir::all(BlockSize::Fixed(12 << 10)),
        |s| s.placement.blockalign = PerDir::all(8 << 10),
        |s| s.offset = SizeSpec::Bytes(1 << 20),
        |s| s.size = Some(SizeSpec::Bytes((2 << 20) + 1000)),
        |s| {
            s.time_based = true;
            s.placement.blockalign = PerDir::all(8 << 10);
        },
    ];
    let mut checked = 0;
    for kind in kinds {
        for (t, tweak) in tweaks.iter().enumerate() {
            // The file as long as the extent, and longer.
            for (worker, longer) in [(0, 0), (3, 0), (1, 1 << 20)] {
                let mut s = spec(kind, 2 << 20, 4096);
                tweak(&mut s);
                let ext = extents(&s);
                let sizes: Vec<u64> = ext.iter().map(|e| e.offset + e.len + longer).collect();
                let new = || Workload::with_file_sizes(&s, &ext, &sizes, worker, None);
                let simple = new();
                assert!(simple.simple, "{kind:?} tweak {t}");
                let mut general = new().general();
                let mut simple = simple;
                // A time-based job never ends: its first wrap-arounds.
                let n = if s.time_based { 3000 } else { usize::MAX };
                let a: Vec<_> = std::iter::from_fn(|| simple.next()).take(n).collect();
                let b: Vec<_> = std::iter::from_fn(|| general.next()).take(n).collect();
                assert!(!a.is_empty(), "{kind:?} tweak {t}");
                let first = a.iter().zip(&b).position(|(x, y)| x != y);
                assert_eq!(
                    (a.len(), first),
                    (b.len(), None),
                    "{kind:?} tweak {t} worker {worker}: lengths, first difference"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, kinds.len() * tweaks.len() * 3);
    let others: &[fn(&mut JobSpec)] = &[
        |s| s.rw.kind = RwKind::RandRw,
        |s| s.rw.kind = RwKind::TrimWrite,
        |s| s.rw.nr = 8,
        |s| {
            s.bs.read = BlockSize::Range {
                min: 4096,
                max: 16384,
            }
        },
        |s| s.nrfiles = 2,
        |s| s.random_generator = RandomGenerator::Lfsr,
        |s| s.placement.bs_is_seq_rand = true,
    ];
    for (t, tweak) in others.iter().enumerate() {
        let mut s = spec(RwKind::RandRead, 2 << 20, 4096);
        tweak(&mut s);
        let w = Workload::new(&s, &extents(&s), 0);
        assert!(!w.simple, "other {t}");
    }
}
