//! fio's JSON pretty printer (json.c): two spaces per level, `"key" : value`,
//! floats as C's `%f`, strings escaped only for `\` and `"`.

use crate::cfmt::fixed;
use serde_json::{Map, Number, Value};

/// The document as fio prints it, without the trailing newline.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => write_array(out, items, level),
        Value::Object(map) => write_object(out, map, level),
    }
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else {
        out.push_str(&fixed(n.as_f64().unwrap_or(0.0), 6));
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// An object whose pairs sit at `level + 1`, its closing brace at `level`.
fn write_object(out: &mut String, map: &Map<String, Value>, level: usize) {
    out.push_str("{\n");
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(out, level + 1);
        out.push('"');
        out.push_str(key);
        out.push_str("\" : ");
        write_value(out, value, level + 1);
    }
    out.push('\n');
    indent(out, level);
    out.push('}');
}

fn write_array(out: &mut String, items: &[Value], level: usize) {
    out.push_str("[\n");
    for (i, value) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(out, level + 1);
        write_value(out, value, level + 1);
    }
    out.push('\n');
    indent(out, level);
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn layout_like_fio() {
        let mut job = Map::new();
        job.insert("jobname".into(), json!("t"));
        job.insert("iops".into(), json!(17025.641026));
        job.insert("mean".into(), json!(0.0));
        let mut root = Map::new();
        root.insert("fio version".into(), json!("fio-3.33"));
        root.insert("timestamp".into(), json!(1795310256u64));
        root.insert("jobs".into(), Value::Array(vec![Value::Object(job)]));
        let s = to_string(&Value::Object(root));
        let want = r#"{
  "fio version" : "fio-3.33",
  "timestamp" : 1795310256,
  "jobs" : [
    {
      "jobname" : "t",
      "iops" : 17025.641026,
      "mean" : 0.000000
    }
  ]
}"#;
        assert_eq!(s, want);
    }

    #[test]
    fn escapes_quotes_and_backslashes_only() {
        let s = to_string(&json!({"k": "a\"b\\c/d"}));
        assert_eq!(s, "{\n  \"k\" : \"a\\\"b\\\\c/d\"\n}");
    }
}
