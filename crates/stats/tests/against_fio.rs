//! Feeds fio's own per-I/O latency logs through this crate and compares the
//! results with what fio printed for the same run: summaries, percentiles
//! and the coarse latency buckets must come out identical. Needs the `fio`
//! binary; `require!(fio())` skips where it is missing (fails in strict mode).

use ioscope_stats::{LatencyBuckets, LatencyHistogram, Summary};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// fio's pretty-printed JSON as "path/to/key" -> raw value text, with "[]"
/// standing for an unnamed object (the outermost one, array elements). fio
/// puts one key per line, which is all this needs.
fn flatten_fio_json(text: &str) -> HashMap<String, String> {
    let mut path: Vec<String> = Vec::new();
    let mut out = HashMap::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('}') || line.starts_with(']') {
            path.pop();
            continue;
        }
        if line == "{" {
            path.push("[]".into());
            continue;
        }
        let Some((key, value)) = line.split_once(" : ") else {
            continue;
        };
        let key = key.trim_matches('"').to_string();
        let value = value.trim_end_matches(',');
        if value == "{" || value == "[" {
            path.push(key);
        } else {
            let mut full = path.join("/");
            full.push('/');
            full.push_str(&key);
            out.insert(full, value.trim_matches('"').to_string());
        }
    }
    out
}

/// The latency values (ns) of a fio latency log written with log_avg_msec=0,
/// for one direction (0 read).
fn read_log(path: &Path, ddir: u32) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(", ").collect();
            (fields[2].parse::<u32>().ok()? == ddir).then(|| fields[1].parse().unwrap())
        })
        .collect()
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn matches_fio_on_its_own_latency_logs() {
    ioscope_testutil::require!(ioscope_testutil::fio());
    let dir =
        TempDir(std::env::temp_dir().join(format!("ioscope-stats-fio-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let prefix = dir.0.join("lg");
    let list = "1:5:10:20:30:33.3:40:50:60:66.6:70:80:90:95:99:99.5:99.9:99.95:99.99";
    let output = Command::new("fio")
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=64m",
            "--bs=4k",
            "--rw=randread",
            "--number_ios=33000",
            "--log_avg_msec=0",
            "--lat_percentiles=1",
            "--output-format=json",
        ])
        .arg(format!("--percentile_list={list}"))
        .arg(format!("--write_lat_log={}", prefix.display()))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "fio failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = flatten_fio_json(&String::from_utf8_lossy(&output.stdout));
    let get = |key: &str| -> &str {
        json.get(&format!("[]/jobs/[]/{key}"))
            .unwrap_or_else(|| panic!("{key} not in fio's JSON"))
    };

    let mut buckets = LatencyBuckets::default();
    for kind in ["clat", "lat"] {
        let values = read_log(&dir.0.join(format!("lg_{kind}.1.log")), 0);
        let mut summary = Summary::default();
        let mut hist = LatencyHistogram::new();
        for &v in &values {
            summary.add(v);
            hist.add(v);
            if kind == "clat" {
                // fio counts completion latency in these buckets.
                buckets.add(v);
            }
        }
        let key = |k: &str| format!("read/{kind}_ns/{k}");
        assert_eq!(summary.samples.to_string(), get(&key("N")));
        assert_eq!(summary.min.to_string(), get(&key("min")));
        assert_eq!(summary.max.to_string(), get(&key("max")));
        // fio prints doubles with %f: six decimals, exactly rounded, as
        // Rust's {:.6} does.
        assert_eq!(
            format!("{:.6}", summary.mean()),
            get(&key("mean")),
            "{kind} mean"
        );
        assert_eq!(
            format!("{:.6}", summary.stddev()),
            get(&key("stddev")),
            "{kind} stddev"
        );

        let percents: Vec<f64> = list.split(':').map(|p| p.parse().unwrap()).collect();
        for (p, ours) in percents.iter().zip(hist.percentiles(&percents)) {
            let theirs = get(&key(&format!("percentile/{p:.6}")));
            assert_eq!(ours.to_string(), theirs, "{kind} {p}th percentile");
        }
    }

    // fio's JSON shows each bucket as a percentage of all I/Os, at least
    // 0.01 when non-empty.
    let total = buckets.total() as f64;
    let labels = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    for (unit, counts) in [
        ("ns", &buckets.nsec[..]),
        ("us", &buckets.usec[..]),
        ("ms", &buckets.msec[..]),
    ] {
        for (label, &count) in labels.iter().zip(counts) {
            let mut pct = count as f64 / total * 100.0;
            if count > 0 && pct < 0.01 {
                pct = 0.01;
            }
            let theirs: f64 = get(&format!("latency_{unit}/{label}")).parse().unwrap();
            assert!(
                (pct - theirs).abs() < 1e-6,
                "latency_{unit} {label}: {pct} vs {theirs}"
            );
        }
    }
}
