//! `ioscope sweep`: one job run at every point of a grid of option values
//! (`--sweep iodepth=1,2,4 --sweep numjobs=1,2`, the first axis outermost),
//! each point's fio JSON document written to a file of its own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ioscope_job::ParseInput;
use ioscope_report::compare::{Axis, Point, Sweep};

use super::cli::{split_commas, Args};
use super::runner::{run_rounds, Job};

pub fn run(args: &Args) -> anyhow::Result<Sweep> {
    if !args.vs.is_empty() || !args.sections.is_empty() || args.baseline.is_some() {
        bail!("--vs, --section and --baseline belong to ioscope compare");
    }
    let repeat = args.repeat.unwrap_or(1);
    if repeat == 0 {
        bail!("--repeat=0: each point runs at least once");
    }
    let axes = axes(&args.sweeps)?;
    let points = grid(&axes);
    // A job given on the command line without a name gets one, so that
    // its options (and the point's) make a job rather than globals.
    let named = args.job_options.iter().any(|o| o.starts_with("--name="));
    let jobs = points
        .iter()
        .map(|point| {
            let mut cli_options = Vec::new();
            if args.job_files.is_empty() && !named {
                cli_options.push("--name=sweep".to_string());
            }
            cli_options.extend(args.job_options.iter().cloned());
            cli_options.extend(point.iter().map(|(k, v)| format!("--{k}={v}")));
            let input = ParseInput {
                job_files: args.job_files.clone(),
                job_texts: Vec::new(),
                cli_options,
                sections: vec![],
                profile: None,
            };
            Job::prepare(label(point), &input)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    refuse_overridden(&jobs)?;
    let dir = match &args.output_dir {
        Some(dir) => dir.clone(),
        None => PathBuf::from(format!("sweep-{}", utc_stamp())),
    };
    prepare_dir(&dir)?;
    let mut notices = Vec::new();
    let kept = run_rounds(&jobs, args.warmup, repeat, &mut notices)?;
    let mut done = Vec::new();
    for (i, (options, mut k)) in points.into_iter().zip(kept).enumerate() {
        let file = dir.join(file_name(i, points_width(&axes), &options));
        let result = k.results.pop().expect("every point ran at least once");
        let text = serde_json::to_string_pretty(&result)? + "\n";
        std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
        done.push(Point {
            options,
            file: file.display().to_string(),
            runs: k.metrics,
            result,
        });
    }
    Ok(Sweep {
        axes,
        points: done,
        notices,
    })
}

/// `--sweep OPTION=V1,V2,...` each; `\,` is a comma inside a value.
fn axes(sweeps: &[String]) -> anyhow::Result<Vec<Axis>> {
    if sweeps.is_empty() {
        bail!("nothing to sweep: give --sweep OPTION=V1,V2,... (e.g. --sweep iodepth=1,2,4,8)");
    }
    let mut axes: Vec<Axis> = Vec::new();
    for s in sweeps {
        let Some((option, list)) = s.split_once('=') else {
            bail!("--sweep {s}: give OPTION=V1,V2,...");
        };
        let option = option.trim_start_matches("--").to_string();
        let values = split_commas(list);
        if option.is_empty() || values.iter().any(String::is_empty) {
            bail!("--sweep {s}: an empty option or value; give OPTION=V1,V2,...");
        }
        if let Some(v) = values
            .iter()
            .enumerate()
            .find_map(|(i, v)| values[..i].contains(v).then_some(v))
        {
            bail!("--sweep {s}: {v} is given twice");
        }
        if axes.iter().any(|a| a.option == option) {
            bail!("--sweep {option}: swept twice; give its values in one list");
        }
        axes.push(Axis { option, values });
    }
    Ok(axes)
}

/// Every combination of the axes' values, the first axis outermost.
fn grid(axes: &[Axis]) -> Vec<Vec<(String, String)>> {
    let mut points = vec![vec![]];
    for axis in axes {
        points = points
            .into_iter()
            .flat_map(|p: Vec<(String, String)>| {
                axis.values.iter().map(move |v| {
                    let mut p = p.clone();
                    p.push((axis.option.clone(), v.clone()));
                    p
                })
            })
            .collect();
    }
    points
}

fn label(point: &[(String, String)]) -> String {
    let parts: Vec<String> = point.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("point {}", parts.join(","))
}

/// A job file that sets a swept option itself overrides the sweep (the
/// command line's options are its global defaults, as in fio): two points
/// that parse to the same jobs are refused rather than run as if swept.
fn refuse_overridden(jobs: &[Job]) -> anyhow::Result<()> {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for job in jobs {
        let spec = format!("{:?}", job.parsed().jobs);
        if let Some(other) = seen.insert(spec, &job.label) {
            bail!(
                "{} and {} make the same job: the job file sets the swept option itself, \
                 which overrides --sweep; remove it from the file",
                other,
                job.label
            );
        }
    }
    Ok(())
}

/// How many digits the point numbers need.
fn points_width(axes: &[Axis]) -> usize {
    let n: usize = axes.iter().map(|a| a.values.len()).product();
    n.to_string().len()
}

/// `03_iodepth-4_numjobs-2.json`: the point's number (run order, and
/// unique whatever the values hold), then each option and value, with
/// anything but letters, digits, `.`, `+` and `-` made `_`.
fn file_name(index: usize, width: usize, point: &[(String, String)]) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "+-.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let parts: Vec<String> = point
        .iter()
        .map(|(k, v)| format!("{}-{}", clean(k), clean(v)))
        .collect();
    format!("{:0width$}_{}.json", index + 1, parts.join("_"))
}

/// Creates the output directory; one that holds files already is refused
/// rather than mixed with.
fn prepare_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--output-dir: cannot create {}", dir.display()))?;
    let used = std::fs::read_dir(dir)
        .with_context(|| format!("--output-dir: cannot read {}", dir.display()))?
        .next()
        .is_some();
    if used {
        bail!(
            "--output-dir: {} is not empty; give a new directory",
            dir.display()
        );
    }
    Ok(())
}

/// The time now in UTC as YYYYmmdd-HHMMSS.
fn utc_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The calendar date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_runs_the_first_axis_outermost() {
        let axes = axes(&["iodepth=1,2".into(), "numjobs=1,4".into()]).unwrap();
        let points: Vec<String> = grid(&axes).iter().map(|p| label(p)).collect();
        assert_eq!(
            points,
            [
                "point iodepth=1,numjobs=1",
                "point iodepth=1,numjobs=4",
                "point iodepth=2,numjobs=1",
                "point iodepth=2,numjobs=4"
            ]
        );
    }

    #[test]
    fn bad_axes_are_refused() {
        for (bad, why) in [
            ("iodepth", "give OPTION=V1,V2"),
            ("iodepth=1,,2", "an empty option or value"),
            ("iodepth=1,1", "1 is given twice"),
        ] {
            let e = axes(&[bad.into()]).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
        let e = axes(&["bs=4k".into(), "bs=8k".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("swept twice"), "{e}");
        assert!(axes(&[])
            .unwrap_err()
            .to_string()
            .contains("nothing to sweep"));
    }

    #[test]
    fn file_names_say_the_point_and_stay_unique() {
        let point = [
            ("bs".to_string(), "4k,8k".to_string()),
            ("filename".to_string(), "/dev/zram0".to_string()),
        ];
        assert_eq!(
            file_name(2, 2, &point),
            "03_bs-4k_8k_filename-_dev_zram0.json"
        );
    }

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_416), (2025, 11, 24));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
