//! The run's notices ([`Notice`]): one block at the end of the normal
//! output, a top-level `notices` array in JSON.
//!
//! The block goes with the report (stdout or `--output`), not to stderr as
//! fio's `fio: ...` warnings do: a notice says why the numbers are what they
//! are (not polled, not counted, cut short), so it must stay with them when
//! the report is saved.

use ioscope_stats::Notice;
use serde_json::{Map, Value};

/// The normal output's block: empty when there is nothing to say.
pub fn block(notices: &[Notice]) -> String {
    if notices.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nNotices:\n");
    for n in notices {
        out.push_str("  ");
        out.push_str(&n.message());
        out.push('\n');
    }
    out
}

/// The JSON array: `{ "kind", "message", "option" }` per notice, `option`
/// null when no option changes it.
pub fn json(notices: &[Notice]) -> Value {
    Value::Array(
        notices
            .iter()
            .map(|n| {
                let mut o = Map::new();
                o.insert("kind".into(), Value::from(n.kind()));
                o.insert("message".into(), Value::from(n.message()));
                o.insert("option".into(), n.option().map_or(Value::Null, Value::from));
                Value::Object(o)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Vec<Notice> {
        vec![
            Notice::UnlinkFailed {
                path: "/tmp/f".into(),
                error: "Permission denied".into(),
            },
            Notice::Interrupted { signal: 15 },
        ]
    }

    #[test]
    fn nothing_to_say_prints_nothing() {
        assert_eq!(block(&[]), "");
        assert_eq!(json(&[]), Value::Array(vec![]));
    }

    #[test]
    fn the_block_lists_each_message() {
        assert_eq!(
            block(&two()),
            "\nNotices:\n  unlink=1 could not remove /tmp/f: Permission denied\n  \
             interrupted by SIGTERM (signal 15): the results cover only what ran until then\n"
        );
    }

    #[test]
    fn json_objects_carry_kind_message_and_option() {
        let v = json(&two());
        assert_eq!(v[0]["kind"], "unlink_failed");
        assert_eq!(v[0]["option"], "unlink");
        assert_eq!(
            v[0]["message"],
            "unlink=1 could not remove /tmp/f: Permission denied"
        );
        assert_eq!(v[1]["kind"], "interrupted");
        assert_eq!(v[1]["option"], Value::Null);
    }
}
