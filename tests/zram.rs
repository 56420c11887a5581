//! Jobs on a real block device: /dev/zram0, set up for each test and reset
//! after. Skipped (with the reason printed) where zram0 does not exist or the
//! tests do not run as root.

mod common;

use common::{ioscope, job, u, Mounted, Zram};
use ioscope_testutil::require;

const SECTOR: u64 = 512;

fn assert_disk_util_names_zram0(v: &serde_json::Value) {
    let du = v["disk_util"]
        .as_array()
        .unwrap_or_else(|| panic!("no disk_util array: {v:#}"));
    assert!(
        du.iter().any(|e| e["name"] == "zram0"),
        "disk_util does not name zram0: {du:?}"
    );
}

#[test]
fn direct_write_then_read() {
    let z = require!(Zram::acquire());
    let (r0, w0) = z.sectors();
    let v = ioscope(z.job_args("w", "write", &["--bs=64k", "--size=16m", "--direct=1"]))
        .run()
        .ok_json();
    let w = &job(&v, "w")["write"];
    assert_eq!(u(w, "io_bytes"), 16 << 20);
    assert_eq!(u(w, "total_ios"), 256);
    assert_disk_util_names_zram0(&v);
    let (_, w1) = z.sectors();
    assert!(
        (w1 - w0) * SECTOR >= 16 << 20,
        "the device saw {} bytes written, not 16 MiB",
        (w1 - w0) * SECTOR
    );
    // disk_util's write_sectors (fio 3.42) counts the same sectors.
    let zram = v["disk_util"]
        .as_array()
        .and_then(|du| du.iter().find(|e| e["name"] == "zram0"))
        .unwrap();
    assert!(
        u(zram, "write_sectors") * SECTOR >= 16 << 20 && u(zram, "write_sectors") <= w1 - w0,
        "write_sectors {} for 16 MiB written ({} sectors on the device)",
        zram["write_sectors"],
        w1 - w0
    );

    let v = ioscope(z.job_args("r", "randread", &["--bs=4k", "--size=8m", "--direct=1"]))
        .run()
        .ok_json();
    let r = &job(&v, "r")["read"];
    assert_eq!(u(r, "io_bytes"), 8 << 20);
    assert_eq!(u(r, "total_ios"), 2048);
    assert_disk_util_names_zram0(&v);
    let (r1, _) = z.sectors();
    assert!(
        (r1 - r0) * SECTOR >= 8 << 20,
        "O_DIRECT reads did not reach the device: {} bytes read there",
        (r1 - r0) * SECTOR
    );
}

#[test]
fn buffered_write_then_read() {
    let z = require!(Zram::acquire());
    let v = ioscope(z.job_args("bw", "write", &["--bs=4k", "--size=8m"]))
        .run()
        .ok_json();
    assert_eq!(u(&job(&v, "bw")["write"], "io_bytes"), 8 << 20);
    assert_disk_util_names_zram0(&v);

    let v = ioscope(z.job_args("br", "read", &["--bs=16k", "--size=8m", "--offset=4m"]))
        .run()
        .ok_json();
    let r = &job(&v, "br")["read"];
    assert_eq!(u(r, "io_bytes"), 8 << 20);
    assert_eq!(u(r, "total_ios"), 512);
    assert_disk_util_names_zram0(&v);
}

#[test]
fn whole_device_when_no_size_is_given() {
    // fio's default size for a block device is the whole device.
    let z = require!(Zram::acquire());
    let v = ioscope(z.job_args("all", "read", &["--bs=1m", "--direct=1"]))
        .run()
        .ok_json();
    let r = &job(&v, "all")["read"];
    assert_eq!(u(r, "io_bytes"), common::Zram::SIZE);
    assert_eq!(u(r, "total_ios"), common::Zram::SIZE >> 20);
}

#[test]
fn unaligned_direct_io_is_refused_before_the_run() {
    let z = require!(Zram::acquire());
    let before = z.sectors();
    let r = ioscope(z.job_args("odd", "write", &["--bs=1000", "--size=1m", "--direct=1"])).run();
    let err = r.assert_refused();
    let low = err.to_lowercase();
    assert!(
        (low.contains("align") || low.contains("multiple of")) && low.contains("direct"),
        "the message does not say O_DIRECT needs an aligned block size: {}",
        r.describe()
    );
    assert!(
        err.contains("1000") || err.contains("bs"),
        "{}",
        r.describe()
    );
    r.assert_nothing_done();
    assert_eq!(
        z.sectors(),
        before,
        "I/O reached the device before the refusal"
    );
}

#[test]
fn write_to_a_mounted_device_is_refused() {
    let z = require!(Zram::acquire());
    let m = require!(Mounted::ext4(&z.dev));
    let sentinel = m.dir.path().join("keep");
    std::fs::write(&sentinel, b"still here").unwrap();

    let r = ioscope(z.job_args("clobber", "write", &["--bs=4k", "--size=1m"])).run();
    let err = r.assert_refused();
    assert!(
        err.contains("mounted") && err.contains("allow_mounted_write"),
        "the refusal does not say the device is mounted and how to override: {}",
        r.describe()
    );
    r.assert_nothing_done();

    // Reading a mounted device is harmless, and allowed (as in fio).
    let v = ioscope(z.job_args("peek", "read", &["--bs=4k", "--size=1m"]))
        .run()
        .ok_json();
    assert_eq!(u(&job(&v, "peek")["read"], "io_bytes"), 1 << 20);

    assert_eq!(std::fs::read(&sentinel).unwrap(), b"still here");
    drop(m); // unmount before zram0 is reset
}
