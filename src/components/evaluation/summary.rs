//! The results summary: one table row per run and mode, and a bar chart of pass@1 and pass@5.

use std::sync::Arc;

use execbench_eval::DatasetScore;
use execbench_eval::report::{SummaryShare, summarize_by_question};
use leptos::prelude::*;

use crate::jobs::results::RunResults;

/// `61.3`, `n/a`, or `61.3 (12/800)` when only some samples have the figure (pass@5 needs n >= 5).
pub fn figure(score: &DatasetScore) -> String {
    match score.percent {
        Some(_) if score.available < score.total => {
            format!("{} ({}/{})", score.display(), score.available, score.total)
        }
        _ => score.display(),
    }
}

#[component]
pub fn ResultsSummary(#[prop(into)] runs: Signal<Vec<Arc<RunResults>>>) -> impl IntoView {
    let table_rows = move || {
        runs.get()
            .into_iter()
            .flat_map(|run| {
                run.per_mode
                    .iter()
                    .flat_map(|m| {
                        // A question run: the mode's row, then one row a kind of question.
                        let shares = m.rows.iter().map(SummaryShare::of);
                        let kinds = summarize_by_question(m.summary.task, m.mode, shares);
                        std::iter::once((run.name.clone(), None, m.summary.clone()))
                            .chain(kinds.into_iter().map(|(kind, s)| (run.name.clone(), Some(kind), s)))
                            .collect::<Vec<_>>()
                    })
                    .map(|(name, kind, s)| {
                        let task = match kind {
                            Some(kind) => format!("{} questions", kind.label()),
                            None => s.task.label().to_string(),
                        };
                        let key = match kind {
                            Some(kind) => format!("{}-{}-{}", s.task.label(), kind.label(), s.mode.label()),
                            None => format!("{}-{}", s.task.label(), s.mode.label()),
                        };
                        let class = if kind.is_some() { "kind-row" } else { "" };
                        view! {
                            <tr data-testid="summary-row" class=class>
                                <td class="run-source" title=run.title() data-testid="summary-name">
                                    {kind.is_none().then(|| name.clone())}
                                    {kind.is_none().then(|| run.host.clone().map(|h| view! { <span class="muted small note">{h}</span> }))}
                                    {(kind.is_none() && run.imported).then(|| view! { <span class="badge small" data-testid="summary-imported">"imported"</span> })}
                                </td>
                                <td>{task}</td>
                                <td>{s.mode.label()}</td>
                                <td class="num">{s.samples}</td>
                                <td class="num">{s.answers}</td>
                                <td class="num strong" data-testid=format!("pass1-{key}")>{figure(&s.pass_at_1)}</td>
                                <td class="num strong" data-testid=format!("pass5-{key}")>{figure(&s.pass_at_5)}</td>
                                <td class="num" data-testid=format!("dropped-{key}")>{s.dropped}</td>
                                <td class="num" data-testid=format!("unextracted-{key}")>{s.extraction_failed}</td>
                                <td class="num">{s.wrong_value}</td>
                                <td class="num">{s.not_literal + s.not_a_call}</td>
                                <td class="num">{s.timeouts + s.errors}</td>
                            </tr>
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect_view()
    };
    view! {
        <div class="eval-summary">
            <table class="eval-table summary-table" data-testid="summary-table">
                <thead>
                    <tr>
                        <th>"run"</th><th>"task"</th><th>"mode"</th><th class="num">"samples"</th><th class="num">"answers"</th>
                        <th class="num">"pass@1"</th><th class="num">"pass@5"</th><th class="num">"dropped"</th>
                        <th class="num" title="no answer could be extracted from the response">"unextractable"</th>
                        <th class="num">"wrong value"</th><th class="num" title="not a literal, or not a call of the function">"malformed"</th>
                        <th class="num" title="timeouts and errors">"timeout / error"</th>
                    </tr>
                </thead>
                <tbody>{table_rows}</tbody>
            </table>
            <PassChart runs=runs />
        </div>
    }
}

/// Horizontal bars, one group per run and mode: pass@1 and pass@5 on a 0–100 scale.
#[component]
fn PassChart(runs: Signal<Vec<Arc<RunResults>>>) -> impl IntoView {
    let bar = |label: &'static str, score: DatasetScore| {
        let percent = score.percent.unwrap_or(0.0).clamp(0.0, 100.0);
        view! {
            <div class="bar-line" data-testid=format!("bar-{}", label.replace('@', "")) data-percent=format!("{percent:.1}")>
                <span class="bar-label">{label}</span>
                <div class="bar-track">
                    <div class=format!("bar-fill {}", if label == "pass@1" { "k1" } else { "k5" }) style=format!("width: {percent:.1}%")></div>
                </div>
                <span class="bar-value">{score.display()}</span>
            </div>
        }
    };
    view! {
        <div class="pass-chart" data-testid="pass-chart" aria-label="pass@1 and pass@5 per task and mode">
            {move || runs.get().into_iter().flat_map(|run| {
                run.per_mode.iter().map(|m| view! {
                    <div class="bar-group" data-testid="pass-bar" data-key=format!("{}-{}", m.summary.task.label(), m.summary.mode.label())>
                        <div class="bar-title" title=run.title()>{format!("{} · {}", run.name, m.summary.mode.label())}</div>
                        {bar("pass@1", m.summary.pass_at_1)}
                        {bar("pass@5", m.summary.pass_at_5)}
                    </div>
                }).collect::<Vec<_>>()
            }).collect_view()}
        </div>
    }
}
