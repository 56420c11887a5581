//! fio's terse (`--minimal`) output: one `;`-separated line per job
//! (show_thread_status_terse_all in stat.c), in the field order of terse
//! versions 2 to 5. Scripts split these lines by position, so every field
//! is written as fio's printf writes it: `%llu` integers, `%f` floats with
//! six decimals, percentiles as `p%=value` pairs.

use std::fmt::Write;

use crate::cfmt::{fixed, padded};
use crate::dist::{depth_shares, issued_rw, lat_shares};
use crate::group::GroupStats;
use crate::normal::cpu_percent;
use crate::stat::Stat;
use crate::{disk, percentiles, Options};
use ioscope_stats::{DirResult, JobResult, LatencyStat, RunResult, Summary};

/// fio's FIO_IO_U_LIST_MAX_LEN: the percentile fields are always this many,
/// `0%=0` where the list is shorter.
const PERCENTILE_FIELDS: usize = percentiles::MAX_LEN;

/// A terse version fio knows: 2, 3 (fio's default), 4 or 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TerseVersion(u8);

impl TerseVersion {
    /// The version, or None when fio has no such terse version.
    pub fn new(version: u8) -> Option<TerseVersion> {
        (2..=5).contains(&version).then_some(TerseVersion(version))
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl Default for TerseVersion {
    /// fio's `terse_version = 3`.
    fn default() -> TerseVersion {
        TerseVersion(3)
    }
}

/// One line per job, in job order.
pub fn render(result: &RunResult, version: TerseVersion, opts: &Options) -> String {
    let groups = GroupStats::all(result);
    let mut out = String::new();
    for job in &result.jobs {
        let group = &groups[job.header.groupid as usize];
        out.push_str(&job_line(job, group, result, version, opts));
    }
    out
}

/// One job's line (two lines in version 2 when the job has a description).
fn job_line(
    job: &JobResult,
    group: &GroupStats,
    result: &RunResult,
    version: TerseVersion,
    opts: &Options,
) -> String {
    let v = version.get();
    let h = &job.header;
    let mut out = if v == 2 {
        format!("2;{};{};{}", h.name, h.groupid, job.reported_error())
    } else {
        format!(
            "{v};{};{};{};{}",
            opts.version,
            h.name,
            h.groupid,
            job.reported_error()
        )
    };
    // Version 3 has no trim fields (they came with version 4; version 2
    // predates the split).
    // unified_rw_reporting=mixed has only the folded directions' fields;
    // =both adds the sum after the three (fio's terse output).
    let dirs = match (job.unified_rw, v) {
        (1, _) => 1,
        (_, 3) => 2,
        _ => 3,
    };
    for (ddir, d) in job.dirs.iter().enumerate().take(dirs) {
        dir_fields(&mut out, job, d, group.dirs[ddir].agg, v);
    }
    if job.unified_rw == 2 {
        dir_fields(&mut out, job, &job.mixed_dir(), group.dirs[0].agg, v);
    }

    let (usr, sys) = cpu_percent(job);
    let _ = write!(
        out,
        ";{}%;{}%;{};{};{}",
        fixed(usr, 6),
        fixed(sys, 6),
        job.cpu.ctx,
        job.cpu.majf,
        job.cpu.minf
    );
    for share in depth_shares(&job.depth.counts, issued_rw(job)) {
        let _ = write!(out, ";{}%", padded(share, 3, 1));
    }
    for share in usec_shares(job) {
        let _ = write!(out, ";{}%", padded(share, 3, 2));
    }
    for share in lat_shares(&job.lat_buckets.msec, issued_rw(job)) {
        let _ = write!(out, ";{}%", padded(share, 3, 2));
    }
    if v >= 3 {
        for d in &result.disks {
            out.push_str(&disk::terse(d));
        }
    }
    if job.continue_on_error {
        let _ = write!(out, ";{};{}", job.total_err, job.first_error);
    }
    if let Some(desc) = h.description.as_deref().filter(|d| !d.is_empty()) {
        if v == 2 {
            out.push('\n');
        }
        let _ = write!(out, ";{desc}");
    }
    out.push('\n');
    out
}

/// fio's stat_calc_lat_nu: the microsecond shares with every sub-microsecond
/// latency added to the first, so that the terse line kept its field count
/// when fio began to count nanoseconds. As in fio, a job without I/O gets
/// 0/0 there (printed as C prints a NaN).
fn usec_shares(job: &JobResult) -> Vec<f64> {
    let total = issued_rw(job);
    let mut shares = lat_shares(&job.lat_buckets.usec, total);
    let ntotal: u64 = job.lat_buckets.nsec.iter().sum();
    shares[0] += 100.0 * ntotal as f64 / total as f64;
    shares
}

/// fio's show_ddir_status_terse for one direction. `agg` is the group's
/// aggregate bandwidth in bytes per second.
fn dir_fields(out: &mut String, job: &JobResult, d: &DirResult, agg: u64, version: u8) {
    let (bw, iops) = match d.runtime_ms {
        0 => (0, 0),
        runt => (1000 * d.io_bytes / runt / 1024, 1000 * d.total_ios / runt),
    };
    let _ = write!(out, ";{};{bw};{iops};{}", d.io_bytes >> 10, d.runtime_ms);
    lat_fields(out, &d.slat.summary);
    lat_fields(out, &d.clat.summary);
    // lat percentiles take the place of clat's when both are asked for.
    let hist = if job.lat_percentiles {
        Some(&d.lat)
    } else if job.clat_percentiles {
        Some(&d.clat)
    } else {
        None
    };
    percentile_fields(out, hist, &job.percentile_list);
    lat_fields(out, &d.lat.summary);

    let bw_stat = Stat::of(&d.bw);
    match bw_stat {
        Some(s) => {
            let _ = write!(
                out,
                ";{};{};{}%;{};{}",
                s.min,
                s.max,
                fixed(share_of_agg(s.mean, agg), 6),
                fixed(s.mean, 6),
                fixed(s.dev, 6)
            );
        }
        None => out.push_str(";0;0;0.000000%;0.000000;0.000000"),
    }
    if version == 5 {
        let _ = write!(out, ";{}", bw_stat.map_or(0, |s| s.samples));
        let iops = Stat::of_or_zero(&d.iops);
        let _ = write!(
            out,
            ";{};{};{};{};{}",
            iops.min,
            iops.max,
            fixed(iops.mean, 6),
            fixed(iops.dev, 6),
            iops.samples
        );
    }
}

/// min;max;mean;stddev of a latency in microseconds (min and max cut to
/// whole ones), zeros without samples.
fn lat_fields(out: &mut String, summary: &Summary) {
    let s = Stat::of_or_zero(summary);
    let _ = write!(
        out,
        ";{};{};{};{}",
        s.min / 1000,
        s.max / 1000,
        fixed(s.mean / 1000.0, 6),
        fixed(s.dev / 1000.0, 6)
    );
}

/// Always 20 fields: `p%=usec` for each percentile of the job's list when
/// percentiles are on (0 for a direction without samples, as fio's
/// calc_clat_percentiles gives on an empty histogram), `0%=0` for the rest.
fn percentile_fields(out: &mut String, lat: Option<&LatencyStat>, list: &[f64]) {
    let list = match lat {
        Some(_) => percentiles::sorted_list(list),
        None => Vec::new(),
    };
    let values = lat
        .and_then(|l| l.histogram.as_ref())
        .map(|h| percentiles::values(h, &list))
        .unwrap_or_default();
    for i in 0..PERCENTILE_FIELDS {
        match list.get(i) {
            Some(&p) => {
                let ns = values.get(i).copied().unwrap_or(0);
                let _ = write!(out, ";{}%={}", fixed(p, 6), ns / 1000);
            }
            None => out.push_str(";0%=0"),
        }
    }
}

/// The job's mean bandwidth (KiB/s) as a percentage of the group's
/// aggregate, capped at 100. Unlike the normal output's `per=`, fio keeps
/// the mean's fraction here and divides by the aggregate in whole KiB/s.
fn share_of_agg(mean_kib: f64, agg: u64) -> f64 {
    if agg == 0 {
        return 100.0;
    }
    (mean_kib * 100.0 / (agg / 1024) as f64).min(100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_stats::{DiskUtil, LatencyHistogram};

    fn summary(samples: &[u64]) -> Summary {
        let mut s = Summary::default();
        for &v in samples {
            s.add(v);
        }
        s
    }

    fn opts() -> Options {
        Options {
            pid: 1,
            version: "ioscope-test".into(),
        }
    }

    /// A reader that did 1000 I/Os of 4 KiB over 100 ms at 20-29 us.
    fn reader() -> JobResult {
        let mut job = JobResult::default();
        job.header.name = "r".into();
        job.runtime_ms = 100;
        job.clat_percentiles = true;
        let d = &mut job.dirs[0];
        d.io_bytes = 1000 * 4096;
        d.total_ios = 1000;
        d.runtime_ms = 100;
        let mut hist = LatencyHistogram::new();
        for i in 0..1000u64 {
            let ns = 20_000 + (i % 10) * 1000;
            d.clat.summary.add(ns);
            d.lat.summary.add(ns + 500);
            hist.add(ns);
            job.lat_buckets.add(ns + 500);
        }
        d.clat.histogram = Some(hist);
        d.bw = summary(&[40_000, 40_100]);
        d.iops = summary(&[10_000, 10_025]);
        job.issued[0] = 1000;
        job.depth.add_depth(1, 1000);
        job.cpu.sys_ns = 50_000_000;
        job.cpu.ctx = 1000;
        job.cpu.minf = 9;
        job
    }

    fn run(jobs: Vec<JobResult>) -> RunResult {
        RunResult {
            jobs,
            kb_base: 1024,
            ..RunResult::default()
        }
    }

    fn fields(line: &str) -> Vec<&str> {
        line.trim_end_matches('\n').split(';').collect()
    }

    #[test]
    fn versions_have_fios_field_counts() {
        let result = run(vec![reader()]);
        // 5 head fields (4 in v2), 41 per direction (47 in v5), 5 CPU,
        // 7 depths, 10 usec and 12 msec shares.
        for (v, n) in [
            (2, 4 + 3 * 41 + 34),
            (3, 5 + 2 * 41 + 34),
            (4, 5 + 3 * 41 + 34),
        ] {
            let line = render(&result, TerseVersion::new(v).unwrap(), &opts());
            assert_eq!(fields(&line).len(), n, "version {v}: {line}");
        }
        let line = render(&result, TerseVersion::new(5).unwrap(), &opts());
        assert_eq!(fields(&line).len(), 5 + 3 * 47 + 34);
        assert!(TerseVersion::new(1).is_none() && TerseVersion::new(6).is_none());
        assert_eq!(TerseVersion::default().get(), 3);
    }

    #[test]
    fn reader_line_in_version_3() {
        let line = render(&run(vec![reader()]), TerseVersion::default(), &opts());
        let f = fields(&line);
        assert_eq!(&f[..5], ["3", "ioscope-test", "r", "0", "0"]);
        // io KiB, bw KiB/s, iops, runtime.
        assert_eq!(&f[5..9], ["4000", "40000", "10000", "100"]);
        // No slat samples: zeros.
        assert_eq!(&f[9..13], ["0", "0", "0.000000", "0.000000"]);
        // clat in us: min 20, max 29, mean 24.5.
        assert_eq!(&f[13..16], ["20", "29", "24.500000"]);
        assert_eq!(f[17], "1.000000%=20");
        assert_eq!(f[33], "99.990000%=29");
        assert_eq!(&f[34..37], ["0%=0", "0%=0", "0%=0"]);
        // lat: clat + 0.5 us.
        assert_eq!(&f[37..40], ["20", "29", "25.000000"]);
        // bw: min, max, share of the group, mean, dev.
        assert_eq!(
            &f[41..45],
            ["40000", "40100", "100.000000%", "40050.000000"]
        );
        // The write direction is all zeros, its percentile labels kept.
        assert_eq!(&f[46..50], ["0", "0", "0", "0"]);
        assert_eq!(f[58], "1.000000%=0");
        // CPU: usr, sys (50 ms of 100), ctx, majf, minf.
        assert_eq!(&f[87..92], ["0.000000%", "50.000000%", "1000", "0", "9"]);
        assert_eq!(
            &f[92..99],
            ["100.0%", "0.0%", "0.0%", "0.0%", "0.0%", "0.0%", "0.0%"]
        );
        // 20.5-29.5 us: the 50 us step.
        assert_eq!(f[99 + 4], "100.00%");
        assert_eq!(f.len(), 121);
    }

    #[test]
    fn version_5_adds_samples_and_iops() {
        let line = render(&run(vec![reader()]), TerseVersion::new(5).unwrap(), &opts());
        let f = fields(&line);
        // After bw's five fields: bw samples, then iops min;max;mean;dev;samples.
        assert_eq!(
            &f[46..52],
            ["2", "10000", "10025", "10012.500000", "17.677670", "2"]
        );
    }

    #[test]
    fn version_2_has_no_version_string_and_puts_the_description_on_a_line_of_its_own() {
        let mut job = reader();
        job.header.description = Some("a reader".into());
        let two = render(
            &run(vec![job.clone()]),
            TerseVersion::new(2).unwrap(),
            &opts(),
        );
        assert!(two.starts_with("2;r;0;0;4000;"), "{two}");
        assert!(two.ends_with("%\n;a reader\n"), "{two}");
        let three = render(&run(vec![job]), TerseVersion::default(), &opts());
        assert!(three.ends_with("%;a reader\n"), "{three}");
    }

    #[test]
    fn disks_and_errors_are_appended() {
        let mut job = reader();
        job.continue_on_error = true;
        job.total_err = 3;
        job.first_error = 5;
        let mut result = run(vec![job]);
        result.disks = vec![DiskUtil {
            name: "vda".into(),
            read_ios: 1000,
            read_ticks: 30,
            in_queue: 31,
            util: 62.5,
            ..DiskUtil::default()
        }];
        let line = render(&result, TerseVersion::default(), &opts());
        assert!(
            line.ends_with(";vda;1000;0;0;0;30;0;31;62.50%;3;5\n"),
            "{line}"
        );
        // Version 2 has no disk fields.
        let two = render(&result, TerseVersion::new(2).unwrap(), &opts());
        assert!(two.ends_with("%;3;5\n") && !two.contains("vda"), "{two}");
    }

    #[test]
    fn sub_microsecond_latencies_count_in_the_first_usec_field() {
        let mut job = reader();
        job.lat_buckets = Default::default();
        for ns in [500, 1500, 1500, 3000] {
            job.lat_buckets.add(ns);
        }
        job.issued[0] = 4;
        let f: Vec<String> = usec_shares(&job).iter().map(|v| fixed(*v, 2)).collect();
        // 500 ns joins the <2 us step; 1.5 us twice; 3 us in the 4 us step.
        assert_eq!(&f[..3], ["75.00", "25.00", "0.00"]);
    }

    #[test]
    fn lat_percentiles_win_over_clat() {
        let mut job = reader();
        job.lat_percentiles = true;
        job.percentile_list = vec![99.0, 50.0];
        let mut hist = LatencyHistogram::new();
        hist.add(7_000_000);
        job.dirs[0].lat.histogram = Some(hist);
        let line = render(&run(vec![job]), TerseVersion::default(), &opts());
        let f = fields(&line);
        // The list is sorted; 7 ms is reported as its histogram bucket's
        // value (6979 us), as fio does; the rest of the 20 fields are empty.
        assert_eq!(&f[17..20], ["50.000000%=6979", "99.000000%=6979", "0%=0"]);
    }

    #[test]
    fn share_of_agg_keeps_the_fraction() {
        // Group aggregate 10 MiB/s; a job's mean of 5120.5 KiB/s.
        assert_eq!(fixed(share_of_agg(5120.5, 10 << 20), 6), "50.004883");
        assert_eq!(share_of_agg(1.0, 0), 100.0);
        assert_eq!(share_of_agg(1e9, 1 << 20), 100.0);
    }

    #[test]
    fn groups_use_their_own_aggregate() {
        let mut second = reader();
        second.header.name = "w".into();
        second.header.groupid = 1;
        let text = render(
            &run(vec![reader(), second]),
            TerseVersion::default(),
            &opts(),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[1].starts_with("3;ioscope-test;w;1;0;"),
            "{}",
            lines[1]
        );
    }
}
