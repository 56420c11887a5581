//! What fio 3.33's net engine puts on the wire besides the data, and the
//! socket addresses the system calls take.

use std::net::SocketAddr;

/// fio's FIO_LINK_OPEN_CLOSE_MAGIC, the first word of both link messages.
const LINK_MAGIC: u32 = 0x6c69_6e6b;
/// fio's FIO_LINK_OPEN: a UDP sender's first datagram.
const LINK_OPEN: u32 = 0x98;
/// fio's FIO_LINK_CLOSE: what a sender sends last.
const LINK_CLOSE: u32 = 0x89;
/// fio's FIO_UDP_SEQ_MAGIC, which starts the sequence record of a datagram.
const UDP_SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;

/// Bytes of a link message.
pub(super) const LINK_MSG_LEN: usize = 8;
/// Bytes of the sequence record at the end of a UDP datagram.
const UDP_SEQ_LEN: usize = 24;

/// The open message. fio writes it in network byte order (htonl).
pub(super) fn open_message() -> [u8; LINK_MSG_LEN] {
    let mut m = [0; LINK_MSG_LEN];
    m[..4].copy_from_slice(&LINK_MAGIC.to_be_bytes());
    m[4..].copy_from_slice(&LINK_OPEN.to_be_bytes());
    m
}

pub(super) fn is_open_message(m: &[u8]) -> bool {
    m.len() == LINK_MSG_LEN
        && m[..4] == LINK_MAGIC.to_be_bytes()
        && m[4..] == LINK_OPEN.to_be_bytes()
}

/// The close message. fio writes this one little-endian (cpu_to_le32),
/// unlike the open message.
pub(super) fn close_message() -> [u8; LINK_MSG_LEN] {
    let mut m = [0; LINK_MSG_LEN];
    m[..4].copy_from_slice(&LINK_MAGIC.to_le_bytes());
    m[4..].copy_from_slice(&LINK_CLOSE.to_le_bytes());
    m
}

pub(super) fn is_close_message(m: &[u8]) -> bool {
    m.len() == LINK_MSG_LEN && m == close_message()
}

/// Writes fio's sequence record (magic, sequence number, datagram length,
/// little-endian) into the last bytes of a datagram, as fio's UDP sender
/// does when the job does not verify; a datagram too short for it is left
/// alone.
pub(super) fn store_udp_seq(datagram: &mut [u8], seq: u64) {
    let len = datagram.len();
    if len < UDP_SEQ_LEN {
        return;
    }
    let rec = &mut datagram[len - UDP_SEQ_LEN..];
    rec[..8].copy_from_slice(&UDP_SEQ_MAGIC.to_le_bytes());
    rec[8..16].copy_from_slice(&seq.to_le_bytes());
    rec[16..].copy_from_slice(&(len as u64).to_le_bytes());
}

/// A socket address as the system calls take it.
pub(super) struct RawAddr {
    storage: libc::sockaddr_storage,
    len: libc::socklen_t,
}

impl RawAddr {
    pub(super) fn inet(addr: SocketAddr) -> RawAddr {
        // SAFETY: sockaddr_storage is plain data; all zeroes is valid.
        let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let len = match addr {
            SocketAddr::V4(a) => {
                let sin = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: a.port().to_be(),
                    sin_addr: libc::in_addr {
                        s_addr: u32::from_ne_bytes(a.ip().octets()),
                    },
                    sin_zero: [0; 8],
                };
                // SAFETY: sockaddr_storage is larger than sockaddr_in and
                // aligned for it.
                unsafe { std::ptr::write((&raw mut storage).cast(), sin) };
                std::mem::size_of::<libc::sockaddr_in>()
            }
            SocketAddr::V6(a) => {
                let sin6 = libc::sockaddr_in6 {
                    sin6_family: libc::AF_INET6 as libc::sa_family_t,
                    sin6_port: a.port().to_be(),
                    sin6_flowinfo: a.flowinfo(),
                    sin6_addr: libc::in6_addr {
                        s6_addr: a.ip().octets(),
                    },
                    sin6_scope_id: a.scope_id(),
                };
                // SAFETY: as above, for sockaddr_in6.
                unsafe { std::ptr::write((&raw mut storage).cast(), sin6) };
                std::mem::size_of::<libc::sockaddr_in6>()
            }
        };
        RawAddr {
            storage,
            len: len as libc::socklen_t,
        }
    }

    /// A Unix socket's address, or None when the path does not fit.
    pub(super) fn unix(path: &str) -> Option<RawAddr> {
        // SAFETY: as above.
        let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        // SAFETY: sockaddr_storage is larger than sockaddr_un and aligned
        // for it.
        let sun = unsafe { &mut *(&raw mut storage).cast::<libc::sockaddr_un>() };
        let bytes = path.as_bytes();
        if bytes.is_empty() || bytes.len() >= sun.sun_path.len() || bytes.contains(&0) {
            return None;
        }
        sun.sun_family = libc::AF_UNIX as libc::sa_family_t;
        for (d, &s) in sun.sun_path.iter_mut().zip(bytes) {
            *d = s as libc::c_char;
        }
        let len = std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1;
        Some(RawAddr {
            storage,
            len: len as libc::socklen_t,
        })
    }

    /// An AF_VSOCK address (linux/vm_sockets.h). Its port is in host byte
    /// order, unlike an inet port, as fio sets it.
    pub(super) fn vsock(cid: u32, port: u32) -> RawAddr {
        // SAFETY: as above.
        let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        // SAFETY: sockaddr_storage is larger than sockaddr_vm and aligned
        // for it.
        let svm = unsafe { &mut *(&raw mut storage).cast::<libc::sockaddr_vm>() };
        svm.svm_family = libc::AF_VSOCK as libc::sa_family_t;
        svm.svm_port = port;
        svm.svm_cid = cid;
        RawAddr {
            storage,
            len: std::mem::size_of::<libc::sockaddr_vm>() as libc::socklen_t,
        }
    }

    /// An address the kernel wrote into `storage` (recvfrom, accept).
    pub(super) fn to_socket_addr(
        storage: &libc::sockaddr_storage,
        len: libc::socklen_t,
    ) -> Option<SocketAddr> {
        let len = len as usize;
        match libc::c_int::from(storage.ss_family) {
            libc::AF_INET if len >= std::mem::size_of::<libc::sockaddr_in>() => {
                // SAFETY: the family says the storage holds a sockaddr_in.
                let sin = unsafe { &*std::ptr::from_ref(storage).cast::<libc::sockaddr_in>() };
                let ip = std::net::Ipv4Addr::from(sin.sin_addr.s_addr.to_ne_bytes());
                Some(SocketAddr::from((ip, u16::from_be(sin.sin_port))))
            }
            libc::AF_INET6 if len >= std::mem::size_of::<libc::sockaddr_in6>() => {
                // SAFETY: the family says the storage holds a sockaddr_in6.
                let sin6 = unsafe { &*std::ptr::from_ref(storage).cast::<libc::sockaddr_in6>() };
                let ip = std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr);
                Some(SocketAddr::from((ip, u16::from_be(sin6.sin6_port))))
            }
            _ => None,
        }
    }

    pub(super) fn as_ptr(&self) -> *const libc::sockaddr {
        (&raw const self.storage).cast()
    }

    pub(super) fn len(&self) -> libc::socklen_t {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_fios_bytes() {
        // fio: htonl(0x6c696e6b), htonl(0x98) / cpu_to_le32 of both.
        assert_eq!(open_message(), [0x6c, 0x69, 0x6e, 0x6b, 0, 0, 0, 0x98]);
        assert_eq!(close_message(), [0x6b, 0x6e, 0x69, 0x6c, 0x89, 0, 0, 0]);
        assert!(is_open_message(&open_message()));
        assert!(!is_open_message(&close_message()));
        assert!(is_close_message(&close_message()));
        assert!(!is_close_message(&close_message()[..7]));
    }

    #[test]
    fn the_sequence_record_ends_the_datagram() {
        let mut d = vec![0xaa; 64];
        store_udp_seq(&mut d, 7);
        assert!(d[..40].iter().all(|&b| b == 0xaa));
        assert_eq!(&d[40..48], &UDP_SEQ_MAGIC.to_le_bytes());
        assert_eq!(&d[48..56], &7u64.to_le_bytes());
        assert_eq!(&d[56..], &64u64.to_le_bytes());
        let mut short = vec![1; 20];
        store_udp_seq(&mut short, 1);
        assert_eq!(short, vec![1; 20]);
    }

    #[test]
    fn addresses_round_trip() {
        for a in ["127.0.0.1:8888", "[::1]:9"] {
            let addr: SocketAddr = a.parse().unwrap();
            let raw = RawAddr::inet(addr);
            assert_eq!(RawAddr::to_socket_addr(&raw.storage, raw.len), Some(addr));
        }
        let u = RawAddr::unix("/tmp/x.sock").unwrap();
        assert_eq!(u.len() as usize, 2 + 11 + 1);
        assert!(RawAddr::unix("").is_none());
        assert!(RawAddr::unix(&"x".repeat(200)).is_none());
    }

    #[test]
    fn a_vsock_address_is_the_kernels_sockaddr_vm() {
        let a = RawAddr::vsock(libc::VMADDR_CID_LOCAL, 5000);
        assert_eq!(a.len(), 16);
        // SAFETY: the first 16 bytes of the storage, all written.
        let bytes = unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), 16) };
        let family = (libc::AF_VSOCK as u16).to_ne_bytes();
        let mut want = vec![family[0], family[1], 0, 0];
        want.extend(5000u32.to_ne_bytes());
        want.extend(1u32.to_ne_bytes());
        want.extend([0; 4]);
        assert_eq!(bytes, want);
        // Not an inet address: nothing for a UDP peer.
        assert_eq!(RawAddr::to_socket_addr(&a.storage, a.len), None);
    }
}
