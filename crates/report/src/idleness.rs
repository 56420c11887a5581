//! fio's `--idle-prof` lines and its JSON `cpu_idleness` object
//! (idletime.c show_idle_prof_stats).

use ioscope_stats::Idleness;
use serde_json::{Map, Value};

use crate::cfmt::fixed;

/// The block after the disk stats in normal output.
pub fn lines(idle: &Idleness) -> String {
    let mut out = String::from("\nCPU idleness:\n");
    out.push_str(&format!("  system: {}%\n", fixed(idle.system_percent(), 2)));
    if idle.listed {
        let each: Vec<String> = idle
            .per_cpu
            .iter()
            .map(|p| format!("{}%", fixed(p * 100.0, 2)))
            .collect();
        out.push_str(&format!("  percpu: {}\n", each.join(", ")));
    }
    out.push_str(&unit_line(idle.unit_mean_us, idle.unit_stddev_us));
    out
}

/// What `--idle-prof=calibrate` prints, and nothing else.
pub fn calibration(mean_us: f64, stddev_us: f64) -> String {
    format!("CPU idleness:\n{}", unit_line(mean_us, stddev_us))
}

fn unit_line(mean_us: f64, stddev_us: f64) -> String {
    format!(
        "  unit work: mean={}us, stddev={}\n",
        fixed(mean_us, 2),
        fixed(stddev_us, 2)
    )
}

/// The top-level `cpu_idleness` object, percentages as fio's.
pub fn json(idle: &Idleness) -> Value {
    let mut o = Map::new();
    o.insert("system".into(), Value::from(idle.system_percent()));
    if idle.listed {
        for (cpu, p) in idle.per_cpu.iter().enumerate() {
            o.insert(format!("cpu-{cpu}"), Value::from(p * 100.0));
        }
    }
    o.insert("unit_mean".into(), Value::from(idle.unit_mean_us));
    o.insert("unit_stddev".into(), Value::from(idle.unit_stddev_us));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(listed: bool) -> Idleness {
        Idleness {
            per_cpu: vec![0.97322473, 0.94456428],
            listed,
            unit_mean_us: 7.9605,
            unit_stddev_us: 0.118087,
        }
    }

    #[test]
    fn lines_as_fio_prints_them() {
        assert_eq!(
            lines(&measured(true)),
            "\nCPU idleness:\n  system: 95.89%\n  percpu: 97.32%, 94.46%\n  \
             unit work: mean=7.96us, stddev=0.12\n"
        );
        assert_eq!(
            lines(&measured(false)),
            "\nCPU idleness:\n  system: 95.89%\n  unit work: mean=7.96us, stddev=0.12\n"
        );
        assert_eq!(
            calibration(7.99, 0.03),
            "CPU idleness:\n  unit work: mean=7.99us, stddev=0.03\n"
        );
    }

    #[test]
    fn json_keys_in_fios_order() {
        let v = json(&measured(true));
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["system", "cpu-0", "cpu-1", "unit_mean", "unit_stddev"]
        );
        let keys = json(&measured(false)).as_object().unwrap().len();
        assert_eq!(keys, 3);
    }
}
