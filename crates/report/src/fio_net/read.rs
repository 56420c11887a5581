//! The other way: a fio server's payloads read back into results, for
//! ioscope's client (`--client`). The fields are read in the order the
//! writer in this module's parent puts them; a round trip test holds the
//! two together.

use ioscope_stats::{
    bucket_value, DiskUtil, JobResult, LatencyHistogram, LatencyProfile, LatencyStat, PrioLat,
    SteadyStateResult, Summary, PLAT_NR,
};

use super::{BLOCK_INFOS, CLAT_PRIO_SIZE, LIST_MAX, N2S_BITPERSEC, THREAD_STAT_SIZE};

/// A packed little-endian C struct being read field by field.
struct Unpacked<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Unpacked<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let piece = &self.bytes[self.at..self.at + n];
        self.at += n;
        piece
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take(2).try_into().unwrap())
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }

    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().unwrap())
    }

    fn u64s<const N: usize>(&mut self) -> [u64; N] {
        std::array::from_fn(|_| self.u64())
    }

    fn skip(&mut self, n: usize) {
        self.at += n;
    }

    /// fio_fp64_t: the double's IEEE 754 bits, then 8 bytes of padding.
    fn fp64(&mut self) -> f64 {
        let v = f64::from_bits(self.u64());
        self.skip(8);
        v
    }

    /// A NUL-terminated char array of `size` bytes.
    fn text(&mut self, size: usize) -> String {
        let bytes = self.take(size);
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(size);
        String::from_utf8_lossy(&bytes[..end]).into_owned()
    }

    fn io_stat(&mut self) -> Summary {
        let max = self.u64();
        let min = self.u64();
        let samples = self.u64();
        let mean = self.fp64();
        let s = self.fp64();
        Summary::from_parts(samples, min, max, mean, s)
    }

    fn plat(&mut self) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        for i in 0..PLAT_NR {
            let n = self.u64();
            if n > 0 {
                h.add_n(bucket_value(i), n);
            }
        }
        h
    }
}

/// A job's result from a struct cmd_ts_pdu (and the per-priority
/// latencies and steady-state samples after it), with the run's kb_base.
pub fn job_stats(payload: &[u8]) -> Result<(JobResult, u32), String> {
    if payload.len() < super::TS_PDU_SIZE {
        return Err(format!(
            "a job's statistics of {} bytes, where fio 3.33 sends {}",
            payload.len(),
            super::TS_PDU_SIZE
        ));
    }
    let mut r = Unpacked {
        bytes: payload,
        at: 0,
    };
    let mut j = JobResult::default();
    j.header.name = r.text(128);
    r.skip(128); // verror: the error's number is what is rendered.
    j.error = r.u32() as i32;
    r.skip(4); // thread_number
    j.header.groupid = r.u32();
    j.pid = r.u32() as i32;
    let description = r.text(256);
    j.header.description = (!description.is_empty()).then_some(description);
    j.header.numjobs = r.u32();
    j.unified_rw = r.u32() as u8;
    r.skip(4); // disable_prio_stat
    r.skip(r.at.next_multiple_of(8) - r.at);
    j.sync.lat.summary = r.io_stat();
    type Kind = fn(&mut ioscope_stats::DirResult) -> &mut LatencyStat;
    let kinds: [Kind; 3] = [|d| &mut d.clat, |d| &mut d.slat, |d| &mut d.lat];
    for kind in kinds {
        for d in &mut j.dirs {
            kind(d).summary = r.io_stat();
        }
    }
    for d in &mut j.dirs {
        d.bw = r.io_stat();
    }
    for d in &mut j.dirs {
        d.iops = r.io_stat();
    }
    j.cpu.user_ns = r.u64() * 1_000_000;
    j.cpu.sys_ns = r.u64() * 1_000_000;
    j.cpu.ctx = r.u64();
    j.cpu.minf = r.u64();
    j.cpu.majf = r.u64();
    j.clat_percentiles = r.u32() != 0;
    j.lat_percentiles = r.u32() != 0;
    j.slat_percentiles = r.u32() != 0;
    r.skip(4 + 8); // pad, percentile_precision (follows from the list)
    j.percentile_list = (0..LIST_MAX)
        .map(|_| r.fp64())
        .filter(|p| *p != 0.0)
        .collect();
    j.depth.counts = r.u64s();
    j.submit.counts = r.u64s();
    j.complete.counts = r.u64s();
    j.lat_buckets.nsec = r.u64s();
    j.lat_buckets.usec = r.u64s();
    j.lat_buckets.msec = r.u64s();
    let kinds: [Kind; 3] = [|d| &mut d.slat, |d| &mut d.clat, |d| &mut d.lat];
    let kept = [j.slat_percentiles, j.clat_percentiles, j.lat_percentiles];
    for (kind, on) in kinds.into_iter().zip(kept) {
        for d in &mut j.dirs {
            let h = r.plat();
            if on {
                kind(d).histogram = Some(h);
            }
        }
    }
    let sync_plat = r.plat();
    if j.clat_percentiles || j.lat_percentiles {
        j.sync.lat.histogram = Some(sync_plat);
    }
    j.issued = r.u64s();
    j.sync.total_ios = r.u64();
    j.short = r.u64s();
    j.dropped = r.u64s();
    r.skip(16); // total_submit, total_complete: the sums of the counts
    for d in &mut j.dirs {
        d.io_bytes = r.u64();
    }
    for d in &mut j.dirs {
        d.runtime_ms = r.u64();
    }
    for (i, d) in j.dirs.iter_mut().enumerate() {
        d.total_ios = j.issued[i];
        d.short_ios = j.short[i];
        d.drop_ios = j.dropped[i];
    }
    j.runtime_ms = r.u64();
    j.continue_on_error = r.u16() != 0;
    r.skip(2);
    j.first_error = r.u32() as i32;
    j.total_err = r.u64();
    j.zone_resets = r.u64();
    r.skip(8 + BLOCK_INFOS * 4);
    let kb_base = r.u32();
    j.unit_bits = r.u32() == N2S_BITPERSEC;
    let depth = r.u32();
    r.skip(4);
    let target_ns = r.u64();
    let percentile = r.fp64();
    let window_us = r.u64();
    j.header.latency_profile = Some(LatencyProfile {
        target_ns,
        window_us,
        percentile,
        depth,
    });
    j.header.iodepth = depth;
    j.sig_figs = r.u32() as u8;
    let ss_dur = r.u64() as usize;
    let ss_state = r.u32();
    let ss_head = r.u32() as usize;
    let ss_limit = r.fp64();
    let ss_slope = r.fp64();
    let ss_deviation = r.fp64();
    let ss_criterion = r.fp64();
    r.skip(4); // ioprio
    let ss_iops_at = r.u64() as usize;
    let ss_bw_at = r.u64() as usize;
    let prio_at: [u64; 3] = r.u64s();
    let nr_prio = [r.u32(), r.u32(), r.u32()];
    debug_assert!(r.at + 16 <= THREAD_STAT_SIZE);
    for (i, d) in j.dirs.iter_mut().enumerate() {
        let mut at = prio_at[i] as usize;
        for _ in 0..nr_prio[i] {
            let end = at + CLAT_PRIO_SIZE;
            let piece = payload
                .get(at..end)
                .ok_or("per-priority latencies past the payload's end")?;
            let mut p = Unpacked {
                bytes: piece,
                at: 0,
            };
            let histogram = Some(p.plat());
            let summary = p.io_stat();
            let ioprio = p.u32() as u16;
            d.prios.push(PrioLat {
                ioprio,
                lat: LatencyStat { summary, histogram },
            });
            at = end;
        }
    }
    const DATA: u32 = 1 << 5;
    if ss_dur > 0 {
        let ring = |at: usize| -> Result<Vec<u64>, String> {
            let bytes = payload
                .get(at..at + ss_dur * 8)
                .filter(|_| ss_state & DATA != 0)
                .ok_or("steady-state samples past the payload's end")?;
            let values: Vec<u64> = bytes
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            // Oldest first, as fio's JSON lists them.
            let first = if ss_state & (1 << 3) != 0 || ss_state & (1 << 7) == 0 {
                ss_head
            } else {
                (ss_head + ss_dur - 1) % ss_dur
            };
            Ok((0..ss_dur).map(|l| values[(first + l) % ss_dur]).collect())
        };
        let metric = if ss_state & 1 != 0 { "iops" } else { "bw" };
        let slope = ss_state & (1 << 2) != 0;
        let percent = ss_state & (1 << 6) != 0;
        j.steadystate = Some(SteadyStateResult {
            ss: format!(
                "{metric}{}:{ss_limit:.6}{}",
                if slope { "_slope" } else { "" },
                if percent { "%" } else { "" }
            ),
            duration: ss_dur as u64,
            attained: ss_state & (1 << 3) != 0,
            metric,
            slope_criterion: slope,
            percent,
            limit: ss_limit,
            criterion: ss_criterion,
            max_deviation: ss_deviation,
            slope: ss_slope,
            bw: ring(ss_bw_at)?,
            iops_data: ring(ss_iops_at)?,
            lat: Vec::new(),
        });
    }
    Ok((j, kb_base))
}

/// A disk's utilisation from a struct cmd_du_pdu.
pub fn disk_util(payload: &[u8]) -> Result<DiskUtil, String> {
    if payload.len() < super::DISK_UTIL_SIZE {
        return Err(format!("a disk's figures of {} bytes", payload.len()));
    }
    let mut r = Unpacked {
        bytes: payload,
        at: 0,
    };
    let name = r.text(64);
    let [read_ios, write_ios] = r.u64s();
    let [read_merges, write_merges] = r.u64s();
    let [read_sectors, write_sectors] = r.u64s();
    let [read_ticks, write_ticks] = r.u64s();
    let io_ticks = r.u64();
    let in_queue = r.u64();
    let msec = r.u64();
    Ok(DiskUtil {
        name,
        read_ios,
        write_ios,
        read_merges,
        write_merges,
        read_sectors,
        write_sectors,
        read_ticks,
        write_ticks,
        in_queue,
        io_ticks,
        util: if msec == 0 {
            0.0
        } else {
            io_ticks as f64 * 100.0 / msec as f64
        },
    })
}

/// The file a log a server sent makes (struct cmd_iolog_pdu, then its
/// samples, deflated when the server compressed them for sending): fio's
/// text lines, every sample's (fio 3.33's client writes only as many
/// offset-carrying samples as fit the offset-less size), a histogram
/// log's lines from the histogram after each sample, or, for a log
/// stored compressed, its streams as they came.
pub fn log_file(payload: &[u8]) -> Result<Vec<u8>, String> {
    const XMIT_COMPRESSED: u32 = 1;
    const STORE_COMPRESSED: u32 = 2;
    const HIST: u32 = 6;
    const OFFSET_BIT: u32 = 0x8000_0000;
    const PRIO_BIT: u32 = 0x4000_0000;
    // struct io_u_plat_entry: a list head, then the bucket counts.
    const PLAT_ENTRY: usize = 16 + PLAT_NR * 8;
    let mut r = Unpacked {
        bytes: payload.get(..super::IOLOG_PDU_SIZE).ok_or("too short")?,
        at: 0,
    };
    let nr_samples = r.u64();
    r.skip(4); // thread_number
    let log_type = r.u32();
    let compressed = r.u32();
    r.skip(8); // log_offset, log_prio: each sample says
    let coarseness = r.u32();
    let sent = &payload[super::IOLOG_PDU_SIZE..];
    let inflated;
    let samples = match compressed {
        STORE_COMPRESSED => return Ok(sent.to_vec()),
        XMIT_COMPRESSED => {
            inflated = crate::log_fz::inflate_unended(sent)?;
            &inflated[..]
        }
        0 => sent,
        other => return Err(format!("compressed in an unknown way ({other})")),
    };
    let mut text = String::new();
    let mut at = 0;
    for _ in 0..nr_samples {
        let mut s = Unpacked { bytes: samples, at };
        if samples.len() < at + 32 {
            return Err("samples past the payload's end".into());
        }
        let time_ms = s.u64();
        let value = s.u64();
        let ddir = s.u32();
        let prio = s.u16();
        s.skip(2);
        let bs = s.u64();
        let with_offset = ddir & OFFSET_BIT != 0;
        let offset = if with_offset && samples.len() >= at + 40 {
            s.u64()
        } else {
            0
        };
        let files = ioscope_stats::LogFiles {
            offset: with_offset,
            prio: ddir & PRIO_BIT != 0,
            hist_coarseness: coarseness,
            ..ioscope_stats::LogFiles::default()
        };
        let dir = (ddir & !(OFFSET_BIT | PRIO_BIT)) as u8;
        if log_type == HIST {
            let plat = samples
                .get(s.at + 16..s.at + PLAT_ENTRY)
                .ok_or("a histogram past the payload's end")?;
            let line = ioscope_stats::HistLine {
                time_ms,
                dir,
                bs: bs as u32,
                counts: (plat.chunks_exact(8))
                    .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                    .collect(),
            };
            crate::log_lines::push_hist_line(&mut text, &line, &files);
            at = s.at + PLAT_ENTRY;
            continue;
        }
        at = s.at;
        let sample = crate::log_lines::Sample {
            time_ms,
            value,
            dir,
            bs,
            offset,
            prio,
            ..crate::log_lines::Sample::default()
        };
        crate::log_lines::push_line(&mut text, &sample, &files);
    }
    Ok(text.into_bytes())
}
