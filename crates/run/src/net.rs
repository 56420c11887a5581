//! Jobs of the network engines (`net`, `netsplice`): their target is a
//! connection, not a file. The receiving end's socket is bound before the
//! run (so a sender that starts at once finds it), and the connection is
//! made on the worker's thread once its start delay is over, as fio opens
//! its "file" there.

use std::os::fd::AsRawFd;
use std::path::PathBuf;

use ioscope_engine::{Connection, NetEndpoint, NetOptions, NetProtocol};
use ioscope_job::{JobSpec, SizeSpec};

use crate::error::RunError;
use crate::files::WorkerFile;

/// fio's refusals (engines/net.c `fio_netio_init`) and ioscope's, before
/// any socket is made.
pub(crate) fn check(spec: &JobSpec) -> Result<(), String> {
    let n = &spec.net;
    let p = n.protocol;
    if spec.rw.kind.is_random() {
        return Err("network IO can't be random (use rw=read or rw=write)".into());
    }
    if spec.rw.kind.reads() && spec.rw.kind.writes() {
        // fio takes a mixed TCP job, whose sends and receives then share
        // one stream with nothing to tell them apart.
        return Err(format!(
            "rw={}: a network job either receives (rw=read) or sends (rw=write)",
            spec.rw.kind.name()
        ));
    }
    if p == NetProtocol::Unix && n.port != 0 {
        return Err("port is not valid with protocol=unix (the socket is the filename)".into());
    }
    if p != NetProtocol::Unix && n.port == 0 {
        return Err(format!("protocol={} needs port=", p.name()));
    }
    if !p.is_remote_stream() && n.listen {
        return Err(format!(
            "listen is only valid for TCP and vsock (a {} reader waits for its sender without it)",
            p.name()
        ));
    }
    if p == NetProtocol::Vsock && !n.listen {
        // A number needs no socket to check, so --parse-only refuses a
        // hostname that is not a CID (fio would take it as CID 0).
        if let Some(host) = spec.filenames.first() {
            ioscope_engine::vsock_cid(host).map_err(|e| e.to_string())?;
        }
    }
    if spec.verify.method != ioscope_job::VerifyMethod::None {
        // fio's net engine is FIO_UNIDIR: there is no verify phase.
        return Err("verify: a network job has no verify phase (fio's net engine neither)".into());
    }
    if !matches!(spec.size, Some(SizeSpec::Bytes(_))) {
        return Err("a network job needs size= (how many bytes to move)".into());
    }
    if spec.filenames.len() > 1 || spec.nrfiles > 1 {
        return Err(
            "a network job has one connection: give one host (hostname= or filename=)".into(),
        );
    }
    Ok(())
}

/// The endpoint of clone `clone` of `spec`: fio adds the clone's number to
/// the port.
fn endpoint(spec: &JobSpec, clone: u32) -> NetEndpoint {
    let n = &spec.net;
    let listens = if n.protocol.is_remote_stream() {
        n.listen
    } else {
        spec.rw.kind.reads()
    };
    NetEndpoint {
        protocol: n.protocol,
        host: spec.filenames.first().cloned(),
        port: (n.port + clone) as u16,
        listens,
        pingpong: n.pingpong,
        nodelay: n.nodelay,
        window_size: n.window_size,
        mss: n.mss,
        interface: n.interface.clone(),
        ttl: n.ttl,
    }
}

/// The queue's options; the UDP peer is filled in once connected.
pub(crate) fn queue_options(spec: &JobSpec) -> NetOptions {
    NetOptions {
        protocol: spec.net.protocol,
        pingpong: spec.net.pingpong,
        total_bytes: match spec.size {
            Some(SizeSpec::Bytes(b)) => b,
            _ => 0,
        },
        peer: None,
    }
}

/// The one "file" of a network job: named after its host (fio's "net"
/// without one), sized by the job's `size`, with its socket bound or its
/// peer resolved.
pub(crate) fn prepare(spec: &JobSpec, clone: u32) -> Result<Vec<WorkerFile>, RunError> {
    let plans = ioscope_workload::plan_files(spec, &[None], &[], clone)
        .map_err(|m| RunError::job(&spec.name, m))?;
    let link = endpoint(spec, clone)
        .prepare()
        .map_err(|e| RunError::job(&spec.name, e.to_string()))?;
    let name = spec.filenames.first().map_or("net", String::as_str);
    let mut link = Some(link);
    Ok(plans
        .into_iter()
        .map(|p| WorkerFile {
            path: PathBuf::from(name),
            _closing: None,
            target: None,
            net: link.take(),
            extent: p.extent,
            file_size: p.file_size,
        })
        .collect())
}

/// Makes the connection of a network job's file (accepting or connecting,
/// as the job's end is), looking at `stop` while it waits. None for a job
/// of another engine.
pub(crate) fn connect(
    files: &[WorkerFile],
    stop: &dyn Fn() -> bool,
) -> Result<Option<Connection>, String> {
    let Some(link) = files.iter().find_map(|f| f.net.as_ref()) else {
        return Ok(None);
    };
    link.connect(stop).map(Some).map_err(|e| e.to_string())
}

/// The descriptor the queue is built over.
pub(crate) fn fd(c: &Connection) -> std::os::fd::RawFd {
    c.fd.as_raw_fd()
}
