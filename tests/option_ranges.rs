//! fio's option ranges, read from the installed fio (`fio --cmdhelp=NAME`:
//! "range: min=A, max=B"): with `--parse-only`, each edge of a range is
//! taken and each value just outside it refused, by ioscope as by fio,
//! but where ioscope chooses otherwise for a reason named in [`CHOSEN`].

mod common;

use common::{fio, ioscope, tempdir};
use ioscope_testutil::{fio as fio_installed, require};

/// Where ioscope answers otherwise than fio's parser, and why. Each must
/// still differ: a change on either side shows here.
const CHOSEN: &[(&str, &str, &str)] = &[
    (
        "nrfiles",
        "0",
        "fio runs no I/O and exits 0; ioscope refuses a job that can do nothing",
    ),
    (
        "numjobs",
        "0",
        "fio fails it once it runs (\"maximum number of jobs reached\")",
    ),
    (
        "cpumask",
        "0",
        "a mask of no CPU: fio fails the job once it runs",
    ),
    (
        "bwavgtime",
        "0",
        "fio then samples whenever its helper thread wakes: no period",
    ),
    (
        "iopsavgtime",
        "0",
        "fio then samples whenever its helper thread wakes: no period",
    ),
    (
        "hugepage-size",
        "0",
        "fio's huge-page buffers then fail their I/O (EFAULT)",
    ),
    (
        "fill_device",
        "1",
        "ioscope refuses fill_device with reads (the job here reads), which never fill a device",
    ),
    (
        "verify_state_load",
        "1",
        "ioscope refuses verify options on a job without verify, which fio ignores",
    ),
    (
        "trim_percentage",
        "100",
        "ioscope refuses verify options on a job without verify, which fio ignores",
    ),
];

/// fio's range of each of its options that has one: (name, min, max),
/// max None where fio sets none (or -1, its "no maximum").
fn fio_ranges() -> Vec<(String, i64, Option<i64>)> {
    let all = fio(["--cmdhelp=all"]).run();
    assert!(all.status.success(), "{}", all.describe());
    let names: Vec<String> = all
        .stdout
        .lines()
        .filter_map(|l| Some(l.split_once(':')?.0.trim().to_string()))
        .filter(|n| !n.is_empty() && !n.contains(' '))
        .collect();
    assert!(
        names.len() > 150,
        "fio --cmdhelp=all listed {}",
        names.len()
    );
    let ranges: Vec<_> = in_parallel(&names, |name| {
        let help = fio([format!("--cmdhelp={name}")]).run().stdout;
        let range = help
            .lines()
            .find_map(|l| l.trim().strip_prefix("range: "))?;
        let field = |key: &str| -> Option<i64> {
            range
                .split(", ")
                .find_map(|f| f.strip_prefix(key))
                .and_then(|v| v.parse().ok())
        };
        let max = field("max=").filter(|&m| m > 0 && m < 1_000_000_000);
        Some((name.clone(), field("min=")?, max))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(ranges.len() > 100, "fio gave {} ranges", ranges.len());
    ranges
}

/// `f` of each item, on a few threads (each item runs two programs).
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunk = items.len().div_ceil(4).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn option_ranges_are_fios() {
    require!(fio_installed());
    let dir = tempdir();
    let target = format!("--filename={}", dir.path().join("f").display());
    let takes = |tool: &str, name: &str, value: &str| -> bool {
        let args = [
            "--parse-only".to_string(),
            "--name=x".to_string(),
            target.clone(),
            "--size=1m".to_string(),
            format!("--{name}={value}"),
        ];
        let run = match tool {
            "fio" => fio(&args).dir(dir.path()).run(),
            _ => ioscope(&args).dir(dir.path()).run(),
        };
        run.status.success()
    };
    // (name, value, whether fio's range holds it); None for the value: a
    // negative one, which fio 3.33 takes for an option whose least is 0
    // (its parser compares only a nonzero least) and ioscope refuses as
    // the bad input it is.
    let mut cases: Vec<(String, Option<String>, bool)> = Vec::new();
    for (name, min, max) in fio_ranges() {
        cases.push((name.clone(), Some(min.to_string()), true));
        match min {
            0 => cases.push((name.clone(), None, false)),
            _ => cases.push((name.clone(), Some((min - 1).to_string()), false)),
        }
        if let Some(max) = max {
            cases.push((name.clone(), Some(max.to_string()), true));
            cases.push((name, Some((max + 1).to_string()), false));
        }
    }
    let verdicts = in_parallel(&cases, |(name, value, inside)| {
        let Some(value) = value else {
            return takes("ioscope", name, "-1")
                .then(|| format!("{name}=-1: ioscope takes a negative value"));
        };
        let (theirs, ours) = (takes("fio", name, value), takes("ioscope", name, value));
        let word = |t: bool| if t { "takes it" } else { "refuses it" };
        match CHOSEN.iter().find(|(n, v, _)| n == name && v == value) {
            Some((_, _, why)) => (ours == theirs).then(|| {
                format!(
                    "{name}={value}: both now {}, where ioscope chose otherwise ({why})",
                    word(ours)
                )
            }),
            None => (ours != theirs).then(|| {
                format!(
                    "{name}={value} ({} fio's range): fio {}, ioscope {}",
                    if *inside { "inside" } else { "outside" },
                    word(theirs),
                    word(ours)
                )
            }),
        }
    });
    let tried = |(n, v, _): &&(&str, &str, &str)| {
        cases
            .iter()
            .any(|(name, value, _)| name == n && value.as_deref() == Some(*v))
    };
    assert!(
        CHOSEN.iter().all(|c| tried(&c)),
        "a chosen difference was not tried"
    );
    let wrong: Vec<String> = verdicts.into_iter().flatten().collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
