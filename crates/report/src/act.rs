//! fio's act profile's table (profiles/act.c `act_show_all_stats`): for
//! each hour-long slice, the share of I/Os over each latency limit, then
//! the verdict. fio prints the same shares under "trans" and "device".

use std::fmt::Write;

use ioscope_stats::{ActSlice, ACT_CRITERIA};

/// The table of `slices` (summed over every worker), as fio prints it
/// once the last job is done.
pub fn act_table(slices: &[ActSlice]) -> String {
    let mut s = String::from(
        "        trans                   device\n        %>(ms)                  %>(ms)\n slice",
    );
    for _ in 0..2 {
        for (max_us, _) in ACT_CRITERIA {
            let _ = write!(s, "\t {:2}", max_us / 1000);
        }
    }
    s.push_str("\n -----  -----   -----  ------   -----   -----  ------\n");
    let mut fails = 0;
    for (n, slice) in slices.iter().enumerate() {
        let _ = write!(s, "   {:2}", n + 1);
        fails += (0..ACT_CRITERIA.len()).filter(|&i| slice.fails(i)).count();
        for _ in 0..2 {
            for i in 0..ACT_CRITERIA.len() {
                let _ = write!(s, "\t{:2.2}", slice.percent(i));
            }
        }
        s.push('\n');
    }
    let verdict = if fails > 0 { "FAILED" } else { "PASSED" };
    let _ = writeln!(s, "\nact: test complete, device(s): {verdict}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_fios() {
        let passed = [ActSlice::default()];
        assert_eq!(
            act_table(&passed),
            "        trans                   device\n        %>(ms)                  %>(ms)\n \
             slice\t  1\t  8\t 64\t  1\t  8\t 64\n \
             -----  -----   -----  ------   -----   -----  ------\n    \
             1\t0.00\t0.00\t0.00\t0.00\t0.00\t0.00\n\nact: test complete, device(s): PASSED\n"
        );
        // 1% over 8 ms fails (the limit is 1%); 2% over 1 ms passes.
        let failed = [
            passed[0],
            ActSlice {
                over: [2, 1, 0],
                total: 100,
            },
        ];
        let t = act_table(&failed);
        assert!(
            t.contains("\n    2\t2.00\t1.00\t0.00\t2.00\t1.00\t0.00\n"),
            "{t}"
        );
        assert!(t.ends_with("device(s): FAILED\n"), "{t}");
    }
}
