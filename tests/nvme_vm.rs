//! NVMe passthrough end to end, in a QEMU guest with an emulated NVMe
//! controller (../shared/nvme-vm/run-in-nvme-vm.sh): `ioscope info`, reads
//! and writes through io_uring_cmd with their data checked against dd on the
//! block device, Write Zeroes with and without DEAC, polled passthrough,
//! Dataset Management deallocation (rw=trim, randtrim; several ranges per
//! command with num_range), fixed buffers,
//! registered files, SQ polling, a device error named by its
//! NVMe status, and the refusals made before a run. One guest per LBA size
//! runs every check (tests/nvme_vm/checks.sh), so the lane is two boots;
//! a third runs the xnvme post's job files (tests/nvme_vm/xnvme.sh).
//!
//! Skips (`SKIP <test>: <reason>`, strict mode or not) where the harness is
//! missing or cannot boot a guest (it exits 125), so `cargo test
//! --workspace` passes on any machine.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use ioscope_testutil::{nvme_guest, require, skip, test_name, Missing};

/// The engine example cargo test builds beside the binary, if it did
/// (`cargo test --workspace` does; `cargo test --test nvme_vm` does not).
/// Without it the guest skips its checks and says so (CHECK-SKIPPED).
fn example(name: &str) -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_BIN_EXE_ioscope"));
    let path = bin.parent()?.join("examples").join(name);
    path.is_file().then_some(path)
}

/// The harness exits 125 when it could not boot a guest at all.
fn not_booted(stderr: &str) -> Missing {
    Missing::soft(format!(
        "the nvme-vm harness could not boot a guest (exit 125): {}",
        tail(stderr, 3).replace('\n', " | ")
    ))
}

/// Boots one guest with namespaces of `lba` bytes per block, runs the
/// checks there and asserts that each passed.
fn run_checks(lba: u32) {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let mut files = vec![(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvme_vm/checks.sh"),
        "checks.sh",
    )];
    files.extend(example("nvme_read").map(|path| (path, "nvme_read")));
    let lba_size = lba.to_string();
    let env = [
        ("NVME_VM_LBA_SIZE", lba_size.as_str()),
        ("NVME_VM_TIMEOUT", "400"),
    ];
    let Some(stdout) = in_guest(&script, &files, &format!("sh checks.sh {lba}"), &env) else {
        return;
    };
    // Checks the guest could not make (the example was not in the payload).
    for why in stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CHECK-SKIPPED "))
    {
        ioscope_testutil::report(&test_name(module_path!()), &Missing::soft(why));
    }
    let checks = passed_checks(&stdout);
    assert!(
        checks.len() >= 40,
        "LBA {lba}: only {} checks ran",
        checks.len()
    );
    eprintln!("LBA {lba}: {} checks passed", checks.len());
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Boots a guest (the harness `script`) with ioscope and `files` (path,
/// name in the payload) in its payload, the harness settings `env`, runs
/// `command` in /payload and returns the console; None (after the skip
/// line) when no guest could boot. Any other failure fails the test.
fn in_guest(
    script: &Path,
    files: &[(PathBuf, &str)],
    command: &str,
    env: &[(&str, &str)],
) -> Option<String> {
    let payload = tempfile::tempdir().expect("temporary payload directory");
    let ioscope = (
        Path::new(env!("CARGO_BIN_EXE_ioscope")).to_path_buf(),
        "ioscope",
    );
    for (from, name) in std::iter::once(&ioscope).chain(files) {
        std::fs::copy(from, payload.path().join(name))
            .unwrap_or_else(|e| panic!("cannot copy {} into the payload: {e}", from.display()));
    }
    let out = Command::new("bash")
        .arg(script)
        .arg(payload.path())
        .arg(format!("cd /payload && {command}"))
        .env("NVME_VM_TIMEOUT", "300")
        .envs(env.iter().copied())
        .output()
        .expect("cannot run the nvme-vm harness");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    match out.status.code() {
        Some(125) => {
            ioscope_testutil::report(
                &test_name(module_path!()),
                &not_booted(&String::from_utf8_lossy(&out.stderr)),
            );
            None
        }
        Some(0) => Some(stdout),
        other => panic!("the guest run failed ({other:?}):\n{}", tail(&stdout, 30)),
    }
}

/// The `CHECK name ok|FAIL: why` lines of a guest script that printed
/// CHECKS-DONE; fails the test on any FAIL.
fn passed_checks(stdout: &str) -> Vec<&str> {
    assert!(
        stdout.lines().any(|l| l.trim() == "CHECKS-DONE"),
        "the checks did not finish:\n{}",
        tail(stdout, 30)
    );
    let checks: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CHECK "))
        .collect();
    let failed: Vec<&&str> = checks.iter().filter(|c| !c.ends_with(" ok")).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    checks
}

/// Polled passthrough on a controller without poll queues would fail every
/// I/O: the job must be refused before it runs, saying why.
#[test]
fn hipri_without_poll_queues_is_refused_before_the_run() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let out = Command::new("bash")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_ioscope"))
        .arg(
            "ioscope --name=h --ioengine=io_uring_cmd --filename=/dev/ng0n1 \
             --rw=randread --size=1m --hipri; echo exit=$?",
        )
        .env("NVME_VM_POLL_QUEUES", "0")
        .env("NVME_VM_TIMEOUT", "300")
        .output()
        .expect("cannot run the nvme-vm harness");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(125) {
        skip!(not_booted(&String::from_utf8_lossy(&out.stderr)));
    }
    assert!(
        stdout.contains("hipri=1 cannot poll")
            && stdout.contains("io_poll is 0")
            && stdout.contains("exit=1"),
        "{}",
        tail(&stdout, 20)
    );
}

/// The job files of "xNVMe ioengine Part 2", every section with the post's
/// filename, each on the backend its xNVMe interface maps to
/// (tests/nvme_vm/xnvme.sh), and xNVMe's defaults (emu on NVMe ioctls).
#[test]
fn xnvme_post_jobs_run_on_their_backends() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        (root.join("tests/nvme_vm/xnvme.sh"), "xnvme.sh"),
        (
            root.join("tests/data/xnvme-compare1.fio"),
            "xnvme-compare1.fio",
        ),
        (
            root.join("tests/data/xnvme-compare2.fio"),
            "xnvme-compare2.fio",
        ),
    ];
    let Some(stdout) = in_guest(&script, &files, "sh xnvme.sh", &[]) else {
        return;
    };
    // Nine sections of the two files, the defaults and the nsid refusal.
    let checks = passed_checks(&stdout);
    assert_eq!(checks.len(), 11, "{checks:#?}");
}

/// Protection information on two namespaces formatted with it (separate
/// metadata with a 16-bit guard, extended LBAs with a 64-bit guard;
/// tests/nvme_vm/pi.sh): `ioscope info` names both, the host's protection
/// information passes the
/// controller's checks, a wrong application tag or guard fails them, and
/// fio's refusals. (Checked by hand against fio 3.42 in the same guest:
/// each tool reads back with its own checks what the other wrote.)
#[test]
fn protection_information_passes_the_controllers_checks() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [(root.join("tests/nvme_vm/pi.sh"), "pi.sh")];
    let images = tempfile::tempdir().expect("a directory for the images");
    let mut args = String::new();
    let formats = [
        (2, "ms=16,mset=0,pi=1,pil=0"),
        (3, "ms=16,mset=1,pi=3,pil=1,pif=2"),
    ];
    for (nsid, format) in formats {
        let image = images.path().join(format!("pi{nsid}.img"));
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(64 << 20))
            .expect("a sparse image");
        args.push_str(&format!(
            " -drive file={},if=none,id=pi{nsid},format=raw \
             -device nvme-ns,drive=pi{nsid},bus=nvme0,nsid={nsid},{format}",
            image.display()
        ));
    }
    let env = [("NVME_VM_QEMU_ARGS", args.as_str())];
    let Some(stdout) = in_guest(&script, &files, "sh pi.sh", &env) else {
        return;
    };
    let checks = passed_checks(&stdout);
    assert_eq!(checks.len(), 18, "{checks:#?}");
}

/// io_uring_cmd's `verify_mode=compare` (fio 3.42; tests/nvme_vm/verify_mode.sh):
/// the verify phase's checks go as NVMe Compares of each block with
/// `verify_pattern` (random order at depth, `%o`, `verify_backlog`,
/// trimmed blocks against zeroes, a mixed workload); blocks that hold
/// another pattern, or one block overwritten behind the job's back, fail
/// with err=84 and exit 1 as a read the host checks does, each block
/// counted as checked. Where the guest's fio has verify_mode (run with
/// `NVME_VM_HOST_BINS=/path/to/fio-3.42/fio`), fio runs the same jobs and
/// each tool checks with Compares what the other wrote. Checked so against
/// fio 3.42: it passes and fails the same jobs, but reports the failure
/// as an I/O error (err=645, the NVMe status 0x285, "cq entry status
/// (sct=0x02; sc=0x85)"), which continue_on_error=verify does not cover.
#[test]
fn verify_mode_compare_checks_in_the_device() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [(root.join("tests/nvme_vm/verify_mode.sh"), "verify_mode.sh")];
    let Some(stdout) = in_guest(&script, &files, "sh verify_mode.sh", &[]) else {
        return;
    };
    let without_fio = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CHECK-SKIPPED "))
        .inspect(|why| ioscope_testutil::report(&test_name(module_path!()), &Missing::soft(*why)))
        .count()
        > 0;
    let checks = passed_checks(&stdout);
    let want = if without_fio { 9 } else { 14 };
    assert_eq!(checks.len(), want, "{checks:#?}");
}

/// io_uring_cmd's `write_mode=verify` and `uncor`, and a newer fio's mix
/// of commands drawn per write: what each leaves on the namespace, and
/// the mix block for block as fio leaves it (tests/nvme_vm/write_mode.sh).
#[test]
fn write_modes_send_their_commands_as_fio() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [(root.join("tests/nvme_vm/write_mode.sh"), "write_mode.sh")];
    let Some(stdout) = in_guest(&script, &files, "sh write_mode.sh", &[]) else {
        return;
    };
    assert_eq!(passed_checks(&stdout).len(), 8);
}

/// What `verify_mode=compare` needs is refused before the run, on any
/// machine: verify=pattern with verify_pattern (fio's HOWTO says so; fio
/// does not check, and its Compare of a crc32c or pattern_hdr block fails
/// good blocks),
/// and ioengine=io_uring_cmd, whose option it is.
#[test]
fn verify_mode_compare_is_refused_without_a_pattern_or_passthrough() {
    let dir = common::tempdir();
    let base = [
        "--parse-only",
        "--name=c",
        "--filename=/dev/ng0n1",
        "--rw=write",
        "--size=1m",
    ];
    let uring_cmd = "--ioengine=io_uring_cmd";
    let compare = "--verify_mode=compare";
    let err = common::refusal(dir.path(), &base, &[uring_cmd, "--verify=crc32c", compare]);
    assert!(
        err.contains(
            "job 'c': verify_mode=compare is only valid with verify=pattern and verify_pattern"
        ) && err.contains("verify=crc32c has none"),
        "{err}"
    );
    let err = common::refusal(dir.path(), &base, &[uring_cmd, compare]);
    assert!(err.contains("verify=0 has none"), "{err}");
    let err = common::refusal(
        dir.path(),
        &base,
        &["--ioengine=libaio", "--verify_pattern=0xaa", compare],
    );
    assert!(
        err.contains("'verify_mode' is an option of ioengine=io_uring_cmd, but ioengine=libaio is in effect here"),
        "{err}"
    );
    // In a job file the place is the section's line (the checks across
    // options come once the section is read) or, for another engine, the
    // option's own.
    let job = common::write_file(
        dir.path(),
        "c.fio",
        "[c]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nrw=write\nsize=1m\n\
         verify=md5\nverify_mode=compare\n",
    );
    let err = common::refusal(dir.path(), &["--parse-only"], &[job.to_str().unwrap()]);
    assert!(
        err.contains("c.fio:1: job 'c': verify_mode=compare"),
        "{err}"
    );
    let job = common::write_file(
        dir.path(),
        "d.fio",
        "[d]\nfilename=/dev/ng0n1\nrw=write\nsize=1m\nverify_pattern=0xaa\nverify_mode=compare\n",
    );
    let err = common::refusal(dir.path(), &["--parse-only"], &[job.to_str().unwrap()]);
    assert!(
        err.contains(
            "d.fio:6: 'verify_mode' is an option of ioengine=io_uring_cmd, but ioengine=psync"
        ),
        "{err}"
    );
    for pattern in [
        "--verify=pattern --verify_pattern=0xaa",
        "--verify=pattern --verify_pattern=%o",
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.extend([uring_cmd, compare]);
        args.extend(pattern.split(' '));
        common::ioscope(&args).dir(dir.path()).run().assert_ok();
    }
    // A pattern alone is fio's pattern with headers (verify=pattern_hdr),
    // whose Compare fio fills with headers made anew: refused.
    let err = common::refusal(
        dir.path(),
        &base,
        &[uring_cmd, "--verify_pattern=0xaa", compare],
    );
    assert!(
        err.contains("verify=pattern_hdr (what verify_pattern without verify means, as in fio) puts a header in each block"),
        "{err}"
    );
}

/// zonemode=zbd on the guest's zoned namespaces against fio there
/// (tests/nvme_vm/zbd.sh): the same write_iolog offsets and the same zone
/// report after each job, zone resets issued to the device (for full
/// zones, at depth once the writes in flight are done, and for trims),
/// and fio's refusals; through a block device, and through an NVMe generic char
/// device with io_uring_cmd (a namespace with zone capacity below zone
/// size and its own open-zone limit, added here), where fio's own
/// examples/uring-cmd-zoned.fio (random and sequential writes, each
/// verified, with SQ polling and registered files) runs as fio runs it,
/// and `write_mode=zone_append` leaves the zones fio's Writes leave (and
/// verifies at depth 16); and on a zoned null_blk device whose first zones are conventional.
#[test]
fn zbd_on_a_zoned_namespace_writes_as_fio() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    require!(ioscope_testutil::fio());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = require!(common::fio_example("uring-cmd-zoned.fio"));
    let files = [
        (root.join("tests/nvme_vm/zbd.sh"), "zbd.sh"),
        (example, "uring-cmd-zoned.fio"),
    ];
    let image = tempfile::NamedTempFile::new().expect("an image for namespace 3");
    image.as_file().set_len(128 << 20).expect("a 128 MiB image");
    let zns3 = format!(
        "-drive file={},if=none,id=zns3,format=raw -device nvme-ns,drive=zns3,bus=nvme0,nsid=3,\
         zoned=on,zoned.zone_size=4M,zoned.zone_capacity=3M,zoned.max_open=6,zoned.max_active=6",
        image.path().display()
    );
    let env = [
        ("NVME_VM_ZNS_SIZE", "256M"),
        ("NVME_VM_ZONE_SIZE", "4M"),
        ("NVME_VM_HOST_BINS", "fio blkzone"),
        ("NVME_VM_QEMU_ARGS", zns3.as_str()),
        // A zoned block device with conventional zones, which no NVMe
        // namespace QEMU emulates has.
        (
            "NVME_VM_MODULES",
            "null_blk:nr_devices=1,zoned=1,zone_size=4,zone_nr_conv=3,gb=1,\
             memory_backed=1,zone_max_open=6",
        ),
    ];
    let Some(stdout) = in_guest(&script, &files, "sh zbd.sh", &env) else {
        return;
    };
    let checks = passed_checks(&stdout);
    assert_eq!(checks.len(), 31, "{checks:#?}");
}

/// fio 3.42's zonemode=zbd options on the guest's zoned namespaces
/// (tests/nvme_vm/zbd342.sh): zones whose end a block does not fill are
/// finished (block device: BLKFINISHZONE; generic char device: Zone
/// Management Send, where fio 3.42 fails) or, with write_zone_remainder,
/// written to their end; a write that fails because the write pointer
/// moved behind the job's back is recovered with recover_zbd_write_error
/// (the device's write pointer moved with the write's bytes, or zeroes at
/// depth; an NVMe Write on the char device, where fio 3.42 fails), and
/// without it each later write fails at the same place, as fio's. Where
/// the guest's fio is 3.42 (run with
/// `NVME_VM_HOST_BINS=/path/to/fio-3.42/fio`), fio runs the same jobs and
/// leaves the same I/Os, zones and error counts; otherwise those
/// comparisons are skipped and say so.
#[test]
fn zbd_zone_remainders_and_write_recovery_as_fio_3_42() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [(root.join("tests/nvme_vm/zbd342.sh"), "zbd342.sh")];
    let image = tempfile::NamedTempFile::new().expect("an image for namespace 3");
    image.as_file().set_len(128 << 20).expect("a 128 MiB image");
    let zns3 = format!(
        "-drive file={},if=none,id=zns3,format=raw -device nvme-ns,drive=zns3,bus=nvme0,nsid=3,\
         zoned=on,zoned.zone_size=4M,zoned.zone_capacity=3M,zoned.max_open=6,zoned.max_active=6",
        image.path().display()
    );
    // The fio the caller names (fio 3.42 for the comparisons), and blkzone.
    let bins = format!(
        "{} blkzone",
        std::env::var("NVME_VM_HOST_BINS").unwrap_or_default()
    );
    let env = [
        ("NVME_VM_ZNS_SIZE", "256M"),
        ("NVME_VM_ZONE_SIZE", "4M"),
        ("NVME_VM_HOST_BINS", bins.trim()),
        ("NVME_VM_QEMU_ARGS", zns3.as_str()),
    ];
    let Some(stdout) = in_guest(&script, &files, "sh zbd342.sh", &env) else {
        return;
    };
    let without_fio = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CHECK-SKIPPED "))
        .inspect(|why| ioscope_testutil::report(&test_name(module_path!()), &Missing::soft(*why)))
        .count()
        > 0;
    let checks = passed_checks(&stdout);
    let want = if without_fio { 3 } else { 13 };
    assert_eq!(checks.len(), want, "{checks:#?}");
}

/// The test of `ioscope compare`'s design: the post's six-section job
/// file (tests/data/xnvme-compare2.fio), each section given the post's
/// device (the block device for the two block sections, the generic one
/// for the four passthrough ones) and a one-second runtime, compared in one
/// command: six configurations, each run twice, interleaved, with the
/// post's columns and every difference from the first.
#[test]
fn the_xnvme_posts_six_sections_compare_in_one_command() {
    let script = require!(nvme_guest(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut job = std::fs::read_to_string(root.join("tests/data/xnvme-compare2.fio"))
        .expect("the post's job file")
        .replace("runtime=1m", "runtime=1");
    for (section, dev) in [
        ("uring", "/dev/nvme0n1"),
        ("xnvme_uring", "/dev/nvme0n1"),
        ("ucmd", "/dev/ng0n1"),
        ("xnvme_ucmd", "/dev/ng0n1"),
        ("ucmd_sqthread", "/dev/ng0n1"),
        ("xnvme_ucmd_sqthread", "/dev/ng0n1"),
    ] {
        job = job.replace(
            &format!("[{section}]\n"),
            &format!("[{section}]\nfilename={dev}\n"),
        );
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let six = dir.path().join("six.fio");
    std::fs::write(&six, job).unwrap();
    let command = "ioscope compare six.fio --repeat=2 --output-format=json >c.json; \
                   echo status=$?; echo @@JSON; cat c.json";
    let Some(stdout) = in_guest(&script, &[(six, "six.fio")], command, &[]) else {
        return;
    };
    assert!(stdout.contains("status=0"), "{}", tail(&stdout, 30));
    // The console carries the document's lines, after the marker.
    let text = stdout.split("@@JSON").nth(1).expect("the document");
    let text = &text[..text.rfind('}').map_or(0, |i| i + 1)];
    let doc: serde_json::Value =
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {}", tail(text, 20)));
    let configs = doc["configurations"].as_array().expect("configurations");
    let names: Vec<&str> = configs
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "uring",
            "xnvme_uring",
            "ucmd",
            "xnvme_ucmd",
            "ucmd_sqthread",
            "xnvme_ucmd_sqthread"
        ]
    );
    assert_eq!(doc["baseline"], "uring");
    for c in configs {
        let s = &c["summary"];
        assert_eq!(s["iops"]["n"], 2, "{}", c["name"]);
        assert!(s["iops"]["mean"].as_f64().unwrap() > 0.0, "{}", c["name"]);
        for metric in ["lat_mean_ns", "cpu_usr", "cpu_sys", "ctx"] {
            assert!(s[metric]["mean"].is_number(), "{} {metric}", c["name"]);
        }
        assert_eq!(c["runs"].as_array().unwrap().len(), 2);
        if c["name"] != "uring" {
            assert!(c["vs_baseline"]["lat_mean_ns"]["diff_pct"].is_number());
        }
    }
}

#[test]
fn nvme_passthrough_with_512_byte_blocks() {
    run_checks(512);
}

#[test]
fn nvme_passthrough_with_4096_byte_blocks() {
    run_checks(4096);
}
