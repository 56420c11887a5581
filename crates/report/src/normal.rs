//! fio's normal (human) output: one block per job (show_thread_status_normal),
//! then the group status lines and the disk stats.

use crate::cfmt::{fixed, padded};
use crate::dist::{depth_shares, issued_rw, latency_lines};
use crate::group::{is_pow2, rate_unit_of, sig_figs_of, GroupStats};
use crate::num2str::{num2str, Unit};
use crate::stat::Stat;
use crate::{disk, lat_line, percentiles, Options};
use ioscope_stats::{DirResult, JobResult, LatencyStat, RunResult};

const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];

/// Everything fio prints after the run in normal format, starting with the
/// blank line that follows `Starting N processes`, then ioscope's CPU line
/// and its notices, last, where they are read after the numbers they
/// qualify.
pub fn render(result: &RunResult, opts: &Options) -> String {
    let groups = GroupStats::all(result);
    let mut out = String::from("\n");
    for job in &result.jobs {
        let group = &groups[job.header.groupid as usize];
        out.push_str(&job_block(job, group, result, opts));
    }
    for g in &groups {
        out.push_str(&g.lines(result.kb_base));
    }
    out.push_str(&disk::lines(&result.disks));
    if let Some(idle) = &result.idleness {
        out.push_str(&crate::idleness::lines(idle));
    }
    out.push_str(&crate::helpers::run_line(&result.cpu));
    out.push_str(&crate::notices::block(&result.notices));
    out
}

/// C's strerror, as fio prints it: "Success" for 0.
fn strerror(errno: i32) -> String {
    if errno == 0 {
        return "Success".to_string();
    }
    let msg = std::io::Error::from_raw_os_error(errno).to_string();
    match msg.find(" (os error") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}

/// The `(error=...)` text fio puts after a non-zero err.
pub(crate) fn error_text(errno: i32) -> String {
    let msg = std::io::Error::from_raw_os_error(errno).to_string();
    let msg = match msg.find(" (os error") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    format!("error={msg}")
}

/// One job's block; empty when the job did no I/O (fio skips it).
pub fn job_block(
    job: &JobResult,
    group: &GroupStats,
    result: &RunResult,
    opts: &Options,
) -> String {
    let io_bytes: u64 = job.dirs.iter().map(|d| d.io_bytes).sum();
    // fio counts the I/Os that failed and were let pass too: a job whose
    // every I/O failed still gets its block.
    let total_ios: u64 = job.dirs.iter().map(|d| d.total_ios).sum::<u64>() + job.total_err;
    if io_bytes == 0 && total_ios == 0 {
        return String::new();
    }
    let error = job.reported_error();
    let h = &job.header;
    let members = h.numjobs.max(1);
    // fio prints its first worker's own pid (a thread's tid with thread=1).
    let pid = if job.pid > 0 {
        job.pid as u32
    } else {
        opts.pid
    };
    let mut out = if error == 0 {
        format!(
            "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}\n",
            h.name, h.groupid, members, error, pid, result.time
        )
    } else {
        format!(
            "{}: (groupid={}, jobs={}): err={:2} ({}): pid={}: {}\n",
            h.name,
            h.groupid,
            members,
            error,
            error_text(error),
            pid,
            result.time
        )
    };
    if let Some(desc) = h.description.as_deref().filter(|d| !d.is_empty()) {
        out.push_str(&format!("  Description  : [{desc}]\n"));
    }
    if let Some(x) = &h.xnvme {
        // fio's header says ioengine=xnvme; this says what ran it.
        out.push_str(&format!(
            "  xnvme backend: {} ({})\n",
            x.backend, x.interfaces
        ));
    }

    let list = percentiles::sorted_list(&job.percentile_list);
    let precision = percentiles::precision(&list);
    for (i, d) in job.dirs.iter().enumerate() {
        if d.io_bytes != 0 {
            let name = if job.unified_rw == 1 {
                "mixed"
            } else {
                DIR_NAMES[i]
            };
            out.push_str(&dir_block(
                job,
                (name, i),
                d,
                group,
                result.kb_base,
                &list,
                precision,
            ));
        }
    }
    // unified_rw_reporting=both: fio 3.33 prints this block's IOPS, BW
    // and size as 0 (its mixed stats lacked significant_figures, fixed in
    // fio 3.39); ioscope prints the figures, as 3.39 does.
    if job.unified_rw == 2 {
        out.push_str(&dir_block(
            job,
            ("mixed", 0),
            &job.mixed_dir(),
            group,
            result.kb_base,
            &list,
            precision,
        ));
    }

    out.push_str(&latency_lines(&job.lat_buckets, issued_rw(job)));

    if let Some(s) = Stat::of(&job.sync.lat.summary) {
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        out.push_str(&lat_line::line("sync", &s));
        if let Some(hist) = &job.sync.lat.histogram {
            let v = percentiles::values(hist, &list);
            out.push_str(&percentiles::block("sync", &list, &v, precision));
        }
    }

    let (usr, sys) = cpu_percent(job);
    out.push_str(&format!(
        "  cpu          : usr={}%, sys={}%, ctx={}, majf={}, minf={}\n",
        fixed(usr, 2),
        fixed(sys, 2),
        job.cpu.ctx,
        job.cpu.majf,
        job.cpu.minf
    ));
    out.push_str(&crate::helpers::job_line(job));

    let d = depth_shares(&job.depth.counts, issued_rw(job));
    out.push_str(&format!(
        "  IO depths    : 1={}%, 2={}%, 4={}%, 8={}%, 16={}%, 32={}%, >=64={}%\n",
        fixed(d[0], 1),
        fixed(d[1], 1),
        fixed(d[2], 1),
        fixed(d[3], 1),
        fixed(d[4], 1),
        fixed(d[5], 1),
        fixed(d[6], 1)
    ));
    for (label, dist) in [("submit", &job.submit), ("complete", &job.complete)] {
        let d = depth_shares(&dist.counts, dist.counts.iter().sum());
        out.push_str(&format!(
            "     {label:<10}: 0={}%, 4={}%, 8={}%, 16={}%, 32={}%, 64={}%, >=64={}%\n",
            fixed(d[0], 1),
            fixed(d[1], 1),
            fixed(d[2], 1),
            fixed(d[3], 1),
            fixed(d[4], 1),
            fixed(d[5], 1),
            fixed(d[6], 1)
        ));
    }
    out.push_str(&format!(
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0\n",
        job.issued[0],
        job.issued[1],
        job.issued[2],
        job.sync.total_ios,
        job.short[0],
        job.short[1],
        job.short[2],
        job.dropped[0],
        job.dropped[1],
        job.dropped[2]
    ));
    if job.continue_on_error {
        out.push_str(&format!(
            "     errors    : total={}, first_error={}/<{}>\n",
            job.total_err,
            job.first_error,
            strerror(job.first_error)
        ));
    }
    // ioscope's own line: how many blocks a verify job checked, so that
    // a pass that checked little is seen for what it is.
    if let Some((checked, bad)) = job.verify {
        out.push_str(&format!("     verify    : checked={checked}, bad={bad}\n"));
    }
    if let Some(lp) = h.latency_profile.filter(|lp| lp.depth != 0) {
        out.push_str(&format!(
            "     latency   : target={}, window={}, percentile={:.2}%, depth={}\n",
            lp.target_ns, lp.window_us, lp.percentile, lp.depth
        ));
    } else if h.iodepth != 0 {
        out.push_str(&format!(
            "     latency   : target=0, window=0, percentile=100.00%, depth={}\n",
            h.iodepth
        ));
    }
    out.push_str(&crate::block_life::normal(job));
    if let Some(ss) = &job.steadystate {
        out.push_str(&crate::steadystate::normal_line(
            ss,
            result.kb_base,
            sig_figs_of(job),
        ));
    }
    out
}

/// usr and sys CPU as percent of the job's runtime.
pub fn cpu_percent(job: &JobResult) -> (f64, f64) {
    if job.runtime_ms == 0 {
        return (0.0, 0.0);
    }
    let runt = job.runtime_ms as f64;
    let ms = |ns: u64| ns as f64 / 1_000_000.0;
    (
        ms(job.cpu.user_ns) * 100.0 / runt,
        ms(job.cpu.sys_ns) * 100.0 / runt,
    )
}

fn percentile_block(
    name: &str,
    on: bool,
    lat: &LatencyStat,
    list: &[f64],
    precision: usize,
) -> String {
    if !on || lat.summary.samples == 0 {
        return String::new();
    }
    match &lat.histogram {
        Some(hist) => {
            let v = percentiles::values(hist, list);
            percentiles::block(name, list, &v, precision)
        }
        None => String::new(),
    }
}

/// fio's show_ddir_status() for read, write or trim, named `name`
/// ("mixed" for the directions summed, whose share is of the reads').
fn dir_block(
    job: &JobResult,
    (name, ddir): (&str, usize),
    d: &DirResult,
    group: &GroupStats,
    kb_base: u32,
    list: &[f64],
    precision: usize,
) -> String {
    if d.runtime_ms == 0 {
        return String::new();
    }
    let i2p = is_pow2(kb_base);
    let sig = sig_figs_of(job);
    let runt = d.runtime_ms;
    let bw = 1000 * d.io_bytes / runt;
    let iops = 1000 * d.total_ios / runt;
    let post = if name == "write" {
        format!("; {} zone resets", job.zone_resets)
    } else {
        String::new()
    };
    let mut out = format!(
        "  {}: IOPS={}, BW={} ({})({}/{}msec){}\n",
        name,
        num2str(iops, sig, 1, false, Unit::None),
        num2str(bw, sig, 1, i2p, rate_unit_of(job)),
        num2str(bw, sig, 1, !i2p, rate_unit_of(job)),
        num2str(d.io_bytes, sig, 1, i2p, Unit::Byte),
        runt,
        post
    );
    for (name, lat) in [("slat", &d.slat), ("clat", &d.clat), (" lat", &d.lat)] {
        if let Some(s) = Stat::of(&lat.summary) {
            out.push_str(&lat_line::line(name, &s));
        }
    }
    // fio shows the latencies per priority only when two or more have
    // samples (cmdprio): completion latency, or total with lat_percentiles.
    let clat_type = if job.lat_percentiles { "lat" } else { "clat" };
    let prios: Vec<_> = d
        .prios
        .iter()
        .filter(|p| p.lat.summary.samples > 0)
        .collect();
    let prios = if prios.len() >= 2 { prios } else { Vec::new() };
    let prio_name = |p: &ioscope_stats::PrioLat| {
        format!("{clat_type} prio {}/{}/{}", p.class(), p.level(), p.hint())
    };
    for p in &prios {
        if let Some(s) = Stat::of(&p.lat.summary) {
            out.push_str(&lat_line::line(&prio_name(p), &s));
        }
    }
    out.push_str(&percentile_block(
        "slat",
        job.slat_percentiles,
        &d.slat,
        list,
        precision,
    ));
    out.push_str(&percentile_block(
        "clat",
        job.clat_percentiles,
        &d.clat,
        list,
        precision,
    ));
    out.push_str(&percentile_block(
        "lat",
        job.lat_percentiles,
        &d.lat,
        list,
        precision,
    ));
    let all = if job.lat_percentiles { &d.lat } else { &d.clat };
    for p in &prios {
        let share = 100.0 * p.lat.summary.samples as f64 / all.summary.samples.max(1) as f64;
        out.push_str(&percentile_block(
            &format!("{} ({share:.2}% of IOs)", prio_name(p)),
            job.clat_percentiles || job.lat_percentiles,
            &p.lat,
            list,
            precision,
        ));
    }

    // fio 3.33 means to show this line in bits with unit_base=1 but tests
    // its unit against 1, which N2S_BITPERSEC is not: it stays in bytes.
    if let Some(s) = Stat::of(&d.bw) {
        out.push_str(&bw_line(&s, group.percent_of_agg(ddir, s.mean), kb_base));
    }
    if let Some(s) = Stat::of(&d.iops) {
        out.push_str(&format!(
            "   iops        : min={:5}, max={:5}, avg={}, stdev={}, samples={}\n",
            s.min,
            s.max,
            padded(s.mean, 5, 2),
            padded(s.dev, 5, 2),
            s.samples
        ));
    }
    out
}

/// The `   bw (  KiB/s): min=..., per=...%` line; samples are in KiB/s.
fn bw_line(s: &Stat, per: f64, kb_base: u32) -> String {
    let i2p = is_pow2(kb_base);
    let kb = if kb_base == 0 { 1024.0 } else { kb_base as f64 };
    let mut unit = if i2p { "KiB" } else { "kB" };
    let (mut min, mut max, mut mean, mut dev) = (s.min, s.max, s.mean, s.dev);
    if mean > kb * kb {
        min = (min as f64 / kb) as u64;
        max = (max as f64 / kb) as u64;
        mean /= kb;
        dev /= kb;
        // fio says MiB here whatever kb_base is.
        unit = "MiB";
    }
    format!(
        "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={}%, avg={}, stdev={}, samples={}\n",
        fixed(per, 2),
        padded(mean, 5, 2),
        padded(dev, 5, 2),
        s.samples
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(samples: u64, min: u64, max: u64, mean: f64, dev: f64) -> Stat {
        Stat {
            samples,
            min,
            max,
            mean,
            dev,
        }
    }

    #[test]
    fn bw_line_kib() {
        // fio 3.33: "   bw (  KiB/s): min=164112, max=171880, per=100.00%, avg=167074.67, stdev=1883.33, samples=6"
        let l = bw_line(&stat(6, 164112, 171880, 167074.67, 1883.33), 100.0, 1024);
        assert_eq!(
            l,
            "   bw (  KiB/s): min=164112, max=171880, per=100.00%, avg=167074.67, stdev=1883.33, samples=6\n"
        );
    }

    #[test]
    fn bw_line_mib_even_with_kb_base_1000() {
        // fio 3.33 with kb_base=1000:
        //   "   bw (  MiB/s): min=12658, max=12658, per=90.88%, avg=12658.60, stdev= 0.00, samples=1"
        let l = bw_line(
            &stat(1, 12_658_600, 12_658_600, 12_658_600.0, 0.0),
            90.88,
            1000,
        );
        assert_eq!(
            l,
            "   bw (  MiB/s): min=12658, max=12658, per=90.88%, avg=12658.60, stdev= 0.00, samples=1\n"
        );
    }

    #[test]
    fn bw_line_kb() {
        let l = bw_line(&stat(2, 100, 200, 150.0, 70.71), 50.0, 1000);
        assert!(
            l.starts_with("   bw (   kB/s): min=  100, max=  200, per=50.00%"),
            "{l}"
        );
    }

    #[test]
    fn error_text_has_no_os_error_suffix() {
        assert_eq!(error_text(5), "error=Input/output error");
    }
}
