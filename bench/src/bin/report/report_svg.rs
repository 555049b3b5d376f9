//! The plot: requests/s and p99 latency per transport and case, toolwire / rmcp / floor, as
//! horizontal bars on log scales, written as plain SVG text (no plotting library).

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One case: its label and, per implementation, (name, requests/s, p99 µs).
pub(crate) struct Group {
    pub(crate) label: String,
    pub(crate) bars: Vec<(String, Option<f64>, Option<f64>)>,
}

const COLOURS: [(&str, &str); 4] =
    [("toolwire", "#1f77b4"), ("rmcp", "#ff7f0e"), ("rmcp-default", "#ffbb78"), ("floor", "#7f7f7f")];
const BAR_H: f64 = 14.0;
const GROUP_GAP: f64 = 26.0;
const PANEL_W: f64 = 420.0;
const LABEL_W: f64 = 190.0;
const TOP: f64 = 70.0;
/// The height of a group's label line, above its bars.
const LABEL_H: f64 = 16.0;

fn colour(name: &str) -> &'static str {
    COLOURS.iter().find(|(n, _)| *n == name).map_or("#2ca02c", |(_, c)| c)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Bars of one metric on a log10 axis from `lo` to `hi` (powers of ten).
fn panel(
    out: &mut String,
    x0: f64,
    title: &str,
    groups: &[Group],
    pick: impl Fn(&(String, Option<f64>, Option<f64>)) -> Option<f64>,
) {
    let values: Vec<f64> =
        groups.iter().flat_map(|g| g.bars.iter().filter_map(&pick)).filter(|v| *v > 0.0).collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min).max(1e-3).log10().floor();
    let hi = values.iter().copied().fold(0.0, f64::max).max(1.0).log10().ceil().max(lo + 1.0);
    let x = |v: f64| x0 + LABEL_W + (v.log10() - lo) / (hi - lo) * (PANEL_W - LABEL_W - 60.0);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="14" font-weight="bold">{}</text>"#,
        x0,
        TOP - 30.0,
        esc(title)
    );
    let height = groups.iter().map(|g| g.bars.len() as f64 * BAR_H + LABEL_H + GROUP_GAP).sum::<f64>();
    let mut p = lo;
    while p <= hi {
        let v = 10f64.powf(p);
        let _ = writeln!(
            out,
            r##"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="#ddd"/><text x="{0:.1}" y="{3}" font-size="10" text-anchor="middle">{4}</text>"##,
            x(v),
            TOP - 12.0,
            TOP + height - GROUP_GAP + 4.0,
            TOP - 16.0,
            human(v)
        );
        p += 1.0;
    }
    let mut y = TOP;
    for g in groups {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-size="11" font-weight="bold">{}</text>"#,
            x0,
            y + 10.0,
            esc(&g.label)
        );
        y += LABEL_H;
        for bar in &g.bars {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" font-size="10" text-anchor="end">{}</text>"#,
                x0 + LABEL_W - 6.0,
                y + BAR_H - 3.0,
                esc(&bar.0)
            );
            match pick(bar).filter(|v| *v > 0.0) {
                Some(v) => {
                    let w = (x(v) - (x0 + LABEL_W)).max(1.0);
                    let _ = writeln!(
                        out,
                        r#"<rect x="{}" y="{}" width="{w:.1}" height="{}" fill="{}"/><text x="{}" y="{}" font-size="10">{}</text>"#,
                        x0 + LABEL_W,
                        y + 1.0,
                        BAR_H - 2.0,
                        colour(&bar.0),
                        x0 + LABEL_W + w + 4.0,
                        y + BAR_H - 3.0,
                        human(v)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        r##"<text x="{}" y="{}" font-size="10" fill="#999">not measured</text>"##,
                        x0 + LABEL_W + 4.0,
                        y + BAR_H - 3.0
                    );
                }
            }
            y += BAR_H;
        }
        y += GROUP_GAP;
    }
}

fn human(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The whole SVG document.
pub(crate) fn plot(machine: &BTreeMap<String, String>, groups: &[Group]) -> String {
    let height =
        TOP + groups.iter().map(|g| g.bars.len() as f64 * BAR_H + LABEL_H + GROUP_GAP).sum::<f64>() + 10.0;
    let width = 2.0 * PANEL_W + 40.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0}" viewBox="0 0 {width} {height:.0}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="10" y="18" font-size="13">toolwire vs rmcp 3.11.0 vs a no-SDK floor: medians of interleaved runs ({}; {} cores; {})</text>"#,
        esc(machine.get("date").map_or("?", String::as_str)),
        esc(machine.get("nproc").map_or("?", String::as_str)),
        esc(machine.get("cpu").map_or("?", String::as_str)),
    );
    panel(&mut s, 10.0, "requests/s (log scale, higher is better)", groups, |b| b.1);
    panel(&mut s, PANEL_W + 30.0, "p99 latency, µs (log scale, lower is better)", groups, |b| b.2);
    s.push_str("</svg>\n");
    s
}
