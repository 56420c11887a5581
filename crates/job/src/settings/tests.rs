//! The settings of one job: applying values, and the resolve step.

use std::time::Duration;

use super::*;
use crate::options::{bssplit, errno_name, find, rw_mode};

fn set(s: &mut Settings, name: &str, value: &str) -> Result<(), String> {
    s.apply(find(name).unwrap(), Some(value))
}

#[test]
fn extents_past_the_largest_offset_are_refused() {
    let resolve = |opts: &[(&str, &str)]| {
        let mut s = Settings::defaults();
        for (k, v) in opts {
            set(&mut s, k, v).unwrap();
        }
        s.resolve()
    };
    // 2^64-4096 would wrap to the start of the device (fio refuses it
    // as a number already); 2^63-4096 fits as a number but not with a size.
    let err = resolve(&[("offset", "9223372036854771712"), ("size", "16m")]).unwrap_err();
    assert!(
        err.contains("size=16777216") && err.contains("too large"),
        "{err}"
    );
    let err = resolve(&[
        ("offset_increment", "4611686018427387904"),
        ("numjobs", "3"),
        ("size", "4k"),
    ])
    .unwrap_err();
    assert!(
        err.contains("offset_increment") && err.contains("too large"),
        "{err}"
    );
    let err = resolve(&[
        ("offset_increment", "4611686018427387903"),
        ("numjobs", "3"),
        ("size", "1g"),
    ])
    .unwrap_err();
    assert!(
        err.contains("the last clone's")
            && err.contains("2 * offset_increment")
            && err.contains("too large"),
        "{err}"
    );
    let err = resolve(&[("offset", "9223372036854775807"), ("filesize", "4k")]).unwrap_err();
    assert!(err.contains("filesize=4096"), "{err}");
    resolve(&[("offset", "9223372036854771711"), ("size", "4k")]).unwrap();
    resolve(&[
        ("offset_increment", "1g"),
        ("numjobs", "64"),
        ("size", "1g"),
    ])
    .unwrap();
}

#[test]
fn filename_dash_is_refused() {
    let mut s = Settings::defaults();
    for text in ["-", "a:-"] {
        let err = set(&mut s, "filename", text).unwrap_err();
        assert!(err.contains("standard input"), "{err}");
    }
    set(&mut s, "filename", "a-b:-c").unwrap();
}

#[test]
fn booleans_and_flags_as_fio_reads_them() {
    let mut s = Settings::defaults();
    set(&mut s, "time_based", "2").unwrap();
    assert!(s.spec.time_based, "fio: any number but 0 turns a flag on");
    set(&mut s, "time_based", "0").unwrap();
    assert!(!s.spec.time_based);
    for word in ["yes", "no", "on", "off", "true", "false"] {
        assert!(set(&mut s, "direct", word).is_err(), "{word}");
        assert!(set(&mut s, "time_based", word).is_err(), "{word}");
    }
    assert!(
        set(&mut s, "direct", "2").is_err(),
        "fio: a boolean is 0 or 1"
    );
}

#[test]
fn bssplit_fills_missing_percentages() {
    assert_eq!(
        bssplit("4k/50:64k/50", 1024),
        Ok(vec![(4096, 50), (65536, 50)])
    );
    // fio's order: by percentage, the order given among equal ones.
    assert_eq!(
        bssplit("4k/50:1k/:32k/", 1024),
        Ok(vec![(1024, 25), (32768, 25), (4096, 50)])
    );
    assert_eq!(
        bssplit("4k/50:8k/30:16k/20", 1024),
        Ok(vec![(16384, 20), (8192, 30), (4096, 50)])
    );
    // Rounded down; the draw gives the last entry what is left.
    assert_eq!(
        bssplit("4k:8k:16k", 1024),
        Ok(vec![(4096, 33), (8192, 33), (16384, 33)])
    );
    // 0 is missing to fio.
    assert_eq!(
        bssplit("4k/50:8k/0:16k/0", 1024),
        Ok(vec![(8192, 25), (16384, 25), (4096, 50)])
    );
    assert_eq!(bssplit("4k", 1024), Ok(vec![(4096, 100)]));
    assert!(bssplit("4k/60:8k/60", 1024)
        .unwrap_err()
        .contains("over 100"));
    assert!(bssplit("4k/60:8k/30", 1024)
        .unwrap_err()
        .contains("not 100"));
    assert!(bssplit("0/100", 1024).is_err());
}

#[test]
fn block_size_precedence_is_split_range_bs() {
    let mut s = Settings::defaults();
    set(&mut s, "bsrange", "4k-16k").unwrap();
    set(&mut s, "bs", "8k").unwrap();
    assert_eq!(
        s.resolve().unwrap().bs.read,
        BlockSize::Range {
            min: 4096,
            max: 16384
        }
    );
    set(&mut s, "bssplit", "4k/10:64k/90,8k").unwrap();
    let spec = s.resolve().unwrap();
    assert_eq!(
        spec.bs.read,
        BlockSize::Split(vec![(4096, 10), (65536, 90)])
    );
    assert_eq!(spec.bs.write, BlockSize::Split(vec![(8192, 100)]));
    assert_eq!(spec.bs.trim, BlockSize::Split(vec![(8192, 100)]));
}

#[test]
fn bs_per_direction() {
    let mut s = Settings::defaults();
    set(&mut s, "bs", "8k,32k,").unwrap();
    let spec = s.resolve().unwrap();
    assert_eq!(spec.bs.read, BlockSize::Fixed(8192));
    assert_eq!(spec.bs.write, BlockSize::Fixed(32768));
    assert_eq!(spec.bs.trim, BlockSize::Fixed(4096));
    assert!(set(&mut s, "bs", "4k-8k").unwrap_err().contains("bsrange"));
    assert!(set(&mut s, "bs", "0").is_err());
}

#[test]
fn derived_depths() {
    let mut s = Settings::defaults();
    set(&mut s, "iodepth", "32").unwrap();
    let spec = s.resolve().unwrap();
    assert_eq!(spec.iodepth_low, 32);
    assert_eq!(spec.iodepth_batch_complete_max, 1, "fio: complete_min");
    assert_eq!(spec.iodepth_batch_submit, 1);
    set(&mut s, "iodepth_low", "64").unwrap();
    set(&mut s, "iodepth_batch", "0").unwrap();
    let spec = s.resolve().unwrap();
    assert_eq!(spec.iodepth_low, 32);
    assert_eq!(spec.iodepth_batch_submit, 32);
    set(&mut s, "iodepth_batch_complete_max", "4").unwrap();
    set(&mut s, "iodepth_batch_complete_min", "8").unwrap();
    assert_eq!(s.resolve().unwrap().iodepth_batch_complete_max, 8);
    set(&mut s, "iodepth_batch_complete_max", "64").unwrap();
    assert_eq!(s.resolve().unwrap().iodepth_batch_complete_max, 64);
    assert!(set(&mut s, "iodepth", "0").unwrap_err().contains("minimum"));
}

#[test]
fn fixups_across_options() {
    let mut s = Settings::defaults();
    set(&mut s, "randseed", "42").unwrap();
    assert!(!s.resolve().unwrap().randrepeat);
    set(&mut s, "zero_buffers", "1").unwrap();
    assert!(!s.resolve().unwrap().scramble_buffers);
    set(&mut s, "scramble_buffers", "1").unwrap();
    assert!(s.resolve().unwrap().scramble_buffers);
    s.apply(find("time_based").unwrap(), None).unwrap();
    // fio drops time_based without a runtime and runs on the size.
    let dropped = s.resolve().unwrap();
    assert!(!dropped.time_based && dropped.misc.time_based_dropped);
    set(&mut s, "runtime", "10").unwrap();
    set(&mut s, "bs", "8k").unwrap();
    set(&mut s, "size", "4k").unwrap();
    assert!(s
        .resolve()
        .unwrap_err()
        .contains("smaller than the block size"));
}

#[test]
fn rw_modes() {
    assert_eq!(
        rw_mode("randread:8", 1024),
        Ok(RwMode {
            kind: RwKind::RandRead,
            nr: 8
        })
    );
    assert_eq!(
        rw_mode("readwrite", 1024),
        Ok(RwMode {
            kind: RwKind::ReadWrite,
            nr: 1
        })
    );
    assert_eq!(rw_mode("randtrim", 1024).unwrap().kind, RwKind::RandTrim);
    assert_eq!(rw_mode("trimwrite", 1024).unwrap().kind, RwKind::TrimWrite);
    assert_eq!(
        rw_mode("randtrimwrite", 1024).unwrap().kind,
        RwKind::RandTrimWrite
    );
    // A sequential pattern's suffix is a hole (Placement::seq_add).
    assert_eq!(rw_mode("read:4k", 1024).unwrap().nr, 1);
    assert_eq!(crate::options::seq_add("read:-8k", 1024), Ok(-8192));
    assert_eq!(crate::options::seq_add("write:112k", 1024), Ok(114688));
    assert_eq!(crate::options::seq_add("randread:8", 1024), Ok(0));
    assert!(rw_mode("randread:0", 1024).is_err());
    assert!(rw_mode("reed", 1024)
        .unwrap_err()
        .contains("expected one of"));
}

#[test]
fn mixes_and_flags() {
    let mut s = Settings::defaults();
    set(&mut s, "rwmixwrite", "30").unwrap();
    assert_eq!(s.spec.rwmixread, 70);
    assert!(set(&mut s, "rwmixread", "101")
        .unwrap_err()
        .contains("above 100"));
    set(&mut s, "buffered", "0").unwrap();
    assert!(s.spec.direct);
    s.apply(find("time_based").unwrap(), None).unwrap();
    assert!(s.spec.time_based);
    assert!(s.apply(find("direct").unwrap(), None).is_err());
    set(&mut s, "gtod_reduce", "1").unwrap();
    assert!(s.spec.disable_lat && s.spec.disable_clat && s.spec.disable_slat);
    assert!(s.spec.misc.disable_bw);
    assert!(!s.spec.clat_percentiles);
    // As fio: switching it off again leaves what it switched off.
    set(&mut s, "gtod_reduce", "0").unwrap();
    assert!(!s.spec.gtod_reduce && s.spec.disable_clat && s.spec.misc.disable_bw);
    assert!(set(&mut s, "iodepth", "4,8")
        .unwrap_err()
        .contains("one value"));
}

#[test]
fn engines() {
    let mut s = Settings::defaults();
    for name in [
        "sync", "psync", "pvsync2", "null", "libaio", "io_uring", "mmap", "nop",
    ] {
        set(&mut s, "ioengine", name).unwrap();
        assert_eq!(s.spec.ioengine.name(), name);
    }
    set(&mut s, "ioengine", "io_uring").unwrap();
    set(&mut s, "hipri", "1").unwrap();
    set(&mut s, "sqthread_poll", "1").unwrap();
    set(&mut s, "ioengine", "io_uring").unwrap();
    assert!(s.spec.hipri, "the same engine again keeps its options");
    set(&mut s, "ioengine", "psync").unwrap();
    assert!(!s.spec.hipri, "a new engine starts from its own defaults");
    assert_eq!(s.spec.engine_options, EngineOptions::default());
    set(&mut s, "ioengine", "dircreate").unwrap();
    assert_eq!(s.spec.ioengine, Backend::Dircreate);
    assert!(set(&mut s, "ioengine", "sg")
        .unwrap_err()
        .starts_with("ioengine=sg needs a SCSI generic device"));
    set(&mut s, "ioengine", "io_uring_cmd").unwrap();
    assert_eq!(s.spec.ioengine, Backend::IoUringCmd);
    // The list is the registry's, in its order.
    let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    assert_eq!(
        set(&mut s, "ioengine", "foo").unwrap_err(),
        format!(
            "unknown ioengine 'foo'; ioscope supports {}",
            names.join(", ")
        )
    );
    assert!(
        names.starts_with(&["sync", "psync", "vsync", "pvsync", "pvsync2", "null", "libaio"])
            && names.contains(&"nop")
            && names.ends_with(&["faulty", "xnvme"]),
        "{names:?}"
    );
}

#[test]
fn io_uring_values() {
    let mut s = Settings::defaults();
    set(&mut s, "ioengine", "io_uring").unwrap();
    let nonvectored = |s: &mut Settings, v: &str| {
        set(s, "nonvectored", v).map(|()| s.spec.engine_options.nonvectored)
    };
    assert_eq!(s.spec.engine_options.nonvectored, None, "fio: -1, detect");
    assert_eq!(nonvectored(&mut s, "0"), Ok(Some(false)));
    assert_eq!(nonvectored(&mut s, "1"), Ok(Some(true)));
    // fio tests the value for non-zero.
    assert_eq!(nonvectored(&mut s, "2"), Ok(Some(true)));
    assert_eq!(nonvectored(&mut s, "-1"), Ok(None));
    assert!(nonvectored(&mut s, "-2")
        .unwrap_err()
        .contains("expected -1"));
    assert!(nonvectored(&mut s, "-").is_err());
    assert!(nonvectored(&mut s, "yes").is_err());
    set(&mut s, "uncached", "2").unwrap();
    assert!(s.spec.engine_options.uncached, "fio: any value but 0");
    set(&mut s, "uncached", "0").unwrap();
    assert!(!s.spec.engine_options.uncached);
    assert!(set(&mut s, "uncached", "-1").is_err());
    set(&mut s, "count_punts", "1").unwrap();
    assert!(s.spec.engine_options.count_punts);
    assert!(set(&mut s, "count_punts", "2").is_err());
    set(&mut s, "force_async", "4").unwrap();
    assert_eq!(s.spec.engine_options.force_async, 4);
    assert!(set(&mut s, "force_async", "-1").is_err());
    // fio's "empty or boolean" options take any number, 0 being off.
    set(&mut s, "sqthread_poll", "2").unwrap();
    assert!(s.spec.engine_options.sqthread_poll);
    set(&mut s, "sqthread_poll", "0").unwrap();
    assert!(!s.spec.engine_options.sqthread_poll);
    assert!(set(&mut s, "sqthread_poll", "yes").is_err());
    // nowait takes a value in fio (a bool, not a flag).
    assert!(s.apply(find("nowait").unwrap(), None).is_err());
    s.apply(find("fixedbufs").unwrap(), None).unwrap();
    assert!(s.spec.engine_options.fixedbufs);
}

#[test]
fn sqthread_poll_cpu_needs_sqthread_poll() {
    let mut s = Settings::defaults();
    set(&mut s, "ioengine", "io_uring").unwrap();
    set(&mut s, "sqthread_poll_cpu", "3").unwrap();
    assert_eq!(
        s.resolve().unwrap_err(),
        "sqthread_poll_cpu=3 needs sqthread_poll (without it there is no SQ thread to place)"
    );
    set(&mut s, "sqthread_poll", "1").unwrap();
    let spec = s.resolve().unwrap();
    assert_eq!(spec.engine_options.sqthread_poll_cpu, Some(3));
    assert!(spec.engine_options.sqthread_poll);
}

#[test]
fn verify_derivations_follow_fio() {
    let mut s = Settings::defaults();
    set(&mut s, "rw", "randwrite").unwrap();
    set(&mut s, "bsrange", "4k-16k").unwrap();
    set(&mut s, "verify", "crc32c").unwrap();
    let v = s.resolve().unwrap().verify;
    assert_eq!(v.method, VerifyMethod::Crc32c);
    assert_eq!(v.interval, 4096, "gcd of the smallest and largest write");
    assert!(v.do_verify && v.state_save);
    set(&mut s, "verify_interval", "512").unwrap();
    assert_eq!(s.resolve().unwrap().verify.interval, 512);
    set(&mut s, "verify_interval", "3k").unwrap();
    assert_eq!(
        s.resolve().unwrap().verify.interval,
        4096,
        "3k divides neither"
    );
    set(&mut s, "verify_offset", "4k").unwrap();
    assert!(s.resolve().unwrap_err().contains("verify_offset"));
    // fio 3.33's least: its header's 40 bytes, a given 0 too.
    for below in ["0", "39"] {
        let e = set(&mut s, "verify_offset", below).unwrap_err();
        assert!(e.contains("below the minimum of 40"), "{e}");
    }
    set(&mut s, "verify_offset", "40").unwrap();
    set(&mut s, "verify_offset", "64").unwrap();
    set(&mut s, "verify_backlog", "16").unwrap();
    let v = s.resolve().unwrap().verify;
    assert_eq!((v.offset, v.backlog, v.backlog_batch), (64, 16, 16));

    let mut s = Settings::defaults();
    set(&mut s, "rw", "write").unwrap();
    set(&mut s, "verify_pattern", "0xaa%o").unwrap();
    let v = s.resolve().unwrap().verify;
    assert_eq!(
        v.method,
        VerifyMethod::PatternHdr,
        "fio: a pattern alone means VERIFY_PATTERN, the pattern with headers"
    );
    assert_eq!(v.pattern.unwrap().offsets, [1]);
    set(&mut s, "verify", "md5").unwrap();
    assert_eq!(s.resolve().unwrap().verify.method, VerifyMethod::Md5);
    set(&mut s, "verify", "pattern").unwrap();
    assert_eq!(s.resolve().unwrap().verify.method, VerifyMethod::Pattern);
    set(&mut s, "verify", "pattern_hdr").unwrap();
    assert_eq!(s.resolve().unwrap().verify.method, VerifyMethod::PatternHdr);

    for method in ["pattern", "pattern_hdr"] {
        let mut s = Settings::defaults();
        set(&mut s, "verify", method).unwrap();
        set(&mut s, "rw", "write").unwrap();
        assert_eq!(
            s.resolve().unwrap_err(),
            format!("verify={method} needs verify_pattern")
        );
    }
    let mut s = Settings::defaults();
    set(&mut s, "verify_backlog", "8").unwrap();
    assert!(s
        .resolve()
        .unwrap_err()
        .contains("verify_backlog needs verify"));
    set(&mut s, "verify", "md5").unwrap();
    assert!(
        s.resolve().is_ok(),
        "a read job checks what an earlier job wrote"
    );
    set(&mut s, "verify_only", "1").unwrap();
    assert!(
        s.resolve().is_ok(),
        "verify_only reads what was written before"
    );
    assert!(set(&mut s, "verify", "sha3-1024")
        .unwrap_err()
        .contains("expected one of"));
    for (name, method) in [
        ("crc16", VerifyMethod::Crc16),
        ("crc7", VerifyMethod::Crc7),
        ("sha3-224", VerifyMethod::Sha3_224),
        ("sha3-512", VerifyMethod::Sha3_512),
    ] {
        set(&mut s, "verify", name).unwrap();
        assert_eq!(s.resolve().unwrap().verify.method, method, "{name}");
        assert_eq!(method.name(), name);
    }
}

#[test]
fn continue_and_ignore_error() {
    let mut s = Settings::defaults();
    let e = s.resolve().unwrap().errors;
    assert!(!e.any() && !e.tolerates(ErrorClass::Read, libc::EIO));
    set(&mut s, "continue_on_error", "io").unwrap();
    let e = s.resolve().unwrap().errors;
    assert!(e.tolerates(ErrorClass::Read, libc::EIO));
    assert!(e.tolerates(ErrorClass::Write, libc::EILSEQ));
    assert!(
        !e.tolerates(ErrorClass::Write, libc::ENOSPC),
        "fio's default list"
    );
    assert!(!e.tolerates(ErrorClass::Verify, libc::EILSEQ));
    // fio: a list replaces the default and turns the class on.
    set(&mut s, "ignore_error", ",ENOSPC:122,EILSEQ").unwrap();
    let e = s.resolve().unwrap().errors;
    assert!(e.tolerates(ErrorClass::Write, libc::ENOSPC));
    assert!(e.tolerates(ErrorClass::Write, 122));
    assert!(!e.tolerates(ErrorClass::Write, libc::EIO));
    assert!(e.tolerates(ErrorClass::Verify, libc::EILSEQ));
    assert!(
        e.tolerates(ErrorClass::Read, libc::EIO),
        "an empty list keeps the default"
    );
    set(&mut s, "continue_on_error", "none").unwrap();
    assert!(!s.resolve().unwrap().errors.any());
    assert!(set(&mut s, "ignore_error", "EBOGUS")
        .unwrap_err()
        .contains("EBOGUS"));
    assert!(set(&mut s, "ignore_error", "a,b,c,d").is_err());
    assert_eq!(errno_name(libc::ENOSPC), Some("ENOSPC"));
}

#[test]
fn compression_and_dedupe_refill_unless_told_otherwise() {
    let mut s = Settings::defaults();
    set(&mut s, "buffer_compress_percentage", "50").unwrap();
    assert!(s.resolve().unwrap().refill_buffers);
    set(&mut s, "refill_buffers", "0").unwrap();
    assert!(!s.resolve().unwrap().refill_buffers);
    let mut s = Settings::defaults();
    set(&mut s, "buffer_compress_percentage", "100").unwrap();
    assert!(!s.resolve().unwrap().refill_buffers);
    set(&mut s, "dedupe_percentage", "10").unwrap();
    assert!(s.resolve().unwrap().refill_buffers);
    // 0 is fio's "a chunk of the smallest write".
    set(&mut s, "buffer_compress_chunk", "0").unwrap();
    assert_eq!(s.spec.buffer_compress_chunk, 0);
    set(&mut s, "buffer_pattern", "\"ab\"%o").unwrap();
    assert_eq!(s.spec.buffer_pattern.as_ref().unwrap().bytes.len(), 10);
}

#[test]
fn faulty_engine_options() {
    let mut s = Settings::defaults();
    assert!(
        set(&mut s, "fault", "drop").is_ok(),
        "the table checks engines, not apply"
    );
    set(&mut s, "ioengine", "faulty").unwrap();
    set(&mut s, "fault", "torn").unwrap();
    set(&mut s, "fault_rate", "0.5").unwrap();
    set(&mut s, "fault_engine", "io_uring").unwrap();
    let e = s.resolve().unwrap().engine_options;
    assert_eq!(e.fault, Some(InjectedFault::Torn));
    assert_eq!(e.fault_rate_micro, Some(500_000));
    assert_eq!(e.fault_engine, Some(Backend::IoUring));
    assert!(set(&mut s, "fault_rate", "101").is_err());
    assert!(set(&mut s, "fault_engine", "faulty").is_err());
}

#[test]
fn ramp_size_is_a_size_of_at_least_one_byte() {
    let mut s = Settings::defaults();
    assert_eq!(s.spec.ramp_size, 0);
    set(&mut s, "ramp_size", "1m").unwrap();
    assert_eq!(s.spec.ramp_size, 1 << 20);
    set(&mut s, "kb_base", "1000").unwrap();
    set(&mut s, "ramp_size", "4k").unwrap();
    assert_eq!(s.spec.ramp_size, 4000);
    // fio's minval is 1: 0 does not mean "no ramp".
    assert!(set(&mut s, "ramp_size", "0").is_err());
    assert!(set(&mut s, "ramp_size", "10%").is_err());
}

#[test]
fn times_default_to_seconds() {
    let mut s = Settings::defaults();
    set(&mut s, "runtime", "1m").unwrap();
    set(&mut s, "ramp_time", "5").unwrap();
    set(&mut s, "startdelay", "5-10").unwrap();
    assert_eq!(s.spec.runtime, Some(Duration::from_secs(60)));
    assert_eq!(s.spec.ramp_time, Duration::from_secs(5));
    assert_eq!(
        s.spec.startdelay,
        (Duration::from_secs(5), Duration::from_secs(10))
    );
    set(&mut s, "runtime", "0").unwrap();
    assert_eq!(s.spec.runtime, None);
}

#[test]
fn sizes_use_the_current_kb_base() {
    let mut s = Settings::defaults();
    set(&mut s, "kb_base", "1000").unwrap();
    set(&mut s, "size", "1k").unwrap();
    assert_eq!(s.spec.size, Some(SizeSpec::Bytes(1000)));
    set(&mut s, "offset", "25%").unwrap();
    assert_eq!(s.spec.offset, SizeSpec::Percent(25.0));
    assert!(set(&mut s, "kb_base", "512").is_err());
    set(&mut s, "size", "0").unwrap();
    set(&mut s, "io_size", "0").unwrap();
    assert_eq!((s.spec.size, s.spec.io_size), (None, None));
    set(&mut s, "filesize", "1k-4k").unwrap();
    assert_eq!(s.spec.filesize, Some((1000, 4000)));
}
