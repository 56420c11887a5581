//! The verifier against faults made in memory: for every method, which
//! faults it can see and what it calls them.

use ioscope_job::{JobSpec, Pattern, RwKind, VerifyMethod};
use proptest::prelude::*;

use super::*;
use crate::test_spec::spec;
use CorruptionKind::*;

/// fio 3.42's header starts: magic 0xacca, version 0x81, verify_type 5.
const FIO_CRC32C: [u8; 4] = [0xca, 0xac, 0x81, 5];

const BLOCK: BlockId = BlockId {
    file: 1,
    offset: 8192,
    len: 4096,
    seq: 17,
};

fn job(method: VerifyMethod, interval: u64, edit: impl FnOnce(&mut JobSpec)) -> JobSpec {
    let mut s = spec(RwKind::Write, 1 << 20, 4096);
    s.verify.method = method;
    s.verify.interval = interval;
    edit(&mut s);
    s
}

fn verifier(method: VerifyMethod, interval: u64, edit: impl FnOnce(&mut JobSpec)) -> Verifier {
    Verifier::new(&job(method, interval, edit), 0).unwrap()
}

fn filled(v: &Verifier, block: &BlockId) -> Vec<u8> {
    let mut buf = vec![0u8; block.len as usize];
    v.fill(&mut buf, block);
    buf
}

/// Bytes with no zero among them, and `%o` where asked.
fn pattern(with_offset: bool) -> Pattern {
    let mut bytes = b"ioscope".to_vec();
    let mut offsets = Vec::new();
    if with_offset {
        offsets.push(bytes.len());
        bytes.extend_from_slice(&[0; 8]);
    }
    bytes.extend_from_slice(&[0xa5, 0x5a, 0x11]);
    Pattern { bytes, offsets }
}

#[derive(Clone, Copy, Debug)]
enum Fault {
    DataBit,
    HeaderBit,
    Misdirected,
    Stale,
    Zeroes,
    TornOlder,
    TornZeroes,
}

const FAULTS: [Fault; 7] = [
    Fault::DataBit,
    Fault::HeaderBit,
    Fault::Misdirected,
    Fault::Stale,
    Fault::Zeroes,
    Fault::TornOlder,
    Fault::TornZeroes,
];

const OTHER_OFFSET: u64 = 12288;
const OLDER_SEQ: u64 = 9;

/// Does `fault` to a good copy of `BLOCK`; returns the file offset the
/// diagnosis must name.
fn inject(fault: Fault, v: &Verifier, buf: &mut [u8]) -> u64 {
    let half = buf.len() / 2;
    let older = filled(
        v,
        &BlockId {
            seq: OLDER_SEQ,
            ..BLOCK
        },
    );
    match fault {
        Fault::DataBit => {
            buf[3000] ^= 1 << 2;
            return BLOCK.offset + 3000;
        }
        // Inside the header's offset field when there is a header.
        Fault::HeaderBit => {
            buf[20] ^= 1 << 5;
            return BLOCK.offset + 20;
        }
        Fault::Misdirected => buf.copy_from_slice(&filled(
            v,
            &BlockId {
                offset: OTHER_OFFSET,
                ..BLOCK
            },
        )),
        Fault::Stale => buf.copy_from_slice(&older),
        Fault::Zeroes => buf.fill(0),
        Fault::TornOlder => {
            buf[half..].copy_from_slice(&older[half..]);
            return BLOCK.offset + half as u64;
        }
        Fault::TornZeroes => {
            buf[half..].fill(0);
            return BLOCK.offset + half as u64;
        }
    }
    BLOCK.offset
}

type Seen = [Option<CorruptionKind>; 7];

/// Methods with a data checksum see every fault.
const SEES_ALL: Seen = [
    Some(BitFlip),
    Some(BitFlip),
    Some(Misdirected),
    Some(Stale),
    Some(LostWrite),
    Some(Torn),
    Some(Torn),
];

#[test]
fn each_method_sees_what_it_can_and_names_it() {
    let mut table: Vec<(String, VerifyMethod, Option<Pattern>, Seen)> = fio_sums::methods()
        .iter()
        .map(|&m| (m.name().to_string(), m, None, SEES_ALL))
        .collect();
    table.extend([
        // The header alone: no data bit, and one header per block says
        // nothing of its second half.
        (
            "meta".into(),
            VerifyMethod::Meta,
            None,
            [
                None,
                Some(BitFlip),
                Some(Misdirected),
                Some(Stale),
                Some(LostWrite),
                None,
                None,
            ],
        ),
        ("null".into(), VerifyMethod::Null, None, [None; 7]),
        // Every block and every write of it holds the same bytes.
        (
            "pattern".into(),
            VerifyMethod::Pattern,
            Some(pattern(false)),
            [
                Some(BitFlip),
                Some(BitFlip),
                None,
                None,
                Some(LostWrite),
                None,
                Some(Torn),
            ],
        ),
        // %o tells blocks apart, not writes of one block.
        (
            "pattern with %o".into(),
            VerifyMethod::Pattern,
            Some(pattern(true)),
            [
                Some(BitFlip),
                Some(BitFlip),
                Some(Misdirected),
                None,
                Some(LostWrite),
                None,
                Some(Torn),
            ],
        ),
        // fio's header tells writes apart; the pattern after it does not.
        (
            "pattern_hdr".into(),
            VerifyMethod::PatternHdr,
            Some(pattern(false)),
            [
                Some(BitFlip),
                Some(BitFlip),
                Some(Misdirected),
                Some(Stale),
                Some(LostWrite),
                None,
                Some(Torn),
            ],
        ),
        (
            "pattern_hdr with %o".into(),
            VerifyMethod::PatternHdr,
            Some(pattern(true)),
            [
                Some(BitFlip),
                Some(BitFlip),
                Some(Misdirected),
                Some(Stale),
                Some(LostWrite),
                None,
                Some(Torn),
            ],
        ),
        // As fio checks meta: the header, and the pattern around it.
        (
            "meta with verify_pattern".into(),
            VerifyMethod::Meta,
            Some(pattern(false)),
            [
                Some(BitFlip),
                Some(BitFlip),
                Some(Misdirected),
                Some(Stale),
                Some(LostWrite),
                None,
                Some(Torn),
            ],
        ),
        // The headers tell writes apart; the data of two writes is the same.
        (
            "crc32c with verify_pattern".into(),
            VerifyMethod::Crc32c,
            Some(pattern(false)),
            [
                Some(BitFlip),
                Some(BitFlip),
                Some(Misdirected),
                Some(Stale),
                Some(LostWrite),
                None,
                Some(Torn),
            ],
        ),
    ]);
    assert_eq!(table.len(), 23);
    for (name, method, pat, seen) in table {
        let v = verifier(method, 4096, |s| s.verify.pattern = pat);
        assert_eq!(v.method(), method);
        let good = filled(&v, &BLOCK);
        assert_eq!(v.check(&good, &BLOCK), Ok(()), "{name}: a good block");
        for (fault, want) in FAULTS.into_iter().zip(seen) {
            let mut buf = good.clone();
            let offset = inject(fault, &v, &mut buf);
            let got = v.check(&buf, &BLOCK);
            match want {
                None => assert_eq!(got, Ok(()), "{name}: {fault:?} is invisible to it"),
                Some(kind) => {
                    let c = got.expect_err(&format!("{name}: {fault:?} must be seen"));
                    assert_eq!(c.kind, kind, "{name}: {fault:?}: {c}");
                    assert_eq!(c.offset, offset, "{name}: {fault:?}: {c}");
                }
            }
        }
    }
}

/// A read job checks blocks it did not write: another worker's seed, no
/// write number. It sees what the writer would, but stale data, which
/// takes knowing which write came last.
#[test]
fn a_read_back_sees_all_but_staleness() {
    for method in fio_sums::methods()
        .iter()
        .copied()
        .chain([VerifyMethod::Meta])
    {
        let writer = verifier(method, 4096, |_| {});
        let mut read_job = job(method, 4096, |s| s.rw.kind = RwKind::RandRead);
        read_job.verify.header_seed = false;
        let reader = Verifier::new(&read_job, 5).unwrap();
        let good = filled(&writer, &BLOCK);
        assert_eq!(
            reader.check_read(&good, BLOCK.file, BLOCK.offset),
            Ok(()),
            "{method:?}"
        );
        for fault in FAULTS {
            let mut buf = good.clone();
            let offset = inject(fault, &writer, &mut buf);
            let got = reader.check_read(&buf, BLOCK.file, BLOCK.offset);
            let want = match (fault, method) {
                (Fault::Stale, _) => None,
                (Fault::DataBit | Fault::TornOlder | Fault::TornZeroes, VerifyMethod::Meta) => None,
                (Fault::DataBit | Fault::HeaderBit, _) => Some(BitFlip),
                (Fault::Misdirected, _) => Some(Misdirected),
                (Fault::Zeroes, _) => Some(LostWrite),
                (Fault::TornOlder | Fault::TornZeroes, _) => Some(Torn),
            };
            match want {
                None => assert_eq!(got, Ok(()), "{method:?} {fault:?}"),
                Some(kind) => {
                    let c = got.expect_err(&format!("{method:?}: {fault:?} must be seen"));
                    assert_eq!(
                        (c.kind, c.offset),
                        (kind, offset),
                        "{method:?} {fault:?}: {c}"
                    );
                }
            }
        }
        // verify_header_seed=1 asks for the reader's own seed.
        read_job.verify.header_seed = true;
        let strict = Verifier::new(&read_job, 5).unwrap();
        let c = strict
            .check_read(&good, BLOCK.file, BLOCK.offset)
            .unwrap_err();
        assert_eq!(c.kind, LostWrite, "{c}");
        assert!(c.detail.contains("verify_header_seed=0"), "{c}");
    }
}

#[test]
fn a_read_back_follows_the_writers_intervals() {
    let writer = verifier(VerifyMethod::Crc32c, 4096, |_| {});
    let mut buf = filled(&writer, &BLOCK);
    let next = BlockId {
        offset: BLOCK.offset + 4096,
        seq: 40,
        ..BLOCK
    };
    buf.extend(filled(&writer, &next));
    // One read of 8 KiB over two 4 KiB writes.
    let mut read_job = job(VerifyMethod::Crc32c, 8192, |s| s.rw.kind = RwKind::Read);
    read_job.verify.header_seed = false;
    let reader = Verifier::new(&read_job, 1).unwrap();
    assert_eq!(reader.check_read(&buf, BLOCK.file, BLOCK.offset), Ok(()));
    buf[4096 + 100] ^= 0x10;
    let c = reader
        .check_read(&buf, BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, BLOCK.offset + 4196), "{c}");

    // 4 KiB read of the first part of a 16 KiB interval: named, not damage.
    let big = verifier(VerifyMethod::Crc32c, 16384, |_| {});
    let whole = filled(
        &big,
        &BlockId {
            len: 16384,
            ..BLOCK
        },
    );
    let mut small = job(VerifyMethod::Crc32c, 4096, |s| s.rw.kind = RwKind::Read);
    small.verify.header_seed = false;
    let small = Verifier::new(&small, 1).unwrap();
    let c = small
        .check_read(&whole[..4096], BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!(c.kind, OtherLayout, "{c}");
    assert!(c.detail.contains("bs=16384"), "{c}");
    // Another method: said so, with the method that wrote it.
    let md5 = verifier(VerifyMethod::Md5, 4096, |_| {});
    let c = small
        .check_read(&filled(&md5, &BLOCK), BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!(c.kind, OtherLayout, "{c}");
    assert!(c.detail.contains("verify=md5"), "{c}");
}

/// With the write number or the seed unknown (verify_only's fio
/// defaults), a remembered write is checked as a read-back is.
#[test]
fn relaxed_checks_ignore_what_they_cannot_know() {
    let writer = verifier(VerifyMethod::Crc32c, 4096, |_| {});
    let older = filled(
        &writer,
        &BlockId {
            seq: OLDER_SEQ,
            ..BLOCK
        },
    );
    let relaxed = verifier(VerifyMethod::Crc32c, 4096, |s| {
        s.verify.write_sequence = false;
    });
    assert_eq!(relaxed.check(&older, &BLOCK), Ok(()));
    let seq_only = verifier(VerifyMethod::Crc32c, 4096, |s| s.verify.header_seed = false);
    let c = seq_only.check(&older, &BLOCK).unwrap_err();
    assert_eq!(c.kind, Stale, "{c}");
}

#[test]
fn details_say_what_was_found() {
    let v = verifier(VerifyMethod::Crc32c, 4096, |_| {});
    let good = filled(&v, &BLOCK);
    let detail = |fault| {
        let mut buf = good.clone();
        inject(fault, &v, &mut buf);
        v.check(&buf, &BLOCK).unwrap_err().to_string()
    };
    assert_eq!(
        detail(Fault::Misdirected),
        "misdirected write at offset 8192: holds the write meant for offset 12288 (write #17)"
    );
    assert_eq!(
        detail(Fault::Stale),
        "stale data at offset 8192: holds write #9; write #17 of this block was lost"
    );
    assert_eq!(
        detail(Fault::Zeroes),
        "lost write at offset 8192: reads back zeroes: never written"
    );
    assert_eq!(
        detail(Fault::TornZeroes),
        "torn write at offset 10240: the first 2048 of 4096 bytes are this write's; the rest reads back zeroes"
    );
    assert_eq!(
        detail(Fault::TornOlder),
        "torn write at offset 10240: the first 2048 of 4096 bytes are this write's; the rest holds other data"
    );
    assert_eq!(
        detail(Fault::DataBit),
        "bit flip at offset 11192: 1 bit differs from what was written, the first is bit 2 of the byte at offset 11192"
    );
    assert!(detail(Fault::HeaderBit).ends_with("bit 5 of the byte at offset 8212 (in the header)"));

    let p = verifier(VerifyMethod::Pattern, 4096, |s| {
        s.verify.pattern = Some(pattern(true))
    });
    let mut buf = filled(
        &p,
        &BlockId {
            offset: OTHER_OFFSET,
            ..BLOCK
        },
    );
    assert_eq!(
        p.check(&buf, &BLOCK).unwrap_err().detail,
        "holds the pattern meant for offset 12288"
    );
    buf = filled(&p, &BLOCK);
    for b in &mut buf[100..300] {
        *b ^= 0x0f;
    }
    let c = p.check(&buf, &BLOCK).unwrap_err();
    assert_eq!(c.kind, PatternMismatch);
    assert_eq!(c.offset, 8192 + 100);
    assert!(
        c.detail
            .starts_with("200 of 4096 bytes differ from verify_pattern"),
        "{c}"
    );
}

#[test]
fn several_headers_per_block() {
    let v = verifier(VerifyMethod::Crc32c, 512, |_| {});
    let block = BlockId { len: 8192, ..BLOCK };
    let good = filled(&v, &block);
    for (i, interval) in good.chunks(512).enumerate() {
        assert_eq!(interval[..4], FIO_CRC32C, "interval {i}");
        assert_eq!(
            interval[16..24],
            (block.offset + i as u64 * 512).to_le_bytes()
        );
    }
    assert_eq!(v.check(&good, &block), Ok(()));
    let check = |edit: &dyn Fn(&mut [u8])| {
        let mut buf = good.clone();
        edit(&mut buf);
        v.check(&buf, &block).unwrap_err()
    };
    let at = |pos: u64| block.offset + pos;

    let c = check(&|b| b[5 * 512 + 300] ^= 0x40);
    assert_eq!((c.kind, c.offset), (BitFlip, at(5 * 512 + 300)));
    let c = check(&|b| b[5 * 512 + 20] ^= 1);
    assert_eq!((c.kind, c.offset), (BitFlip, at(5 * 512 + 20)));
    assert!(c.detail.ends_with("(in the header)"));

    let older = filled(
        &v,
        &BlockId {
            seq: OLDER_SEQ,
            ..block
        },
    );
    let c = check(&|b| b[4096..].copy_from_slice(&older[4096..]));
    assert_eq!(
        c.to_string(),
        format!("torn write at offset {}: the first 4096 of 8192 bytes are this write's; the rest holds write #9", at(4096))
    );
    let c = check(&|b| b.copy_from_slice(&older));
    assert_eq!((c.kind, c.offset), (Stale, at(0)));

    // One bad interval amid good ones is no tear.
    let c = check(&|b| b[1536..2048].fill(0));
    assert_eq!((c.kind, c.offset), (LostWrite, at(1536)));
    let elsewhere = filled(
        &v,
        &BlockId {
            offset: 65536,
            ..block
        },
    );
    let c = check(&|b| b[1024..1536].copy_from_slice(&elsewhere[1024..1536]));
    assert_eq!((c.kind, c.offset), (Misdirected, at(1024)));
    assert_eq!(
        c.detail,
        "holds the write meant for offset 66560 (write #17)"
    );
}

/// A block shorter than verify_interval (the end of a zone that
/// write_zone_remainder writes with a smaller write) carries one header
/// whose interval is the block, as fio's `get_hdr_inc` makes it.
#[test]
fn a_block_shorter_than_the_interval_is_one_interval() {
    let v = verifier(VerifyMethod::Crc32c, 8192, |_| {});
    let block = BlockId { len: 2048, ..BLOCK };
    let good = filled(&v, &block);
    let header = fio_header::read(&good).expect("a header at the start");
    assert_eq!((header.interval, header.offset), (2048, block.offset));
    assert_eq!(v.check(&good, &block), Ok(()));
    let mut bad = good.clone();
    bad[1000] ^= 0x10;
    let c = v.check(&bad, &block).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, block.offset + 1000));
}

#[test]
fn verify_offset_moves_the_header() {
    let v = verifier(VerifyMethod::Crc32c, 4096, |s| s.verify.offset = 1000);
    let good = filled(&v, &BLOCK);
    assert_eq!(good[1000..1004], FIO_CRC32C);
    assert_ne!(good[..4], FIO_CRC32C);
    assert_eq!(v.check(&good, &BLOCK), Ok(()));
    let mut buf = good.clone();
    buf[1020] ^= 0x80;
    let c = v.check(&buf, &BLOCK).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, BLOCK.offset + 1020));
    assert!(c.detail.ends_with("(in the header)"));
    buf = good.clone();
    buf[20] ^= 0x80;
    assert!(!v.check(&buf, &BLOCK).unwrap_err().detail.contains("header"));

    // The header in the torn half: the data before it still proves the write.
    let late = verifier(VerifyMethod::Md5, 4096, |s| s.verify.offset = 3000);
    let mut buf = filled(&late, &BLOCK);
    let older = filled(
        &late,
        &BlockId {
            seq: OLDER_SEQ,
            ..BLOCK
        },
    );
    buf[2048..].copy_from_slice(&older[2048..]);
    let c = late.check(&buf, &BLOCK).unwrap_err();
    assert_eq!(
        c.detail,
        "the first 2048 of 4096 bytes are this write's; the rest holds other data"
    );

    // With verify_pattern the data is the same in every write, so nothing
    // before the header proves which write it is: only the header speaks.
    let same = verifier(VerifyMethod::Crc32c, 4096, |s| {
        s.verify.offset = 3000;
        s.verify.pattern = Some(pattern(false));
    });
    let mut buf = filled(&same, &BLOCK);
    let older = filled(
        &same,
        &BlockId {
            seq: OLDER_SEQ,
            ..BLOCK
        },
    );
    buf[2048..].copy_from_slice(&older[2048..]);
    assert_eq!(same.check(&buf, &BLOCK).unwrap_err().kind, Stale);
}

#[test]
fn fill_is_deterministic_and_differs_per_write() {
    let s = job(VerifyMethod::Xxhash, 4096, |_| {});
    let a = filled(&Verifier::new(&s, 3).unwrap(), &BLOCK);
    let v = Verifier::new(&s, 3).unwrap();
    assert_eq!(a, filled(&v, &BLOCK));
    let mut out = vec![0u8; 4096];
    v.expected(&BLOCK, &mut out);
    assert_eq!(a, out);
    let others = [
        BlockId { seq: 18, ..BLOCK },
        BlockId { offset: 0, ..BLOCK },
        BlockId { file: 0, ..BLOCK },
    ];
    for b in others {
        assert_ne!(a[100..], filled(&v, &b)[100..], "{b:?}");
    }
    let other_worker = filled(&Verifier::new(&s, 4).unwrap(), &BLOCK);
    assert_ne!(a[100..], other_worker[100..]);
    let other_seed = job(VerifyMethod::Xxhash, 4096, |s| s.randseed = Some(5));
    assert_ne!(
        a[100..],
        filled(&Verifier::new(&other_seed, 3).unwrap(), &BLOCK)[100..]
    );
}

#[test]
fn another_job_or_run_is_foreign() {
    let ours = verifier(VerifyMethod::Crc32c, 4096, |s| s.randseed = Some(1));
    let theirs = verifier(VerifyMethod::Crc32c, 4096, |s| s.randseed = Some(2));
    let c = ours.check(&filled(&theirs, &BLOCK), &BLOCK).unwrap_err();
    assert_eq!(c.kind, LostWrite);
    assert!(
        c.detail
            .starts_with("holds a block of another job, run or file (verify=crc32c, seed"),
        "{c}"
    );

    let sha = verifier(VerifyMethod::Sha256, 4096, |s| s.randseed = Some(1));
    let c = sha.check(&filled(&ours, &BLOCK), &BLOCK).unwrap_err();
    assert_eq!(c.kind, LostWrite);
    assert!(c.detail.contains("verify=crc32c"), "{c}");
}

#[test]
fn damage_that_is_not_a_whole_write() {
    let v = verifier(VerifyMethod::Sha1, 4096, |_| {});
    let good = filled(&v, &BLOCK);
    let check = |edit: &dyn Fn(&mut [u8])| {
        let mut buf = good.clone();
        edit(&mut buf);
        v.check(&buf, &BLOCK).unwrap_err()
    };
    let c = check(&|b| b[..64].fill(0));
    assert_eq!((c.kind, c.offset), (HeaderDamaged, BLOCK.offset));
    assert!(c.detail.ends_with("the data is intact"), "{c}");

    let c = check(&|b| b[100..400].iter_mut().for_each(|x| *x ^= 0x5a));
    assert_eq!((c.kind, c.offset), (DataCorrupt, BLOCK.offset + 100));
    assert!(c.detail.starts_with("300 of 4096 bytes differ"), "{c}");

    let c = check(&|b| {
        b[30] ^= 0xff;
        b[100..400].iter_mut().for_each(|x| *x ^= 0x5a);
    });
    assert_eq!(c.kind, DataCorrupt);
    assert!(c.detail.ends_with("the header among them"), "{c}");

    let c = check(&|b| {
        b.iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = (i * 31 % 251) as u8)
    });
    assert_eq!(c.kind, LostWrite);
    assert_eq!(
        c.detail,
        "holds data without a fio verify header: this write never reached it"
    );

    // Sixteen scattered bits are flips; seventeen are more than that.
    let flips = |n: usize| move |b: &mut [u8]| (0..n).for_each(|i| b[200 + i * 97] ^= 4);
    let c = check(&flips(16));
    assert_eq!(c.kind, BitFlip);
    assert!(c.detail.starts_with("16 bits differ"), "{c}");
    assert_eq!(check(&flips(17)).kind, DataCorrupt);
}

#[test]
fn other_writes_of_the_same_job() {
    let v = verifier(VerifyMethod::Crc64, 4096, |s| s.nrfiles = 3);
    let c = v
        .check(&filled(&v, &BlockId { file: 2, ..BLOCK }), &BLOCK)
        .unwrap_err();
    assert_eq!(c.kind, Misdirected);
    assert_eq!(
        c.detail,
        "holds the write meant for file #2 offset 8192 (write #17)"
    );
    let c = v
        .check(&filled(&v, &BlockId { seq: 20, ..BLOCK }), &BLOCK)
        .unwrap_err();
    assert_eq!(c.kind, Stale);
    assert_eq!(
        c.detail,
        "holds write #20, newer than write #17 it was checked for"
    );
}

#[test]
fn refuses_options_that_cannot_work() {
    let err = |method, interval, edit: fn(&mut JobSpec)| {
        Verifier::new(&job(method, interval, edit), 0)
            .err()
            .unwrap()
    };
    assert_eq!(
        err(VerifyMethod::Crc32c, 32, |_| {}),
        "verify_interval=32 is smaller than the 52-byte verify=crc32c header: use at least 52"
    );
    assert!(err(VerifyMethod::Sha512, 100, |_| {}).contains("use at least 176"));
    assert_eq!(
        err(VerifyMethod::Crc32c, 4096, |s| s.verify.offset = 4045),
        "verify_offset=4045 leaves no room for the 52-byte verify=crc32c header in a 4096-byte interval: use at most 4044"
    );
    assert!(err(VerifyMethod::None, 4096, |_| {}).contains("verify=0"));
    assert!(err(VerifyMethod::Pattern, 4096, |_| {}).contains("needs verify_pattern"));
    assert!(err(VerifyMethod::PatternHdr, 4096, |_| {})
        .starts_with("verify=pattern_hdr needs verify_pattern"));
    let with_pattern: fn(&mut JobSpec) = |s| s.verify.pattern = Some(pattern(false));
    assert_eq!(
        err(VerifyMethod::PatternHdr, 32, with_pattern),
        "verify_interval=32 is smaller than the 48-byte verify=pattern_hdr header: use at least 48"
    );
    assert!(err(VerifyMethod::PatternHdr, 48, with_pattern).contains("use at least 49"));
    assert!(err(VerifyMethod::PatternHdr, 4096, |s| {
        s.verify.pattern = Some(pattern(false));
        s.verify.offset = 40;
    })
    .contains("leave verify_offset out or use at least 48"));
    assert!(Verifier::new(
        &job(VerifyMethod::PatternHdr, 4096, |s| {
            s.verify.pattern = Some(pattern(false));
            s.verify.offset = 4048;
        }),
        0
    )
    .is_ok());
    // fio's header and checksum need a byte of data beside them; a
    // verify_offset must not swap them with themselves.
    assert!(err(VerifyMethod::Crc32c, 52, |_| {}).contains("use at least 53"));
    assert!(Verifier::new(&job(VerifyMethod::Crc32c, 53, |_| {}), 0).is_ok());
    assert!(err(VerifyMethod::Crc32c, 4096, |s| s.verify.offset = 50)
        .contains("leave verify_offset out or use at least 52"));
    // verify=pattern has no header to fit.
    let tiny = job(VerifyMethod::Pattern, 1, |s| {
        s.verify.pattern = Some(pattern(false))
    });
    assert!(Verifier::new(&tiny, 0).is_ok());
}

/// verify=pattern_hdr lays each interval out as fio 3.42's VERIFY_PATTERN
/// does: fio's 48-byte verify header, then the pattern, its phase carried
/// on past the header (fio fills the block with the pattern and writes the
/// header over it; the header's two bytes of padding keep the pattern).
#[test]
fn pattern_hdr_is_fios_header_then_the_pattern() {
    let dead = Pattern {
        bytes: vec![0xde, 0xad, 0xbe, 0xef, 0x01],
        offsets: Vec::new(),
    };
    let v = verifier(VerifyMethod::PatternHdr, 512, |s| {
        s.verify.pattern = Some(dead)
    });
    let block = BlockId {
        file: 3,
        offset: 1 << 20,
        len: 4096,
        seq: 5,
    };
    let buf = filled(&v, &block);
    let at = |pos: usize| [0xde, 0xad, 0xbe, 0xef, 0x01][pos % 5];
    for (i, interval) in buf.chunks(512).enumerate() {
        let mut head = vec![0xca, 0xac, 0x81, 17];
        head.extend(512u32.to_le_bytes());
        head.extend(0u64.to_le_bytes()); // rand_seed
        head.extend((block.offset + 512 * i as u64).to_le_bytes());
        head.extend([0; 8]); // time
        head.extend(4u64.to_le_bytes()); // numberio: write #5, fio's 4
        head.extend(1u16.to_le_bytes()); // thread 1: worker 0
        head.extend([at(i * 512 + 42), at(i * 512 + 43)]);
        let crc = !crc32c::crc32c(&head);
        head.extend(crc.to_le_bytes());
        assert_eq!(interval[..48], head[..], "interval {i}");
        for (j, &b) in interval.iter().enumerate().skip(48) {
            assert_eq!(b, at(i * 512 + j), "interval {i} byte {j}");
        }
    }
    assert_eq!(v.check(&buf, &block), Ok(()));

    // One byte of the pattern area, and one of the header.
    let mut bad = buf.clone();
    bad[512 + 300] ^= 0xff;
    let c = v.check(&bad, &block).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, block.offset + 812), "{c}");
    let mut bad = buf.clone();
    bad[1024 + 17] ^= 0x01;
    let c = v.check(&bad, &block).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, block.offset + 1041), "{c}");
    assert!(c.detail.ends_with("(in the header)"), "{c}");
    // The padding is the pattern under fio's crc: damage there is seen.
    let mut bad = buf.clone();
    bad[42] ^= 0x10;
    assert_eq!(v.check(&bad, &block).unwrap_err().kind, BitFlip);

    // fio's time and thread are not checked, as fio does not.
    let mut other_time = buf.clone();
    other_time[24..32].copy_from_slice(&[9, 8, 7, 6, 5, 4, 3, 2]);
    other_time[40] = 7;
    let crc = !crc32c::crc32c(&other_time[..44]);
    other_time[44..48].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(v.check(&other_time, &block), Ok(()));
    // ... nor do they count as damage beside damage elsewhere.
    other_time[100] ^= 4;
    let c = v.check(&other_time, &block).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, block.offset + 100), "{c}");
    assert!(c.detail.starts_with("1 bit differs"), "{c}");
    // Such a header with one bit damaged: that bit is what differs.
    other_time[100] ^= 4;
    other_time[17] ^= 0x20;
    let c = v.check(&other_time, &block).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, block.offset + 17), "{c}");
    assert!(c.detail.starts_with("1 bit differs"), "{c}");

    // No ioscope header, nor the other way round.
    let crc = verifier(VerifyMethod::Crc32c, 512, |_| {});
    assert!(v.check(&filled(&crc, &block), &block).is_err());
    assert!(crc.check(&buf, &block).is_err());
    assert_eq!(v.method(), VerifyMethod::PatternHdr);
}

#[test]
fn pattern_hdr_with_verify_offset_swaps_as_fio() {
    let v = verifier(VerifyMethod::PatternHdr, 4096, |s| {
        s.verify.offset = 1000;
        s.verify.pattern = Some(pattern(true));
    });
    let good = filled(&v, &BLOCK);
    // The first 48 bytes hold the pattern from byte 1000 on.
    let plain = verifier(VerifyMethod::Pattern, 4096, |s| {
        s.verify.pattern = Some(pattern(true))
    });
    let pat = filled(&plain, &BLOCK);
    assert_eq!(good[..48], pat[1000..1048]);
    assert_eq!(good[48..1000], pat[48..1000]);
    assert_eq!(good[1000..1002], [0xca, 0xac]);
    assert_eq!(good[1042..1044], pat[42..44]);
    assert_eq!(good[1048..], pat[1048..]);
    assert_eq!(v.check(&good, &BLOCK), Ok(()));
    let mut bad = good.clone();
    bad[10] ^= 2;
    let c = v.check(&bad, &BLOCK).unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, BLOCK.offset + 10), "{c}");
    let mut bad = good.clone();
    bad[1016] ^= 2;
    let c = v.check(&bad, &BLOCK).unwrap_err();
    assert!(c.detail.ends_with("(in the header)"), "{c}");
    // Checked without the write number and seed (verify_only's way).
    let relaxed = verifier(VerifyMethod::PatternHdr, 4096, |s| {
        s.verify.offset = 1000;
        s.verify.pattern = Some(pattern(true));
        s.verify.write_sequence = false;
        s.verify.header_seed = false;
    });
    assert_eq!(relaxed.check(&good, &BLOCK), Ok(()));
    let c = relaxed.check(&bad, &BLOCK).unwrap_err();
    assert_eq!(c.offset, BLOCK.offset + 1016, "{c}");
}

/// A read job checks fio-headed blocks as fio does: the header (its seed,
/// 0 for every pattern writer, when asked), and the pattern as the read's
/// block holds it.
#[test]
fn pattern_hdr_read_back() {
    let writer = verifier(VerifyMethod::PatternHdr, 4096, |s| {
        s.verify.pattern = Some(pattern(false))
    });
    let mut read_job = job(VerifyMethod::PatternHdr, 4096, |s| {
        s.rw.kind = RwKind::RandRead;
        s.verify.pattern = Some(pattern(false));
    });
    for seed in [false, true] {
        read_job.verify.header_seed = seed;
        let reader = Verifier::new(&read_job, 5).unwrap();
        let good = filled(&writer, &BLOCK);
        assert_eq!(
            reader.check_read(&good, BLOCK.file, BLOCK.offset),
            Ok(()),
            "seed {seed}"
        );
        for fault in FAULTS {
            let mut buf = good.clone();
            let offset = inject(fault, &writer, &mut buf);
            let got = reader.check_read(&buf, BLOCK.file, BLOCK.offset);
            let want = match fault {
                Fault::Stale | Fault::TornOlder => None,
                Fault::DataBit | Fault::HeaderBit => Some(BitFlip),
                Fault::Misdirected => Some(Misdirected),
                Fault::Zeroes => Some(LostWrite),
                Fault::TornZeroes => Some(Torn),
            };
            match want {
                None => assert_eq!(got, Ok(()), "{fault:?}"),
                Some(kind) => {
                    let c = got.expect_err(&format!("{fault:?} must be seen"));
                    assert_eq!((c.kind, c.offset), (kind, offset), "{fault:?}: {c}");
                }
            }
        }
    }
    // A fio before 3.42 wrote a 40-byte header without a version byte,
    // the pattern after it: checked as that layout says.
    let plain = verifier(VerifyMethod::Pattern, 4096, |s| {
        s.verify.pattern = Some(pattern(false))
    });
    let mut old = filled(&plain, &BLOCK);
    old[..40].copy_from_slice(&super::fio_written::header_333(17, 4096, BLOCK.offset, 0));
    read_job.verify.header_seed = false;
    let reader = Verifier::new(&read_job, 5).unwrap();
    assert_eq!(reader.check_read(&old, BLOCK.file, BLOCK.offset), Ok(()));
    old[100] ^= 4;
    let c = reader
        .check_read(&old, BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!(
        (c.kind, c.offset),
        (PatternMismatch, BLOCK.offset + 100),
        "{c}"
    );
    assert!(c.detail.contains("a fio before 3.42"), "{c}");
    // Random data with no header at all.
    let noise: Vec<u8> = (0..4096).map(|i| (i * 7 % 253) as u8 + 1).collect();
    let c = reader
        .check_read(&noise, BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!(c.kind, LostWrite, "{c}");
    assert!(c.detail.contains("without a fio verify header"), "{c}");
}

/// A block fio 3.33 wrote with verify=crc32c (its 40-byte header, then
/// the checksum, then random data) is checked by a read job; a byte
/// changed is corrupt data, a tail read back as zeroes a torn write.
#[test]
fn a_block_fio_wrote_is_checked_and_its_damage_named() {
    let mut block: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    block[..40].copy_from_slice(&super::fio_written::header_333(5, 4096, BLOCK.offset, 0));
    let sum = super::fio_sums::sum(
        VerifyMethod::Crc32c,
        super::fio_sums::FioVersion::Before342,
        &block[44..],
    );
    block[40..44].copy_from_slice(&sum);
    let read_job = job(VerifyMethod::Crc32c, 4096, |s| {
        s.rw.kind = RwKind::Read;
        s.verify.header_seed = false;
    });
    let reader = Verifier::new(&read_job, 0).unwrap();
    assert_eq!(reader.check_read(&block, BLOCK.file, BLOCK.offset), Ok(()));
    let mut bad = block.clone();
    bad[2000] ^= 0x20;
    let c = reader
        .check_read(&bad, BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!((c.kind, c.offset), (DataCorrupt, BLOCK.offset), "{c}");
    let mut torn = block.clone();
    torn[3072..].fill(0);
    let c = reader
        .check_read(&torn, BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!((c.kind, c.offset), (Torn, BLOCK.offset + 3072), "{c}");
    // Its own job's check (seed and write number known) does not take it.
    let own = verifier(VerifyMethod::Crc32c, 4096, |_| {});
    let c = own.check(&block, &BLOCK).unwrap_err();
    assert_eq!(c.kind, LostWrite, "{c}");
}

/// A checksum's check needs no pattern, but a bad block's diagnosis
/// compares with the pattern the write laid.
#[test]
fn a_checksum_over_a_pattern_is_diagnosed_against_it() {
    let with_pattern = |s: &mut JobSpec| s.verify.pattern = Some(pattern(true));
    let writer = verifier(VerifyMethod::Crc32c, 1024, with_pattern);
    let mut read_job = job(VerifyMethod::Crc32c, 1024, |s| {
        with_pattern(s);
        s.rw.kind = RwKind::Read;
    });
    read_job.verify.header_seed = false;
    let reader = Verifier::new(&read_job, 2).unwrap();
    let mut buf = filled(&writer, &BLOCK);
    assert_eq!(reader.check_read(&buf, BLOCK.file, BLOCK.offset), Ok(()));
    buf[2048 + 700] ^= 0x08;
    let c = reader
        .check_read(&buf, BLOCK.file, BLOCK.offset)
        .unwrap_err();
    assert_eq!((c.kind, c.offset), (BitFlip, BLOCK.offset + 2748), "{c}");
}

#[test]
fn verifier_can_be_shared_with_checking_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Verifier>();
}

proptest! {
    #[test]
    fn blocks_of_any_whole_number_of_intervals(
        interval_kb in prop::sample::select(vec![512u64, 1024, 4096]),
        count in 1u32..=32,
        method in prop::sample::select(vec![VerifyMethod::Crc32c, VerifyMethod::Xxhash, VerifyMethod::Sha256]),
        offset_blocks in 0u64..1 << 20,
        flip in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let v = verifier(method, interval_kb, |_| {});
        let block = BlockId { file: 0, offset: offset_blocks * 512, len: interval_kb as u32 * count, seq: 3 };
        let mut buf = filled(&v, &block);
        prop_assert_eq!(v.check(&buf, &block), Ok(()));
        let at = flip.index(buf.len());
        buf[at] ^= 1 << bit;
        let c = v.check(&buf, &block).unwrap_err();
        prop_assert_eq!(c.kind, BitFlip);
        prop_assert_eq!(c.offset, block.offset + at as u64);
    }
}
