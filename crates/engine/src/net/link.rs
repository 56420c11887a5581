//! Setting a connection up the way fio's net engine does: a listening (or,
//! for UDP, bound) socket made before the run, then accept or connect once
//! the job starts, with fio's socket options.

use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::vsock::vsock_cid;
use super::wire::{self, RawAddr};
use crate::engine_options::NetProtocol;
use crate::error::EngineError;

/// One end of a job's connection, as its options describe it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetEndpoint {
    pub protocol: NetProtocol,
    /// The host to connect to (an address or a name, or a vsock CID), the
    /// multicast group of a UDP receiver, or the path of a Unix socket.
    pub host: Option<String>,
    /// The port, already moved on by the clone's number as fio does.
    pub port: u16,
    /// This end waits for the other: fio's `listen` for TCP and vsock; a
    /// UDP or Unix reader always does, as in fio.
    pub listens: bool,
    /// fio `pingpong`: both ends also send the other way.
    pub pingpong: bool,
    /// fio `nodelay`: TCP_NODELAY.
    pub nodelay: bool,
    /// fio `window_size`: SO_RCVBUF on the receiving side, SO_SNDBUF on the
    /// sending side (both with pingpong); 0 leaves the kernel's.
    pub window_size: u32,
    /// fio `mss`: TCP_MAXSEG on TCP sockets; 0 leaves the kernel's.
    pub mss: u32,
    /// fio `interface`: the address of the interface UDP multicast goes
    /// through.
    pub interface: Option<String>,
    /// fio `ttl`: the TTL of outgoing UDP multicast.
    pub ttl: u32,
}

/// An endpoint made ready before the run: a receiver's socket is bound
/// (and listening, for a stream), a sender's peer address resolved.
#[derive(Debug)]
pub struct NetLink {
    endpoint: NetEndpoint,
    end: End,
}

/// What a prepared endpoint holds until its job starts.
#[derive(Debug)]
enum End {
    /// The waiting end's bound socket (listening, for a stream).
    Listening(OwnedFd),
    /// Whom this end connects to (a sender, or a TCP or vsock reader
    /// without `listen`).
    Connecting(Peer),
}

/// The other end, as a connecting end names it.
#[derive(Debug)]
enum Peer {
    Inet(SocketAddr),
    Vsock { cid: u32 },
    Unix { path: String },
}

/// A connection, ready for the engine's queue.
#[derive(Debug)]
pub struct Connection {
    pub fd: OwnedFd,
    /// Where UDP datagrams go: the receiver's address for a sender, the
    /// sender's (from its open message) for a receiver. None for streams.
    pub peer: Option<SocketAddr>,
}

fn failed(what: &str, e: std::io::Error) -> EngineError {
    EngineError::Setup(format!("net: {what}: {e}"))
}

fn last(what: &str) -> EngineError {
    failed(what, std::io::Error::last_os_error())
}

/// Whether a vsock connect failed because no transport of this machine
/// reaches the CID (no such guest or host, or no loopback transport), as
/// opposed to a peer that refused it.
fn vsock_unreachable(err: &std::io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::ENODEV | libc::ETIMEDOUT | libc::EHOSTUNREACH | libc::ENETUNREACH)
    )
}

/// What a vsock peer that cannot be reached needs: the machine, not the
/// job, lacks it.
fn vsock_reach(cid: u32) -> String {
    let needs = match cid {
        libc::VMADDR_CID_LOCAL => "the vsock_loopback module",
        libc::VMADDR_CID_HOST => "this machine to be a virtual machine whose host listens",
        _ => "a virtual machine of that CID run by this machine",
    };
    format!("; no vsock transport reaches CID {cid} from this machine: it needs {needs}")
}

/// fio's multicast test: an IPv4 address from 224.0.0.0 to 239.255.255.255.
fn multicast(host: Option<&str>) -> Option<Ipv4Addr> {
    host.and_then(|h| h.parse::<Ipv4Addr>().ok())
        .filter(Ipv4Addr::is_multicast)
}

pub(super) fn setopt<T>(
    fd: RawFd,
    level: i32,
    name: i32,
    value: &T,
    what: &str,
) -> Result<(), EngineError> {
    // SAFETY: `value` is a live T and the length says so.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            std::ptr::from_ref(value).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(last(what));
    }
    Ok(())
}

fn interface_addr(e: &NetEndpoint) -> Result<Option<libc::in_addr>, EngineError> {
    let Some(intf) = &e.interface else {
        return Ok(None);
    };
    let ip: Ipv4Addr = intf.parse().map_err(|_| {
        EngineError::Setup(format!(
            "interface={intf}: not an IPv4 address (give the interface's own address)"
        ))
    })?;
    Ok(Some(libc::in_addr {
        s_addr: u32::from_ne_bytes(ip.octets()),
    }))
}

impl NetEndpoint {
    fn domain_and_type(&self) -> (i32, i32) {
        match self.protocol {
            NetProtocol::Tcp => (libc::AF_INET, libc::SOCK_STREAM),
            NetProtocol::TcpV6 => (libc::AF_INET6, libc::SOCK_STREAM),
            NetProtocol::Udp => (libc::AF_INET, libc::SOCK_DGRAM),
            NetProtocol::UdpV6 => (libc::AF_INET6, libc::SOCK_DGRAM),
            NetProtocol::Unix => (libc::AF_UNIX, libc::SOCK_STREAM),
            NetProtocol::Vsock => (libc::AF_VSOCK, libc::SOCK_STREAM),
        }
    }

    fn socket(&self) -> Result<OwnedFd, EngineError> {
        let (domain, ty) = self.domain_and_type();
        // SAFETY: plain system call.
        let fd = unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            // The protocol named: a kernel without vsock (or IPv6) refuses
            // the family here (EAFNOSUPPORT).
            return Err(last(&format!("{} socket", self.protocol.name())));
        }
        // SAFETY: a descriptor just made and owned by no one else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// fio's set_window_size and set_mss.
    fn buffers_and_mss(&self, fd: RawFd) -> Result<(), EngineError> {
        if self.window_size > 0 {
            let w = self.window_size as libc::c_int;
            if self.listens || self.pingpong {
                setopt(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_RCVBUF,
                    &w,
                    "rcvbuf window size",
                )?;
            }
            if !self.listens || self.pingpong {
                setopt(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_SNDBUF,
                    &w,
                    "sndbuf window size",
                )?;
            }
        }
        if self.mss > 0 && self.protocol.is_tcp() {
            let m = self.mss as libc::c_int;
            setopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_MAXSEG,
                &m,
                "setsockopt TCP_MAXSEG",
            )?;
        }
        Ok(())
    }

    fn nodelay(&self, fd: RawFd) -> Result<(), EngineError> {
        if self.nodelay && self.protocol.is_tcp() {
            setopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                &1 as &libc::c_int,
                "TCP_NODELAY",
            )?;
        }
        Ok(())
    }

    /// Checks the endpoint as fio's init does, binds a receiver's socket
    /// and resolves a sender's peer. Call before the run: a receiver bound
    /// now is there for a sender that starts at once.
    pub fn prepare(self) -> Result<NetLink, EngineError> {
        let p = self.protocol;
        let host = self.host.as_deref();
        if p == NetProtocol::Unix && host.is_none() {
            return Err(EngineError::Setup(
                "protocol=unix needs the socket's path as filename (or hostname)".into(),
            ));
        }
        if self.listens {
            // fio's vsock receiver binds any CID of its own and never looks
            // at the hostname, so it is not refused there.
            if host.is_some()
                && !matches!(p, NetProtocol::Unix | NetProtocol::Vsock)
                && (!p.is_udp() || multicast(host).is_none())
            {
                return Err(EngineError::Setup(format!(
                    "hostname={}: not valid for a receiving job unless it is a UDP multicast \
                     group (fio: \"hostname not valid for non-multicast inbound network IO\"); \
                     leave hostname and filename out",
                    host.unwrap_or_default()
                )));
            }
            let listener = self.bind()?;
            return Ok(NetLink {
                endpoint: self,
                end: End::Listening(listener),
            });
        }
        let peer = match (p, host) {
            (NetProtocol::Unix, Some(path)) => Peer::Unix {
                path: path.to_string(),
            },
            (NetProtocol::Vsock, Some(cid)) => Peer::Vsock {
                cid: vsock_cid(cid)?,
            },
            (_, Some(host)) => Peer::Inet(self.resolve(host)?),
            (_, None) => {
                return Err(EngineError::Setup(
                    "a sending job needs hostname= (or filename=) to connect to; a receiving \
                     job needs rw=read (and listen for TCP or vsock)"
                        .into(),
                ))
            }
        };
        Ok(NetLink {
            endpoint: self,
            end: End::Connecting(peer),
        })
    }

    fn resolve(&self, host: &str) -> Result<SocketAddr, EngineError> {
        let v6 = self.protocol.is_ipv6();
        let found = (host, self.port)
            .to_socket_addrs()
            .map_err(|e| failed(&format!("getaddrinfo {host}"), e))?
            .find(|a| a.is_ipv6() == v6);
        found.ok_or_else(|| {
            EngineError::Setup(format!(
                "net: {host} has no {} address",
                if v6 { "IPv6" } else { "IPv4" }
            ))
        })
    }

    /// fio's fio_netio_setup_listen: the receiver's socket, bound (and
    /// listening for a stream).
    fn bind(&self) -> Result<OwnedFd, EngineError> {
        let fd = self.socket()?;
        let raw = fd.as_raw_fd();
        let one: libc::c_int = 1;
        if self.protocol != NetProtocol::Unix {
            setopt(
                raw,
                libc::SOL_SOCKET,
                libc::SO_REUSEADDR,
                &one,
                "setsockopt",
            )?;
        }
        let addr = match self.protocol {
            NetProtocol::Unix => {
                let path = self.host.as_deref().unwrap_or_default();
                // A socket file left by an earlier run would make bind fail.
                let _ = std::fs::remove_file(path);
                RawAddr::unix(path).ok_or_else(|| {
                    EngineError::Setup(format!(
                        "{path}: not a usable Unix socket path (at most 107 bytes)"
                    ))
                })?
            }
            // fio's fio_netio_setup_listen_vsock sets SO_REUSEADDR only: no
            // SO_REUSEPORT, and no window_size or mss.
            NetProtocol::Vsock => RawAddr::vsock(libc::VMADDR_CID_ANY, self.port.into()),
            _ => {
                setopt(
                    raw,
                    libc::SOL_SOCKET,
                    libc::SO_REUSEPORT,
                    &one,
                    "setsockopt",
                )?;
                self.buffers_and_mss(raw)?;
                RawAddr::inet(self.inet_listen_addr(raw)?)
            }
        };
        // SAFETY: the address is valid for its length.
        if unsafe { libc::bind(raw, addr.as_ptr(), addr.len()) } < 0 {
            let what = match (&self.host, self.protocol) {
                (Some(path), NetProtocol::Unix) => format!("bind {path}"),
                (_, NetProtocol::Vsock) => format!("bind vsock port {}", self.port),
                _ => format!("bind port {}", self.port),
            };
            return Err(last(&what));
        }
        // SAFETY: plain system call.
        if !self.protocol.is_udp() && unsafe { libc::listen(raw, 10) } < 0 {
            return Err(last("listen"));
        }
        Ok(fd)
    }

    /// The address an inet receiver binds: any, or the UDP multicast group
    /// it joins on `fd`.
    fn inet_listen_addr(&self, fd: RawFd) -> Result<SocketAddr, EngineError> {
        let group = multicast(self.host.as_deref());
        if let Some(group) = group {
            if self.protocol.is_ipv6() {
                return Err(EngineError::Setup(
                    "IPv6 is not supported for multicast network IO (as in fio)".into(),
                ));
            }
            let mr = libc::ip_mreq {
                imr_multiaddr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(group.octets()),
                },
                imr_interface: interface_addr(self)?.unwrap_or(libc::in_addr {
                    s_addr: libc::INADDR_ANY.to_be(),
                }),
            };
            setopt(
                fd,
                libc::IPPROTO_IP,
                libc::IP_ADD_MEMBERSHIP,
                &mr,
                "setsockopt IP_ADD_MEMBERSHIP",
            )?;
        }
        Ok(if self.protocol.is_ipv6() {
            SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, self.port))
        } else {
            SocketAddr::from((group.unwrap_or(Ipv4Addr::UNSPECIFIED), self.port))
        })
    }
}

#[cfg(test)]
impl NetLink {
    /// The receiver's bound socket, for the tests to look at.
    pub(super) fn listener(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        match &self.end {
            End::Listening(l) => Some(std::os::fd::AsFd::as_fd(l)),
            End::Connecting(_) => None,
        }
    }
}

/// Waits until `fd` has `events`, looking at `stop` every 100 ms. Returns
/// false when stopped.
fn wait_for(
    fd: RawFd,
    events: libc::c_short,
    stop: &dyn Fn() -> bool,
) -> Result<bool, EngineError> {
    loop {
        if stop() {
            return Ok(false);
        }
        let mut pfd = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: one pollfd, live for the call.
        let r = unsafe { libc::poll(&mut pfd, 1, 100) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Err(failed("poll", e));
        }
        if r > 0 {
            return Ok(true);
        }
    }
}

fn stopped_waiting(what: &str) -> EngineError {
    EngineError::Setup(format!("net: stopped while waiting for {what}"))
}

impl NetLink {
    pub fn endpoint(&self) -> &NetEndpoint {
        &self.endpoint
    }

    /// Accepts the sender's connection (or, for UDP, waits for its open
    /// message), or connects to the receiver. `stop` is looked at while
    /// waiting, so a run that is stopped does not hang here.
    pub fn connect(&self, stop: &dyn Fn() -> bool) -> Result<Connection, EngineError> {
        let e = &self.endpoint;
        match &self.end {
            End::Listening(l) if e.protocol.is_udp() => self.udp_receive_open(l, stop),
            End::Listening(l) => {
                if !wait_for(l.as_raw_fd(), libc::POLLIN, stop)? {
                    return Err(stopped_waiting("a connection"));
                }
                // SAFETY: no address asked for.
                let fd = unsafe {
                    libc::accept4(
                        l.as_raw_fd(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        libc::SOCK_CLOEXEC,
                    )
                };
                if fd < 0 {
                    return Err(last("accept"));
                }
                // SAFETY: a descriptor just made and owned by no one else.
                let fd = unsafe { OwnedFd::from_raw_fd(fd) };
                e.nodelay(fd.as_raw_fd())?;
                Ok(Connection { fd, peer: None })
            }
            End::Connecting(peer) => self.connect_out(peer),
        }
    }

    /// fio's fio_netio_connect (and, for UDP, fio_netio_send_open).
    fn connect_out(&self, peer: &Peer) -> Result<Connection, EngineError> {
        let e = &self.endpoint;
        let fd = e.socket()?;
        let raw = fd.as_raw_fd();
        e.nodelay(raw)?;
        e.buffers_and_mss(raw)?;
        let (to, target) = match peer {
            Peer::Inet(peer) if e.protocol.is_udp() => return self.udp_send_open(fd, *peer),
            Peer::Inet(peer) => (RawAddr::inet(*peer), peer.to_string()),
            Peer::Vsock { cid } => (
                RawAddr::vsock(*cid, e.port.into()),
                format!("vsock CID {cid} port {}", e.port),
            ),
            Peer::Unix { path } => {
                let to = RawAddr::unix(path).ok_or_else(|| {
                    EngineError::Setup(format!(
                        "{path}: not a usable Unix socket path (at most 107 bytes)"
                    ))
                })?;
                (to, path.clone())
            }
        };
        // SAFETY: the address is valid for its length.
        if unsafe { libc::connect(raw, to.as_ptr(), to.len()) } < 0 {
            let err = std::io::Error::last_os_error();
            let what = format!("connect to {target}");
            return Err(match peer {
                Peer::Vsock { cid } if vsock_unreachable(&err) => {
                    EngineError::Setup(format!("net: {what}: {err}{}", vsock_reach(*cid)))
                }
                _ => failed(&what, err),
            });
        }
        Ok(Connection { fd, peer: None })
    }

    /// A UDP sender's socket `fd`, set up for multicast where `peer` is a
    /// group, once fio's open message has gone to `peer`.
    fn udp_send_open(&self, fd: OwnedFd, peer: SocketAddr) -> Result<Connection, EngineError> {
        let e = &self.endpoint;
        let raw = fd.as_raw_fd();
        if let SocketAddr::V4(a) = peer {
            if a.ip().is_multicast() {
                if let Some(intf) = interface_addr(e)? {
                    setopt(
                        raw,
                        libc::IPPROTO_IP,
                        libc::IP_MULTICAST_IF,
                        &intf,
                        "setsockopt IP_MULTICAST_IF",
                    )?;
                }
                let ttl = e.ttl as libc::c_int;
                setopt(
                    raw,
                    libc::IPPROTO_IP,
                    libc::IP_MULTICAST_TTL,
                    &ttl,
                    "setsockopt IP_MULTICAST_TTL",
                )?;
            }
        }
        let to = RawAddr::inet(peer);
        let msg = wire::open_message();
        // SAFETY: the message and the address are live for the call.
        let r = unsafe {
            libc::sendto(
                raw,
                msg.as_ptr().cast(),
                msg.len(),
                0,
                to.as_ptr(),
                to.len(),
            )
        };
        if r < 0 {
            return Err(last("sendto udp link open"));
        }
        Ok(Connection {
            fd,
            peer: Some(peer),
        })
    }

    /// fio's fio_netio_udp_recv_open: the bound socket is the connection,
    /// once the sender's open message has come.
    fn udp_receive_open(
        &self,
        l: &OwnedFd,
        stop: &dyn Fn() -> bool,
    ) -> Result<Connection, EngineError> {
        let fd = l.try_clone().map_err(|e| failed("dup", e))?;
        if !wait_for(fd.as_raw_fd(), libc::POLLIN, stop)? {
            return Err(stopped_waiting("the sender's first datagram"));
        }
        let mut msg = [0u8; 64];
        // SAFETY: sockaddr_storage is plain data.
        let mut from: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        // SAFETY: the buffer and the address are live for the call.
        let r = unsafe {
            libc::recvfrom(
                fd.as_raw_fd(),
                msg.as_mut_ptr().cast(),
                msg.len(),
                0,
                (&raw mut from).cast(),
                &mut len,
            )
        };
        if r < 0 {
            return Err(last("recvfrom udp link open"));
        }
        let got = &msg[..r as usize];
        if !wire::is_open_message(got) {
            return Err(EngineError::Setup(format!(
                "net: bad udp open message ({} bytes): the sender is not fio's net engine",
                got.len()
            )));
        }
        Ok(Connection {
            fd,
            peer: RawAddr::to_socket_addr(&from, len),
        })
    }
}
