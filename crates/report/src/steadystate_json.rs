//! fio's JSON `steadystate` object (stat.c, show_thread_status_json).

use ioscope_stats::SteadyStateResult;
use serde_json::{Map, Value};

/// The object, with fio 3.33's keys in its order.
pub(crate) fn object(ss: &SteadyStateResult) -> Value {
    let float = |v: f64| Value::from(if v.is_finite() { v } else { 0.0 });
    let pct = if ss.percent { "%" } else { "" };
    let mut o = Map::new();
    o.insert("ss".into(), Value::from(ss.ss.clone()));
    o.insert("duration".into(), Value::from(ss.duration));
    o.insert("attained".into(), Value::from(u8::from(ss.attained)));
    // fio prints the criterion as a float (single precision) with %f.
    o.insert(
        "criterion".into(),
        Value::from(format!("{:.6}{pct}", ss.criterion as f32)),
    );
    o.insert("max_deviation".into(), float(ss.max_deviation));
    o.insert("slope".into(), float(ss.slope));
    let mut data = Map::new();
    data.insert("bw_mean".into(), Value::from(ss.bw_mean()));
    data.insert("iops_mean".into(), Value::from(ss.iops_mean()));
    data.insert("iops".into(), Value::from(ss.iops_data.clone()));
    data.insert("bw".into(), Value::from(ss.bw.clone()));
    o.insert("data".into(), Value::Object(data));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_texts_are_fios() {
        let ss = SteadyStateResult {
            ss: "iops:50.000000%".into(),
            duration: 2,
            attained: true,
            iops: true,
            slope_criterion: false,
            percent: true,
            criterion: 0.080396,
            max_deviation: 1278.0,
            slope: 0.0,
            bw: vec![6505890960, 6516360669],
            iops_data: vec![1588352, 1590908],
        };
        let text = serde_json::to_string(&object(&ss)).unwrap();
        assert_eq!(
            text,
            r#"{"ss":"iops:50.000000%","duration":2,"attained":1,"criterion":"0.080396%","max_deviation":1278.0,"slope":0.0,"data":{"bw_mean":6511125814,"iops_mean":1589630,"iops":[1588352,1590908],"bw":[6505890960,6516360669]}}"#
        );
    }
}
