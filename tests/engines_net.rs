//! The network engines (`net`, `netsplice`) end to end on 127.0.0.1 and
//! Unix sockets: a receiving job and a sending job in one job file, as
//! fio's examples/netio.fio, run by fio and by ioscope, and each tool
//! against the other; and over vsock to CID 1 where this machine has the
//! vsock loopback transport. Sizes are a few MiB so a run takes well under
//! a second.
//!
//! What fio defines and both must agree on: the sender moves `size` bytes
//! in `size / bs` writes. fio's receiver counts a read that came back short
//! only by its remainder (backend.c requeues the rest and accounts only
//! that), so fio reports up to `short_ios` blocks less than it received;
//! ioscope's receiver waits for whole blocks and reports every byte.

mod common;

use std::path::Path;
use std::thread;
use std::time::Duration;

use common::{fio, ioscope, job, tempdir, u, write_file};
use ioscope_testutil::{fio as fio_installed, require, vsock, vsock_loopback};
use serde_json::Value;

const BS: u64 = 4096;
const SIZE: u64 = 4 << 20;

/// A port nothing listens on now.
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// netio.fio's shape: a receiver and a sender (which starts a little
/// later) in one file. `transport` holds the protocol lines.
fn job_file(engine: &str, transport: &str, listen: bool, receiver: &str, sender: &str) -> String {
    format!(
        "[global]\nioengine={engine}\n{transport}\nbs={BS}\nsize={SIZE}\n\n\
         [receiver]\n{}rw=read\n{receiver}\n\n[sender]\nstartdelay=1\nrw=write\n{sender}\n",
        if listen { "listen\n" } else { "" }
    )
}

fn run_ioscope(dir: &Path, file: &Path) -> Value {
    let out = dir.join("ioscope.json");
    ioscope([
        file.display().to_string(),
        "--output-format=json".into(),
        format!("--output={}", out.display()),
    ])
    .run()
    .assert_ok();
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// fio's run of the file. fio 3.33 now and then dies at the end of a
/// network run (SIGPIPE from its own close message, or a double free on
/// exit) after the numbers are out, more often on a loaded machine: it
/// gets five tries.
fn run_fio(dir: &Path, file: &Path) -> Value {
    run_fio_allowing(dir, file, 0)
}

/// As [`run_fio`], taking jobs that failed with `errno` as done.
fn run_fio_allowing(dir: &Path, file: &Path, errno: u64) -> Value {
    let out = dir.join("fio.json");
    let mut last = String::new();
    for _ in 0..5 {
        let _ = std::fs::remove_file(&out);
        let run = fio([
            file.display().to_string(),
            "--output-format=json".into(),
            format!("--output={}", out.display()),
        ])
        .run();
        let parsed = std::fs::read_to_string(&out)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if let Some(v) = parsed {
            let jobs = v["jobs"].as_array().map_or(&[][..], Vec::as_slice);
            let clean = jobs.iter().all(|j| [0, errno].contains(&u(j, "error")));
            if clean && (run.status.success() || errno != 0) {
                return v;
            }
        }
        last = run.describe();
    }
    panic!("fio failed five times: {last}");
}

fn moved(v: &Value, name: &str, dir: &str) -> (u64, u64) {
    let d = &job(v, name)[dir];
    (u(d, "io_bytes"), u(d, "total_ios"))
}

/// What both tools must agree on for one job file.
fn compare(v_fio: &Value, v_io: &Value) {
    for name in ["receiver", "sender"] {
        assert_eq!(u(job(v_io, name), "error"), 0, "{name}: {v_io:#}");
    }
    for v in [v_fio, v_io] {
        assert_eq!(moved(v, "sender", "write"), (SIZE, SIZE / BS), "{v:#}");
        assert_eq!(moved(v, "sender", "read"), (0, 0));
        assert_eq!(moved(v, "receiver", "write"), (0, 0));
    }
    assert_eq!(moved(v_io, "receiver", "read"), (SIZE, SIZE / BS));
    let (bytes, ios) = moved(v_fio, "receiver", "read");
    let short = u(&job(v_fio, "receiver")["read"], "short_ios");
    assert!(
        bytes <= SIZE && bytes + short * BS >= SIZE,
        "fio's receiver: {v_fio:#}"
    );
    assert!(ios >= SIZE / BS, "fio's receiver: {v_fio:#}");
}

fn same_as_fio(engine: &str, transport: &str, listen: bool, receiver: &str, sender: &str) {
    same_as_fio_allowing(engine, transport, listen, receiver, sender, 0);
}

fn same_as_fio_allowing(
    engine: &str,
    transport: &str,
    listen: bool,
    receiver: &str,
    sender: &str,
    fio_errno: u64,
) {
    let dir = tempdir();
    let io_text = job_file(
        engine,
        &transport
            .replace("@PORT", &free_port().to_string())
            .replace("@DIR", &dir.path().join("io.sock").display().to_string()),
        listen,
        receiver,
        sender,
    );
    let fio_text = job_file(
        engine,
        &transport
            .replace("@PORT", &free_port().to_string())
            .replace("@DIR", &dir.path().join("fio.sock").display().to_string()),
        listen,
        receiver,
        sender,
    );
    let v_io = run_ioscope(dir.path(), &write_file(dir.path(), "io.fio", &io_text));
    let v_fio = run_fio_allowing(
        dir.path(),
        &write_file(dir.path(), "fio.fio", &fio_text),
        fio_errno,
    );
    compare(&v_fio, &v_io);
}

#[test]
fn tcp_receiver_and_sender_move_what_fio_moves() {
    require!(fio_installed());
    same_as_fio(
        "net",
        "port=@PORT\nprotocol=tcp",
        true,
        "",
        "hostname=127.0.0.1",
    );
}

#[test]
fn tcp_options_are_taken_as_fio_takes_them() {
    require!(fio_installed());
    same_as_fio(
        "net",
        "port=@PORT\nproto=tcp\nnodelay=1\nwindow_size=131072\nmss=1400",
        true,
        "",
        "hostname=localhost",
    );
}

#[test]
fn netsplice_moves_what_fio_moves() {
    require!(fio_installed());
    same_as_fio(
        "netsplice",
        "port=@PORT\nprotocol=tcp",
        true,
        "",
        "hostname=127.0.0.1",
    );
}

#[test]
fn unix_socket_moves_what_fio_moves() {
    require!(fio_installed());
    // fio 3.33 ends each Unix socket job with EISCONN (106): it sends its
    // close message with sendto and an address on the connected socket.
    // The bytes are out by then.
    same_as_fio_allowing(
        "net",
        "protocol=unix\nfilename=@DIR",
        false,
        "",
        "",
        libc::EISCONN as u64,
    );
}

#[test]
fn pingpong_moves_what_fio_moves() {
    require!(fio_installed());
    same_as_fio(
        "net",
        "port=@PORT\nprotocol=tcp\npingpong=1",
        true,
        "",
        "hostname=127.0.0.1",
    );
}

/// UDP: one datagram per block, the link opened and closed with fio's
/// messages. Small enough that the receiver's socket buffer holds every
/// datagram however late it starts reading (at 256 KiB both tools lose the
/// same 39 of 64 on loopback).
#[test]
fn udp_moves_what_fio_moves() {
    require!(fio_installed());
    let dir = tempdir();
    let text = |port: u16| {
        format!(
            "[global]\nioengine=net\nprotocol=udp\nport={port}\nbs={BS}\nsize=64k\n\n\
             [receiver]\nrw=read\n\n[sender]\nstartdelay=1\nrw=write\nhostname=127.0.0.1\n"
        )
    };
    let v_io = run_ioscope(
        dir.path(),
        &write_file(dir.path(), "io.fio", &text(free_port())),
    );
    let v_fio = run_fio(
        dir.path(),
        &write_file(dir.path(), "fio.fio", &text(free_port())),
    );
    for v in [&v_fio, &v_io] {
        assert_eq!(moved(v, "sender", "write"), (64 << 10, 16), "{v:#}");
        assert_eq!(moved(v, "receiver", "read"), (64 << 10, 16), "{v:#}");
    }
}

/// One tool's receiver (given twice the bytes, so it reads until the
/// sender's close message) against the other tool's sender.
fn cross(fio_receives: bool) {
    let dir = tempdir();
    let port = free_port();
    let receiver = format!(
        "[receiver]\nioengine=net\nport={port}\nlisten\nrw=read\nbs={BS}\nsize={}\n",
        2 * SIZE
    );
    let sender = format!(
        "[sender]\nioengine=net\nport={port}\nhostname=127.0.0.1\nrw=write\nbs={BS}\nsize={SIZE}\n"
    );
    let rfile = write_file(dir.path(), "receiver.fio", &receiver);
    let sfile = write_file(dir.path(), "sender.fio", &sender);
    let d = dir.path().to_path_buf();
    let listening = thread::spawn(move || {
        if fio_receives {
            run_fio(&d, &rfile)
        } else {
            run_ioscope(&d, &rfile)
        }
    });
    thread::sleep(Duration::from_millis(700));
    let v_send = if fio_receives {
        run_ioscope(dir.path(), &sfile)
    } else {
        run_fio(dir.path(), &sfile)
    };
    let v_recv = listening.join().unwrap();
    assert_eq!(
        moved(&v_send, "sender", "write"),
        (SIZE, SIZE / BS),
        "{v_send:#}"
    );
    assert_eq!(u(job(&v_recv, "receiver"), "error"), 0, "{v_recv:#}");
    let (bytes, _) = moved(&v_recv, "receiver", "read");
    if fio_receives {
        let short = u(&job(&v_recv, "receiver")["read"], "short_ios");
        assert!(bytes <= SIZE && bytes + short * BS >= SIZE, "{v_recv:#}");
    } else {
        // Every byte fio sent, and not its close message.
        assert_eq!(
            moved(&v_recv, "receiver", "read"),
            (SIZE, SIZE / BS),
            "{v_recv:#}"
        );
    }
}

#[test]
fn fio_sends_to_ioscope_listening() {
    require!(fio_installed());
    cross(false);
}

#[test]
fn ioscope_sends_to_fio_listening() {
    require!(fio_installed());
    cross(true);
}

#[test]
fn what_fio_refuses_is_refused_by_name() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--rw=randread", "--listen", "--port=9"],
            "can't be random",
        ),
        (&["--rw=rw", "--listen", "--port=9"], "either receives"),
        (
            &[
                "--rw=read",
                "--protocol=unix",
                "--port=9",
                "--filename=/tmp/x",
            ],
            "port is not valid",
        ),
        (
            &["--rw=read", "--protocol=udp", "--listen", "--port=9"],
            "listen is only valid for TCP",
        ),
        (&["--rw=read", "--listen"], "needs port="),
        (
            &["--rw=read", "--protocol=sctp", "--port=9"],
            "expected one of: tcp, tcpv6, udp, udpv6, unix, vsock",
        ),
        (
            &["--rw=write", "--protocol=vsock", "--hostname=1"],
            "protocol=vsock needs port=",
        ),
        (
            &[
                "--rw=write",
                "--protocol=vsock",
                "--port=9",
                "--hostname=localhost",
            ],
            "hostname=localhost: protocol=vsock connects to the peer's context ID (CID)",
        ),
        (
            &[
                "--rw=write",
                "--port=9",
                "--hostname=127.0.0.1",
                "--direct=1",
            ],
            "O_DIRECT",
        ),
    ];
    for (args, want) in cases {
        let mut a = vec!["--name=n", "--ioengine=net", "--size=1m", "--parse-only"];
        a.extend_from_slice(args);
        let run = ioscope(&a).run();
        let err = run.assert_refused();
        assert!(err.contains(want), "{a:?}: {err}");
    }
}

/// A vsock port for this test run: vsock ports are not TCP's, so
/// free_port cannot say, and a port the kernel picks may be past 65535.
fn vsock_port(offset: u16) -> u16 {
    20000 + (std::process::id() % 20000) as u16 + offset
}

/// netio.fio over vsock: the receiver listens on any CID, the sender
/// connects to CID 1 (this machine), which needs the vsock_loopback
/// transport. fio 3.33 (CI's) has no vsock, so ioscope runs alone.
#[test]
fn vsock_receiver_and_sender_move_every_byte() {
    require!(vsock_loopback());
    let dir = tempdir();
    let text = job_file(
        "net",
        &format!("port={}\nprotocol=vsock", vsock_port(0)),
        true,
        "",
        "hostname=1",
    );
    let v = run_ioscope(dir.path(), &write_file(dir.path(), "io.fio", &text));
    for name in ["receiver", "sender"] {
        assert_eq!(u(job(&v, name), "error"), 0, "{name}: {v:#}");
    }
    assert_eq!(moved(&v, "sender", "write"), (SIZE, SIZE / BS), "{v:#}");
    assert_eq!(moved(&v, "receiver", "read"), (SIZE, SIZE / BS), "{v:#}");
}

/// A vsock sender with no one listening: the connect fails (ECONNRESET
/// over loopback, ETIMEDOUT after the kernel's 2 s without it) and the run
/// says which CID and port it tried and why, instead of panicking.
#[test]
fn a_failed_vsock_connect_says_where_and_why() {
    require!(vsock());
    let port = vsock_port(1);
    let run = ioscope([
        "--name=sender",
        "--ioengine=net",
        "--protocol=vsock",
        "--hostname=1",
        &format!("--port={port}"),
        "--rw=write",
        "--size=1m",
    ])
    .run();
    let err = run.assert_refused();
    let want = format!("sender: net: connect to vsock CID 1 port {port}: ");
    assert!(err.contains(&want), "{}", run.describe());
    assert!(err.contains("(os error "), "{}", run.describe());
}
