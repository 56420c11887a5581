//! The options of fio's network engines, `net` and `netsplice`
//! (engines/net.c), with fio's names, types and defaults. Which engines
//! take them comes from the engines' descriptors.

use super::{Kind, OptionDef};
use ioscope_engine::NetProtocol;

const NET: OptionDef = OptionDef::of("I/O engine");

const PROTOCOL_VALUES: &[(&str, &str)] = &[
    ("tcp", "Transmission Control Protocol"),
    ("tcpv6", "Transmission Control Protocol V6"),
    ("udp", "User Datagram Protocol"),
    ("udpv6", "User Datagram Protocol V6"),
    ("unix", "UNIX domain socket"),
    ("vsock", "Virtual socket"),
];

/// A whole number from `min` to `max`.
fn int(text: &str, min: u64, max: u64) -> Result<u32, String> {
    let n: u64 = text
        .parse()
        .map_err(|_| format!("expected a whole number from {min} to {max}"))?;
    if n < min || n > max {
        return Err(format!("expected a whole number from {min} to {max}"));
    }
    Ok(n as u32)
}

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "hostname",
        help: "Hostname for net IO engine (sets filename)",
        apply: |s, v| {
            // fio's str_hostname_cb: the host is the job's filename.
            s.spec.filenames = vec![v.text.to_string()];
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "port",
        kind: Kind::Int,
        help: "Port to use for TCP or UDP net connections",
        apply: |s, v| {
            s.spec.net.port = int(v.text, 1, 65535)?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "protocol",
        aliases: &["proto"],
        kind: Kind::Choice(PROTOCOL_VALUES),
        default: "tcp",
        help: "Network protocol to use",
        apply: |s, v| {
            s.spec.net.protocol = NetProtocol::from_name(v.text).ok_or_else(|| v.not_a_choice())?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "nodelay",
        kind: Kind::Bool,
        help: "Use TCP_NODELAY on TCP connections",
        apply: |s, v| {
            s.spec.net.nodelay = v.bool()?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "listen",
        kind: Kind::Flag,
        help: "Listen for incoming TCP connections",
        apply: |s, v| {
            s.spec.net.listen = v.bool()?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "pingpong",
        kind: Kind::Flag,
        help: "Ping-pong IO requests",
        apply: |s, v| {
            s.spec.net.pingpong = v.bool()?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "interface",
        help: "Network interface to use",
        apply: |s, v| {
            s.spec.net.interface = Some(v.text.to_string());
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "ttl",
        kind: Kind::Int,
        default: "1",
        help: "Time-to-live value for outgoing UDP multicast packets",
        apply: |s, v| {
            s.spec.net.ttl = int(v.text, 0, 255)?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "window_size",
        kind: Kind::Int,
        help: "Set socket buffer window size",
        apply: |s, v| {
            s.spec.net.window_size = int(v.text, 0, i32::MAX as u64)?;
            Ok(())
        },
        ..NET
    },
    OptionDef {
        name: "mss",
        kind: Kind::Int,
        help: "Set TCP maximum segment size",
        apply: |s, v| {
            s.spec.net.mss = int(v.text, 0, i32::MAX as u64)?;
            Ok(())
        },
        ..NET
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_values_are_the_engines() {
        let names: Vec<&str> = PROTOCOL_VALUES.iter().map(|v| v.0).collect();
        let engines: Vec<&str> = NetProtocol::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names, engines);
    }
}
