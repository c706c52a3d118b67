//! Verify dataset: run every sample in the worker and check its expected output, with a progress
//! bar, a Stop button, elapsed time and throughput. The run is `crate::jobs::VerifyRun`, in app
//! state, so it carries on (and its progress stays visible) while the user looks at other pages.

use execbench_core::verify::Verdict;
use leptos::prelude::*;

use crate::components::progress_bar::ProgressBar;
use crate::route::Route;
use crate::state::{AppState, DatasetState};

#[component]
pub fn VerifyPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let run = state.verify;
    let job = run.job;
    let start = move |_| {
        if let DatasetState::Loaded(report) = state.dataset.get_untracked() {
            run.start(report.samples.clone(), &crate::state::dataset_column(&state.dataset_name.get_untracked()));
        }
    };
    let stop = move |_| run.stop();
    let download = move |_| {
        let provenance = run.provenance.get_value();
        let text = run.checks.with_value(|checks| provenance.jsonl(checks));
        let name = format!("{}-verification.jsonl", provenance.dataset);
        let _ = crate::browser::download::download_text(&name, "application/jsonl", &text);
    };
    view! {
        <section class="page verify">
            <h1>"Verify dataset"</h1>
            <p class="muted">{move || format!("Dataset: {}. ", state.dataset_name.get())} "Runs every sample in the page (RustPython in a Web Worker) and checks that its call returns the expected output. Limit: 2 s per sample."</p>
            <div class="toolbar">
                <button class="primary" data-testid="verify-start" on:click=start
                    disabled=move || job.running.get() || !matches!(state.dataset.get(), DatasetState::Loaded(_))>"Verify all"</button>
                <button data-testid="verify-stop" on:click=stop disabled=move || !job.running.get()>"Stop"</button>
                <button data-testid="verify-download" on:click=download disabled=move || job.running.get() || job.done.get() == 0>"Download results (JSONL)"</button>
            </div>
            <ProgressBar done=job.done total=job.total />
            <p class="stats" data-testid="verify-stats" data-ms=move || format!("{:.0}", job.elapsed_ms.get())>
                {move || format!("{} / {} samples · {:.1} s · {:.0} samples/s", job.done.get(), job.total.get(), job.elapsed_ms.get() / 1000.0, job.rate())}
            </p>
            {move || {
                let s = run.summary.get();
                // A count of nothing is no alarm: red only when something failed.
                let failed_class = if s.failed > 0 { "badge fail" } else { "badge none" };
                let differences_class = if s.engine_differences > 0 { "badge info" } else { "badge none" };
                (job.done.get() > 0).then(|| view! {
                    <div class="summary" data-testid="verify-summary">
                        <span class="badge pass" data-testid="verify-passed">{format!("{} passed", s.passed)}</span>
                        <span class=failed_class data-testid="verify-failed">{format!("{} failed", s.failed)}</span>
                        <span class=differences_class>{format!("{} engine differences", s.engine_differences)}</span>
                        {move || job.outcome.get().map(|outcome| view! { <span class="muted" data-testid="verify-state">{outcome}</span> })}
                    </div>
                    {(!s.problems.is_empty()).then(|| view! {
                        <table class="problems" data-testid="verify-problems">
                            <thead><tr><th>"sample"</th><th>"verdict"</th><th>"reason"</th></tr></thead>
                            <tbody>
                                {s.problems.iter().map(|p| {
                                    let (verdict, reason) = match &p.verdict {
                                        Verdict::Fail { reason } => ("failed", reason.clone()),
                                        Verdict::EngineDifference { reason } => ("engine difference", reason.clone()),
                                        Verdict::Pass => ("passed", String::new()),
                                    };
                                    view! { <tr><td><a href=Route::sample(p.id.clone()).href()>{p.id.clone()}</a></td><td>{verdict}</td><td>{reason}</td></tr> }
                                }).collect_view()}
                            </tbody>
                        </table>
                    })}
                })
            }}
        </section>
    }
}
