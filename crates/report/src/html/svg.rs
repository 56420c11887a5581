//! Inline SVG charts over the axes of [`super::axis`]: line/scatter
//! charts, bars with interval whiskers, a histogram with its CDF, and a
//! heat grid. Every piece of text that reaches the markup goes through
//! [`esc`]: job names, configuration names and option values are user text.

use std::fmt::Write;

pub use super::axis::{num, Axis};

/// Colours of the series, in order (distinct in print and for the common
/// forms of colour blindness: the Okabe-Ito set).
const PALETTE: [&str; 8] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
];

/// The colour of series `i`.
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// `s` with the characters that mean something in HTML or XML replaced.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const W: f64 = 660.0;
const H: f64 = 340.0;
/// Margins: left (tick labels and the y label), right, top (title and
/// legend), bottom (tick labels and the x label).
const ML: f64 = 78.0;
const MR: f64 = 64.0;
const MT: f64 = 54.0;
const MB: f64 = 56.0;

/// The plotting area of a chart.
struct Frame {
    x: Axis,
    y: Axis,
}

impl Frame {
    fn px(&self, v: f64) -> f64 {
        ML + self.x.frac(v) * (W - ML - MR)
    }
    fn py(&self, v: f64) -> f64 {
        H - MB - self.y.frac(v) * (H - MT - MB)
    }
}

/// An `<svg>` element's opening with its title (shown by browsers on
/// hover, and read by screen readers) and heading text.
fn open(out: &mut String, title: &str, height: f64) {
    let t = esc(title);
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {W} {height}" width="{W}" height="{height}" role="img"><title>{t}</title><text class="title" x="{}" y="22" text-anchor="middle">{t}</text>"#,
        W / 2.0
    );
}

/// The axes: lines, ticks with their labels, grid lines and the labels of
/// the axes themselves.
fn axes(out: &mut String, f: &Frame, x_ticks: bool) {
    let (l, r, t, b) = (ML, W - MR, MT, H - MB);
    let _ = write!(
        out,
        r#"<line class="axis" x1="{l}" y1="{b}" x2="{r}" y2="{b}"/><line class="axis" x1="{l}" y1="{t}" x2="{l}" y2="{b}"/>"#
    );
    for v in f.y.ticks() {
        let y = f.py(v);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{l}" y1="{y:.1}" x2="{r}" y2="{y:.1}"/><text class="tick" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            l - 6.0,
            y + 4.0,
            num(v)
        );
    }
    if x_ticks {
        for v in f.x.ticks() {
            let x = f.px(v);
            let _ = write!(
                out,
                r#"<line class="axis" x1="{x:.1}" y1="{b}" x2="{x:.1}" y2="{}"/><text class="tick" x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
                b + 5.0,
                b + 18.0,
                num(v)
            );
        }
    }
    let _ = write!(
        out,
        r#"<text class="label" x="{}" y="{}" text-anchor="middle">{}</text><text class="label" transform="translate(18 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (l + r) / 2.0,
        H - 12.0,
        esc(&f.x.label),
        (t + b) / 2.0,
        esc(&f.y.label)
    );
}

/// A legend in the top right corner: a swatch and a name per entry.
fn legend(out: &mut String, entries: &[(String, &str)]) {
    let mut x = W - MR;
    for (name, colour) in entries.iter().rev() {
        let width = 7.0 * name.chars().count() as f64 + 26.0;
        x -= width;
        let _ = write!(
            out,
            r#"<rect x="{x:.1}" y="32" width="12" height="12" fill="{colour}"/><text class="legend" x="{:.1}" y="42">{}</text>"#,
            x + 16.0,
            esc(name)
        );
    }
}

/// One line of a line chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    /// (x, y) in the axes' units.
    pub points: Vec<(f64, f64)>,
    /// A label written beside each point (the sweep's iodepth), or none.
    pub labels: Vec<String>,
}

/// A line chart with a marker at each point (a scatter chart when each
/// series has one point); a legend when there is more than one series.
pub fn lines(title: &str, x: Axis, y: Axis, series: &[Series]) -> String {
    let f = Frame { x, y };
    let mut out = String::new();
    open(&mut out, title, H);
    axes(&mut out, &f, true);
    for (i, s) in series.iter().enumerate() {
        let c = colour(i);
        let path: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", f.px(x), f.py(y)))
            .collect();
        let _ = write!(
            out,
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        // Markers only where they can be told apart.
        let marked = s.points.len() <= 60;
        for (k, &(x, y)) in s.points.iter().enumerate() {
            let (px, py) = (f.px(x), f.py(y));
            if marked {
                let _ = write!(
                    out,
                    r#"<circle cx="{px:.1}" cy="{py:.1}" r="3.5" fill="{c}"><title>{}: {}, {}</title></circle>"#,
                    esc(&s.name),
                    num(x),
                    num(y)
                );
            }
            if let Some(l) = s.labels.get(k) {
                let _ = write!(
                    out,
                    r#"<text class="point" x="{:.1}" y="{:.1}" fill="{c}">{}</text>"#,
                    px + 5.0,
                    py - 6.0,
                    esc(l)
                );
            }
        }
    }
    if series.len() > 1 {
        let names: Vec<(String, &str)> = series
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), colour(i)))
            .collect();
        legend(&mut out, &names);
    }
    out.push_str("</svg>");
    out
}

/// One bar of a bar chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    /// The interval drawn as a whisker (the 95% confidence interval).
    pub low: f64,
    pub high: f64,
    /// Drawn apart (the baseline).
    pub marked: bool,
    /// Written above the bar (the verdict).
    pub note: String,
}

/// Bars with interval whiskers, one per entry, on a linear axis from 0.
pub fn bars(title: &str, y_label: &str, bars: &[Bar]) -> String {
    let y = Axis::linear(y_label, bars.iter().flat_map(|b| [b.value, b.high]));
    let f = Frame {
        x: Axis::linear("", []),
        y,
    };
    let mut out = String::new();
    open(&mut out, title, H);
    axes(&mut out, &f, false);
    let slot = (W - ML - MR) / bars.len().max(1) as f64;
    let width = (slot * 0.6).min(90.0);
    for (i, b) in bars.iter().enumerate() {
        let cx = ML + slot * (i as f64 + 0.5);
        let top = f.py(b.value);
        let (fill, stroke) = if b.marked {
            ("#bbbbbb", "#555555")
        } else {
            (colour(0), colour(0))
        };
        let _ = write!(
            out,
            r#"<rect x="{:.1}" y="{top:.1}" width="{width:.1}" height="{:.1}" fill="{fill}" stroke="{stroke}"><title>{}: {} ({} to {})</title></rect>"#,
            cx - width / 2.0,
            (H - MB - top).max(0.0),
            esc(&b.label),
            num(b.value),
            num(b.low),
            num(b.high)
        );
        let (lo, hi) = (f.py(b.low), f.py(b.high));
        let _ = write!(
            out,
            r#"<g class="whisker"><line x1="{cx:.1}" y1="{lo:.1}" x2="{cx:.1}" y2="{hi:.1}"/><line x1="{:.1}" y1="{lo:.1}" x2="{:.1}" y2="{lo:.1}"/><line x1="{:.1}" y1="{hi:.1}" x2="{:.1}" y2="{hi:.1}"/></g>"#,
            cx - 8.0,
            cx + 8.0,
            cx - 8.0,
            cx + 8.0
        );
        let label = if b.marked {
            format!("{} (baseline)", b.label)
        } else {
            b.label.clone()
        };
        let _ = write!(
            out,
            r#"<text class="tick" x="{cx:.1}" y="{}" text-anchor="middle">{}</text><text class="note" x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            H - MB + 18.0,
            esc(&label),
            hi.min(top) - 6.0,
            esc(&b.note)
        );
    }
    out.push_str("</svg>");
    out
}

/// A histogram bin: the values from `lo` to `hi` and how many fell there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub count: u64,
}

/// A histogram (bars, left axis: share of the I/Os in percent) with its
/// cumulative distribution (a line, right axis: 0 to 100%) over a log x
/// axis, and a dashed line at each marked value (the percentiles), with
/// its label.
pub fn histogram(title: &str, x_label: &str, bins: &[Bin], marks: &[(String, f64)]) -> String {
    let total: u64 = bins.iter().map(|b| b.count).sum();
    let share = |c: u64| 100.0 * c as f64 / total.max(1) as f64;
    let x = Axis::log(x_label, bins.iter().flat_map(|b| [b.lo, b.hi]));
    let y = Axis::linear("share of I/Os (%)", bins.iter().map(|b| share(b.count)));
    let f = Frame { x, y };
    let mut out = String::new();
    open(&mut out, title, H);
    axes(&mut out, &f, true);
    // The CDF rises from 0 where the first bin starts.
    let start = bins.first().map_or(f.x.lo, |b| b.lo);
    let mut cdf = vec![format!("{:.1},{:.1}", f.px(start), H - MB)];
    let mut seen = 0;
    for b in bins {
        let (l, r) = (f.px(b.lo), f.px(b.hi));
        let top = f.py(share(b.count));
        let _ = write!(
            out,
            r#"<rect x="{l:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{}" fill-opacity="0.75"><title>{} to {}: {} I/Os</title></rect>"#,
            (r - l).max(1.0),
            (H - MB - top).max(0.0),
            colour(0),
            num(b.lo),
            num(b.hi),
            b.count
        );
        seen += b.count;
        let y = H - MB - (H - MT - MB) * seen as f64 / total.max(1) as f64;
        cdf.push(format!("{r:.1},{y:.1}"));
    }
    let _ = write!(
        out,
        r#"<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>"#,
        colour(1),
        cdf.join(" ")
    );
    // The CDF's own axis, on the right.
    for pct in [0, 25, 50, 75, 100] {
        let y = H - MB - (H - MT - MB) * f64::from(pct) / 100.0;
        let _ = write!(
            out,
            r#"<text class="tick" x="{}" y="{:.1}">{pct}%</text>"#,
            W - MR + 6.0,
            y + 4.0
        );
    }
    for (k, (name, v)) in marks.iter().enumerate() {
        let px = f.px(*v);
        let _ = write!(
            out,
            r##"<line class="mark" x1="{px:.1}" y1="{MT}" x2="{px:.1}" y2="{}"/><text class="mark" x="{:.1}" y="{:.1}">{}</text>"##,
            H - MB,
            px + 3.0,
            MT + 12.0 + 13.0 * k as f64,
            esc(name)
        );
    }
    legend(
        &mut out,
        &[
            ("I/Os per bin (%)".into(), colour(0)),
            ("cumulative (%)".into(), colour(1)),
        ],
    );
    out.push_str("</svg>");
    out
}

/// A heat grid: a cell per (row, column) coloured by its value (darker is
/// more) with the value written in it; None leaves the cell empty.
pub fn heat_grid(
    title: &str,
    row_label: &str,
    rows: &[String],
    col_label: &str,
    cols: &[String],
    cells: &[Vec<Option<f64>>],
) -> String {
    let cell_w = ((W - ML - MR) / cols.len().max(1) as f64).min(110.0);
    let cell_h = 34.0;
    let height = MT + 30.0 + cell_h * rows.len() as f64 + 30.0;
    let max = cells
        .iter()
        .flatten()
        .flatten()
        .fold(0f64, |m, v| m.max(*v));
    let mut out = String::new();
    open(&mut out, title, height);
    // The column axis's label, then its values, then the cells.
    let top = MT + 30.0;
    for (c, name) in cols.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            ML + cell_w * (c as f64 + 0.5),
            top - 8.0,
            esc(name)
        );
    }
    for (r, name) in rows.iter().enumerate() {
        let y = top + cell_h * r as f64;
        let _ = write!(
            out,
            r#"<text class="tick" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            ML - 8.0,
            y + cell_h / 2.0 + 4.0,
            esc(name)
        );
        for c in 0..cols.len() {
            let x = ML + cell_w * c as f64;
            let Some(v) = cells.get(r).and_then(|row| row.get(c)).copied().flatten() else {
                continue;
            };
            let share = if max > 0.0 { v / max } else { 0.0 };
            // From pale to the palette's blue; text turns white on dark cells.
            let mix = |a: f64, b: f64| (a + (b - a) * share).round() as u8;
            let fill = format!(
                "#{:02x}{:02x}{:02x}",
                mix(240.0, 0.0),
                mix(246.0, 114.0),
                mix(252.0, 178.0)
            );
            let ink = if share > 0.55 { "#ffffff" } else { "#000000" };
            let _ = write!(
                out,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{cell_w:.1}" height="{cell_h}" fill="{fill}" stroke="#ffffff"/><text x="{:.1}" y="{:.1}" fill="{ink}" text-anchor="middle" class="cell">{}</text>"##,
                x + cell_w / 2.0,
                y + cell_h / 2.0 + 5.0,
                num(v)
            );
        }
    }
    let _ = write!(
        out,
        r#"<text class="label" x="{:.1}" y="{}" text-anchor="middle">{}</text><text class="label" x="{}" y="{}" text-anchor="end">{}</text>"#,
        ML + cell_w * cols.len() as f64 / 2.0,
        MT + 2.0,
        esc(col_label),
        ML - 8.0,
        top - 8.0,
        esc(row_label)
    );
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            esc(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }

    #[test]
    fn a_chart_escapes_every_user_text() {
        let evil = "<b>&\"job\"</b>";
        let s = Series {
            name: evil.into(),
            points: vec![(1.0, 2.0)],
            labels: vec![evil.into()],
        };
        let two = [s.clone(), s];
        let svg = lines(
            evil,
            Axis::linear(evil, [1.0]),
            Axis::linear(evil, [2.0]),
            &two,
        );
        assert!(!svg.contains("<b>"), "{svg}");
        assert!(svg.contains("&lt;b&gt;&amp;&quot;job&quot;&lt;/b&gt;"));
        let bar = Bar {
            label: evil.into(),
            value: 1.0,
            low: 0.5,
            high: 1.5,
            marked: true,
            note: evil.into(),
        };
        assert!(!bars(evil, evil, &[bar]).contains("<b>"));
        let grid = heat_grid(
            evil,
            evil,
            &[evil.into()],
            evil,
            &[evil.into()],
            &[vec![Some(1.0)]],
        );
        assert!(!grid.contains("<b>"));
    }

    #[test]
    fn a_histogram_marks_its_percentiles_and_ends_its_cdf_at_100() {
        let bins = [
            Bin {
                lo: 1000.0,
                hi: 2000.0,
                count: 3,
            },
            Bin {
                lo: 2000.0,
                hi: 4000.0,
                count: 1,
            },
        ];
        let svg = histogram("t", "latency (µs)", &bins, &[("p50 <".into(), 1500.0)]);
        assert!(svg.contains(">p50 &lt;</text>"), "{svg}");
        // 75% of the I/Os in the first bin: its bar reaches the axis top
        // (75 rounds the axis up to 80).
        assert!(svg.contains("<title>1000 to 2000: 3 I/Os</title>"));
        // The CDF ends at the top of the plot (y = MT) at the last bin's end.
        let end = format!(
            "{:.1},{:.1}\"",
            ML + (W - ML - MR) * Axis::log("", [1000.0, 4000.0]).frac(4000.0),
            MT
        );
        assert!(svg.contains(&end), "{end} in {svg}");
    }
}
