//! A JobSpec with fio's defaults, for tests.

use ioscope_job::{BlockSize, JobSpec, PerDir, RwKind, RwMode, SizeSpec};

pub fn spec(kind: RwKind, size: u64, bs: u64) -> JobSpec {
    let mut spec = JobSpec::fio_defaults("t");
    spec.rw = RwMode { kind, nr: 1 };
    spec.size = Some(SizeSpec::Bytes(size));
    spec.bs = PerDir::all(BlockSize::Fixed(bs));
    spec
}
