//! The page of an `ioscope sweep` document (schema: `ioscope_sweep`):
//! IOPS against latency, a curve per value of the axes other than iodepth
//! with each point labelled by its iodepth; a heat grid of IOPS (numjobs ×
//! iodepth, or whichever two axes there are; one grid per value of any
//! further axes); and a table of every point.

use serde_json::Value;

use super::page::{self, bytes_per_s, ns};
use super::svg::{self, Axis, Series};
use super::DocError;

/// One axis of the sweep: the option and its values, in sweep order.
struct SweepAxis {
    option: String,
    values: Vec<String>,
}

/// The page of a sweep document.
pub fn page(doc: &Value) -> Result<String, DocError> {
    let axes: Vec<SweepAxis> = doc
        .get("axes")
        .and_then(Value::as_array)
        .ok_or_else(|| DocError::new("sweep document: no \"axes\""))?
        .iter()
        .map(|a| SweepAxis {
            option: text(a.get("option")),
            values: a
                .get("values")
                .and_then(Value::as_array)
                .map(|v| v.iter().map(|x| text(Some(x))).collect())
                .unwrap_or_default(),
        })
        .collect();
    let points = doc
        .get("points")
        .and_then(Value::as_array)
        .ok_or_else(|| DocError::new("sweep document: no \"points\""))?;
    if axes.is_empty() {
        return Err(DocError::new("sweep document: \"axes\" is empty"));
    }
    let names: Vec<String> = axes
        .iter()
        .map(|a| format!("{} ({})", a.option, a.values.join(", ")))
        .collect();
    let mut body = format!(
        "<p class=\"meta\">{} points over {}</p>\n",
        points.len(),
        svg::esc(&names.join(" × "))
    );
    let mut charts = vec![curves(&axes, points)];
    charts.extend(grids(&axes, points));
    body.push_str(&page::charts(&charts));
    body.push_str("<h2>All points</h2>\n");
    body.push_str(&table(&axes, points));
    body.push_str(&page::notices(doc));
    Ok(page::document("ioscope sweep", &body))
}

/// A JSON string's text, or the value as JSON (a number written as one).
fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn value_of(point: &Value, option: &str) -> String {
    text(point.get("options").and_then(|o| o.get(option)))
}

fn mean(point: &Value, key: &str) -> Option<f64> {
    point.get("summary")?.get(key)?.get("mean")?.as_f64()
}

/// The axis whose values label the points (iodepth, or the first), and
/// the others.
fn split<'a>(axes: &'a [SweepAxis], first: &str) -> (&'a SweepAxis, Vec<&'a SweepAxis>) {
    let main = axes.iter().find(|a| a.option == first).unwrap_or(&axes[0]);
    let rest = axes.iter().filter(|a| !std::ptr::eq(*a, main)).collect();
    (main, rest)
}

/// "numjobs=2, bs=4k": a point's values on `axes`.
fn label(point: &Value, axes: &[&SweepAxis]) -> String {
    axes.iter()
        .map(|a| format!("{}={}", a.option, value_of(point, &a.option)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// IOPS against mean latency: a curve per combination of the other axes'
/// values, its points in the order of the labelling axis's values.
fn curves(axes: &[SweepAxis], points: &[Value]) -> String {
    let (main, rest) = split(axes, "iodepth");
    let mut series: Vec<Series> = Vec::new();
    for p in points {
        let (Some(iops), Some(lat)) = (mean(p, "iops"), mean(p, "lat_mean_ns")) else {
            continue;
        };
        let name = if rest.is_empty() {
            format!("by {}", main.option)
        } else {
            label(p, &rest)
        };
        let at = match series.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                series.push(Series {
                    name,
                    points: Vec::new(),
                    labels: Vec::new(),
                });
                series.len() - 1
            }
        };
        let tag = value_of(p, &main.option);
        let short = if main.option == "iodepth" {
            format!("qd{tag}")
        } else {
            tag
        };
        series[at].points.push((iops, lat / 1e3));
        series[at].labels.push(short);
    }
    // Along each curve, in the order of the labelling axis's values.
    for s in &mut series {
        let order = |l: &str| {
            let v = l.strip_prefix("qd").unwrap_or(l);
            main.values
                .iter()
                .position(|x| x == v)
                .unwrap_or(usize::MAX)
        };
        let mut both: Vec<((f64, f64), String)> =
            s.points.drain(..).zip(s.labels.drain(..)).collect();
        both.sort_by_key(|(_, l)| order(l));
        (s.points, s.labels) = both.into_iter().unzip();
    }
    let lats: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    let (lo, hi) = lats
        .iter()
        .fold((f64::INFINITY, 0f64), |(l, h), v| (l.min(*v), h.max(*v)));
    let y_label = "mean total latency (µs)";
    // A range of more than 20 times reads better on a log axis.
    let y = if lo > 0.0 && hi / lo > 20.0 {
        Axis::log(&format!("{y_label}, log scale"), lats.iter().copied())
    } else {
        Axis::linear(y_label, lats.iter().copied())
    };
    let x = Axis::linear(
        "I/Os per second",
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
    );
    let title = format!("IOPS against latency, points labelled by {}", main.option);
    svg::lines(&title, x, y, &series)
}

/// Heat grids of IOPS: columns the iodepth axis (or the first), rows the
/// numjobs axis (or the next); a grid per combination of the others.
fn grids(axes: &[SweepAxis], points: &[Value]) -> Vec<String> {
    let (cols, rest) = split(axes, "iodepth");
    let rows = rest
        .iter()
        .position(|a| a.option == "numjobs")
        .or((!rest.is_empty()).then_some(0))
        .map(|i| rest[i]);
    let others: Vec<&SweepAxis> = rest
        .iter()
        .copied()
        .filter(|a| rows.is_none_or(|r| !std::ptr::eq(*a, r)))
        .collect();
    // The combinations of the other axes' values, in the order met.
    let mut groups: Vec<String> = Vec::new();
    for p in points {
        let g = label(p, &others);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let row_values = rows.map_or(vec![String::new()], |r| r.values.clone());
    groups
        .iter()
        .map(|g| {
            let cells: Vec<Vec<Option<f64>>> = row_values
                .iter()
                .map(|rv| {
                    cols.values
                        .iter()
                        .map(|cv| {
                            points
                                .iter()
                                .find(|p| {
                                    label(p, &others) == *g
                                        && value_of(p, &cols.option) == *cv
                                        && rows.is_none_or(|r| value_of(p, &r.option) == *rv)
                                })
                                .and_then(|p| mean(p, "iops"))
                        })
                        .collect()
                })
                .collect();
            let mut title = match rows {
                Some(r) => format!("IOPS by {} × {}", r.option, cols.option),
                None => format!("IOPS by {}", cols.option),
            };
            if !g.is_empty() {
                title.push_str(&format!(" ({g})"));
            }
            svg::heat_grid(
                &title,
                rows.map_or("", |r| &r.option),
                &row_values,
                &cols.option,
                &cols.values,
                &cells,
            )
        })
        .collect()
}

/// Every point: its values on the axes and its main figures.
fn table(axes: &[SweepAxis], points: &[Value]) -> String {
    let rows: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            let m = |k| mean(p, k).unwrap_or(f64::NAN);
            let all: Vec<&SweepAxis> = axes.iter().collect();
            vec![
                label(p, &all),
                svg::num(m("iops")),
                bytes_per_s(m("bw_bytes")),
                ns(m("lat_mean_ns")),
                ns(m("lat_p99_ns")),
                format!("{:.1}% / {:.1}%", m("cpu_usr"), m("cpu_sys")),
                text(p.get("file")),
            ]
        })
        .collect();
    page::table(
        &[
            "point",
            "IOPS",
            "bandwidth",
            "lat mean",
            "p99",
            "CPU usr / sys",
            "file",
        ],
        &rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(qd: u32, nj: u32, iops: f64, lat: f64) -> Value {
        let stat = |m: f64| serde_json::json!({"mean": m, "stddev": 0.0, "min": m, "max": m, "n": 1, "ci_low": m, "ci_high": m});
        serde_json::json!({
            "options": {"iodepth": qd.to_string(), "numjobs": nj.to_string()},
            "file": format!("qd{qd}-nj{nj}.json"),
            "summary": {"iops": stat(iops), "lat_mean_ns": stat(lat), "bw_bytes": stat(iops * 4096.0)},
            "result": {}
        })
    }

    fn doc() -> Value {
        serde_json::json!({
            "ioscope_sweep": 1,
            "axes": [{"option": "iodepth", "values": ["1", "2"]}, {"option": "numjobs", "values": ["1", "2"]}],
            "points": [point(1, 1, 1000.0, 5000.0), point(2, 1, 1800.0, 6000.0), point(1, 2, 1900.0, 5500.0), point(2, 2, 3000.0, 7000.0)],
            "notices": []
        })
    }

    #[test]
    fn a_curve_per_numjobs_with_points_labelled_by_iodepth() {
        let p = page(&doc()).unwrap();
        assert!(p.contains("numjobs=1") && p.contains("numjobs=2"));
        assert!(p.contains(">qd1<") && p.contains(">qd2<"));
        assert!(p.contains("IOPS by numjobs × iodepth"));
        // Every point's IOPS is written in its cell.
        for v in ["1000", "1800", "1900", "3000"] {
            assert!(p.contains(&format!(">{v}</text>")), "{v}");
        }
    }

    #[test]
    fn one_axis_gives_one_curve_and_a_one_row_grid() {
        let mut d = doc();
        d["axes"] = serde_json::json!([{"option": "bs", "values": ["4k", "8k"]}]);
        d["points"] = serde_json::json!([point(1, 1, 10.0, 1.0), point(1, 1, 20.0, 2.0)]);
        d["points"][0]["options"] = serde_json::json!({"bs": "4k"});
        d["points"][1]["options"] = serde_json::json!({"bs": "8k"});
        let p = page(&d).unwrap();
        assert!(p.contains("IOPS by bs"));
        assert!(p.contains(">4k<") && p.contains(">8k<"));
    }

    #[test]
    fn a_document_without_axes_is_refused() {
        assert!(page(&serde_json::json!({"ioscope_sweep": 1, "points": []})).is_err());
    }
}
