//! A re-scored evaluation file's own verdicts beside execbench's: per scoring mode, the file's
//! pass@1 and pass@5 over the samples scored here, execbench's, and every answer judged
//! differently with execbench's reason. The file's figures are shown, never used in place of
//! execbench's (CodeCrash scores a missing answer as `None`, which can pass).

use std::sync::Arc;

use execbench_eval::stored::compare_stored_results;
use leptos::prelude::*;

use super::summary::figure;
use crate::jobs::results::RunResults;

/// Disagreements listed per mode; the rest are counted.
const LISTED: usize = 50;

#[component]
pub fn StoredVerdicts(run: Arc<RunResults>) -> impl IntoView {
    let stored = run.stored.clone()?;
    let published = |p: Option<f64>| p.map_or("not given".to_string(), |p| format!("{p:.1}"));
    let heading = format!(
        "The file's own verdicts (it says pass@1 {}, pass@5 {})",
        published(stored.pass_at_1),
        published(stored.pass_at_5)
    );
    let modes = run
        .per_mode
        .iter()
        .map(|m| {
            let comparison = compare_stored_results(&stored, &m.rows);
            let mode = m.mode.label();
            let listed: Vec<_> = comparison.disagreements.iter().take(LISTED).cloned().collect();
            let more = comparison.disagreements.len().saturating_sub(LISTED);
            let without = comparison.without_verdicts.len();
            view! {
                <tr data-testid="stored-row" data-mode=mode>
                    <td>{mode}</td>
                    <td class="num" data-testid="stored-pass1">{figure(&comparison.pass_at_1)}</td>
                    <td class="num">{figure(&m.summary.pass_at_1)}</td>
                    <td class="num">{figure(&comparison.pass_at_5)}</td>
                    <td class="num">{figure(&m.summary.pass_at_5)}</td>
                    <td class="num" data-testid="stored-disagreements">{comparison.disagreements.len()}</td>
                </tr>
                {(!listed.is_empty() || without > 0).then(|| view! {
                    <tr><td colspan="6">
                        <details>
                            <summary>{format!("{mode}: answers judged differently{}", if without > 0 { format!(" ({without} samples have no stored verdict)") } else { String::new() })}</summary>
                            <ul class="small" data-testid="stored-disagreement-list">
                                {listed.into_iter().map(|d| view! {
                                    <li data-testid="stored-disagreement">
                                        <a href=crate::route::Route::sample(d.id.clone()).href()>{d.id.clone()}</a>
                                        {format!(" answer {}: the file says {}, execbench says {}", d.answer + 1, if d.stored { "right" } else { "wrong" }, d.reason)}
                                    </li>
                                }).collect_view()}
                                {(more > 0).then(|| view! { <li class="muted">{format!("and {more} more (all are in the exported JSONL's verdicts)")}</li> })}
                            </ul>
                        </details>
                    </td></tr>
                })}
            }
        })
        .collect_view();
    Some(view! {
        <section class="stored-verdicts" data-testid="stored-verdicts">
            <h3>{heading}</h3>
            <table class="eval-table">
                <thead><tr><th>"mode"</th><th class="num">"pass@1 (file)"</th><th class="num">"pass@1 (execbench)"</th><th class="num">"pass@5 (file)"</th><th class="num">"pass@5 (execbench)"</th><th class="num">"answers judged differently"</th></tr></thead>
                <tbody>{modes}</tbody>
            </table>
            <p class="muted small">"The file's figures are over the samples scored here. Where the two disagree, execbench ran the answer; its reason is given."</p>
        </section>
    })
}
