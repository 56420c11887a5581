//! What a verify header says: which write an interval holds. ioscope
//! writes fio 3.42's `struct verify_header` (`fio_header`) followed by
//! fio's checksum of the interval's data (`fio_sums`), so that fio checks
//! the blocks ioscope wrote and ioscope those fio wrote; a header of either
//! reads into a [`Header`].

use ioscope_job::VerifyMethod;

use super::{fio_header, fio_sums};

/// The code a header carries for a method: fio's verify_type, crc32c-intel
/// written as crc32c (fio gives both VERIFY_CRC32C).
pub fn code(method: VerifyMethod) -> u8 {
    fio_header::verify_type(match method {
        VerifyMethod::Crc32cIntel => VerifyMethod::Crc32c,
        m => m,
    })
}

/// fio's name of the method a code stands for.
pub fn method_name(code: u8) -> &'static str {
    fio_header::method_of_type(code).map_or("unknown", |m| m.name())
}

/// The header's length with the checksum after it: fio's `hdr_size`, the
/// bytes of each interval that are not data.
pub fn len(method: VerifyMethod) -> usize {
    fio_header::LEN + fio_sums::len(method)
}

/// What a header says, less the data checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// See [`code`].
    pub method: u8,
    /// See [`len`].
    pub len: u16,
    pub interval: u32,
    /// The file offset of the interval.
    pub offset: u64,
    /// The write number, from 1 (fio's numberio + 1).
    pub seq: u64,
    /// fio's rand_seed: ioscope's seed of the worker and file whose random
    /// data the interval holds (0 with verify_pattern, as fio's).
    pub seed: u64,
}

impl Header {
    /// Whether `other` comes from the same job, run and file: the same
    /// method, interval and seed. Any other header is foreign.
    pub fn same_job(&self, other: &Header) -> bool {
        self.method == other.method
            && self.len == other.len
            && self.interval == other.interval
            && self.seed == other.seed
    }
}
