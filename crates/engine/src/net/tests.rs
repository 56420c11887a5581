//! The network queue over loopback connections made by [`NetLink`].

use std::thread;

use super::*;
use crate::engine_options::{NetOptions, NetProtocol};
use crate::queue::Queue;
use crate::test_io::{completed, req};

const BS: u32 = 4096;

fn config(opts: NetOptions) -> QueueConfig {
    QueueConfig {
        depth: 1,
        buffer_size: BS as usize,
        buffer_align: 4096,
        net: opts,
        ..QueueConfig::default()
    }
}

/// A receiver and a sender over `protocol`, the sender sending `blocks`
/// blocks (each filled with its number) and the receiver reading until
/// the stream ends. Returns what the receiver read per request. The data
/// is checked unless the sender vmsplices: the pages it maps into the
/// pipe are still the buffer's, which the next block overwrites, so what
/// reaches the wire may be newer (as with fio's netsplice).
fn exchange(
    protocol: NetProtocol,
    host: Option<String>,
    port: u16,
    blocks: u8,
    splice: Splice,
    pingpong: bool,
) -> Vec<i64> {
    let receiver = NetEndpoint {
        protocol,
        host: host.clone().filter(|_| protocol == NetProtocol::Unix),
        port,
        listens: true,
        pingpong,
        ..NetEndpoint::default()
    }
    .prepare()
    .unwrap();
    let sender = NetEndpoint {
        protocol,
        host,
        port,
        listens: false,
        pingpong,
        ttl: 1,
        ..NetEndpoint::default()
    }
    .prepare()
    .unwrap();
    let send = thread::spawn(move || {
        let c = sender.connect(&|| false).unwrap();
        let opts = NetOptions {
            protocol,
            pingpong,
            total_bytes: u64::from(blocks) * u64::from(BS),
            peer: c.peer,
        };
        let mut q = NetQueue::new(
            &config(opts),
            &[std::os::fd::AsRawFd::as_raw_fd(&c.fd)],
            splice == Splice::Send,
        )
        .unwrap();
        for b in 0..blocks {
            q.buffer(0).fill(b);
            assert_eq!(
                completed(&mut q, req(Op::Write, 0, BS, 0)),
                i64::from(BS),
                "block {b}"
            );
        }
        drop(q);
    });
    let c = receiver.connect(&|| false).unwrap();
    let opts = NetOptions {
        protocol,
        pingpong,
        total_bytes: 0,
        peer: c.peer,
    };
    let mut q = NetQueue::new(
        &config(opts),
        &[std::os::fd::AsRawFd::as_raw_fd(&c.fd)],
        splice == Splice::Receive,
    )
    .unwrap();
    let mut got = Vec::new();
    while !q.ended() {
        let n = completed(&mut q, req(Op::Read, 0, BS, 0));
        if n == i64::from(BS) && splice != Splice::Send {
            let b = got.len() as u8;
            // UDP datagrams end with fio's sequence record.
            let data = if protocol.is_udp() {
                &q.buffer(0)[..BS as usize - 24]
            } else {
                q.buffer(0)
            };
            assert!(data.iter().all(|&x| x == b), "block {b}");
        }
        got.push(n);
        if got.len() > usize::from(blocks) + 2 {
            break;
        }
    }
    send.join().unwrap();
    got
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Splice {
    Neither,
    Send,
    Receive,
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn tcp_moves_every_block_then_ends() {
    let port = free_port();
    let got = exchange(
        NetProtocol::Tcp,
        Some("127.0.0.1".into()),
        port,
        8,
        Splice::Neither,
        false,
    );
    // Eight blocks, then the close message, which is not data.
    assert_eq!(got, [vec![i64::from(BS); 8], vec![0]].concat());
}

#[test]
fn netsplice_moves_every_block_then_ends() {
    let port = free_port();
    let got = exchange(
        NetProtocol::Tcp,
        Some("localhost".into()),
        port,
        8,
        Splice::Send,
        false,
    );
    assert_eq!(got, [vec![i64::from(BS); 8], vec![0]].concat());
    let port = free_port();
    let got = exchange(
        NetProtocol::Tcp,
        Some("localhost".into()),
        port,
        8,
        Splice::Receive,
        false,
    );
    assert_eq!(got, [vec![i64::from(BS); 8], vec![0]].concat());
}

#[test]
fn pingpong_sends_each_block_back() {
    let port = free_port();
    let got = exchange(
        NetProtocol::Tcp,
        Some("127.0.0.1".into()),
        port,
        4,
        Splice::Neither,
        true,
    );
    assert_eq!(got, [vec![i64::from(BS); 4], vec![0]].concat());
}

#[test]
fn unix_and_udp_links() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sock").display().to_string();
    let got = exchange(NetProtocol::Unix, Some(path), 0, 5, Splice::Neither, false);
    assert_eq!(got, [vec![i64::from(BS); 5], vec![0]].concat());
    let port = free_port();
    let got = exchange(
        NetProtocol::Udp,
        Some("127.0.0.1".into()),
        port,
        5,
        Splice::Neither,
        false,
    );
    assert_eq!(got, [vec![i64::from(BS); 5], vec![0]].concat());
}

#[test]
fn a_receiver_refuses_a_hostname_and_a_sender_needs_one() {
    let e = NetEndpoint {
        host: Some("127.0.0.1".into()),
        port: 1,
        listens: true,
        ..NetEndpoint::default()
    }
    .prepare()
    .unwrap_err();
    assert!(
        e.to_string().contains("not valid for a receiving job"),
        "{e}"
    );
    let e = NetEndpoint {
        port: 1,
        ..NetEndpoint::default()
    }
    .prepare()
    .unwrap_err();
    assert!(e.to_string().contains("needs hostname="), "{e}");
}

#[test]
fn a_stopped_receiver_stops_waiting() {
    let l = NetEndpoint {
        port: free_port(),
        listens: true,
        ..NetEndpoint::default()
    }
    .prepare()
    .unwrap();
    let e = l.connect(&|| true).unwrap_err();
    assert!(e.to_string().contains("stopped while waiting"), "{e}");
}

/// A vsock receiver on the first free port from a base of this process's
/// own (vsock ports are not shared with TCP's, so free_port cannot say).
fn vsock_receiver(host: Option<&str>) -> (NetLink, u16) {
    let base = 20000 + (std::process::id() % 20000) as u16;
    for port in base..base + 100 {
        let prepared = NetEndpoint {
            protocol: NetProtocol::Vsock,
            host: host.map(String::from),
            port,
            listens: true,
            ..NetEndpoint::default()
        }
        .prepare();
        match prepared {
            Ok(link) => return (link, port),
            Err(e) if e.to_string().contains("Address already in use") => continue,
            Err(e) => panic!("{e}"),
        }
    }
    panic!("no free vsock port from {base}");
}

#[test]
fn a_vsock_receiver_binds_its_port_on_any_cid_and_listens() {
    ioscope_testutil::require!(ioscope_testutil::vsock());
    // fio's vsock receiver does not look at the hostname; neither do we.
    let (link, port) = vsock_receiver(Some("7"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&link.listener().unwrap());
    // SAFETY: sockaddr_vm is plain data.
    let mut addr: libc::sockaddr_vm = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_vm>() as libc::socklen_t;
    // SAFETY: `addr` has room for `len` bytes.
    let r = unsafe { libc::getsockname(fd, (&raw mut addr).cast(), &mut len) };
    assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
    assert_eq!(i32::from(addr.svm_family), libc::AF_VSOCK);
    assert_eq!(addr.svm_cid, libc::VMADDR_CID_ANY);
    assert_eq!(addr.svm_port, u32::from(port));
    let mut listening: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `listening` has room for `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ACCEPTCONN,
            (&raw mut listening).cast(),
            &mut len,
        )
    };
    assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
    assert_eq!(listening, 1);
    let e = link.connect(&|| true).unwrap_err();
    assert!(e.to_string().contains("stopped while waiting"), "{e}");
}

#[test]
fn a_vsock_sender_needs_a_cid_for_hostname() {
    let sender = |host: Option<&str>| {
        NetEndpoint {
            protocol: NetProtocol::Vsock,
            host: host.map(String::from),
            port: 5000,
            ..NetEndpoint::default()
        }
        .prepare()
    };
    let e = sender(None).unwrap_err().to_string();
    assert!(e.contains("needs hostname="), "{e}");
    let e = sender(Some("localhost")).unwrap_err().to_string();
    assert!(e.starts_with("hostname=localhost: protocol=vsock"), "{e}");
    assert!(sender(Some("1")).is_ok());
}

/// A connect to CID 1 on a port no one listens on fails at once where the
/// vsock_loopback transport is (ECONNRESET), after the kernel's 2 s
/// connect timeout where it is not (ETIMEDOUT): either way the error says
/// what was tried and why it failed.
#[test]
fn a_failed_vsock_connect_names_the_cid_the_port_and_the_errno() {
    ioscope_testutil::require!(ioscope_testutil::vsock());
    let (receiver, port) = vsock_receiver(None);
    // The port is free once the receiver has gone.
    drop(receiver);
    let link = NetEndpoint {
        protocol: NetProtocol::Vsock,
        host: Some("1".into()),
        port,
        ..NetEndpoint::default()
    }
    .prepare()
    .unwrap();
    let e = link.connect(&|| false).unwrap_err().to_string();
    let want = format!("net: connect to vsock CID 1 port {port}: ");
    assert!(e.starts_with(&want), "{e}");
    assert!(e.contains("(os error "), "{e}");
    // Without the loopback transport the kernel times the connect out: the
    // error says what the machine lacks.
    if ioscope_testutil::vsock_loopback().is_err() {
        assert!(
            e.contains(
                "; no vsock transport reaches CID 1 from this machine: it needs the \
                 vsock_loopback module"
            ),
            "{e}"
        );
    }
}

#[test]
fn vsock_moves_every_block_then_ends_plain_and_spliced() {
    ioscope_testutil::require!(ioscope_testutil::vsock_loopback());
    for splice in [Splice::Neither, Splice::Send, Splice::Receive] {
        let (receiver, port) = vsock_receiver(None);
        drop(receiver);
        let got = exchange(
            NetProtocol::Vsock,
            Some(libc::VMADDR_CID_LOCAL.to_string()),
            port,
            8,
            splice,
            false,
        );
        assert_eq!(got, [vec![i64::from(BS); 8], vec![0]].concat());
    }
}
