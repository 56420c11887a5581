//! Errors of this crate: each names the target and what to change.
//!
//! What to change is an option of the program that uses the crate, and each
//! front end names its options differently (a job file says `hipri`,
//! `ioscope peak` says `-p`). So a refusal whose remedy is an option carries
//! that option as a [`Knob`], and the front end words it with
//! [`EngineError::worded`] and its own [`OptionWords`]. `Display` uses fio's
//! names ([`FioWords`]).

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{path}: cannot open: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("{path}: {what}: {source}")]
    Io {
        path: PathBuf,
        what: &'static str,
        source: io::Error,
    },
    #[error("{path}: {message}")]
    Target { path: PathBuf, message: String },
    /// A failed open whose cause is known: the sentence says what to
    /// change, and the error stays for its errno.
    #[error("{path}: {hint}")]
    OpenExplained {
        path: PathBuf,
        hint: &'static str,
        source: io::Error,
    },
    /// The caller asked a long operation (a layout) to stop before its end.
    #[error("{path}: stopped before the layout was complete")]
    Stopped { path: PathBuf },
    #[error("{0}")]
    Setup(String),
    /// Polled completions (IORING_SETUP_IOPOLL) asked for on a file opened
    /// without O_DIRECT: the kernel would fail every request.
    #[error("{}", self.worded(&FioWords))]
    PollNeedsDirect { path: String },
    /// Polled completions asked for where the device cannot poll.
    #[error("{}", self.worded(&FioWords))]
    CannotPoll { path: String, why: NoPolling },
    /// An NVMe command the namespace's controller does not have (its ONCS
    /// field lacks the bit).
    #[error("{}", self.worded(&FioWords))]
    CommandUnsupported {
        path: String,
        /// The command's name in the NVMe specification.
        command: &'static str,
        oncs: u16,
        fix: Advice,
    },
    /// What stands in the way, and the options that would clear it.
    #[error("{}", self.worded(&FioWords))]
    Refused { what: String, fix: Vec<Advice> },
}

/// Why a device cannot complete polled I/O.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoPolling {
    /// The device has no poll queues; `why` is what sysfs says
    /// (`/sys/block/vda/queue/io_poll is 0`).
    NoPollQueues { disk: String, why: String },
    /// Not on a block device sysfs knows (tmpfs, NFS, FUSE, overlayfs, a
    /// btrfs subvolume): it depends on the filesystem.
    NotBlockDevice { major: u32, minor: u32 },
}

impl NoPolling {
    /// What stands in the way, without the advice.
    pub fn reason(&self) -> String {
        match self {
            NoPolling::NoPollQueues { disk, why } => {
                format!("{disk} has no poll queues ({why})")
            }
            NoPolling::NotBlockDevice { major, minor } => format!(
                "it is not on a block device (device {major}:{minor}: tmpfs, NFS, FUSE, \
                 overlayfs or a btrfs subvolume), so polling depends on the filesystem"
            ),
        }
    }
}

/// A setting a refusal asks the user to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    /// Polled completions (fio `hipri`).
    Polled,
    /// O_DIRECT (fio `direct`).
    Direct,
    /// Registered buffers (fio `fixedbufs`).
    FixedBuffers,
    /// Registered files (fio `registerfiles`).
    RegisterFiles,
    /// An SQ polling thread (fio `sqthread_poll`).
    SqPoll,
    /// Requests in flight per queue (fio `iodepth`).
    Depth,
    /// The block size (fio `bs`).
    BlockSize,
    /// Where I/O starts (fio `offset`).
    Offset,
    /// Threads or processes (fio `numjobs`).
    Jobs,
    /// The backend (fio `ioengine`).
    Engine,
    /// Write Zeroes instead of writes (fio `write_mode=zeroes`).
    WriteZeroes,
}

/// One way out of a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Advice {
    /// Turn the setting on.
    Set(Knob),
    /// Turn the setting off.
    Drop(Knob),
    /// Make it smaller.
    Lower(Knob),
    /// Make it a multiple of this many bytes.
    MultipleOf(Knob, u64),
    /// Give it this value (`Use(Engine, "io_uring")`).
    Use(Knob, &'static str),
    /// Something outside the program's options (`raise ulimit -l`).
    Other(String),
}

/// How a front end names its options in advice.
pub trait OptionWords {
    /// The option's name: `iodepth`, `-d`.
    fn name(&self, knob: Knob) -> &'static str;
    /// The option given a value: `direct=1`, `-O 1`.
    fn assign(&self, knob: Knob, value: &str) -> String;
    /// Advice that turns a switch off.
    fn drop(&self, knob: Knob) -> String {
        format!("set {}", self.assign(knob, "0"))
    }

    /// One piece of advice in these words.
    fn advice(&self, advice: &Advice) -> String {
        match advice {
            Advice::Set(k) => format!("set {}", self.assign(*k, "1")),
            Advice::Drop(k) => self.drop(*k),
            Advice::Lower(k) => format!("lower {}", self.name(*k)),
            Advice::MultipleOf(k, n) => {
                format!("use a {} that is a multiple of {n}", self.name(*k))
            }
            Advice::Use(k, v) => format!("use {}", self.assign(*k, v)),
            Advice::Other(s) => s.clone(),
        }
    }

    /// Several ways out: "a, b or c".
    fn any_of(&self, fix: &[Advice]) -> String {
        let words: Vec<String> = fix.iter().map(|a| self.advice(a)).collect();
        match words.split_last() {
            None => String::new(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// fio's option names, as job files and fio-style command lines use them.
pub struct FioWords;

impl OptionWords for FioWords {
    fn name(&self, knob: Knob) -> &'static str {
        match knob {
            Knob::Polled => "hipri",
            Knob::Direct => "direct",
            Knob::FixedBuffers => "fixedbufs",
            Knob::RegisterFiles => "registerfiles",
            Knob::SqPoll => "sqthread_poll",
            Knob::Depth => "iodepth",
            Knob::BlockSize => "bs",
            Knob::Offset => "offset",
            Knob::Jobs => "numjobs",
            Knob::Engine => "ioengine",
            Knob::WriteZeroes => "write_mode=zeroes",
        }
    }

    fn assign(&self, knob: Knob, value: &str) -> String {
        match knob {
            Knob::WriteZeroes => self.name(knob).to_string(),
            _ => format!("{}={value}", self.name(knob)),
        }
    }

    /// fio users drop a switch from the job; direct=0 is said as such.
    fn drop(&self, knob: Knob) -> String {
        match knob {
            Knob::Direct => "set direct=0".into(),
            _ => format!("drop {}", self.name(knob)),
        }
    }
}

impl EngineError {
    /// The OS error number of the call that failed (EIO for an I/O error
    /// the OS did not number), where a call failed.
    pub fn errno(&self) -> Option<i32> {
        match self {
            EngineError::Open { source, .. }
            | EngineError::Io { source, .. }
            | EngineError::OpenExplained { source, .. } => {
                Some(source.raw_os_error().unwrap_or(libc::EIO))
            }
            _ => None,
        }
    }

    /// The message, with the options to change named by `words`. Errors
    /// that name no option read as `Display` has them.
    pub fn worded(&self, words: &dyn OptionWords) -> String {
        match self {
            EngineError::PollNeedsDirect { path } => format!(
                "{} (IORING_SETUP_IOPOLL) needs files opened with O_DIRECT, and {path} is not: \
                 {}",
                words.name(Knob::Polled),
                words.any_of(&[Advice::Set(Knob::Direct), Advice::Drop(Knob::Polled)])
            ),
            EngineError::CannotPoll { path, why } => {
                let fix = match why {
                    NoPolling::NoPollQueues { .. } => words.any_of(&[
                        Advice::Drop(Knob::Polled),
                        Advice::Other("for NVMe load the driver with poll_queues=N".into()),
                    ]),
                    NoPolling::NotBlockDevice { .. } => words.advice(&Advice::Drop(Knob::Polled)),
                };
                let has_none = match why {
                    // "vda has none": the words the kernel's own sysfs uses.
                    NoPolling::NoPollQueues { disk, why } => format!(
                        "needs a device with poll queues, and {disk} has none ({why}): polled \
                         reads fail with EOPNOTSUPP"
                    ),
                    NoPolling::NotBlockDevice { .. } => format!(
                        "{}; polled I/O works only where the filesystem supports it, and fails \
                         with EOPNOTSUPP otherwise",
                        why.reason()
                    ),
                };
                format!("{path}: {} {has_none}; {fix}", words.name(Knob::Polled))
            }
            EngineError::CommandUnsupported {
                path,
                command,
                oncs,
                fix,
            } => format!(
                "{path}: the device does not support {command} (ONCS {oncs:#x}); {}",
                words.advice(fix)
            ),
            EngineError::Refused { what, fix } if fix.is_empty() => what.clone(),
            EngineError::Refused { what, fix } => format!("{what}; {}", words.any_of(fix)),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Knob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(FioWords.name(*self))
    }
}

#[cfg(test)]
mod words_tests {
    use super::*;

    /// Letters, as a front end with short options would name them.
    struct Letters;
    impl OptionWords for Letters {
        fn name(&self, knob: Knob) -> &'static str {
            match knob {
                Knob::Polled => "-p",
                Knob::Direct => "-O",
                Knob::Depth => "-d",
                _ => "-?",
            }
        }
        fn assign(&self, knob: Knob, value: &str) -> String {
            format!("{} {value}", self.name(knob))
        }
    }

    #[test]
    fn fio_words_are_fios_option_names() {
        let e = EngineError::PollNeedsDirect {
            path: "/tmp/f".into(),
        };
        assert_eq!(
            e.to_string(),
            "hipri (IORING_SETUP_IOPOLL) needs files opened with O_DIRECT, and /tmp/f is not: \
             set direct=1 or drop hipri"
        );
        let e = EngineError::Refused {
            what: "queue depth 70000 is too many".into(),
            fix: vec![
                Advice::Lower(Knob::Depth),
                Advice::Drop(Knob::Direct),
                Advice::Other("raise ulimit -l".into()),
            ],
        };
        assert_eq!(
            e.to_string(),
            "queue depth 70000 is too many; lower iodepth, set direct=0 or raise ulimit -l"
        );
    }

    #[test]
    fn another_front_end_words_the_same_refusal_its_way() {
        let e = EngineError::CannotPoll {
            path: "/tmp/f".into(),
            why: NoPolling::NoPollQueues {
                disk: "vda".into(),
                why: "/sys/block/vda/queue/io_poll is 0".into(),
            },
        };
        assert!(e.to_string().starts_with("/tmp/f: hipri needs"), "{e}");
        assert!(e.to_string().contains("vda has none"), "{e}");
        let letters = e.worded(&Letters);
        assert!(letters.starts_with("/tmp/f: -p needs"), "{letters}");
        assert!(letters.contains("set -p 0 or for NVMe"), "{letters}");
        assert!(!letters.contains("hipri"), "{letters}");
        let plain = EngineError::Setup("no such thing".into());
        assert_eq!(plain.worded(&Letters), "no such thing");
    }
}
