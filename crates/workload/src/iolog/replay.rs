//! A log replayed: the I/Os a worker issues, in the log's order, each due
//! when the log says (unless `replay_no_stall`).

use std::sync::Arc;

use super::{Iolog, LoggedDir, LoggedIo};
use crate::generator::{DataDir, IoUnit};

/// Where one worker's replay of a log stands. The log is shared: clones
/// of a job that replay the same log do not copy it.
#[derive(Clone, Debug)]
pub struct Replay {
    log: Arc<Iolog>,
    next: usize,
}

impl Replay {
    pub fn new(log: Arc<Iolog>) -> Replay {
        Replay { log, next: 0 }
    }

    #[inline]
    fn peek(&self) -> Option<&LoggedIo> {
        self.log.ios.get(self.next)
    }

    /// When the next logged I/O is due, in microseconds after the start;
    /// None at the log's end.
    #[inline]
    pub fn next_due_us(&self) -> Option<u64> {
        self.peek().map(|io| io.due_us)
    }

    /// The file of a flush when that is what the log has next.
    #[inline]
    pub fn next_sync(&mut self) -> Option<u32> {
        let io = self.peek().filter(|io| io.dir == LoggedDir::Sync)?;
        let file = io.file;
        self.next += 1;
        Some(file)
    }

    /// The next read, write or trim; a flush in the way is passed over
    /// (the loop asks [`Replay::next_sync`] first, so only trims gathered
    /// into one request pass one).
    #[inline]
    pub fn next_io(&mut self) -> Option<IoUnit> {
        loop {
            let io = *self.peek()?;
            self.next += 1;
            let dir = match io.dir {
                LoggedDir::Read => DataDir::Read,
                LoggedDir::Write => DataDir::Write,
                LoggedDir::Trim => DataDir::Trim,
                LoggedDir::Sync => continue,
            };
            return Some(IoUnit {
                dir,
                file: io.file,
                offset: io.offset,
                len: io.len,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yields_the_log_in_order_with_flushes_apart() {
        let io = |dir, offset| LoggedIo {
            due_us: offset,
            dir,
            file: 0,
            offset,
            len: 512,
        };
        let log = Iolog {
            files: vec!["f".into()],
            ios: vec![
                io(LoggedDir::Write, 0),
                io(LoggedDir::Sync, 1),
                io(LoggedDir::Read, 2),
            ],
        };
        let mut r = Replay::new(Arc::new(log));
        assert_eq!(r.next_sync(), None);
        assert_eq!(
            r.next_io().map(|u| (u.dir, u.offset)),
            Some((DataDir::Write, 0))
        );
        assert_eq!(r.next_due_us(), Some(1));
        assert_eq!(r.next_sync(), Some(0));
        assert_eq!(
            r.next_io().map(|u| (u.dir, u.offset)),
            Some((DataDir::Read, 2))
        );
        assert_eq!(r.next_due_us(), None);
        assert_eq!(r.next_io(), None);
    }
}
