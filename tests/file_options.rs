//! The remaining file options end to end, against fio 3.33 on the same
//! jobs: file_service_type's distributions (the file sequence of
//! write_iolog), write_hint (the hint read back with F_GET_RW_HINT), and
//! ioscheduler (the device's queue/scheduler read back).

mod common;

use std::fs;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{fio, io_order, ioscope, tempdir, Zram};
use ioscope_testutil::{fio as fio_installed, program, require, root};

/// Runs `args` with fio, then with ioscope, in `dir`; each run's exit
/// status, stdout and stderr, with what `look` saw after it.
fn both<T>(dir: &Path, args: &[&str], look: impl Fn() -> T) -> [(bool, String, T); 2] {
    [fio, ioscope].map(|tool| {
        let run = tool(args.iter().copied().chain(["--output-format=json"]))
            .dir(dir)
            .run();
        (
            run.status.success(),
            format!("{}{}", run.stdout, run.stderr),
            look(),
        )
    })
}

#[test]
fn file_service_distributions_choose_the_files_fio_chooses() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let cases: &[&[&str]] = &[
        &["--rw=randread", "--file_service_type=zipf:1.2"],
        &["--rw=write", "--file_service_type=pareto"],
        &["--rw=randrw", "--file_service_type=gauss:10"],
        &[
            "--rw=randread",
            "--file_service_type=normal:20:0.3",
            "--loops=2",
        ],
        &["--rw=read", "--file_service_type=zipf:0.8:0.5"],
        &[
            "--rw=randwrite",
            "--file_service_type=pareto:0.4",
            "--openfiles=2",
        ],
    ];
    for case in cases {
        let mut args = vec![
            "--name=fs",
            "--nrfiles=5",
            "--size=100k",
            "--bs=4k",
            "--write_iolog=fs.log",
        ];
        args.extend_from_slice(case);
        let [(fok, fout, f), (iok, iout, i)] = both(d, &args, || {
            let order = io_order(&d.join("fs.log"));
            fs::remove_file(d.join("fs.log")).unwrap();
            order
        });
        assert!(fok && iok, "{case:?}: fio: {fout}\nioscope: {iout}");
        let loops = if case.contains(&"--loops=2") { 2 } else { 1 };
        assert_eq!(f.len(), 25 * loops, "{case:?}");
        assert_eq!(f, i, "{case:?}: fio's order, then ioscope's");
        // A distribution, not a turn: some file gets more than its share,
        // which takes starting a file over once its blocks are used.
        let busiest = (0..5)
            .map(|n| {
                f.iter()
                    .filter(|l| l.starts_with(&format!("fs.0.{n} ")))
                    .count()
            })
            .max()
            .unwrap();
        assert!(busiest > 5 * loops, "{case:?}: {f:?}");
    }
}

/// Linux's F_GET_RW_HINT.
const F_GET_RW_HINT: libc::c_int = 1035;

fn read_hint(path: &Path) -> u64 {
    let f = fs::File::open(path).unwrap();
    let mut hint = 0u64;
    // SAFETY: the command writes one u64 through the pointer.
    let r = unsafe { libc::fcntl(f.as_raw_fd(), F_GET_RW_HINT, &mut hint as *mut u64) };
    assert_eq!(r, 0, "F_GET_RW_HINT: {}", std::io::Error::last_os_error());
    hint
}

#[test]
fn write_hint_is_set_on_the_file_as_fio_sets_it() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let file = d.join("wh");
    for (name, value) in [("short", 2), ("extreme", 5), ("none", 1), ("medium", 3)] {
        let hint = format!("--write_hint={name}");
        let args = [
            "--name=wh",
            "--filename=wh",
            "--size=64k",
            "--bs=4k",
            "--rw=write",
            &hint,
        ];
        let [(fok, fout, f), (iok, iout, i)] = both(d, &args, || {
            let h = read_hint(&file);
            fs::remove_file(&file).unwrap();
            h
        });
        assert!(fok && iok, "{name}: fio: {fout}\nioscope: {iout}");
        assert_eq!((f, i), (value, value), "{name}: fio's hint, then ioscope's");
    }
    // With O_DIRECT fio sets the hint on the open file
    // (F_SET_FILE_RW_HINT), which kernels since 5.17 refuse: both fail.
    let args = [
        "--name=wh",
        "--filename=wh",
        "--size=64k",
        "--bs=4k",
        "--rw=write",
        "--direct=1",
        "--write_hint=long",
    ];
    let direct = ioscope_testutil::o_direct(d).is_ok();
    let newer = ioscope_testutil::kernel(5, 17).is_ok();
    if direct && newer {
        let [(fok, _, _), (iok, iout, _)] = both(d, &args, || ());
        assert!(!fok && !iok, "{iout}");
        assert!(iout.contains("write_hint"), "{iout}");
    }
    let run = ioscope(["--name=wh", "--filename=wh", "--write_hint=forever"])
        .dir(d)
        .run();
    assert!(!run.status.success());
    assert!(run.stderr.contains("write_hint"), "{}", run.describe());
}

/// A loop device over a file in `dir`, detached when dropped.
struct Loop(String);

impl Loop {
    fn attach(dir: &Path) -> Loop {
        let backing = dir.join("loop.img");
        fs::write(&backing, vec![0u8; 4 << 20]).unwrap();
        let out = Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&backing)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "losetup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Loop(String::from_utf8(out.stdout).unwrap().trim().to_string())
    }

    fn scheduler_file(&self) -> String {
        let name = self.0.trim_start_matches("/dev/");
        format!("/sys/block/{name}/queue/scheduler")
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.0]).status();
    }
}

#[test]
fn ioscheduler_switches_the_device_as_fio_does() {
    require!(fio_installed());
    require!(root());
    require!(program("losetup"));
    let dir = tempdir();
    let d = dir.path();
    let dev = Loop::attach(d);
    let sched = dev.scheduler_file();
    let available = fs::read_to_string(&sched).unwrap();
    let names: Vec<String> = available
        .split_whitespace()
        .map(|s| s.trim_matches(|c| c == '[' || c == ']').to_string())
        .collect();
    let Some(other) = names.iter().find(|n| *n != "none") else {
        panic!("{sched} offers no scheduler but none: {available}");
    };
    for want in [other.as_str(), "none"] {
        let opt = format!("--ioscheduler={want}");
        let filename = format!("--filename={}", dev.0);
        let args = [
            "--name=is",
            &filename,
            "--size=1m",
            "--bs=4k",
            "--rw=read",
            &opt,
        ];
        let [(fok, fout, f), (iok, iout, i)] = both(d, &args, || {
            let now = fs::read_to_string(&sched).unwrap();
            // Back to another scheduler, so the next run must switch.
            let back = if want == "none" {
                other.as_str()
            } else {
                "none"
            };
            fs::write(&sched, back).unwrap();
            now
        });
        assert!(fok && iok, "{want}: fio: {fout}\nioscope: {iout}");
        let selected = format!("[{want}]");
        assert!(f.contains(&selected), "fio: {f}");
        assert!(i.contains(&selected), "ioscope: {i}");
    }
    // A scheduler the kernel does not have: both refuse the job.
    let filename = format!("--filename={}", dev.0);
    let args = [
        "--name=is",
        &filename,
        "--size=1m",
        "--rw=read",
        "--ioscheduler=no-such-sched",
    ];
    let [(fok, _, _), (iok, iout, _)] = both(d, &args, || ());
    assert!(!fok && !iok, "{iout}");
    assert!(iout.contains("unable to set io scheduler"), "{iout}");
}

#[test]
fn ioscheduler_on_a_device_without_one_goes_on_with_a_notice() {
    require!(fio_installed());
    let z = require!(Zram::acquire());
    // zram is bio-based: no queue/scheduler; fio says so and goes on.
    let mut args = z.job_args("is", "read", &["--size=1m", "--ioscheduler=mq-deadline"]);
    args.push("--output-format=json".to_string());
    let f = fio(&args).run();
    assert!(f.status.success(), "{}", f.describe());
    let i = ioscope(&args).run();
    assert!(i.status.success(), "{}", i.describe());
    assert!(
        i.stdout.contains("ioscheduler_not_switched"),
        "{}",
        i.describe()
    );
    assert!(i.stderr.is_empty(), "{}", i.describe());
}

#[test]
fn sync_file_range_syncs_as_often_as_fio() {
    require!(fio_installed());
    let dir = tempdir();
    let d = dir.path();
    let cases: &[&[&str]] = &[
        &[
            "--rw=write",
            "--sync_file_range=wait_before,write,wait_after:4",
        ],
        // After a read, fio asks again while the writes stay at a multiple.
        &["--rw=randrw", "--sync_file_range=write:3"],
        &[
            "--rw=write",
            "--sync_file_range=write",
            "--ioengine=io_uring",
            // Deeper, fio's count depends on when each sync completes.
            "--iodepth=1",
        ],
        // fsync goes first when both are due.
        &[
            "--rw=randwrite",
            "--sync_file_range=write:2",
            "--fsync=4",
            "--ioengine=libaio",
        ],
    ];
    for case in cases {
        let mut args = vec![
            "--name=sf",
            "--filename=sf",
            "--size=64k",
            "--bs=4k",
            "--write_iolog=sf.log",
        ];
        args.extend_from_slice(case);
        let [(fok, fout, f), (iok, iout, i)] = both(d, &args, || {
            let log = fs::read_to_string(d.join("sf.log")).unwrap();
            fs::remove_file(d.join("sf.log")).unwrap();
            log.lines()
                .filter(|l| l.split_whitespace().nth(2) == Some("sync_file_range"))
                .count()
        });
        assert!(fok && iok, "{case:?}: fio: {fout}\nioscope: {iout}");
        assert!(f > 0, "{case:?}: fio logged no sync_file_range");
        assert_eq!(
            f, i,
            "{case:?}: fio's sync_file_range count, then ioscope's"
        );
        // The JSON: fio counts only fsyncs in sync's total_ios, and every
        // sync's latency.
        let json = |out: &str| {
            let v: serde_json::Value =
                serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
            let s = &v["jobs"][0]["sync"];
            (s["total_ios"].as_u64(), s["lat_ns"]["N"].as_u64())
        };
        assert_eq!(json(&fout), json(&iout), "{case:?}");
    }
    let run = ioscope(["--name=sf", "--filename=sf", "--sync_file_range=flush:2"])
        .dir(d)
        .run();
    assert!(!run.status.success());
    assert!(run.stderr.contains("'flush'"), "{}", run.describe());
}
