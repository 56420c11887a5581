//! Steady state in the reports: fio's JSON `steadystate` object
//! (stat.c, show_thread_status_json) and its normal-output line
//! (show_ss_normal).

use crate::num2str::{num2str, Unit};
use ioscope_stats::SteadyStateResult;
use serde_json::{Map, Value};

/// `  steadystate  : attained=yes, bw=6090MiB/s (6236MB/s), iops=1559k,
/// iops mean dev=1.709%`, as fio prints it; judging latency, fio 3.42
/// adds `, lat=2345nsec` after the IOPS.
pub(crate) fn normal_line(ss: &SteadyStateResult, kb_base: u32, sig_figs: usize) -> String {
    let kb = u64::from(kb_base.max(1));
    let i2p = kb.is_power_of_two();
    let bw = ss.bw_mean() / kb;
    let lat = match ss.metric {
        // fio scales it with no deviation, which keeps it in nsec.
        "lat" => format!(
            ", lat={}nsec",
            num2str(ss.lat_mean(), sig_figs, 1, false, Unit::None)
        ),
        _ => String::new(),
    };
    format!(
        "  steadystate  : attained={}, bw={} ({}), iops={}{lat}, {}{}={:.3}{}\n",
        if ss.attained { "yes" } else { "no" },
        num2str(bw, sig_figs, kb, i2p, Unit::BytePerSec),
        num2str(bw, sig_figs, kb, !i2p, Unit::BytePerSec),
        num2str(ss.iops_mean(), sig_figs, 1, false, Unit::None),
        ss.metric,
        if ss.slope_criterion {
            " slope"
        } else {
            " mean dev"
        },
        ss.criterion,
        if ss.percent { "%" } else { "" },
    )
}

/// The object, with fio 3.42's keys in its order (the latencies only
/// when judging latency).
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
    if ss.metric == "lat" {
        data.insert("lat_mean".into(), Value::from(ss.lat_mean()));
        data.insert("lat_ns".into(), Value::from(ss.lat.clone()));
    }
    data.insert("iops".into(), Value::from(ss.iops_data.clone()));
    data.insert("bw".into(), Value::from(ss.bw.clone()));
    o.insert("data".into(), Value::Object(data));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SteadyStateResult {
        SteadyStateResult {
            ss: "iops:50.000000%".into(),
            duration: 2,
            attained: true,
            metric: "iops",
            slope_criterion: false,
            percent: true,
            limit: 50.0,
            criterion: 0.080396,
            max_deviation: 1278.0,
            slope: 0.0,
            bw: vec![6505890960, 6516360669],
            iops_data: vec![1588352, 1590908],
            lat: vec![612, 630],
        }
    }

    #[test]
    fn the_normal_line_is_fios() {
        // fio 3.33's line for these samples: the second bandwidth is the
        // KiB/s figure read with SI prefixes (fio's quirk), not bytes/s.
        assert_eq!(
            normal_line(&sample(), 1024, 4),
            "  steadystate  : attained=yes, bw=6209MiB/s (6359MB/s), iops=1590k, iops mean dev=0.080%\n"
        );
    }

    #[test]
    fn keys_and_texts_are_fios() {
        let ss = sample();
        let text = serde_json::to_string(&object(&ss)).unwrap();
        assert_eq!(
            text,
            r#"{"ss":"iops:50.000000%","duration":2,"attained":1,"criterion":"0.080396%","max_deviation":1278.0,"slope":0.0,"data":{"bw_mean":6511125814,"iops_mean":1589630,"iops":[1588352,1590908],"bw":[6505890960,6516360669]}}"#
        );
    }

    /// Judging latency, fio 3.42 adds the latencies after the means and
    /// `lat=` to the normal line (in nsec whatever the size: it scales the
    /// mean with no deviation).
    #[test]
    fn latency_criterion_shows_the_latencies_as_fio_3_42() {
        let ss = SteadyStateResult {
            ss: "lat:10.000000%".into(),
            metric: "lat",
            ..sample()
        };
        let text = serde_json::to_string(&object(&ss)).unwrap();
        assert!(
            text.contains(r#""iops_mean":1589630,"lat_mean":621,"lat_ns":[612,630],"iops":["#),
            "{text}"
        );
        assert_eq!(
            normal_line(&ss, 1024, 4),
            "  steadystate  : attained=yes, bw=6209MiB/s (6359MB/s), iops=1590k, lat=621nsec, lat mean dev=0.080%\n"
        );
    }
}
