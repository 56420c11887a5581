//! A configuration's (or a sweep point's) SUMMARY: one [`Stat`] per metric.

use serde_json::{Map, Value};

use super::metrics::{Metric, RunMetrics};
use super::stat::Stat;

/// The statistic of every metric over a set of runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// In [`Metric::ALL`]'s order; None for a metric some run did not
    /// count (punts).
    stats: Vec<(Metric, Option<Stat>)>,
}

impl Summary {
    /// The summary of `runs`, which must not be empty.
    pub fn of(runs: &[RunMetrics]) -> Summary {
        let stats = Metric::ALL
            .iter()
            .map(|&metric| {
                let values: Option<Vec<f64>> = runs.iter().map(|r| metric.of(r)).collect();
                (metric, values.map(|v| Stat::of(&v)))
            })
            .collect();
        Summary { stats }
    }

    pub fn get(&self, metric: Metric) -> Option<&Stat> {
        self.stats
            .iter()
            .find(|(m, _)| *m == metric)
            .and_then(|(_, s)| s.as_ref())
    }

    /// The SUMMARY object of the JSON documents.
    pub fn json(&self) -> Value {
        let mut o = Map::new();
        for (metric, stat) in &self.stats {
            o.insert(metric.key().into(), stat.map_or(Value::Null, stat_json));
        }
        Value::Object(o)
    }
}

/// The samples of `metric` in `runs`; empty when some run did not count it.
pub fn samples(runs: &[RunMetrics], metric: Metric) -> Vec<f64> {
    runs.iter()
        .map(|r| metric.of(r))
        .collect::<Option<Vec<f64>>>()
        .unwrap_or_default()
}

fn stat_json(s: Stat) -> Value {
    let mut o = Map::new();
    o.insert("mean".into(), number(s.mean));
    o.insert("stddev".into(), number(s.stddev));
    o.insert("min".into(), number(s.min));
    o.insert("max".into(), number(s.max));
    o.insert("n".into(), Value::from(s.n));
    o.insert("ci_low".into(), number(s.ci_low));
    o.insert("ci_high".into(), number(s.ci_high));
    Value::Object(o)
}

/// A JSON number; every figure here is finite (means of finite values).
pub fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_has_its_key_and_uncounted_punts_are_null() {
        let runs = [
            RunMetrics {
                iops: 10.0,
                ..RunMetrics::default()
            },
            RunMetrics {
                iops: 20.0,
                punts: Some(3.0),
                ..RunMetrics::default()
            },
        ];
        let json = Summary::of(&runs).json();
        for m in Metric::ALL {
            assert!(json.get(m.key()).is_some(), "{}", m.key());
        }
        assert_eq!(json["punts"], Value::Null);
        assert_eq!(json["iops"]["mean"], 15.0);
        assert_eq!(json["iops"]["n"], 2);
        assert!(json["iops"]["ci_low"].as_f64().unwrap() < 15.0);
        assert!(samples(&runs, Metric::Punts).is_empty());
        assert_eq!(samples(&runs, Metric::Iops), vec![10.0, 20.0]);
    }
}
