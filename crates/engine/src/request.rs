//! The plain data that crosses the queue boundary.

/// What a request asks the target to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    /// Flush the file's data (fsync; NVMe Flush). Carries no buffer.
    Fsync,
    /// Zero the range without sending data (NVMe Write Zeroes); `deac` asks
    /// the device to deallocate the blocks instead where that reads back as
    /// zeroes. Carries no buffer.
    WriteZeroes {
        deac: bool,
    },
    /// Deallocate the range (NVMe Dataset Management with the deallocate
    /// attribute; a discard). Carries no user data.
    Trim,
}

impl Op {
    /// True when the request moves data through its slot's buffer, so the
    /// caller has to fill the buffer before a write or may read it after a
    /// read. Commands without data must not cost a buffer fill.
    #[inline]
    pub fn carries_data(self) -> bool {
        matches!(self, Op::Read | Op::Write)
    }

    /// True for the commands that change the target's contents.
    #[inline]
    pub fn modifies(self) -> bool {
        matches!(self, Op::Write | Op::WriteZeroes { .. } | Op::Trim)
    }

    /// fio's name for the direction or command.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Fsync => "sync",
            Op::WriteZeroes { .. } => "write zeroes",
            Op::Trim => "trim",
        }
    }
}

/// One I/O handed to a queue.
///
/// `slot` names both the buffer the data lives in and the request while it is
/// in flight: the queue hands it back in the matching [`Completion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    /// Index into the targets the queue was opened with.
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub slot: u32,
}

/// The outcome of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    /// Bytes transferred (for commands without data, the bytes the command
    /// covered), or a negative error: -errno, or for a command the NVMe
    /// device failed, -([`NVME_STATUS_BIAS`] + status); see
    /// [`describe_error`].
    pub result: i64,
}

/// Added to an NVMe status so that a failed command's negative result
/// cannot be mistaken for an errno (which is below 4096).
pub const NVME_STATUS_BIAS: i64 = 0x1_0000;

/// Says what a negated [`Completion::result`] means: an errno's text, or
/// the NVMe status by name.
pub fn describe_error(error: i64) -> String {
    if error >= NVME_STATUS_BIAS {
        crate::nvme::Status((error - NVME_STATUS_BIAS) as u16).to_string()
    } else {
        std::io::Error::from_raw_os_error(error as i32).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_errnos_or_named_nvme_statuses() {
        assert!(describe_error(i64::from(libc::EIO)).contains("Input/output error"));
        assert!(describe_error(NVME_STATUS_BIAS + 0x4001).starts_with("Invalid Command Opcode"));
        assert!(!Op::WriteZeroes { deac: true }.carries_data());
        assert!(!Op::Trim.carries_data() && Op::Trim.modifies());
    }
}
