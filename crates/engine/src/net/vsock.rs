//! fio 3.42's `protocol=vsock`: AF_VSOCK stream sockets, which join a
//! virtual machine and its host without a network between them. An end
//! is a context ID (CID) and a port: a sender's hostname is the peer's
//! CID (2 is the host, 1 this machine through the vsock_loopback
//! transport), and a receiver binds the port on any CID of its own
//! (VMADDR_CID_ANY).

use crate::error::EngineError;

/// The CID a vsock sender connects to, from its hostname: a whole number
/// other than VMADDR_CID_ANY, which names no peer. fio reads the hostname
/// with atoi, so a name or a typo there silently becomes CID 0 (the
/// hypervisor) and the job waits out a connect timeout; ioscope refuses it.
pub fn vsock_cid(host: &str) -> Result<u32, EngineError> {
    host.parse::<u32>()
        .ok()
        .filter(|&cid| cid != libc::VMADDR_CID_ANY)
        .ok_or_else(|| {
            EngineError::Setup(format!(
                "hostname={host}: protocol=vsock connects to the peer's context ID (CID), a \
                 whole number from 0 to {} (2 is the host, 1 this machine)",
                libc::VMADDR_CID_ANY - 1
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cid_is_a_whole_number() {
        assert_eq!(vsock_cid("1").unwrap(), libc::VMADDR_CID_LOCAL);
        assert_eq!(vsock_cid("2").unwrap(), libc::VMADDR_CID_HOST);
        assert_eq!(vsock_cid("4294967294").unwrap(), u32::MAX - 1);
    }

    #[test]
    fn a_name_or_a_number_out_of_range_is_refused_naming_the_option() {
        for host in ["localhost", "", "-1", "3x", "4294967295", "4294967296"] {
            let e = vsock_cid(host).unwrap_err().to_string();
            assert!(e.starts_with(&format!("hostname={host}: ")), "{e}");
            assert!(e.contains("context ID (CID)"), "{e}");
        }
    }
}
