//! The IORING_SETUP_* flags a ring asks for, which of them the kernel may
//! refuse, and how the ring is polled ([`RingMode`]).

use crate::queue_config::QueueConfig;

// io_uring ABI values the io-uring crate keeps private
// (include/uapi/linux/io_uring.h).
pub(super) const IORING_SETUP_IOPOLL: u32 = 1 << 0;
pub(super) const IORING_SETUP_SQPOLL: u32 = 1 << 1;
pub(super) const IORING_SETUP_SQ_AFF: u32 = 1 << 2;
pub(super) const IORING_SETUP_CQSIZE: u32 = 1 << 3;
pub(super) const IORING_SETUP_SUBMIT_ALL: u32 = 1 << 7;
pub(super) const IORING_SETUP_COOP_TASKRUN: u32 = 1 << 8;
pub(super) const IORING_SETUP_TASKRUN_FLAG: u32 = 1 << 9;
pub(super) const IORING_SETUP_SINGLE_ISSUER: u32 = 1 << 12;
pub(super) const IORING_SETUP_DEFER_TASKRUN: u32 = 1 << 13;
pub(super) const IORING_SETUP_NO_SQARRAY: u32 = 1 << 16;

/// The optional setup flags, in the order they are given up when the kernel
/// refuses the set with EINVAL. DEFER_TASKRUN goes first: it is the newest
/// (6.1) and is refused with SQPOLL. TASKRUN_FLAG goes before COOP_TASKRUN,
/// which it needs when DEFER_TASKRUN is gone. SINGLE_ISSUER goes last, as
/// DEFER_TASKRUN needs it.
pub(super) const OPTIONAL_FLAGS: [(u32, &str); 7] = [
    (IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"),
    (IORING_SETUP_TASKRUN_FLAG, "TASKRUN_FLAG"),
    (IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"),
    (IORING_SETUP_NO_SQARRAY, "NO_SQARRAY"),
    (IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL"),
    (IORING_SETUP_CQSIZE, "CQSIZE"),
    (IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"),
];

pub(super) const REQUIRED_FLAGS: [(u32, &str); 3] = [
    (IORING_SETUP_IOPOLL, "IOPOLL"),
    (IORING_SETUP_SQPOLL, "SQPOLL"),
    (IORING_SETUP_SQ_AFF, "SQ_AFF"),
];

/// The names of the IORING_SETUP_* flags in `flags`, joined with `|`.
pub fn setup_flag_names(flags: u32) -> String {
    let names: Vec<&str> = REQUIRED_FLAGS
        .iter()
        .chain(OPTIONAL_FLAGS.iter().rev())
        .filter(|(bit, _)| flags & bit != 0)
        .map(|&(_, name)| name)
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join("|")
    }
}

/// How the ring is polled, as asked for.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RingMode {
    pub iopoll: bool,
    pub sqpoll: bool,
    pub sqpoll_cpu: Option<u32>,
    pub sqpoll_idle_ms: Option<u32>,
    /// Leave the ring fd unregistered ([`UringOptions::skip_ring_registration`]).
    pub skip_ring_registration: bool,
}

impl RingMode {
    /// The ring a queue built from `config` needs: IOPOLL for hipri, and
    /// the SQ-polling and registration choices of its io_uring options.
    pub(crate) fn of(config: &QueueConfig) -> RingMode {
        let opts = &config.uring;
        RingMode {
            iopoll: config.hipri,
            sqpoll: opts.sqpoll,
            sqpoll_cpu: opts.sqpoll_cpu,
            sqpoll_idle_ms: opts.sqpoll_idle_ms,
            skip_ring_registration: opts.skip_ring_registration,
        }
    }
}
