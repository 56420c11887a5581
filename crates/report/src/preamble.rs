//! The lines fio prints before a normal-format run: one per job, `...` for
//! numjobs clones, the version line and `Starting N processes`.

use crate::group::is_pow2;
use crate::num2str::{num2str, Unit, SIG_FIGS};
use ioscope_stats::JobHeader;

/// The job line (init.c add_job): block sizes through num2str with kb_base.
pub fn job_line(h: &JobHeader, kb_base: u32) -> String {
    let i2p = is_pow2(kb_base);
    let b = |v: u64| num2str(v, SIG_FIGS, 1, i2p, Unit::Byte);
    format!(
        "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}\n",
        h.name,
        h.groupid,
        h.rw,
        b(h.bs[0].0),
        b(h.bs[0].1),
        b(h.bs[1].0),
        b(h.bs[1].1),
        b(h.bs[2].0),
        b(h.bs[2].1),
        h.ioengine,
        h.iodepth
    )
}

/// backend.c's `Starting 2 threads and 1 process`.
pub fn starting_line(headers: &[JobHeader]) -> String {
    let count = |thread: bool| -> u64 {
        headers
            .iter()
            .filter(|h| h.thread == thread)
            .map(|h| u64::from(h.numjobs.max(1)))
            .sum()
    };
    let (threads, processes) = (count(true), count(false));
    let mut out = String::from("Starting ");
    if threads != 0 {
        out.push_str(&format!(
            "{threads} thread{}",
            if threads > 1 { "s" } else { "" }
        ));
    }
    if processes != 0 {
        if threads != 0 {
            out.push_str(" and ");
        }
        out.push_str(&format!(
            "{processes} process{}",
            if processes > 1 { "es" } else { "" }
        ));
    }
    out.push('\n');
    out
}

/// All preamble lines; `version` replaces fio's "fio-3.33" and comes
/// after so many jobs' lines, or not at all.
pub fn render(headers: &[JobHeader], kb_base: u32, version: Option<(&str, usize)>) -> String {
    let mut out = String::new();
    for (i, h) in headers.iter().enumerate() {
        if let Some((v, _)) = version.filter(|&(_, at)| at == i) {
            out.push_str(v);
            out.push('\n');
        }
        out.push_str(&job_line(h, kb_base));
        if h.numjobs > 1 {
            out.push_str("...\n");
        }
    }
    if let Some((v, _)) = version.filter(|&(_, at)| at >= headers.len()) {
        out.push_str(v);
        out.push('\n');
    }
    out.push_str(&starting_line(headers));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, bs: u64, numjobs: u32, thread: bool) -> JobHeader {
        JobHeader {
            name: name.into(),
            description: None,
            groupid: 0,
            rw: "randrw".into(),
            bs: [(bs, bs); 3],
            ioengine: "psync".into(),
            iodepth: 1,
            numjobs,
            thread,
            xnvme: None,
            latency_profile: None,
        }
    }

    #[test]
    fn one_process_like_fio() {
        let p = render(&[header("t", 4096, 1, false)], 1024, Some(("fio-3.33", 1)));
        assert_eq!(
            p,
            "t: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n"
        );
    }

    #[test]
    fn clones_print_dots_once() {
        let p = render(&[header("t", 4096, 3, false)], 1024, Some(("fio-3.33", 1)));
        assert!(
            p.contains("iodepth=1\n...\nfio-3.33\nStarting 3 processes\n"),
            "{p}"
        );
    }

    #[test]
    fn threads_and_processes() {
        // fio 3.33: "Starting 1 thread and 2 processes"
        let h = [header("t", 4096, 1, true), header("u", 4096, 2, false)];
        assert_eq!(starting_line(&h), "Starting 1 thread and 2 processes\n");
        assert_eq!(starting_line(&h[..1]), "Starting 1 thread\n");
        let two = [header("t", 4096, 2, true)];
        assert_eq!(starting_line(&two), "Starting 2 threads\n");
    }

    #[test]
    fn block_sizes_follow_kb_base() {
        // fio 3.33: "bs=(R) 128KiB-128KiB" and with kb_base=1000 "bs=(R) 131kB-131kB"
        assert!(job_line(&header("t", 131072, 1, false), 1024).contains("bs=(R) 128KiB-128KiB,"));
        assert!(job_line(&header("t", 131072, 1, false), 1000).contains("bs=(R) 131kB-131kB,"));
        let mut h = header("t", 512, 1, false);
        h.bs = [(512, 1 << 20); 3];
        assert!(job_line(&h, 1024).contains("bs=(R) 512B-1024KiB, (W) 512B-1024KiB"));
    }
}
