//! Verify: the checksum or pattern written with the data and checked on
//! reading it back, when and how much is checked, and trim verify. The
//! derived values (interval, header checks, batches) are settled in the
//! resolve step, as in fio.

use super::{Kind, OptionDef};
use crate::pattern;
use crate::spec::VerifyMethod;

const VERIFY: OptionDef = OptionDef::of("Verify");

const VERIFY_VALUES: &[(&str, &str)] = &[
    ("0", "Don't do IO verification"),
    ("md5", "Use md5 checksums for verification"),
    ("crc64", "Use crc64 checksums for verification"),
    ("crc32", "Use crc32 checksums for verification"),
    ("crc16", "Use crc16 checksums for verification"),
    ("crc7", "Use crc7 checksums for verification"),
    (
        "crc32c",
        "Use crc32c checksums for verification (hardware assisted where the CPU has it)",
    ),
    (
        "crc32c-intel",
        "Use crc32c checksums for verification (the same as crc32c)",
    ),
    ("sha1", "Use sha1 checksums for verification"),
    ("sha256", "Use sha256 checksums for verification"),
    ("sha512", "Use sha512 checksums for verification"),
    ("sha3-224", "Use sha3-224 checksums for verification"),
    ("sha3-256", "Use sha3-256 checksums for verification"),
    ("sha3-384", "Use sha3-384 checksums for verification"),
    ("sha3-512", "Use sha3-512 checksums for verification"),
    ("xxhash", "Use xxhash checksums for verification"),
    ("pattern", "Verify strict pattern"),
    ("pattern_hdr", "Verify pattern with header"),
    ("meta", "Use io information (the header alone)"),
    ("null", "Pretend to verify"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "verify",
        kind: Kind::Choice(VERIFY_VALUES),
        default: "0",
        help: "Verify data written",
        apply: |s, v| {
            s.spec.verify.method = verify_method(v.text).ok_or_else(|| v.not_a_choice())?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "do_verify",
        kind: Kind::Bool,
        default: "1",
        help: "Run verification stage after write",
        apply: |s, v| {
            s.spec.verify.do_verify = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_only",
        kind: Kind::Flag,
        help: "Verifies previously written data is still valid",
        apply: |s, v| {
            s.spec.verify.only = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_backlog",
        kind: Kind::Int,
        help: "Verify after this number of blocks are written",
        apply: |s, v| {
            s.spec.verify.backlog = v.size()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_backlog_batch",
        kind: Kind::Int,
        help: "Verify this number of IO blocks",
        // 0 (unset) means verify_backlog (the resolve step).
        apply: |s, v| {
            s.spec.verify.backlog_batch = v.size()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_interval",
        kind: Kind::Size,
        help: "Store verify buffer header every N bytes",
        // Unset, or one that does not divide the block sizes, is derived
        // from the block sizes (the resolve step), as in fio. Given, its
        // least is fio's (options.c minval, two of its verify headers: 80
        // bytes in fio 3.33, 96 from 3.42); a derived one may be less.
        apply: |s, v| {
            s.verify_interval = u64::from(v.uint(80)?);
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_offset",
        kind: Kind::Size,
        // None to apply: 0, the header at the interval's start, is the
        // spec's own, and a value fio refuses when given.
        help: "Offset verify header location by N bytes",
        // fio's least is its verify header's length (options.c minval,
        // sizeof(struct verify_header): 40 bytes in fio 3.33, 48 from
        // 3.42), a given 0 included, so that the header it swaps to
        // verify_offset never lands on itself; ioscope takes what the
        // installed fio takes.
        apply: |s, v| {
            s.spec.verify.offset = u64::from(v.uint(40)?);
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_pattern",
        help: "Fill pattern for IO buffers: 0xhex, decimal, \"string\", %o (block offset)",
        // Given without verify, it means verify=pattern_hdr (the resolve
        // step), as fio's str_verify_pattern_cb sets VERIFY_PATTERN.
        apply: |s, v| {
            s.spec.verify.pattern = Some(pattern::parse(v.text)?);
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_pattern_interval",
        kind: Kind::Size,
        default: "0",
        help: "Re-create verify pattern every N bytes",
        apply: |s, v| {
            s.spec.verify.pattern_interval = v.size()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_fatal",
        kind: Kind::Bool,
        default: "0",
        help: "Exit on a single verify failure, don't continue",
        apply: |s, v| {
            s.spec.verify.fatal = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_dump",
        kind: Kind::Bool,
        default: "0",
        help: "Dump contents of good and bad blocks on failure",
        apply: |s, v| {
            s.spec.verify.dump = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_async",
        kind: Kind::Int,
        default: "0",
        help: "Number of async verifier threads to use",
        apply: |s, v| {
            s.spec.verify.async_threads = v.uint(0)?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_state_save",
        kind: Kind::Bool,
        default: "1",
        help: "Save verify state on termination",
        apply: |s, v| {
            s.spec.verify.state_save = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_state_load",
        kind: Kind::Bool,
        default: "0",
        help: "Load verify termination state",
        apply: |s, v| {
            s.spec.verify.state_load = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "experimental_verify",
        kind: Kind::Bool,
        default: "0",
        help: "Enable experimental verification",
        apply: |s, v| {
            s.spec.verify.experimental = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_header_seed",
        kind: Kind::Bool,
        default: "1",
        help: "Verify the header seed used to generate the buffer contents",
        // Unless given, off where the seed cannot be known: a job that
        // reads back, verify_only, norandommap (the resolve step, as fio).
        apply: |s, v| {
            s.spec.verify.header_seed = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "verify_write_sequence",
        kind: Kind::Bool,
        default: "1",
        help: "Verify header write sequence number",
        // Unless given, off with verify_only or experimental_verify (the
        // resolve step, as fio).
        apply: |s, v| {
            s.spec.verify.write_sequence = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "trim_percentage",
        kind: Kind::Int,
        default: "0",
        help: "Number of verify blocks to trim (i.e., discard)",
        apply: |s, v| {
            s.spec.trim_verify.percentage = v.percent()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "trim_verify_zero",
        kind: Kind::Bool,
        default: "1",
        help: "Verify that trimmed (i.e., discarded) blocks are returned as zeroes",
        apply: |s, v| {
            s.spec.trim_verify.verify_zero = v.bool()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "trim_backlog",
        kind: Kind::Int,
        help: "Trim after this number of blocks are written",
        apply: |s, v| {
            s.spec.trim_verify.backlog = v.size()?;
            Ok(())
        },
        ..VERIFY
    },
    OptionDef {
        name: "trim_backlog_batch",
        kind: Kind::Int,
        help: "Trim this number of IO blocks",
        // 0 (unset) means trim_backlog (the resolve step).
        apply: |s, v| {
            s.spec.trim_verify.backlog_batch = v.size()?;
            Ok(())
        },
        ..VERIFY
    },
];

fn verify_method(text: &str) -> Option<VerifyMethod> {
    Some(match text {
        "0" | "none" => VerifyMethod::None,
        "md5" => VerifyMethod::Md5,
        "crc64" => VerifyMethod::Crc64,
        "crc32" => VerifyMethod::Crc32,
        "crc32c" => VerifyMethod::Crc32c,
        "crc32c-intel" => VerifyMethod::Crc32cIntel,
        "crc16" => VerifyMethod::Crc16,
        "crc7" => VerifyMethod::Crc7,
        "sha1" => VerifyMethod::Sha1,
        "sha256" => VerifyMethod::Sha256,
        "sha512" => VerifyMethod::Sha512,
        "sha3-224" => VerifyMethod::Sha3_224,
        "sha3-256" => VerifyMethod::Sha3_256,
        "sha3-384" => VerifyMethod::Sha3_384,
        "sha3-512" => VerifyMethod::Sha3_512,
        "xxhash" => VerifyMethod::Xxhash,
        "pattern" => VerifyMethod::Pattern,
        "pattern_hdr" => VerifyMethod::PatternHdr,
        "meta" => VerifyMethod::Meta,
        "null" => VerifyMethod::Null,
        _ => return None,
    })
}
