//! The Evaluate page: run a model (a provider's API, or an offline one) over the current dataset,
//! or re-score a published generations file, and look at the results (summary, bar chart,
//! per-sample table, exports).
//!
//! The evaluation itself is `execbench-run`'s engine (the same one the command line runs), driven
//! by `crate::jobs::EvaluationRun` with the browser's I/O: this page gets the plan and its
//! estimate from its form (`crate::state::evaluate_plan`), starts the job with it and renders
//! what the job publishes. Python never runs here. The state lives under the app's
//! root owner, so a run carries on, and its results stay, while the user looks at other pages.
//!
//! The results view's run (by its stored run id) and the table's scoring mode and filter ride in
//! the address (`crate::route::EvaluateQuery`): a reload or a shared link reads the run back from
//! the browser's store.

use std::sync::Arc;

use execbench_core::LoadReport;
use execbench_eval::Task;
use execbench_eval::models::Replay;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::score::Mode;
use execbench_run::Responder;
use execbench_run::cost::estimate::describe;
use execbench_run::cost::format_usd;
use execbench_run::manifest::counted;
use execbench_run::status::answers_and_judgements;
use execbench_run::store::RunStore;
use leptos::prelude::*;

use crate::browser::python::{PythonWorker, use_python};
use crate::components::evaluation::exports::ResultsExports;
use crate::components::evaluation::model_settings::ApiSettingsPanel;
use crate::components::evaluation::sample_table::SampleTable;
use crate::components::evaluation::stored_verdicts::StoredVerdicts;
use crate::components::evaluation::summary::ResultsSummary;
use crate::components::evaluation::template_editor::TemplatePanel;
use crate::components::progress_bar::ProgressBar;
use crate::jobs::Runs;
use crate::jobs::evaluate::{Continue, Target, continue_plan};
use crate::jobs::plan::RunPlan;
use crate::route::{EvaluateQuery, Route};
use crate::state::evaluate::{
    AnswerFile, EvaluateState, LoadedFile, ModelChoice, PendingRun, WantedRun, evaluate_state,
};
use crate::state::evaluate_plan::{MAX_N, PILOT_SAMPLES, file_plan, offers_batch, plan_from_form};
use crate::state::{AppState, DatasetState};

/// Live transcripts shown while a run streams.
const MAX_TRANSCRIPTS: usize = 8;

fn start_evaluation(state: EvaluateState, python: PythonWorker, runs: Runs, report: Arc<LoadReport>, dataset: String) {
    match plan_from_form(state, &report.samples) {
        // A model API costs money: the estimate comes first, and the user says go.
        Ok(RunPlan { responder: Responder::Api(model), job, price, simulation, .. }) => {
            state.job.error.set(None);
            state.pending.set(Some(Arc::new(PendingRun::new(model, job, price, simulation, dataset))));
        }
        Ok(plan) => state.job.launch(python, runs, plan, dataset, Target::New { pilot: None }),
        Err(e) => state.job.error.set(Some(e)),
    }
}

/// The user's answer to the estimate: run it all, run a pilot first, or go on after the pilot.
fn go_ahead(state: EvaluateState, python: PythonWorker, runs: Runs, pilot: bool) {
    let Some(pending) = state.pending.get_untracked() else { return };
    state.pending.set(None);
    match &pending.pilot_run {
        None => {
            let target = Target::New { pilot: pilot.then_some(PILOT_SAMPLES) };
            if pilot {
                state.pilot_of.set_value(Some(pending.clone()));
            }
            state.job.launch(python, runs, pending.plan(), pending.dataset.clone(), target);
        }
        Some(entry) => {
            // The pilot's "finished" must not stand for the whole run while the plan is read.
            state.job.progress.outcome.set(None);
            let (entry, samples, key) = (entry.clone(), pending.job.samples.clone(), pending.model.key.clone());
            leptos::task::spawn_local(async move {
                match continue_plan(runs, &entry, &samples, key, Continue::Resume).await {
                    Ok((plan, target)) => state.job.launch(python, runs, plan, entry.manifest.dataset.clone(), target),
                    Err(e) => state.job.error.set(Some(e)),
                }
            });
        }
    }
}

/// The estimate's Batch choice: the run submitted to the provider's batch service and stored
/// waiting for its batches (`crate::jobs::batch::submit`); the Runs page checks and collects them.
fn submit_batch(state: EvaluateState, runs: Runs) {
    let Some(pending) = state.pending.get_untracked() else { return };
    state.pending.set(None);
    state.batch_said.set(Some((true, "submitting the batch…".into())));
    leptos::task::spawn_local(async move {
        let said = crate::jobs::batch::submit(runs, pending.plan(), pending.dataset.clone()).await;
        state.batch_said.set(Some(match said {
            Ok(said) => (true, said),
            Err(e) => (false, e),
        }));
    });
}

/// After a pilot: the estimate again, from the pilot's measured usage.
fn estimate_after_pilot(state: EvaluateState, runs: Runs) {
    let Some(pending) = state.pilot_of.get_value() else { return };
    state.pilot_of.set_value(None);
    let Some(run_id) = state.job.run_id.get_untracked() else { return };
    leptos::task::spawn_local(async move {
        let store = runs.store().await;
        let (Ok(records), Some(entry)) = (store.records(&run_id).await, runs.entry(&run_id)) else { return };
        state.pending.set(Some(Arc::new(pending.after_pilot(entry, &records))));
    });
}

fn start_rescore(state: EvaluateState, python: PythonWorker, runs: Runs, report: Arc<LoadReport>, dataset: String) {
    let Some(file) = state.rescore_file.get_untracked() else {
        return state.job.error.set(Some("choose a generations file to re-score".to_string()));
    };
    if let AnswerFile::Reproduction(read) = &file.content {
        let reproduction = expect_context::<AppState>().reproduction;
        if reproduction.job.running.get_untracked() {
            return state.job.error.set(Some("a reproduction is being re-scored: stop it first".to_string()));
        }
        state.job.error.set(None);
        return reproduction.start(read.rows.clone(), report.samples.clone(), &file.name, &dataset);
    }
    let AnswerFile::Generations(generations) = &file.content else {
        return state.job.error.set(Some(format!(
            "{} is a results file: replay it as a model instead, or choose a generations file",
            file.name
        )));
    };
    if generations.entries.is_empty() {
        return state.job.error.set(Some(format!("{} has no usable entries", file.name)));
    }
    let task = state.rescore_task.get_untracked();
    let replay = Replay::from_generations(&file.name, generations);
    let plan = file_plan(
        &file.name,
        replay,
        &report.samples,
        default_template(task, Style::Direct),
        Mode::ALL.to_vec(),
        true,
        generations.stored.clone(),
    );
    state.job.launch(python, runs, plan, dataset, Target::New { pilot: None });
}

/// A file input that loads an answers file into `target`.
fn on_answer_file(
    target: RwSignal<Option<Arc<LoadedFile>>>,
    error: RwSignal<Option<String>>,
) -> impl Fn(leptos::ev::Event) {
    move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            match crate::browser::download::read_file_text(&file).await {
                Ok(text) => target.set(Some(Arc::new(LoadedFile::read(&file.name(), &text)))),
                Err(e) => error.set(Some(e)),
            }
        });
    }
}

#[component]
pub fn EvaluatePage(query: EvaluateQuery) -> impl IntoView {
    let app = expect_context::<AppState>();
    let state = evaluate_state();
    state.apply(query, app.runs);
    // The address follows the results view (replaced, not pushed: choosing a mode is not a
    // place to go Back to; a reload or a shared link shows the same view).
    // Only while the address is still this page's: a run's results arriving just as the user
    // follows a link elsewhere must not send them back here.
    Effect::new(move |_| {
        let href = Route::Evaluate(state.address_query()).href();
        if matches!(crate::route::current(), Route::Evaluate(_)) {
            crate::browser::address::replace(&href);
        }
    });
    // A missing run's message stays until another run is shown.
    Effect::watch(
        move || state.job.runs.with(Vec::len),
        move |_, _, _| {
            if matches!(state.wanted_run.get_untracked(), Some(WantedRun::Missing(..))) {
                state.wanted_run.set(None);
            }
        },
        false,
    );
    // A pilot that ended: the estimate again, from what it measured.
    Effect::new(move |_| {
        if !state.job.progress.running.get() && state.pilot_of.with_value(|p| p.is_some()) {
            estimate_after_pilot(state, app.runs);
        }
    });
    let loaded = move || app.dataset.with(DatasetState::report);

    view! {
        <section class="page evaluate">
            <h1>"Evaluate"</h1>
            <p class="muted">
                {move || match loaded() {
                    Some(report) => format!("Dataset: {} ({} samples). ", app.dataset_name.get(), report.samples.len()),
                    None => "The dataset is not loaded yet. ".to_string(),
                }}
                "Offline models need no key; a model API uses yours, from this page straight to the provider. Strict mode takes only a literal (or a plain call of the function) and compares by type-aware equality. Compatible mode follows the CRUXEval scorer: Python's ==, 3 s; an output answer containing the call, or an input answer not calling the function, is dropped from the sample's list, and if none left passes, all count as wrong. In both, an answer that cannot be extracted counts as wrong, and pass@k over fewer than k answers is n/a (the official code says 1.0), so pass@5 can be lower than published figures."
            </p>
            <div class="eval-panels">
                <EvaluationForm state=state />
                <RescoreForm state=state />
            </div>

            {move || state.job.error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="eval-error">{e}</p> })}

            <EvaluationProgress state=state />

            <crate::components::reproduction::ReproductionResults />
            {move || state.wanted_run.get().map(|wanted| match wanted {
                WantedRun::Reading(id) => view! { <p class="muted" data-testid="eval-run-reading">{format!("Reading run {id} from this browser's store…")}</p> }.into_any(),
                WantedRun::Missing(_, message) => view! { <p class="error-box" role="alert" data-testid="eval-run-missing">{message}</p> }.into_any(),
            })}
            <ResultsView state=state />
        </section>
    }
}

/// The evaluation's form: model, task, template, n, modes, and the cost estimate before a run.
#[component]
fn EvaluationForm(state: EvaluateState) -> impl IntoView {
    let app = expect_context::<AppState>();
    let loaded = move || app.dataset.with(DatasetState::report);
    let idle = move || !state.job.progress.running.get();
    let python = use_python();
    // For handlers inside reactive views (which must be Send: the worker handle is not).
    let python_kept = StoredValue::new_local(python.clone());
    let run_evaluation = move |_| {
        if let DatasetState::Loaded(report) = app.dataset.get_untracked() {
            start_evaluation(state, python.clone(), app.runs, report, app.dataset_name.get_untracked());
        }
    };
    // (id, name, built-in) of the templates for the task, built-ins first.
    let templates_for_task = Memo::new(move |_| {
        let task = state.task.get();
        state
            .templates
            .library
            .with(|l| l.for_task(task).map(|t| (t.id.clone(), t.name.clone(), l.is_builtin(&t.id))).collect::<Vec<_>>())
    });
    let template_options = move |builtin: bool| {
        templates_for_task
            .get()
            .into_iter()
            .filter(|(_, _, b)| *b == builtin)
            .map(|(id, name, _)| {
                let value = id.clone();
                view! { <option value=value prop:selected=move || state.templates.selected.get() == id>{name}</option> }
            })
            .collect_view()
    };
    let has_custom = move || templates_for_task.with(|ts| ts.iter().any(|(_, _, builtin)| !builtin));
    let first_sample = Signal::derive(move || loaded().and_then(|report| report.samples.first().cloned()));

    view! {
    <fieldset class="eval-panel" data-testid="evaluation-form">
        <legend>"Evaluation"</legend>
        <label class="field">
            <span class="label">"Model"</span>
            <select data-testid="eval-model" on:change=move |ev| state.model.set(ModelChoice::from_value(&event_target_value(&ev)))>
                {ModelChoice::ALL.into_iter().map(|m| view! { <option value=m.value() selected=move || state.model.get() == m>{m.label()}</option> }).collect_view()}
            </select>
        </label>
        <Show when=move || state.model.get() == ModelChoice::Api>
            <ApiSettingsPanel form=state.api />
        </Show>
        <Show when=move || state.model.get() == ModelChoice::Replay>
            <div class="field">
                <label class="button">
                    "Answers file…"
                    <input type="file" class="visually-hidden" data-testid="replay-file" accept=".json,.jsonl,.txt"
                        on:change=on_answer_file(state.replay_file, state.job.error) />
                </label>
                <FileStatus file=state.replay_file testid="replay-file-status" />
                <p class="hint">"A file scores the samples it has, with the answers it has: samples per problem comes from the file, and samples it lacks are listed, not counted as wrong."</p>
            </div>
        </Show>
        <div class="row-fields">
            <label class="field">
                <span class="label">"Task"</span>
                {task_select(state, state.task, "eval-task", |state, task| state.templates.select_first(task))}
            </label>
            <label class="field grow">
                <span class="label">"Prompt template"</span>
                <select data-testid="eval-template" on:change=move |ev| state.templates.select(event_target_value(&ev))>
                    <optgroup label="Built-in">{move || template_options(true)}</optgroup>
                    {move || has_custom().then(|| view! { <optgroup label="Custom" data-testid="custom-templates">{move || template_options(false)}</optgroup> })}
                </select>
            </label>
        </div>
        <div class="row-fields">
            <label class="field">
                <span class="label">"Samples per problem (n)"</span>
                <input class="narrow" type="number" min="1" max=MAX_N.to_string() data-testid="eval-n" prop:value=move || state.n.get() on:input=move |ev| state.n.set(event_target_value(&ev)) />
            </label>
            <label class="field">
                <span class="label">"First samples only"</span>
                <input class="narrow" type="number" min="1" placeholder="all" data-testid="eval-limit" prop:value=move || state.limit.get() on:input=move |ev| state.limit.set(event_target_value(&ev)) />
            </label>
            <div class="field">
                <span class="label">"Modes"</span>
                <span class="checks">
                    <label><input type="checkbox" data-testid="eval-strict" prop:checked=move || state.strict.get() on:change=move |ev| state.strict.set(event_target_checked(&ev)) />" strict"</label>
                    <label><input type="checkbox" data-testid="eval-compatible" prop:checked=move || state.compatible.get() on:change=move |ev| state.compatible.set(event_target_checked(&ev)) />" compatible"</label>
                </span>
            </div>
        </div>
        <TemplatePanel state=state.templates task=state.task sample=first_sample />
        <div class="toolbar">
            <button class="primary" data-testid="eval-run" on:click=run_evaluation disabled=move || !idle() || loaded().is_none()>"Run evaluation"</button>
        </div>
        {move || state.pending.get().map(|pending| {
            let continuing = pending.pilot_run.is_some();
            let mut basis = capitalized(&pending.estimate.basis);
            basis.push_str(". Prompt tokens are execbench's own count (within about 4% of OpenAI's tokenizers on CRUXEval prompts; other tokenizers not measured).");
            if let Some(price) = &pending.price {
                basis.push_str(&format!(" Price: {}.", price.source));
            }
            let pending_kept = StoredValue::new(pending.clone());
            let go = move |_| {
                if state.batch.get_untracked() && offers_batch(&pending_kept.get_value()) {
                    submit_batch(state, app.runs)
                } else {
                    go_ahead(state, python_kept.get_value(), app.runs, false)
                }
            };
            let pilot = move |_| go_ahead(state, python_kept.get_value(), app.runs, true);
            let batchable = offers_batch(&pending);
            let batch_estimate = batchable.then(|| {
                let batch = pending.at_batch_price();
                match (pending.estimate.expected_usd, batch.expected_usd) {
                    (Some(live), Some(half)) => format!(" At the batch price: {}, {} less than live ({}).", describe(&batch), format_usd(live - half), format_usd(live)),
                    _ => format!(" At the batch price: {} (no price known: the saving is about half of what live would cost).", describe(&batch)),
                }
            });
            let batch_on = move || batchable && state.batch.get();
            view! {
                <div class="estimate" role="dialog" aria-label="Cost estimate" data-testid="estimate">
                    {batchable.then(|| view! {
                        <div class="field checks" role="radiogroup" aria-label="How the run is answered" data-testid="estimate-mode">
                            <label><input type="radio" name="eval-mode" data-testid="estimate-live" prop:checked=move || !state.batch.get() on:change=move |_| state.batch.set(false) />" Live"</label>
                            <label><input type="radio" name="eval-mode" data-testid="estimate-batch" prop:checked=move || state.batch.get() on:change=move |_| state.batch.set(true) />" Batch (about half price, results within 24 h)"</label>
                        </div>
                    })}
                    <p class="estimate-figure" data-testid="estimate-text">{describe(&pending.estimate)}</p>
                    {move || batch_on().then(|| view! { <p class="estimate-figure" data-testid="estimate-batch-text">{batch_estimate.clone()}</p> })}
                    <p class="muted small" data-testid="estimate-basis">{basis}</p>
                    <div class="toolbar">
                        <button class="primary" data-testid="estimate-go" on:click=go>{move || if continuing { "Continue the run" } else if batch_on() { "Submit the batch" } else { "Start the run" }}</button>
                        {(!continuing).then(|| view! { <button data-testid="estimate-pilot" disabled=batch_on on:click=pilot>{format!("Pilot: the first {PILOT_SAMPLES} samples")}</button> })}
                        <button data-testid="estimate-cancel" on:click=move |_| state.pending.set(None)>"Cancel"</button>
                    </div>
                </div>
            }
        })}
        {move || state.batch_said.get().map(|(ok, text)| view! { <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="eval-batch-said">{text}{ok.then(|| view! { " " <a href=Route::Runs.href() data-testid="eval-batch-runs">"Runs"</a> })}</p> })}
    </fieldset>
    }
}

/// Published answers re-scored against the dataset.
#[component]
fn RescoreForm(state: EvaluateState) -> impl IntoView {
    let app = expect_context::<AppState>();
    let loaded = move || app.dataset.with(DatasetState::report);
    let idle = move || !state.job.progress.running.get();
    let python = use_python();
    let run_rescore = move |_| {
        if let DatasetState::Loaded(report) = app.dataset.get_untracked() {
            start_rescore(state, python.clone(), app.runs, report, app.dataset_name.get_untracked());
        }
    };
    view! {
    <fieldset class="eval-panel" data-testid="rescore-form">
        <legend>"Re-score published answers"</legend>
        <p class="muted">"A CRUXEval generations file (" <code>"{\"sample_0\": [\"answer\", …]}"</code> ") or JSON Lines of raw responses (" <code>"{\"id\": …, \"responses\": […]}"</code> "), scored against the current dataset in both modes; or a reproduction's results (" <code>"{\"problem_id\": …, \"model_name\": …, \"generated_code\": …, \"success\": …}"</code> "), each program run on its problem's call and compared with the recorded success."</p>
        <div class="field">
            <label class="button">
                "Generations file…"
                <input type="file" class="visually-hidden" data-testid="rescore-file" accept=".json,.jsonl,.txt"
                    on:change=on_answer_file(state.rescore_file, state.job.error) />
            </label>
            <FileStatus file=state.rescore_file testid="rescore-file-status" />
        </div>
        <label class="field">
            <span class="label">"Task"</span>
            {task_select(state, state.rescore_task, "rescore-task", |_, _| {})}
        </label>
        <div class="toolbar">
            <button class="primary" data-testid="rescore-run" on:click=run_rescore
                disabled=move || !idle() || loaded().is_none() || state.rescore_file.with(|f| f.as_ref().is_none_or(|f| f.entries() == 0))>"Re-score"</button>
        </div>
    </fieldset>
    }
}

/// The running job: Stop, Retry errors, progress, live figures and streamed text.
#[component]
fn EvaluationProgress(state: EvaluateState) -> impl IntoView {
    let app = expect_context::<AppState>();
    let idle = move || !state.job.progress.running.get();
    let stop = move |_| state.job.progress.stop();
    let python = use_python();
    let run_retry = move |_| state.job.retry_errors(python.clone(), app.runs);
    // The stored entry of the run in progress, as its session last stored it.
    let running_entry = move || {
        state.job.run_id.get().and_then(|id| app.runs.entries.with(|e| e.iter().find(|e| e.id() == id).cloned()))
    };
    let can_retry = move || {
        idle()
            && state.job.runs.with(|runs| runs.first().is_some_and(|r| !r.errors.is_empty()))
            && state.job.last_api_run.with_value(|l| l.is_some())
    };
    view! {
        <div class="eval-progress">
            <div class="toolbar">
                <span class="job" data-testid="eval-job">{move || state.job.progress.label.get().unwrap_or_else(|| "Idle".to_string())}</span>
                <button data-testid="eval-stop" on:click=stop disabled=idle>"Stop"</button>
                <button data-testid="eval-retry-errors" on:click=run_retry disabled=move || !can_retry()
                    title="Ask again only for the samples whose requests failed (not the wrong answers)">"Retry errors"</button>
                {move || state.job.progress.outcome.get().map(|o| view! { <span class="muted" data-testid="eval-state">{o}</span> })}
            </div>
            <ProgressBar done=state.job.progress.done total=state.job.progress.total />
            <p class="stats" data-testid="eval-stats">
                {move || {
                    let seconds = state.job.progress.elapsed_ms.get() / 1000.0;
                    let answers = state.job.answers.get();
                    let rate = if seconds > 0.0 { answers as f64 / seconds } else { 0.0 };
                    let judged = answers_and_judgements(answers, state.job.modes.get());
                    format!("{} / {} samples · {judged} · {seconds:.1} s · {rate:.0} answers/s", state.job.progress.done.get(), state.job.progress.total.get())
                }}
            </p>
            {move || running_entry().filter(|_| !idle()).map(|entry| {
                let pass: Vec<String> = entry.manifest.modes.iter().enumerate().map(|(i, mode)| {
                    format!("{} {}", mode.label(), entry.tally.pass_at_1(i).map_or("n/a".to_string(), |p| format!("{p:.1}%")))
                }).collect();
                let errors = if entry.tally.errors > 0 { format!(", {}", counted(entry.tally.errors as u64, "error", "errors")) } else { String::new() };
                view! {
                    <p class="stats" data-testid="eval-live-pass">{format!("pass@1 so far ({} scored{errors}): {}", counted(entry.tally.scored as u64, "sample", "samples"), pass.join(" · "))}</p>
                }
            })}
            {move || state.job.status.get().filter(|s| s.requests_sent > 0 || s.running > 0).map(|s| {
                let entry = running_entry();
                // The run's requests over all its sessions (a resumed run's earlier ones included).
                let requests = entry.as_ref().map_or_else(|| counted(s.requests_sent as u64, "request", "requests"), |e| e.requests.describe());
                let mut tokens = format!("{requests} · tokens this session: {} prompt, {} completion", s.usage.prompt_tokens, s.usage.completion_tokens);
                if let Some(cost) = entry.as_ref().and_then(|e| e.cost()) {
                    tokens.push_str(&format!(" · cost so far {}", execbench_run::cost::format_usd(cost)));
                    if let Some(cap) = entry.as_ref().and_then(|e| e.manifest.spend_cap) {
                        tokens.push_str(&format!(" of a {} cap", execbench_run::cost::format_usd(cap)));
                    }
                }
                view! {
                    <p class="stats" data-testid="eval-live">{s.describe()}</p>
                    <p class="stats muted" data-testid="eval-tokens">{tokens}</p>
                }
            })}
            {move || state.job.local_speed.get().map(|speed| view! {
                <p class="stats muted" data-testid="eval-local-speed">{format!("In this browser: {}", speed.describe())}</p>
            })}
            <LiveTranscripts transcripts=state.job.transcripts />
        </div>

    }
}

/// A task picker; `on_pick` follows a choice (the form picks the task's first template).
fn task_select(
    state: EvaluateState,
    signal: RwSignal<Task>,
    testid: &'static str,
    on_pick: fn(EvaluateState, Task),
) -> impl IntoView {
    view! {
        <select data-testid=testid aria-label="Task" on:change=move |ev| {
            let task = Task::from_label(&event_target_value(&ev)).unwrap_or(Task::Output);
            signal.set(task);
            on_pick(state, task);
        }>
            {Task::ALL.into_iter().map(|t| view! {
                <option value=t.label() selected=move || signal.get() == t>{t.title()}</option>
            }).collect_view()}
        </select>
    }
}

/// The streamed text of the samples in flight, filling in as it arrives.
#[component]
fn LiveTranscripts(transcripts: RwSignal<Vec<(String, Vec<String>)>>) -> impl IntoView {
    move || {
        let shown = transcripts.with(|t| t.iter().take(MAX_TRANSCRIPTS).cloned().collect::<Vec<_>>());
        (!shown.is_empty()).then(|| {
            view! {
                <div class="transcripts" data-testid="live-transcripts">
                    {shown.into_iter().map(|(id, texts)| {
                        let label = id.clone();
                        view! {
                        <div class="transcript" data-testid="live-transcript" data-sample=id>
                            <span class="transcript-id">{label}</span>
                            {texts.into_iter().enumerate().map(|(i, t)| view! { <pre class="transcript-text" data-choice=i.to_string()>{t}</pre> }).collect_view()}
                        </div>
                        }
                    }).collect_view()}
                </div>
            }
        })
    }
}

/// The name and size of a loaded answers file, and its problems (file:line:field).
#[component]
fn FileStatus(file: RwSignal<Option<Arc<LoadedFile>>>, testid: &'static str) -> impl IntoView {
    move || {
        file.get().map(|f| {
            let problems = f.problems.clone();
            view! {
                <span class="muted" data-testid=testid>{f.describe()}</span>
                {(!problems.is_empty()).then(|| view! {
                    <details class="error-box" open=true data-testid=format!("{testid}-problems")>
                        <summary>{format!("{} {}; the other entries are usable", problems.len(), if problems.len() == 1 { "problem" } else { "problems" })}</summary>
                        <ul>{problems.iter().take(100).map(|p| view! { <li>{p.clone()}</li> }).collect_view()}</ul>
                        {(problems.len() > 100).then(|| view! { <p>{format!("… and {} more", problems.len() - 100)}</p> })}
                    </details>
                })}
            }
        })
    }
}

#[component]
fn ResultsView(state: EvaluateState) -> impl IntoView {
    let runs = Signal::derive(move || state.job.runs.get());
    let shown_run = move || state.shown_run();
    view! {
        <Show when=move || !state.job.runs.with(Vec::is_empty) fallback=|| view! { <p class="muted empty">"No results yet: run an evaluation or re-score a file."</p> }>
            <div class="results" data-testid="results">
                <div class="title-row">
                    <h2>"Results"</h2>
                    <button data-testid="clear-results" on:click=move |_| state.job.runs.set(Vec::new())>"Clear"</button>
                </div>
                <ResultsSummary runs=runs />
                {move || shown_run().map(|run| view! { <StoredVerdicts run=run /> })}
                <h3>"Export"</h3>
                <ResultsExports runs=runs />
                <h3>"Per sample"</h3>
                <div class="toolbar">
                    <select data-testid="table-run" aria-label="Run" on:change=move |ev| {
                        state.wanted_run.set(None);
                        state.job.selected_run.set(event_target_value(&ev).parse().ok());
                    }>
                        {move || state.job.runs.get().into_iter().map(|r| {
                            let id = r.id;
                            view! { <option value=id.to_string() title=r.title() prop:selected=move || state.shown_run().is_some_and(|r| r.id == id)>{r.label()}</option> }
                        }).collect_view()}
                    </select>
                </div>
                {move || shown_run().map(|run| {
                    let timing = format!(
                        "{} of {} samples scored, {} in {:.1} s ({} Python runs){}{}",
                        run.scored(), run.planned, answers_and_judgements(run.answers(), run.per_mode.len()), run.elapsed_ms / 1000.0, run.python_runs,
                        if run.missing.is_empty() { String::new() } else { format!("; {} dataset sample{} not in the file (not scored)", run.missing.len(), if run.missing.len() == 1 { "" } else { "s" }) },
                        if run.unknown.is_empty() { String::new() } else { format!("; {} id{} in the file not in the dataset", run.unknown.len(), if run.unknown.len() == 1 { "" } else { "s" }) },
                    );
                    let uncovered = (!run.missing.is_empty() || !run.unknown.is_empty()).then(|| {
                        let list = |ids: &[String]| if ids.is_empty() { "none".to_string() } else { ids.join(", ") };
                        view! {
                            <details class="uncovered" data-testid="file-uncovered">
                                <summary>"Which samples the file did not cover"</summary>
                                <p data-testid="file-missing">{format!("Not in the file: {}", list(&run.missing))}</p>
                                <p data-testid="file-unknown">{format!("Not in the dataset: {}", list(&run.unknown))}</p>
                            </details>
                        }
                    });
                    let at_once = if run.most_concurrent > 0 { format!(" (at most {} at once in the last session)", run.most_concurrent) } else { String::new() };
                    let usage = run.usage.map(|u| format!("{}{at_once} · tokens: {} prompt, {} completion ({} reasoning)", run.requests.describe(), u.prompt_tokens, u.completion_tokens, u.reasoning_tokens));
                    let errors = run.errors.clone();
                    let sent = run.sent.as_ref().map(|sent| {
                        let deviations = execbench_run::protocol::deviations(sent, &run.not_sent);
                        let protocol = if deviations.is_empty() { "CodeCrash's protocol followed".to_string() } else { format!("differs from CodeCrash's protocol: {}", deviations.join("; ")) };
                        (sent.to_string(), protocol)
                    });
                    let store_times = run.store_times.map(|(count, median, p99)| view! {
                        <p class="stats muted" data-testid="store-timing" data-median=format!("{median:.3}") data-p99=format!("{p99:.3}") data-count=count.to_string()>
                            {format!("{count} records stored in this browser: {median:.1} ms median, {p99:.1} ms p99 per record")}
                        </p>
                    });
                    let cost = run.cost.map(|c| view! { <p class="stats" data-testid="run-cost-total">{format!("Cost: {}", execbench_run::cost::format_usd(c))}</p> });
                    view! {
                        <p class="stats" data-testid="run-timing">{timing}</p>
                        {uncovered}
                        {cost}
                        {store_times}
                        {usage.map(|u| view! { <p class="stats" data-testid="run-usage">{u}</p> })}
                        {sent.map(|(sent, protocol)| view! {
                            <p class="stats" data-testid="run-protocol">{protocol}</p>
                            <details class="sent"><summary>"Parameters sent"</summary><pre data-testid="run-sent">{sent}</pre></details>
                        })}
                        {(!errors.is_empty()).then(|| view! {
                            <details class="error-box" open=true data-testid="run-errors">
                                <summary>{format!("{} sample{} failed for infrastructure reasons (left out of pass@k; Retry errors asks again)", errors.len(), if errors.len() == 1 { "" } else { "s" })}</summary>
                                <ul>{errors.iter().take(100).map(|(id, message)| view! { <li data-testid="run-error"><code>{id.clone()}</code>": "{message.clone()}</li> }).collect_view()}</ul>
                            </details>
                        })}
                        <SampleTable run=run mode=state.table_mode filter=state.table_filter />
                    }
                })}
            </div>
        </Show>
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
