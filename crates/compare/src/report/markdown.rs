//! The comparison as a Markdown section headed `## Comparison <date>`: a report file collects one
//! section per comparison, appended (as CodeGrapher's runner appends its results).

use execbench_core::markdown_text;

use crate::report::{one_decimal, p_value_words};
use crate::score::RunScore;
use crate::table::{Cell, Comparison};

fn score_words(score: &RunScore) -> String {
    let mut words = match score.pass_at_1 {
        Some(p) => one_decimal(p),
        None => "n/a".to_string(),
    };
    if let Some(interval) = score.interval {
        words.push_str(&format!(" [{}, {}]", one_decimal(interval.low), one_decimal(interval.high)));
    }
    if let Some(p5) = score.pass_at_5 {
        words.push_str(&format!("; pass@5 {}", one_decimal(p5)));
    }
    words
}

fn cell_words(cell: &Cell) -> String {
    let mut words = score_words(&cell.score);
    if let Some(drop) = &cell.drop {
        let relative = drop.relative.map(|r| format!(" ({}%)", one_decimal(r))).unwrap_or_default();
        words.push_str(&format!(
            "; drop {} pt{relative}, p {}",
            one_decimal(drop.absolute),
            p_value_words(drop.mcnemar.p_value)
        ));
    }
    words
}

/// The section for `comparison`, dated by the caller (`2026-11-25`, or with a time).
pub fn markdown_section(comparison: &Comparison, date: &str) -> String {
    let mut out = format!("## Comparison {}\n\n", markdown_text(date));
    out.push_str(&format!(
        "{} runs, seed {}, {} bootstrap resamples. A cell is pass@1 in percent with its 95% bootstrap interval, \
         pass@5 where samples have 5 answers, and for a perturbed run the drop against the vanilla run of the same \
         model over the samples both scored (points, and relative) with McNemar's exact p on the first answers.\n\n",
        comparison.runs.len(),
        comparison.options.seed,
        comparison.options.bootstrap
    ));
    for table in &comparison.tables {
        let mode = markdown_text(table.mode.label());
        out.push_str(&format!("### {mode}\n\n| model |"));
        for column in 0..comparison.columns.len() {
            out.push_str(&format!(" {} |", markdown_text(&comparison.column_label(column))));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(comparison.columns.len()));
        out.push('\n');
        for (model, row) in comparison.models.iter().zip(&table.cells) {
            out.push_str(&format!("| {} |", markdown_text(model)));
            for cell in row {
                out.push_str(&format!(" {} |", cell.as_ref().map_or_else(|| "–".to_string(), cell_words)));
            }
            out.push('\n');
        }
        out.push('\n');

        let pairs: Vec<_> = comparison.pairs.iter().filter(|p| p.mode == table.mode).collect();
        if !pairs.is_empty() {
            out.push_str(&format!("Flipped samples ({mode}, first answers):\n\n| model | column | paired | right → wrong | wrong → right | McNemar p |\n|---|---|---:|---:|---:|---:|\n"));
            for pair in pairs {
                let run = &comparison.runs[pair.perturbed];
                let mut column = run.column.map(|c| comparison.column_label(c)).unwrap_or_default();
                if pair.repeat {
                    column = format!("{column}, against {}", comparison.run_label(pair.vanilla));
                }
                let (b, c, p) =
                    pair.drop.as_ref().map_or((0, 0, 1.0), |d| (d.mcnemar.b, d.mcnemar.c, d.mcnemar.p_value));
                out.push_str(&format!(
                    "| {} | {} | {} | {b} | {c} | {} |\n",
                    markdown_text(run.row.map_or(&run.identity.model, |r| &comparison.models[r])),
                    markdown_text(&column),
                    pair.samples.len(),
                    p_value_words(p)
                ));
            }
            out.push('\n');
        }

        let categories: Vec<_> = comparison.categories.iter().filter(|c| c.mode == table.mode).collect();
        if !categories.is_empty() {
            out.push_str(&format!("Per category ({mode}, pass@1 [95% interval], samples):\n\n| model | column | category | pass@1 | samples |\n|---|---|---|---:|---:|\n"));
            for run in categories {
                for score in &run.scores {
                    let figure = match (score.pass_at_1, score.interval) {
                        (Some(p), Some(i)) => {
                            format!("{} [{}, {}]", one_decimal(p), one_decimal(i.low), one_decimal(i.high))
                        }
                        (Some(p), None) => one_decimal(p),
                        (None, _) => "n/a".to_string(),
                    };
                    out.push_str(&format!(
                        "| {} | {} | {} | {figure} | {} |\n",
                        markdown_text(&comparison.models[run.model]),
                        markdown_text(&comparison.column_label(run.column)),
                        markdown_text(&score.category),
                        score.samples
                    ));
                }
            }
            out.push('\n');
        }
    }

    out.push_str("Runs:\n\n| run | file | model | dataset | task | perturbation | vanilla run |\n|---|---|---|---|---|---|---|\n");
    for run in &comparison.runs {
        let vanilla = run.vanilla.map(|v| comparison.runs[v].run_id.clone()).unwrap_or_else(|| "–".to_string());
        let identity = &run.identity;
        let dataset = run.column.map_or(identity.dataset.clone(), |c| comparison.columns[c].dataset.clone());
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            markdown_text(&run.run_id),
            markdown_text(&run.source),
            markdown_text(&identity.model),
            markdown_text(&dataset),
            markdown_text(identity.task.label()),
            markdown_text(&identity.perturbation.label()),
            markdown_text(&vanilla)
        ));
    }
    if !comparison.notes.is_empty() {
        out.push_str("\nNotes:\n\n");
        for note in &comparison.notes {
            out.push_str(&format!("- {}\n", markdown_text(note)));
        }
    }
    out
}

/// `existing` (a report file's text, possibly empty) with `section` added at the end, separated by
/// one blank line; nothing already there changes.
pub fn append_section(existing: &str, section: &str) -> String {
    let mut out = existing.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
    }
    out.push_str(section);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}
