//! Terse output side by side with fio's: the same jobs run by both tools
//! for each terse version (2 to 5), and the lines compared field by field.
//! Fields that are not measurements (version marker, job name, group id,
//! error, percentile labels, disk names) must be equal; measurements must
//! be plausible next to fio's (the same bytes for a size-bound job, rates
//! of the same order of magnitude for a timed one).

mod common;

use std::path::Path;

use common::{fio, ioscope, tempdir};

/// Where the fields of one terse line are, by fio's show_thread_status_terse_all.
struct Layout {
    version: u8,
}

/// Offsets inside one direction's fields (show_ddir_status_terse).
const IO_KIB: usize = 0;
const BW: usize = 1;
const RUNTIME: usize = 3;
const SLAT: usize = 4;
const CLAT: usize = 8;
const PERCENTILES: usize = 12;
const LAT: usize = 32;

impl Layout {
    fn head(&self) -> usize {
        if self.version == 2 {
            4
        } else {
            5
        }
    }

    fn per_dir(&self) -> usize {
        if self.version == 5 {
            47
        } else {
            41
        }
    }

    fn dirs(&self) -> usize {
        if self.version == 3 {
            2
        } else {
            3
        }
    }

    fn dir(&self, ddir: usize) -> usize {
        self.head() + ddir * self.per_dir()
    }

    /// usr, sys, ctx, majf, minf, then 7 depth and 22 latency shares.
    fn tail(&self) -> usize {
        self.dir(self.dirs())
    }

    /// The first field after the fixed ones: disks, errors, description.
    fn extra(&self) -> usize {
        self.tail() + 34
    }
}

fn fields(line: &str) -> Vec<&str> {
    line.split(';').collect()
}

fn num(field: &str, what: &str) -> f64 {
    field
        .trim_end_matches('%')
        .parse()
        .unwrap_or_else(|_| panic!("{what}: {field:?} is not a number"))
}

/// Both tools' terse output for the same job options, in `dir`'s
/// subdirectories so that neither sees the other's files.
fn both(dir: &Path, version: u8, job: &[&str]) -> (String, String) {
    let run = |tool: &str| {
        let d = dir.join(tool);
        std::fs::create_dir_all(&d).unwrap();
        let mut args = vec![
            "--minimal".to_string(),
            format!("--terse-version={version}"),
        ];
        args.extend(job.iter().map(|a| a.to_string()));
        let cmd = if tool == "fio" {
            fio(args)
        } else {
            ioscope(args)
        };
        let r = cmd.dir(&d).run();
        assert!(r.status.success(), "{}", r.describe());
        assert!(r.stderr.is_empty(), "{}", r.describe());
        r.stdout
    };
    (run("ioscope"), run("fio"))
}

/// The non-measurement fields are equal and the line is well formed;
/// returns the lines split.
fn compare<'a>(ours: &'a str, theirs: &'a str, version: u8) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
    let l = Layout { version };
    // Version 2 puts a description on a line of its own.
    let (ol, tl): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    assert_eq!(ol.len(), tl.len(), "ours:\n{ours}\nfio's:\n{theirs}");
    let mut out = Vec::new();
    for (o, t) in ol.into_iter().zip(tl) {
        let (a, b) = (fields(o), fields(t));
        let at = format!("version {version}\nours:  {o}\nfio's: {t}");
        assert_eq!(a.len(), b.len(), "field count, {at}");
        if a[0].is_empty() {
            // The version-2 description line: `;description`.
            assert_eq!(a, b, "{at}");
            continue;
        }
        assert_eq!(a[0], version.to_string(), "{at}");
        assert_eq!(a[0], b[0], "{at}");
        if version >= 3 {
            assert_eq!(a[1], ioscope_version(), "{at}");
            assert!(b[1].starts_with("fio-"), "{at}");
        }
        // Name, group id, error.
        let h = l.head();
        assert_eq!(a[h - 3..h], b[h - 3..h], "{at}");
        for ddir in 0..l.dirs() {
            let p = l.dir(ddir) + PERCENTILES;
            for i in p..p + 20 {
                let label = |f: &str| f.split_once('=').map(|(k, _)| k.to_string());
                assert_eq!(label(a[i]), label(b[i]), "percentile field {i}, {at}");
            }
        }
        // Disks (a name, 7 counts and a utilisation each), then the error
        // counts and the description: the names, and all that follows the
        // disks, are equal.
        let mut d = l.extra();
        while version >= 3 && d + 9 <= b.len() && b[d + 8].ends_with('%') {
            assert_eq!(a[d], b[d], "disk name, {at}");
            d += 9;
        }
        assert_eq!(a[d..], b[d..], "{at}");
        out.push((a, b));
    }
    out
}

fn ioscope_version() -> String {
    let r = ioscope(["--version"]).run();
    r.stdout.trim().to_string()
}

/// Measurements that must hold for any run: latencies ordered, shares
/// in range and adding up, CPU a share of the runtime.
fn plausible(f: &[&str], version: u8) {
    let l = Layout { version };
    let at = f.join(";");
    let mut longest: f64 = 0.0;
    for ddir in 0..l.dirs() {
        let d = l.dir(ddir);
        let io = num(f[d + IO_KIB], "io");
        let runtime = num(f[d + RUNTIME], "runtime");
        longest = longest.max(runtime);
        if io > 0.0 {
            assert!(runtime > 0.0, "{at}");
            // bw is io over runtime, in KiB/s (within integer cutting).
            let bw = num(f[d + BW], "bw");
            let want = io * 1024.0 * 1000.0 / runtime / 1024.0;
            assert!(
                (bw - want).abs() <= want * 0.01 + 1.0,
                "bw {bw} vs {want}: {at}"
            );
        }
        for lat in [SLAT, CLAT, LAT] {
            let min = num(f[d + lat], "min");
            let max = num(f[d + lat + 1], "max");
            let mean = num(f[d + lat + 2], "mean");
            assert!(min <= mean + 1.0 && mean <= max + 1.0, "{at}");
        }
        let mut last = 0.0;
        // The list's entries (the rest are `0%=0` fillers) go up.
        for p in &f[d + PERCENTILES..d + PERCENTILES + 20] {
            let (label, v) = p.split_once('=').unwrap();
            if label == "0%" {
                continue;
            }
            let v = num(v, "percentile");
            assert!(v >= last, "percentiles go down: {at}");
            last = v;
        }
    }
    let t = l.tail();
    let (usr, sys) = (num(f[t], "usr"), num(f[t + 1], "sys"));
    // Over a few milliseconds the kernel's tick-sized CPU times make any
    // share possible (fio printed usr=125% for a 5 ms run).
    assert!(
        longest < 100.0 || (0.0..=101.0).contains(&(usr + sys)),
        "cpu {usr}+{sys}: {at}"
    );
    let depth: f64 = f[t + 5..t + 12].iter().map(|s| num(s, "depth")).sum();
    assert!((depth - 100.0).abs() < 0.5, "depths add to {depth}: {at}");
    let lat: f64 = f[t + 12..t + 34].iter().map(|s| num(s, "lat")).sum();
    assert!(
        (lat - 100.0).abs() < 1.0,
        "latency shares add to {lat}: {at}"
    );
}

fn io_kib(f: &[&str], version: u8, ddir: usize) -> u64 {
    num(f[Layout { version }.dir(ddir) + IO_KIB], "io") as u64
}

#[test]
fn psync_time_based_matches_fio_in_every_version() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let dir = tempdir();
    for version in 2..=5 {
        let job = [
            "--name=timed",
            "--filename=data",
            "--size=4m",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--time_based",
            "--runtime=1",
            // Both drop the file's cached pages at every pass of a timed
            // job; kept in the cache, the rates swing less from run to run.
            "--invalidate=0",
        ];
        let (ours, theirs) = both(dir.path(), version, &job);
        for (a, b) in compare(&ours, &theirs, version) {
            plausible(&a, version);
            plausible(&b, version);
            let l = Layout { version };
            let d = l.dir(0);
            for f in [&a, &b] {
                let runtime = num(f[d + RUNTIME], "runtime");
                assert!((900.0..3000.0).contains(&runtime), "{}", f.join(";"));
            }
            // The same order of magnitude of bytes read in the same time.
            let (x, y) = (io_kib(&a, version, 0) as f64, io_kib(&b, version, 0) as f64);
            assert!(x > y / 10.0 && x < y * 10.0, "{x} KiB vs fio's {y} KiB");
            assert_eq!(io_kib(&a, version, 1), 0);
        }
    }
}

#[test]
fn null_engine_with_a_description_matches_fio_in_every_version() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let dir = tempdir();
    for version in 2..=5 {
        let job = [
            "--name=nothing",
            "--ioengine=null",
            "--size=64m",
            "--rw=randrw",
            "--bs=4k",
            "--description=null run",
        ];
        let (ours, theirs) = both(dir.path(), version, &job);
        let lines = compare(&ours, &theirs, version);
        for (a, b) in &lines {
            plausible(a, version);
            plausible(b, version);
            // A size-bound job moves the same bytes; how they split between
            // reads and writes is random.
            let total = |f: &[&str]| io_kib(f, version, 0) + io_kib(f, version, 1);
            assert_eq!(total(a), 64 * 1024);
            assert_eq!(total(a), total(b));
        }
        // The description is the last field, or (version 2) a line of its own.
        assert!(ours.ends_with(";null run\n"), "{ours}");
        assert_eq!(ours.lines().count(), if version == 2 { 2 } else { 1 });
    }
}

#[test]
fn group_reporting_and_two_groups_match_fio_in_every_version() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let dir = tempdir();
    for version in 2..=5 {
        let job = [
            "--filename=data",
            "--ioengine=psync",
            "--bs=4k",
            "--name=writers",
            "--size=1m",
            "--rw=write",
            "--numjobs=2",
            "--group_reporting",
            "--name=reader",
            "--stonewall",
            "--size=512k",
            "--rw=read",
            "--continue_on_error=1",
        ];
        let (ours, theirs) = both(dir.path(), version, &job);
        let lines = compare(&ours, &theirs, version);
        assert_eq!(lines.len(), 2, "{ours}");
        for (a, b) in &lines {
            plausible(a, version);
            plausible(b, version);
        }
        let (w, r) = (&lines[0].0, &lines[1].0);
        let h = Layout { version }.head();
        assert_eq!(w[h - 3..h], ["writers", "0", "0"]);
        assert_eq!(r[h - 3..h], ["reader", "1", "0"]);
        // Two writers of 1 MiB each, grouped, then one reader of 512 KiB.
        assert_eq!(io_kib(w, version, 1), 2048);
        assert_eq!(io_kib(w, version, 1), io_kib(&lines[0].1, version, 1));
        assert_eq!(io_kib(r, version, 0), 512);
        assert_eq!(io_kib(r, version, 0), io_kib(&lines[1].1, version, 0));
        // continue_on_error adds the error count and the first error.
        assert!(ours.lines().nth(1).unwrap().ends_with(";0;0"), "{ours}");
    }
}

/// Where each kind of output lands when several are asked for: fio writes
/// its terse buffer first, then the JSON document, then the normal text.
#[test]
fn formats_come_in_fios_order() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let job = ["--name=n", "--ioengine=null", "--size=1m", "--rw=read"];
    let kinds = |out: &str| -> Vec<&'static str> {
        let mut seen: Vec<&'static str> = Vec::new();
        for line in out.lines() {
            let kind = if line.starts_with("3;") {
                "terse"
            } else if line == "{" {
                "json"
            } else if line.starts_with("n: (groupid=") {
                "normal"
            } else if line.starts_with("Starting ") {
                "preamble"
            } else {
                continue;
            };
            if seen.last() != Some(&kind) {
                seen.push(kind);
            }
        }
        seen
    };
    for opts in [
        &["--output-format=normal,json,terse"][..],
        &["--append-terse"][..],
        &["--output-format=json", "--append-terse"][..],
        &["--output-format=json,minimal"][..],
        &["--append-terse", "--output-format=csv"][..],
    ] {
        let args = || opts.iter().chain(&job).copied();
        let ours = ioscope(args()).run();
        let theirs = fio(args()).run();
        assert!(
            ours.status.success() && ours.stderr.is_empty(),
            "{}",
            ours.describe()
        );
        assert!(theirs.status.success(), "{}", theirs.describe());
        assert_eq!(
            kinds(&ours.stdout),
            kinds(&theirs.stdout),
            "{opts:?}\nours:\n{}\nfio's:\n{}",
            ours.stdout,
            theirs.stdout
        );
    }
}

#[test]
fn bad_terse_versions_are_refused_by_name() {
    for bad in ["1", "6", "three"] {
        let r = ioscope([
            format!("--terse-version={bad}"),
            "--minimal".into(),
            "--name=n".into(),
            "--ioengine=null".into(),
            "--size=1m".into(),
        ])
        .run();
        let e = r.assert_refused();
        assert!(
            e.contains("--terse-version") && e.contains("2, 3, 4 or 5"),
            "{e}"
        );
    }
}
