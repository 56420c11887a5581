//! `--crctest[=NAMES]`: how fast each of ioscope's verify checksums runs on
//! this CPU, printed as fio's `--crctest` prints its own (crc/test.c): the
//! same names in the same order, the same line for each, the same exit
//! status. The checksums are the ones ioscope writes and checks, fio's own
//! variants (its xxhash is XXH32), so the figures say what `verify=NAME`
//! costs here.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::bail;
use ioscope_job::VerifyMethod;
use ioscope_workload::{fio_checksum, FioRand, FioVersion};

/// fio's CHUNK and NR_CHUNKS: each checksum runs over one 128 KiB buffer
/// 2048 times, 256 MiB in all, each pass a checksum of its own.
const CHUNK: usize = 128 << 10;
const CHUNKS: usize = 2048;

/// fio's tests in its order, with ioscope's checksum of that name.
const TESTS: [(&str, Option<VerifyMethod>); 17] = [
    ("md5", Some(VerifyMethod::Md5)),
    ("crc64", Some(VerifyMethod::Crc64)),
    ("crc32", Some(VerifyMethod::Crc32)),
    ("crc32c", Some(VerifyMethod::Crc32c)),
    ("crc16", Some(VerifyMethod::Crc16)),
    ("crc7", Some(VerifyMethod::Crc7)),
    ("sha1", Some(VerifyMethod::Sha1)),
    ("sha256", Some(VerifyMethod::Sha256)),
    ("sha512", Some(VerifyMethod::Sha512)),
    ("xxhash", Some(VerifyMethod::Xxhash)),
    // fio's hashes for its own use (file names, dedupe, bloom filters),
    // not verify checksums: ioscope has none of them to time.
    ("murmur3", None),
    ("jhash", None),
    ("fnv", None),
    ("sha3-224", Some(VerifyMethod::Sha3_224)),
    ("sha3-256", Some(VerifyMethod::Sha3_256)),
    ("sha3-384", Some(VerifyMethod::Sha3_384)),
    ("sha3-512", Some(VerifyMethod::Sha3_512)),
];

/// Runs the tests `names` asks for (all of them when None); `help` or
/// `list` lists them instead and ends with status 1, as fio does.
pub fn run(names: Option<&str>) -> anyhow::Result<ExitCode> {
    let chosen = match names {
        None => TESTS.iter().filter_map(|t| t.1.map(|m| (t.0, m))).collect(),
        Some("help" | "list") => {
            crate::output::print(&list())?;
            return Ok(ExitCode::from(1));
        }
        Some(names) => choose(names)?,
    };
    let mut buf = vec![0u8; CHUNK];
    let mut rand = FioRand::new(0x8989, false);
    // Random data, as fio's fill_random_buf gives its test (the 32-bit
    // generator draws 32 bits at a time).
    for word in buf.chunks_exact_mut(4) {
        word.copy_from_slice(&(rand.next_u64() as u32).to_le_bytes());
    }
    let mut out = String::new();
    for (i, (name, method)) in chosen.into_iter().enumerate() {
        if i == 0 {
            // As fio: the CPU spun up and the data touched before the
            // first one is timed.
            spin(Duration::from_millis(100));
            checksum_all(method, &buf);
        }
        let start = Instant::now();
        checksum_all(method, &buf);
        out.push_str(&line(name, start.elapsed().as_micros() as u64));
    }
    crate::output::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The names fio knows, one per line, those ioscope cannot time included
/// (asking for one says why).
fn list() -> String {
    TESTS.iter().map(|t| format!("{}\n", t.0)).collect()
}

/// The tests of the comma-separated `names`, in fio's order.
fn choose(names: &str) -> anyhow::Result<Vec<(&'static str, VerifyMethod)>> {
    let asked: Vec<&str> = names.split(',').collect();
    for name in &asked {
        match TESTS.iter().find(|t| t.0 == *name) {
            None => bail!("unknown hash `{name}`. Available:\n{}", list().trim_end()),
            Some((_, None)) => bail!(
                "--crctest={name}: {name} is one of fio's own hashes (for file names, dedupe \
                 and its bloom filters), not a verify checksum, so ioscope has none to time; \
                 leave it out to time the others (--crctest=list names them)"
            ),
            Some(_) => {}
        }
    }
    Ok(TESTS
        .iter()
        .filter(|t| asked.contains(&t.0))
        .filter_map(|t| t.1.map(|m| (t.0, m)))
        .collect())
}

/// 256 MiB through `method`, one checksum per 128 KiB pass.
fn checksum_all(method: VerifyMethod, buf: &[u8]) {
    for _ in 0..CHUNKS {
        black_box(fio_checksum(method, FioVersion::From342, black_box(buf)));
    }
}

fn spin(time: Duration) {
    let start = Instant::now();
    while start.elapsed() < time {
        std::hint::spin_loop();
    }
}

/// fio's line: the name, one tab after a name of 7 or more characters and
/// two after a shorter one, the MiB/s (its bytes per µs over 1.024²).
fn line(name: &str, usec: u64) -> String {
    if usec == 0 {
        return format!("{name}:inf MiB/sec\n");
    }
    let mib_s = (CHUNK * CHUNKS) as f64 / usec as f64 / (1.024 * 1.024);
    let tabs = if name.len() >= 7 { "\t" } else { "\t\t" };
    format!("{name}:{tabs}{mib_s:8.2} MiB/sec\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_fios() {
        // 256 MiB in one second.
        assert_eq!(line("md5", 1_000_000), "md5:\t\t  256.00 MiB/sec\n");
        assert_eq!(line("sha3-224", 250_000), "sha3-224:\t 1024.00 MiB/sec\n");
        assert_eq!(line("crc7", 0), "crc7:inf MiB/sec\n");
    }

    #[test]
    fn names_are_chosen_in_fios_order_and_bad_ones_refused() {
        let got = choose("crc32c,md5").unwrap();
        assert_eq!(
            got.iter().map(|t| t.0).collect::<Vec<_>>(),
            ["md5", "crc32c"]
        );
        let err = choose("md5,bogus").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown hash `bogus`. Available:\nmd5\n"),
            "{err}"
        );
        let err = choose("jhash").unwrap_err().to_string();
        assert!(err.contains("not a verify checksum"), "{err}");
        assert_eq!(list().lines().count(), 17);
    }
}
