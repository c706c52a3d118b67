//! Verify dataset: run every sample in the worker and check its expected output, with a progress
//! bar, a Stop button, elapsed time and throughput. The run lives in app state, so it carries on
//! (and its progress stays visible) while the user looks at other pages.

use execbench_core::Limits;
use execbench_core::verify::{SampleCheck, Verdict, VerifySummary, judge, request_for};
use leptos::prelude::*;

use crate::app::{AppState, DatasetState};
use crate::browser::python::{VERIFY_JOB, PythonWorker, use_python};
use crate::route::Route;

/// How often a running verification redraws its progress.
const REFRESH_MS: f64 = 100.0;

#[derive(Clone, Copy)]
pub struct VerifyRun {
    pub running: RwSignal<bool>,
    pub stop_requested: RwSignal<bool>,
    pub done: RwSignal<usize>,
    pub total: RwSignal<usize>,
    pub summary: RwSignal<VerifySummary>,
    pub elapsed_ms: RwSignal<f64>,
    /// `Some(true)` when the last run was stopped before the end.
    pub stopped: RwSignal<Option<bool>>,
    pub checks: StoredValue<Vec<SampleCheck>>,
}

impl VerifyRun {
    pub fn new() -> Self {
        VerifyRun {
            running: RwSignal::new(false),
            stop_requested: RwSignal::new(false),
            done: RwSignal::new(0),
            total: RwSignal::new(0),
            summary: RwSignal::new(VerifySummary::default()),
            elapsed_ms: RwSignal::new(0.0),
            stopped: RwSignal::new(None),
            checks: StoredValue::new(Vec::new()),
        }
    }

    fn start(self, python: PythonWorker, samples: Vec<execbench_core::Sample>) {
        self.running.set(true);
        self.stop_requested.set(false);
        self.done.set(0);
        self.total.set(samples.len());
        self.summary.set(VerifySummary::default());
        self.elapsed_ms.set(0.0);
        self.stopped.set(None);
        self.checks.set_value(Vec::new());
        leptos::task::spawn_local(async move {
            let started = js_sys::Date::now();
            // Totals are kept here and published to the page at most every REFRESH_MS: redrawing
            // after every sample would cost more than running it.
            let mut summary = VerifySummary::default();
            let mut checks = Vec::with_capacity(samples.len());
            let mut published = started;
            for sample in &samples {
                if self.stop_requested.get_untracked() {
                    break;
                }
                let result = python.run(request_for(sample, Limits::default())).await;
                if self.stop_requested.get_untracked() {
                    break; // the run in flight was cut short by Stop: not a verdict on the data
                }
                let check = judge(sample, &result);
                checks.push(check.clone());
                summary.add(check);
                let now = js_sys::Date::now();
                if now - published >= REFRESH_MS {
                    published = now;
                    self.publish(&summary, checks.len(), now - started);
                }
            }
            self.publish(&summary, checks.len(), js_sys::Date::now() - started);
            self.checks.set_value(checks);
            self.stopped.set(Some(self.done.get_untracked() < samples.len()));
            self.running.set(false);
        });
    }

    fn publish(self, summary: &VerifySummary, done: usize, elapsed_ms: f64) {
        self.summary.set(summary.clone());
        self.done.set(done);
        self.elapsed_ms.set(elapsed_ms);
    }
}

impl Default for VerifyRun {
    fn default() -> Self {
        Self::new()
    }
}

#[component]
pub fn VerifyPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let run = state.verify;
    let python = use_python().for_job(VERIFY_JOB);
    let start = {
        let python = python.clone();
        move |_| {
            if let DatasetState::Loaded(report) = state.dataset.get_untracked() {
                run.start(python.clone(), report.samples.clone());
            }
        }
    };
    let stop = move |_| {
        run.stop_requested.set(true);
        python.stop();
    };
    let percent = move || {
        let total = run.total.get();
        if total == 0 { 0.0 } else { run.done.get() as f64 * 100.0 / total as f64 }
    };
    let rate = move || {
        let ms = run.elapsed_ms.get();
        if ms > 0.0 { run.done.get() as f64 * 1000.0 / ms } else { 0.0 }
    };
    let download = move |_| {
        let lines: Vec<String> = run.checks.with_value(|c| c.iter().filter_map(|c| serde_json::to_string(c).ok()).collect());
        let _ = crate::browser::download::download_text("cruxeval-verification.jsonl", "application/jsonl", &(lines.join("\n") + "\n"));
    };
    view! {
        <section class="page verify">
            <h1>"Verify dataset"</h1>
            <p class="muted">{move || format!("Dataset: {}. ", state.dataset_name.get())} "Runs every sample in the page (RustPython in a Web Worker) and checks that its call returns the expected output. Limit: 2 s per sample."</p>
            <div class="toolbar">
                <button class="primary" data-testid="verify-start" on:click=start
                    disabled=move || run.running.get() || !matches!(state.dataset.get(), DatasetState::Loaded(_))>"Verify all"</button>
                <button data-testid="verify-stop" on:click=stop disabled=move || !run.running.get()>"Stop"</button>
                <button data-testid="verify-download" on:click=download disabled=move || run.running.get() || run.done.get() == 0>"Download results (JSONL)"</button>
            </div>
            <div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow=move || format!("{:.0}", percent())>
                <div class="progress-fill" style=move || format!("width: {:.1}%", percent())></div>
            </div>
            <p class="stats" data-testid="verify-stats">
                {move || format!("{} / {} samples · {:.1} s · {:.0} samples/s", run.done.get(), run.total.get(), run.elapsed_ms.get() / 1000.0, rate())}
            </p>
            {move || {
                let s = run.summary.get();
                (run.done.get() > 0).then(|| view! {
                    <div class="summary" data-testid="verify-summary">
                        <span class="badge pass" data-testid="verify-passed">{format!("{} passed", s.passed)}</span>
                        <span class="badge fail" data-testid="verify-failed">{format!("{} failed", s.failed)}</span>
                        <span class="badge info">{format!("{} engine differences", s.engine_differences)}</span>
                        {move || match run.stopped.get() {
                            Some(true) => Some(view! { <span class="muted" data-testid="verify-state">"stopped before the end"</span> }),
                            Some(false) => Some(view! { <span class="muted" data-testid="verify-state">"finished"</span> }),
                            None => None,
                        }}
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
                                    view! { <tr><td><a href=Route::Sample(p.id.clone()).href()>{p.id.clone()}</a></td><td>{verdict}</td><td>{reason}</td></tr> }
                                }).collect_view()}
                            </tbody>
                        </table>
                    })}
                })
            }}
        </section>
    }
}
