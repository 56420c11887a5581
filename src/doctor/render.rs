//! `ioscope doctor`'s checklist as text (findings first, then what was
//! fine, then what could not be told) and as JSON.

use ioscope_run::doctor::{Check, Outcome};
use serde_json::{json, Value};

use super::Target;

/// What the checklist covers, in one line.
fn heading(target: Option<&Target>) -> String {
    match target {
        None => "the machine".to_string(),
        Some(Target {
            path,
            disk: Some(disk),
        }) => format!("the machine and {disk} (under {})", path.display()),
        Some(Target { path, disk: None }) => {
            format!("the machine ({} has no device)", path.display())
        }
    }
}

pub fn normal(target: Option<&Target>, checks: &[Check]) -> String {
    let mut out = format!(
        "ioscope doctor: {}, for a QD1 latency run\n",
        heading(target)
    );
    let found: Vec<String> = checks
        .iter()
        .filter_map(|c| match &c.outcome {
            Outcome::Found(n) => Some(format!("  {}: {n}\n", c.what)),
            _ => None,
        })
        .collect();
    out.push_str(&format!("\nFindings ({}):\n", found.len()));
    match found.is_empty() {
        true => out.push_str("  none\n"),
        false => out.extend(found),
    }
    let section = |title: &str, pick: &dyn Fn(&Outcome) -> Option<String>| {
        let lines: String = checks
            .iter()
            .filter_map(|c| Some(format!("  {}: {}\n", c.what, pick(&c.outcome)?)))
            .collect();
        match lines.is_empty() {
            true => String::new(),
            false => format!("\n{title}:\n{lines}"),
        }
    };
    out.push_str(&section("Fine", &|o| match o {
        Outcome::Fine(seen) => Some(seen.clone()),
        _ => None,
    }));
    out.push_str(&section("Not checked", &|o| match o {
        Outcome::Unknown(why) => Some(why.clone()),
        _ => None,
    }));
    out
}

pub fn json(target: Option<&Target>, checks: &[Check]) -> String {
    let mut findings = Vec::new();
    let mut fine = Vec::new();
    let mut unknown = Vec::new();
    for c in checks {
        match &c.outcome {
            Outcome::Found(n) => findings.push(json!({
                "check": c.what,
                "kind": n.kind(),
                "message": n.message(),
                "option": n.option(),
            })),
            Outcome::Fine(seen) => fine.push(json!({ "check": c.what, "seen": seen })),
            Outcome::Unknown(why) => unknown.push(json!({ "check": c.what, "why": why })),
        }
    }
    let target = target.map_or(
        Value::Null,
        |t| json!({ "path": t.path.display().to_string(), "device": t.disk }),
    );
    let v = json!({
        "target": target,
        "findings": findings,
        "fine": fine,
        "not_checked": unknown,
    });
    format!("{v:#}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscope_stats::Notice;

    fn checks() -> Vec<Check> {
        vec![
            Check {
                what: "clocksource",
                outcome: Outcome::Fine("tsc".into()),
            },
            Check {
                what: "virtual machine",
                outcome: Outcome::Found(Notice::VirtualMachine {
                    evidence: "hypervisor flag in /proc/cpuinfo".into(),
                }),
            },
            Check {
                what: "CPU frequency governor",
                outcome: Outcome::Unknown("no CPU has cpufreq".into()),
            },
        ]
    }

    #[test]
    fn text_lists_findings_then_fine_then_unknown() {
        let t = Target {
            path: "/dev/zram0".into(),
            disk: Some("zram0".into()),
        };
        let out = normal(Some(&t), &checks());
        assert!(out.starts_with(
            "ioscope doctor: the machine and zram0 (under /dev/zram0), for a QD1 latency run\n\n\
             Findings (1):\n  virtual machine: this is a virtual machine (hypervisor flag"
        ));
        assert!(out.contains("\nFine:\n  clocksource: tsc\n"), "{out}");
        assert!(out.ends_with("\nNot checked:\n  CPU frequency governor: no CPU has cpufreq\n"));
        let none = normal(None, &checks()[..1]);
        assert!(none.contains("Findings (0):\n  none\n"), "{none}");
        assert!(!none.contains("Not checked"), "{none}");
    }

    #[test]
    fn json_sorts_the_checks_the_same_way() {
        let v: Value = serde_json::from_str(&json(None, &checks())).unwrap();
        assert_eq!(v["target"], Value::Null);
        assert_eq!(v["findings"][0]["kind"], "virtual_machine");
        assert_eq!(v["findings"][0]["option"], Value::Null);
        assert_eq!(v["fine"][0], json!({"check": "clocksource", "seen": "tsc"}));
        assert_eq!(v["not_checked"][0]["check"], "CPU frequency governor");
    }
}
