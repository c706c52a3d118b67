//! The table as CSV (RFC 4180: one header line, CRLF line ends, fields holding a comma, a quote
//! or a line break quoted with quotes doubled): one line per cell, in table order.

use crate::table::Comparison;

pub const CSV_HEADER: &str = "mode,model,dataset,task,perturbation,run_id,source,samples,errors,scored,pass_at_1,ci_low,ci_high,pass_at_5,pass_at_5_samples,vanilla_run_id,paired,vanilla_pass_at_1_paired,perturbed_pass_at_1_paired,drop_abs,drop_rel,mcnemar_b,mcnemar_c,mcnemar_p";

/// One field, quoted when RFC 4180 requires it.
pub fn csv_field(text: &str) -> String {
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
                let fields = [
                    table.mode.label().to_string(),
                    comparison.models[model_index].clone(),
                    column.dataset.clone(),
                    column.task.label().to_string(),
                    column.perturbation.label(),
                    run.run_id.clone(),
                    run.source.clone(),
                    score.samples.to_string(),
                    score.errors.to_string(),
                    score.scored.to_string(),
                    number(score.pass_at_1),
                    number(score.interval.map(|i| i.low)),
                    number(score.interval.map(|i| i.high)),
                    number(score.pass_at_5),
                    score.pass_at_5_samples.to_string(),
                    if drop.is_some() { vanilla } else { String::new() },
                    drop.map(|d| d.paired.to_string()).unwrap_or_default(),
                    number(drop.map(|d| d.vanilla_pass_at_1)),
                    number(drop.map(|d| d.perturbed_pass_at_1)),
                    number(drop.map(|d| d.absolute)),
                    number(drop.and_then(|d| d.relative)),
                    drop.map(|d| d.mcnemar.b.to_string()).unwrap_or_default(),
                    drop.map(|d| d.mcnemar.c.to_string()).unwrap_or_default(),
                    drop.map(|d| p_value(d.mcnemar.p_value)).unwrap_or_default(),
                ];
                let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
                out.push_str(&line.join(","));
                out.push_str("\r\n");
            }
        }
    }
    out
}
