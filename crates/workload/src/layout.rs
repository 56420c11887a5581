//! Where in each file a worker does I/O and how big files must be laid out
//! (fio's `setup_files` and `get_start_offset`).

use ioscope_job::{JobSpec, SizeSpec};

use crate::generator::FileExtent;
use crate::rand::{fio_seeds, seed_slot, FioRand};

/// What one file of a job needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilePlan {
    /// The size to create or extend the file to before the job starts, when
    /// the extent reaches past its current end (or it does not exist).
    /// None: use the file as it is.
    pub layout_size: Option<u64>,
    /// The region the worker does I/O in.
    pub extent: FileExtent,
}

/// Plans the files of a job: `existing[i]` is the current size of file
/// `i` (a regular file or a device), None when it does not exist yet. The
/// number of files is `existing.len()` (the job's filenames, or `nrfiles`).
///
/// fio's rules: without `filesize`, each file gets `size / nrfiles`; with no
/// `size` (or a percentage) an existing file's own size less the offset; with
/// `filesize`, that size for files outside the range (a random size in the
/// range, drawn like fio from thread 1's seed). `offset` as a percentage is
/// of the file's current size, rounded up to the minimum block size.
pub fn plan_files(spec: &JobSpec, existing: &[Option<u64>]) -> Result<Vec<FilePlan>, String> {
    let nr = existing.len() as u64;
    if nr == 0 {
        return Err(format!("{}: no files to do I/O to", spec.name));
    }
    let min_bs = min_bs(spec);
    if min_bs == 0 {
        return Err(format!("{}: block size must be greater than 0", spec.name));
    }
    let real: Vec<u64> = existing.iter().map(|s| s.unwrap_or(0)).collect();
    let total_real = real
        .iter()
        .try_fold(0u64, |a, &b| a.checked_add(b))
        .unwrap_or(u64::MAX);
    let size_bytes = match spec.size {
        Some(SizeSpec::Bytes(b)) if b > 0 => Some(b),
        _ => None,
    };
    let size_percent = match spec.size {
        Some(SizeSpec::Percent(p)) if p > 0.0 && p < 100.0 => Some(p),
        _ => None,
    };
    if total_real == 0 && size_bytes.is_none() && spec.filesize.is_none() {
        return Err(format!("{}: you need to specify size=", spec.name));
    }
    if let Some(b) = size_bytes {
        if b < min_bs {
            return Err(format!(
                "{}: size too small, must not be less than minimum block size: {b} < {min_bs}",
                spec.name
            ));
        }
    }
    let per_file = size_bytes.map_or(0, |b| b / nr);
    let mut size_rand = None;
    let mut plans = Vec::with_capacity(existing.len());
    for (i, &real) in real.iter().enumerate() {
        let start = start_offset(spec, real, min_bs);
        let offset_error = || {
            format!(
                "{}: you need to specify valid offset= (offset {start} is beyond the end of file {i}, {real} bytes)",
                spec.name
            )
        };
        let mut len = match spec.filesize {
            None if per_file > 0 => per_file,
            None => real.checked_sub(start).ok_or_else(offset_error)?,
            Some((lo, hi)) if real < lo || real > hi => {
                if start > lo {
                    return Err(offset_error());
                }
                let size = if lo == hi {
                    lo
                } else {
                    let r = size_rand.get_or_insert_with(|| {
                        let seeds = fio_seeds(spec.randrepeat, spec.randseed, 1);
                        FioRand::new(seeds[seed_slot::FILE_SIZE], false)
                    });
                    let s = lo + r.below(hi - lo);
                    s - s % min_bs
                };
                size.saturating_sub(start)
            }
            Some(_) => real.checked_sub(start).ok_or_else(offset_error)?,
        };
        if let Some(p) = size_percent {
            let file_size = len + start;
            len = ((file_size as f64 * p / 100.0) as u64).min(file_size - start);
            len -= len % min_bs;
        }
        let end = start + len;
        plans.push(FilePlan {
            layout_size: (end > real).then_some(end),
            extent: FileExtent { offset: start, len },
        });
    }
    let total: u64 = plans.iter().map(|p| p.extent.len).sum();
    if total < min_bs {
        return Err(format!(
            "{}: blocksize too large for data set ({total} bytes to do I/O in, minimum block size {min_bs})",
            spec.name
        ));
    }
    Ok(plans)
}

/// fio's `td_min_bs`: the smallest block of the directions the job uses.
fn min_bs(spec: &JobSpec) -> u64 {
    match (spec.rw.kind.reads(), spec.rw.kind.writes()) {
        (true, false) => spec.bs.read.min(),
        (false, true) => spec.bs.write.min(),
        _ => spec.bs.read.min().min(spec.bs.write.min()),
    }
}

/// fio's `get_start_offset`: a percentage is of the file's current size,
/// rounded up to a multiple of the minimum block size.
fn start_offset(spec: &JobSpec, real: u64, min_bs: u64) -> u64 {
    match spec.offset {
        SizeSpec::Bytes(b) => b,
        SizeSpec::Percent(p) => {
            let off = (real as f64 * p / 100.0) as u64;
            off.div_ceil(min_bs) * min_bs
        }
    }
}
