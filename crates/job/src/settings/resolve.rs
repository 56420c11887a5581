//! The second step: a job's settings validated, with fio's derived
//! defaults (init.c `fixup_options` and friends) and the checks across
//! options. The derivations that depend on whether an option was given, or
//! on other options, live here; the plain defaults are the table's.

use super::Settings;
use crate::spec::*;
use crate::values;
use crate::zones::ZoneMode;

/// fio's `__NON_FATAL_ERR`: the errors continue_on_error goes on after
/// unless ignore_error names others.
const DEFAULT_IGNORED: [i32; 2] = [libc::EIO, libc::EILSEQ];

impl Settings {
    /// The second step: fio's derived defaults and checks across options.
    pub(crate) fn resolve(&self) -> Result<JobSpec, String> {
        let mut spec = self.spec.clone();
        // fio's precedence: bssplit over bsrange over bs, whatever the order.
        let pick = |split: &Option<Vec<(u64, u32)>>, range: &Option<(u64, u64)>, bs: u64| match (
            split, range,
        ) {
            (Some(split), _) => BlockSize::Split(split.clone()),
            (None, Some((min, max))) if min != max => BlockSize::Range {
                min: *min,
                max: *max,
            },
            (None, Some((min, _))) => BlockSize::Fixed(*min),
            (None, None) => BlockSize::Fixed(bs),
        };
        spec.bs = PerDir {
            read: pick(&self.bssplit.read, &self.bsrange.read, self.bs.read),
            write: pick(&self.bssplit.write, &self.bsrange.write, self.bs.write),
            trim: pick(&self.bssplit.trim, &self.bsrange.trim, self.bs.trim),
        };
        let depth = spec.iodepth;
        // fio's fixups (init.c): an unset or too large submit batch or low
        // watermark becomes iodepth; a complete_max that is unset or below
        // complete_min becomes complete_min.
        let fit = |v: u32| if v == 0 || v > depth { depth } else { v };
        spec.iodepth_batch_submit = fit(spec.iodepth_batch_submit);
        spec.iodepth_low = fit(self.iodepth_low);
        spec.iodepth_batch_complete_max = self
            .iodepth_batch_complete_max
            .max(spec.iodepth_batch_complete_min);
        // fio: a given randseed overrides randrepeat (init.c); one not
        // given is left to the workload, which seeds from the same default.
        if self.given("randseed") {
            spec.placement.randseed_keeps_offsets = spec.randrepeat;
            spec.randseed = Some(self.randseed);
            spec.randrepeat = false;
        }
        // fio: zero_buffers turns scrambling off unless it was asked for.
        if spec.zero_buffers && !self.given("scramble_buffers") {
            spec.scramble_buffers = false;
        }
        // fio's __NON_FATAL_ERR: a class that ignore_error gave no list
        // ignores the errors continue_on_error goes on after by default.
        for list in &mut spec.errors.ignore {
            if list.is_empty() {
                *list = DEFAULT_IGNORED.to_vec();
            }
        }
        // fio 3.42 (init.c): the smaller writes of zone remainders would
        // leave blocks of a random map half marked, so the map goes, as
        // silently as fio turns it off, unless it was asked for. Before
        // the verify defaults, which depend on the map, as in fio.
        if spec.zones.mode == ZoneMode::Zbd && spec.zones.write_remainder {
            if !self.given("norandommap") {
                spec.norandommap = true;
            } else if !spec.norandommap {
                return Err("write_zone_remainder=1 requires norandommap=1".into());
            }
        }
        self.resolve_data(&mut spec)?;
        crate::zones::resolve(&mut spec)?;
        let engine = &spec.engine_options;
        if let (Some(cpu), false) = (engine.sqthread_poll_cpu, engine.sqthread_poll) {
            // fio ignores the CPU without an SQ thread; ioscope's engine
            // refuses it, so say so before the run rather than at it.
            return Err(format!(
                "sqthread_poll_cpu={cpu} needs sqthread_poll (without it there is no SQ thread to place)"
            ));
        }
        crate::engines_misc::resolve(&mut spec)?;
        check_extent(&spec)?;
        self.resolve_sprandom(&mut spec)?;
        crate::placement::fix_up(&mut spec);
        crate::misc_spec::fix_up(&mut spec)?;
        if spec.time_based && spec.runtime.is_none() {
            // fio (init.c fixup_options) drops time_based and runs the job
            // on its size; the binary prints fio's complaint.
            spec.time_based = false;
            spec.misc.time_based_dropped = true;
        }
        shared_writers_warning(&mut spec);
        if let Some(SizeSpec::Bytes(size)) = spec.size {
            let min_bs = spec.bs.read.min().min(spec.bs.write.min());
            if size < min_bs {
                return Err(format!(
                    "size={size} is smaller than the block size ({min_bs} bytes)"
                ));
            }
        }
        Ok(spec)
    }

    /// fio's `sprandom` fix-ups (init.c): it needs random writes, the
    /// LFSR and no random map, and sets the last two, saying so, unless
    /// they were given otherwise; and one file (filesetup.c).
    fn resolve_sprandom(&self, spec: &mut JobSpec) -> Result<(), String> {
        if !spec.placement.sprandom {
            return Ok(());
        }
        let kind = spec.rw.kind;
        if !(kind.writes() && kind.is_random()) {
            return Err(
                "sprandom requires random write, random_generator=lfsr, norandommap=1".into(),
            );
        }
        if !self.given("random_generator") {
            spec.misc
                .fixup_notes
                .push("fio: sprandom sets random_generator=lfsr");
            spec.random_generator = RandomGenerator::Lfsr;
        } else if spec.random_generator != RandomGenerator::Lfsr {
            return Err("sprandom requires random_generator=lfsr".into());
        }
        if !self.given("norandommap") {
            spec.misc
                .fixup_notes
                .push("fio: sprandom sets norandommap=1");
            spec.norandommap = true;
        } else if !spec.norandommap {
            return Err("sprandom requires norandommap=1".into());
        }
        if spec.filenames.len() > 1 || (spec.filenames.is_empty() && spec.nrfiles != 1) {
            return Err(
                "SPRandom supports only one file: give the job one filename (nrfiles=1)".into(),
            );
        }
        Ok(())
    }

    /// The derived defaults and checks of buffer contents, verify and trim
    /// verify, fio's (init.c fixup_options) where it has them.
    fn resolve_data(&self, spec: &mut JobSpec) -> Result<(), String> {
        // fio: compression other than 100% and dedupe refill the buffers
        // for every write, unless refill_buffers was written.
        let compress = spec.buffer_compress_percentage.is_some_and(|p| p != 100);
        if (compress || spec.dedupe_percentage > 0) && !self.given("refill_buffers") {
            spec.refill_buffers = true;
        }
        let v = &mut spec.verify;
        // fio: a verify_pattern without verify means VERIFY_PATTERN, the
        // pattern with headers (str_verify_pattern_cb; fio 3.42 calls it
        // verify=pattern_hdr), not verify=pattern.
        if v.pattern.is_some() && !self.given("verify") {
            v.method = VerifyMethod::PatternHdr;
        }
        if matches!(v.method, VerifyMethod::Pattern | VerifyMethod::PatternHdr)
            && v.pattern.is_none()
        {
            // fio 3.42 aborts on an assertion when it checks such a block.
            return Err(format!("verify={} needs verify_pattern", v.method.name()));
        }
        // fio's HOWTO says so, and fio does not check: with another method
        // its Compare carries a buffer filled anew (fresh random data and
        // headers, not the written block's), so good blocks would fail.
        if spec.engine_options.verify_mode == VerifyMode::Compare
            && v.method != VerifyMethod::Pattern
        {
            let why = if v.method == VerifyMethod::PatternHdr {
                format!(
                    "verify=pattern_hdr{} puts a header in each block, which a Compare with \
                     the pattern alone fails",
                    if self.given("verify") {
                        ""
                    } else {
                        " (what verify_pattern without verify means, as in fio)"
                    }
                )
            } else {
                format!("verify={} has none", v.method.name())
            };
            return Err(format!(
                "verify_mode=compare is only valid with verify=pattern and verify_pattern: \
                 the device compares each block with the pattern, and {why} \
                 (give verify=pattern with verify_pattern, or leave verify_mode=read)"
            ));
        }
        if v.backlog_batch == 0 {
            v.backlog_batch = v.backlog;
        }
        if spec.trim_verify.backlog_batch == 0 {
            spec.trim_verify.backlog_batch = spec.trim_verify.backlog;
        }
        if v.method == VerifyMethod::None {
            let set = [
                (v.only, "verify_only"),
                (v.backlog > 0, "verify_backlog"),
                (v.state_load, "verify_state_load"),
                (spec.trim_verify.percentage > 0, "trim_percentage"),
                (spec.trim_verify.backlog > 0, "trim_backlog"),
            ];
            if let Some((_, name)) = set.iter().find(|s| s.0) {
                // fio silently does nothing; a job that asks to check data
                // and checks none would report a pass it never earned.
                return Err(format!("{name} needs verify (e.g. verify=crc32c)"));
            }
            return Ok(());
        }
        // fio: a read workload checks what an earlier job wrote, so the
        // number of the last write there is unknown and so, unless the read
        // job repeats the writing one exactly, is the seed; verify_only
        // and norandommap leave them unknown too.
        let reads_back = !spec.rw.kind.writes();
        if !self.given("verify_header_seed") {
            v.header_seed = !(reads_back || v.only || spec.norandommap);
        }
        if !self.given("verify_write_sequence") {
            v.write_sequence = !(v.only || v.experimental);
        }
        // fio: the interval divides the smallest and the largest write
        // size (read size, for a job that reads back); otherwise it is
        // their gcd.
        let bs = if reads_back {
            &spec.bs.read
        } else {
            &spec.bs.write
        };
        let (min, max) = (bs.min(), bs.max());
        let sizes: Vec<u64> = match bs {
            BlockSize::Split(v) => v.iter().map(|p| p.0).collect(),
            _ => vec![min, max],
        };
        let fits = |i: u64| i > 0 && sizes.iter().all(|s| s % i == 0);
        v.interval = if fits(self.verify_interval) {
            self.verify_interval
        } else {
            sizes.iter().copied().fold(0, gcd)
        };
        if v.offset >= v.interval {
            return Err(format!(
                "verify_offset={} is not inside a verify interval of {} bytes",
                v.offset, v.interval
            ));
        }
        if spec.trim_verify.percentage > 0 && !spec.rw.kind.writes() {
            return Err("trim_percentage trims written blocks: it needs a write workload".into());
        }
        Ok(())
    }
}

/// Refuses a region that ends past the largest offset a file can have
/// (2^63-1): offsets and sizes add up (`offset + size`, and each clone's
/// `offset_increment`), and a sum past it would wrap around to the start of
/// the target.
fn check_extent(spec: &JobSpec) -> Result<(), String> {
    // With a percentage in either, the region depends on the file's size.
    let (SizeSpec::Bytes(offset), SizeSpec::Bytes(increment)) =
        (spec.offset, spec.offset_increment)
    else {
        return Ok(());
    };
    let max = values::MAX_NUMBER;
    let too_large = |what: String| {
        Err(format!(
            "{what} is too large: it ends past the largest file offset, {max} bytes (2^63-1)"
        ))
    };
    let clones = u64::from(spec.numjobs.saturating_sub(1));
    let Some(last_offset) = increment
        .checked_mul(clones)
        .and_then(|shift| shift.checked_add(offset))
        .filter(|&o| o <= max)
    else {
        return too_large(format!(
            "offset={offset} plus offset_increment={increment} for each of {clones} more clones (numjobs={})",
            spec.numjobs
        ));
    };
    let shifted = if clones > 0 && increment > 0 {
        format!(" (the last clone's: offset={offset} + {clones} * offset_increment={increment})")
    } else {
        String::new()
    };
    let mut lengths = Vec::new();
    if let Some(SizeSpec::Bytes(size)) = spec.size {
        lengths.push(("size", size));
    }
    if let Some((_, largest)) = spec.filesize {
        lengths.push(("filesize", largest));
    }
    for (name, len) in lengths {
        if last_offset.checked_add(len).is_none_or(|end| end > max) {
            return too_large(format!("offset={last_offset}{shifted} plus {name}={len}"));
        }
    }
    Ok(())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// fio's warning (init.c fixup_options) for a verifying job whose clones
/// write the same files: a named file, or generated names that do not
/// tell the clones' files apart. (fio's other one there, that a time-based
/// write job's verify phase never starts, is not true of ioscope, which
/// checks each block's last write after the runtime.)
fn shared_writers_warning(spec: &mut JobSpec) {
    let v = &spec.verify;
    if v.method == VerifyMethod::None || !spec.rw.kind.writes() || !v.do_verify {
        return;
    }
    let fh = &spec.file_handling;
    // fio's test is case-sensitive (strstr); the default format has all three.
    let format = match fh.filename_format.is_empty() {
        true => "$jobname.$jobnum.$filenum",
        false => fh.filename_format.as_str(),
    };
    let names_apart = fh.unique_filename
        && ["$jobname", "$jobnum", "$filenum"]
            .iter()
            .all(|k| format.contains(k));
    if spec.numjobs > 1 && (!spec.filenames.is_empty() || !names_apart) {
        spec.misc.setup_warnings.push(
            "fio: multiple writers may overwrite blocks that belong to other jobs. \
             This can cause verification failures.",
        );
    }
}
