//! Helpers for ioscope's tests, shared by every crate's test suite.

mod zram;

pub use zram::Zram;
