//! Never harm what the user did not name: a block device that holds a
//! filesystem or a partition table is not written without
//! allow_signature_write=1, and `--readonly` refuses every job that would
//! change a target. The device tests use /dev/zram0 and skip, saying why,
//! where it or mkfs.ext4 is missing.

mod common;

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::process::{Command, Stdio};

use common::{ioscope, job, tempdir, u, Zram};
use ioscope_testutil::{program, require};

/// A 1 MiB psync job on the zram device, with JSON output.
fn dev_job(z: &Zram, name: &str, rw: &str, extra: &[&str]) -> Vec<String> {
    let mut a = z.job_args(name, rw, &["--bs=4k", "--size=1m"]);
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// `len` bytes of the device at `offset`, read past any cache ioscope left.
fn device_bytes(z: &Zram, offset: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0; len];
    File::open(&z.dev)
        .unwrap()
        .read_exact_at(&mut buf, offset)
        .unwrap();
    buf
}

/// Writes `bytes` at `offset` of the device, as a partitioning tool would.
fn write_device(z: &Zram, offset: u64, bytes: &[u8]) {
    let dev = OpenOptions::new().write(true).open(&z.dev).unwrap();
    dev.write_all_at(bytes, offset).unwrap();
    dev.sync_all().unwrap();
}

const EXT_MAGIC: [u8; 2] = [0x53, 0xEF];

#[test]
fn a_device_holding_ext4_is_not_written_unless_allowed() {
    let z = require!(Zram::acquire());
    let mkfs = require!(program("mkfs.ext4"));
    let o = Command::new(mkfs)
        .args(["-q", "-F"])
        .arg(&z.dev)
        .stdin(Stdio::null())
        .output()
        .expect("cannot run mkfs.ext4");
    assert!(
        o.status.success(),
        "mkfs.ext4 failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(device_bytes(&z, 1080, 2), EXT_MAGIC);
    let superblock = device_bytes(&z, 0, 4096);
    let (_, written) = z.sectors();

    let r = ioscope(dev_job(&z, "clobber", "write", &[])).run();
    let err = r.assert_refused();
    assert!(
        err.contains(z.path())
            && err.contains("ext4 filesystem")
            && err.contains("allow_signature_write=1"),
        "the refusal does not name the device, what it holds and the option: {}",
        r.describe()
    );
    r.assert_nothing_done();
    assert_eq!(
        z.sectors().1,
        written,
        "the refused job wrote to the device"
    );
    assert_eq!(
        device_bytes(&z, 0, 4096),
        superblock,
        "the filesystem's first block changed"
    );

    // Reading cannot harm it.
    let v = ioscope(dev_job(&z, "peek", "read", &[])).run().ok_json();
    assert_eq!(u(&job(&v, "peek")["read"], "io_bytes"), 1 << 20);

    // Asked for by name, the write runs, and the filesystem is gone.
    let v = ioscope(dev_job(
        &z,
        "clobber",
        "write",
        &["--allow_signature_write=1"],
    ))
    .run()
    .ok_json();
    assert_eq!(u(&job(&v, "clobber")["write"], "io_bytes"), 1 << 20);
    assert_ne!(device_bytes(&z, 1080, 2), EXT_MAGIC);
}

/// One Linux partition from sector 2048, and the boot signature.
fn mbr() -> Vec<u8> {
    let mut s = vec![0u8; 512];
    s[446 + 4] = 0x83;
    s[446 + 8..446 + 12].copy_from_slice(&2048u32.to_le_bytes());
    s[446 + 12..446 + 16].copy_from_slice(&4096u32.to_le_bytes());
    s[510] = 0x55;
    s[511] = 0xAA;
    s
}

#[test]
fn a_device_holding_a_partition_table_is_not_written() {
    let z = require!(Zram::acquire());
    write_device(&z, 0, &mbr());
    let r = ioscope(dev_job(&z, "clobber", "randwrite", &["--direct=1"])).run();
    let err = r.assert_refused();
    assert!(
        err.contains(z.path()) && err.contains("DOS/MBR partition table"),
        "{}",
        r.describe()
    );
    assert_eq!(device_bytes(&z, 0, 512), mbr());

    // A GPT header after the MBR (its protective MBR) makes it a GPT disk.
    write_device(&z, 512, b"EFI PART");
    let r = ioscope(dev_job(&z, "clobber", "trim", &[])).run();
    let err = r.assert_refused();
    assert!(
        err.contains(z.path()) && err.contains("GPT partition table"),
        "a trim destroys the table as a write does: {}",
        r.describe()
    );
    assert_eq!(device_bytes(&z, 512, 8), b"EFI PART");
}

#[test]
fn an_empty_device_is_written_without_asking() {
    let z = require!(Zram::acquire());
    let v = ioscope(dev_job(&z, "w", "write", &[])).run().ok_json();
    assert_eq!(u(&job(&v, "w")["write"], "io_bytes"), 1 << 20);
}

/// A file job under `--readonly`, with JSON output, in `dir`.
fn readonly_job(name: &str, rw: &str, file: &str) -> Vec<String> {
    vec![
        "--readonly".into(),
        "--output-format=json".into(),
        "--ioengine=psync".into(),
        "--bs=4k".into(),
        "--size=1m".into(),
        format!("--name={name}"),
        format!("--filename={file}"),
        format!("--rw={rw}"),
    ]
}

#[test]
fn readonly_refuses_a_write_job_before_it_touches_the_file() {
    let d = tempdir();
    let path = d.path().join("data");
    let r = ioscope(readonly_job("w", "write", "data"))
        .dir(d.path())
        .run();
    let err = r.assert_refused();
    assert!(
        err.contains("job 'w'") && err.contains("writes (rw=write)") && err.contains("--readonly"),
        "{}",
        r.describe()
    );
    assert!(!path.exists(), "the refused job created its file");

    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    ioscope(readonly_job("w", "randrw", "data"))
        .dir(d.path())
        .run()
        .assert_refused();
    assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 1 << 20]);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn readonly_runs_a_read_job() {
    let d = tempdir();
    let path = d.path().join("data");
    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    let v = ioscope(readonly_job("r", "randread", "data"))
        .dir(d.path())
        .run()
        .ok_json();
    assert_eq!(u(&job(&v, "r")["read"], "io_bytes"), 1 << 20);
    assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn readonly_refuses_a_trim_job() {
    let d = tempdir();
    let path = d.path().join("data");
    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    let r = ioscope(readonly_job("t", "trim", "data"))
        .dir(d.path())
        .run();
    let err = r.assert_refused();
    assert!(
        err.contains("job 't'") && err.contains("trims (rw=trim)"),
        "{}",
        r.describe()
    );
    assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn readonly_refuses_the_run_before_an_earlier_read_job_lays_out_its_file() {
    let d = tempdir();
    let mut a = readonly_job("r", "read", "first");
    a.extend(["--name=w", "--filename=second", "--rw=write"].map(String::from));
    let r = ioscope(a).dir(d.path()).run();
    let err = r.assert_refused();
    assert!(err.contains("job 'w'"), "{}", r.describe());
    assert!(
        !d.path().join("first").exists(),
        "the read job's file was laid out before the refusal: {}",
        r.describe()
    );
}
