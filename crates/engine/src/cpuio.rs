//! fio's `cpuio`: no I/O; each request burns the CPU for a chunk of time
//! (`cpuchunks`, in µs) and the thread then sleeps so that the burn is
//! `cpuload` percent of the time, as fio's `engines/cpu.c`: it spins for
//! the chunk (`cpumode=noop`, fio's usec_spin on the wall clock) or sorts
//! 256 Ki numbers four ways (`cpumode=qsort`, whose measured time becomes
//! the chunk), then thinks for chunk × (100 − load) / load µs. The think
//! time is cut short at the job's runtime, so the job ends on time.

use std::io;
use std::time::{Duration, Instant};

use crate::buffer::SlotBuffers;
use crate::descriptor::{any_shape, EngineDesc, EngineKind};
use crate::engine_options::CpuBurn;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{Op, Request};

pub(crate) static CPUIO: EngineDesc = EngineDesc {
    name: "cpuio",
    aliases: &[],
    help: "Burns CPU at cpuload percent; no I/O",
    kind: EngineKind::Diskless,
    fio: true,
    ring: false,
    carries: counted,
    options: &["cpuload", "cpumode", "cpuchunks", "exit_on_io_done"],
    check: any_shape,
};

/// Requests are only counted.
fn counted(op: Op) -> bool {
    matches!(op, Op::Read | Op::Write | Op::Fsync | Op::Trim)
}

/// How many numbers fio's qsort mode sorts.
const QSORT_LEN: usize = 256 << 10;

pub(crate) fn open(
    config: &QueueConfig,
    _: &[std::os::fd::RawFd],
) -> Result<CpuQueue, EngineError> {
    let burn = config.cpu;
    if burn.load == 0 || burn.load > 100 {
        return Err(EngineError::Setup(format!(
            "cpuio needs a load from 1 to 100 percent (cpuload=), not {}",
            burn.load
        )));
    }
    Ok(CpuQueue {
        burn,
        chunk_us: u64::from(burn.chunk_us),
        data: if burn.qsort { qsort_data() } else { Vec::new() },
        sorted: Vec::new(),
        runtime: config.runtime,
        start: None,
        last_ns: None,
        buffers: SlotBuffers::new(config)?,
    })
}

/// fio's qsort input: its multiply-with-carry generator from fixed seeds.
fn qsort_data() -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..QSORT_LEN)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

/// The cpuio queue: each request burns, then sleeps, inside `submit`.
pub struct CpuQueue {
    burn: CpuBurn,
    /// The current chunk: `cpuchunks`, or the last qsort's time.
    chunk_us: u64,
    data: Vec<i32>,
    /// Scratch for the sorts, so that each burn starts from fio's data.
    sorted: Vec<i32>,
    runtime: Option<Duration>,
    /// The first request: the job's runtime counts from there.
    start: Option<Instant>,
    last_ns: Option<u64>,
    buffers: SlotBuffers,
}

impl CpuQueue {
    /// fio's four sorts: ascending, descending, by byte, descending.
    fn qsort(&mut self) {
        self.sorted.clear();
        self.sorted.extend_from_slice(&self.data);
        self.sorted.sort_unstable();
        self.sorted.sort_unstable_by(|a, b| b.cmp(a));
        let mut bytes: Vec<u8> = self.sorted.iter().flat_map(|v| v.to_ne_bytes()).collect();
        bytes.sort_unstable_by_key(|&b| b as i8);
        for (v, b) in self.sorted.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
        }
        self.sorted.sort_unstable_by(|a, b| b.cmp(a));
        std::hint::black_box(&self.sorted);
    }
}

impl Queue for CpuQueue {
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        let began = Instant::now();
        let start = *self.start.get_or_insert(began);
        if self.burn.qsort {
            self.qsort();
            // fio adjusts the chunk to what the sorts took, so the load
            // stays near cpuload as the machine's speed changes.
            self.chunk_us = began.elapsed().as_micros() as u64;
        } else {
            let chunk = Duration::from_micros(self.chunk_us);
            while began.elapsed() < chunk {
                std::hint::spin_loop();
            }
        }
        self.last_ns = Some(began.elapsed().as_nanos() as u64);
        let load = u64::from(self.burn.load);
        let mut think = Duration::from_micros(self.chunk_us * (100 - load) / load);
        if let Some(runtime) = self.runtime {
            think = think.min((start + runtime).saturating_duration_since(Instant::now()));
        }
        std::thread::sleep(think);
        Ok(Submitted::Completed(match req.op {
            Op::Fsync => 0,
            _ => i64::from(req.len),
        }))
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn op_latency(&mut self) -> Option<u64> {
        self.last_ns.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(load: u32, chunk_us: u32, qsort: bool) -> CpuQueue {
        let config = QueueConfig {
            depth: 1,
            buffer_size: 4096,
            buffer_align: 4096,
            cpu: CpuBurn {
                load,
                chunk_us,
                qsort,
            },
            ..QueueConfig::default()
        };
        open(&config, &[]).unwrap()
    }

    fn req() -> Request {
        Request {
            op: Op::Read,
            file: 0,
            offset: 0,
            len: 4096,
            slot: 0,
        }
    }

    /// A noop burn spins for the chunk and sleeps the rest of the cycle:
    /// at 25 %, a 10 ms chunk takes 40 ms in all.
    #[test]
    fn a_request_burns_the_chunk_then_thinks() {
        let mut q = queue(25, 10_000, false);
        let t = Instant::now();
        assert_eq!(q.submit(&req()).unwrap(), Submitted::Completed(4096));
        let spun = q.op_latency().unwrap();
        assert!(spun >= 10_000_000, "{spun}");
        assert!(t.elapsed() >= Duration::from_millis(40));
    }

    #[test]
    fn qsort_sets_the_chunk_to_what_the_sorts_took() {
        let mut q = queue(100, 50_000, true);
        q.submit(&req()).unwrap();
        let took = q.op_latency().unwrap();
        assert!(q.chunk_us <= took / 1000 + 1);
        assert!(q.sorted.windows(2).all(|w| w[0] >= w[1]));
    }

    #[test]
    fn a_load_out_of_range_is_refused() {
        let config = QueueConfig {
            cpu: CpuBurn {
                load: 0,
                ..CpuBurn::default()
            },
            ..QueueConfig::default()
        };
        assert!(open(&config, &[]).is_err());
    }
}
