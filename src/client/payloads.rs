//! The client's side of fio's payloads (server.h structs): what it sends
//! (the probe, the command line, job files) and what it makes of the
//! server's probe reply and logs.

/// What fio's client says it is in its probe: FIO_PROBE_FLAG_ZLIB, it
/// takes logs compressed for sending (a fio server sends a histogram log
/// whole only so).
const PROBE_FLAGS: u64 = 1;

/// struct cmd_client_probe_pdu: its flags, and the server as named.
pub fn probe(server: &str) -> Vec<u8> {
    let mut p = PROBE_FLAGS.to_le_bytes().to_vec();
    let name = &server.as_bytes()[..server.len().min(127)];
    p.extend_from_slice(name);
    p.resize(8 + 128, 0);
    p
}

/// fio's line for a server's probe reply (struct cmd_probe_reply_pdu).
pub fn probe_line(p: &[u8]) -> String {
    let os = match p.get(97) {
        Some(1) => "Linux",
        _ => "unknown",
    };
    const ARCHES: [&str; 14] = [
        "", "x86-64", "x86", "ppc", "ia64", "s390", "alpha", "sparc", "sparc64", "arm", "sh",
        "hppa", "mips", "aarch64",
    ];
    let arch = p
        .get(98)
        .and_then(|&a| ARCHES.get(usize::from(a)))
        .filter(|a| !a.is_empty())
        .unwrap_or(&"generic");
    format!(
        "hostname={}, be={}, {}-bit, os={os}, arch={arch}, fio={}, flags={:x}",
        c_text(p.get(..64).unwrap_or(&[])),
        p.get(64).copied().unwrap_or(0),
        u32::from(p.get(99).copied().unwrap_or(8)) * 8,
        c_text(p.get(65..97).unwrap_or(&[])),
        p.get(104..112)
            .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap())),
    )
}

/// struct cmd_line_pdu: the options as the server's command line, after
/// the program's name as fio's client puts it first.
pub fn job_line(options: &[String]) -> Vec<u8> {
    let argv: Vec<&str> = std::iter::once("fio")
        .chain(options.iter().map(String::as_str))
        .collect();
    let mut p = (argv.len() as u16).to_le_bytes().to_vec();
    p.extend_from_slice(&0u16.to_le_bytes());
    for arg in argv {
        p.extend_from_slice(&(arg.len() as u16 + 1).to_le_bytes());
        p.extend_from_slice(arg.as_bytes());
        p.push(0);
    }
    p
}

/// struct cmd_job_pdu: a job file's text, ended with a NUL.
pub fn job_file(text: &[u8]) -> Vec<u8> {
    let mut p = (text.len() as u32 + 1).to_le_bytes().to_vec();
    p.extend_from_slice(&0u32.to_le_bytes());
    p.extend_from_slice(text);
    p.push(0);
    p
}

/// struct cmd_load_file_pdu: the name of a job file on the server
/// (`--remote-config`), from a command-line client (fio's
/// FIO_CLIENT_TYPE_CLI), ended with a NUL.
pub fn load_file(name: &str) -> Vec<u8> {
    let mut p = (name.len() as u16).to_le_bytes().to_vec();
    p.extend_from_slice(&1u16.to_le_bytes());
    p.extend_from_slice(name.as_bytes());
    p.push(0);
    p
}

/// struct cmd_sendfile_reply: a file the server asked for, its size and
/// bytes, or the errno of why it could not be read.
pub fn file_reply(read: std::io::Result<Vec<u8>>) -> Vec<u8> {
    let (data, error) = match read {
        Ok(data) => (data, 0),
        Err(e) => (Vec::new(), e.raw_os_error().unwrap_or(libc::EIO)),
    };
    let mut p = (data.len() as u32).to_le_bytes().to_vec();
    p.extend_from_slice(&(error as u32).to_le_bytes());
    p.extend_from_slice(&data);
    p
}

/// The server as given, without its kind and port: what fio's client
/// calls it by (its JSON's hostname, its logs' names).
pub fn host_of(at: &str) -> String {
    if let Some(path) = at.strip_prefix("sock:") {
        return path.to_string();
    }
    let host = at.rsplit_once(',').map_or(at, |(h, _)| h);
    host.trim_start_matches("ip6:")
        .trim_start_matches("ip4:")
        .trim_start_matches("ip:")
        .to_string()
}

/// Writes a log a server sent (struct cmd_iolog_pdu, then its samples)
/// to `NAME.HOST`, as fio's client does.
pub fn write_log(p: &[u8], host: &str) -> anyhow::Result<()> {
    let name = c_text(p.get(32..288).unwrap_or(&[]));
    let path = format!("{name}.{host}");
    let bytes = ioscope_report::fio_net::log_file(p)
        .map_err(|e| anyhow::anyhow!("--client: the log {name}: {e}"))?;
    std::fs::write(&path, bytes).map_err(|e| anyhow::anyhow!("--client: cannot write {path}: {e}"))
}

pub fn c_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

pub fn le_u16(p: &[u8], at: usize) -> u16 {
    p.get(at..at + 2)
        .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
}

pub fn le_u32(p: &[u8], at: usize) -> u32 {
    p.get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap()))
}
