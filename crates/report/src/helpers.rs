//! ioscope's own CPU figures, beside fio's and never instead of them: the
//! io_uring helper threads (SQ polling, io-wq workers) charged to each job,
//! the requests punted to io-wq, CPU per I/O, and where the whole process's
//! CPU went. The normal output shows the helper lines only when a job had
//! helper threads or punts, so a run that fio could also describe prints
//! exactly what fio prints.

use crate::cfmt::fixed;
use ioscope_stats::{CpuAccounting, HelperCpu, JobResult, Punts, PuntsUncounted};
use serde_json::{Map, Value};

/// Percent of the job's runtime, as fio computes usr_cpu.
fn percent(ns: u64, runtime_ms: u64) -> f64 {
    if runtime_ms == 0 {
        return 0.0;
    }
    ns as f64 / 1_000_000.0 * 100.0 / runtime_ms as f64
}

/// Completed I/Os of every direction, syncs included.
fn total_ios(job: &JobResult) -> u64 {
    job.dirs.iter().map(|d| d.total_ios).sum::<u64>() + job.sync.total_ios
}

/// Nanoseconds of CPU (workers and their helpers) per completed I/O.
pub fn cpu_ns_per_io(job: &JobResult) -> f64 {
    let ios = total_ios(job);
    if ios == 0 {
        return 0.0;
    }
    let ns = job.cpu.user_ns + job.cpu.sys_ns + job.helper_cpu.total_ns();
    ns as f64 / ios as f64
}

/// The punt count for JSON: -1 where it could not be counted.
fn punts_json(punts: Punts) -> Value {
    punts.counted().map_or(Value::from(-1), Value::from)
}

/// Whether a job or the run has anything for the helper lines to show:
/// helper threads, or punts (counted without a worker seen).
fn helper_lines_apply(h: &HelperCpu) -> bool {
    h.sqpoll_threads > 0 || h.iowq_threads > 0 || h.punts.counted().is_some_and(|n| n > 0)
}

/// The job's keys: iou_sqp_cpu, iou_wrk_cpu (percent of runtime),
/// iou_wrk_threads, iou_punts (-1: not counted), cpu_ns_per_io.
pub fn job_json(job: &JobResult, o: &mut Map<String, Value>) {
    let h = &job.helper_cpu;
    o.insert(
        "iou_sqp_cpu".into(),
        Value::from(percent(h.sqpoll_ns, job.runtime_ms)),
    );
    o.insert(
        "iou_wrk_cpu".into(),
        Value::from(percent(h.iowq_ns, job.runtime_ms)),
    );
    o.insert("iou_wrk_threads".into(), Value::from(h.iowq_threads));
    o.insert("iou_punts".into(), punts_json(h.punts));
    o.insert("cpu_ns_per_io".into(), Value::from(cpu_ns_per_io(job)));
    if let Some((checked, bad)) = job.verify {
        o.insert("verify_checked".into(), Value::from(checked));
        o.insert("verify_bad".into(), Value::from(bad));
    }
    if let Some(n) = job.faults_injected {
        o.insert("faults_injected".into(), Value::from(n));
    }
    if let Some(x) = &job.header.xnvme {
        o.insert("xnvme_backend".into(), Value::from(x.backend.clone()));
        o.insert("xnvme_interfaces".into(), Value::from(x.interfaces.clone()));
    }
}

/// The line under fio's `cpu :` line, when the job had helper threads or
/// punts.
pub fn job_line(job: &JobResult) -> String {
    let h = &job.helper_cpu;
    if !helper_lines_apply(h) {
        return String::new();
    }
    let punted = match h.punts {
        Punts::Counted(n) => {
            let ios = total_ios(job);
            let share = if ios == 0 {
                0.0
            } else {
                n as f64 * 100.0 / ios as f64
            };
            format!(" punted={n} ({}% of I/Os),", fixed(share, 1))
        }
        Punts::Uncounted(PuntsUncounted::NotAsked) => String::new(),
        Punts::Uncounted(_) => " punted=not counted,".into(),
    };
    format!(
        "  io_uring cpu : sqpoll={}%, io-wq={}% ({} worker{}),{punted} cpu/io={}ns\n",
        fixed(percent(h.sqpoll_ns, job.runtime_ms), 2),
        fixed(percent(h.iowq_ns, job.runtime_ms), 2),
        h.iowq_threads,
        if h.iowq_threads == 1 { "" } else { "s" },
        fixed(cpu_ns_per_io(job), 0),
    )
}

/// The top-level "cpu_accounting" object.
pub fn run_json(cpu: &CpuAccounting) -> Value {
    let mut o = Map::new();
    o.insert("process_usr_ns".into(), Value::from(cpu.process.user_ns));
    o.insert("process_sys_ns".into(), Value::from(cpu.process.sys_ns));
    o.insert("workers_ns".into(), Value::from(cpu.workers_ns));
    o.insert("iou_sqp_ns".into(), Value::from(cpu.helpers.sqpoll_ns));
    o.insert("iou_wrk_ns".into(), Value::from(cpu.helpers.iowq_ns));
    o.insert("other_ns".into(), Value::from(cpu.other_ns()));
    o.insert("iou_punts".into(), punts_json(cpu.helpers.punts));
    if let Punts::Uncounted(why) = cpu.helpers.punts {
        o.insert("iou_punts_uncounted".into(), Value::from(why.reason()));
    }
    Value::Object(o)
}

/// The closing reconciliation line, when any helper thread ran. Why punts
/// were not counted, when they were asked for, is a notice.
pub fn run_line(cpu: &CpuAccounting) -> String {
    let h = &cpu.helpers;
    if !helper_lines_apply(h) {
        return String::new();
    }
    let ms = |ns: u64| fixed(ns as f64 / 1_000_000.0, 1);
    format!(
        "\nCPU (msec): process={}, workers={}, iou-sqp={}, iou-wrk={}, other={}\n",
        ms(cpu.process.user_ns + cpu.process.sys_ns),
        ms(cpu.workers_ns),
        ms(h.sqpoll_ns),
        ms(h.iowq_ns),
        ms(cpu.other_ns()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_stats::{HelperCpu, ThreadCpu};

    fn job_with_helpers() -> JobResult {
        let mut job = JobResult {
            runtime_ms: 1000,
            ..JobResult::default()
        };
        job.dirs[0].total_ios = 1000;
        job.cpu.user_ns = 100_000_000;
        job.cpu.sys_ns = 200_000_000;
        job.helper_cpu = HelperCpu {
            sqpoll_ns: 500_000_000,
            iowq_ns: 250_000_000,
            sqpoll_threads: 1,
            iowq_threads: 2,
            punts: Punts::Counted(250),
        };
        job
    }

    #[test]
    fn helper_cpu_is_a_share_of_runtime_and_counts_in_cpu_per_io() {
        let job = job_with_helpers();
        assert_eq!(
            job_line(&job),
            "  io_uring cpu : sqpoll=50.00%, io-wq=25.00% (2 workers), punted=250 (25.0% of I/Os), cpu/io=1050000ns\n"
        );
        let mut o = Map::new();
        job_json(&job, &mut o);
        assert_eq!(o["iou_sqp_cpu"], Value::from(50.0));
        assert_eq!(o["iou_wrk_threads"], Value::from(2));
        assert_eq!(o["iou_punts"], Value::from(250));
        assert_eq!(o["cpu_ns_per_io"], Value::from(1_050_000.0));
    }

    #[test]
    fn no_helpers_no_extra_text() {
        assert_eq!(job_line(&JobResult::default()), "");
        assert_eq!(run_line(&CpuAccounting::default()), "");
    }

    /// A short-lived io-wq worker can start and exit between two samples
    /// of the thread list; its punts still show the line.
    #[test]
    fn punts_alone_show_the_line() {
        let mut job = JobResult::default();
        job.dirs[0].total_ios = 8;
        job.helper_cpu.punts = Punts::Counted(2);
        assert_eq!(
            job_line(&job),
            "  io_uring cpu : sqpoll=0.00%, io-wq=0.00% (0 workers), punted=2 (25.0% of I/Os), cpu/io=0ns\n"
        );
    }

    /// Without count_punts the line is as it was before punts were counted.
    #[test]
    fn punts_not_asked_for_leave_the_line_alone() {
        let mut job = job_with_helpers();
        job.helper_cpu.punts = Punts::Uncounted(PuntsUncounted::NotAsked);
        assert_eq!(
            job_line(&job),
            "  io_uring cpu : sqpoll=50.00%, io-wq=25.00% (2 workers), cpu/io=1050000ns\n"
        );
        let cpu = CpuAccounting {
            helpers: job.helper_cpu,
            ..CpuAccounting::default()
        };
        assert!(!run_line(&cpu).contains("punts"));
        assert_eq!(run_json(&cpu)["iou_punts"], Value::from(-1));
        assert!(run_json(&cpu)["iou_punts_uncounted"]
            .as_str()
            .unwrap()
            .contains("count_punts=1"));
    }

    #[test]
    fn uncounted_punts_are_minus_one_and_the_reason_is_given() {
        let mut job = job_with_helpers();
        job.helper_cpu.punts = Punts::Uncounted(PuntsUncounted::NoTracefs);
        assert!(job_line(&job).contains("punted=not counted, "));
        let mut o = Map::new();
        job_json(&job, &mut o);
        assert_eq!(o["iou_punts"], Value::from(-1));
        let cpu = CpuAccounting {
            helpers: job.helper_cpu,
            ..CpuAccounting::default()
        };
        let why = PuntsUncounted::NoTracefs.reason();
        assert!(!run_line(&cpu).contains("punts"), "a notice says it");
        assert!(cpu.helpers.punts.notice().unwrap().message().contains(&why));
        assert_eq!(run_json(&cpu)["iou_punts"], Value::from(-1));
        assert_eq!(run_json(&cpu)["iou_punts_uncounted"], Value::from(why));
    }

    #[test]
    fn the_process_total_is_reconciled() {
        let cpu = CpuAccounting {
            process: ThreadCpu {
                user_ns: 1_000_000_000,
                sys_ns: 1_000_000_000,
                ..ThreadCpu::default()
            },
            workers_ns: 1_200_000_000,
            helpers: job_with_helpers().helper_cpu,
        };
        assert_eq!(cpu.other_ns(), 50_000_000);
        assert_eq!(
            run_line(&cpu),
            "\nCPU (msec): process=2000.0, workers=1200.0, iou-sqp=500.0, iou-wrk=250.0, other=50.0\n"
        );
        assert_eq!(run_json(&cpu)["other_ns"], Value::from(50_000_000u64));
    }
}
