//! Where `--server=ARGS` listens and `--client=ARGS` connects, in fio's words (server.c
//! fio_server_parse_string): nothing for every IPv4 address on port 8765;
//! `sock:PATH` for a Unix-domain socket; `[ip:|ip4:|ip6:]HOST[,PORT]`, or
//! `:PORT` alone.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use super::wire::DEFAULT_PORT;

#[derive(Debug, PartialEq)]
pub enum Address {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

impl Address {
    pub fn parse(arg: &str) -> anyhow::Result<Address> {
        if let Some(path) = arg.strip_prefix("sock:") {
            if path.is_empty() {
                anyhow::bail!("sock:PATH: the socket's path is missing");
            }
            return Ok(Address::Unix(PathBuf::from(path)));
        }
        if let Some(port) = arg.strip_prefix(':') {
            let any = IpAddr::V4(Ipv4Addr::UNSPECIFIED);
            return Ok(Address::Tcp(SocketAddr::new(any, parse_port(port)?)));
        }
        let (host, v6) = match arg {
            a if a.starts_with("ip6:") => (&a[4..], true),
            a if a.starts_with("ip4:") => (&a[4..], false),
            a if a.starts_with("ip:") => (&a[3..], false),
            a => (a, false),
        };
        let (host, port) = match host.split_once(',') {
            Some((h, p)) => (h, parse_port(p)?),
            None => (host, DEFAULT_PORT),
        };
        if host.is_empty() {
            let any = if v6 {
                IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED)
            } else {
                IpAddr::V4(Ipv4Addr::UNSPECIFIED)
            };
            return Ok(Address::Tcp(SocketAddr::new(any, port)));
        }
        let found = (host, port)
            .to_socket_addrs()
            .map_err(|e| anyhow::anyhow!("failed to resolve <{host}> ({e})"))?
            .find(|a| a.is_ipv6() == v6)
            .ok_or_else(|| {
                let family = if v6 { "IPv6" } else { "IPv4" };
                anyhow::anyhow!("<{host}> has no {family} address")
            })?;
        Ok(Address::Tcp(found))
    }
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Address::Tcp(a) => write!(f, "{},{}", a.ip(), a.port()),
            Address::Unix(p) => write!(f, "sock:{}", p.display()),
        }
    }
}

fn parse_port(text: &str) -> anyhow::Result<u16> {
    match text.trim().parse::<u16>() {
        Ok(p) if p != 0 => Ok(p),
        _ => anyhow::bail!("bad server port '{text}' (expected 1 to 65535)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(text: &str) -> SocketAddr {
        match Address::parse(text).unwrap() {
            Address::Tcp(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fios_server_strings_are_read_as_fio_reads_them() {
        assert_eq!(tcp("").to_string(), "0.0.0.0:8765");
        assert_eq!(tcp(":9000").to_string(), "0.0.0.0:9000");
        assert_eq!(tcp("ip:127.0.0.1,8799").to_string(), "127.0.0.1:8799");
        assert_eq!(tcp("127.0.0.1").to_string(), "127.0.0.1:8765");
        assert_eq!(tcp("ip6:::1,8799").to_string(), "[::1]:8799");
        assert_eq!(
            Address::parse("sock:/tmp/x.sock").unwrap(),
            Address::Unix("/tmp/x.sock".into())
        );
        for bad in [":0", "ip:127.0.0.1,70000", "127.0.0.1,x", "sock:"] {
            assert!(Address::parse(bad).is_err(), "{bad}");
        }
    }
}
