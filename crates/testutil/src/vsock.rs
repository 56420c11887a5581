//! The probes for AF_VSOCK sockets (`protocol=vsock`): whether the kernel
//! has them, and whether one can connect to this machine itself. A guest
//! has vsock sockets through its virtio transport, but a connection to
//! CID 1 (VMADDR_CID_LOCAL) needs the vsock_loopback transport as well;
//! without it the connect times out or fails with ENODEV.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::skip::Missing;

/// How long the loopback probe waits for its connection. A loopback
/// connection is made at once; without the transport the kernel would
/// wait out its own connect timeout (2 s) first.
const CONNECT_WAIT_MS: i32 = 1000;

/// AF_VSOCK stream sockets can be made (the vsock module is loaded). Soft:
/// a machine without virtual machine sockets is not broken.
pub fn vsock() -> Result<(), Missing> {
    stream_socket(0)
        .map(drop)
        .map_err(|e| Missing::soft(format!("no AF_VSOCK sockets (vsock module): {e}")))
}

/// A vsock connection from this machine to itself (CID 1) is made: a
/// listener bound to a port the kernel picks, and a connect to it. Soft:
/// the vsock_loopback transport is a module of its own, which machines
/// with vsock (a guest's virtio transport) often lack.
pub fn vsock_loopback() -> Result<(), Missing> {
    vsock()?;
    loopback_connect().map_err(|e| {
        Missing::soft(format!(
            "no vsock loopback transport (vsock_loopback module) on this machine: a connect to \
             CID 1 failed: {e}"
        ))
    })
}

fn stream_socket(flags: i32) -> io::Result<OwnedFd> {
    // SAFETY: plain system call.
    let fd = unsafe { libc::socket(libc::AF_VSOCK, libc::SOCK_STREAM | flags, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just made and owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn address(cid: u32, port: u32) -> libc::sockaddr_vm {
    // SAFETY: sockaddr_vm is plain data; all zeroes is valid.
    let mut a: libc::sockaddr_vm = unsafe { std::mem::zeroed() };
    a.svm_family = libc::AF_VSOCK as libc::sa_family_t;
    a.svm_cid = cid;
    a.svm_port = port;
    a
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn loopback_connect() -> io::Result<()> {
    let listener = stream_socket(0)?;
    let any = address(libc::VMADDR_CID_ANY, libc::VMADDR_PORT_ANY);
    let len = std::mem::size_of::<libc::sockaddr_vm>() as libc::socklen_t;
    // SAFETY: the address is live and `len` long.
    check(unsafe { libc::bind(listener.as_raw_fd(), (&raw const any).cast(), len) })?;
    // SAFETY: plain system call.
    check(unsafe { libc::listen(listener.as_raw_fd(), 1) })?;
    let mut bound = address(0, 0);
    let mut bound_len = len;
    // SAFETY: `bound` has room for `bound_len` bytes.
    check(unsafe {
        libc::getsockname(
            listener.as_raw_fd(),
            (&raw mut bound).cast(),
            &mut bound_len,
        )
    })?;
    // Non-blocking, so that the probe waits its own time, not the kernel's.
    let client = stream_socket(libc::SOCK_NONBLOCK)?;
    let to = address(libc::VMADDR_CID_LOCAL, bound.svm_port);
    // SAFETY: the address is live and `len` long.
    let r = unsafe { libc::connect(client.as_raw_fd(), (&raw const to).cast(), len) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(e);
        }
        wait_connected(client.as_raw_fd())?;
    }
    Ok(())
}

/// Waits for a non-blocking connect on `fd` to finish, and gives its
/// result.
fn wait_connected(fd: RawFd) -> io::Result<()> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one pollfd, live for the call.
    let n = unsafe { libc::poll(&mut pfd, 1, CONNECT_WAIT_MS) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no answer in {CONNECT_WAIT_MS} ms"),
        ));
    }
    let mut err: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `err` has room for `len` bytes.
    check(unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            (&raw mut err).cast(),
            &mut len,
        )
    })?;
    match err {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skip::Kind;

    #[test]
    fn a_missing_loopback_is_soft_and_names_the_module() {
        if let Err(m) = vsock_loopback() {
            assert_eq!(m.kind, Kind::Soft);
            assert!(
                m.reason.contains("vsock_loopback module") || m.reason.contains("vsock module"),
                "{}",
                m.reason
            );
        }
    }
}
