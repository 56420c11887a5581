//! `zonemode=zbd` with several jobs on one file, against fio 3.33: fio
//! keeps one set of zones per file for the whole run, so concurrent jobs
//! (and `numjobs` clones) write at the same write pointers, share the
//! file's `max_open_zones`, and a later job reads what they wrote. What
//! fio's semantics fix (interleavings between jobs are the scheduler's) is
//! compared: where writes land, how many zones are open, byte counts, and
//! where reads go.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use common::{fio, ioscope, job, refusal, tempdir, u};
use ioscope_testutil::{fio as fio_installed, require};

const ZONE: u64 = 1 << 20;

/// The (offset, length) of the `dir` requests of a version 3 log.
fn logged(path: &Path, dir: &str) -> Vec<(u64, u64)> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(2) == Some(&dir)).then(|| (f[3].parse().unwrap(), f[4].parse().unwrap()))
        })
        .collect()
}

/// Runs the job file `text` with `tool` in `dir` on a fresh 16 MiB file
/// `f` (fio reads an emulated zoned file's size before laying it out),
/// after removing the logs `logs` (write_iolog appends).
fn run(tool: &str, dir: &Path, text: &str, logs: &[&str]) -> serde_json::Value {
    for stale in logs.iter().copied().chain(["f"]) {
        let _ = fs::remove_file(dir.join(stale));
    }
    fs::File::create(dir.join("f"))
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    fs::write(dir.join("job.fio"), text).unwrap();
    let args = ["job.fio", "--output-format=json"];
    let cmd = if tool == "fio" {
        fio(args)
    } else {
        ioscope(args)
    };
    cmd.dir(dir).run().ok_json()
}

/// Four concurrent random writers on one emulated zoned file, then a
/// random reader after them (`stonewall`).
fn writers_then_reader(per_job: &str) -> String {
    let mut text = String::from(
        "[global]\nfilename=f\nzonemode=zbd\nzonesize=1m\nmax_open_zones=4\nbs=4k\n\
         size=16m\nioengine=psync\n",
    );
    for w in 0..4 {
        text += &format!("[w{w}]\nrw=randwrite\nio_size={per_job}\nwrite_iolog=w{w}.log\n");
    }
    text + "[r]\nstonewall\nrw=randread\nio_size=128k\nwrite_iolog=r.log\n"
}

/// 4 x 128 KiB of writes cannot fill a 1 MiB zone, so no zone closes or
/// is reset: the zones written are the zones opened, at most
/// max_open_zones of them, and each one's writes, all jobs' together,
/// tile it from its start without a gap or an overlap (every write went to
/// the shared write pointer). The reader then reads only below the write
/// pointers.
#[test]
fn concurrent_zbd_jobs_share_write_pointers_and_open_zones_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    let text = writers_then_reader("128k");
    let logs = ["w0.log", "w1.log", "w2.log", "w3.log", "r.log"];
    for tool in ["fio", "ioscope"] {
        let v = run(tool, d.path(), &text, &logs);
        let mut zones: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for w in 0..4 {
            assert_eq!(
                u(&job(&v, &format!("w{w}"))["write"], "io_bytes"),
                128 << 10
            );
            for (offset, len) in logged(&d.path().join(format!("w{w}.log")), "write") {
                assert_eq!(len, 4096, "{tool}");
                zones.entry(offset / ZONE).or_default().push(offset);
            }
        }
        assert!(
            (1..=4).contains(&zones.len()),
            "{tool}: {} zones written with max_open_zones=4",
            zones.len()
        );
        let mut wps = BTreeMap::new();
        for (z, offsets) in &mut zones {
            offsets.sort_unstable();
            let tiled: Vec<u64> = (0..offsets.len() as u64)
                .map(|i| z * ZONE + i * 4096)
                .collect();
            assert_eq!(*offsets, tiled, "{tool}: zone {z}'s writes");
            wps.insert(*z, z * ZONE + offsets.len() as u64 * 4096);
        }
        assert_eq!(u(&job(&v, "r")["read"], "io_bytes"), 128 << 10, "{tool}");
        for (offset, len) in logged(&d.path().join("r.log"), "read") {
            let wp = wps.get(&(offset / ZONE)).copied().unwrap_or(0);
            assert!(
                offset + len <= wp,
                "{tool}: read {offset}+{len} past zone {}'s write pointer {wp}",
                offset / ZONE
            );
        }
    }
}

/// 4 x 1 MiB of writes fill zones, which close and make room for others;
/// a full zone written again is reset first, and any job may then write
/// its first block (a job that wrote high in the zone before the reset
/// may next write anywhere in it). What holds for all jobs together: no
/// write crosses into the next zone, and each zone was written as whole
/// passes from its start plus at most one partial pass, so a block was
/// written as often as the block after it or once more, and its first
/// block at most once more than its last; the byte counts are fio's.
#[test]
fn zbd_jobs_that_fill_shared_zones_move_on_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    let text = writers_then_reader("1m");
    let logs = ["w0.log", "w1.log", "w2.log", "w3.log", "r.log"];
    for tool in ["fio", "ioscope"] {
        let v = run(tool, d.path(), &text, &logs);
        let blocks = (ZONE / 4096) as usize;
        let mut passes: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for w in 0..4 {
            assert_eq!(
                u(&job(&v, &format!("w{w}"))["write"], "io_bytes"),
                1 << 20,
                "{tool}"
            );
            for (offset, len) in logged(&d.path().join(format!("w{w}.log")), "write") {
                let z = offset / ZONE;
                assert_eq!((offset + len - 1) / ZONE, z, "{tool}: a write across zones");
                assert_eq!(len, 4096, "{tool}");
                passes.entry(z).or_insert_with(|| vec![0; blocks])
                    [(offset % ZONE / 4096) as usize] += 1;
            }
        }
        for (z, counts) in &passes {
            let whole = counts.windows(2).all(|p| p[0] == p[1] || p[0] == p[1] + 1);
            assert!(
                whole && counts[0] <= counts[blocks - 1] + 1,
                "{tool}: zone {z} written out of order, per block {counts:?}"
            );
        }
        assert_eq!(u(&job(&v, "r")["read"], "io_bytes"), 128 << 10, "{tool}");
    }
}

/// `numjobs` clones share the file's zones as separate jobs do: fio's
/// examples/zbd-rand-write.fio (numjobs=16, max_open_zones=32, 256 MiB
/// zones) scaled to a file, run with both tools for the same byte count.
#[test]
fn numjobs_clones_share_one_files_zones_as_fio() {
    require!(fio_installed());
    let d = tempdir();
    let text = "[global]\nfilename=f\nrw=randwrite\nzonemode=zbd\nzonesize=256k\n\
                max_open_zones=8\nbs=16k\nnumjobs=16\nsize=16m\nio_size=256k\n\
                group_reporting\nioengine=psync\n[dev1]\n";
    for tool in ["fio", "ioscope"] {
        let v = run(tool, d.path(), text, &[]);
        assert_eq!(
            u(&v["jobs"][0]["write"], "io_bytes"),
            16 * (256 << 10),
            "{tool}"
        );
        assert_eq!(u(&v["jobs"][0]["write"], "total_ios"), 16 * 16, "{tool}");
    }
}

/// Jobs sharing a zoned file share its zones, so they must cut it alike
/// and name one open-zone limit (fio: "Different 'max_open_zones'
/// values"); the refusal comes before the run.
#[test]
fn zbd_jobs_on_one_file_must_agree_on_its_zones() {
    let d = tempdir();
    let base = [
        "--parse-only",
        "--filename=f",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--max_open_zones=2",
        "--name=a",
        "--name=b",
    ];
    let refused = |extra: &str| refusal(d.path(), &base, &[extra]);
    let e = refused("--max_open_zones=3");
    assert!(e.contains("Different 'max_open_zones' values"), "{e}");
    let e = refused("--zonesize=512k");
    assert!(e.contains("differ from job a's"), "{e}");
    // A job without a limit inherits the file's.
    ioscope([
        "--parse-only",
        "--filename=f",
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--name=a",
        "--max_open_zones=2",
        "--name=b",
        "--max_open_zones=0",
    ])
    .dir(d.path())
    .run()
    .assert_ok();
}
