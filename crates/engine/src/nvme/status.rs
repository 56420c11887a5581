//! Completion status of a passthrough command.
//!
//! A uring_cmd CQE's result (and an NVMe ioctl's return value) is one of
//! three things: 0 for success, -errno when the kernel failed the command
//! before or instead of the device, or a positive NVMe status field as the
//! driver keeps it (completion dword 3 bits 31:17, the phase bit shifted
//! out): status code in bits 7:0, status code type in 10:8, retry delay in
//! 12:11, More in 13, Do Not Retry in 14.

use std::fmt;

/// How a passthrough command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// The kernel's error (positive errno).
    Errno(i32),
    /// The device's error.
    Nvme(Status),
}

impl Outcome {
    /// Decodes a CQE result or an ioctl return value.
    pub fn from_result(res: i64) -> Outcome {
        match res {
            0 => Outcome::Success,
            r if r < 0 => Outcome::Errno((-r) as i32),
            r => Outcome::Nvme(Status(r as u16)),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Success => f.write_str("success"),
            Outcome::Errno(e) => write!(f, "{}", std::io::Error::from_raw_os_error(*e)),
            Outcome::Nvme(s) => write!(f, "{s}"),
        }
    }
}

/// The NVMe status field as the Linux driver reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status(pub u16);

impl Status {
    /// Status Code Type.
    pub fn code_type(self) -> u8 {
        ((self.0 >> 8) & 0x7) as u8
    }

    /// Status Code.
    pub fn code(self) -> u8 {
        self.0 as u8
    }

    /// Do Not Retry: the same command will fail again.
    pub fn do_not_retry(self) -> bool {
        self.0 & (1 << 14) != 0
    }

    /// Compare Failure (Media and Data Integrity Errors, 0x85): a Compare
    /// found the blocks different from its buffer.
    pub fn is_compare_failure(self) -> bool {
        (self.code_type(), self.code()) == (2, 0x85)
    }

    pub fn code_type_name(self) -> &'static str {
        match self.code_type() {
            0 => "Generic Command Status",
            1 => "Command Specific Status",
            2 => "Media and Data Integrity Errors",
            3 => "Path Related Status",
            7 => "Vendor Specific",
            _ => "Reserved",
        }
    }

    /// The specification's name for the status, or `None` for a code this
    /// table does not know.
    pub fn name(self) -> Option<&'static str> {
        let name = match (self.code_type(), self.code()) {
            (0, 0x00) => "Successful Completion",
            (0, 0x01) => "Invalid Command Opcode",
            (0, 0x02) => "Invalid Field in Command",
            (0, 0x03) => "Command ID Conflict",
            (0, 0x04) => "Data Transfer Error",
            (0, 0x05) => "Commands Aborted due to Power Loss Notification",
            (0, 0x06) => "Internal Error",
            (0, 0x07) => "Command Abort Requested",
            (0, 0x08) => "Command Aborted due to SQ Deletion",
            (0, 0x09) => "Command Aborted due to Failed Fused Command",
            (0, 0x0a) => "Command Aborted due to Missing Fused Command",
            (0, 0x0b) => "Invalid Namespace or Format",
            (0, 0x0c) => "Command Sequence Error",
            (0, 0x0d) => "Invalid SGL Segment Descriptor",
            (0, 0x0e) => "Invalid Number of SGL Descriptors",
            (0, 0x0f) => "Data SGL Length Invalid",
            (0, 0x13) => "PRP Offset Invalid",
            (0, 0x15) => "Operation Denied",
            (0, 0x1d) => "Sanitize In Progress",
            (0, 0x20) => "Namespace is Write Protected",
            (0, 0x21) => "Command Interrupted",
            (0, 0x22) => "Transient Transport Error",
            (0, 0x80) => "LBA Out of Range",
            (0, 0x81) => "Capacity Exceeded",
            (0, 0x82) => "Namespace Not Ready",
            (0, 0x83) => "Reservation Conflict",
            (0, 0x84) => "Format In Progress",
            (1, 0x80) => "Conflicting Attributes",
            (1, 0x81) => "Invalid Protection Information",
            (1, 0x82) => "Attempted Write to Read Only Range",
            (1, 0x83) => "Command Size Limit Exceeded",
            (2, 0x80) => "Write Fault",
            (2, 0x81) => "Unrecovered Read Error",
            (2, 0x82) => "End-to-end Guard Check Error",
            (2, 0x83) => "End-to-end Application Tag Check Error",
            (2, 0x84) => "End-to-end Reference Tag Check Error",
            (2, 0x85) => "Compare Failure",
            (2, 0x86) => "Access Denied",
            (2, 0x87) => "Deallocated or Unwritten Logical Block",
            (3, 0x00) => "Internal Path Error",
            (3, 0x01) => "Asymmetric Access Persistent Loss",
            (3, 0x02) => "Asymmetric Access Inaccessible",
            (3, 0x03) => "Asymmetric Access Transition",
            _ => return None,
        };
        Some(name)
    }
}

impl fmt::Display for Status {
    /// "Invalid Command Opcode (sct 0x0, sc 0x01, DNR)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name)?,
            None => write!(f, "{} status", self.code_type_name())?,
        }
        write!(
            f,
            " (NVMe status: sct {:#x}, sc {:#04x}{})",
            self.code_type(),
            self.code(),
            if self.do_not_retry() { ", DNR" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_split_into_success_errno_and_nvme_status() {
        assert_eq!(Outcome::from_result(0), Outcome::Success);
        assert_eq!(Outcome::from_result(-5), Outcome::Errno(libc::EIO));
        // Invalid Field in Command with DNR, as QEMU answers an unknown bit.
        assert_eq!(Outcome::from_result(0x4002), Outcome::Nvme(Status(0x4002)));
    }

    #[test]
    fn status_fields_and_names() {
        let s = Status(0x4001);
        assert_eq!((s.code_type(), s.code(), s.do_not_retry()), (0, 1, true));
        assert_eq!(s.name(), Some("Invalid Command Opcode"));
        assert_eq!(
            s.to_string(),
            "Invalid Command Opcode (NVMe status: sct 0x0, sc 0x01, DNR)"
        );
        assert_eq!(Status(0x0002).name(), Some("Invalid Field in Command"));
        assert_eq!(Status(0x0080).name(), Some("LBA Out of Range"));
        assert_eq!(Status(0x0281).name(), Some("Unrecovered Read Error"));
        assert_eq!(Status(0x0185).name(), None);
        // With or without DNR and More; not the same code of another type.
        assert!(Status(0x0285).is_compare_failure() && Status(0x6285).is_compare_failure());
        assert!(!Status(0x0185).is_compare_failure() && !Status(0x0281).is_compare_failure());
        assert_eq!(
            Status(0x4285).to_string(),
            "Compare Failure (NVMe status: sct 0x2, sc 0x85, DNR)"
        );
        assert_eq!(
            Status(0x0185).to_string(),
            "Command Specific Status status (NVMe status: sct 0x1, sc 0x85)"
        );
    }
}
