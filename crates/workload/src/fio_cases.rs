//! The I/O sequences fio 3.33 issues for size-bound jobs, against ours.
//!
//! Each case was run as
//!
//! ```text
//! fio --name=t --directory=DIR --filename_format='f.$filenum' --ioengine=psync \
//!     --output-format=json --write_iolog=log <the options in the comment>
//! ```
//!
//! on new files; `totals` are the JSON's read/write `io_bytes` and
//! `total_ios`, and `log_hash` is FNV-1a 64 over one line per I/O of the
//! log, `"<file number> <r|w> <offset> <length>\n"`, so a case passes only
//! when every offset, length, direction and file matches fio's, in order.

use ioscope_job::{BlockSize, JobSpec, PerDir, RandomGenerator, RwKind::*, RwMode, SizeSpec};

use crate::generator::{DataDir, Workload};
use crate::layout::plan_files;
use crate::test_spec::spec;

struct Case {
    spec: fn(&mut JobSpec),
    totals: (u64, u64, u64, u64),
    log_hash: u64,
}

fn bytes(b: u64) -> Option<SizeSpec> {
    Some(SizeSpec::Bytes(b))
}

const CASES: &[Case] = &[
    // --size=1m --bs=4k --rw=read
    Case {
        spec: |s| {
            s.rw.kind = Read;
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0xb63f538f7fc3298a,
    },
    // --size=10000 --bs=4k --rw=read
    Case {
        spec: |s| {
            s.size = bytes(10000);
        },
        totals: (8192, 2, 0, 0),
        log_hash: 0xe8186252c692eac8,
    },
    // --size=1m --bs=4k --rw=write --loops=3
    Case {
        spec: |s| {
            s.rw.kind = Write;
            s.loops = 3;
        },
        totals: (0, 0, 3145728, 768),
        log_hash: 0x5d9715d5f3ec7134,
    },
    // --size=10000 --bs=4k --rw=write
    Case {
        spec: |s| {
            s.rw.kind = Write;
            s.size = bytes(10000);
        },
        totals: (0, 0, 8192, 2),
        log_hash: 0xfc47afb5de2e2396,
    },
    // --size=10m --bs=4k --rw=randread
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.size = bytes(10 << 20);
        },
        totals: (10485760, 2560, 0, 0),
        log_hash: 0xc46e623a1a0558e4,
    },
    // --size=10000 --bs=4k --rw=randread
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.size = bytes(10000);
        },
        totals: (8192, 2, 0, 0),
        log_hash: 0xe8186252c692eac8,
    },
    // --size=1m --bs=4k --rw=randwrite --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandWrite;
            s.loops = 2;
        },
        totals: (0, 0, 2097152, 512),
        log_hash: 0x9df4e73c4fbf6675,
    },
    // --size=10m --bs=4k --rw=randrw
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.size = bytes(10 << 20);
        },
        totals: (5169152, 1262, 5316608, 1298),
        log_hash: 0x03953585d517640c,
    },
    // --size=1m --bs=4k --rw=randrw --rwmixread=30 --io_size=3m
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.rwmixread = 30;
            s.io_size = Some(3 << 20);
        },
        totals: (1019904, 249, 2125824, 519),
        log_hash: 0x21af7bc473ebf345,
    },
    // --size=1m --bs=4k --rw=randrw --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.loops = 2;
        },
        totals: (1081344, 264, 1015808, 248),
        log_hash: 0x1c5c9f2a66870875,
    },
    // --size=1m --bs=4k --rw=rw
    Case {
        spec: |s| {
            s.rw.kind = ReadWrite;
        },
        totals: (540672, 132, 507904, 124),
        log_hash: 0x36d0680a93ba97f3,
    },
    // --size=1m --bs=4k --rw=rw --loops=3
    Case {
        spec: |s| {
            s.rw.kind = ReadWrite;
            s.loops = 3;
        },
        totals: (1536000, 375, 1609728, 393),
        log_hash: 0x458b5947288ccca2,
    },
    // --size=1m --bs=4k --rw=rw --rwmixread=80 --loops=2
    Case {
        spec: |s| {
            s.rw.kind = ReadWrite;
            s.rwmixread = 80;
            s.loops = 2;
        },
        totals: (1634304, 399, 462848, 113),
        log_hash: 0x319dfa52734c9f93,
    },
    // --size=1m --bs=4k --rw=rw --io_size=1536k
    Case {
        spec: |s| {
            s.rw.kind = ReadWrite;
            s.io_size = Some(1536 << 10);
        },
        totals: (778240, 190, 794624, 194),
        log_hash: 0xe5f2dcd9e8516aab,
    },
    // --size=1m --bs=4k --rw=read --io_size=2500k
    Case {
        spec: |s| {
            s.io_size = Some(2500 << 10);
        },
        totals: (2560000, 625, 0, 0),
        log_hash: 0xa29f438ba0f44a10,
    },
    // --size=1m --bs=4k --rw=read --io_size=2050k
    Case {
        spec: |s| {
            s.io_size = Some(2050 << 10);
        },
        totals: (2097152, 512, 0, 0),
        log_hash: 0xf60832df728fff15,
    },
    // --size=10000 --bs=4k --rw=read --io_size=30000
    Case {
        spec: |s| {
            s.size = bytes(10000);
            s.io_size = Some(30000);
        },
        totals: (32768, 8, 0, 0),
        log_hash: 0x2fe0f5f8ae82b189,
    },
    // --size=1m --bs=4k --rw=read --loops=4 --io_size=3m
    Case {
        spec: |s| {
            s.loops = 4;
            s.io_size = Some(3 << 20);
        },
        totals: (4194304, 1024, 0, 0),
        log_hash: 0x3bb3868e26a02a05,
    },
    // --size=1m --bs=4k --rw=read --loops=2 --io_size=512k
    Case {
        spec: |s| {
            s.loops = 2;
            s.io_size = Some(512 << 10);
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0xb63f538f7fc3298a,
    },
    // --size=1m --bs=4k --rw=randwrite --io_size=512k
    Case {
        spec: |s| {
            s.rw.kind = RandWrite;
            s.io_size = Some(512 << 10);
        },
        totals: (0, 0, 524288, 128),
        log_hash: 0xc0f098daa5de70ff,
    },
    // --size=1m --bs=4k --rw=randwrite --norandommap --io_size=3m
    Case {
        spec: |s| {
            s.rw.kind = RandWrite;
            s.norandommap = true;
            s.io_size = Some(3 << 20);
        },
        totals: (0, 0, 3145728, 768),
        log_hash: 0x2e3499b565d2dbcf,
    },
    // --size=1m --bs=4k --rw=randread --norandommap
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.norandommap = true;
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0x87ba064496d02715,
    },
    // --size=10m --bs=4k --rw=randwrite --random_generator=lfsr
    Case {
        spec: |s| {
            s.rw.kind = RandWrite;
            s.size = bytes(10 << 20);
            s.random_generator = RandomGenerator::Lfsr;
        },
        totals: (0, 0, 10485760, 2560),
        log_hash: 0xa787bed21bda5a38,
    },
    // --size=1m --bs=4k --rw=randrw --random_generator=lfsr --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.random_generator = RandomGenerator::Lfsr;
            s.loops = 2;
        },
        totals: (1081344, 264, 1015808, 248),
        log_hash: 0x0381115d4b6fc851,
    },
    // --size=10m --bs=4k --rw=randread --random_generator=tausworthe64
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.size = bytes(10 << 20);
            s.random_generator = RandomGenerator::Tausworthe64;
        },
        totals: (10485760, 2560, 0, 0),
        log_hash: 0xaff25ec442b68c0a,
    },
    // --size=1m --bs=4k --rw=randread --randrepeat=0 --randseed=1234
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.randrepeat = false;
            s.randseed = Some(1234);
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0x5a2e1ec5c42e066c,
    },
    // --size=1m --bs=4k --rw=read:2
    Case {
        spec: |s| {
            s.placement.seq_add = 2;
        },
        totals: (1044480, 255, 0, 0),
        log_hash: 0xea40bec8b20414f8,
    },
    // --size=1m --bs=4k --rw=write:8k
    Case {
        spec: |s| {
            s.rw = RwMode { kind: Write, nr: 1 };
            s.placement.seq_add = 8192;
        },
        totals: (0, 0, 352256, 86),
        log_hash: 0xabd1e71326fa4057,
    },
    // --size=1m --bs=4k --rw=randread:4
    Case {
        spec: |s| {
            s.rw = RwMode {
                kind: RandRead,
                nr: 4,
            };
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0x551b874b5bc753ed,
    },
    // --size=1m --bs=4k --rw=randread --offset=64k
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.offset = SizeSpec::Bytes(64 << 10);
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0xedd796ac8f6ad979,
    },
    // --size=1m --bs=4k --rw=read --offset=3333
    Case {
        spec: |s| {
            s.offset = SizeSpec::Bytes(3333);
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0xb21c65e94278ae2f,
    },
    // --size=10m --bsrange=4k-64k --rw=randread
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.size = bytes(10 << 20);
            s.bs = PerDir::all(BlockSize::Range {
                min: 4096,
                max: 65536,
            });
        },
        totals: (10485760, 450, 0, 0),
        log_hash: 0xb1ed56dd5f3eb88a,
    },
    // --size=10m --bsrange=4k-64k --rw=read
    Case {
        spec: |s| {
            s.size = bytes(10 << 20);
            s.bs = PerDir::all(BlockSize::Range {
                min: 4096,
                max: 65536,
            });
        },
        totals: (10485760, 304, 0, 0),
        log_hash: 0x97266e53c70fc2fa,
    },
    // --size=10m --bssplit=4k/10:16k/30:64k/60 --rw=randwrite
    Case {
        spec: |s| {
            s.rw.kind = RandWrite;
            s.size = bytes(10 << 20);
            s.bs = PerDir::all(BlockSize::Split(vec![(4096, 10), (16384, 30), (65536, 60)]));
        },
        totals: (0, 0, 10485760, 344),
        log_hash: 0x722cd069725f918e,
    },
    // --size=10m --bs=4k,16k --rw=randrw
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.size = bytes(10 << 20);
            s.bs.write = BlockSize::Fixed(16384);
        },
        totals: (1359872, 332, 5914624, 361),
        log_hash: 0x9ff89037fdb0531e,
    },
    // --size=10m --bs=4k --rw=read --nrfiles=3
    Case {
        spec: |s| {
            s.size = bytes(10 << 20);
            s.nrfiles = 3;
        },
        totals: (10481664, 2559, 0, 0),
        log_hash: 0x3a9eb781e0a0300e,
    },
    // --size=10000k --bs=3k --rw=randread --nrfiles=3
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.size = bytes(10000 << 10);
            s.bs = PerDir::all(BlockSize::Fixed(3072));
            s.nrfiles = 3;
        },
        totals: (10238976, 3333, 0, 0),
        log_hash: 0x2d57e839f8f5cd3b,
    },
    // --size=10m --bs=4k --rw=randrw --nrfiles=3 --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.size = bytes(10 << 20);
            s.nrfiles = 3;
            s.loops = 2;
        },
        totals: (10338304, 2524, 10625024, 2594),
        log_hash: 0xd19fb961fbbcbcb5,
    },
    // --size=1m --bs=4k --rw=randwrite --nrfiles=2 --random_generator=lfsr --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandWrite;
            s.nrfiles = 2;
            s.random_generator = RandomGenerator::Lfsr;
            s.loops = 2;
        },
        totals: (0, 0, 2097152, 512),
        log_hash: 0x1e1e198b99569471,
    },
    // --size=1000k --bs=4k --rw=rw --nrfiles=3 --rwmixread=70
    Case {
        spec: |s| {
            s.rw.kind = ReadWrite;
            s.size = bytes(1000 << 10);
            s.nrfiles = 3;
            s.rwmixread = 70;
        },
        totals: (733184, 179, 290816, 71),
        log_hash: 0xc778f9a68cc7d590,
    },
    // --size=2m --bs=4k --rw=randread --nrfiles=2 --io_size=5m
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.size = bytes(2 << 20);
            s.nrfiles = 2;
            s.io_size = Some(5 << 20);
        },
        totals: (5242880, 1280, 0, 0),
        log_hash: 0x311f1ea444e9a146,
    },
    // --size=1m --bs=4k --rw=read --nrfiles=2 --offset=100k
    Case {
        spec: |s| {
            s.nrfiles = 2;
            s.offset = SizeSpec::Bytes(100 << 10);
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0x0e9e1b92c2615efd,
    },
    // --size=1m --bsrange=1k-16k --rw=randrw --rwmixread=60
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.rwmixread = 60;
            s.bs = PerDir::all(BlockSize::Range {
                min: 1024,
                max: 16384,
            });
        },
        totals: (637952, 110, 410624, 75),
        log_hash: 0xc8a375b12c312743,
    },
    // --size=1m --bs=4k --rw=randrw:3
    Case {
        spec: |s| {
            s.rw = RwMode {
                kind: RandRw,
                nr: 3,
            };
        },
        totals: (540672, 132, 507904, 124),
        log_hash: 0x056ef4acf887d3e0,
    },
    // --size=1m --bs=8k --rw=randread --random_generator=tausworthe64 --loops=2 --norandommap
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.bs = PerDir::all(BlockSize::Fixed(8192));
            s.random_generator = RandomGenerator::Tausworthe64;
            s.loops = 2;
            s.norandommap = true;
        },
        totals: (2097152, 256, 0, 0),
        log_hash: 0xd2034107094ef847,
    },
    // --size=1m --bs=4k --rw=randrw --randrepeat=0 --randseed=42 --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.randrepeat = false;
            s.randseed = Some(42);
            s.loops = 2;
        },
        totals: (929792, 227, 1167360, 285),
        log_hash: 0x19a1d97fcb58dff6,
    },
    // --size=1m --bs=4k --rw=randread --randseed=42
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.randseed = Some(42);
        },
        totals: (1048576, 256, 0, 0),
        log_hash: 0x5da2c698284a60b4,
    },
    // --size=1m --bs=8k --rw=randread --loops=2 --norandommap
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.bs = PerDir::all(BlockSize::Fixed(8192));
            s.loops = 2;
            s.norandommap = true;
        },
        totals: (2097152, 256, 0, 0),
        log_hash: 0xfc3c5a3eaa9e2b73,
    },
    // --size=1m --bs=4k --rw=randrw --norandommap --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandRw;
            s.norandommap = true;
            s.loops = 2;
        },
        totals: (991232, 242, 1105920, 270),
        log_hash: 0x39ad5281f433d033,
    },
    // --size=1m --bs=4k --rw=randread --norandommap --io_size=3m --loops=2
    Case {
        spec: |s| {
            s.rw.kind = RandRead;
            s.norandommap = true;
            s.io_size = Some(3 << 20);
            s.loops = 2;
        },
        totals: (6291456, 1536, 0, 0),
        log_hash: 0x9ce8950ac82a1f5d,
    },
];

fn fnv1a(hash: &mut u64, data: &[u8]) {
    for &b in data {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x100_0000_01b3);
    }
}

#[test]
fn sequences_match_fio() {
    for (i, case) in CASES.iter().enumerate() {
        let mut s = spec(Read, 1 << 20, 4096);
        (case.spec)(&mut s);
        let files = plan_files(&s, &vec![None; s.nrfiles as usize], &[], 0).unwrap();
        let extents: Vec<_> = files.iter().map(|p| p.extent).collect();
        let mut w = Workload::new(&s, &extents, 0);
        let mut totals = (0, 0, 0, 0);
        let mut hash = 0xcbf2_9ce4_8422_2325;
        while let Some(io) = w.next() {
            let d = match io.dir {
                DataDir::Read => {
                    totals.0 += u64::from(io.len);
                    totals.1 += 1;
                    'r'
                }
                DataDir::Write => {
                    totals.2 += u64::from(io.len);
                    totals.3 += 1;
                    'w'
                }
                DataDir::Trim => unreachable!("no fio case trims"),
            };
            fnv1a(
                &mut hash,
                format!("{} {d} {} {}\n", io.file, io.offset, io.len).as_bytes(),
            );
        }
        assert_eq!(totals, case.totals, "case {i}: {s:?}");
        assert_eq!(
            hash, case.log_hash,
            "case {i}: same totals, different sequence"
        );
    }
}
