//! Where in each file a worker does I/O and how big files must be laid out
//! (fio's `setup_files` and `get_start_offset`).

use ioscope_job::{JobSpec, SizeSpec};

use crate::generator::FileExtent;
use crate::rand::{job_seeds, seed_slot, FioRand};

/// What one file of a job needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilePlan {
    /// The size to create or extend the file to before the job starts, when
    /// the extent reaches past its current end (or it does not exist).
    /// None: use the file as it is.
    pub layout_size: Option<u64>,
    /// The file's size once laid out, for [`crate::Workload::with_file_sizes`].
    pub file_size: u64,
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
/// `clone` is the job's clone number (0 to numjobs-1), which
/// `offset_increment` shifts the start by. A file marked in `appending`
/// (`file_append` on a regular file) starts at its current end instead,
/// whatever `offset` says, as fio's `get_start_offset` has it, and gets
/// one pass ([`FileExtent::appends`]).
pub fn plan_files(
    spec: &JobSpec,
    existing: &[Option<u64>],
    appending: &[bool],
    clone: u32,
) -> Result<Vec<FilePlan>, String> {
    let nr = existing.len() as u64;
    if nr == 0 {
        return Err("no files to do I/O to".to_string());
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
        return Err("you need to specify size=".to_string());
    }
    if let Some(b) = size_bytes {
        if b < min_bs {
            return Err(format!(
                "size too small, must not be less than minimum block size: {b} < {min_bs}"
            ));
        }
    }
    let per_file = size_bytes.map_or(0, |b| b / nr);
    let mut size_rand = None;
    let mut plans = Vec::with_capacity(existing.len());
    for (i, &real) in real.iter().enumerate() {
        let align = spec.placement.offset_align.unwrap_or(min_bs);
        let appends = appending.get(i) == Some(&true);
        let start = match appends {
            true => real,
            false => start_offset(spec, real, align, clone),
        };
        let offset_error = || {
            format!(
                "you need to specify valid offset= (offset {start} is beyond the end of file {i}, {real} bytes)"
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
                        let seeds = job_seeds(spec, 1);
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
            file_size: end.max(real),
            extent: FileExtent {
                offset: start,
                len,
                appends,
            },
        });
    }
    let total: u64 = plans.iter().map(|p| p.extent.len).sum();
    if total < min_bs {
        return Err(format!(
            "blocksize too large for data set ({total} bytes to do I/O in, minimum block size {min_bs})"
        ));
    }
    Ok(plans)
}

/// The `count` files of an engine that opens none (null, nop, cpuio...),
/// as fio sizes them: a file it cannot stat is `size` / nrfiles big
/// (`get_file_sizes`), or of no known size without `size`. A percentage
/// `offset` is of that (fio 3.33: `offset=10% size=64k` on the null engine
/// starts at 8k), and `filesize` sizes them as files that do not exist yet.
pub fn diskless_files(spec: &JobSpec, count: usize) -> Vec<Option<u64>> {
    let each = match spec.size {
        Some(SizeSpec::Bytes(b)) if b > 0 => Some(b / count.max(1) as u64),
        _ => None,
    };
    vec![each; count]
}

/// fio's `td_min_bs`: the smallest block of the directions the job uses.
pub fn min_bs(spec: &JobSpec) -> u64 {
    match (spec.rw.kind.reads(), spec.rw.kind.writes()) {
        (true, false) => spec.bs.read.min(),
        (false, true) => spec.bs.write.min(),
        _ => spec.bs.read.min().min(spec.bs.write.min()),
    }
}

/// fio's `get_start_offset`: `offset` plus the clone's share of
/// `offset_increment` (clone N starts N increments further), where either
/// may be a percentage of the file's current size; with a percentage the
/// sum is rounded up to a multiple of `align` (`offset_align`, default the
/// minimum block size).
fn start_offset(spec: &JobSpec, real: u64, align: u64, clone: u32) -> u64 {
    let percent = |p: f64| (real as f64 * p / 100.0) as u64;
    let (increment, mut aligned) = match spec.offset_increment {
        SizeSpec::Bytes(b) => (b, false),
        SizeSpec::Percent(p) => (percent(p), true),
    };
    let shift = u64::from(clone).saturating_mul(increment);
    let start = match spec.offset {
        SizeSpec::Bytes(b) => b,
        SizeSpec::Percent(p) => {
            aligned = true;
            percent(p)
        }
    }
    .saturating_add(shift);
    match aligned {
        true => start.div_ceil(align).saturating_mul(align),
        false => start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_spec::spec;
    use ioscope_job::RwKind;

    const MIB: u64 = 1 << 20;

    fn plan(f: impl Fn(&mut JobSpec), existing: &[Option<u64>]) -> Result<Vec<FilePlan>, String> {
        let mut s = spec(RwKind::Read, 10 * MIB, 4096);
        f(&mut s);
        plan_files(&s, existing, &[], 0)
    }

    fn extent(offset: u64, len: u64) -> FileExtent {
        FileExtent {
            offset,
            len,
            appends: false,
        }
    }

    // Figures below: fio 3.33 with --ioengine=psync --bs=4k --rw=read, file
    // sizes from `ls -l` after the run and extents from the byte counts and
    // first offsets of --write_iolog.

    #[test]
    fn new_files_split_size() {
        // --size=10m --nrfiles=3: three files of 3495253 bytes, 2559 I/Os
        let p = plan(|s| s.nrfiles = 3, &[None; 3]).unwrap();
        for f in &p {
            assert_eq!(f.extent, extent(0, 3_495_253));
            assert_eq!(f.layout_size, Some(3_495_253));
        }
    }

    #[test]
    fn an_appended_file_starts_at_its_end_whatever_offset_says() {
        // fio 3.33, a 1 MiB file, --rw=write --size=2m --offset=64k
        // --file_append=1: writes 1048576 to 3141632, a 3 MiB file. The
        // second file is not appended to (a device): it keeps the offset.
        let mut s = spec(RwKind::Write, 4 * MIB, 4096);
        s.nrfiles = 2;
        s.offset = SizeSpec::Bytes(64 << 10);
        let p = plan_files(&s, &[Some(MIB), Some(8 * MIB)], &[true, false], 0).unwrap();
        let appended = FileExtent {
            appends: true,
            ..extent(MIB, 2 * MIB)
        };
        assert_eq!(p[0].extent, appended);
        assert_eq!(p[0].layout_size, Some(3 * MIB));
        assert_eq!(p[1].extent, extent(64 << 10, 2 * MIB));
        assert_eq!(p[1].layout_size, None);
    }

    #[test]
    fn filesize_range_draws_like_fio() {
        // --filesize=1m-3m --nrfiles=3 (no size): files of 1347584,
        // 1699840 and 1671168 bytes
        let p = plan(
            |s| {
                s.size = None;
                s.filesize = Some((MIB, 3 * MIB));
            },
            &[None; 3],
        )
        .unwrap();
        let sizes: Vec<u64> = p.iter().map(|f| f.extent.len).collect();
        assert_eq!(sizes, [1_347_584, 1_699_840, 1_671_168]);
        // --filesize=1m --nrfiles=2 --size=3m: 1m each, 2m read
        let p = plan(
            |s| {
                s.size = Some(SizeSpec::Bytes(3 * MIB));
                s.filesize = Some((MIB, MIB));
            },
            &[None; 2],
        )
        .unwrap();
        assert!(p
            .iter()
            .all(|f| f.extent == extent(0, MIB) && f.layout_size == Some(MIB)));
    }

    #[test]
    fn existing_file_sizes_and_offsets() {
        let ten = [Some(10 * MIB)];
        let case = |f: fn(&mut JobSpec)| plan(f, &ten).unwrap()[0];
        // no size: 10m read, nothing laid out
        let p = case(|s| s.size = None);
        assert_eq!((p.extent, p.layout_size), (extent(0, 10 * MIB), None));
        // --offset=10%: 9437184 bytes from 1048576
        let p = case(|s| {
            s.size = None;
            s.offset = SizeSpec::Percent(10.0);
        });
        assert_eq!(p.extent, extent(MIB, 9 * MIB));
        // --size=50%: 5242880 bytes
        assert_eq!(
            case(|s| s.size = Some(SizeSpec::Percent(50.0))).extent,
            extent(0, 5 * MIB)
        );
        // --offset=10% --size=50%: 5242880 bytes from 1048576
        let p = case(|s| {
            s.size = Some(SizeSpec::Percent(50.0));
            s.offset = SizeSpec::Percent(10.0);
        });
        assert_eq!(p.extent, extent(MIB, 5 * MIB));
        // --offset=33%: 7024640 bytes (offset rounded up to 3461120)
        let p = case(|s| {
            s.size = None;
            s.offset = SizeSpec::Percent(33.0);
        });
        assert_eq!(p.extent, extent(3_461_120, 7_024_640));
        // --offset=3333: not aligned; 2559 whole blocks fit
        let p = case(|s| {
            s.size = None;
            s.offset = SizeSpec::Bytes(3333);
        });
        assert_eq!(p.extent, extent(3333, 10 * MIB - 3333));
        // --offset=9m --size=2m: the file grows to 11534336
        let p = case(|s| {
            s.size = Some(SizeSpec::Bytes(2 * MIB));
            s.offset = SizeSpec::Bytes(9 * MIB);
        });
        assert_eq!(
            (p.extent, p.layout_size),
            (extent(9 * MIB, 2 * MIB), Some(11 * MIB))
        );
        // --size=20m: the file grows to 20971520
        let p = case(|s| s.size = Some(SizeSpec::Bytes(20 * MIB)));
        assert_eq!(p.layout_size, Some(20 * MIB));
    }

    #[test]
    fn new_file_offsets() {
        // --offset=2m --size=1m on a new file: laid out to 3145728, 1m read
        let p = plan(
            |s| {
                s.size = Some(SizeSpec::Bytes(MIB));
                s.offset = SizeSpec::Bytes(2 * MIB);
            },
            &[None],
        )
        .unwrap()[0];
        assert_eq!(
            (p.extent, p.layout_size),
            (extent(2 * MIB, MIB), Some(3 * MIB))
        );
        // --offset=10% --size=10m on a new file: 10% of nothing, offset 0
        let p = plan(|s| s.offset = SizeSpec::Percent(10.0), &[None]).unwrap()[0];
        assert_eq!(p.extent, extent(0, 10 * MIB));
    }

    #[test]
    fn impossible_combinations_are_errors() {
        // fio: "t: you need to specify size=" (no size, new file; also size=50%)
        let e = plan(|s| s.size = None, &[None]).unwrap_err();
        assert!(e.contains("you need to specify size="), "{e}");
        let e = plan(|s| s.size = Some(SizeSpec::Percent(50.0)), &[None]).unwrap_err();
        assert!(e.contains("you need to specify size="), "{e}");
        // fio: "t: you need to specify valid offset=" (--offset=11m, 10m file)
        let e = plan(
            |s| {
                s.size = None;
                s.offset = SizeSpec::Bytes(11 * MIB);
            },
            &[Some(10 * MIB)],
        )
        .unwrap_err();
        assert!(e.contains("valid offset="), "{e}");
        // fio: "size too small, must not be less than minimum block size: 1000 < 4096"
        let e = plan(|s| s.size = Some(SizeSpec::Bytes(1000)), &[None]).unwrap_err();
        assert!(e.contains("1000 < 4096"), "{e}");
        assert!(plan(|_| {}, &[]).is_err());
        let e = plan(
            |s| s.bs = ioscope_job::PerDir::all(ioscope_job::BlockSize::Fixed(0)),
            &[None],
        )
        .unwrap_err();
        assert!(e.contains("block size"), "{e}");
        // An existing but empty file and no size.
        assert!(plan(|s| s.size = None, &[Some(0)]).is_err());
    }
}
