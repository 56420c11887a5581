//! Helpers shared by the end-to-end tests: running the built `ioscope` (and
//! fio, for comparisons) with a time limit, reading their JSON, temporary
//! directories on a real file system, and borrowing the zram device.
//!
//! Tests that need something the machine may lack (fio, zram, root, mkfs)
//! ask for it with `ioscope_testutil::require!`, which prints one
//! `SKIP <test>: <reason>` line and returns where it is missing (or fails
//! the test, in strict mode, for what CI always has).
#![allow(dead_code)]

use std::ffi::OsString;
use std::fs::{self};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use ioscope_testutil::Missing;
use serde_json::Value;
use tempfile::TempDir;

/// How long one run of a tool may take before the test gives up on it.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The `ioscope` binary cargo built for these tests.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ioscope"))
}

/// A command to run: `ioscope(...)` or `fio(...)`, then `.arg()`, `.dir()`,
/// `.env()`, and finally `.run()`.
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    dir: Option<PathBuf>,
    envs: Vec<(OsString, OsString)>,
    timeout: Duration,
}

/// Starts a command line for the built `ioscope`.
pub fn ioscope<I, S>(args: I) -> Cmd
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    Cmd::new(bin()).args(args)
}

/// Starts a command line for fio (from PATH).
pub fn fio<I, S>(args: I) -> Cmd
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    Cmd::new("fio").args(args)
}

impl Cmd {
    pub fn new(program: impl Into<OsString>) -> Cmd {
        Cmd {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            envs: Vec::new(),
            timeout: RUN_TIMEOUT,
        }
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Cmd {
        self.args.push(a.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Runs in this working directory.
    pub fn dir(mut self, d: impl AsRef<Path>) -> Cmd {
        self.dir = Some(d.as_ref().to_path_buf());
        self
    }

    pub fn env(mut self, k: impl Into<OsString>, v: impl Into<OsString>) -> Cmd {
        self.envs.push((k.into(), v.into()));
        self
    }

    pub fn timeout(mut self, t: Duration) -> Cmd {
        self.timeout = t;
        self
    }

    fn cmdline(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }

    /// Runs to completion (stdin closed), capturing stdout and stderr. Panics
    /// if it cannot start or runs past its time limit.
    pub fn run(self) -> Run {
        let cmdline = self.cmdline();
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
        for (k, v) in &self.envs {
            c.env(k, v);
        }
        let mut child = c
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{cmdline}`: {e}"));
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let t_out = thread::spawn(move || {
            let mut v = Vec::new();
            let _ = out.read_to_end(&mut v);
            v
        });
        let t_err = thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if start.elapsed() > self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let so = String::from_utf8_lossy(&t_out.join().unwrap()).into_owned();
                    let se = String::from_utf8_lossy(&t_err.join().unwrap()).into_owned();
                    panic!(
                        "`{cmdline}` ran past {:?} and was killed\n--- stdout ---\n{so}\n--- stderr ---\n{se}",
                        self.timeout
                    );
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(e) => panic!("waiting for `{cmdline}`: {e}"),
            }
        };
        let stdout = String::from_utf8_lossy(&t_out.join().unwrap()).into_owned();
        let stderr = String::from_utf8_lossy(&t_err.join().unwrap()).into_owned();
        Run {
            cmdline,
            status,
            stdout,
            stderr,
            elapsed: start.elapsed(),
        }
    }
}

/// What a finished command left behind.
pub struct Run {
    pub cmdline: String,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    /// Everything about the run, for assertion messages.
    pub fn describe(&self) -> String {
        format!(
            "`{}` exited with {} after {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.cmdline,
            self.status,
            self.elapsed,
            truncate(&self.stdout, 8000),
            truncate(&self.stderr, 8000)
        )
    }

    /// Exit status 0 and nothing at all on stderr.
    pub fn assert_ok(&self) -> &Run {
        assert!(
            self.status.success(),
            "expected success: {}",
            self.describe()
        );
        assert!(
            self.stderr.is_empty(),
            "expected nothing on stderr for a good run: {}",
            self.describe()
        );
        self
    }

    /// A clean refusal: a non-zero exit code (not a signal, not a panic) and
    /// a message on stderr. Returns stderr for further checks.
    pub fn assert_refused(&self) -> &str {
        assert!(
            !self.status.success(),
            "expected a non-zero exit: {}",
            self.describe()
        );
        assert!(
            self.status.code().is_some(),
            "killed by a signal instead of exiting: {}",
            self.describe()
        );
        assert!(
            !self.stderr.contains("panicked at") && self.status.code() != Some(101),
            "it panicked instead of refusing cleanly: {}",
            self.describe()
        );
        assert!(
            !self.stderr.trim().is_empty(),
            "refused without a message on stderr: {}",
            self.describe()
        );
        &self.stderr
    }

    /// A refused job did nothing: where the JSON report lists it (as fio
    /// lists a job whose setup failed), it carries an error and no I/O.
    pub fn assert_nothing_done(&self) {
        if !self.stdout.contains("\"jobs\"") {
            return;
        }
        for j in self.json()["jobs"].as_array().expect("jobs") {
            let done: u64 = ["read", "write", "trim"]
                .iter()
                .map(|d| u(&j[d], "total_ios"))
                .sum();
            assert!(
                u(j, "error") != 0 && done == 0,
                "a refused job reported success or I/O: {}",
                self.describe()
            );
        }
    }

    /// Stdout parsed as one JSON document (panics with the whole run if not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not one JSON document ({e}): {}", self.describe())
        })
    }

    /// Success, clean stderr, and JSON on stdout.
    pub fn ok_json(&self) -> Value {
        self.assert_ok();
        self.json()
    }
}

fn truncate(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The first JSON object in a text that mixes normal output and JSON (as
/// `--output-format=normal,json` does): it starts at the first line that is
/// exactly `{`. Returns the value and the text outside it.
pub fn extract_json(text: &str) -> Option<(Value, String)> {
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "{" {
            let rest = &text[pos..];
            let mut it = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            let v = it.next()?.ok()?;
            let used = it.byte_offset();
            let mut outside = text[..pos].to_string();
            outside.push_str(&rest[used..]);
            return Some((v, outside));
        }
        pos += line.len();
    }
    None
}

/// A fresh directory for one test. It lives under cargo's target directory,
/// which is on a real file system (/tmp may be tmpfs: no O_DIRECT, no
/// disk_util there).
/// The message of a run of `ioscope` with `base` then `extra` in `dir`,
/// which must refuse cleanly (see [`Run::assert_refused`]).
pub fn refusal(dir: &Path, base: &[&str], extra: &[&str]) -> String {
    ioscope(base.iter().chain(extra))
        .dir(dir)
        .run()
        .assert_refused()
        .to_string()
}

pub fn tempdir() -> TempDir {
    tempfile::Builder::new()
        .prefix("ioscope-test-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("cannot make a temporary directory")
}

/// The names of the entries of `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
    p
}

/// The job named `name` in a JSON result (panics if absent).
pub fn job<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no \"jobs\" array in {v}"))
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job named {name:?} in {v:#}"))
}

/// An unsigned integer field, with a helpful panic.
pub fn u(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key:?} is not an unsigned integer in {v:#}"))
}

/// A number field (integer or float).
pub fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key:?} is not a number in {v:#}"))
}

/// The block device (its /sys/block name, partitions resolved to the disk)
/// that holds `path`, or None on a file system without one (tmpfs, overlay).
pub fn block_device_of(path: &Path) -> Option<String> {
    let dev = fs::metadata(path).ok()?.dev();
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let real = fs::canonicalize(&sys).ok()?;
    // /sys/devices/.../block/vda or /sys/devices/.../block/vda/vda1
    let parent = real.parent()?;
    if parent.file_name()? == "block" {
        Some(real.file_name()?.to_string_lossy().into_owned())
    } else {
        Some(parent.file_name()?.to_string_lossy().into_owned())
    }
}

// ---------------------------------------------------------------- zram

/// /dev/zram0, set up at 256 MiB for one test and reset when dropped (the
/// shared guard, which takes turns with every other crate's tests).
pub struct Zram {
    pub dev: PathBuf,
    inner: ioscope_testutil::Zram,
}

impl Zram {
    /// Size of the device once set up.
    pub const SIZE: u64 = 256 << 20;

    /// Borrows zram0, or says why it cannot: `require!(Zram::acquire())`.
    pub fn acquire() -> Result<Zram, Missing> {
        let inner = ioscope_testutil::zram(Self::SIZE)?;
        Ok(Zram {
            dev: inner.path().to_path_buf(),
            inner,
        })
    }

    pub fn path(&self) -> &str {
        self.dev.to_str().unwrap()
    }

    /// A psync job on the device with JSON output, then `extra`.
    pub fn job_args(&self, name: &str, rw: &str, extra: &[&str]) -> Vec<String> {
        let mut a = vec![
            "--output-format=json".to_string(),
            format!("--name={name}"),
            format!("--filename={}", self.path()),
            "--ioengine=psync".into(),
            format!("--rw={rw}"),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    }

    /// Sectors (512 bytes) read and written on the device so far.
    pub fn sectors(&self) -> (u64, u64) {
        self.inner.sectors()
    }
}

/// A file system mounted on a temporary directory; unmounted when dropped.
pub struct Mounted {
    pub dir: TempDir,
}

impl Mounted {
    /// `mkfs.ext4 -q` on `dev` and mounts it: `require!(Mounted::ext4(dev))`.
    /// Missing only where mkfs.ext4 or mount is not installed; a failure of
    /// either on a device the test holds fails the test.
    pub fn ext4(dev: &Path) -> Result<Mounted, Missing> {
        let mkfs = ioscope_testutil::program("mkfs.ext4")?;
        ioscope_testutil::program("mount")?;
        let out = Command::new(mkfs)
            .args(["-q", "-F"])
            .arg(dev)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run mkfs.ext4: {e}"));
        assert!(
            out.status.success(),
            "mkfs.ext4 {} failed: {}",
            dev.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = tempdir();
        let m = Command::new("mount")
            .arg(dev)
            .arg(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run mount: {e}"));
        assert!(
            m.status.success(),
            "mount {} failed: {}",
            dev.display(),
            String::from_utf8_lossy(&m.stderr)
        );
        Ok(Mounted { dir })
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        for _ in 0..50 {
            let ok = Command::new("umount")
                .arg(self.dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if ok {
                return;
            }
            thread::sleep(Duration::from_millis(100));
        }
        eprintln!("warning: could not unmount {}", self.dir.path().display());
    }
}

/// The unpacked source of the installed fio, whose examples/ the tests
/// read as fio ships them: `target/fio-src/fio-*`, where .ci/run puts it
/// with `bench/fio-source.sh target/fio-src`, or IOSCOPE_FIO_SRC.
pub fn fio_source() -> Result<PathBuf, Missing> {
    if let Some(dir) = std::env::var_os("IOSCOPE_FIO_SRC") {
        return Ok(PathBuf::from(dir));
    }
    let fetched = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fio-src");
    fs::read_dir(&fetched)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("examples").is_dir())
        .ok_or_else(|| {
            Missing::strict(format!(
                "fio's source is not unpacked in {} (run bench/fio-source.sh target/fio-src, as .ci/run does)",
                fetched.display()
            ))
        })
}

/// The path of fio's example job file `name` (examples/NAME in its source).
pub fn fio_example(name: &str) -> Result<PathBuf, Missing> {
    Ok(fio_source()?.join("examples").join(name))
}

/// The file, direction and offset of each I/O of a version 3 iolog.
pub fn io_order(log: &Path) -> Vec<String> {
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 5 && matches!(w[2], "read" | "write"))
                .then(|| format!("{} {} {}", w[1], w[2], w[3]))
        })
        .collect()
}

/// The reads, writes and trims of a version 3 iolog's text: direction,
/// offset, length.
pub fn log_ios(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            matches!(f.get(2), Some(&("read" | "write" | "trim")))
                .then(|| format!("{} {} {}", f[2], f[3], f[4]))
        })
        .collect()
}

/// The installed fio's version, `fio --version` read as (major, minor):
/// (3, 33) for Debian's fio in CI.
pub fn fio_version() -> (u32, u32) {
    let run = fio(["--version"]).run();
    let v = run.stdout.trim().trim_start_matches("fio-");
    let mut parts = v.split(['.', '-']).map(|p| p.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// fio's crc32c (crc/crc32c.c, which every fio header's crc32 is): CRC-32C
/// from all ones, not inverted at the end.
pub fn fio_crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82f6_3b78 & 0u32.wrapping_sub(crc & 1));
        }
    }
    crc
}

/// Every `verify=` method ioscope and fio have.
pub const VERIFY_METHODS: [&str; 19] = [
    "crc32c",
    "crc32c-intel",
    "crc32",
    "crc16",
    "crc7",
    "crc64",
    "md5",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "xxhash",
    "pattern",
    "pattern_hdr",
    "meta",
    "null",
];
