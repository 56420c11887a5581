//! fio's flows (flow.c): the jobs of one `flow_id` share a counter of the
//! I/Os they issued and the sum of their weights, and a job that is ahead
//! of its weight's share holds back. The registry lives as long as a phase
//! (the jobs that run together); each worker joins when it starts and
//! leaves, taking its count and weight back out, when it ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One flow_id's shared state.
#[derive(Debug)]
struct Flow {
    /// I/Os issued by its jobs; fio starts it at 1 so that the first
    /// ratio is defined.
    counter: AtomicU64,
    total_weight: AtomicU64,
}

/// The flows of a phase, by id.
#[derive(Debug, Default)]
pub(crate) struct Flows {
    by_id: Mutex<HashMap<u32, Arc<Flow>>>,
}

impl Flows {
    /// A worker of weight `weight` joins flow `id` (fio's flow_init_job).
    pub(crate) fn join(&self, id: u32, weight: u32) -> FlowMember {
        // A poisoned lock only means another worker panicked while holding
        // it: the map itself is still whole.
        let mut map = self.by_id.lock().unwrap_or_else(|e| e.into_inner());
        let flow = map
            .entry(id)
            .or_insert_with(|| {
                Arc::new(Flow {
                    counter: AtomicU64::new(1),
                    total_weight: AtomicU64::new(0),
                })
            })
            .clone();
        flow.total_weight
            .fetch_add(u64::from(weight), Ordering::Relaxed);
        FlowMember {
            flow,
            weight,
            own: 0,
        }
    }
}

/// One worker's place in its flow.
#[derive(Debug)]
pub(crate) struct FlowMember {
    flow: Arc<Flow>,
    weight: u32,
    /// I/Os this worker counted in the flow.
    own: u64,
}

impl FlowMember {
    /// fio's flow_threshold_exceeded: true when this worker's share of the
    /// flow's I/Os is above its share of the weights (it must hold back);
    /// otherwise it counts one more I/O and may go on.
    pub(crate) fn ahead(&mut self) -> bool {
        let counter = self.flow.counter.load(Ordering::Relaxed);
        let total = self.flow.total_weight.load(Ordering::Relaxed);
        let mine = self.own as f64 / counter as f64;
        let share = f64::from(self.weight) / total as f64;
        if mine > share {
            return true;
        }
        self.flow.counter.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
        false
    }
}

impl Drop for FlowMember {
    /// fio's flow_put: the worker's I/Os and weight leave the flow, so the
    /// jobs still running share it among themselves.
    fn drop(&mut self) {
        self.flow.counter.fetch_sub(self.own, Ordering::Relaxed);
        self.flow
            .total_weight
            .fetch_sub(u64::from(self.weight), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_go_in_proportion_to_their_weights() {
        let flows = Flows::default();
        let mut a = flows.join(0, 3);
        let mut b = flows.join(0, 1);
        let (mut na, mut nb) = (0u32, 0u32);
        // Each takes a turn; a turn counts only when not held back.
        for _ in 0..4000 {
            na += u32::from(!a.ahead());
            nb += u32::from(!b.ahead());
        }
        let ratio = f64::from(na) / f64::from(nb);
        assert!((2.9..3.1).contains(&ratio), "{na} vs {nb}");
    }

    #[test]
    fn a_member_that_leaves_takes_its_share_with_it() {
        let flows = Flows::default();
        let mut a = flows.join(7, 1);
        {
            let mut b = flows.join(7, 1);
            for _ in 0..10 {
                a.ahead();
                b.ahead();
            }
        }
        // Alone in the flow, a is never held back.
        assert!((0..100).all(|_| !a.ahead()));
        // Another id is another flow.
        let mut c = flows.join(8, 1);
        assert!(!c.ahead());
    }
}
