//! Every option's default, given as a value, must give the job that not
//! giving it gives: then the default `--cmdhelp` shows is what runs.

use super::OPTIONS;
use crate::{parse, JobSpec, ParseInput};

/// Options with a default that a job may not give without changing what
/// runs, and why.
const GIVING_THE_DEFAULT_DIFFERS: &[(&str, &str)] = &[(
    "randseed",
    "a given seed turns randrepeat off, as in fio (init.c: fio_option_is_set(rand_seed)); \
     a job that gives none is seeded from the same 0x89",
)];

fn job(args: &[String]) -> Result<JobSpec, String> {
    let mut parsed = parse(&ParseInput {
        cli_options: args.to_vec(),
        ..ParseInput::default()
    })
    .map_err(|e| e.message)?;
    let mut job = parsed.jobs.remove(0);
    // The echo of the options given is bound to differ.
    job.options.clear();
    Ok(job)
}

#[test]
fn giving_an_options_default_changes_nothing() {
    let mut without_default = Vec::new();
    let mut failures = Vec::new();
    for def in OPTIONS {
        if def.default.is_empty() {
            without_default.push(def.name);
            continue;
        }
        if let Some((_, why)) = GIVING_THE_DEFAULT_DIFFERS
            .iter()
            .find(|(name, _)| *name == def.name)
        {
            eprintln!("skipped {}: {why}", def.name);
            continue;
        }
        let mut args = vec!["--name=x".to_string()];
        // An engine option is given with an engine that takes it.
        if let Some(engine) = def.engines().first() {
            args.push(format!("--ioengine={}", engine.name()));
            // What these engines' jobs cannot resolve without.
            let needs: &[&str] = match engine.name() {
                "cpuio" => &["--cpuload=50", "--runtime=1"],
                "exec" => &["--program=true", "--runtime=1"],
                "e4defrag" => &["--donorname=d", "--filesize=1m"],
                _ => &[],
            };
            args.extend(needs.iter().map(|s| s.to_string()));
        }
        let plain = job(&args).expect("the default job resolves");
        args.push(format!("--{}={}", def.name, def.default));
        match job(&args) {
            Ok(given) if given == plain => {}
            Ok(given) => failures.push(format!(
                "--{}={} gives another job than no {}:\n  default: {plain:?}\n  given:   {given:?}",
                def.name, def.default, def.name
            )),
            Err(e) => failures.push(format!("--{}={}: {e}", def.name, def.default)),
        }
    }
    eprintln!(
        "skipped, no default (the value stays blank, or the resolve step derives it): {}",
        without_default.join(", ")
    );
    for (name, _) in GIVING_THE_DEFAULT_DIFFERS {
        let def = super::find(name).expect("a listed option exists");
        assert!(!def.default.is_empty(), "{name} has no default to skip");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn defaults_hold_no_units() {
    // Defaults are applied in table order, before kb_base's own default:
    // a unit in one would be read with a blank kb_base.
    for def in OPTIONS {
        assert!(
            !def.default.chars().any(|c| c.is_ascii_alphabetic())
                || def.default.starts_with("0x")
                || matches!(
                    def.kind,
                    super::Kind::Choice(_)
                        | super::Kind::Engine
                        | super::Kind::Text
                        | super::Kind::Float
                ),
            "{}: default '{}' has a unit",
            def.name,
            def.default
        );
    }
}
