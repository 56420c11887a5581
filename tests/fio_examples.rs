//! fio's own example job files (examples/ in fio's source), as a fio user
//! would hand them over: every file the installed fio accepts must parse in
//! ioscope, and run for a second with its devices replaced by files in a
//! temporary directory, or be refused because it needs hardware or a
//! library this machine cannot have, with that reason.
//!
//! The source is the Debian source package of the installed fio, which
//! .ci/run unpacks with `bench/fio-source.sh target/fio-src`
//! (IOSCOPE_FIO_SRC names another unpacked tree).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use common::{fio, fio_source, ioscope, tempdir};
use ioscope_testutil::require;

/// The example job files, sorted by name.
fn examples(src: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(src.join("examples"))
        .expect("examples/ of fio's source")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    files
}

/// The installed fio's version ("3.33") and the source tree's, which must
/// be the same for "what fio accepts" to mean this fio.
fn versions(src: &Path) -> (String, String) {
    let run = fio(["--version"]).run();
    let installed = run.stdout.trim().trim_start_matches("fio-").to_string();
    let tree = src
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .trim_start_matches("fio-")
        .to_string();
    (installed, tree)
}

/// A refusal that names hardware or a library the machine lacks (an
/// engine's library, a SCSI generic or NVMe device, a NUMA node), rather
/// than something ioscope has not built.
fn needs_what_is_absent(stderr: &str) -> bool {
    [
        "which ioscope does not link",
        "which ioscope does not do",
        "ioscope does not load C engines",
        "needs /dev/ngXnY",
        "does not exist or is offline",
        "no vsock transport reaches",
        "with flexible data placement (FDP), hardware",
    ]
    .iter()
    .any(|phrase| stderr.contains(phrase))
}

/// The examples ioscope does not run yet, each with the words of its
/// refusal: what is left of fio's options. The test fails when one of
/// them starts to work, so that this list stays true. (None now:
/// uring-cmd-zoned.fio, the last, needs a zoned namespace and runs in
/// tests/nvme_vm.rs.)
const NOT_YET: &[(&str, &str)] = &[];

/// The examples that parse but whose one-second run fails, each with the
/// words of its failure (alternatives split by `|`; an empty one: the run
/// may also pass, as where the failure depends on timing): a program the
/// machine lacks, a job that fails in fio too, or a difference from fio
/// not yet understood.
const NOT_RUN: &[(&str, &str)] = &[
    // /usr/sbin/turbostat is not installed: the error names it and the
    // errno (fio's forked child goes on as a copy of fio and passes).
    (
        "exec.fio",
        "cannot run /usr/sbin/turbostat: No such file or directory",
    ),
    // fio fails this rewritten job too: its four random-aio-32k clones
    // write and verify one file (fio warns that multiple writers may
    // overwrite blocks), and each ends with EILSEQ (84) in fio as in
    // ioscope; the e4defrag job beside them completes in both (fio 341
    // moves in 1 s, ioscope 333). EXT4_IOC_MOVE_EXT may answer EBUSY while
    // the writers hold the pages, in either tool.
    ("e4defrag.fio", "verify failed on|Device or resource busy|"),
    // The same in fio: its buffered-aio-32k clones fail verification
    // (EILSEQ) and e4defrag-fuzzer-4k-bis gets EBUSY from
    // EXT4_IOC_MOVE_EXT; time_based without runtime is dropped first, with
    // fio's message, as fio drops it.
    ("e4defrag2.fio", "verify failed on|Device or resource busy|"),
    // fio fails this rewritten job too (punch_hole-raicer: ENOTTY, exit
    // 1); ioscope fails aio-dio-verifier instead when exitall stops it
    // before it has checked a block (fio reports error 0 for it), which
    // depends on how far it got in the 1 s (the trailing `|`: it may run).
    ("enospc-pressure.fio", "verify checked no block|"),
    // fio 3.42's lone vsock receiver waits for a sender from another
    // machine, in fio as in ioscope (where the loopback transport is; it
    // is not run where it is not).
    ("netio_vsock_receiver.fio", "did not end within 90 s|"),
    // Its device is a zoned namespace, which gives the zone size; the
    // file standing in for it has none, and fio refuses that too. It runs
    // on a zoned namespace beside fio in tests/nvme_vm.rs.
    (
        "uring-cmd-zoned.fio",
        "specifying the zone size is mandatory for a regular file",
    ),
];

/// The largest size the smoke runs lay out per file or job.
const SIZE_CAP: u64 = 32 << 20;

/// The size of a stand-in for a device or a file the example expects to
/// exist: sparse, so it costs no space, and large enough for the offsets
/// of the examples (cross-stripe-verify.fio: 30 jobs 124 GiB apart).
const STAND_IN: u64 = 4 << 40;

/// `text` with a size's suffix read as fio reads it (base 1024), or None
/// for what is not a plain size (a percentage, a range, a list).
fn plain_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: u64 = t[..digits].parse().ok()?;
    let shift = match t[digits..].trim_end_matches(['b', 'i']) {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        "p" => 50,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

/// The job file made fit for a one-second run in `dir`: devices and
/// absolute paths become sparse files and folders in `dir`, large sizes
/// (and zone sizes) are capped, start delays and ramps cut to a second,
/// and every section ends with `runtime=1` (a later value wins in fio's
/// dialect), so the job's own settings otherwise stand. A block size
/// larger than a capped zone shrinks by the zone's factor, so that a
/// trim of a whole zone (bs=zonesize) stays one.
fn for_a_smoke_run(text: &str, dir: &Path) -> String {
    let mut out = String::new();
    let mut in_section = false;
    // The zone size after the cap and the factor it was divided by.
    let mut zone_cap: Option<(u64, u64)> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            if in_section {
                out.push_str("runtime=1\n");
            }
            in_section = true;
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        let replaced = match key {
            "filename" => value
                .split(':')
                .map(|f| {
                    let name = f.trim_start_matches('/').replace('/', "-");
                    if f.starts_with('/') {
                        // A device, or a file the example expects to be
                        // there (butterfly.fio reads /tmp/testfile): it has
                        // a size, and so has the file in its place.
                        let file = fs::File::create(dir.join(&name)).expect("a stand-in");
                        file.set_len(STAND_IN).expect("size the stand-in");
                    }
                    name
                })
                .collect::<Vec<_>>()
                .join(":"),
            "directory" | "opendir" => {
                let sub = dir.join(value.trim_start_matches('/').replace('/', "-"));
                fs::create_dir_all(&sub).expect("a directory for the example");
                sub.display().to_string()
            }
            // Delays of minutes (1mbs_clients.fio) are cut to a second.
            "startdelay" | "ramp_time" if value != "0" => "1".to_string(),
            // 256 MiB zones (zbd-rand-write.fio) leave a stand-in device
            // without one: eight zones fit.
            "zonesize" => match plain_size(value) {
                Some(n) if n > SIZE_CAP / 8 => {
                    zone_cap = Some((SIZE_CAP / 8, n / (SIZE_CAP / 8)));
                    format!("{}m", SIZE_CAP >> 23)
                }
                _ => value.to_string(),
            },
            "bs" | "blocksize" => match (plain_size(value), zone_cap) {
                (Some(n), Some((zone, factor))) if n > zone => format!("{}k", (n / factor) >> 10),
                _ => value.to_string(),
            },
            "size" | "filesize" | "io_size" | "io_limit" => match plain_size(value) {
                Some(n) if n > SIZE_CAP => format!("{}m", SIZE_CAP >> 20),
                _ => value.to_string(),
            },
            _ => value.to_string(),
        };
        out.push_str(&format!("{key}={replaced}\n"));
    }
    if in_section {
        out.push_str("runtime=1\n");
    }
    out
}

/// What became of one example in ioscope.
#[derive(Debug)]
enum Outcome {
    Ran,
    Absent(String),
    Failed(String),
}

fn name(example: &Path) -> String {
    example
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

fn smoke_run(example: &Path) -> Outcome {
    let dir = tempdir();
    let text = fs::read_to_string(example).expect("the example's text");
    // fio 3.42's vsock examples talk to this machine (CID 1) or a guest:
    // without the loopback transport a receiver waits for a sender that
    // cannot come, in fio as in ioscope.
    if text.contains("protocol=vsock") {
        if let Err(missing) = ioscope_testutil::vsock_loopback() {
            return Outcome::Absent(missing.reason);
        }
    }
    let job = for_a_smoke_run(&text, dir.path());
    assert!(
        !job.lines()
            .any(|l| !l.trim_start().starts_with(['#', ';']) && l.contains("/dev/")),
        "{}: a device path survived the rewrite:\n{job}",
        example.display()
    );
    let path = dir.path().join("job.fio");
    fs::write(&path, &job).expect("write the rewritten job");
    // A run past its time limit panics in Cmd::run; caught here so that
    // the failure names the example.
    let run = std::panic::catch_unwind(|| {
        ioscope([path.as_os_str(), "--output-format=json".as_ref()])
            .dir(dir.path())
            .timeout(Duration::from_secs(90))
            .run()
    });
    let Ok(run) = run else {
        return Outcome::Failed(format!("did not end within 90 s\n{job}"));
    };
    if run.status.success() {
        Outcome::Ran
    } else if needs_what_is_absent(&run.stderr) {
        Outcome::Absent(first_line(&run.stderr))
    } else {
        Outcome::Failed(format!("{}\n{job}", run.describe()))
    }
}

#[test]
fn every_example_fio_accepts_parses_and_runs_or_names_what_is_absent() {
    require!(ioscope_testutil::fio());
    let src = require!(fio_source());
    let (installed, tree) = versions(&src);
    assert_eq!(
        installed, tree,
        "the examples must come from the installed fio's own source"
    );
    let dir = tempdir();
    let accepted: Vec<PathBuf> = examples(&src)
        .into_iter()
        .filter(|f| {
            fio(["--parse-only".as_ref(), f.as_os_str()])
                .dir(dir.path())
                .run()
                .status
                .success()
        })
        .collect();
    assert!(
        accepted.len() >= 60,
        "fio {installed} accepted only {} examples: is the tree whole?",
        accepted.len()
    );

    let mut refused = Vec::new();
    let mut absent = Vec::new();
    let mut parsed = Vec::new();
    for f in &accepted {
        let run = ioscope(["--parse-only".as_ref(), f.as_os_str()])
            .dir(dir.path())
            .run();
        if run.status.success() {
            parsed.push(f.clone());
        } else if needs_what_is_absent(&run.stderr) {
            absent.push(format!("{}: {}", name(f), first_line(&run.stderr)));
        } else {
            refused.push(format!("{}: {}", name(f), first_line(&run.stderr)));
        }
    }

    // Two at a time: the machine has two cores and each run is short.
    let outcomes = Mutex::new(Vec::new());
    let next = Mutex::new(parsed.iter());
    thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some(f) = next.lock().unwrap().next() else {
                    break;
                };
                let outcome = smoke_run(f);
                outcomes.lock().unwrap().push((f.clone(), outcome));
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));

    let ran = outcomes
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Ran))
        .count();
    absent.extend(outcomes.iter().filter_map(|(f, o)| match o {
        Outcome::Absent(why) => Some(format!("{}: {why}", name(f))),
        _ => None,
    }));
    let failed: Vec<String> = outcomes
        .iter()
        .filter_map(|(f, o)| match o {
            Outcome::Failed(why) => Some(format!("{}: {why}", name(f))),
            _ => None,
        })
        .collect();
    absent.sort();
    println!(
        "fio {installed} examples: {} accepted by fio, {} parsed by ioscope, {ran} ran for 1 s, \
         {} refused for absent hardware or libraries, {} not run yet:",
        accepted.len(),
        parsed.len(),
        absent.len(),
        refused.len() + failed.len(),
    );
    for a in &absent {
        println!("  {a}");
    }
    for r in &refused {
        println!("  not yet: {r}");
    }
    for f in &failed {
        // The example's name and the first line of its error.
        let error = f.split("--- stderr ---\n").nth(1).map(first_line);
        println!(
            "  did not run: {} {}",
            first_line(f).split(' ').next().unwrap_or_default(),
            error.unwrap_or_else(|| first_line(f))
        );
    }
    let unexpected: Vec<&String> = refused
        .iter()
        .filter(|r| {
            !NOT_YET
                .iter()
                .any(|(n, why)| r.starts_with(&format!("{n}: ")) && r.contains(why))
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "ioscope refused examples that fio accepts, for no absent hardware or library:\n{}",
        unexpected
            .iter()
            .map(|r| r.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let now_working: Vec<&str> = NOT_YET
        .iter()
        .filter(|(n, _)| !refused.iter().any(|r| r.starts_with(&format!("{n}: "))))
        .map(|(n, _)| *n)
        .collect();
    assert!(
        now_working.is_empty(),
        "these examples are no longer refused for what NOT_YET says: take them off the list: {now_working:?}"
    );
    let unexpected: Vec<&String> = failed
        .iter()
        .filter(|f| {
            !NOT_RUN.iter().any(|(n, why)| {
                f.starts_with(&format!("{n}: "))
                    && why.split('|').any(|w| !w.is_empty() && f.contains(w))
            })
        })
        .collect();
    let now_running: Vec<&str> = NOT_RUN
        .iter()
        .filter(|(_, why)| !why.split('|').any(str::is_empty))
        .filter(|(n, _)| !failed.iter().any(|f| f.starts_with(&format!("{n}: "))))
        .map(|(n, _)| *n)
        .collect();
    assert!(
        now_running.is_empty(),
        "these examples run now: take them off NOT_RUN: {now_running:?}"
    );
    assert!(
        unexpected.is_empty(),
        "examples that parsed but did not run:\n{}",
        unexpected
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn the_smoke_rewrite_keeps_devices_and_large_sizes_out() {
    let dir = tempdir();
    let job = "[global]\nfilename=/dev/sdb:/dev/sdc\nsize=10G\n\n[a]\ndirectory=/scratch\nsize=50%\nstartdelay=60\nruntime=300\n";
    let out = for_a_smoke_run(job, dir.path());
    assert!(out.contains("filename=dev-sdb:dev-sdc\n"), "{out}");
    assert!(out.contains("size=32m\n"), "{out}");
    assert!(out.contains("size=50%\n"), "{out}");
    assert!(out.contains("startdelay=1\n"), "{out}");
    assert!(out.ends_with("runtime=300\nruntime=1\n"), "{out}");
    assert!(dir.path().join("scratch").is_dir());
    assert_eq!(
        fs::metadata(dir.path().join("dev-sdc")).unwrap().len(),
        STAND_IN
    );
    assert_eq!(out.matches("runtime=1\n").count(), 2, "{out}");
    let zoned = for_a_smoke_run("[z]\nzonesize=256M\nbs=256M\n[y]\nbs=2M\n", dir.path());
    assert!(zoned.contains("zonesize=4m\nbs=4096k\n"), "{zoned}");
    assert!(zoned.contains("bs=2M\n"), "{zoned}");
    assert_eq!(plain_size("100Mb"), Some(100 << 20));
    assert_eq!(plain_size("4k-8k"), None);
}
