//! One sample: highlighted code, the call, the expected output, and a Run button.

use execbench_core::{Limits, RunResult};
use leptos::prelude::*;

use crate::app::{AppState, DatasetState};
use crate::components::code_view::CodeView;
use crate::components::run_result::RunResultView;
use crate::browser::python::use_python;
use crate::route::Route;

#[component]
pub fn SamplePage(id: String) -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let id = id.clone();
        match state.dataset.get() {
            DatasetState::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
            DatasetState::Failed(e) => view! { <p class="error-box" role="alert">{e}</p> }.into_any(),
            DatasetState::Loaded(report) => {
                let position = report.samples.iter().position(|s| s.id == id);
                match position {
                    None => view! { <p class="error-box" role="alert">{format!("There is no sample `{id}` in {}.", state.dataset_name.get_untracked())} " " <a href="#/datasets">"Back to the list"</a></p> }.into_any(),
                    Some(i) => {
                        let prev = i.checked_sub(1).map(|p| Route::Sample(report.samples[p].id.clone()).href());
                        let next = report.samples.get(i + 1).map(|s| Route::Sample(s.id.clone()).href());
                        view! { <SampleView sample=report.samples[i].clone() prev=prev next=next /> }.into_any()
                    }
                }
            }
        }
    }
}

#[component]
fn SampleView(sample: execbench_core::Sample, prev: Option<String>, next: Option<String>) -> impl IntoView {
    let python = use_python();
    let (result, set_result) = signal::<Option<RunResult>>(None);
    let (running, set_running) = signal(false);
    let request = execbench_core::verify::request_for(&sample, Limits::default());
    let run = move |_| {
        let python = python.clone();
        let request = request.clone();
        set_running.set(true);
        leptos::task::spawn_local(async move {
            let r = python.run(request).await;
            set_result.set(Some(r));
            set_running.set(false);
        });
    };
    let code = sample.code.clone();
    view! {
        <section class="page sample">
            <nav class="crumbs">
                <a href="#/datasets">{expect_context::<AppState>().dataset_name.get_untracked()}</a> " / " <strong data-testid="sample-id">{sample.id.clone()}</strong>
                <span class="pager">
                    <a href=crate::pages::perturb::link_for(&sample.id) data-testid="perturb-link">"Perturb…"</a>
                    {prev.map(|h| view! { <a href=h>"← previous"</a> })}
                    {next.map(|h| view! { <a href=h>"next →"</a> })}
                </span>
            </nav>
            <CodeView code=Signal::derive(move || code.clone()) />
            <div class="field"><span class="label">"Call"</span><pre class="value" data-testid="sample-call">{sample.call.clone()}</pre></div>
            <div class="field"><span class="label">"Expected output"</span><pre class="value" data-testid="sample-expected">{sample.output.clone()}</pre></div>
            <button class="primary" data-testid="run" on:click=run disabled=running>
                {move || if running.get() { "Running…" } else { "Run" }}
            </button>
            {move || result.get().map(|r| view! { <RunResultView result=r /> })}
        </section>
    }
}
