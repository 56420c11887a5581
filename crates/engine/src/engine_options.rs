//! The options of single engines that [`QueueConfig`](crate::QueueConfig)
//! carries to them. They live apart from their engines so that the
//! configuration every engine reads depends on no engine.

use std::path::PathBuf;
use std::time::Duration;

/// What cpuio burns, from its options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuBurn {
    /// `cpuload`: percent of the time spent burning, 1 to 100.
    pub load: u32,
    /// `cpuchunks`: µs of each burn (fio's default 50000).
    pub chunk_us: u32,
    /// `cpumode=qsort` (else noop).
    pub qsort: bool,
}

/// filestat's `stat_type`: the system call that looks each file up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatType {
    /// stat(2), fio's default.
    #[default]
    Stat,
    /// lstat(2).
    Lstat,
    /// statx(2) with STATX_ALL on the file's absolute path, as fio's.
    Statx,
}

/// The donor file of an e4defrag job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Donor {
    /// `donorname`, joined to the job's directory.
    pub path: PathBuf,
    /// `inplace=1`: allocate the donor's blocks for each move and free
    /// them after; otherwise `prealloc` is allocated once.
    pub inplace: bool,
    /// (offset, length) allocated in the donor when the queue is built:
    /// fio's start_offset and file_size_high − start_offset.
    pub prealloc: (u64, u64),
}

/// The program an exec job runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecProgram {
    /// `program` and `arguments` split at spaces, as fio splits them,
    /// with `%r` and `%n` already replaced.
    pub argv: Vec<String>,
    /// `grace_time`: how long the program has to end after SIGTERM.
    pub grace_time: Duration,
    /// `std_redirect`: where its standard output and error go; None
    /// leaves them the job's.
    pub redirect: Option<(PathBuf, PathBuf)>,
}

/// fio's `protocol=` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NetProtocol {
    #[default]
    Tcp,
    TcpV6,
    Udp,
    UdpV6,
    /// A Unix domain stream socket; the path is the job's filename.
    Unix,
    /// An AF_VSOCK stream socket (fio 3.42), between a virtual machine and
    /// its host; the sender's hostname is the peer's context ID (CID).
    Vsock,
}

impl NetProtocol {
    pub const ALL: [NetProtocol; 6] = [
        NetProtocol::Tcp,
        NetProtocol::TcpV6,
        NetProtocol::Udp,
        NetProtocol::UdpV6,
        NetProtocol::Unix,
        NetProtocol::Vsock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            NetProtocol::Tcp => "tcp",
            NetProtocol::TcpV6 => "tcpv6",
            NetProtocol::Udp => "udp",
            NetProtocol::UdpV6 => "udpv6",
            NetProtocol::Unix => "unix",
            NetProtocol::Vsock => "vsock",
        }
    }

    pub fn from_name(name: &str) -> Option<NetProtocol> {
        NetProtocol::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn is_udp(self) -> bool {
        matches!(self, NetProtocol::Udp | NetProtocol::UdpV6)
    }

    pub fn is_tcp(self) -> bool {
        matches!(self, NetProtocol::Tcp | NetProtocol::TcpV6)
    }

    /// A stream to another machine, TCP or vsock (fio's `is_tcp(o) ||
    /// is_vsock(o)`): the job's `listen` says which end waits for the
    /// other, where a UDP or Unix reader always waits; and netsplice
    /// splices it, where UDP and Unix sockets keep send/recv.
    pub fn is_remote_stream(self) -> bool {
        self.is_tcp() || self == NetProtocol::Vsock
    }

    pub fn is_ipv6(self) -> bool {
        matches!(self, NetProtocol::TcpV6 | NetProtocol::UdpV6)
    }
}

/// What the queue of a network engine needs to know beyond its socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetOptions {
    pub protocol: NetProtocol,
    /// fio `pingpong`: each request waits for its bytes to come back (a
    /// write) or sends them back (a read) before it completes.
    pub pingpong: bool,
    /// Bytes the job sends in all (its `size`): sends carry MSG_MORE while
    /// more are to follow, as fio's do.
    pub total_bytes: u64,
    /// Where UDP datagrams go ([`Connection::peer`](crate::Connection::peer)); None for streams.
    pub peer: Option<std::net::SocketAddr>,
}
