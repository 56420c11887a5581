//! The options of fio's network engines (`net`, `netsplice`), as written.
//! The host is the job's filename (fio's `hostname` sets it), so it is not
//! here.

use ioscope_engine::NetProtocol;

/// fio's net engine options (engines/net.c), with fio's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetSpec {
    /// `port`: 1-65535; each clone of the job adds its number. 0 when not
    /// given (required for TCP, UDP and vsock, refused for Unix sockets).
    pub port: u32,
    /// `protocol` (alias `proto`), default tcp.
    pub protocol: NetProtocol,
    /// `listen`: this TCP or vsock end waits for the other to connect.
    pub listen: bool,
    /// `pingpong`: each block goes back the other way before it completes.
    pub pingpong: bool,
    /// `nodelay`: TCP_NODELAY.
    pub nodelay: bool,
    /// `window_size`: the socket buffer size, 0 for the kernel's.
    pub window_size: u32,
    /// `mss`: TCP_MAXSEG, 0 for the kernel's.
    pub mss: u32,
    /// `interface`: the IPv4 address of the interface UDP multicast uses.
    pub interface: Option<String>,
    /// `ttl`: TTL of outgoing UDP multicast, default 1.
    pub ttl: u32,
}
