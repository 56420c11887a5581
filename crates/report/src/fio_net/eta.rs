//! fio 3.33's `struct jobs_eta` on the wire (server.c
//! handle_send_eta_cmd, client.c convert_jobs_eta): little-endian, the
//! condensed state string after the struct, ended by a NUL.

use ioscope_stats::JobsEta;

/// sizeof(struct jobs_eta) without its state string (x86-64).
pub const SIZE: usize = 168;

// offsetof() of each field in fio 3.33's stat.h.
const M_RATE: usize = 16;
const T_RATE: usize = 40;
const RATE: usize = 64;
const M_IOPS: usize = 88;
const T_IOPS: usize = 100;
const IOPS: usize = 112;
const ELAPSED: usize = 128;
const ETA: usize = 136;
const IS_POW2: usize = 144;
const UNIT_BASE: usize = 148;
const SIG_FIGS: usize = 152;
const FILES_OPEN: usize = 156;
const NR_THREADS: usize = 160;

/// The ETA reply's payload.
pub fn write(je: &JobsEta) -> Vec<u8> {
    let mut p = vec![0u8; SIZE];
    let put32 = |p: &mut Vec<u8>, at: usize, v: u32| {
        p[at..at + 4].copy_from_slice(&v.to_le_bytes());
    };
    let put64 = |p: &mut Vec<u8>, at: usize, v: u64| {
        p[at..at + 8].copy_from_slice(&v.to_le_bytes());
    };
    put32(&mut p, 0, je.nr_running);
    put32(&mut p, 4, je.nr_ramp);
    put32(&mut p, 8, je.nr_pending);
    put32(&mut p, 12, je.nr_setting_up);
    for d in 0..3 {
        put64(&mut p, M_RATE + 8 * d, je.m_rate[d]);
        put64(&mut p, T_RATE + 8 * d, je.t_rate[d]);
        put64(&mut p, RATE + 8 * d, je.rate[d]);
        put32(&mut p, M_IOPS + 4 * d, je.m_iops[d]);
        put32(&mut p, T_IOPS + 4 * d, je.t_iops[d]);
        put32(&mut p, IOPS + 4 * d, je.iops[d]);
    }
    put64(&mut p, ELAPSED, je.elapsed_sec);
    put64(&mut p, ETA, je.eta_sec);
    put32(&mut p, IS_POW2, u32::from(je.is_pow2));
    put32(&mut p, UNIT_BASE, je.unit_base);
    put32(&mut p, SIG_FIGS, je.sig_figs);
    put32(&mut p, FILES_OPEN, je.files_open);
    put32(&mut p, NR_THREADS, je.nr_threads);
    p.extend_from_slice(je.run_str.as_bytes());
    p.push(0);
    p
}

/// A server's ETA reply; None when it is shorter than the struct.
pub fn read(p: &[u8]) -> Option<JobsEta> {
    if p.len() < SIZE {
        return None;
    }
    let u32_at = |at: usize| u32::from_le_bytes(p[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(p[at..at + 8].try_into().unwrap());
    let per_dir64 = |at: usize| [u64_at(at), u64_at(at + 8), u64_at(at + 16)];
    let per_dir32 = |at: usize| [u32_at(at), u32_at(at + 4), u32_at(at + 8)];
    let tail = &p[SIZE..];
    let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
    Some(JobsEta {
        nr_running: u32_at(0),
        nr_ramp: u32_at(4),
        nr_pending: u32_at(8),
        nr_setting_up: u32_at(12),
        m_rate: per_dir64(M_RATE),
        t_rate: per_dir64(T_RATE),
        rate: per_dir64(RATE),
        m_iops: per_dir32(M_IOPS),
        t_iops: per_dir32(T_IOPS),
        iops: per_dir32(IOPS),
        elapsed_sec: u64_at(ELAPSED),
        eta_sec: u64_at(ETA),
        is_pow2: u32_at(IS_POW2) != 0,
        unit_base: u32_at(UNIT_BASE),
        sig_figs: u32_at(SIG_FIGS),
        files_open: u32_at(FILES_OPEN),
        nr_threads: u32_at(NR_THREADS),
        run_str: String::from_utf8_lossy(&tail[..end]).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_reads_back_as_written() {
        let je = JobsEta {
            nr_running: 2,
            nr_ramp: 1,
            nr_pending: 3,
            nr_setting_up: 4,
            m_rate: [1, 2, 3],
            t_rate: [4, 5, 6],
            m_iops: [7, 8, 9],
            t_iops: [10, 11, 12],
            rate: [13, 14, 15],
            iops: [16, 17, 18],
            elapsed_sec: 19,
            eta_sec: 20,
            is_pow2: true,
            unit_base: 4,
            sig_figs: 4,
            files_open: 21,
            nr_threads: 22,
            run_str: "r(1),_(1)".into(),
        };
        let p = write(&je);
        assert_eq!(p.len(), SIZE + "r(1),_(1)".len() + 1);
        // A few fields where fio's struct has them.
        assert_eq!(u64::from_le_bytes(p[64..72].try_into().unwrap()), 13);
        assert_eq!(u32::from_le_bytes(p[112..116].try_into().unwrap()), 16);
        assert_eq!(u64::from_le_bytes(p[136..144].try_into().unwrap()), 20);
        assert_eq!(u32::from_le_bytes(p[160..164].try_into().unwrap()), 22);
        assert_eq!(read(&p), Some(je));
        assert_eq!(read(&p[..SIZE - 1]), None);
    }
}
