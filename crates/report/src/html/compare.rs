//! The page of an `ioscope compare` document (schema: `ioscope_compare`):
//! per metric, a bar per configuration with its 95% confidence interval as
//! a whisker, the baseline drawn apart, each other configuration's verdict
//! written over its bar; then the table of every metric and the options of
//! each configuration.

use serde_json::Value;

use super::page::{self, bytes_per_s, ns};
use super::svg::{self, Bar};
use super::DocError;

/// The charted metrics: key in the summary, title, axis label, the scale
/// from the document's unit to the axis's, and the key of its difference
/// to the baseline (None: no verdict in the schema).
const METRICS: [(&str, &str, &str, f64, Option<&str>); 6] = [
    (
        "lat_mean_ns",
        "Mean latency",
        "mean total latency (µs)",
        1e-3,
        Some("lat_mean_ns"),
    ),
    (
        "lat_p99_ns",
        "99th percentile latency",
        "p99 completion latency (µs)",
        1e-3,
        Some("lat_p99_ns"),
    ),
    ("iops", "IOPS", "I/Os per second", 1.0, Some("iops")),
    (
        "bw_bytes",
        "Bandwidth",
        "bandwidth (MiB/s)",
        1.0 / 1048576.0,
        Some("bw_bytes"),
    ),
    (
        "cpu_ns_per_io",
        "CPU time per I/O",
        "CPU per I/O (ns, workers + helpers)",
        1.0,
        Some("cpu_ns_per_io"),
    ),
    (
        "ctx",
        "Context switches",
        "context switches per run",
        1.0,
        None,
    ),
];

/// The page of a compare document.
pub fn page(doc: &Value) -> Result<String, DocError> {
    let configs = doc
        .get("configurations")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| DocError::new("compare document: no \"configurations\""))?;
    let baseline = doc.get("baseline").and_then(Value::as_str).unwrap_or("");
    let repeats = doc.get("repeats").and_then(Value::as_u64).unwrap_or(0);
    let warmup = doc.get("warmup").and_then(Value::as_u64).unwrap_or(0);
    let order = doc.get("order").and_then(Value::as_str).unwrap_or("?");
    let mut body = format!(
        "<p class=\"meta\">{} configurations · {repeats} repeats each ({} order, {warmup} warm-up runs discarded) · \
         baseline: <b>{}</b> · bars are means, whiskers their 95% confidence intervals</p>\n",
        configs.len(),
        svg::esc(order),
        svg::esc(baseline)
    );
    let mut charts = Vec::new();
    for (key, title, label, scale, diff) in METRICS {
        let bars: Option<Vec<Bar>> = configs
            .iter()
            .map(|c| bar(c, key, scale, diff, baseline))
            .collect();
        if let Some(bars) = bars {
            charts.push(svg::bars(title, label, &bars));
        }
    }
    body.push_str(&page::charts(&charts));
    body.push_str("<h2>All figures</h2>\n");
    body.push_str(&table(configs));
    body.push_str("<h2>Configurations</h2>\n");
    body.push_str(&options(configs));
    body.push_str(&page::notices(doc));
    Ok(page::document("ioscope compare", &body))
}

fn config_name(c: &Value) -> &str {
    c.get("name").and_then(Value::as_str).unwrap_or("?")
}

fn stat<'a>(c: &'a Value, key: &str) -> Option<&'a Value> {
    c.get("summary")?.get(key).filter(|s| s.is_object())
}

fn num(s: &Value, k: &str) -> f64 {
    s.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// The bar of configuration `c` for `key`; None when it lacks the metric.
fn bar(c: &Value, key: &str, scale: f64, diff: Option<&str>, baseline: &str) -> Option<Bar> {
    let s = stat(c, key)?;
    let name = config_name(c);
    let note = diff
        .and_then(|d| c.get("vs_baseline")?.get(d))
        .map(verdict)
        .unwrap_or_default();
    Some(Bar {
        label: name.to_string(),
        value: num(s, "mean") * scale,
        low: num(s, "ci_low") * scale,
        high: num(s, "ci_high") * scale,
        marked: name == baseline,
        note,
    })
}

/// "+3.1% slower" (or "no difference"), from a DIFF object.
fn verdict(d: &Value) -> String {
    let v = d.get("verdict").and_then(Value::as_str).unwrap_or("");
    let pct = num(d, "diff_pct");
    if v == "no difference" || !pct.is_finite() {
        v.to_string()
    } else {
        format!("{pct:+.1}% {v}")
    }
}

/// Every metric of the summary: mean with its interval, and the verdict
/// against the baseline where the schema gives one.
fn table(configs: &[Value]) -> String {
    let fmt = |key: &str, v: f64| match key {
        k if k.ends_with("_ns") => ns(v),
        "bw_bytes" => bytes_per_s(v),
        k if k.starts_with("cpu_") && k != "cpu_ns_per_io" => format!("{v:.1}%"),
        _ => svg::num(v),
    };
    let keys = [
        "lat_mean_ns",
        "lat_p50_ns",
        "lat_p99_ns",
        "lat_p99_9_ns",
        "iops",
        "bw_bytes",
        "cpu_usr",
        "cpu_sys",
        "cpu_helpers",
        "cpu_ns_per_io",
        "ctx",
        "punts",
    ];
    let mut rows = Vec::new();
    for c in configs {
        for key in keys {
            let Some(s) = stat(c, key) else {
                continue;
            };
            let verdict = c
                .get("vs_baseline")
                .and_then(|v| v.get(key))
                .map(verdict)
                .unwrap_or_default();
            rows.push(vec![
                config_name(c).to_string(),
                key.to_string(),
                fmt(key, num(s, "mean")),
                format!(
                    "{} to {}",
                    fmt(key, num(s, "ci_low")),
                    fmt(key, num(s, "ci_high"))
                ),
                fmt(key, num(s, "stddev")),
                num(s, "n").to_string(),
                verdict,
            ]);
        }
    }
    page::table(
        &[
            "configuration",
            "metric",
            "mean",
            "95% interval",
            "stddev",
            "runs",
            "vs baseline",
        ],
        &rows,
    )
}

/// What each configuration sets beyond the shared options.
fn options(configs: &[Value]) -> String {
    let rows: Vec<Vec<String>> = configs
        .iter()
        .map(|c| {
            let opts = c
                .get("options")
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| match v.as_str() {
                            Some(s) => format!("{k}={s}"),
                            None => format!("{k}={v}"),
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            let runs = c.get("runs").and_then(Value::as_array).map_or(0, Vec::len);
            vec![config_name(c).to_string(), opts, runs.to_string()]
        })
        .collect();
    page::table(&["configuration", "options", "runs kept"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(m: f64) -> Value {
        serde_json::json!({"mean": m, "stddev": 1.0, "min": m - 1.0, "max": m + 1.0, "n": 5, "ci_low": m - 2.0, "ci_high": m + 2.0})
    }

    fn config(name: &str, lat: f64, vs: Value) -> Value {
        serde_json::json!({
            "name": name,
            "options": {"ioengine": "null"},
            "summary": {"lat_mean_ns": stat(lat), "iops": stat(1e6 / lat)},
            "vs_baseline": vs,
            "runs": []
        })
    }

    #[test]
    fn bars_mark_the_baseline_and_print_the_verdicts() {
        let diff = serde_json::json!({"lat_mean_ns": {"diff_pct": 12.5, "ci_low_pct": 10.0, "ci_high_pct": 15.0, "diff_abs": 100.0, "verdict": "slower"},
            "iops": {"diff_pct": -1.0, "ci_low_pct": -3.0, "ci_high_pct": 1.0, "diff_abs": -5.0, "verdict": "no difference"}});
        let doc = serde_json::json!({
            "ioscope_compare": 1, "repeats": 5, "warmup": 1, "order": "interleaved", "baseline": "a<b",
            "configurations": [config("a<b", 800.0, Value::Null), config("c", 900.0, diff)],
            "notices": []
        });
        let p = page(&doc).unwrap();
        assert!(p.contains("a&lt;b (baseline)"));
        assert!(p.contains("+12.5% slower"));
        assert!(p.contains(">no difference<"));
        // Metrics the summary lacks get no chart.
        assert!(p.contains("Mean latency") && !p.contains("Context switches"));
    }

    #[test]
    fn a_document_without_configurations_is_refused() {
        assert!(page(&serde_json::json!({"ioscope_compare": 1})).is_err());
    }
}
