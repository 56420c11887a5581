//! `ioscope peak`'s command line: t/io_uring's letters, with long names, read
//! by clap into [`Options`] and then checked and settled into [`Settings`].

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{ArgAction, Parser, ValueEnum};
use ioscope_engine::{Backend, EngineError, FioWords, Knob, OptionWords};

#[derive(Parser, Debug)]
#[command(
    name = "ioscope peak",
    bin_name = "ioscope peak",
    about = "Peak IOPS of one queue per thread, in the spirit of fio's t/io_uring",
    long_about = "Peak IOPS of one queue per thread, in the spirit of fio's t/io_uring: \
random (or sequential) reads of one block at a time, submitted and reaped in batches, \
one line a second with IOPS, bandwidth and requests per system call. Nothing is written. \
Boolean options take 0 or 1, as t/io_uring's do (-p1, -B 0)."
)]
pub struct Options {
    /// Requests in flight per thread
    #[arg(short = 'd', long = "depth", default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(1..=32768))]
    depth: u32,
    /// Requests handed to the kernel per submit (at most the depth)
    #[arg(short = 's', long = "submit-batch", default_value_t = 32,
          value_parser = clap::value_parser!(u32).range(1..))]
    submit_batch: u32,
    /// Completions waited for once the queue is full (at most the depth)
    #[arg(short = 'c', long = "complete-batch", default_value_t = 32,
          value_parser = clap::value_parser!(u32).range(1..))]
    complete_batch: u32,
    /// Block size in bytes
    #[arg(short = 'b', long = "bs", default_value_t = 4096,
          value_parser = clap::value_parser!(u32).range(1..=(1 << 30)))]
    block_size: u32,
    /// Polled completions (io_uring IOPOLL, pvsync2 RWF_HIPRI); needs O_DIRECT
    /// and a device with poll queues. t/io_uring defaults to 1
    #[arg(short = 'p', long = "polled", default_value = "0", value_parser = zero_or_one, action = ArgAction::Set)]
    polled: bool,
    /// Fixed (registered) buffers; io_uring only [default: 1 with io_uring]
    #[arg(short = 'B', long = "fixed-buffers", value_parser = zero_or_one, action = ArgAction::Set)]
    fixed_buffers: Option<bool>,
    /// Registered files; io_uring only [default: 1 with io_uring]
    #[arg(short = 'F', long = "register-files", value_parser = zero_or_one, action = ArgAction::Set)]
    register_files: Option<bool>,
    /// Registered ring fd; io_uring only [default: 1 with io_uring]
    #[arg(short = 'X', long = "register-ring", value_parser = zero_or_one, action = ArgAction::Set)]
    register_ring: Option<bool>,
    /// O_DIRECT (0: through the page cache)
    #[arg(short = 'O', long = "direct", default_value = "1", value_parser = zero_or_one, action = ArgAction::Set)]
    direct: bool,
    /// Threads, each with its own queue over all the files
    #[arg(short = 'n', long = "threads", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    threads: u32,
    /// CPUs to pin the threads to, in turn (e.g. 0,2-3)
    #[arg(long = "cpus", value_parser = cpu_list)]
    cpus: Option<CpuList>,
    /// Seconds to run (0: until Ctrl-C)
    #[arg(short = 'r', long = "runtime", default_value_t = 0)]
    runtime: u64,
    /// Random offsets (0: sequential)
    #[arg(short = 'R', long = "random", default_value = "1", value_parser = zero_or_one, action = ArgAction::Set)]
    random: bool,
    /// io_uring NOPs only: measures the ring itself, no file needed
    #[arg(short = 'N', long = "nop", default_value = "0", value_parser = zero_or_one, action = ArgAction::Set)]
    nop: bool,
    /// I/O engine
    #[arg(short = 'e', long = "engine", value_enum, default_value_t = Engine::IoUring)]
    engine: Engine,
    /// Files or block devices to read (none with -N1)
    files: Vec<PathBuf>,
}

/// The engines peak drives; t/io_uring's three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    #[value(name = "io_uring")]
    IoUring,
    #[value(name = "aio", alias = "libaio")]
    Aio,
    #[value(name = "pvsync2")]
    Pvsync2,
}

/// What a run is set to do, every default settled and every combination
/// checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub backend: Backend,
    pub depth: u32,
    pub submit_batch: u32,
    pub complete_batch: u32,
    pub block_size: u32,
    pub polled: bool,
    pub fixed_buffers: bool,
    pub register_files: bool,
    pub register_ring: bool,
    pub direct: bool,
    pub threads: u32,
    pub cpus: Vec<usize>,
    /// Seconds; 0 runs until interrupted.
    pub runtime: u64,
    pub random: bool,
    pub files: Vec<PathBuf>,
}

impl Settings {
    /// True for the NOP backend, which reads no file.
    pub fn nop(&self) -> bool {
        self.backend == Backend::Nop
    }
}

/// Reads the arguments after `peak`. Errors are clap's, which print
/// themselves (usage, or `--help` and exit 0) through [`clap::Error::exit`].
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Options, clap::Error> {
    Options::try_parse_from(std::iter::once(OsString::from("ioscope peak")).chain(args))
}

impl Options {
    /// Checks the combinations clap cannot and settles the defaults that
    /// depend on the engine.
    pub fn settle(self) -> anyhow::Result<Settings> {
        let uring = self.engine == Engine::IoUring;
        if !uring {
            for (set, what) in [
                (self.fixed_buffers, "-B/--fixed-buffers"),
                (self.register_files, "-F/--register-files"),
                (self.register_ring, "-X/--register-ring"),
            ] {
                if set == Some(true) {
                    bail!("{what} applies to -e io_uring only; drop it or use -e io_uring");
                }
            }
        }
        let backend = match (self.nop, self.engine) {
            (true, Engine::IoUring) => Backend::Nop,
            (true, _) => bail!("-N1 sends io_uring NOPs; it cannot be used with -e aio or pvsync2"),
            (false, Engine::IoUring) => Backend::IoUring,
            (false, Engine::Aio) => Backend::Libaio,
            (false, Engine::Pvsync2) => Backend::Pvsync2,
        };
        if self.nop && !self.files.is_empty() {
            bail!("-N1 reads no file; drop the file arguments or -N1");
        }
        if !self.nop && self.files.is_empty() {
            bail!("give at least one file or block device to read, or -N1 for NOPs only");
        }
        let cpus = self.cpus.map_or_else(Vec::new, |c| c.0);
        Ok(Settings {
            backend,
            depth: self.depth,
            // As t/io_uring does: a batch larger than the queue is the queue.
            submit_batch: self.submit_batch.min(self.depth),
            complete_batch: self.complete_batch.min(self.depth),
            block_size: self.block_size,
            polled: self.polled,
            fixed_buffers: uring && self.fixed_buffers.unwrap_or(true),
            register_files: uring && self.register_files.unwrap_or(true),
            register_ring: uring && self.register_ring.unwrap_or(true),
            direct: self.direct,
            threads: self.threads,
            cpus,
            runtime: self.runtime,
            random: self.random,
            files: self.files,
        })
    }
}

/// A t/io_uring boolean: 0 or 1.
fn zero_or_one(value: &str) -> Result<bool, String> {
    match value {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("expected 0 or 1, got '{value}'")),
    }
}

/// CPUs named on the command line, in the order given.
#[derive(Clone, Debug)]
struct CpuList(Vec<usize>);

/// A CPU list as taskset and fio's cpus_allowed write it: `0,2-3,8`.
fn cpu_list(value: &str) -> anyhow::Result<CpuList> {
    let mut cpus = Vec::new();
    for part in value.split(',') {
        let part = part.trim();
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        let number = |s: &str| -> anyhow::Result<usize> {
            s.trim()
                .parse()
                .with_context(|| format!("'{part}' is not a CPU number or a range like 2-5"))
        };
        let (first, last) = (number(first)?, number(last)?);
        if first > last {
            bail!("CPU range '{part}' runs backwards; write it as {last}-{first}");
        }
        if last >= libc::CPU_SETSIZE as usize {
            bail!(
                "CPU {last} is beyond the {} CPUs Linux can pin to",
                libc::CPU_SETSIZE
            );
        }
        cpus.extend(first..=last);
    }
    Ok(CpuList(cpus))
}

/// The engine's refusals in peak's terms: its letters where fio's job
/// options would be named (`-p` for hipri, `-O` for direct).
pub struct PeakWords;

impl OptionWords for PeakWords {
    fn name(&self, knob: Knob) -> &'static str {
        match knob {
            Knob::Polled => "-p",
            Knob::Direct => "-O",
            Knob::FixedBuffers => "-B",
            Knob::RegisterFiles => "-F",
            Knob::Depth => "-d",
            Knob::BlockSize => "-b",
            Knob::Jobs => "-n",
            Knob::Engine => "-e",
            // Peak has none of these (no SQ thread, reads from offset 0,
            // never writes); their refusals cannot come from a peak run.
            Knob::SqPoll | Knob::Offset | Knob::WriteZeroes => FioWords.name(knob),
        }
    }

    fn assign(&self, knob: Knob, value: &str) -> String {
        match knob {
            Knob::SqPoll | Knob::Offset | Knob::WriteZeroes => FioWords.assign(knob, value),
            _ => format!("{} {value}", self.name(knob)),
        }
    }
}

/// `e`, worded for a peak user.
pub fn peak_error(e: EngineError) -> anyhow::Error {
    anyhow::anyhow!("{}", e.worded(&PeakWords))
}

#[cfg(test)]
mod tests {
    use ioscope_engine::{Advice, NoPolling};

    #[test]
    fn engine_refusals_name_peaks_letters() {
        let e = EngineError::PollNeedsDirect {
            path: "/tmp/f".into(),
        };
        assert_eq!(
            peak_error(e).to_string(),
            "-p (IORING_SETUP_IOPOLL) needs files opened with O_DIRECT, and /tmp/f is not: \
             set -O 1 or set -p 0"
        );
        let e = EngineError::CannotPoll {
            path: "/dev/vda".into(),
            why: NoPolling::NoPollQueues {
                disk: "vda".into(),
                why: "/sys/block/vda/queue/io_poll is 0".into(),
            },
        };
        let text = peak_error(e).to_string();
        assert!(
            text.starts_with("/dev/vda: -p needs a device with poll queues"),
            "{text}"
        );
        assert!(!text.contains("hipri"), "{text}");
        let e = EngineError::Refused {
            what: "queue depth 70000 is too deep".into(),
            fix: vec![Advice::Lower(Knob::Depth), Advice::Drop(Knob::FixedBuffers)],
        };
        assert_eq!(
            peak_error(e).to_string(),
            "queue depth 70000 is too deep; lower -d or set -B 0"
        );
        let e = EngineError::Setup("no such thing".into());
        assert_eq!(peak_error(e).to_string(), "no such thing");
    }

    use super::*;

    fn settle(args: &[&str]) -> anyhow::Result<Settings> {
        parse(args.iter().map(OsString::from))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .settle()
    }

    #[test]
    fn defaults_are_t_io_urings_except_polling() {
        let s = settle(&["/dev/x"]).unwrap();
        assert_eq!(s.backend, Backend::IoUring);
        assert_eq!((s.depth, s.submit_batch, s.complete_batch), (128, 32, 32));
        assert_eq!(s.block_size, 4096);
        assert!(!s.polled);
        assert!(s.fixed_buffers && s.register_files && s.register_ring);
        assert!(s.direct && s.random);
        assert_eq!((s.threads, s.runtime), (1, 0));
        assert!(s.cpus.is_empty());
        assert_eq!(s.files, vec![PathBuf::from("/dev/x")]);
    }

    #[test]
    fn short_letters_take_attached_or_separate_values() {
        let s = settle(&[
            "-d64", "-s", "8", "-c16", "-b512", "-p1", "-B0", "-F0", "-X0", "-O0", "-n2", "-r3",
            "-R0", "f",
        ])
        .unwrap();
        assert_eq!((s.depth, s.submit_batch, s.complete_batch), (64, 8, 16));
        assert_eq!(s.block_size, 512);
        assert!(s.polled);
        assert!(!s.fixed_buffers && !s.register_files && !s.register_ring);
        assert!(!s.direct && !s.random);
        assert_eq!((s.threads, s.runtime), (2, 3));
    }

    #[test]
    fn long_names_work_too() {
        let s = settle(&[
            "--depth=4",
            "--engine",
            "aio",
            "--threads=3",
            "--cpus=0,2-3",
            "--runtime=1",
            "f",
            "g",
        ])
        .unwrap();
        assert_eq!(s.backend, Backend::Libaio);
        assert_eq!(s.depth, 4);
        assert_eq!(s.cpus, vec![0, 2, 3]);
        assert_eq!(s.files.len(), 2);
        // The io_uring-only switches settle off for other engines.
        assert!(!s.fixed_buffers && !s.register_files && !s.register_ring);
    }

    #[test]
    fn batches_larger_than_the_depth_are_the_depth() {
        let s = settle(&["-d8", "-s32", "-c64", "f"]).unwrap();
        assert_eq!((s.submit_batch, s.complete_batch), (8, 8));
    }

    #[test]
    fn nop_needs_no_file_and_takes_none() {
        let s = settle(&["-N1"]).unwrap();
        assert_eq!(s.backend, Backend::Nop);
        assert!(s.nop());
        let e = settle(&["-N1", "f"]).unwrap_err().to_string();
        assert!(e.contains("drop the file"), "{e}");
        let e = settle(&["-N1", "-e", "pvsync2"]).unwrap_err().to_string();
        assert!(e.contains("io_uring NOPs"), "{e}");
    }

    #[test]
    fn bad_input_is_refused_with_the_reason() {
        let err = |args: &[&str]| settle(args).unwrap_err().to_string();
        assert!(err(&[]).contains("at least one file"));
        assert!(err(&["-p2", "f"]).contains("expected 0 or 1"));
        assert!(err(&["-d0", "f"]).contains("-d"));
        assert!(err(&["-d", "x", "f"]).contains("invalid"));
        assert!(err(&["-e", "mmap", "f"]).contains("mmap"));
        assert!(err(&["--bogus", "f"]).contains("--bogus"));
        assert!(err(&["-e", "aio", "-B1", "f"]).contains("-e io_uring only"));
        assert!(err(&["--cpus=3-1", "f"]).contains("backwards"));
        assert!(err(&["--cpus=a", "f"]).contains("not a CPU number"));
        assert!(err(&["--cpus=99999", "f"]).contains("beyond"));
    }

    #[test]
    fn libaio_is_another_name_for_aio() {
        assert_eq!(
            settle(&["-e", "libaio", "f"]).unwrap().backend,
            Backend::Libaio
        );
        assert_eq!(
            settle(&["-e", "pvsync2", "f"]).unwrap().backend,
            Backend::Pvsync2
        );
    }
}
