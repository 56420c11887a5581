//! Verify: what a written block holds, and how a block read back is checked
//! and, when it is bad, diagnosed. Pure code; the runner does the I/O.
//!
//! Each interval of a block (verify_interval bytes) carries fio 3.42's
//! verify header, which names the write (offset, write number, the seed of
//! the worker and file), and after it fio's checksum of the interval's
//! data, so that fio checks what ioscope wrote and ioscope what fio wrote;
//! the data is random bytes keyed by the same write, or verify_pattern
//! (then each block is fio's, byte for byte, but the time in its header).
//! verify=pattern writes the pattern alone, verify=null random data alone. A good block costs one header read and one
//! checksum pass per interval. A bad one is compared with the bytes it should
//! hold, so the user is told what went wrong: a misdirected, stale, lost or
//! torn write, bit flips, a damaged header, or corrupt data.

mod block_id;
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
pub use corruption::{Corruption, CorruptionKind};
pub use fio_sums::{sum as fio_checksum, FioVersion};
pub use verifier::Verifier;
pub use zeroes::check_zeroes;

#[cfg(test)]
mod tests;
