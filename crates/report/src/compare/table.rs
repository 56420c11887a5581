//! The tables of `ioscope compare` and `ioscope sweep` as text: aligned
//! columns for a terminal, or markdown to paste into a bug report. The
//! wording of the verdicts follows hyperfine's ("… ran 1.5 ± 0.1 times
//! faster than …"): the figure, its interval, and a plain word.

use super::metrics::Metric;
use super::stat::{Diff, Stat, Verdict};
use super::summary::Summary;
use super::{Comparison, Style, Sweep};

/// The comparison: a table of each configuration's figures, one of the
/// differences from the baseline, the verdicts, and the notices.
pub fn compare_table(c: &Comparison, style: Style) -> String {
    let mut out = String::new();
    let warmup = match c.warmup {
        0 => String::new(),
        1 => ", after 1 warm-up run each".into(),
        n => format!(", after {n} warm-up runs each"),
    };
    out.push_str(&format!(
        "{} configurations, {} runs each, interleaved{warmup}; \
         ± is the 95% confidence interval of the mean.\n\n",
        c.configurations.len(),
        c.repeats
    ));
    let summaries: Vec<Summary> = c
        .configurations
        .iter()
        .map(|conf| Summary::of(&conf.runs))
        .collect();
    let metrics: Vec<Metric> = Metric::ALL
        .into_iter()
        .filter(|&m| m != Metric::Punts || summaries.iter().any(|s| s.get(m).is_some()))
        .collect();
    let mut rows = vec![heading("configuration", &metrics)];
    for (i, (conf, summary)) in c.configurations.iter().zip(&summaries).enumerate() {
        let name = if i == c.baseline {
            format!("{} (baseline)", conf.name)
        } else {
            conf.name.clone()
        };
        rows.push(figures(name, summary, &metrics));
    }
    out.push_str(&grid(&rows, style));

    let base = &c.configurations[c.baseline].name;
    out.push_str(&format!(
        "\nDifference from {base} (± the 95% confidence interval, Welch's t):\n\n"
    ));
    let mut rows = vec![std::iter::once("configuration".to_string())
        .chain(Metric::JUDGED.iter().map(|m| m.heading().to_string()))
        .collect::<Vec<_>>()];
    let mut verdicts = Vec::new();
    for (i, conf) in c.configurations.iter().enumerate() {
        let Some(diffs) = c.vs_baseline(i) else {
            continue;
        };
        let mut row = vec![conf.name.clone()];
        row.extend(diffs.iter().map(|(m, d)| diff_cell(*m, d)));
        rows.push(row);
        let iops = diffs.iter().find(|(m, _)| *m == Metric::Iops).map(|p| p.1);
        verdicts.push(verdict_line(c, i, iops));
    }
    out.push_str(&grid(&rows, style));
    out.push('\n');
    for line in verdicts.into_iter().flatten() {
        match style {
            Style::Normal => out.push_str(&format!("  {line}\n")),
            Style::Markdown => out.push_str(&format!("- {line}\n")),
        }
    }
    out.push_str(&crate::notices::block(&c.notices));
    out
}

/// hyperfine's sentence for one configuration, judged by IOPS.
fn verdict_line(c: &Comparison, index: usize, iops: Option<Diff>) -> Option<String> {
    let (verdict, d) = (c.verdict(index)?, iops?);
    let name = &c.configurations[index].name;
    let base = &c.configurations[c.baseline].name;
    let by = format!("{} ± {}", pct(d.diff_pct.abs()), pct(half(&d)));
    Some(match verdict {
        Verdict::Faster => format!("{name} is faster than {base}: {by} more IOPS"),
        Verdict::Slower => format!("{name} is slower than {base}: {by} fewer IOPS"),
        _ => format!(
            "{name}: no difference from {base} at {} repeats (IOPS {} ± {})",
            c.repeats,
            signed_pct(d.diff_pct),
            pct(half(&d))
        ),
    })
}

/// The sweep: one row per point, the axes first.
pub fn sweep_table(s: &Sweep, style: Style) -> String {
    let summaries: Vec<Summary> = s.points.iter().map(|p| Summary::of(&p.runs)).collect();
    let metrics: Vec<Metric> = Metric::ALL
        .into_iter()
        .filter(|&m| m != Metric::Punts || summaries.iter().any(|s| s.get(m).is_some()))
        .collect();
    let mut head: Vec<String> = s.axes.iter().map(|a| a.option.clone()).collect();
    head.extend(metrics.iter().map(|m| m.heading().to_string()));
    head.push("file".into());
    let mut rows = vec![head];
    for (point, summary) in s.points.iter().zip(&summaries) {
        let mut row: Vec<String> = point.options.iter().map(|(_, v)| v.clone()).collect();
        row.extend(
            figures(String::new(), summary, &metrics)
                .into_iter()
                .skip(1),
        );
        row.push(point.file.clone());
        rows.push(row);
    }
    let runs = s.points.first().map_or(0, |p| p.runs.len());
    let mut out = format!(
        "{} points, {} run{} each{}.\n\n",
        s.points.len(),
        runs,
        if runs == 1 { "" } else { "s" },
        if runs > 1 {
            "; ± is the 95% confidence interval of the mean"
        } else {
            ""
        }
    );
    out.push_str(&grid(&rows, style));
    out.push_str(&crate::notices::block(&s.notices));
    out
}

fn heading(first: &str, metrics: &[Metric]) -> Vec<String> {
    std::iter::once(first.to_string())
        .chain(metrics.iter().map(|m| m.heading().to_string()))
        .collect()
}

/// `first`, then each metric's mean (± its interval when there are runs
/// enough to give one).
fn figures(first: String, summary: &Summary, metrics: &[Metric]) -> Vec<String> {
    std::iter::once(first)
        .chain(metrics.iter().map(|&m| match summary.get(m) {
            Some(s) => stat_cell(m, s),
            None => "-".into(),
        }))
        .collect()
}

fn stat_cell(m: Metric, s: &Stat) -> String {
    let scale = display_scale(m);
    if s.n > 1 {
        format!("{} ± {}", num(s.mean / scale), num(s.half_width() / scale))
    } else {
        num(s.mean / scale)
    }
}

fn diff_cell(m: Metric, d: &Diff) -> String {
    let scale = display_scale(m);
    let unit = match m {
        Metric::Bw => "MiB/s",
        other => other.unit(),
    };
    let abs_half = 0.5 * (d.ci_high_abs - d.ci_low_abs) / scale;
    format!(
        "{} ± {} ({}{} ± {} {unit}) {}",
        signed_pct(d.diff_pct),
        pct(half(d)),
        if d.diff_abs >= 0.0 { "+" } else { "" },
        num(d.diff_abs / scale),
        num(abs_half),
        d.verdict.as_str()
    )
}

/// Bandwidth is shown in MiB/s (the JSON keeps bytes/s).
fn display_scale(m: Metric) -> f64 {
    if m == Metric::Bw {
        1024.0 * 1024.0
    } else {
        1.0
    }
}

fn half(d: &Diff) -> f64 {
    0.5 * (d.ci_high_pct - d.ci_low_pct)
}

/// A figure with as many decimals as its size deserves.
fn num(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn pct(x: f64) -> String {
    if x.abs() < 1.0 {
        format!("{x:.2}%")
    } else {
        format!("{x:.1}%")
    }
}

fn signed_pct(x: f64) -> String {
    if x >= 0.0 {
        format!("+{}", pct(x))
    } else {
        pct(x)
    }
}

/// Rows (the first the heading) as aligned columns or a markdown table.
fn grid(rows: &[Vec<String>], style: Style) -> String {
    let mut out = String::new();
    match style {
        Style::Normal => {
            let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
            let width: Vec<usize> = (0..columns)
                .map(|c| {
                    rows.iter()
                        .filter_map(|r| r.get(c))
                        .map(|s| s.chars().count())
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            for row in rows {
                let cells: Vec<String> = row
                    .iter()
                    .zip(&width)
                    .map(|(cell, &w)| format!("{cell:<w$}"))
                    .collect();
                out.push_str(cells.join("  ").trim_end());
                out.push('\n');
            }
        }
        Style::Markdown => {
            for (i, row) in rows.iter().enumerate() {
                let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
                out.push_str(&format!("| {} |\n", cells.join(" | ")));
                if i == 0 {
                    out.push_str(&format!("|{}\n", "---|".repeat(row.len())));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::document::tests::comparison;
    use super::*;

    #[test]
    fn the_text_table_gives_intervals_and_verdicts() {
        let text = compare_table(&comparison(), Style::Normal);
        assert!(
            text.starts_with(
                "3 configurations, 3 runs each, interleaved, after 1 warm-up run each;"
            ),
            "{text}"
        );
        let a = text
            .lines()
            .find(|l| l.starts_with("a (baseline)"))
            .unwrap();
        assert!(a.contains("1000 ± 24.8"), "{a}");
        assert!(text.contains("b is slower than a: 50.0% ± "), "{text}");
        assert!(
            text.contains("c: no difference from a at 3 repeats (IOPS +0.17% ± "),
            "{text}"
        );
        // The punts column shows: every run counted them.
        assert!(text.contains("punts"), "{text}");
    }

    #[test]
    fn the_markdown_table_has_a_separator_under_each_heading() {
        let text = compare_table(&comparison(), Style::Markdown);
        let tables: Vec<&str> = text.lines().filter(|l| l.starts_with("|---|")).collect();
        assert_eq!(tables.len(), 2, "{text}");
        assert!(text.contains("| a (baseline) | "), "{text}");
        assert!(text.contains("- b is slower than a"), "{text}");
    }

    #[test]
    fn figures_get_decimals_by_size() {
        assert_eq!(num(12345.6), "12346");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(1.2345), "1.23");
        assert_eq!(num(0.12345), "0.123");
        assert_eq!(signed_pct(3.125), "+3.1%");
        assert_eq!(signed_pct(-0.5), "-0.50%");
    }
}
