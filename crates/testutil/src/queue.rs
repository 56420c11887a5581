//! The engine's tests' common steps: a queue configuration, an open
//! target, one request sent and waited for. Needs the `engine` feature.

use std::path::Path;

use ioscope_engine::{Op, OpenOptions, Queue, QueueConfig, Request, Submitted, Target};

/// A queue of `depth` buffers of `buffer_size` bytes, aligned to 4096 (fit
/// for O_DIRECT on any device), every other setting at its default.
pub fn queue_config(depth: u32, buffer_size: usize) -> QueueConfig {
    QueueConfig {
        depth,
        buffer_size,
        buffer_align: 4096,
        ..QueueConfig::default()
    }
}

/// Opens an existing file or device for reading and writing, with
/// O_DIRECT or not; panics with the path if it cannot.
pub fn open_rw(path: &Path, direct: bool) -> Target {
    let opts = OpenOptions {
        read: true,
        write: true,
        create: false,
        direct,
        pi_in_data: false,
    };
    Target::open(path, &opts).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()))
}

/// Sends one request (buffer slot 0, file 0) and returns its result: from
/// `submit` where the backend completes there, else after one commit and
/// one reap.
pub fn complete_one<Q: Queue>(q: &mut Q, op: Op, offset: u64, len: u32) -> i64 {
    let req = Request {
        op,
        file: 0,
        offset,
        len,
        slot: 0,
    };
    match q.submit(&req).unwrap() {
        Submitted::Completed(result) => result,
        Submitted::Queued => {
            q.commit().unwrap();
            let mut result = None;
            assert_eq!(q.reap(1, 1, |c| result = Some(c.result)).unwrap(), 1);
            result.expect("one completion")
        }
    }
}
