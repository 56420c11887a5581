//! fio's report of `block_error_percentiles`: the trim count of the job's
//! blocks at each percentile, and how many blocks are in each state
//! (stat.c's show_block_infos and its JSON `block` object).

use ioscope_stats::{JobResult, BLOCK_STATE_NAMES};
use serde_json::{Map, Value};

use crate::cfmt::fixed;
use crate::percentiles;

/// fio's LINE_LENGTH: a percentile that would take a line past it starts
/// the next.
const LINE_LENGTH: usize = 75;

fn percentiles(job: &JobResult) -> Option<Vec<(f64, u32)>> {
    let list = percentiles::sorted_list(&job.percentile_list);
    job.block_life.as_ref()?.percentiles(&list)
}

/// The normal output's lines; empty without block_error_percentiles.
/// Where no block was trimmed fio prints the heading and the states with
/// no percentiles between them, on one line.
pub fn normal(job: &JobResult) -> String {
    let Some(life) = &job.block_life else {
        return String::new();
    };
    let mut out = String::from("  block lifetime percentiles :\n   |");
    let percentiles = percentiles(job).unwrap_or_default();
    let mut pos = 0;
    for (i, (p, trims)) in percentiles.iter().enumerate() {
        let end = if i + 1 == percentiles.len() {
            '\n'
        } else {
            ','
        };
        let entry = format!(" {}th={trims}{end}", fixed(*p, 2));
        if pos + entry.len() > LINE_LENGTH {
            pos = 0;
            out.push_str("\n   |");
        }
        out.push_str(&entry);
        pos += entry.len();
    }
    out.push_str("        states               :");
    for (i, (name, count)) in BLOCK_STATE_NAMES.iter().zip(life.states()).enumerate() {
        let end = if i + 1 == BLOCK_STATE_NAMES.len() {
            '\n'
        } else {
            ','
        };
        out.push_str(&format!(" {name}={count}{end}"));
    }
    out
}

/// The JSON `block` object; None where fio writes none (no
/// block_error_percentiles, or no block trimmed).
pub fn json(job: &JobResult) -> Option<Value> {
    let values = percentiles(job)?;
    let life = job.block_life.as_ref()?;
    let mut pcts = Map::new();
    for (p, trims) in &values {
        pcts.insert(percentiles::json_key(*p), Value::from(*trims));
    }
    let mut states = Map::new();
    for (name, count) in BLOCK_STATE_NAMES.iter().zip(life.states()) {
        states.insert((*name).to_string(), Value::from(count));
    }
    let mut block = Map::new();
    block.insert("percentiles".into(), Value::Object(pcts));
    block.insert("states".into(), Value::Object(states));
    Some(Value::Object(block))
}
