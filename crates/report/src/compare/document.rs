//! The JSON documents of `ioscope compare` and `ioscope sweep`, as the
//! shared schema (`compare` and `sweep` sections) lays them out; the HTML
//! report is rendered from them.

use serde_json::{Map, Value};

use super::summary::{number, Summary};
use super::{Comparison, Sweep};

/// The `ioscope_compare` document.
pub fn compare_json(c: &Comparison) -> Value {
    let mut root = Map::new();
    root.insert("ioscope_compare".into(), Value::from(1));
    root.insert("repeats".into(), Value::from(c.repeats));
    root.insert("warmup".into(), Value::from(c.warmup));
    root.insert("order".into(), Value::from("interleaved"));
    root.insert(
        "baseline".into(),
        Value::from(c.configurations[c.baseline].name.as_str()),
    );
    let configurations = c
        .configurations
        .iter()
        .enumerate()
        .map(|(i, conf)| {
            let mut o = Map::new();
            o.insert("name".into(), Value::from(conf.name.as_str()));
            o.insert("options".into(), options(&conf.options));
            o.insert("summary".into(), Summary::of(&conf.runs).json());
            o.insert("vs_baseline".into(), vs_baseline(c, i));
            // Beyond the schema: the plain verdict of the text table.
            o.insert(
                "verdict".into(),
                c.verdict(i)
                    .map_or(Value::Null, |v| Value::from(v.as_str())),
            );
            o.insert("runs".into(), Value::Array(conf.results.clone()));
            Value::Object(o)
        })
        .collect();
    root.insert("configurations".into(), Value::Array(configurations));
    root.insert("notices".into(), crate::notices::json(&c.notices));
    Value::Object(root)
}

fn vs_baseline(c: &Comparison, index: usize) -> Value {
    let Some(diffs) = c.vs_baseline(index) else {
        return Value::Null;
    };
    let mut o = Map::new();
    for (metric, d) in diffs {
        let mut diff = Map::new();
        diff.insert("diff_pct".into(), number(d.diff_pct));
        diff.insert("ci_low_pct".into(), number(d.ci_low_pct));
        diff.insert("ci_high_pct".into(), number(d.ci_high_pct));
        diff.insert("diff_abs".into(), number(d.diff_abs));
        diff.insert("ci_low_abs".into(), number(d.ci_low_abs));
        diff.insert("ci_high_abs".into(), number(d.ci_high_abs));
        diff.insert("verdict".into(), Value::from(d.verdict.as_str()));
        o.insert(metric.key().into(), Value::Object(diff));
    }
    Value::Object(o)
}

/// The `ioscope_sweep` document.
pub fn sweep_json(s: &Sweep) -> Value {
    let mut root = Map::new();
    root.insert("ioscope_sweep".into(), Value::from(1));
    let axes = s
        .axes
        .iter()
        .map(|a| {
            let mut o = Map::new();
            o.insert("option".into(), Value::from(a.option.as_str()));
            o.insert(
                "values".into(),
                Value::Array(a.values.iter().map(|v| Value::from(v.as_str())).collect()),
            );
            Value::Object(o)
        })
        .collect();
    root.insert("axes".into(), Value::Array(axes));
    let points = s
        .points
        .iter()
        .map(|p| {
            let mut o = Map::new();
            o.insert("options".into(), options(&p.options));
            o.insert("file".into(), Value::from(p.file.as_str()));
            o.insert("summary".into(), Summary::of(&p.runs).json());
            o.insert("result".into(), p.result.clone());
            Value::Object(o)
        })
        .collect();
    root.insert("points".into(), Value::Array(points));
    root.insert("notices".into(), crate::notices::json(&s.notices));
    Value::Object(root)
}

fn options(pairs: &[(String, String)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect(),
    )
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Axis, Configuration, Point, RunMetrics};
    use super::*;

    fn runs(iops: &[f64]) -> Vec<RunMetrics> {
        iops.iter()
            .map(|&iops| RunMetrics {
                iops,
                lat_mean_ns: 1e9 / iops,
                punts: Some(0.0),
                ..RunMetrics::default()
            })
            .collect()
    }

    pub fn comparison() -> Comparison {
        let conf = |name: &str, iops: &[f64]| Configuration {
            name: name.into(),
            options: vec![("thinktime".into(), name.into())],
            runs: runs(iops),
            results: iops
                .iter()
                .map(|_| serde_json::json!({"jobs": []}))
                .collect(),
        };
        Comparison {
            repeats: 3,
            warmup: 1,
            baseline: 0,
            configurations: vec![
                conf("a", &[1000.0, 1010.0, 990.0]),
                conf("b", &[500.0, 505.0, 495.0]),
                conf("c", &[1000.0, 1020.0, 985.0]),
            ],
            notices: vec![],
        }
    }

    #[test]
    fn the_compare_document_has_the_schemas_fields() {
        let doc = compare_json(&comparison());
        assert_eq!(doc["ioscope_compare"], 1);
        assert_eq!(doc["repeats"], 3);
        assert_eq!(doc["warmup"], 1);
        assert_eq!(doc["order"], "interleaved");
        assert_eq!(doc["baseline"], "a");
        let confs = doc["configurations"].as_array().unwrap();
        assert_eq!(confs.len(), 3);
        assert_eq!(confs[0]["vs_baseline"], Value::Null);
        assert_eq!(confs[1]["options"]["thinktime"], "b");
        assert_eq!(confs[1]["runs"].as_array().unwrap().len(), 3);
        let vs = &confs[1]["vs_baseline"];
        for key in [
            "lat_mean_ns",
            "iops",
            "bw_bytes",
            "cpu_ns_per_io",
            "lat_p99_ns",
        ] {
            for field in [
                "diff_pct",
                "ci_low_pct",
                "ci_high_pct",
                "diff_abs",
                "verdict",
            ] {
                assert!(!vs[key][field].is_null(), "{key}.{field}");
            }
        }
        assert_eq!(vs["iops"]["verdict"], "lower");
        assert_eq!(vs["lat_mean_ns"]["verdict"], "slower");
        assert!((vs["iops"]["diff_pct"].as_f64().unwrap() + 50.0).abs() < 1e-9);
        assert_eq!(confs[1]["verdict"], "slower");
        assert_eq!(confs[2]["vs_baseline"]["iops"]["verdict"], "no difference");
        assert_eq!(doc["notices"], serde_json::json!([]));
    }

    #[test]
    fn the_sweep_document_has_the_schemas_fields() {
        let sweep = Sweep {
            axes: vec![Axis {
                option: "iodepth".into(),
                values: vec!["1".into(), "2".into()],
            }],
            points: ["1", "2"]
                .iter()
                .map(|d| Point {
                    options: vec![("iodepth".into(), d.to_string())],
                    file: format!("iodepth={d}.json"),
                    runs: runs(&[100.0]),
                    result: serde_json::json!({"fio version": "x"}),
                })
                .collect(),
            notices: vec![],
        };
        let doc = sweep_json(&sweep);
        assert_eq!(doc["ioscope_sweep"], 1);
        assert_eq!(doc["axes"][0]["option"], "iodepth");
        assert_eq!(doc["axes"][0]["values"], serde_json::json!(["1", "2"]));
        assert_eq!(doc["points"][1]["options"]["iodepth"], "2");
        assert_eq!(doc["points"][1]["file"], "iodepth=2.json");
        assert_eq!(doc["points"][0]["summary"]["iops"]["n"], 1);
        assert_eq!(doc["points"][0]["result"]["fio version"], "x");
    }
}
