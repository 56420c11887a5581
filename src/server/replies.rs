//! The payloads the server makes itself (fio 3.33's server.h structs,
//! little-endian): the probe reply, the start and stop notes, text lines
//! and the status (ETA) reply. The run's statistics are the report
//! crate's (ioscope_report::fio_net).

/// fio's FIO_PROBE_FLAG_ZLIB: the client can take compressed logs. This
/// server sends none, and says so.
const NO_ZLIB: u64 = 0;

/// fio's log levels (log.h): FIO_LOG_INFO, FIO_LOG_ERR.
pub const LOG_INFO: u32 = 2;
pub const LOG_ERR: u32 = 3;

/// struct cmd_probe_reply_pdu: who answers, for the client's
/// `hostname=..., be=0, 64-bit, os=Linux, arch=x86-64, fio=..., flags=0`
/// line.
pub fn probe(hostname: &str, version: &str, cpus: u32) -> Vec<u8> {
    let mut p = Vec::with_capacity(112);
    put_text(&mut p, hostname, 64);
    p.push(u8::from(cfg!(target_endian = "big")));
    put_text(&mut p, version, 32);
    p.push(1); // os_linux in fio's os/os.h
    p.push(fio_arch());
    p.push(std::mem::size_of::<usize>() as u8);
    p.extend_from_slice(&cpus.to_le_bytes());
    p.extend_from_slice(&NO_ZLIB.to_le_bytes());
    p
}

/// fio's enum of architectures (arch/arch.h), for the probe reply.
fn fio_arch() -> u8 {
    match std::env::consts::ARCH {
        "x86_64" => 1,
        "x86" => 2,
        "powerpc" | "powerpc64" => 3,
        "s390x" => 5,
        "sparc64" => 8,
        "arm" => 9,
        "mips" | "mips64" => 12,
        "aarch64" => 13,
        // arch_generic.
        _ => 14,
    }
}

/// struct cmd_start_pdu: the workers the jobs make, and the reports
/// (thread_stat payloads) the client is to expect.
pub fn start(jobs: u32, reports: u32) -> Vec<u8> {
    let mut p = jobs.to_le_bytes().to_vec();
    p.extend_from_slice(&reports.to_le_bytes());
    p
}

/// struct cmd_end_pdu: the run's error and the signal that ended it.
pub fn stop(error: u32, signal: u32) -> Vec<u8> {
    start(error, signal)
}

/// struct cmd_text_pdu: a line of output, stamped with the time.
pub fn text(level: u32, line: &str) -> Vec<u8> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut p = Vec::with_capacity(24 + line.len());
    p.extend_from_slice(&level.to_le_bytes());
    p.extend_from_slice(&(line.len() as u32).to_le_bytes());
    p.extend_from_slice(&now.as_secs().to_le_bytes());
    p.extend_from_slice(&u64::from(now.subsec_micros()).to_le_bytes());
    p.extend_from_slice(line.as_bytes());
    p
}

/// struct jobs_eta with nothing running: the reply fio's server sends
/// when it has no status to give, which keeps the client from timing the
/// server out.
pub fn eta() -> Vec<u8> {
    vec![0; ioscope_report::fio_net::eta::SIZE]
}

fn put_text(p: &mut Vec<u8>, s: &str, size: usize) {
    let bytes = &s.as_bytes()[..s.len().min(size - 1)];
    p.extend_from_slice(bytes);
    p.resize(p.len() + size - bytes.len(), 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_have_fios_sizes_and_offsets() {
        // sizeof() and offsetof() in fio 3.33's server.h on x86-64.
        let p = probe("host", "ioscope-1", 2);
        assert_eq!(p.len(), 112);
        assert_eq!(&p[..5], b"host\0");
        assert_eq!(&p[65..74], b"ioscope-1");
        assert_eq!(u32::from_le_bytes(p[100..104].try_into().unwrap()), 2);
        assert_eq!(start(1, 1).len(), 8);
        let t = text(LOG_INFO, "abc\n");
        assert_eq!(t.len(), 24 + 4);
        assert_eq!(u32::from_le_bytes(t[4..8].try_into().unwrap()), 4);
        assert_eq!(eta().len(), 168);
    }
}
