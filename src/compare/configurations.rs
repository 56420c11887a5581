//! The configurations of a compare: a job file's sections, or the shared
//! command-line job options plus each `--vs` list.

use anyhow::bail;
use ioscope_job::ParseInput;

use super::cli::{split_commas, Args};

/// A configuration: its name, what it sets beyond the shared options (for
/// `--vs`; a section's are read from its result), and what to parse.
#[derive(Debug)]
pub struct Configuration {
    pub name: String,
    pub options: Vec<(String, String)>,
    pub input: ParseInput,
}

pub fn from_args(args: &Args) -> anyhow::Result<Vec<Configuration>> {
    let configurations = match (args.job_files.is_empty(), args.vs.is_empty()) {
        (false, true) => from_sections(args)?,
        (true, false) => from_vs(args)?,
        (false, false) => bail!(
            "give the configurations either as a job file's sections or as --vs lists, \
             not both"
        ),
        (true, true) => bail!(
            "nothing to compare: give a job file (each section a configuration) or \
             job options with two or more --vs lists"
        ),
    };
    if configurations.len() < 2 {
        bail!(
            "a comparison needs two or more configurations; found {} ({})",
            configurations.len(),
            configurations
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for (i, c) in configurations.iter().enumerate() {
        if configurations[..i].iter().any(|o| o.name == c.name) {
            bail!("two configurations are named {}; name them apart", c.name);
        }
    }
    Ok(configurations)
}

/// Each job section of the files (or those `--section` names) is one
/// configuration; `[global]` and command-line options are shared.
fn from_sections(args: &Args) -> anyhow::Result<Vec<Configuration>> {
    let all = ioscope_job::parse(&ParseInput {
        job_files: args.job_files.clone(),
        job_texts: Vec::new(),
        cli_options: args.job_options.clone(),
        sections: vec![],
        profile: None,
    })?;
    let names: Vec<String> = all.jobs.iter().map(|j| j.name.clone()).collect();
    let chosen = if args.sections.is_empty() {
        names.clone()
    } else {
        for s in &args.sections {
            if !names.contains(s) {
                bail!(
                    "--section={s}: no such section in the job file; its sections are {}",
                    names.join(", ")
                );
            }
        }
        args.sections.clone()
    };
    Ok(chosen
        .into_iter()
        .map(|name| Configuration {
            input: ParseInput {
                job_files: args.job_files.clone(),
                job_texts: Vec::new(),
                cli_options: args.job_options.clone(),
                sections: vec![name.clone()],
                profile: None,
            },
            name,
            options: vec![],
        })
        .collect())
}

/// One configuration per `--vs`: the shared options, then its own.
fn from_vs(args: &Args) -> anyhow::Result<Vec<Configuration>> {
    if let Some(name) = args.job_options.iter().find(|o| o.starts_with("--name=")) {
        bail!(
            "{name}: a compare names its configurations itself; give each one's name \
             in its --vs list (--vs name=fast,ioengine=io_uring)"
        );
    }
    if !args.sections.is_empty() {
        bail!("--section chooses sections of a job file; there is none");
    }
    args.vs
        .iter()
        .map(|list| {
            let mut name = None;
            let mut options = Vec::new();
            for item in split_commas(list) {
                let (key, value) = item.split_once('=').unwrap_or((&item, ""));
                if key.is_empty() {
                    bail!("--vs {list}: an empty option; give --vs OPTION=VALUE[,OPTION=VALUE...]");
                }
                if key == "name" {
                    name = Some(value.to_string());
                } else {
                    options.push((key.to_string(), value.to_string()));
                }
            }
            if options.is_empty() {
                bail!("--vs {list}: no job options; give --vs OPTION=VALUE[,OPTION=VALUE...]");
            }
            let name = name.unwrap_or_else(|| {
                options
                    .iter()
                    .map(|(k, v)| {
                        if v.is_empty() {
                            k.clone()
                        } else {
                            format!("{k}={v}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            });
            let mut cli_options = vec![format!("--name={name}")];
            cli_options.extend(args.job_options.iter().cloned());
            cli_options.extend(options.iter().map(|(k, v)| {
                if v.is_empty() {
                    format!("--{k}")
                } else {
                    format!("--{k}={v}")
                }
            }));
            Ok(Configuration {
                name,
                options,
                input: ParseInput {
                    job_files: vec![],
                    job_texts: Vec::new(),
                    cli_options,
                    sections: vec![],
                    profile: None,
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vs(lists: &[&str]) -> anyhow::Result<Vec<Configuration>> {
        from_args(&Args {
            job_options: vec!["--rw=read".into()],
            vs: lists.iter().map(|s| s.to_string()).collect(),
            ..Args::default()
        })
    }

    #[test]
    fn a_vs_list_is_named_by_its_options_unless_named() {
        let c = vs(&[
            "ioengine=io_uring,hipri=1",
            r"name=mixed,bs=4k\,8k,time_based",
        ])
        .unwrap();
        assert_eq!(c[0].name, "ioengine=io_uring,hipri=1");
        assert_eq!(
            c[0].input.cli_options,
            [
                "--name=ioengine=io_uring,hipri=1",
                "--rw=read",
                "--ioengine=io_uring",
                "--hipri=1"
            ]
        );
        assert_eq!(c[1].name, "mixed");
        assert_eq!(
            c[1].input.cli_options,
            ["--name=mixed", "--rw=read", "--bs=4k,8k", "--time_based"]
        );
        assert_eq!(
            c[1].options,
            [
                ("bs".to_string(), "4k,8k".to_string()),
                ("time_based".to_string(), String::new())
            ]
        );
    }

    #[test]
    fn names_must_differ() {
        let e = vs(&["name=a,bs=4k", "name=a,bs=8k"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("two configurations are named a"), "{e}");
    }
}
