//! `--debug=LIST`: fio's debug categories. ioscope shows `random` (the
//! seeds each worker's generators start from, printed as fio 3.42's
//! setup_random_seeds prints them), `file` (its files looked at, laid out,
//! opened and closed) and `io` (each I/O as it is queued and completes;
//! the run crate's trace prints both); fio's other categories trace the
//! inside of fio (its processes, mutexes, option parser), which ioscope
//! does not print, and are refused by name rather than accepted to show
//! nothing.

use anyhow::bail;
use ioscope_job::Parsed;

/// fio's debug categories (debug.h), in its order.
const FIO_CATEGORIES: &[&str] = &[
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
    "sprandom",
];

/// The categories ioscope shows.
const SHOWN: &[&str] = &["file", "io", "random"];

/// What `--debug` asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Debug {
    pub file: bool,
    pub io: bool,
    pub random: bool,
}

/// What `--debug=VALUE` means: the categories to show, or None for `?` or
/// `help`, which list them (fio's "dumping debug options" line).
pub fn parse(value: &str) -> anyhow::Result<Option<Debug>> {
    if value == "?" || value == "help" {
        return Ok(None);
    }
    let mut debug = Debug::default();
    for name in value.split(',') {
        match name {
            // Every category ioscope has.
            "all" => {
                debug = Debug {
                    file: true,
                    io: true,
                    random: true,
                }
            }
            "file" => debug.file = true,
            "io" => debug.io = true,
            "random" => debug.random = true,
            n if FIO_CATEGORIES.contains(&n) || n.starts_with("job:") => bail!(
                "--debug={n}: ioscope has nothing to show for fio's '{n}' category \
                 (it shows {}; --debug=? lists them)",
                SHOWN.join(", ")
            ),
            n => bail!(
                "--debug: unknown category '{n}' (expected {} or all; --debug=? lists them)",
                SHOWN.join(", ")
            ),
        }
    }
    Ok(Some(debug))
}

/// `--debug=?`: the categories, on one line as fio prints them.
pub fn categories() -> String {
    format!("fio: dumping debug options:{},all\n", SHOWN.join(","))
}

/// fio's `random` lines for every worker, in thread order: `random`, the
/// process id, then `FIO_RAND_NR_OFFS=N` and `rand_seeds[i]=V`. Where no
/// seed is given and randrepeat is off, each generator draws its own seed
/// from the system: fio's "using system RNG" line says so, and no seeds
/// are printed, since none is shared.
pub fn random_lines(parsed: &Parsed) -> String {
    let pid = std::process::id();
    let mut out = String::new();
    let mut line = |text: String| out.push_str(&format!("{:<8} {pid:<5} {text}\n", "random"));
    let mut thread_number = 0u64;
    for job in &parsed.jobs {
        for _ in 0..job.numjobs.max(1) {
            thread_number += 1;
            if !job.randrepeat && job.randseed.is_none() {
                line("using system RNG for random seeds".into());
                continue;
            }
            let seeds = ioscope_workload::fio_seeds(job.randrepeat, job.randseed, thread_number);
            line(format!("FIO_RAND_NR_OFFS={}", seeds.len()));
            for (i, seed) in seeds.iter().enumerate() {
                line(format!("rand_seeds[{i}]={seed}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_io_random_and_all_are_shown_the_rest_refused_by_name() {
        let random = Debug {
            random: true,
            ..Debug::default()
        };
        assert_eq!(parse("random").unwrap(), Some(random));
        let io_file = Debug {
            io: true,
            file: true,
            random: false,
        };
        assert_eq!(parse("io,file").unwrap(), Some(io_file));
        let all = Debug {
            random: true,
            ..io_file
        };
        assert_eq!(parse("all").unwrap(), Some(all));
        assert_eq!(parse("?").unwrap(), None);
        let e = parse("random,mutex").unwrap_err().to_string();
        assert!(
            e.contains("--debug=mutex") && e.contains("nothing to show"),
            "{e}"
        );
        let e = parse("randmo").unwrap_err().to_string();
        assert!(e.contains("unknown category 'randmo'"), "{e}");
        assert_eq!(
            categories(),
            "fio: dumping debug options:file,io,random,all\n"
        );
    }

    #[test]
    fn seeds_follow_the_thread_numbers() {
        let mut job = ioscope_job::JobSpec::fio_defaults("r");
        job.numjobs = 2;
        let parsed = Parsed {
            jobs: vec![job],
            ..Parsed::default()
        };
        let text = random_lines(&parsed);
        let pid = std::process::id();
        let first = format!("random   {pid:<5} FIO_RAND_NR_OFFS=");
        assert!(text.starts_with(&first), "{text}");
        let seeds = ioscope_workload::fio_seeds(true, None, 2);
        assert!(
            text.ends_with(&format!(
                "rand_seeds[{}]={}\n",
                seeds.len() - 1,
                seeds[seeds.len() - 1]
            )),
            "{text}"
        );
        assert_eq!(text.matches("FIO_RAND_NR_OFFS").count(), 2);
    }
}
