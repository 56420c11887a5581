//! The job parser on hostile input: random bytes, and mutations of real
//! job files (this crate's test data and the examples a user runs), fed
//! through the entry point the binary calls, includes and all. Each case
//! must come back as Ok or Err; a panic fails the test with the input that
//! caused it.
//!
//! A small hand-rolled mutator with a fixed seed keeps the cases the same
//! on every run, so a failure reproduces. CASES is chosen so that the test
//! stays well under the 30 s CI allows it in `cargo test --release`: each
//! case (two small file writes and a parse) takes about 2 ms, so 4000 took
//! 8 s on a 2-core machine under heavy load; a debug build is slower.

use std::fs;
use std::path::{Path, PathBuf};

use ioscope_job::{parse, ParseInput};

const CASES: usize = 4000;

/// xorshift64*: deterministic and good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The job files the mutations start from.
fn seeds() -> Vec<Vec<u8>> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![
        crate_dir.join("testdata"),
        crate_dir.join("testdata/inc"),
        crate_dir.join("../../examples"),
    ];
    let mut seeds = Vec::new();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_file() {
                seeds.push(fs::read(&path).expect("a seed job file is readable"));
            }
        }
    }
    assert!(seeds.len() >= 4, "the seed job files are missing");
    seeds
}

/// Values and lines that reach the parser's edges: limits, units, odd
/// syntax, substitutions, includes.
const INTERESTING: &[&str] = &[
    "18446744073709551615",
    "9223372036854775807",
    "9223372036854775808",
    "16777216t",
    "0x",
    "0xffffffffffffffff",
    "-1",
    "4ki",
    "1Gi",
    "(1+",
    "((((((((((1))))))))))",
    "$ncpus*$mb_memory*$pagesize",
    "${HOME}",
    "${IOSCOPE_FUZZ_UNSET}",
    "${",
    "4k-",
    ",,",
    ":",
    "%",
    "100%",
    "0",
    "",
    "yes",
    "-",
    "\u{e9}",
    "include inc.fio",
    "include loop.fio",
    "include /dev/null",
    "[global]",
    "[j]",
    "ioengine=io_uring",
    "ioengine=exec",
    "program=/bin/true",
    "sqthread_poll=1",
    "offset_increment=4611686018427387904",
    "numjobs=3",
    "filename=${IOSCOPE_FUZZ_UNSET}/x",
];

fn mutate(rng: &mut Rng, mut text: Vec<u8>) -> Vec<u8> {
    for _ in 0..=rng.below(4) {
        match rng.below(8) {
            // Flip a byte.
            0 if !text.is_empty() => {
                let i = rng.below(text.len());
                text[i] ^= 1 << rng.below(8);
            }
            // Replace a byte with any byte.
            1 if !text.is_empty() => {
                let i = rng.below(text.len());
                text[i] = rng.next() as u8;
            }
            // Truncate.
            2 => text.truncate(rng.below(text.len() + 1)),
            // Duplicate a line.
            3 => {
                let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
                let line = rng.pick(&lines).to_vec();
                let at = rng.below(lines.len() + 1);
                let mut out: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
                out.insert(at, line);
                text = out.join(&b'\n');
            }
            // Swap the values of two lines.
            4 => {
                let mut lines: Vec<Vec<u8>> =
                    text.split(|&b| b == b'\n').map(|l| l.to_vec()).collect();
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                let split = |l: &Vec<u8>| l.iter().position(|&c| c == b'=');
                if let (Some(ea), Some(eb)) = (split(&lines[a]), split(&lines[b])) {
                    let va = lines[a][ea..].to_vec();
                    let vb = lines[b][eb..].to_vec();
                    lines[a].truncate(ea);
                    lines[a].extend_from_slice(&vb);
                    lines[b].truncate(eb);
                    lines[b].extend_from_slice(&va);
                }
                text = lines.join(&b'\n');
            }
            // Replace a value with an interesting one.
            5 => {
                let mut lines: Vec<Vec<u8>> =
                    text.split(|&b| b == b'\n').map(|l| l.to_vec()).collect();
                let i = rng.below(lines.len());
                if let Some(eq) = lines[i].iter().position(|&c| c == b'=') {
                    lines[i].truncate(eq + 1);
                    lines[i].extend_from_slice(rng.pick(INTERESTING).as_bytes());
                }
                text = lines.join(&b'\n');
            }
            // Insert an interesting line.
            6 => {
                let mut lines: Vec<Vec<u8>> =
                    text.split(|&b| b == b'\n').map(|l| l.to_vec()).collect();
                let at = rng.below(lines.len() + 1);
                lines.insert(at, rng.pick(INTERESTING).as_bytes().to_vec());
                text = lines.join(&b'\n');
            }
            // Insert random bytes.
            _ => {
                let at = rng.below(text.len() + 1);
                let noise: Vec<u8> = (0..rng.below(16)).map(|_| rng.next() as u8).collect();
                text.splice(at..at, noise);
            }
        }
    }
    text
}

/// A job option for the command line, made of the same material.
fn cli_option(rng: &mut Rng) -> String {
    let keys = [
        "name",
        "rw",
        "bs",
        "size",
        "offset",
        "ioengine",
        "hipri",
        "time_based",
        "direct",
        "numjobs",
        "filename",
        "runtime",
        "kb_base",
        "pool",
        "program",
    ];
    let key = rng.pick(&keys);
    match rng.below(3) {
        0 => format!("--{key}"),
        _ => format!("--{key}={}", rng.pick(INTERESTING)),
    }
}

#[test]
fn the_parser_never_panics() {
    let seeds = seeds();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let job: PathBuf = dir.path().join("job.fio");
    let inc = dir.path().join("inc.fio");
    fs::write(dir.path().join("loop.fio"), "include loop.fio\n").expect("writing loop.fio");
    let mut rng = Rng(0x0105_c09e);
    for case in 0..CASES {
        let text = if rng.below(10) == 0 {
            (0..rng.below(512)).map(|_| rng.next() as u8).collect()
        } else {
            let seed = rng.pick(&seeds).clone();
            mutate(&mut rng, seed)
        };
        let included = mutate(&mut rng, b"rw=randread\nbs=8k\n".to_vec());
        fs::write(&job, &text).expect("writing the job file");
        fs::write(&inc, &included).expect("writing the include");
        let input = ParseInput {
            job_files: vec![job.clone()],
            job_texts: Vec::new(),
            cli_options: (0..rng.below(4)).map(|_| cli_option(&mut rng)).collect(),
            sections: Vec::new(),
            profile: None,
        };
        let outcome = std::panic::catch_unwind(|| parse(&input).map(|_| ()));
        assert!(
            outcome.is_ok(),
            "case {case} panicked:\n--- job file ---\n{}\n--- inc.fio ---\n{}\n--- command line ---\n{:?}",
            String::from_utf8_lossy(&text),
            String::from_utf8_lossy(&included),
            input.cli_options
        );
    }
}
