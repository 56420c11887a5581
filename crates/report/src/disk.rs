//! fio's disk utilisation: the `Disk stats (read/write):` lines, the
//! top-level "disk_util" array and the fields appended to terse lines.

use crate::cfmt::fixed;
use ioscope_stats::DiskUtil;
use serde_json::{Map, Value};

fn util(d: &DiskUtil) -> f64 {
    if d.util.is_nan() {
        0.0
    } else {
        d.util.min(100.0)
    }
}

/// The normal-output block; empty when no block device was used.
pub fn lines(disks: &[DiskUtil]) -> String {
    if disks.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nDisk stats (read/write):\n");
    for d in disks {
        out.push_str(&format!(
            "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={}%\n",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            fixed(util(d), 2),
        ));
    }
    out
}

/// The fields fio's print_disk_util appends to each terse line (version 3
/// and later): `;name;ios;ios;merges;merges;ticks;ticks;in_queue;util%`.
pub fn terse(d: &DiskUtil) -> String {
    format!(
        ";{};{};{};{};{};{};{};{};{}%",
        d.name,
        d.read_ios,
        d.write_ios,
        d.read_merges,
        d.write_merges,
        d.read_ticks,
        d.write_ticks,
        d.in_queue,
        fixed(util(d), 2),
    )
}

/// One "disk_util" entry, keys in fio 3.33's order.
pub fn json(d: &DiskUtil) -> Value {
    let mut o = Map::new();
    o.insert("name".into(), Value::from(d.name.clone()));
    o.insert("read_ios".into(), Value::from(d.read_ios));
    o.insert("write_ios".into(), Value::from(d.write_ios));
    o.insert("read_sectors".into(), Value::from(d.read_sectors));
    o.insert("write_sectors".into(), Value::from(d.write_sectors));
    o.insert("read_merges".into(), Value::from(d.read_merges));
    o.insert("write_merges".into(), Value::from(d.write_merges));
    o.insert("read_ticks".into(), Value::from(d.read_ticks));
    o.insert("write_ticks".into(), Value::from(d.write_ticks));
    o.insert("in_queue".into(), Value::from(d.in_queue));
    o.insert("util".into(), Value::from(util(d)));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_like_fio() {
        let d = DiskUtil {
            name: "vda".into(),
            read_ios: 1512,
            write_ios: 1,
            read_merges: 59,
            write_merges: 0,
            read_ticks: 91,
            write_ticks: 0,
            in_queue: 91,
            util: 32.2314,
            ..DiskUtil::default()
        };
        assert_eq!(
            lines(&[d]),
            "\nDisk stats (read/write):\n  vda: ios=1512/1, merge=59/0, ticks=91/0, in_queue=91, util=32.23%\n"
        );
        assert_eq!(lines(&[]), "");
    }
}
