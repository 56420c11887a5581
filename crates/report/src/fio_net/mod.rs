//! A result as fio 3.33's server sends it to a fio client (server.c
//! fio_server_send_ts, _gs, _du and _job_options): the C structs
//! thread_stat, group_run_stats and cmd_du_pdu, packed and little-endian,
//! as `fio --client` of protocol version 97 reads and prints them. The
//! framing of these payloads is the binary's (src/server/).

pub mod eta;
mod read;

pub use read::{disk_util as read_disk_util, job_stats as read_job_stats, log_file};

use crate::group::{rate_unit_of, sig_figs_of, GroupStats};
use crate::normal::error_text;
use crate::num2str::Unit;
use ioscope_stats::{
    JobResult, LatencyHistogram, LatencyStat, RunResult, Summary, WorkerLogs, PLAT_NR,
};

/// fio's FIO_IO_U_LIST_MAX_LEN: percentiles a job may list.
const LIST_MAX: usize = 20;
/// fio's MAX_NR_BLOCK_INFOS.
const BLOCK_INFOS: usize = 8192;
/// fio's num2str units for rates (lib/num2str.h N2S_BYTEPERSEC, N2S_BITPERSEC).
const N2S_BYTEPERSEC: u32 = 4;
const N2S_BITPERSEC: u32 = 5;

/// The sizes of fio 3.33's struct thread_stat (packed, but 8-aligned by
/// its sync_stat, so padded at the end), group_run_stats, cmd_ts_pdu (the
/// two, padded to 8 bytes) and cmd_du_pdu.
const THREAD_STAT_SIZE: usize = 183_888;
const GROUP_STATS_SIZE: usize = 164;
const TS_PDU_SIZE: usize = 184_056;
const DISK_UTIL_SIZE: usize = 256;
/// struct cmd_iolog_pdu, before its samples.
const IOLOG_PDU_SIZE: usize = 288;
/// fio's struct clat_prio_stat (not packed: padded to 8 bytes).
const CLAT_PRIO_SIZE: usize = PLAT_NR * 8 + 56 + 8;

/// What fio's server sends at the end of a run, in its order
/// (show_run_stats): the global options, then each job's options and
/// statistics, then each group's, then each disk's.
pub enum Message {
    /// FIO_NET_CMD_JOB_OPT: struct cmd_job_option.
    JobOption(Vec<u8>),
    /// FIO_NET_CMD_TS: struct cmd_ts_pdu, and the per-priority
    /// latencies after it.
    JobStats(Vec<u8>),
    /// FIO_NET_CMD_GS: struct group_run_stats.
    GroupStats(Vec<u8>),
    /// FIO_NET_CMD_DU: struct cmd_du_pdu.
    DiskUtil(Vec<u8>),
}

/// A worker's logs as fio's server sends them (fio_send_iolog): per log,
/// a struct cmd_iolog_pdu and then its samples as fio keeps them in
/// memory (a histogram log's each followed by its histogram), or, stored
/// compressed, its zlib streams; the client writes each to `NAME.HOST`.
pub fn io_logs(w: &WorkerLogs) -> std::io::Result<Vec<Vec<u8>>> {
    let mut sink = ToClient(Vec::new());
    crate::logs::each_log(w, &mut sink)?;
    Ok(sink.0)
}

/// fio's cmd_iolog_pdu `compressed`: samples as they are, or the
/// streams of a log stored compressed (which the client writes as sent).
const PLAIN: u32 = 0;
const STORE_COMPRESSED: u32 = 2;
/// fio's IO_LOG_TYPE_HIST.
const LOG_HIST: u32 = 6;

/// Each log a cmd_iolog_pdu with its samples.
struct ToClient(Vec<Vec<u8>>);

impl ToClient {
    /// The pdu before a log's samples.
    fn pdu(path: &str, w: &WorkerLogs, samples: u64, kind: u32, compressed: u32) -> Packed {
        let f = &w.files;
        let mut p = Packed(Vec::with_capacity(IOLOG_PDU_SIZE));
        p.u64(samples);
        p.u32(f.number);
        p.u32(kind);
        p.u32(compressed);
        // With or without offsets and priorities, and the histogram's
        // coarseness.
        p.u32(u32::from(f.offset));
        p.u32(u32::from(f.prio));
        p.u32(f.hist_coarseness);
        p.text(path, 256);
        p
    }
}

impl crate::logs::LogSink for ToClient {
    fn samples(
        &mut self,
        path: &str,
        kind: u32,
        w: &WorkerLogs,
        samples: &mut dyn Iterator<Item = crate::log_lines::Sample>,
    ) -> std::io::Result<()> {
        let f = &w.files;
        let mut packed = Vec::new();
        let mut n = 0u64;
        if let Some(chunk) = f.compressed_chunk {
            // fio sends the chunks it stored, and no sample count.
            let mut streams = crate::log_fz::Streams::new(chunk);
            for s in samples {
                let time = s.time_ms + f.time_offset_ms;
                packed.extend(
                    streams
                        .push(&s, time, f.offset, f.prio)?
                        .unwrap_or_default(),
                );
            }
            packed.extend(streams.finish()?.unwrap_or_default());
        } else {
            for s in samples {
                let time = s.time_ms + f.time_offset_ms;
                crate::log_fz::pack(&mut packed, &s, time, f.offset, f.prio);
                n += 1;
            }
        }
        let compressed = match f.compressed_chunk {
            Some(_) => STORE_COMPRESSED,
            None => PLAIN,
        };
        let mut p = ToClient::pdu(path, w, n, kind, compressed);
        p.0.extend_from_slice(&packed);
        self.0.push(p.0);
        Ok(())
    }

    fn histogram(&mut self, path: &str, w: &WorkerLogs) -> std::io::Result<()> {
        // Each sample, then the histogram of its window as fio's server
        // sends it (struct io_u_plat_entry: a list head the client
        // overwrites, then the bucket counts).
        let f = &w.files;
        let lines = w.hist_lines();
        let mut p = ToClient::pdu(path, w, lines.len() as u64, LOG_HIST, PLAIN);
        for h in lines {
            let s = crate::log_lines::Sample {
                time_ms: h.time_ms,
                dir: h.dir,
                bs: u64::from(h.bs),
                ..crate::log_lines::Sample::default()
            };
            crate::log_fz::pack(&mut p.0, &s, h.time_ms + f.time_offset_ms, f.offset, f.prio);
            p.0.extend_from_slice(&[0; 16]);
            for &count in h.counts.iter() {
                p.u64(count);
            }
        }
        self.0.push(p.0);
        Ok(())
    }
}

/// The end-of-run messages for `result`; `pid` stands for a job whose
/// worker's id is unknown.
pub fn end_of_run(result: &RunResult, pid: u32) -> Vec<Message> {
    let groups = GroupStats::all(result);
    let mut out: Vec<Message> = result
        .global_options
        .iter()
        .map(|(k, v)| Message::JobOption(job_option(None, k, v)))
        .collect();
    for (i, job) in result.jobs.iter().enumerate() {
        let index = i as u32;
        for (k, v) in &job.job_options {
            out.push(Message::JobOption(job_option(Some(index), k, v)));
        }
        let group = &groups[job.header.groupid as usize];
        out.push(Message::JobStats(job_stats(
            job,
            index + 1,
            group,
            result.kb_base,
            pid,
        )));
    }
    for g in &groups {
        out.push(Message::GroupStats(group_stats(g, result.kb_base)));
    }
    for d in &result.disks {
        out.push(Message::DiskUtil(disk_util(d)));
    }
    out
}

/// fio's client's "All clients" summary, when the servers sent more than
/// one report (client.c handle_ts): every job summed (sum_thread_stats,
/// without percentiles), with every job's group figures summed
/// (sum_group_stats, so a group counts once per job in it).
pub(crate) fn all_clients(
    results: &[(&RunResult, (&str, u16))],
) -> Option<(JobResult, GroupStats)> {
    let with_groups: Vec<(&JobResult, GroupStats)> = results
        .iter()
        .flat_map(|(r, _)| {
            let groups = GroupStats::all(r);
            r.jobs
                .iter()
                .map(move |j| (j, groups[j.header.groupid as usize].clone()))
        })
        .collect();
    let ((first, first_group), rest) = with_groups.split_first()?;
    let mut all = (*first).clone();
    for (j, _) in rest {
        all.merge(j);
    }
    let last = with_groups.last()?.0;
    all.header.name = "All clients".into();
    all.header.groupid = last.header.groupid;
    all.header.numjobs = with_groups.len() as u32;
    all.header.description = None;
    all.job_options.clear();
    (
        all.clat_percentiles,
        all.lat_percentiles,
        all.slat_percentiles,
    ) = (false, false, false);
    // Nor the latency target's figures: its line and keys are left out.
    all.header.latency_profile = Some(ioscope_stats::LatencyProfile {
        target_ns: 0,
        window_us: 0,
        percentile: 0.0,
        depth: 0,
    });
    all.header.iodepth = 0;
    let mut sum = first_group.clone();
    for (_, g) in rest {
        for (d, s) in sum.dirs.iter_mut().zip(&g.dirs) {
            d.max_run = d.max_run.max(s.max_run);
            if d.min_run != 0 && d.min_run > s.min_run {
                d.min_run = s.min_run;
            }
            d.max_bw = d.max_bw.max(s.max_bw);
            if d.min_bw != 0 && d.min_bw > s.min_bw {
                d.min_bw = s.min_bw;
            }
            d.io_bytes += s.io_bytes;
            d.agg += s.agg;
        }
    }
    sum.groupid = last.header.groupid;
    Some((all, sum))
}

/// A packed little-endian C struct being written field by field.
struct Packed(Vec<u8>);

impl Packed {
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u64s(&mut self, values: impl IntoIterator<Item = u64>) {
        for v in values {
            self.u64(v);
        }
    }

    fn zeroes(&mut self, n: usize) {
        self.0.resize(self.0.len() + n, 0);
    }

    /// fio_fp64_t: a 16-byte union whose first 8 bytes carry the double
    /// as fio_double_to_uint64 packs it. For a finite nonzero double that
    /// is its IEEE 754 bits (pack754's significand is exact for a double's
    /// 52 bits); zero is 0.
    fn fp64(&mut self, v: f64) {
        self.u64(if v == 0.0 || !v.is_finite() {
            0
        } else {
            v.to_bits()
        });
        self.zeroes(8);
    }

    /// A char array of `size` bytes, as snprintf fills it: cut to leave
    /// room for the NUL, the rest zero.
    fn text(&mut self, s: &str, size: usize) {
        let bytes = &s.as_bytes()[..s.len().min(size - 1)];
        self.0.extend_from_slice(bytes);
        self.zeroes(size - bytes.len());
    }

    /// struct io_stat: max, min, samples, mean and S.
    fn io_stat(&mut self, s: &Summary) {
        self.u64(s.max);
        self.u64(s.min);
        self.u64(s.samples);
        self.fp64(s.mean());
        self.fp64(s.s());
    }

    /// io_u_plat[FIO_IO_U_PLAT_NR]; zeroes where nothing was kept.
    fn plat(&mut self, hist: Option<&LatencyHistogram>) {
        match hist {
            Some(h) => self.u64s((0..PLAT_NR).map(|i| h.bin(i))),
            None => self.zeroes(PLAT_NR * 8),
        }
    }
}

/// struct cmd_job_option: one option as written; `job` is the index of
/// the reported job, None for a global option.
fn job_option(job: Option<u32>, name: &str, value: &str) -> Vec<u8> {
    let mut p = Packed(Vec::with_capacity(200));
    p.u16(u16::from(job.is_none()));
    // fio marks an option cut to fit as truncated.
    p.u16(u16::from(name.len() >= 64 || value.len() >= 128));
    p.u32(job.unwrap_or(0));
    p.text(name, 64);
    p.text(value, 128);
    p.0
}

/// The run's kb_base, fio's 1024 when unset.
fn kb(kb_base: u32) -> u32 {
    if kb_base == 0 {
        1024
    } else {
        kb_base
    }
}

fn rate_unit(job: &JobResult) -> u32 {
    match rate_unit_of(job) {
        Unit::BitPerSec => N2S_BITPERSEC,
        _ => N2S_BYTEPERSEC,
    }
}

/// struct cmd_ts_pdu (thread_stat, then the job's group_run_stats) and,
/// after it, the job's per-priority latencies, each direction's in turn,
/// which thread_stat finds by their offsets from the payload's start.
fn job_stats(job: &JobResult, number: u32, group: &GroupStats, kb_base: u32, pid: u32) -> Vec<u8> {
    let h = &job.header;
    let mut p = Packed(Vec::with_capacity(THREAD_STAT_SIZE + GROUP_STATS_SIZE));
    p.text(&h.name, 128);
    let error = job.reported_error();
    let verror = if error == 0 {
        String::new()
    } else {
        error_text(error)
    };
    p.text(&verror, 128);
    p.u32(error as u32);
    p.u32(number);
    p.u32(h.groupid);
    p.u32(if job.pid > 0 { job.pid as u32 } else { pid });
    p.text(h.description.as_deref().unwrap_or(""), 256);
    p.u32(h.numjobs.max(1));
    p.u32(u32::from(job.unified_rw));
    // disable_prio_stat: the per-priority latencies are kept when chosen.
    p.u32(0);
    // sync_stat is aligned to 8 bytes inside the packed struct.
    p.zeroes(p.0.len().next_multiple_of(8) - p.0.len());
    p.io_stat(&job.sync.lat.summary);
    type Kind = fn(&ioscope_stats::DirResult) -> &LatencyStat;
    let kinds: [Kind; 3] = [|d| &d.clat, |d| &d.slat, |d| &d.lat];
    for kind in kinds {
        for d in &job.dirs {
            p.io_stat(&kind(d).summary);
        }
    }
    for d in &job.dirs {
        p.io_stat(&d.bw);
    }
    for d in &job.dirs {
        p.io_stat(&d.iops);
    }
    // fio's usr_time and sys_time are milliseconds.
    p.u64(job.cpu.user_ns / 1_000_000);
    p.u64(job.cpu.sys_ns / 1_000_000);
    p.u64(job.cpu.ctx);
    p.u64(job.cpu.minf);
    p.u64(job.cpu.majf);
    p.u32(u32::from(job.clat_percentiles));
    p.u32(u32::from(job.lat_percentiles));
    p.u32(u32::from(job.slat_percentiles));
    p.u32(0);
    let list = crate::percentiles::sorted_list(&job.percentile_list);
    p.u64(crate::percentiles::precision(&list) as u64);
    for i in 0..LIST_MAX {
        p.fp64(list.get(i).copied().unwrap_or(0.0));
    }
    p.u64s(job.depth.counts);
    p.u64s(job.submit.counts);
    p.u64s(job.complete.counts);
    let b = &job.lat_buckets;
    p.u64s(b.nsec);
    p.u64s(b.usec);
    p.u64s(b.msec);
    // io_u_plat[FIO_SLAT, FIO_CLAT, FIO_LAT][read, write, trim].
    let kinds: [Kind; 3] = [|d| &d.slat, |d| &d.clat, |d| &d.lat];
    for kind in kinds {
        for d in &job.dirs {
            p.plat(kind(d).histogram.as_ref());
        }
    }
    p.plat(job.sync.lat.histogram.as_ref());
    p.u64s(job.issued);
    p.u64(job.sync.total_ios);
    p.u64s(job.short);
    p.u64s(job.dropped);
    p.u64(job.submit.counts.iter().sum());
    p.u64(job.complete.counts.iter().sum());
    p.u64s(job.dirs.iter().map(|d| d.io_bytes));
    p.u64s(job.dirs.iter().map(|d| d.runtime_ms));
    p.u64(job.runtime_ms);
    // continue_on_error is a u16 in a 4-byte union.
    p.u16(u16::from(job.continue_on_error));
    p.u16(0);
    p.u32(job.first_error as u32);
    p.u64(job.total_err);
    p.u64(job.zone_resets);
    // block_infos (block_error_percentiles' trim states): the blocks'
    // states are ioscope's own record, printed by its own output.
    p.u64(0);
    p.zeroes(BLOCK_INFOS * 4);
    p.u32(kb(kb_base));
    p.u32(rate_unit(job));
    let lp = h.latency_profile;
    p.u32(lp.map_or(h.iodepth, |l| l.depth));
    p.u32(0);
    p.u64(lp.map_or(0, |l| l.target_ns));
    p.fp64(lp.map_or(100.0, |l| l.percentile));
    p.u64(lp.map_or(0, |l| l.window_us));
    p.u32(sig_figs_of(job) as u32);
    // Steady-state detection's record: fio 3.33 judges IOPS or bandwidth
    // only, so a latency criterion (fio 3.42's) is not sent.
    let ss = job.steadystate.as_ref().filter(|ss| ss.metric != "lat");
    let samples = ss.map_or(0, |ss| ss.bw.len());
    p.u64(samples as u64);
    p.u32(ss.map_or(0, steady_state_flags));
    // ss_head: the samples go oldest first.
    p.u32(0);
    p.fp64(ss.map_or(0.0, |ss| ss.limit));
    p.fp64(ss.map_or(0.0, |ss| ss.slope));
    p.fp64(ss.map_or(0.0, |ss| ss.max_deviation));
    p.fp64(ss.map_or(0.0, |ss| ss.criterion));
    p.u32(0);
    // ss_iops_data_offset, ss_bw_data_offset: filled in below.
    let ss_at = p.0.len();
    p.u64(0);
    p.u64(0);
    let prio_at = p.0.len();
    p.zeroes(3 * 8);
    let nr_prio: Vec<u32> = job.dirs.iter().map(|d| d.prios.len() as u32).collect();
    for n in &nr_prio {
        p.u32(*n);
    }
    // cachehit, cachemiss: counted by fio's mmap engines only.
    p.u64(0);
    p.u64(0);
    p.zeroes(THREAD_STAT_SIZE - p.0.len());
    p.0.extend_from_slice(&group_stats(group, kb_base));
    p.zeroes(TS_PDU_SIZE - p.0.len());
    for (i, d) in job.dirs.iter().enumerate() {
        if d.prios.is_empty() {
            continue;
        }
        let offset = p.0.len() as u64;
        p.0[prio_at + i * 8..prio_at + i * 8 + 8].copy_from_slice(&offset.to_le_bytes());
        for prio in &d.prios {
            let start = p.0.len();
            p.plat(prio.lat.histogram.as_ref());
            p.io_stat(&prio.lat.summary);
            p.u32(u32::from(prio.ioprio));
            p.zeroes(start + CLAT_PRIO_SIZE - p.0.len());
        }
    }
    if let Some(ss) = ss.filter(|_| samples > 0) {
        for (at, data) in [(ss_at, &ss.iops_data), (ss_at + 8, &ss.bw)] {
            let offset = p.0.len() as u64;
            p.0[at..at + 8].copy_from_slice(&offset.to_le_bytes());
            p.u64s(
                data.iter()
                    .copied()
                    .chain(std::iter::repeat(0))
                    .take(samples),
            );
        }
    }
    p.0
}

/// fio's ss_state bits (steadystate.h): what is judged and how, whether
/// it was attained, and that the samples follow.
fn steady_state_flags(ss: &ioscope_stats::SteadyStateResult) -> u32 {
    const IOPS: u32 = 1;
    const BW: u32 = 1 << 1;
    const SLOPE: u32 = 1 << 2;
    const ATTAINED: u32 = 1 << 3;
    const DATA: u32 = 1 << 5;
    const PCT: u32 = 1 << 6;
    let mut flags = if ss.metric == "iops" { IOPS } else { BW };
    for (on, bit) in [
        (ss.slope_criterion, SLOPE),
        (ss.attained, ATTAINED),
        (!ss.bw.is_empty(), DATA),
        (ss.percent, PCT),
    ] {
        if on {
            flags |= bit;
        }
    }
    flags
}

/// struct group_run_stats.
fn group_stats(g: &GroupStats, kb_base: u32) -> Vec<u8> {
    let mut p = Packed(Vec::with_capacity(GROUP_STATS_SIZE));
    p.u64s(g.dirs.iter().map(|d| d.max_run));
    p.u64s(g.dirs.iter().map(|d| d.min_run));
    p.u64s(g.dirs.iter().map(|d| d.max_bw));
    p.u64s(g.dirs.iter().map(|d| d.min_bw));
    p.u64s(g.dirs.iter().map(|d| d.io_bytes));
    p.u64s(g.dirs.iter().map(|d| d.agg));
    p.u32(kb(kb_base));
    p.u32(match g.rate_unit {
        Unit::BitPerSec => N2S_BITPERSEC,
        _ => N2S_BYTEPERSEC,
    });
    p.u32(g.sig_figs as u32);
    p.u32(g.groupid);
    p.u32(u32::from(g.unified_rw));
    p.0
}

/// struct cmd_du_pdu: disk_util_stat, then disk_util_agg (for md devices'
/// members, none here).
fn disk_util(d: &ioscope_stats::DiskUtil) -> Vec<u8> {
    let mut p = Packed(Vec::with_capacity(DISK_UTIL_SIZE));
    p.text(&d.name, 64);
    p.u64s([d.read_ios, d.write_ios]);
    p.u64s([d.read_merges, d.write_merges]);
    p.u64s([d.read_sectors, d.write_sectors]);
    p.u64s([d.read_ticks, d.write_ticks]);
    p.u64(d.io_ticks);
    p.u64(d.in_queue);
    // fio's client computes the utilisation as io_ticks over msec, the
    // time the device was watched, which is what util was made of.
    let msec = if d.util > 0.0 && d.util.is_finite() {
        (d.io_ticks as f64 * 100.0 / d.util).round() as u64
    } else {
        1
    };
    p.u64(msec);
    p.zeroes(DISK_UTIL_SIZE - p.0.len());
    p.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_stats::{bucket_index, JobHeader};

    fn job() -> JobResult {
        let mut j = JobResult {
            header: JobHeader {
                name: "one".into(),
                numjobs: 1,
                iodepth: 1,
                ..JobHeader::default()
            },
            runtime_ms: 1000,
            ..JobResult::default()
        };
        let mut hist = LatencyHistogram::new();
        hist.add(5000);
        j.dirs[0].clat.histogram = Some(hist);
        j.dirs[0].clat.summary.add(5000);
        j.dirs[0].total_ios = 1;
        j.dirs[0].io_bytes = 4096;
        j.dirs[0].runtime_ms = 1000;
        j.issued[0] = 1;
        j
    }

    #[test]
    fn thread_stat_has_fios_size_and_fields_where_fio_reads_them() {
        let j = job();
        let g = GroupStats::of(std::slice::from_ref(&j), 0);
        let pdu = job_stats(&j, 1, &g, 1024, 7);
        assert_eq!(pdu.len(), TS_PDU_SIZE);
        // The offsets are offsetof() in fio 3.33's structs, compiled
        // against its headers on x86-64.
        let u64_at = |at: usize| u64::from_le_bytes(pdu[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(pdu[at..at + 4].try_into().unwrap());
        assert_eq!(&pdu[..4], b"one\0");
        assert_eq!(u32_at(268), 7, "pid");
        assert_eq!(u32_at(528), 1, "members");
        let clat_read = 600;
        assert_eq!(u64_at(clat_read + 16), 1, "clat samples");
        assert_eq!(f64::from_bits(u64_at(clat_read + 24)), 5000.0, "clat mean");
        assert_eq!(u64_at(1496), 2, "percentile_precision");
        assert_eq!(f64::from_bits(u64_at(1504)), 1.0, "percentile_list[0]");
        assert_eq!(u64_at(1824), 0, "io_u_map[0]");
        // io_u_plat[FIO_CLAT][read] holds the sample in its bucket.
        let clat_read_plat = 2248 + 3 * PLAT_NR * 8;
        assert_eq!(u64_at(clat_read_plat + bucket_index(5000) * 8), 1);
        assert_eq!(u64_at(150728), 1, "total_io_u[read]");
        assert_eq!(u64_at(150824), 4096, "io_bytes[read]");
        assert_eq!(u64_at(150872), 1000, "total_run_time");
        assert_eq!(u32_at(183680), 1024, "kb_base");
        assert_eq!(u32_at(183688), 1, "latency_depth");
        assert_eq!(f64::from_bits(u64_at(183704)), 100.0, "latency_percentile");
        assert_eq!(u32_at(183728), 4, "sig_figs");
        // The group's stats start at 183888, io_bytes of read 96 bytes in.
        assert_eq!(u64_at(183_888 + 96), 4096);
    }

    #[test]
    fn priorities_follow_the_struct_at_the_offsets_it_gives() {
        let mut j = job();
        j.dirs[0].prios = vec![ioscope_stats::PrioLat::default(); 2];
        let g = GroupStats::of(std::slice::from_ref(&j), 0);
        let pdu = job_stats(&j, 1, &g, 1024, 7);
        // struct clat_prio_stat is 14912 bytes.
        assert_eq!(CLAT_PRIO_SIZE, 14_912);
        assert_eq!(pdu.len(), TS_PDU_SIZE + 2 * CLAT_PRIO_SIZE);
        // clat_prio_offset[] at 183832, nr_clat_prio[] at 183856.
        let first = u64::from_le_bytes(pdu[183_832..183_840].try_into().unwrap());
        assert_eq!(first as usize, TS_PDU_SIZE);
        let nr = u32::from_le_bytes(pdu[183_856..183_860].try_into().unwrap());
        assert_eq!(nr, 2);
    }

    #[test]
    fn job_options_and_disks_have_fios_sizes() {
        assert_eq!(job_option(None, "rw", "read").len(), 200);
        let long = "x".repeat(300);
        let opt = job_option(Some(3), "filename", &long);
        assert_eq!(opt.len(), 200);
        assert_eq!(u16::from_le_bytes([opt[2], opt[3]]), 1, "truncated");
        assert_eq!(
            disk_util(&ioscope_stats::DiskUtil::default()).len(),
            DISK_UTIL_SIZE
        );
    }

    /// What the writer puts in a fio payload, the reader gets back: the
    /// normal and JSON+ outputs of the two are the same.
    #[test]
    fn a_job_read_back_renders_as_the_job_written() {
        let mut j = job();
        j.header.description = Some("described".into());
        j.header.latency_profile = Some(ioscope_stats::LatencyProfile {
            target_ns: 0,
            window_us: 0,
            percentile: 100.0,
            depth: 1,
        });
        j.pid = 4242;
        j.clat_percentiles = true;
        j.percentile_list = vec![50.0, 99.0];
        j.cpu.user_ns = 120_000_000;
        j.cpu.sys_ns = 30_000_000;
        j.cpu.ctx = 17;
        j.depth.counts[0] = 1;
        j.submit.counts[1] = 1;
        j.complete.counts[1] = 1;
        j.lat_buckets.usec[1] = 1;
        j.dirs[0].bw.add(4);
        j.dirs[0].iops.add(1);
        let mut w = LatencyHistogram::new();
        for ns in [900, 1_500, 2_000_000] {
            w.add(ns);
            j.dirs[1].clat.summary.add(ns);
            j.dirs[1].lat.summary.add(ns + 100);
        }
        j.dirs[1].clat.histogram = Some(w);
        j.dirs[1].total_ios = 3;
        j.dirs[1].io_bytes = 3 * 4096;
        j.dirs[1].runtime_ms = 1000;
        j.issued[1] = 3;
        j.dirs[0].prios = vec![
            ioscope_stats::PrioLat {
                ioprio: 1 << 13,
                lat: j.dirs[0].clat.clone(),
            },
            ioscope_stats::PrioLat {
                ioprio: 2 << 13 | 4,
                lat: j.dirs[0].clat.clone(),
            },
        ];
        j.steadystate = Some(ioscope_stats::SteadyStateResult {
            ss: "iops_slope:0.300000%".into(),
            duration: 2,
            attained: true,
            metric: "iops",
            slope_criterion: true,
            percent: true,
            limit: 0.3,
            criterion: 0.01,
            max_deviation: 3.0,
            slope: 1.5,
            bw: vec![4096, 8192],
            iops_data: vec![1, 2],
            lat: Vec::new(),
        });
        let run = |jobs: Vec<JobResult>| RunResult {
            jobs,
            kb_base: 1024,
            time: "then".into(),
            ..RunResult::default()
        };
        let g = GroupStats::of(std::slice::from_ref(&j), 0);
        let (back, kb_base) = read_job_stats(&job_stats(&j, 1, &g, 1024, 7)).unwrap();
        assert_eq!(kb_base, 1024);
        let opts = crate::Options {
            pid: 7,
            version: "v".into(),
        };
        let formats = [crate::Format::Normal, crate::Format::JsonPlus];
        let (a, b) = (run(vec![j]), run(vec![back]));
        let (a, b) = (
            crate::render_with(&a, &formats, &opts),
            crate::render_with(&b, &formats, &opts),
        );
        assert!(a.contains("steadystate") && a.contains("prios"), "{a}");
        assert_eq!(a, b);
    }
}
