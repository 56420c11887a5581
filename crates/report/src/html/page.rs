//! The HTML page around the charts: one self-contained document (its
//! style inline, no script, nothing fetched), sections, tables and the
//! notices.

use serde_json::Value;

use super::svg::esc;

/// The style of every page: system fonts only (no web font is fetched).
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#111;max-width:1500px}\
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}\
h3{font-size:1.05em}\
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}\
th{background:#f3f3f3}td.name,th.name{text-align:left}\
.charts{display:flex;flex-wrap:wrap;gap:12px}\
svg.chart{background:#fff;border:1px solid #ddd}\
svg text{font-family:system-ui,sans-serif;font-size:12px}\
svg text.title{font-size:15px;font-weight:bold}svg text.label{font-size:13px}\
svg text.point{font-size:11px}svg text.note{font-size:12px;font-weight:bold}svg text.cell{font-size:13px}\
svg line.axis{stroke:#333}svg line.grid{stroke:#e5e5e5}\
svg line.mark{stroke:#333;stroke-dasharray:4 3}svg text.mark{font-size:11px}\
svg g.whisker line{stroke:#000;stroke-width:1.5}\
.notice{background:#fff6dd;border-left:4px solid #e69f00;padding:4px 10px;margin:4px 0}\
.meta{color:#555}";

/// A whole page: `title` as its heading, `body` below it.
pub fn document(title: &str, body: &str) -> String {
    let t = esc(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{t}</title><style>{STYLE}</style></head>\n<body>\n<h1>{t}</h1>\n{body}\n</body></html>\n"
    )
}

/// A table: the header row, then the rows; cells are text (escaped here).
/// The first column is left-aligned: it names the row.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<table><tr>");
    for (i, h) in head.iter().enumerate() {
        let class = if i == 0 { " class=\"name\"" } else { "" };
        out.push_str(&format!("<th{class}>{}</th>", esc(h)));
    }
    out.push_str("</tr>");
    for row in rows {
        out.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let class = if i == 0 { " class=\"name\"" } else { "" };
            out.push_str(&format!("<td{class}>{}</td>", esc(c)));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>\n");
    out
}

/// Charts side by side, wrapping to the window's width.
pub fn charts(svgs: &[String]) -> String {
    format!("<div class=\"charts\">{}</div>\n", svgs.concat())
}

/// The notices of a document (a `notices` array of `{kind, message,
/// option}`), or nothing when it has none.
pub fn notices(doc: &Value) -> String {
    let list: Vec<&str> = doc
        .get("notices")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|n| n.get("message").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if list.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Notices</h2>\n");
    for m in list {
        out.push_str(&format!("<p class=\"notice\">{}</p>\n", esc(m)));
    }
    out
}

/// A nanosecond figure in the unit that reads best, for tables.
pub fn ns(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.2} s", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.2} ms", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.2} µs", v / 1e3)
    } else {
        format!("{v:.0} ns")
    }
}

/// A byte rate in MiB/s, for tables.
pub fn bytes_per_s(v: f64) -> String {
    format!("{:.2} MiB/s", v / 1048576.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_fetches_nothing_and_escapes_its_title() {
        let p = document("<x> & y", "");
        assert!(p.contains("<title>&lt;x&gt; &amp; y</title>"));
        assert!(!p.contains("<script"));
        assert!(!p.contains("http:") && !p.contains("https:"));
    }

    #[test]
    fn table_cells_are_escaped() {
        let t = table(&["<a>"], &[vec!["<img src=x>".into()]]);
        assert!(!t.contains("<a>") && !t.contains("<img"), "{t}");
    }

    #[test]
    fn notices_show_their_messages() {
        let doc: Value =
            serde_json::json!({"notices": [{"kind": "k", "message": "a <b>", "option": null}]});
        assert!(notices(&doc).contains("a &lt;b&gt;"));
        assert_eq!(notices(&serde_json::json!({"notices": []})), "");
    }

    #[test]
    fn durations_take_their_unit() {
        assert_eq!(ns(950.0), "950 ns");
        assert_eq!(ns(12_340.0), "12.34 µs");
        assert_eq!(ns(2.5e6), "2.50 ms");
    }
}
