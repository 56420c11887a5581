//! The options of the smaller engines ported from fio (filestat, cpuio,
//! exec), as written, and what fio fixes up for those engines.

use std::time::Duration;

use ioscope_engine::{Backend, StatType};

use crate::spec::{JobSpec, SizeSpec};

/// The options of filestat, cpuio and exec.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnginesMisc {
    /// filestat `stat_type`.
    pub stat_type: StatType,
    /// cpuio `cpuload`: percent of the time burning (0: not given).
    pub cpuload: u32,
    /// cpuio `cpuchunks`: µs per burn.
    pub cpuchunks: u32,
    /// cpuio `cpumode=qsort` (else noop).
    pub cpu_qsort: bool,
    /// exec `program`.
    pub program: Option<String>,
    /// exec `arguments`, with fio's `%r` and `%n` still in.
    pub arguments: Option<String>,
    /// exec `grace_time`.
    pub grace_time: Duration,
    /// exec `std_redirect`.
    pub std_redirect: bool,
    /// e4defrag `donorname`.
    pub donorname: Option<String>,
    /// e4defrag `inplace`.
    pub inplace: bool,
    /// cpuio `exit_on_io_done`: the job ends once the run's I/O jobs have.
    pub exit_on_io_done: bool,
}

impl EnginesMisc {
    /// exec's command line: `program arguments` split at spaces, as fio
    /// splits it, with `%r` (the runtime in whole seconds) and `%n` (the
    /// job's name) replaced.
    pub fn exec_argv(&self, spec: &JobSpec) -> Vec<String> {
        let runtime = spec.runtime.map_or(0, |r| r.as_secs()).to_string();
        let mut line = self.program.clone().unwrap_or_default();
        if let Some(args) = &self.arguments {
            line.push(' ');
            line.push_str(&args.replace("%r", &runtime).replace("%n", &spec.name));
        }
        line.split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// fio's fix-ups for cpuio and exec (their `init`): they do no I/O and
/// run for the job's runtime, whatever the size; one file. Refuses what
/// fio refuses when the job starts (no cpuload, no program), and a job
/// without a runtime, which fio would run until stopped.
pub(crate) fn resolve(spec: &mut JobSpec) -> Result<(), String> {
    let engine = spec.ioengine;
    if engine == Backend::E4defrag {
        return check_e4defrag(spec);
    }
    if !matches!(engine, Backend::Cpuio | Backend::Exec) {
        return Ok(());
    }
    let misc = &mut spec.engines_misc;
    if engine == Backend::Cpuio {
        if misc.cpuload == 0 {
            return Err("ioengine=cpuio needs a load (cpuload=1 to 100)".into());
        }
        // fio caps it.
        misc.cpuload = misc.cpuload.min(100);
    }
    if engine == Backend::Exec && misc.program.as_deref().is_none_or(str::is_empty) {
        return Err("ioengine=exec needs a program to run (program=)".into());
    }
    if spec.runtime.is_none() {
        return Err(format!(
            "ioengine={} runs for the job's runtime: set runtime= (fio would run it until stopped)",
            engine.name()
        ));
    }
    spec.time_based = true;
    spec.nrfiles = 1;
    if spec.size.is_none() {
        // No data moves: a size is only the workload's unit, which a
        // time-based job repeats.
        spec.size = Some(SizeSpec::Bytes(spec.bs.read.max().max(spec.bs.write.max())));
    }
    Ok(())
}

/// What fio's e4defrag refuses when the job starts: no donor file, and
/// (inplace=0) a donor it cannot preallocate, which fio sizes by
/// `filesize` (without one, fio's fallocate of no length fails).
fn check_e4defrag(spec: &JobSpec) -> Result<(), String> {
    let misc = &spec.engines_misc;
    if misc.donorname.as_deref().is_none_or(str::is_empty) {
        return Err("ioengine=e4defrag needs a donor file (donorname=)".into());
    }
    if !misc.inplace && spec.filesize.is_none() {
        return Err(
            "ioengine=e4defrag with inplace=0 preallocates the donor file to filesize=, \
             which is not set"
                .into(),
        );
    }
    Ok(())
}
