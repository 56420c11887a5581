//! fio's client/server protocol as both ends use it: the framing of its
//! commands and the addresses `--server` and `--client` take.

pub mod address;
pub mod wire;
