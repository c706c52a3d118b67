//! A reproduction re-scored: progress and Stop, per model the stored success rate next to
//! execbench's, the rows where they disagree and why, problems the dataset lacks, and the export.

use leptos::prelude::*;

use crate::components::progress_bar::ProgressBar;
use crate::state::AppState;

fn percent(rate: f64) -> String {
    format!("{:.1}%", 100.0 * rate)
}

#[component]
pub fn ReproductionResults() -> impl IntoView {
    let run = expect_context::<AppState>().reproduction;
    let export = move |_| {
        let provenance = run.provenance.get_value();
        let text = run.report.with_untracked(|r| provenance.jsonl(&r.rescored));
        let name = format!("{}-rescored.jsonl", run.file.get_untracked().trim_end_matches(".jsonl"));
        let _ = crate::browser::download::download_text(&name, "application/jsonl", &text);
    };
    let started = move || run.job.running.get() || run.job.outcome.get().is_some();
    view! {
        <Show when=started>
            <section class="eval-panel reproduction" data-testid="repro-results">
                <h2>{move || format!("Reproduction re-scored: {}", run.file.get())}</h2>
                <div class="toolbar">
                    <span data-testid="repro-progress">{move || match run.job.outcome.get() {
                        Some(outcome) => format!("{} of {} rows, {outcome}", run.job.done.get(), run.job.total.get()),
                        None => format!("{} of {} rows…", run.job.done.get(), run.job.total.get()),
                    }}</span>
                    <button data-testid="repro-stop" on:click=move |_| run.stop() disabled=move || !run.job.running.get()>"Stop"</button>
                    <button data-testid="repro-export" on:click=export disabled=move || run.job.running.get() || run.report.with(|r| r.rescored.is_empty())>"Export JSONL"</button>
                </div>
                <ProgressBar done=run.job.done total=run.job.total />
                <table class="problems" data-testid="repro-models">
                    <thead><tr><th>"model"</th><th>"rows"</th><th>"stored success"</th><th>"execbench success"</th><th>"disagreements"</th></tr></thead>
                    <tbody>
                        {move || run.report.with(|r| r.models()).into_iter().map(|t| view! {
                            <tr data-testid="repro-model-row">
                                <td>{t.model.clone()}</td><td>{t.rows}</td><td>{percent(t.stored_rate())}</td><td>{percent(t.execbench_rate())}</td><td>{t.disagreements}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                {move || run.report.with(|r| (!r.unknown.is_empty()).then(|| {
                    let named: Vec<String> = r.unknown.iter().take(20).map(|(id, n)| if *n == 1 { id.clone() } else { format!("{id} ({n} rows)") }).collect();
                    let more = if r.unknown.len() > 20 { format!(" and {} more", r.unknown.len() - 20) } else { String::new() };
                    let rows = match r.unknown_rows() {
                        1 => "1 row names a problem".to_string(),
                        n => format!("{n} rows name problems"),
                    };
                    view! { <p class="muted" data-testid="repro-unknown">{format!("{rows} that the dataset lacks, left out: {}{more}", named.join(", "))}</p> }
                }))}
                <h3>"Disagreements"</h3>
                {move || run.report.with(|r| {
                    let rows: Vec<_> = r.disagreements().cloned().collect();
                    if rows.is_empty() {
                        return view! { <p class="muted" data-testid="repro-no-disagreement">"None so far: execbench agrees with every stored verdict."</p> }.into_any();
                    }
                    view! {
                        <table class="problems" data-testid="repro-disagreements">
                            <thead><tr><th>"problem"</th><th>"model"</th><th>"stored"</th><th>"execbench"</th><th>"why"</th></tr></thead>
                            <tbody>{rows.into_iter().map(|d| view! {
                                <tr data-testid="repro-disagreement">
                                    <td><a href=crate::route::Route::Sample(d.sample_id.clone(), Default::default()).href()>{d.problem_id.clone()}</a></td>
                                    <td>{d.model_name.clone()}</td>
                                    <td>{if d.stored_success { "success" } else { "failure" }}</td>
                                    <td>{if d.execbench_success { "success" } else { "failure" }}</td>
                                    <td><code>{d.reason.clone().unwrap_or_else(|| "returned the expected output".to_string())}</code></td>
                                </tr>
                            }).collect_view()}</tbody>
                        </table>
                    }.into_any()
                })}
            </section>
        </Show>
    }
}
