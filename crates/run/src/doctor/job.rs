//! The doctor's checks of a job and of what it measured: a QD1 job not
//! pinned, requests punted to io-wq, buffer options on writes that carry
//! no data, latencies in the histogram's top bucket.

use ioscope_engine::Backend;
use ioscope_job::{JobSpec, WriteMode};
use ioscope_stats::{bucket_value, JobResult, Notice, PLAT_NR};

/// A punted share below this is start-up noise (a ring's first requests),
/// not the job's way of working.
const PUNT_SHARE_MIN: f64 = 0.01;

/// A QD1 job with no CPU affinity (cpus_allowed, cpumask).
pub fn unpinned(spec: &JobSpec) -> Option<Notice> {
    (spec.iodepth <= 1 && spec.cpus_allowed.is_empty()).then(|| Notice::Qd1Unpinned {
        job: spec.name.clone(),
    })
}

/// The share of a job's I/Os that io_uring punted to io-wq, when it was
/// counted (count_punts=1) and is at least [`PUNT_SHARE_MIN`].
pub fn punted(job: &JobResult) -> Option<Notice> {
    let punts = job.helper_cpu.punts.counted()?;
    let ios: u64 = job.dirs.iter().map(|d| d.total_ios).sum();
    if punts == 0 || (punts as f64) < PUNT_SHARE_MIN * ios as f64 {
        return None;
    }
    Some(Notice::IoWqPunts {
        job: job.header.name.clone(),
        punts,
        ios,
    })
}

/// The buffer options a job sets that make fio spend CPU on each write's
/// buffer (or fill it with chosen bytes): scramble_buffers counts only when
/// given in the job's section, since it is on by default.
fn buffer_options(spec: &JobSpec) -> Vec<&'static str> {
    let given = |name: &str| spec.options.iter().any(|(k, _)| k == name);
    [
        ("buffer_pattern", spec.buffer_pattern.is_some()),
        // Set by buffer_compress_percentage and dedupe_percentage too:
        // named only when it is not their doing.
        (
            "refill_buffers",
            spec.refill_buffers
                && spec.buffer_compress_percentage.is_none()
                && spec.dedupe_percentage == 0,
        ),
        (
            "buffer_compress_percentage",
            spec.buffer_compress_percentage.is_some(),
        ),
        ("dedupe_percentage", spec.dedupe_percentage > 0),
        (
            "scramble_buffers",
            spec.scramble_buffers && given("scramble_buffers"),
        ),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect()
}

/// Buffer options given to a job whose writes carry no data: Write Zeroes,
/// Write Uncorrectable or Verify (io_uring_cmd's write_mode), or a
/// trim-only workload.
pub fn dataless_with_buffers(spec: &JobSpec) -> Option<Notice> {
    let modes = &spec.engine_options.write_mode;
    let dataless =
        (spec.ioengine == Backend::IoUringCmd && !modes.some_carry_data() && spec.rw.kind.writes())
            .then(|| match modes.only() {
                Some(WriteMode::Zeroes) => "Write Zeroes".to_string(),
                Some(WriteMode::Uncorrectable) => "Write Uncorrectable".to_string(),
                Some(WriteMode::Verify) => "Verify".to_string(),
                _ => "Commands without data".to_string(),
            });
    let trims_only = spec.rw.kind.trims() && !spec.rw.kind.writes();
    let what = match (dataless, trims_only) {
        (Some(command), _) => format!("{command} (write_mode={})", modes.text()),
        (None, true) => format!("trim (rw={})", spec.rw.kind.name()),
        (None, false) => return None,
    };
    let options = buffer_options(spec);
    (!options.is_empty()).then(|| Notice::DatalessWriteWithBuffers {
        job: spec.name.clone(),
        what,
        options,
        // A command that write_mode makes of a write is a write to fio,
        // which fills its buffer; a trim is not.
        fio_fills: !trims_only,
    })
}

/// Where the histogram's top bucket starts: its reported middle less half
/// its width.
fn top_bucket_floor() -> u64 {
    let (last, before) = (bucket_value(PLAT_NR - 1), bucket_value(PLAT_NR - 2));
    last - (last - before) / 2
}

/// Latencies in the top bucket, per direction (completion or total
/// latency, whichever has more there).
pub fn top_bucket(job: &JobResult) -> Vec<Notice> {
    ["read", "write", "trim"]
        .into_iter()
        .zip(&job.dirs)
        .filter_map(|(dir, d)| {
            let ios = [&d.clat, &d.lat]
                .iter()
                .filter_map(|l| Some(l.histogram.as_ref()?.bin(PLAT_NR - 1)))
                .max()
                .unwrap_or(0);
            (ios > 0).then(|| Notice::LatencyAtTopBucket {
                job: job.header.name.clone(),
                dir,
                ios,
                floor_ns: top_bucket_floor(),
            })
        })
        .collect()
}

/// Failed writes whose write pointer recover_zbd_write_error did not
/// move, one notice per file: how many, and why the first time.
pub fn unrecovered_zone_writes(job: &JobResult) -> Vec<Notice> {
    let mut found: Vec<Notice> = Vec::new();
    for (path, why) in &job.zone_unrecovered {
        let known = found.iter_mut().find_map(|n| match n {
            Notice::ZoneWritesNotRecovered {
                path: p, writes, ..
            } if p == path => Some(writes),
            _ => None,
        });
        match known {
            Some(writes) => *writes += 1,
            None => found.push(Notice::ZoneWritesNotRecovered {
                job: job.header.name.clone(),
                path: path.clone(),
                writes: 1,
                why: why.clone(),
            }),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::fixture::spec;
    use super::*;
    use ioscope_stats::{LatencyHistogram, Punts};

    #[test]
    fn a_qd1_job_without_affinity_is_unpinned() {
        assert_eq!(
            unpinned(&spec(&["--rw=randread"])),
            Some(Notice::Qd1Unpinned { job: "j".into() })
        );
        assert_eq!(unpinned(&spec(&["--cpus_allowed=1"])), None);
        assert_eq!(unpinned(&spec(&["--cpumask=2"])), None);
        assert_eq!(unpinned(&spec(&["--iodepth=8"])), None);
    }

    #[test]
    fn trims_and_write_zeroes_with_buffer_options_are_found() {
        let n = dataless_with_buffers(&spec(&[
            "--rw=randtrim",
            "--buffer_pattern=0xdeadbeef",
            "--refill_buffers=1",
        ]))
        .expect("a notice");
        assert_eq!(
            n,
            Notice::DatalessWriteWithBuffers {
                job: "j".into(),
                what: "trim (rw=randtrim)".into(),
                options: vec!["buffer_pattern", "refill_buffers"],
                fio_fills: false,
            }
        );
        assert_eq!(n.option(), Some("buffer_pattern"));
        let z = dataless_with_buffers(&spec(&[
            "--ioengine=io_uring_cmd",
            "--write_mode=zeroes",
            "--rw=write",
            "--scramble_buffers=1",
        ]))
        .expect("a notice");
        assert!(z.message().contains("fio fills each buffer anyway"), "{z}");
        let mix = dataless_with_buffers(&spec(&[
            "--ioengine=io_uring_cmd",
            "--write_mode=uncor/50:verify/50",
            "--rw=write",
            "--buffer_pattern=0xaa",
        ]))
        .expect("a notice");
        assert!(
            mix.message()
                .contains("Commands without data (write_mode=uncor/50:verify/50)"),
            "{mix}"
        );
        // A mix with Writes sends data.
        let with_writes = ["--ioengine=io_uring_cmd", "--write_mode=write/50:verify/50"];
        let with_writes = [&with_writes[..], &["--rw=write", "--buffer_pattern=0xaa"]].concat();
        assert_eq!(dataless_with_buffers(&spec(&with_writes)), None);
        // scramble_buffers is on by default: only a given one counts.
        assert_eq!(dataless_with_buffers(&spec(&["--rw=trim"])), None);
        // Writes with data use their buffers.
        assert_eq!(
            dataless_with_buffers(&spec(&["--rw=write", "--refill_buffers=1"])),
            None
        );
        // trimwrite writes data too.
        assert_eq!(
            dataless_with_buffers(&spec(&["--rw=trimwrite", "--refill_buffers=1"])),
            None
        );
    }

    fn result(ios: u64, punts: Punts) -> JobResult {
        let mut j = JobResult::default();
        j.header.name = "j".into();
        j.dirs[1].total_ios = ios;
        j.helper_cpu.punts = punts;
        j
    }

    #[test]
    fn a_punted_share_is_found_when_counted() {
        assert_eq!(
            punted(&result(200, Punts::Counted(50))),
            Some(Notice::IoWqPunts {
                job: "j".into(),
                punts: 50,
                ios: 200
            })
        );
        assert_eq!(punted(&result(200, Punts::Counted(0))), None);
        // One punt in a thousand: the ring's start, not the job.
        assert_eq!(punted(&result(1000, Punts::Counted(1))), None);
        assert_eq!(
            punted(&result(
                200,
                Punts::Uncounted(ioscope_stats::PuntsUncounted::NotAsked)
            )),
            None
        );
    }

    #[test]
    fn a_latency_in_the_top_bucket_is_found() {
        let mut j = result(3, Punts::Counted(0));
        let mut h = LatencyHistogram::new();
        h.add(50_000);
        h.add(20_000_000_000);
        h.add(u64::MAX);
        j.dirs[1].clat.histogram = Some(h);
        let found = top_bucket(&j);
        assert_eq!(
            found,
            [Notice::LatencyAtTopBucket {
                job: "j".into(),
                dir: "write",
                ios: 2,
                floor_ns: (1 << 33) + (63 << 27),
            }]
        );
        assert!(found[0].message().contains("17.0 s or longer"));
        let mut below = LatencyHistogram::new();
        below.add(16_000_000_000);
        j.dirs[1].clat.histogram = Some(below);
        assert!(top_bucket(&j).is_empty());
    }

    /// One notice per file, counting its writes, with the first reason.
    #[test]
    fn unrecovered_zone_writes_are_counted_per_file() {
        let mut j = result(3, Punts::Counted(0));
        assert!(unrecovered_zone_writes(&j).is_empty());
        j.zone_unrecovered = vec![
            ("/dev/a".into(), "first".into()),
            ("/dev/b".into(), "other".into()),
            ("/dev/a".into(), "second".into()),
        ];
        let found = unrecovered_zone_writes(&j);
        assert_eq!(
            found,
            [
                Notice::ZoneWritesNotRecovered {
                    job: "j".into(),
                    path: "/dev/a".into(),
                    writes: 2,
                    why: "first".into(),
                },
                Notice::ZoneWritesNotRecovered {
                    job: "j".into(),
                    path: "/dev/b".into(),
                    writes: 1,
                    why: "other".into(),
                },
            ]
        );
    }
}
