//! fio's `force_async=N`, shared by the io_uring and io_uring_cmd queues:
//! IOSQE_ASYNC on every Nth request, which the kernel then hands straight
//! to an io-wq worker instead of trying it inline first.

/// Counts a queue's requests and says which go to io-wq.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ForceAsync {
    /// N; 0 forces none.
    every: u32,
    since: u32,
}

impl ForceAsync {
    pub(crate) fn every(n: u32) -> ForceAsync {
        ForceAsync { every: n, since: 0 }
    }

    /// Whether the request being made is the Nth since the last forced one.
    #[inline]
    pub(crate) fn this_one(&mut self) -> bool {
        if self.every == 0 {
            return false;
        }
        self.since += 1;
        let due = self.since == self.every;
        if due {
            self.since = 0;
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_request_is_forced_and_0_forces_none() {
        let forced = |n, requests| {
            let mut f = ForceAsync::every(n);
            (0..requests).filter(|_| f.this_one()).count()
        };
        assert_eq!(forced(0, 10), 0);
        assert_eq!(forced(1, 10), 10);
        assert_eq!(forced(3, 10), 3);
        let mut f = ForceAsync::every(2);
        let pattern: Vec<bool> = (0..4).map(|_| f.this_one()).collect();
        assert_eq!(
            pattern,
            [false, true, false, true],
            "fio counts ++prepped == N"
        );
    }
}
