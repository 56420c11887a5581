//! Setting a connection up the way fio's net engine does: a listening (or,
//! for UDP, bound) socket made before the run, then accept or connect once
//! the job starts, with fio's socket options.

use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::wire::{self, RawAddr};
use crate::engine_options::NetProtocol;
use crate::error::EngineError;

/// One end of a job's connection, as its options describe it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetEndpoint {
    pub protocol: NetProtocol,
    /// The host to connect to (an address or a name), the multicast group
    /// of a UDP receiver, or the path of a Unix socket.
    pub host: Option<String>,
    /// The port, already moved on by the clone's number as fio does.
    pub port: u16,
    /// This end waits for the other: fio's `listen` for TCP; a UDP or
    /// Unix reader always does, as in fio.
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
    /// The receiver's bound socket.
    listener: Option<OwnedFd>,
    /// The sender's peer (None for a Unix socket, named by its path).
    peer: Option<SocketAddr>,
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
        }
    }

    fn socket(&self) -> Result<OwnedFd, EngineError> {
        let (domain, ty) = self.domain_and_type();
        // SAFETY: plain system call.
        let fd = unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(last("socket"));
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
            if host.is_some()
                && p != NetProtocol::Unix
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
                listener: Some(listener),
                peer: None,
            });
        }
        let peer = match p {
            NetProtocol::Unix => None,
            _ => Some(self.resolve()?),
        };
        Ok(NetLink {
            endpoint: self,
            listener: None,
            peer,
        })
    }

    fn resolve(&self) -> Result<SocketAddr, EngineError> {
        let Some(host) = self.host.as_deref() else {
            return Err(EngineError::Setup(
                "a sending job needs hostname= (or filename=) to connect to; a receiving job \
                 needs rw=read (and listen for TCP)"
                    .into(),
            ));
        };
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
        let addr = if self.protocol == NetProtocol::Unix {
            let path = self.host.as_deref().unwrap_or_default();
            // A socket file left by an earlier run would make bind fail.
            let _ = std::fs::remove_file(path);
            RawAddr::unix(path).ok_or_else(|| {
                EngineError::Setup(format!(
                    "{path}: not a usable Unix socket path (at most 107 bytes)"
                ))
            })?
        } else {
            let one: libc::c_int = 1;
            setopt(
                raw,
                libc::SOL_SOCKET,
                libc::SO_REUSEADDR,
                &one,
                "setsockopt",
            )?;
            setopt(
                raw,
                libc::SOL_SOCKET,
                libc::SO_REUSEPORT,
                &one,
                "setsockopt",
            )?;
            self.buffers_and_mss(raw)?;
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
                    raw,
                    libc::IPPROTO_IP,
                    libc::IP_ADD_MEMBERSHIP,
                    &mr,
                    "setsockopt IP_ADD_MEMBERSHIP",
                )?;
            }
            let any = if self.protocol.is_ipv6() {
                SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, self.port))
            } else {
                SocketAddr::from((group.unwrap_or(Ipv4Addr::UNSPECIFIED), self.port))
            };
            RawAddr::inet(any)
        };
        // SAFETY: the address is valid for its length.
        if unsafe { libc::bind(raw, addr.as_ptr(), addr.len()) } < 0 {
            let what = match &self.host {
                Some(path) if self.protocol == NetProtocol::Unix => format!("bind {path}"),
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
        match &self.listener {
            Some(l) if e.protocol.is_udp() => self.udp_receive_open(l, stop),
            Some(l) => {
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
            None => self.connect_out(),
        }
    }

    fn connect_out(&self) -> Result<Connection, EngineError> {
        let e = &self.endpoint;
        let fd = e.socket()?;
        let raw = fd.as_raw_fd();
        e.nodelay(raw)?;
        e.buffers_and_mss(raw)?;
        if e.protocol.is_udp() {
            let peer = self.peer.expect("a UDP sender's peer is resolved");
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
            return Ok(Connection {
                fd,
                peer: Some(peer),
            });
        }
        let to = match (self.peer, &e.host) {
            (Some(peer), _) => RawAddr::inet(peer),
            (None, host) => {
                let path = host.as_deref().unwrap_or_default();
                RawAddr::unix(path).ok_or_else(|| {
                    EngineError::Setup(format!(
                        "{path}: not a usable Unix socket path (at most 107 bytes)"
                    ))
                })?
            }
        };
        // SAFETY: the address is valid for its length.
        if unsafe { libc::connect(raw, to.as_ptr(), to.len()) } < 0 {
            let target = match (self.peer, &e.host) {
                (Some(peer), _) => peer.to_string(),
                (None, host) => host.clone().unwrap_or_default(),
            };
            return Err(last(&format!("connect to {target}")));
        }
        Ok(Connection { fd, peer: None })
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
