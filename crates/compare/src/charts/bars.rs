//! Grouped bars on a 0-100 % scale with error bars: pass@1 per model (groups) and column (bars),
//! and pass@1 per category (groups) and run (bars).

use std::collections::BTreeSet;

use execbench_eval::score::Mode;

use crate::charts::svg::{SERIES_PALETTE, coord, escape, open, text_width, title_width, wrapped};
use crate::report::one_decimal;
use crate::stats::Interval;
use crate::table::Comparison;

/// One bar: a percentage, its interval, and what its tooltip says.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub interval: Option<Interval>,
    pub title: String,
}

/// `bars[group][series]`; `None` draws no bar (and a dash).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedBars {
    pub title: String,
    pub y_label: String,
    pub groups: Vec<String>,
    pub series: Vec<String>,
    pub bars: Vec<Vec<Option<Bar>>>,
}

const BAR_WIDTH: f64 = 18.0;
const BAR_GAP: f64 = 2.0;
const GROUP_PADDING: f64 = 12.0;
const PLOT_HEIGHT: f64 = 200.0;
const TOP: f64 = 36.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 16.0;
const LEGEND_ROW: f64 = 18.0;
/// A group's label wraps at this width (or the group's, when wider); each line adds its height.
const GROUP_LABEL_WIDTH: f64 = 150.0;
const LABEL_LINE: f64 = 14.0;

pub fn grouped_bars(chart: &GroupedBars) -> String {
    let series_count = chart.series.len().max(1) as f64;
    // Wide enough for a group's longest word (up to GROUP_LABEL_WIDTH); names wrap, never cut.
    let longest_word = chart
        .groups
        .iter()
        .flat_map(|g| g.split_whitespace())
        .map(|w| text_width(w) + 8.0)
        .fold(0.0, f64::max)
        .min(GROUP_LABEL_WIDTH);
    let group_width =
        (series_count * (BAR_WIDTH + BAR_GAP) - BAR_GAP + 2.0 * GROUP_PADDING).max(72.0).max(longest_word);
    let max_chars = ((group_width - 4.0) / 7.0).max(3.0) as usize;
    let labels: Vec<Vec<String>> = chart.groups.iter().map(|g| wrapped(g, max_chars)).collect();
    let label_lines = labels.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let labels_extra = (label_lines - 1) as f64 * LABEL_LINE;
    let plot_width = group_width * chart.groups.len().max(1) as f64;
    let width = (LEFT + plot_width + RIGHT).max(320.0).max(title_width(&chart.title));
    // The legend wraps at the chart's width.
    let mut legend = Vec::new();
    let (mut x, mut row) = (LEFT, 0usize);
    for name in &chart.series {
        let entry = 18.0 + text_width(name) + 14.0;
        if x + entry > width - RIGHT && x > LEFT {
            x = LEFT;
            row += 1;
        }
        legend.push((x, row));
        x += entry;
    }
    let rows = if chart.series.is_empty() { 0 } else { row + 1 };
    let axis_bottom = TOP + PLOT_HEIGHT;
    let height = axis_bottom + 30.0 + labels_extra + rows as f64 * LEGEND_ROW + 8.0;
    let y = |percent: f64| axis_bottom - PLOT_HEIGHT * percent.clamp(0.0, 100.0) / 100.0;

    let mut out = open(width, height, &chart.title);
    out.push_str("<g class=\"axis\" stroke=\"currentColor\">\n");
    for tick in [0.0, 20.0, 40.0, 60.0, 80.0, 100.0] {
        let ty = coord(y(tick));
        out.push_str(&format!(
            "<line x1=\"{}\" y1=\"{ty}\" x2=\"{}\" y2=\"{ty}\" stroke-opacity=\"{}\"/>\n",
            coord(LEFT),
            coord(LEFT + plot_width),
            if tick == 0.0 { "1" } else { "0.2" }
        ));
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" stroke=\"none\" fill=\"currentColor\">{}</text>\n",
            coord(LEFT - 6.0),
            coord(y(tick) + 4.0),
            tick as u32
        ));
    }
    out.push_str(&format!(
        "<line x1=\"{l}\" y1=\"{}\" x2=\"{l}\" y2=\"{}\"/>\n",
        coord(TOP),
        coord(axis_bottom),
        l = coord(LEFT)
    ));
    out.push_str(&format!(
        "<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\" stroke=\"none\" fill=\"currentColor\">{}</text>\n</g>\n",
        coord(TOP + PLOT_HEIGHT / 2.0),
        escape(&chart.y_label)
    ));

    out.push_str("<g class=\"bars\">\n");
    for (g, group) in chart.groups.iter().enumerate() {
        let group_left = LEFT + g as f64 * group_width;
        let bars_width = series_count * (BAR_WIDTH + BAR_GAP) - BAR_GAP;
        let first_bar = group_left + (group_width - bars_width) / 2.0;
        for (s, bar) in chart.bars.get(g).into_iter().flatten().enumerate() {
            let bar_x = first_bar + s as f64 * (BAR_WIDTH + BAR_GAP);
            let Some(bar) = bar else {
                out.push_str(&format!(
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"currentColor\">–</text>\n",
                    coord(bar_x + BAR_WIDTH / 2.0),
                    coord(axis_bottom - 4.0)
                ));
                continue;
            };
            let top = y(bar.value);
            out.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"currentColor\" stroke-width=\"0.5\"><title>{}</title></rect>\n",
                coord(bar_x),
                coord(top),
                coord(BAR_WIDTH),
                coord(axis_bottom - top),
                SERIES_PALETTE[s % SERIES_PALETTE.len()],
                escape(&bar.title)
            ));
            if let Some(interval) = bar.interval {
                let (cx, low, high) = (bar_x + BAR_WIDTH / 2.0, y(interval.low), y(interval.high));
                out.push_str(&format!(
                    "<path class=\"error-bar\" d=\"M{cx} {low}V{high}M{l} {low}H{r}M{l} {high}H{r}\" stroke=\"currentColor\" stroke-width=\"1.2\" fill=\"none\"/>\n",
                    cx = coord(cx),
                    low = coord(low),
                    high = coord(high),
                    l = coord(cx - 4.0),
                    r = coord(cx + 4.0)
                ));
            }
        }
        let x = coord(group_left + group_width / 2.0);
        let lines: String = labels[g]
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let dy = if i == 0 { "0".to_string() } else { coord(LABEL_LINE) };
                format!("<tspan x=\"{x}\" dy=\"{dy}\">{}</tspan>", escape(line))
            })
            .collect();
        out.push_str(&format!(
            "<text class=\"group\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"currentColor\"><title>{}</title>{lines}</text>\n",
            coord(axis_bottom + 18.0),
            escape(group),
        ));
    }
    out.push_str("</g>\n<g class=\"legend\">\n");
    for (s, (name, (lx, row))) in chart.series.iter().zip(&legend).enumerate() {
        let ly = axis_bottom + 30.0 + labels_extra + *row as f64 * LEGEND_ROW;
        out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"currentColor\" stroke-width=\"0.5\"/><text x=\"{}\" y=\"{}\" fill=\"currentColor\">{}</text>\n",
            coord(*lx),
            coord(ly),
            SERIES_PALETTE[s % SERIES_PALETTE.len()],
            coord(lx + 18.0),
            coord(ly + 10.0),
            escape(name)
        ));
    }
    out.push_str("</g>\n</svg>\n");
    out
}

fn bar_title(who: &str, value: f64, interval: Option<Interval>) -> String {
    match interval {
        Some(i) => format!("{who}: {}% [{}, {}]", one_decimal(value), one_decimal(i.low), one_decimal(i.high)),
        None => format!("{who}: {}%", one_decimal(value)),
    }
}

/// pass@1 per model (groups) and column (bars) in `mode`; `None` when no run has that mode.
pub fn pass_at_1_chart(comparison: &Comparison, mode: Mode) -> Option<String> {
    let table = comparison.table(mode)?;
    let series: Vec<String> = (0..comparison.columns.len()).map(|c| comparison.column_label(c)).collect();
    let bars = table
        .cells
        .iter()
        .zip(&comparison.models)
        .map(|(row, model)| {
            row.iter()
                .zip(&series)
                .map(|(cell, column)| {
                    let cell = cell.as_ref()?;
                    let value = cell.score.pass_at_1?;
                    Some(Bar {
                        value,
                        interval: cell.score.interval,
                        title: bar_title(&format!("{model} · {column}"), value, cell.score.interval),
                    })
                })
                .collect()
        })
        .collect();
    Some(grouped_bars(&GroupedBars {
        title: format!("pass@1 per model and perturbation ({})", mode.label()),
        y_label: "pass@1 (%)".to_string(),
        groups: comparison.models.clone(),
        series,
        bars,
    }))
}

/// pass@1 per category (groups) and run (bars) in `mode`; `None` without categories.
pub fn category_chart(comparison: &Comparison, mode: Mode) -> Option<String> {
    let runs: Vec<_> = comparison.categories.iter().filter(|c| c.mode == mode).collect();
    if runs.is_empty() {
        return None;
    }
    let groups: Vec<String> = runs
        .iter()
        .flat_map(|r| r.scores.iter().map(|s| s.category.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let series: Vec<String> = runs
        .iter()
        .map(|r| format!("{} · {}", comparison.models[r.model], comparison.column_label(r.column)))
        .collect();
    let bars = groups
        .iter()
        .map(|category| {
            runs.iter()
                .zip(&series)
                .map(|(run, name)| {
                    let score = run.scores.iter().find(|s| &s.category == category)?;
                    let value = score.pass_at_1?;
                    Some(Bar {
                        value,
                        interval: score.interval,
                        title: bar_title(
                            &format!("{name} · {category} ({} samples)", score.samples),
                            value,
                            score.interval,
                        ),
                    })
                })
                .collect()
        })
        .collect();
    Some(grouped_bars(&GroupedBars {
        title: format!("pass@1 per category ({})", mode.label()),
        y_label: "pass@1 (%)".to_string(),
        groups,
        series,
        bars,
    }))
}

/// The trace gap: per model (groups), pass@1 on each kind of question (bars: output first, then
/// coverage, state, path) of its question run in `mode`, and the share of programs whose whole
/// chain of questions was answered right; `None` without a question run. A model far better on
/// `output` than on `state` and `path` predicts outputs without following the run.
pub fn question_kinds_chart(comparison: &Comparison, mode: Mode) -> Option<String> {
    let runs: Vec<_> = comparison.questions.iter().filter(|q| q.mode == mode && !q.scores.is_empty()).collect();
    if runs.is_empty() {
        return None;
    }
    let kinds: Vec<_> = crate::questions::CHART_ORDER
        .into_iter()
        .filter(|k| runs.iter().any(|r| r.scores.iter().any(|s| s.kind == *k)))
        .collect();
    let one_column = runs.iter().all(|r| r.column == runs[0].column);
    let groups: Vec<String> = runs
        .iter()
        .map(|r| {
            let model = comparison.models[r.model].clone();
            if one_column { model } else { format!("{model} · {}", comparison.column_label(r.column)) }
        })
        .collect();
    let chained = runs.iter().any(|r| r.chains.is_some());
    let bars = runs
        .iter()
        .zip(&groups)
        .map(|(run, group)| {
            let mut row: Vec<Option<Bar>> = kinds
                .iter()
                .map(|kind| {
                    let score = run.scores.iter().find(|s| s.kind == *kind)?;
                    let value = score.pass_at_1?;
                    Some(Bar {
                        value,
                        interval: score.interval,
                        title: bar_title(
                            &format!("{group} · {} questions ({} asked)", kind.label(), score.samples),
                            value,
                            score.interval,
                        ),
                    })
                })
                .collect();
            if chained {
                row.push(run.chains.as_ref().map(|chain| Bar {
                    value: chain.whole,
                    interval: None,
                    title: format!(
                        "{group} · whole chain ({} programs, {} kinds right before the first wrong one on average, of {}): {}%",
                        chain.programs,
                        one_decimal(chain.mean_depth),
                        chain.links,
                        one_decimal(chain.whole)
                    ),
                }));
            }
            row
        })
        .collect();
    let mut series: Vec<String> = kinds.iter().map(|k| k.label().to_string()).collect();
    if chained {
        series.push("whole chain".to_string());
    }
    Some(grouped_bars(&GroupedBars {
        title: format!("Output against the run: pass@1 per kind of question ({})", mode.label()),
        y_label: "pass@1 (%)".to_string(),
        groups,
        series,
        bars,
    }))
}
