//! fio's stored compressed logs (`log_store_compressed`, `.log.fz`): zlib
//! streams one after another, each holding whole samples in fio 3.33's
//! in-memory layout (iolog.h `struct io_sample`, native byte order):
//!
//! `time u64, value u64, ddir u32, priority u16, (2 bytes padding), bs u64`
//!
//! then `offset u64` when the ddir word has LOG_OFFSET_SAMPLE_BIT; the
//! LOG_PRIO_SAMPLE_BIT says the priority is printed in hexadecimal. `fio
//! --inflate-log` prints them as its text logs; so does [`inflate_log`].

use std::io::{self, Write};

use flate2::write::ZlibEncoder;
use flate2::{Compression, Decompress, FlushDecompress, Status};

use crate::log_lines::Sample;

const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
/// A sample without and with its offset.
const SAMPLE: usize = 32;
const SAMPLE_OFFSET: usize = 40;

/// Appends `s` to `out` as fio 3.33 keeps it in memory.
pub(crate) fn pack(out: &mut Vec<u8>, s: &Sample, time_ms: u64, offset: bool, prio: bool) {
    let mut ddir = u32::from(s.dir);
    if offset {
        ddir |= OFFSET_BIT;
    }
    if prio {
        ddir |= PRIO_BIT;
    }
    out.extend_from_slice(&time_ms.to_ne_bytes());
    out.extend_from_slice(&s.value.to_ne_bytes());
    out.extend_from_slice(&ddir.to_ne_bytes());
    // The priority (u16), then the padding before bs.
    out.extend_from_slice(&s.prio.to_ne_bytes());
    out.extend_from_slice(&[0; 2]);
    out.extend_from_slice(&s.bs.to_ne_bytes());
    if offset {
        out.extend_from_slice(&s.offset.to_ne_bytes());
    }
}

/// Bytes of samples per zlib stream of a compressed log when
/// log_compression gives no size.
const STREAM_AT: usize = 1 << 20;

/// A compressed log's samples, packed and deflated a chunk at a time
/// (`log_compression`'s size; fio's chunks hold whole samples).
pub(crate) struct Streams {
    samples: Vec<u8>,
    chunk: usize,
}

impl Streams {
    /// Streams of about `chunk` bytes of samples (0: one per megabyte).
    pub fn new(chunk: usize) -> Streams {
        let chunk = if chunk == 0 { STREAM_AT } else { chunk };
        Streams {
            samples: Vec::with_capacity(chunk + 64),
            chunk,
        }
    }

    /// Adds a sample; a stream when that fills a chunk.
    pub fn push(
        &mut self,
        s: &Sample,
        time_ms: u64,
        offset: bool,
        prio: bool,
    ) -> io::Result<Option<Vec<u8>>> {
        pack(&mut self.samples, s, time_ms, offset, prio);
        if self.samples.len() >= self.chunk {
            return self.finish();
        }
        Ok(None)
    }

    /// The stream of the samples gathered since the last, if any.
    pub fn finish(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.samples.is_empty() {
            return Ok(None);
        }
        let stream = deflate(&self.samples)?;
        self.samples.clear();
        Ok(Some(stream))
    }
}

/// One zlib stream of `samples`, as fio's gz_work makes it.
fn deflate(samples: &[u8]) -> io::Result<Vec<u8>> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    z.write_all(samples)?;
    z.finish()
}

/// The text of a compressed log: every stream inflated and its samples
/// printed as fio 3.33's `flush_samples` prints them.
pub fn inflate_log(data: &[u8]) -> Result<String, String> {
    let mut text = String::new();
    let mut rest = data;
    let mut stream = 0;
    while !rest.is_empty() {
        stream += 1;
        let (samples, used) =
            inflate_stream(rest).map_err(|e| format!("zlib stream {stream}: {e}"))?;
        print_samples(&mut text, &samples);
        rest = &rest[used..];
    }
    Ok(text)
}

/// Inflates the zlib stream at the start of `data`: its bytes, and how
/// much of `data` it took.
pub(crate) fn inflate_stream(data: &[u8]) -> Result<(Vec<u8>, usize), String> {
    match inflate(data)? {
        (out, used, true) => Ok((out, used)),
        _ => Err("the file ends inside it (truncated?)".into()),
    }
}

/// What a stream that may lack its end holds: fio 3.33's server loses
/// the last bytes of a log it deflates for sending (its final deflate
/// writes into a buffer already sent), and its client inflates what came.
pub(crate) fn inflate_unended(data: &[u8]) -> Result<Vec<u8>, String> {
    inflate(data).map(|(out, _, _)| out)
}

/// Inflates as much of the stream at the start of `data` as is there:
/// its bytes, how much of `data` it took, and whether it ended.
fn inflate(data: &[u8]) -> Result<(Vec<u8>, usize, bool), String> {
    let mut z = Decompress::new(true);
    let mut out = Vec::with_capacity(data.len() * 4);
    loop {
        let used = z.total_in() as usize;
        if out.len() == out.capacity() {
            out.reserve(out.capacity().max(4096));
        }
        let status = z
            .decompress_vec(&data[used..], &mut out, FlushDecompress::None)
            .map_err(|e| e.to_string())?;
        match status {
            Status::StreamEnd => return Ok((out, z.total_in() as usize, true)),
            _ if z.total_in() as usize == data.len() && out.len() < out.capacity() => {
                return Ok((out, data.len(), false))
            }
            _ => {}
        }
    }
}

fn word<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N].try_into().expect("N bytes")
}

fn print_samples(text: &mut String, b: &[u8]) {
    use std::fmt::Write;
    if b.len() < SAMPLE {
        return;
    }
    // fio reads the layout of a stream from its first sample.
    let first = u32::from_ne_bytes(word(b, 16));
    let (offset, prio) = (first & OFFSET_BIT != 0, first & PRIO_BIT != 0);
    let size = if offset { SAMPLE_OFFSET } else { SAMPLE };
    for s in b.chunks_exact(size) {
        let time = u64::from_ne_bytes(word(s, 0));
        let value = i64::from_ne_bytes(word(s, 8));
        let ddir = u32::from_ne_bytes(word(s, 16)) & !(OFFSET_BIT | PRIO_BIT);
        let priority = u16::from_ne_bytes(word(s, 20));
        let bs = u64::from_ne_bytes(word(s, 24));
        let _ = write!(text, "{time}, {value}, {ddir}, {bs}");
        if offset {
            let _ = write!(text, ", {}", u64::from_ne_bytes(word(s, 32)));
        }
        if prio {
            let _ = writeln!(text, ", 0x{priority:04x}");
        } else {
            // 1 for the real-time class (class 1 in the top three bits).
            let _ = writeln!(text, ", {}", u32::from(priority >> 13 == 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(value: u64, offset: u64) -> Sample {
        Sample {
            time_ms: 0,
            value,
            value1: 0,
            dir: 1,
            bs: 4096,
            offset,
            issue_ns: 0,
            prio: 0,
        }
    }

    #[test]
    fn packed_samples_inflate_to_fios_text() {
        let mut a = Vec::new();
        pack(&mut a, &sample(5731, 0), 7, true, false);
        pack(&mut a, &sample(161, 4096), 8, true, false);
        assert_eq!(a.len(), 80);
        let mut b = Vec::new();
        pack(&mut b, &sample(9, 0), 9, false, true);
        // Two streams, one after the other, each with its own layout.
        let mut file = deflate(&a).unwrap();
        file.extend(deflate(&b).unwrap());
        assert_eq!(
            inflate_log(&file).unwrap(),
            "7, 5731, 1, 4096, 0, 0\n8, 161, 1, 4096, 4096, 0\n9, 9, 1, 4096, 0x0000\n"
        );
    }

    #[test]
    fn a_truncated_file_is_an_error() {
        let mut a = Vec::new();
        pack(&mut a, &sample(1, 0), 1, false, false);
        let file = deflate(&a).unwrap();
        let err = inflate_log(&file[..file.len() - 4]).unwrap_err();
        assert!(err.contains("stream 1"), "{err}");
        assert!(inflate_log(b"not zlib").is_err());
    }
}
