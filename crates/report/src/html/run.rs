//! The page of one run, from its fio-schema JSON document (JSON+ bins give
//! the latency histogram) and, when the run recorded them, its samples over
//! time.

use serde_json::Value;

use super::over_time::OverTime;
use super::page::{self, bytes_per_s, ns};
use super::svg::{self, Axis, Bin, Series};
use super::DocError;

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// Display bins per decade of latency: fio's 64 buckets per power of two
/// are far too fine to read as bars.
const BINS_PER_DECADE: f64 = 10.0;

/// The page: per job (or group, under group_reporting) a summary table,
/// the latency histogram and CDF per direction, and the samples over time
/// found in `over_time` under the job's name; then the notices.
pub fn page(doc: &Value, over_time: &dyn Fn(&str) -> Option<OverTime>) -> Result<String, DocError> {
    let jobs = doc
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or_else(|| DocError::new("not a fio JSON document: it has no \"jobs\" array"))?;
    let version = doc.get("fio version").and_then(Value::as_str).unwrap_or("");
    let time = doc.get("time").and_then(Value::as_str).unwrap_or("");
    let mut body = format!(
        "<p class=\"meta\">{} · {} · {} job(s)</p>\n",
        svg::esc(version),
        svg::esc(time),
        jobs.len()
    );
    body.push_str(&summary(jobs));
    for job in jobs {
        body.push_str(&job_section(job, over_time));
    }
    body.push_str(&page::notices(doc));
    Ok(page::document("ioscope run report", &body))
}

fn name(job: &Value) -> String {
    job.get("jobname")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string()
}

fn f(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

/// The directions of `job` that did I/O.
fn active(job: &Value) -> impl Iterator<Item = (&'static str, &Value)> {
    DIRS.iter().filter_map(move |d| {
        let s = job.get(*d)?;
        (f(s.get("total_ios")) > 0.0 || f(s.get("io_bytes")) > 0.0).then_some((*d, s))
    })
}

/// The latency statistics carrying the percentiles: clat_ns, or lat_ns
/// when the job asked for lat_percentiles.
fn pct_stats(dir: &Value) -> Option<&Value> {
    ["clat_ns", "lat_ns"]
        .iter()
        .filter_map(|k| dir.get(*k))
        .find(|s| s.get("percentile").is_some() || s.get("bins").is_some())
}

fn percentile(dir: &Value, p: &str) -> Option<f64> {
    pct_stats(dir)?.get("percentile")?.get(p)?.as_f64()
}

/// One row per job and direction: the figures a reader looks for first.
fn summary(jobs: &[Value]) -> String {
    let mut rows = Vec::new();
    for job in jobs {
        for (d, s) in active(job) {
            let p = |k| percentile(s, k).map_or("-".to_string(), ns);
            rows.push(vec![
                name(job),
                d.to_string(),
                format!("{:.0}", f(s.get("iops"))),
                bytes_per_s(f(s.get("bw_bytes"))),
                ns(f(s.get("lat_ns").and_then(|l| l.get("mean")))),
                p("50.000000"),
                p("99.000000"),
                p("99.900000"),
                format!(
                    "{:.1}% / {:.1}%",
                    f(job.get("usr_cpu")),
                    f(job.get("sys_cpu"))
                ),
            ]);
        }
    }
    page::table(
        &[
            "job",
            "dir",
            "IOPS",
            "bandwidth",
            "lat mean",
            "p50",
            "p99",
            "p99.9",
            "CPU usr / sys",
        ],
        &rows,
    )
}

fn job_section(job: &Value, over_time: &dyn Fn(&str) -> Option<OverTime>) -> String {
    let n = name(job);
    let mut out = format!("<h2>Job {}</h2>\n", svg::esc(&n));
    let mut charts = Vec::new();
    for (d, s) in active(job) {
        if let Some(chart) = latency_chart(&n, d, s) {
            charts.push(chart);
        }
    }
    if charts.is_empty() {
        out.push_str(
            "<p class=\"meta\">No latency histogram: the document has no JSON+ bins \
             (write it with --output-format=json+).</p>\n",
        );
    }
    if let Some(t) = over_time(&n).filter(|t| !t.is_empty()) {
        charts.extend(time_charts(&n, &t));
    }
    out.push_str(&page::charts(&charts));
    out
}

/// The histogram of the completion latencies from the JSON+ bins (value in
/// ns: count), with the CDF and p50/p99/p99.9 marked; None without bins.
fn latency_chart(job: &str, dir: &str, s: &Value) -> Option<String> {
    let stats = pct_stats(s)?;
    let bins = stats.get("bins")?.as_object()?;
    let mut counts: Vec<(i64, u64)> = Vec::new();
    for (k, v) in bins {
        let (Ok(value), Some(count)) = (k.parse::<f64>(), v.as_u64()) else {
            continue;
        };
        if value <= 0.0 || count == 0 {
            continue;
        }
        let slot = ((value / 1e3).log10() * BINS_PER_DECADE).floor() as i64;
        match counts.iter_mut().find(|(s, _)| *s == slot) {
            Some(c) => c.1 += count,
            None => counts.push((slot, count)),
        }
    }
    if counts.is_empty() {
        return None;
    }
    counts.sort_unstable();
    let edge = |slot: i64| 10f64.powf(slot as f64 / BINS_PER_DECADE);
    let bins: Vec<Bin> = counts
        .iter()
        .map(|&(slot, count)| Bin {
            lo: edge(slot),
            hi: edge(slot + 1),
            count,
        })
        .collect();
    let marks: Vec<(String, f64)> = [
        ("p50", "50.000000"),
        ("p99", "99.000000"),
        ("p99.9", "99.900000"),
    ]
    .iter()
    .filter_map(|(label, key)| {
        let us = percentile(s, key)? / 1e3;
        Some((format!("{label} = {} µs", svg::num(us)), us))
    })
    .collect();
    let which = if s.get("lat_ns").is_some_and(|l| std::ptr::eq(l, stats)) {
        "total"
    } else {
        "completion"
    };
    Some(svg::histogram(
        &format!("{job}: {dir} {which} latency"),
        &format!("{which} latency (µs, log scale)"),
        &bins,
        &marks,
    ))
}

/// Bandwidth, IOPS and mean latency against time, a line per direction.
fn time_charts(job: &str, t: &OverTime) -> Vec<String> {
    let chart = |title: &str, y_label: &str, per_dir: &[Vec<(f64, f64)>; 3]| {
        let series: Vec<Series> = DIRS
            .iter()
            .zip(per_dir)
            .filter(|(_, p)| !p.is_empty())
            .map(|(d, p)| Series {
                name: d.to_string(),
                points: p.clone(),
                labels: Vec::new(),
            })
            .collect();
        if series.is_empty() {
            return None;
        }
        let points = || series.iter().flat_map(|s| s.points.iter());
        Some(svg::lines(
            title,
            Axis::linear("time since the job started (s)", points().map(|p| p.0)),
            Axis::linear(y_label, points().map(|p| p.1)),
            &series,
        ))
    };
    [
        chart(
            &format!("{job}: bandwidth over time"),
            "bandwidth (MiB/s)",
            &t.bw,
        ),
        chart(
            &format!("{job}: IOPS over time"),
            "I/Os per second",
            &t.iops,
        ),
        chart(
            &format!("{job}: mean latency over time"),
            "mean total latency (µs)",
            &t.lat,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        serde_json::json!({
            "fio version": "ioscope-test",
            "jobs": [{
                "jobname": "<img src=x onerror=alert(1)>",
                "usr_cpu": 1.5, "sys_cpu": 2.5,
                "read": {
                    "io_bytes": 4096, "total_ios": 3, "iops": 1000.0, "bw_bytes": 4096000,
                    "lat_ns": {"mean": 2000.0},
                    "clat_ns": {
                        "mean": 1500.0,
                        "percentile": {"50.000000": 1000, "99.000000": 5000, "99.900000": 5000},
                        "bins": {"1000": 2, "5000": 1}
                    }
                },
                "write": {"io_bytes": 0, "total_ios": 0}
            }],
            "notices": [{"kind": "k", "message": "a notice", "option": null}]
        })
    }

    #[test]
    fn a_run_page_has_its_summary_histogram_and_notices() {
        let p = page(&doc(), &|_| None).unwrap();
        assert!(p.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(!p.contains("<img"), "a job name is text, never markup");
        assert!(p.contains("read completion latency"));
        assert!(p.contains(">p99 = 5 µs<"), "p99 at 5 µs is marked");
        assert!(p.contains("1.5% / 2.5%"));
        assert!(p.contains("a notice"));
        // The write direction did nothing: no row, no chart.
        assert!(!p.contains("write completion latency"));
    }

    #[test]
    fn over_time_charts_come_from_the_samples_of_the_job() {
        let t = OverTime {
            bw: [vec![(0.5, 10.0), (1.0, 12.0)], vec![], vec![]],
            ..OverTime::default()
        };
        let p = page(&doc(), &|name| name.starts_with("<img").then(|| t.clone())).unwrap();
        assert!(p.contains("alert(1)&gt;: bandwidth over time"));
        assert!(!p.contains("IOPS over time"), "no IOPS samples, no chart");
    }

    #[test]
    fn without_bins_the_page_says_why_there_is_no_histogram() {
        let mut d = doc();
        d["jobs"][0]["read"]["clat_ns"]
            .as_object_mut()
            .unwrap()
            .remove("bins");
        let p = page(&d, &|_| None).unwrap();
        assert!(p.contains("no JSON+ bins"));
    }

    #[test]
    fn a_document_without_jobs_is_refused() {
        let e = page(&serde_json::json!({"x": 1}), &|_| None).unwrap_err();
        assert!(e.to_string().contains("\"jobs\""));
    }
}
