//! The plain data that crosses the queue boundary.

/// What a request asks the target to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    /// Flush the file's data (fsync; NVMe Flush). Carries no buffer.
    Fsync,
    /// Flush the file's data and only the metadata needed to read it back
    /// (fdatasync; NVMe Flush, which has no lighter form). Carries no
    /// buffer. Only some backends take it: ask [`crate::Backend::supports`].
    Fdatasync,
    /// sync_file_range(2) of `offset..offset + len` with `flags` (its
    /// SYNC_FILE_RANGE_* bits). `len` 0 is a range with nothing to sync:
    /// it completes at once without a call, as fio's. Carries no buffer. Only some backends take it: ask
    /// [`crate::Backend::supports`].
    SyncFileRange {
        flags: u32,
    },
    /// Zero the range without sending data (NVMe Write Zeroes); `deac` asks
    /// the device to deallocate the blocks instead where that reads back as
    /// zeroes. Carries no buffer.
    WriteZeroes {
        deac: bool,
    },
    /// Mark the range unreadable without sending data (NVMe Write
    /// Uncorrectable): reads of it fail until it is written again. Carries
    /// no buffer.
    WriteUncorrectable,
    /// Have the device check that the range can be read, moving no data
    /// and changing nothing (NVMe Verify). fio counts it as a write, as it
    /// is what `write_mode=verify` makes of one. Carries no buffer.
    DeviceVerify,
    /// Deallocate the range (NVMe Dataset Management with the deallocate
    /// attribute; a discard). Carries no user data.
    Trim,
    /// Deallocate `count` ranges (1..=[`MAX_TRIM_RANGES`]) with one
    /// command (fio's `num_range`): one NVMe Dataset Management carrying
    /// them all. The caller lays the ranges in the slot's buffer with
    /// [`TrimRange::store`] before submitting; the request's `offset` is the
    /// first range's and its `len` the ranges' total, which is also what
    /// the completion reports. The queue may rewrite the buffer into the
    /// device's own range list, so its contents are unspecified once the
    /// request is submitted. Only some backends take it: ask
    /// [`crate::Backend::supports`].
    TrimRanges {
        count: u16,
    },
}

impl Op {
    /// True when the request moves data through its slot's buffer, so the
    /// caller has to fill the buffer before a write or may read it after a
    /// read. Commands without data must not cost a buffer fill.
    #[inline]
    pub fn carries_data(self) -> bool {
        matches!(self, Op::Read | Op::Write)
    }

    /// True for the flushes: fsync, fdatasync, sync_file_range.
    #[inline]
    pub fn is_sync(self) -> bool {
        matches!(self, Op::Fsync | Op::Fdatasync | Op::SyncFileRange { .. })
    }

    /// True for the commands that change the target's contents.
    #[inline]
    pub fn modifies(self) -> bool {
        matches!(
            self,
            Op::Write
                | Op::WriteZeroes { .. }
                | Op::WriteUncorrectable
                | Op::Trim
                | Op::TrimRanges { .. }
        )
    }

    /// fio's data direction of the request (`enum fio_ddir`): read 0,
    /// write 1, trim 2, sync 3, datasync 4, sync_file_range 5. The commands
    /// without data that `write_mode` makes of a write are writes to fio.
    #[inline]
    pub fn fio_ddir(self) -> u8 {
        match self {
            Op::Read => 0,
            Op::Write | Op::WriteZeroes { .. } | Op::WriteUncorrectable | Op::DeviceVerify => 1,
            Op::Trim | Op::TrimRanges { .. } => 2,
            Op::Fsync => 3,
            Op::Fdatasync => 4,
            Op::SyncFileRange { .. } => 5,
        }
    }

    /// fio's name for the direction or command.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Fsync => "sync",
            Op::Fdatasync => "datasync",
            Op::SyncFileRange { .. } => "sync_file_range",
            Op::WriteZeroes { .. } => "write zeroes",
            Op::WriteUncorrectable => "write uncorrectable",
            Op::DeviceVerify => "verify",
            Op::Trim | Op::TrimRanges { .. } => "trim",
        }
    }
}

/// The most ranges one [`Op::TrimRanges`] request may carry: NVMe Dataset
/// Management counts its ranges in 8 bits, 0-based.
pub const MAX_TRIM_RANGES: u16 = 256;

/// One range of an [`Op::TrimRanges`] request, in bytes.
///
/// In the slot's buffer the ranges lie one after another,
/// [`TrimRange::BYTES`] each: the offset (u64), the length (u32) and 4
/// bytes left zero, in native byte order. The entry is as long as an NVMe
/// Dataset Management range, so a queue can turn the list into the
/// device's in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimRange {
    pub offset: u64,
    pub len: u32,
}

impl TrimRange {
    /// Bytes one range takes in the buffer.
    pub const BYTES: usize = 16;

    /// Writes the range as entry `index` of `buf`.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than `(index + 1) * BYTES`.
    #[inline]
    pub fn store(self, buf: &mut [u8], index: usize) {
        let entry = &mut buf[index * Self::BYTES..(index + 1) * Self::BYTES];
        entry[..8].copy_from_slice(&self.offset.to_ne_bytes());
        entry[8..12].copy_from_slice(&self.len.to_ne_bytes());
        entry[12..].fill(0);
    }

    /// Reads entry `index` of `buf`.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than `(index + 1) * BYTES`.
    #[inline]
    pub fn load(buf: &[u8], index: usize) -> TrimRange {
        let entry = &buf[index * Self::BYTES..(index + 1) * Self::BYTES];
        TrimRange {
            offset: u64::from_ne_bytes(entry[..8].try_into().expect("8 bytes")),
            len: u32::from_ne_bytes(entry[8..12].try_into().expect("4 bytes")),
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

/// Added to a [`crate::nvme::pi::Mismatch`] code: the host's check of the
/// protection information a read brought back failed.
pub const PI_CHECK_BIAS: i64 = 0x2_0000;

/// Says what a negated [`Completion::result`] means: an errno's text, the
/// NVMe status by name, or the protection information field the host's
/// check found wrong.
pub fn describe_error(error: i64) -> String {
    if let Some(m) = crate::nvme::pi::Mismatch::from_code(error - PI_CHECK_BIAS) {
        format!(
            "{} compare error: the protection information read back does not match its data",
            m.name()
        )
    } else if error >= NVME_STATUS_BIAS {
        crate::nvme::Status((error - NVME_STATUS_BIAS) as u16).to_string()
    } else {
        std::io::Error::from_raw_os_error(error as i32).to_string()
    }
}

/// A request a queue cannot carry out: a bug in the caller, reported rather
/// than turned into I/O on memory or descriptors the queue does not own.
#[cold]
pub(crate) fn bad_request(req: &Request, why: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("request {req:?} {why}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_errnos_or_named_nvme_statuses() {
        assert!(describe_error(i64::from(libc::EIO)).contains("Input/output error"));
        assert!(describe_error(NVME_STATUS_BIAS + 0x4001).starts_with("Invalid Command Opcode"));
        assert!(!Op::WriteZeroes { deac: true }.carries_data());
        assert!(!Op::WriteUncorrectable.carries_data() && Op::WriteUncorrectable.modifies());
        assert!(!Op::DeviceVerify.carries_data() && !Op::DeviceVerify.modifies());
        assert!(!Op::Trim.carries_data() && Op::Trim.modifies());
        let ranges = Op::TrimRanges { count: 8 };
        assert!(!ranges.carries_data() && ranges.modifies());
        assert_eq!(ranges.name(), "trim");
    }

    #[test]
    fn trim_ranges_lie_16_bytes_apart_in_the_buffer() {
        let mut buf = [0xffu8; 48];
        let a = TrimRange {
            offset: 0x1_0000_2000,
            len: 4096,
        };
        let b = TrimRange {
            offset: 8192,
            len: 0x10_0000,
        };
        a.store(&mut buf, 0);
        b.store(&mut buf, 2);
        assert_eq!(&buf[..8], &0x1_0000_2000u64.to_ne_bytes());
        assert_eq!(&buf[8..12], &4096u32.to_ne_bytes());
        assert_eq!(&buf[12..16], &[0; 4], "the reserved bytes are zeroed");
        assert!(buf[16..32].iter().all(|&x| x == 0xff), "entry 1 untouched");
        assert_eq!(TrimRange::load(&buf, 0), a);
        assert_eq!(TrimRange::load(&buf, 2), b);
    }
}
