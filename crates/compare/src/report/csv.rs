//! The table as CSV (RFC 4180: one header line, CRLF line ends, fields holding a comma, a quote
//! or a line break quoted with quotes doubled): one line per cell, in table order.
//!
//! Formula injection: a spreadsheet opening the file runs a cell that begins with `=`, `+`, `-`,
//! `@`, a tab or a CR as a formula (`=HYPERLINK(…)` as a model name or run id). The rule: every
//! text cell, which holds data (names, ids, labels), goes through [`csv_field`], which puts a `'`
//! before such a beginning; the numbers this file formats itself (counts, percentages, drops,
//! p-values) go through [`csv_number`] and stay numbers, so a drop of `-3.2000` reads as -3.2.

use crate::table::Comparison;

pub const CSV_HEADER: &str = "mode,model,dataset,task,perturbation,run_id,source,samples,errors,scored,pass_at_1,ci_low,ci_high,pass_at_5,pass_at_5_samples,vanilla_run_id,paired,vanilla_pass_at_1_paired,perturbed_pass_at_1_paired,drop_abs,drop_rel,mcnemar_b,mcnemar_c,mcnemar_p";

/// What a spreadsheet takes as the start of a formula (OWASP's list for CSV injection).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// One text field from data: a `'` put before a formula's beginning (`=1+1` is written `'=1+1`, and
/// read by a spreadsheet as the text `=1+1`), then quoted when RFC 4180 requires it.
pub fn csv_field(text: &str) -> String {
    if text.starts_with(FORMULA_STARTS) { quoted(&format!("'{text}")) } else { quoted(text) }
}

/// A number this file formatted (`-3.2000`, `12`, `1.250e-5`): quoted when RFC 4180 requires it,
/// never prefixed, so it stays a number. Only for text made by [`number`], [`p_value`] or
/// `to_string` of a number, never for data.
fn csv_number(text: &str) -> String {
    quoted(text)
}

fn quoted(text: &str) -> String {
    if text.contains([',', '"', '\r', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// Percentages with four decimals (more than the Markdown shows, for further computation).
fn number(value: Option<f64>) -> String {
    let Some(value) = value else { return String::new() };
    let text = format!("{value:.4}");
    if text == "-0.0000" { "0.0000".to_string() } else { text }
}

fn p_value(p: f64) -> String {
    if p == 0.0 || p >= 0.0001 { format!("{p:.6}") } else { format!("{p:.3e}") }
}

pub fn csv_table(comparison: &Comparison) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push_str("\r\n");
    for table in &comparison.tables {
        for (model_index, row) in table.cells.iter().enumerate() {
            for (column_index, cell) in row.iter().enumerate() {
                let Some(cell) = cell else { continue };
                let column = &comparison.columns[column_index];
                let run = &comparison.runs[cell.run];
                let score = &cell.score;
                let vanilla = run.vanilla.map(|v| comparison.runs[v].run_id.clone()).unwrap_or_default();
                let drop = cell.drop.as_ref();
                let (text, num) = (csv_field, csv_number);
                let line = [
                    text(table.mode.label()),
                    text(&comparison.models[model_index]),
                    text(&column.dataset),
                    text(column.task.label()),
                    text(&column.perturbation.label()),
                    text(&run.run_id),
                    text(&run.source),
                    num(&score.samples.to_string()),
                    num(&score.errors.to_string()),
                    num(&score.scored.to_string()),
                    num(&number(score.pass_at_1)),
                    num(&number(score.interval.map(|i| i.low))),
                    num(&number(score.interval.map(|i| i.high))),
                    num(&number(score.pass_at_5)),
                    num(&score.pass_at_5_samples.to_string()),
                    text(if drop.is_some() { &vanilla } else { "" }),
                    num(&drop.map(|d| d.paired.to_string()).unwrap_or_default()),
                    num(&number(drop.map(|d| d.vanilla_pass_at_1))),
                    num(&number(drop.map(|d| d.perturbed_pass_at_1))),
                    num(&number(drop.map(|d| d.absolute))),
                    num(&number(drop.and_then(|d| d.relative))),
                    num(&drop.map(|d| d.mcnemar.b.to_string()).unwrap_or_default()),
                    num(&drop.map(|d| d.mcnemar.c.to_string()).unwrap_or_default()),
                    num(&drop.map(|d| p_value(d.mcnemar.p_value)).unwrap_or_default()),
                ];
                out.push_str(&line.join(","));
                out.push_str("\r\n");
            }
        }
    }
    out
}
