//! verify_pattern laid over a block: the pattern repeated from the block's
//! first byte, with the block's offset in the eight bytes of each `%o`.

use ioscope_job::Pattern;

/// A tile holds whole repetitions of the pattern and is at least this
/// long, so that copying and comparing go a few KiB at a time rather than a
/// few bytes.
const TILE_MIN: usize = 4096;
/// fio's (and the job parser's) longest pattern.
const PATTERN_MAX: usize = 512;
/// The longest tile: whole repetitions reach `TILE_MIN` less than a
/// pattern past it.
const TILE_MAX: usize = TILE_MIN + PATTERN_MAX;

/// The pattern repeated into one tile, with where its `%o`s fall.
#[derive(Clone)]
pub struct PatternTile {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
    /// verify_pattern_interval: the pattern starts again, with the offset
    /// of that byte in its `%o`s, every this many bytes of a block; 0 lays
    /// it once from the block's start.
    restart: usize,
}

impl PatternTile {
    pub fn new(pattern: &Pattern, restart: usize) -> Result<PatternTile, String> {
        let len = pattern.bytes.len();
        if len == 0 {
            return Err("verify_pattern is empty".to_string());
        }
        if len > PATTERN_MAX {
            return Err(format!(
                "verify_pattern is {len} bytes; at most {PATTERN_MAX} are allowed"
            ));
        }
        if let Some(&o) = pattern.offsets.iter().find(|&&o| o + 8 > len) {
            return Err(format!(
                "verify_pattern has a %o at byte {o}, which does not leave the 8 bytes it needs"
            ));
        }
        let reps = TILE_MIN.div_ceil(len);
        let bytes = pattern.bytes.repeat(reps);
        let offsets = (0..reps)
            .flat_map(|r| pattern.offsets.iter().map(move |o| r * len + o))
            .collect();
        Ok(PatternTile {
            bytes,
            offsets,
            restart,
        })
    }

    /// Fills `out`, which starts at byte `pos` of the `len`-byte block at
    /// file offset `offset`, restarting the pattern every
    /// verify_pattern_interval bytes.
    pub fn fill_block(&self, mut out: &mut [u8], offset: u64, len: usize, mut pos: usize) {
        if self.restart == 0 {
            return self.at(offset, len).fill(out, pos);
        }
        while !out.is_empty() {
            let start = pos - pos % self.restart;
            let chunk = self.restart.min(len - start);
            let n = out.len().min(start + chunk - pos);
            let (now, later) = out.split_at_mut(n);
            self.at(offset + start as u64, chunk).fill(now, pos - start);
            out = later;
            pos += n;
        }
    }

    /// The pattern as the `len`-byte block at file offset `offset` holds
    /// it, to fill or check the block piece by piece.
    pub fn laid(&self, offset: u64, len: usize) -> Laid<'_> {
        match self.restart {
            0 => Laid::Once(self.at(offset, len)),
            _ => Laid::Restarting {
                tile: self,
                offset,
                len,
            },
        }
    }

    /// Whether `data`, the whole block at file offset `offset`, holds the
    /// pattern as `fill_block` lays it.
    pub fn matches_block(&self, data: &[u8], offset: u64) -> bool {
        if self.restart == 0 {
            return self.at(offset, data.len()).matches(data);
        }
        data.chunks(self.restart).enumerate().all(|(i, c)| {
            self.at(offset + (i * self.restart) as u64, c.len())
                .matches(c)
        })
    }

    /// Where the first `%o` of a block lies, if the pattern has one.
    pub fn first_offset(&self) -> Option<usize> {
        self.offsets.first().copied()
    }

    /// The tile for the block at file offset `offset`, cut to the block's
    /// `len` when shorter (a shorter block never wraps around the tile, and
    /// needs neither the copy nor the `%o`s past its end). A `%o` that the
    /// end cuts holds the offset's first bytes, as fio's paste_format
    /// spreads the pasted pattern over the block.
    pub fn at(&self, offset: u64, len: usize) -> Pasted {
        let n = self.bytes.len().min(len);
        let mut bytes = [0u8; TILE_MAX];
        bytes[..n].copy_from_slice(&self.bytes[..n]);
        let pasted = offset.to_le_bytes();
        let whole = self.offsets.partition_point(|&o| o + 8 <= n);
        for &o in &self.offsets[..whole] {
            bytes[o..o + 8].copy_from_slice(&pasted);
        }
        if let Some(&o) = self.offsets.get(whole).filter(|&&o| o < n) {
            bytes[o..n].copy_from_slice(&pasted[..n - o]);
        }
        Pasted { bytes, len: n }
    }
}

/// The pattern as one block holds it, on the stack so that filling and
/// checking allocate nothing.
pub struct Pasted {
    bytes: [u8; TILE_MAX],
    len: usize,
}

impl Pasted {
    fn tile(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Fills `out`, which starts at byte `pos` of the block.
    pub fn fill(&self, out: &mut [u8], pos: usize) {
        let tile = self.tile();
        let mut phase = pos % tile.len();
        let mut rest = out;
        while !rest.is_empty() {
            let n = rest.len().min(tile.len() - phase);
            let (now, later) = rest.split_at_mut(n);
            now.copy_from_slice(&tile[phase..phase + n]);
            rest = later;
            phase = 0;
        }
    }

    /// Whether `data`, the block from its first byte, holds the pattern.
    pub fn matches(&self, data: &[u8]) -> bool {
        let tile = self.tile();
        data.chunks(tile.len()).all(|c| c == &tile[..c.len()])
    }

    /// Whether `data`, which starts at byte `pos` of the block, holds the
    /// pattern there.
    pub fn matches_at(&self, data: &[u8], pos: usize) -> bool {
        let tile = self.tile();
        let mut phase = pos % tile.len();
        let mut rest = data;
        while !rest.is_empty() {
            let n = rest.len().min(tile.len() - phase);
            if rest[..n] != tile[phase..phase + n] {
                return false;
            }
            rest = &rest[n..];
            phase = 0;
        }
        true
    }
}

/// The pattern as one block holds it: pasted once for the whole block, or
/// again every verify_pattern_interval bytes.
// The paste stays on the stack, as `Pasted` does: no allocation per block.
#[allow(clippy::large_enum_variant)]
pub enum Laid<'a> {
    Once(Pasted),
    Restarting {
        tile: &'a PatternTile,
        offset: u64,
        len: usize,
    },
}

impl Laid<'_> {
    /// Fills `out`, which starts at byte `pos` of the block.
    pub fn fill(&self, out: &mut [u8], pos: usize) {
        match self {
            Laid::Once(p) => p.fill(out, pos),
            Laid::Restarting { tile, offset, len } => tile.fill_block(out, *offset, *len, pos),
        }
    }

    /// Whether `data`, which starts at byte `pos` of the block, holds the
    /// pattern there.
    pub fn matches_at(&self, mut data: &[u8], mut pos: usize) -> bool {
        match self {
            Laid::Once(p) => p.matches_at(data, pos),
            Laid::Restarting { tile, offset, len } => {
                let restart = tile.restart;
                while !data.is_empty() {
                    let start = pos - pos % restart;
                    let chunk = restart.min(len - start);
                    let n = data.len().min(start + chunk - pos);
                    let pasted = tile.at(offset + start as u64, chunk);
                    if !pasted.matches_at(&data[..n], pos - start) {
                        return false;
                    }
                    data = &data[n..];
                    pos += n;
                }
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(bytes: &[u8], offsets: &[usize]) -> PatternTile {
        PatternTile::new(
            &Pattern {
                bytes: bytes.to_vec(),
                offsets: offsets.to_vec(),
            },
            0,
        )
        .unwrap()
    }

    #[test]
    fn repeats_from_the_block_start_with_the_offset_pasted() {
        let t = tile(&[0xab, 0, 0, 0, 0, 0, 0, 0, 0, 0xcd], &[1]);
        let mut block = vec![0u8; 10_000];
        let p = t.at(0x1122_3344, block.len());
        p.fill(&mut block[..777], 0);
        p.fill(&mut block[777..], 777);
        for (i, rep) in block.chunks(10).enumerate() {
            let mut want = vec![0xab];
            want.extend_from_slice(&0x1122_3344u64.to_ne_bytes());
            want.push(0xcd);
            assert_eq!(rep, &want[..rep.len()], "repetition {i}");
        }
        assert!(p.matches(&block));
        block[9_999] ^= 1;
        assert!(!p.matches(&block));
    }

    #[test]
    fn short_blocks_take_what_they_need() {
        let t = tile(b"xyz", &[]);
        let mut block = [0u8; 5];
        let p = t.at(0, 5);
        p.fill(&mut block, 0);
        assert_eq!(&block, b"xyzxy");
        assert!(p.matches(&block));
        // A %o cut by the block's end holds the offset's first bytes (fio
        // 3.42 wrote them so with verify_pattern_interval=100 and a 9-byte
        // pattern: the last piece of a 4 KiB block is 96 bytes).
        let t = tile(&[0x99, 0, 0, 0, 0, 0, 0, 0, 0], &[1]);
        let mut piece = [0u8; 96];
        t.at(0xfa0, 96).fill(&mut piece, 0);
        assert_eq!(piece[90..], [0x99, 0xa0, 0x0f, 0, 0, 0]);
    }

    #[test]
    fn verify_pattern_interval_starts_the_pattern_again_with_its_offset() {
        let pattern = Pattern {
            bytes: vec![0xee, 0, 0, 0, 0, 0, 0, 0, 0],
            offsets: vec![1],
        };
        let t = PatternTile::new(&pattern, 512).unwrap();
        let mut block = vec![0u8; 2048];
        // In two pieces that split a restart, as a block is filled.
        t.fill_block(&mut block[..700], 1 << 20, 2048, 0);
        t.fill_block(&mut block[700..], 1 << 20, 2048, 700);
        for (i, chunk) in block.chunks(512).enumerate() {
            let offset = (1u64 << 20) + 512 * i as u64;
            assert_eq!(chunk[0], 0xee, "chunk {i}");
            assert_eq!(chunk[1..9], offset.to_ne_bytes(), "chunk {i}");
            // The repetition that straddles nothing: 512 = 56 * 9 + 8.
            assert_eq!(chunk[504], 0xee, "chunk {i}");
        }
        assert!(t.matches_block(&block, 1 << 20));
        assert!(!t.matches_block(&block, 2 << 20));
        let once = PatternTile::new(&pattern, 0).unwrap();
        assert!(!once.matches_block(&block, 1 << 20));
    }

    #[test]
    fn a_piece_of_a_block_checks_against_its_place_in_it() {
        let pattern = Pattern {
            bytes: vec![0xee, 0, 0, 0, 0, 0, 0, 0, 0, 0x17],
            offsets: vec![1],
        };
        for restart in [0, 512] {
            let t = PatternTile::new(&pattern, restart).unwrap();
            let mut block = vec![0u8; 2048];
            t.fill_block(&mut block, 4096, 2048, 0);
            let laid = t.laid(4096, 2048);
            let mut again = vec![0u8; 2048];
            laid.fill(&mut again[..333], 0);
            laid.fill(&mut again[333..], 333);
            assert_eq!(again, block, "restart {restart}");
            for (from, to) in [(0, 2048), (48, 512), (500, 1100), (1031, 2048)] {
                assert!(
                    laid.matches_at(&block[from..to], from),
                    "{restart} {from}..{to}"
                );
                assert!(
                    !laid.matches_at(&block[from..to], from + 1),
                    "{restart} {from}..{to}"
                );
            }
            let mut bad = block.clone();
            bad[1500] ^= 1;
            assert!(!laid.matches_at(&bad[1024..], 1024));
            assert!(laid.matches_at(&bad[..1500], 0));
        }
    }

    #[test]
    fn refuses_patterns_it_cannot_lay() {
        let new = |bytes: Vec<u8>, offsets| PatternTile::new(&Pattern { bytes, offsets }, 0).err();
        assert!(new(vec![], vec![]).unwrap().contains("empty"));
        assert!(new(vec![0; 513], vec![]).unwrap().contains("at most 512"));
        assert!(new(vec![0; 9], vec![2]).unwrap().contains("%o at byte 2"));
    }
}
