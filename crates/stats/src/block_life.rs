//! fio's `block_error_percentiles`: for each trim-sized block of a job's
//! one file, how many times it was trimmed and whether a trim or a write
//! to it failed (fio's `block_infos`, stat.h), and the percentiles of the
//! trim counts that fio prints as "block lifetime percentiles".
//!
//! Each block is one `u32` as in fio: the state in the top three bits, the
//! trims below. fio sorts these words with a comparator that reads them as
//! 64-bit values (fio 3.33 to 3.42 abort on an assertion there unless the
//! neighbouring word happens to be zero); ioscope compares them as the
//! 32-bit words they are, which is what fio's comparator means.

/// fio's MAX_NR_BLOCK_INFOS: the most blocks a job may track.
pub const MAX_BLOCKS: u64 = 8192;

const STATE_SHIFT: u32 = 29;
const TRIMS_MASK: u32 = (1 << STATE_SHIFT) - 1;

// fio's `enum block_info_state` values that fio sets: 0 is a block not
// touched yet, 2 ("written") is named in its output but never set.
const TRIMMED: u32 = 1;
const TRIM_FAILURE: u32 = 3;
const WRITE_FAILURE: u32 = 4;

/// The names fio prints for the states, in state order.
pub const STATE_NAMES: [&str; 5] = [
    "unwritten",
    "trimmed",
    "written",
    "trim failure",
    "write failure",
];

/// The blocks of one job's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLife {
    infos: Vec<u32>,
    /// Where the tracked region starts in the file (fio's file_offset).
    start: u64,
    /// The trim block size (fio's `bs[DDIR_TRIM]`).
    bs: u64,
}

impl BlockLife {
    /// The region `start..start + len` of the file in blocks of `bs`;
    /// fio's refusal (its words) when that is none or more than
    /// `MAX_BLOCKS` (8192).
    pub fn new(start: u64, len: u64, bs: u64) -> Result<BlockLife, String> {
        let n = len.checked_div(bs).unwrap_or(0);
        if n == 0 || n > MAX_BLOCKS {
            // fio prints the count as an int.
            return Err(format!(
                "cannot calculate block histogram with {} trim blocks, maximum {MAX_BLOCKS}",
                n as i32
            ));
        }
        Ok(BlockLife {
            infos: vec![0; n as usize],
            start,
            bs,
        })
    }

    fn info(&mut self, offset: u64) -> Option<&mut u32> {
        let idx = offset.checked_sub(self.start)? / self.bs;
        self.infos.get_mut(usize::try_from(idx).ok()?)
    }

    /// A trim at `offset` completed (fio's trim_block_info): one more trim
    /// for its block, unless a failure is recorded there.
    pub fn trimmed(&mut self, offset: u64) {
        if let Some(info) = self.info(offset) {
            if *info >> STATE_SHIFT < TRIM_FAILURE {
                let trims = (*info & TRIMS_MASK) + 1;
                *info = TRIMMED << STATE_SHIFT | (trims & TRIMS_MASK);
            }
        }
    }

    /// A write at `offset` failed where fio unlogs its piece (a failed
    /// write of a verifying job, or a synchronous write that moved
    /// nothing): the block's state says so, its trims stay. (fio records a
    /// trim failure only where a synchronous trim moves nothing, which its
    /// trims never report, or where an engine answers busy, which
    /// ioscope's never do.)
    pub fn write_failed(&mut self, offset: u64) {
        if let Some(info) = self.info(offset) {
            if *info >> STATE_SHIFT < TRIM_FAILURE {
                *info = WRITE_FAILURE << STATE_SHIFT | (*info & TRIMS_MASK);
            }
        }
    }

    /// fio's calc_block_percentiles over `list` (the job's percentile
    /// list, sorted): the trim count at each percentile of the blocks
    /// that left their first state, failed ones last. None when no block
    /// did (fio then prints no percentiles, and no JSON object at all).
    pub fn percentiles(&self, list: &[f64]) -> Option<Vec<(f64, u32)>> {
        let mut sorted = self.infos.clone();
        sorted.sort_by_key(|&w| {
            let state = w >> STATE_SHIFT;
            // fio's block_state_category: untouched, fine, failed.
            let category = match state {
                0 => 0,
                1 | 2 => 1,
                _ => 2,
            };
            (category, w & TRIMS_MASK, state)
        });
        let uninit = sorted.iter().take_while(|&&w| w == 0).count();
        let n = sorted.len();
        if list.is_empty() || uninit == n {
            return None;
        }
        let values = list
            .iter()
            .map(|&p| {
                // fio truncates the double; 100% would index one past the
                // end there, the last block here.
                let idx = (p * (n - uninit) as f64 / 100.0) as usize + uninit;
                (p, sorted[idx.min(n - 1)] & TRIMS_MASK)
            })
            .collect();
        Some(values)
    }

    /// How many blocks are in each state, in the order of fio's state names.
    pub fn states(&self) -> [u64; 5] {
        let mut states = [0u64; 5];
        for w in &self.infos {
            states[(w >> STATE_SHIFT) as usize] += 1;
        }
        states
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_trims_per_block_and_keeps_failures() {
        let mut b = BlockLife::new(8192, 4 * 4096, 4096).unwrap();
        // Block 0 trimmed three times, block 1 once, block 3 trimmed and
        // then failed a write; block 2 never touched.
        for off in [8192, 8192, 8192 + 4096, 8192, 8192 + 3 * 4096] {
            b.trimmed(off);
        }
        b.write_failed(8192 + 3 * 4096);
        // A failure sticks: trims after it are not counted.
        b.trimmed(8192 + 3 * 4096);
        // Offsets outside the region are ignored, as is a short tail.
        b.trimmed(0);
        b.trimmed(8192 + 4 * 4096);
        let p = b.percentiles(&[1.0, 50.0, 60.0, 99.0, 100.0]).unwrap();
        assert_eq!(b.states(), [1, 2, 0, 0, 1]);
        // Sorted: trimmed 1, trimmed 3, then the failed block (1 trim).
        // idx = p * 3 / 100 + 1 (one untouched block first).
        assert_eq!(
            p,
            vec![(1.0, 1), (50.0, 3), (60.0, 3), (99.0, 1), (100.0, 1)]
        );
    }

    #[test]
    fn nothing_trimmed_prints_no_percentiles() {
        let b = BlockLife::new(0, 8 * 512, 512).unwrap();
        assert_eq!(b.percentiles(&[50.0]), None);
        assert_eq!(b.states(), [8, 0, 0, 0, 0]);
    }

    #[test]
    fn refuses_no_blocks_and_too_many_as_fio_does() {
        let err = BlockLife::new(0, 8193 * 4096, 4096).unwrap_err();
        assert_eq!(
            err,
            "cannot calculate block histogram with 8193 trim blocks, maximum 8192"
        );
        assert!(BlockLife::new(0, 4095, 4096).is_err());
        assert!(BlockLife::new(0, 8192 * 4096, 4096).is_ok());
    }
}
