//! The job files of "xNVMe ioengine Part 2" (fio wiki, 2022), transcribed
//! in `tests/data/`, parse as fio reads them, every section with the xNVMe
//! interface the post asks for.

use std::path::{Path, PathBuf};

use ioscope_engine::{Backend, XnvmeAsync};
use ioscope_job::{parse, JobSpec, ParseInput};

fn post_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

fn jobs(name: &str, cli: &[&str]) -> Vec<JobSpec> {
    let (sections, options): (Vec<&str>, Vec<&str>) =
        cli.iter().partition(|o| o.starts_with("--section="));
    parse(&ParseInput {
        job_files: vec![post_file(name)],
        job_texts: Vec::new(),
        cli_options: options.iter().map(|s| s.to_string()).collect(),
        sections: sections
            .iter()
            .map(|s| s.trim_start_matches("--section=").to_string())
            .collect(),
        profile: None,
    })
    .unwrap_or_else(|e| panic!("{name}: {}", e.message))
    .jobs
}

#[test]
fn compare1_runs_xnvmes_io_uring_three_ways() {
    let jobs = jobs("xnvme-compare1.fio", &[]);
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["default", "hipri", "sqpoll"]);
    for j in &jobs {
        assert_eq!(j.ioengine, Backend::Xnvme, "{}", j.name);
        assert_eq!(j.engine_options.xnvme.async_iface, XnvmeAsync::IoUring);
        assert_eq!(j.filenames, ["/dev/nvme0n1"]);
        assert!(j.direct && j.thread && j.time_based && j.norandommap);
        assert_eq!(j.iodepth, 1);
    }
    assert_eq!(
        jobs.iter().map(|j| j.hipri).collect::<Vec<_>>(),
        [false, true, false]
    );
    assert_eq!(
        jobs.iter()
            .map(|j| j.engine_options.sqthread_poll)
            .collect::<Vec<_>>(),
        [false, false, true]
    );
}

#[test]
fn compare2_sets_fios_engines_beside_xnvmes() {
    let jobs = jobs("xnvme-compare2.fio", &["--filename=/dev/ng0n1"]);
    let got: Vec<(&str, Backend, Option<XnvmeAsync>, bool, bool)> = jobs
        .iter()
        .map(|j| {
            let x = (j.ioengine == Backend::Xnvme).then_some(j.engine_options.xnvme.async_iface);
            (
                j.name.as_str(),
                j.ioengine,
                x,
                j.hipri,
                j.engine_options.sqthread_poll,
            )
        })
        .collect();
    use XnvmeAsync::{IoUring, IoUringCmd};
    assert_eq!(
        got,
        [
            ("uring", Backend::IoUring, None, true, false),
            ("xnvme_uring", Backend::Xnvme, Some(IoUring), true, false),
            ("ucmd", Backend::IoUringCmd, None, false, false),
            ("xnvme_ucmd", Backend::Xnvme, Some(IoUringCmd), false, false),
            ("ucmd_sqthread", Backend::IoUringCmd, None, false, true),
            (
                "xnvme_ucmd_sqthread",
                Backend::Xnvme,
                Some(IoUringCmd),
                false,
                true
            ),
        ]
    );
    assert!(jobs[0].direct && jobs[1].direct && !jobs[3].direct);
    assert_eq!(jobs[0].engine_options.nonvectored, Some(true));
}

#[test]
fn xnvme_options_take_fios_values() {
    let spec = jobs(
        "xnvme-compare1.fio",
        &[
            "--section=default",
            "--xnvme_sync=psync",
            "--xnvme_admin=block",
            "--xnvme_dev_nsid=1",
            "--xnvme_dev_subnqn=nqn.2014-08.org.nvmexpress:uuid:1",
            "--xnvme_iovec=1",
            "--xnvme_mem=posix",
            "--xnvme_be=linux",
        ],
    );
    assert_eq!(spec.len(), 1);
    let x = &spec[0].engine_options.xnvme;
    assert_eq!(x.sync_iface.name(), "psync");
    assert_eq!(x.dev_nsid, Some(1));
    assert!(x.iovec);
    assert_eq!(
        x.dev_subnqn.as_deref(),
        Some("nqn.2014-08.org.nvmexpress:uuid:1")
    );
}
