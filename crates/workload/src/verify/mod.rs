//! Verify: what a written block holds, and how a block read back is checked
//! and, when it is bad, diagnosed. Pure code; the runner does the I/O.
//!
//! Each interval of a block (verify_interval bytes) carries a header that
//! names the write (file, offset, write number, the job's seed) and the
//! checksum of the interval's data; the data is random bytes keyed by the
//! same write, or verify_pattern. verify=pattern_hdr writes fio's own
//! header and verify_pattern around it, byte for byte as fio 3.42 does;
//! verify=pattern writes the pattern alone. A good block costs one header read and one
//! checksum pass per interval. A bad one is compared with the bytes it should
//! hold, so the user is told what went wrong: a misdirected, stale, lost or
//! torn write, bit flips, a damaged header, or corrupt data.

mod block_id;
mod checksum;
mod corruption;
mod diagnosis;
mod fio_header;
mod fio_sums;
mod fio_written;
mod header;
mod md5;
mod pattern;
mod read_back;
mod stream;
mod verifier;
mod zeroes;

pub use block_id::BlockId;
pub use checksum::{len as checksum_len, Checksum};
pub use corruption::{Corruption, CorruptionKind};
pub use verifier::Verifier;
pub use zeroes::check_zeroes;

#[cfg(test)]
mod tests;
