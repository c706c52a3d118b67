//! The Runs page: every stored run (IndexedDB), with its progress, pass@1 so far, tokens, cost and
//! state; Resume, Retry errors, Extend, Export, Import and Delete; and one run opened with the
//! Evaluate page's summary, chart and per-sample table. The work is the evaluation job's
//! (`crate::jobs::evaluate`): this page picks a stored run and what to do with it, and what that
//! plans (the review, the estimate) is `crate::state::runs_plan`'s.

use std::sync::Arc;

use execbench_providers::KeyScope;
use execbench_run::batch;
use execbench_run::continuation_cost::describe_continuation;
use execbench_run::cost::estimate::format_tokens;
use execbench_run::cost::format_usd;
use execbench_run::eviction::RecordsCheck;
use execbench_run::manifest::{RunEntry, RunState, counted};
use execbench_run::naming::{default_name, endpoint_host, run_name};
use execbench_run::runfile::{export_codecrash, export_run, has_codecrash_layout};
use execbench_run::store::RunStore;
use leptos::prelude::*;

use crate::browser::clock::BrowserClock;
use crate::browser::download::{download_text, read_file_text};
use crate::browser::key_scopes;
use crate::browser::python::use_python;
use crate::components::evaluation::exports::ResultsExports;
use crate::components::evaluation::sample_table::SampleTable;
use crate::components::evaluation::stored_verdicts::StoredVerdicts;
use crate::components::evaluation::summary::ResultsSummary;
use crate::components::progress_bar::ProgressBar;
use crate::jobs::Runs;
use crate::jobs::batch::BatchAction;
use crate::jobs::evaluate::{Continue, continue_plan_with_cap, results_of};
use crate::route::{Route, RowFilter};
use crate::state::evaluate::evaluation_run;
use crate::state::runs_plan::{Action, NextStep, Reviewed, continuation_estimate, estimate_first, review, typed_cap};
use crate::state::{AppState, DatasetState};

/// How often a click made while the dataset loads looks again.
const DATASET_POLL_MS: u64 = 50;

/// Answers added to every sample by Extend.
const EXTEND_BY: usize = 5;

/// The page's own state: the key typed for resuming, what the last action said.
#[derive(Clone, Copy)]
struct RunsPageState {
    key: RwSignal<String>,
    /// A new spend cap for the run resumed (empty: the run's own).
    cap: RwSignal<String>,
    message: RwSignal<Option<(bool, String)>>,
    /// The run whose Delete asks for confirmation.
    confirm_delete: RwSignal<Option<String>>,
    /// A run whose address the user has not typed or confirmed here: nothing is sent until yes.
    confirm_endpoint: RwSignal<Option<PendingContinuation>>,
    /// The batch run Check now is asking about.
    checking: RwSignal<Option<String>>,
    /// A priced run's Resume, Retry errors or Extend: what it would ask and cost, shown until the
    /// user goes on or cancels.
    confirm_cost: RwSignal<Option<PendingCost>>,
}

/// A continuation whose estimate waits for the user's yes.
#[derive(Clone)]
struct PendingCost {
    entry: RunEntry,
    what: Action,
    key: Option<String>,
    cap: Option<f64>,
    /// `describe_continuation`'s line.
    line: String,
    /// With every answer at the token limit it could pass the run's cap (a batch is then refused).
    could_pass_cap: bool,
}

/// What waits for the user's yes: the run (settings already clamped), what to do, the lines shown.
#[derive(Clone)]
struct PendingContinuation {
    entry: RunEntry,
    what: Action,
    scope: KeyScope,
    origin: String,
    lines: Vec<String>,
    /// The spend cap typed when Resume was clicked (already in the entry's manifest).
    cap: Option<f64>,
    /// The address was typed or confirmed here before (shown because the run was imported).
    trusted: bool,
}

fn bytes(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else {
        format!("{:.0} kB", n / 1e3)
    }
}

fn duration(ms: f64) -> String {
    let s = (ms / 1000.0).round() as u64;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

fn started(created_s: u64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(created_s as f64 * 1000.0));
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date(),
        date.get_hours(),
        date.get_minutes()
    )
}

/// The key for a scope the user typed or confirmed: the one typed here, else the one remembered
/// for that provider at that origin (the Evaluate form's "remember on this device").
fn key_for(state: RunsPageState, scope: &KeyScope) -> Option<String> {
    let typed = state.key.get_untracked().trim().to_string();
    if !typed.is_empty() {
        return Some(typed);
    }
    key_scopes::remembered_key(scope)
}

/// Resume, Retry errors or Extend: the run's endpoint and settings checked first (clamped to the
/// form's limits; an address not typed or confirmed here waits for the user's yes:
/// `crate::state::runs_plan::review`), then checked against the loaded dataset and run by the
/// evaluation job (its progress shows here and on Evaluate).
fn carry_on(app: AppState, state: RunsPageState, entry: RunEntry, what: Action) {
    let cap = match typed_cap(&state.cap.get_untracked()) {
        Ok(cap) => cap,
        Err(e) => return state.message.set(Some((false, e))),
    };
    let Reviewed { entry, lines, next } = review(entry, cap);
    match next {
        NextStep::GoOn { scope } => {
            let key = scope.and_then(|scope| key_for(state, &scope));
            go_on(app, state, entry, what, key, cap)
        }
        NextStep::Refused(message) => state.message.set(Some((false, message))),
        NextStep::Confirm { scope, origin, trusted } => {
            state.message.set(None);
            state.confirm_endpoint.set(Some(PendingContinuation { entry, what, scope, origin, lines, cap, trusted }))
        }
    }
}

/// The user said yes to the address: it is trusted from now on, and the run goes on with the key
/// typed on this page (no remembered key was ever used with this address).
fn confirm_endpoint(app: AppState, state: RunsPageState) {
    let Some(pending) = state.confirm_endpoint.get_untracked() else { return };
    state.confirm_endpoint.set(None);
    let was_trusted = key_scopes::trusted().contains(&pending.scope);
    key_scopes::trust(pending.scope.clone());
    let mut entry = pending.entry;
    let typed = state.key.get_untracked().trim().to_string();
    // A remembered key goes only to an address the user had typed or confirmed before this.
    let key = match Some(typed).filter(|k| !k.is_empty()) {
        Some(typed) => Some(typed),
        None if was_trusted => key_scopes::remembered_key(&pending.scope),
        None => None,
    };
    if entry.imported && !entry.reviewed {
        // Seen and accepted: so in the list at once (a continuation that does not start, no key
        // typed yet, is not asked about again), and stored with the run when its session starts.
        entry.reviewed = true;
        app.runs.show(entry.clone());
    }
    go_on(app, state, entry, pending.what, key, pending.cap)
}

/// A run with a price (above zero) first shows what going on would ask and cost, at the price
/// the provider bills it (`crate::state::runs_plan::continuation_estimate`); runs nobody bills and
/// runs without a price go on at once (`estimate_first`).
fn go_on(app: AppState, state: RunsPageState, entry: RunEntry, what: Action, key: Option<String>, cap: Option<f64>) {
    if matches!(app.dataset.get_untracked(), DatasetState::Loading) {
        // Right after a reload the run's buttons are there before the dataset: the click waits
        // for it rather than being refused (a refused Resume left the run interrupted).
        state.message.set(Some((true, format!("{}: waiting for the dataset to load…", entry.id()))));
        leptos::task::spawn_local(async move {
            while matches!(app.dataset.get_untracked(), DatasetState::Loading) {
                execbench_run::io::Clock::sleep(&BrowserClock, DATASET_POLL_MS).await;
            }
            if let DatasetState::Failed(e) = app.dataset.get_untracked() {
                return state.message.set(Some((false, format!("the dataset did not load: {e}"))));
            }
            state.message.set(None);
            go_on(app, state, entry, what, key, cap)
        });
        return;
    }
    let Some(api) = estimate_first(&entry) else {
        return proceed(app, state, entry, what, key, cap);
    };
    let DatasetState::Loaded(report) = app.dataset.get_untracked() else {
        return state.message.set(Some((false, "the dataset is still loading".into())));
    };
    if !what.asks_answers() {
        return proceed(app, state, entry, what, key, cap);
    }
    leptos::task::spawn_local(async move {
        let store = app.runs.store().await;
        let records = match store.records(entry.id()).await {
            Ok(records) => records,
            Err(e) => return state.message.set(Some((false, format!("{}: {e}", entry.id())))),
        };
        let estimate = match continuation_estimate(&entry, records, &report.samples, what, cap, &api) {
            Ok(estimate) => estimate,
            Err(e) => return state.message.set(Some((false, e))),
        };
        state.message.set(None);
        state.confirm_cost.set(Some(PendingCost {
            entry,
            what,
            key,
            cap,
            line: describe_continuation(&estimate),
            could_pass_cap: estimate.could_pass_cap(),
        }));
    });
}

/// The user's yes to the estimate.
fn confirm_cost(app: AppState, state: RunsPageState) {
    let Some(p) = state.confirm_cost.get_untracked() else { return };
    state.confirm_cost.set(None);
    proceed(app, state, p.entry, p.what, p.key, p.cap)
}

fn proceed(app: AppState, state: RunsPageState, entry: RunEntry, what: Action, key: Option<String>, cap: Option<f64>) {
    let what = match what {
        Action::Carry(what) => what,
        Action::Batches(action) => return check_batches(app, state, entry, key, action),
        Action::RetryAsBatch => return retry_as_batch(app, state, entry, key),
    };
    let python = use_python();
    let DatasetState::Loaded(report) = app.dataset.get_untracked() else {
        return state.message.set(Some((false, "the dataset is still loading".into())));
    };
    let job = evaluation_run();
    if job.progress.running.get_untracked() {
        return state.message.set(Some((false, "an evaluation is running: stop it or wait for it first".into())));
    }
    state.message.set(None);
    leptos::task::spawn_local(async move {
        match continue_plan_with_cap(app.runs, &entry, &report.samples, key, what, cap).await {
            Ok((plan, target)) => job.launch(python, app.runs, plan, entry.manifest.dataset.clone(), target),
            Err(e) => state.message.set(Some((false, e))),
        }
    });
}

/// Check now (the provider asked once about a batch run's batches, the ended ones collected) or
/// Stop (its running batches cancelled, what finished collected): `crate::jobs::batch::check`.
/// After Check now the run is polled while this page is shown.
fn check_batches(app: AppState, state: RunsPageState, entry: RunEntry, key: Option<String>, action: BatchAction) {
    let DatasetState::Loaded(report) = app.dataset.get_untracked() else {
        return state.message.set(Some((false, "the dataset is still loading".into())));
    };
    let python = use_python();
    let doing = if action == BatchAction::Stop { "cancelling its batches" } else { "asking the provider" };
    state.message.set(Some((true, format!("{}: {doing}…", entry.id()))));
    state.checking.set(Some(entry.id().to_string()));
    leptos::task::spawn_local(async move {
        let said = crate::jobs::batch::check(app.runs, python.clone(), entry, &report.samples, key, action).await;
        state.checking.set(None);
        if said.is_ok() {
            poll_batches(app, python);
        }
        state.message.set(Some(match said {
            Ok(said) => (true, said),
            Err(e) => (false, e),
        }));
    });
}

/// Retry errors of a batch run as a new batch (`crate::jobs::batch::retry_as_batch`).
fn retry_as_batch(app: AppState, state: RunsPageState, entry: RunEntry, key: Option<String>) {
    let DatasetState::Loaded(report) = app.dataset.get_untracked() else {
        return state.message.set(Some((false, "the dataset is still loading".into())));
    };
    let python = use_python();
    state.message.set(Some((true, format!("{}: submitting its errors as a new batch…", entry.id()))));
    state.checking.set(Some(entry.id().to_string()));
    leptos::task::spawn_local(async move {
        let said = crate::jobs::batch::retry_as_batch(app.runs, entry, &report.samples, key).await;
        state.checking.set(None);
        if said.is_ok() {
            poll_batches(app, python);
        }
        state.message.set(Some(match said {
            Ok(said) => (true, said),
            Err(e) => (false, e),
        }));
    });
}

/// Polls the batch runs whose key was given in this page session, while this page is shown.
fn poll_batches(app: AppState, python: crate::browser::python::PythonWorker) {
    let samples = move || app.dataset.get_untracked().report().map(|r| r.samples.clone());
    app.runs.polling.poll(app.runs, python, samples);
}

fn export(app: AppState, state: RunsPageState, entry: RunEntry, codecrash: bool) {
    leptos::task::spawn_local(async move {
        let store = app.runs.store().await;
        let records = match store.records(entry.id()).await {
            Ok(r) => r,
            Err(e) => return state.message.set(Some((false, e.to_string()))),
        };
        let result = if codecrash {
            let DatasetState::Loaded(report) = app.dataset.get_untracked() else { return };
            let (text, left_out) = export_codecrash(&entry.manifest, &report.samples, &records);
            if left_out > 0 {
                state.message.set(Some((false, format!("{left_out} records name samples the loaded dataset does not have: left out of the CodeCrash file"))));
            }
            let task = entry.manifest.task.label();
            download_text(&format!("{}_crux_{task}.jsonl", entry.id()), "application/jsonl", &text)
        } else {
            download_text(&format!("{}.jsonl", entry.id()), "application/jsonl", &export_run(&entry, &records))
        };
        if let Err(e) = result {
            state.message.set(Some((false, e)));
        }
    });
}

fn on_import(runs: Runs, state: RunsPageState) -> impl Fn(leptos::ev::Event) {
    move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            let result = match read_file_text(&file).await {
                Ok(text) => runs.import(&file.name(), &text).await,
                Err(e) => Err(e),
            };
            state.message.set(Some(match result {
                Ok(said) => (true, said),
                Err(e) => (false, e),
            }));
        });
    }
}

#[component]
pub fn RunsPage() -> impl IntoView {
    let app = expect_context::<AppState>();
    let runs = app.runs;
    let state = RunsPageState {
        key: RwSignal::new(String::new()),
        cap: RwSignal::new(String::new()),
        message: RwSignal::new(None),
        confirm_delete: RwSignal::new(None),
        confirm_endpoint: RwSignal::new(None),
        confirm_cost: RwSignal::new(None),
        checking: RwSignal::new(None),
    };
    let job = evaluation_run();
    // Another tab may have started, ended, imported or deleted runs since the list was read.
    if runs.loaded.get_untracked() {
        leptos::task::spawn_local(async move {
            runs.sync().await;
            runs.check_records().await;
        });
    }
    // Batch runs given their key in this page session are polled while this page is shown.
    runs.polling.shown(true);
    poll_batches(app, use_python());
    on_cleanup(move || {
        runs.polling.shown(false);
    });
    // A run against a remote server may need its key again (it is never stored with the run).
    let needs_key = move || {
        state.confirm_endpoint.with(Option::is_some)
            || runs.entries.with(|e| {
                e.iter().any(|e| {
                    (e.state.resumable() || e.tally.errors > 0 || batch::waiting_summary(&e.batches).is_some())
                        && e.manifest.api.as_ref().is_some_and(|a| a.endpoint.preset().is_some_and(|p| !p.local))
                })
            })
    };
    view! {
        <section class="runs" data-testid="runs-page">
            <div class="title-row">
                <h1>"Runs"</h1>
                <label class="button">
                    "Import a run file…"
                    <input type="file" class="visually-hidden" data-testid="runs-import" accept=".jsonl,.json,.txt" on:change=on_import(runs, state) />
                </label>
            </div>
            <p class="muted">
                "Every evaluation is stored in this browser as it runs, one record per sample, so a reload or a closed tab loses at most the requests in flight. Resume asks only for the samples without a record; Retry errors asks again for the samples whose requests failed; Extend adds "
                {EXTEND_BY} " answers to every sample of a finished run without asking again for the first ones. API keys are never stored with a run."
            </p>
            {move || runs.problem.get().map(|p| view! { <p class="error-box" role="alert" data-testid="runs-problem">{p}</p> })}
            {move || state.message.get().map(|(ok, text)| view! { <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="runs-message">{text}</p> })}
            {move || state.confirm_endpoint.get().map(|p| view! {
                <div class="warn-box" role="alertdialog" data-testid="runs-confirm-endpoint">
                    <p><strong>{format!("{} would send requests to {}", p.entry.id(), p.origin)}</strong>
                    {if p.trusted { " — an address you have used with this provider, named by an imported run file: check its settings before anything is sent." } else { " — an address you have not used with this provider in this browser. A run file can name any server: if you did not expect this one, do not send your key there." }}</p>
                    <ul class="small" data-testid="runs-confirm-lines">{p.lines.iter().map(|l| view! { <li>{l.clone()}</li> }).collect_view()}</ul>
                    <p class="muted small">{match (p.trusted, p.entry.manifest.spend_cap.is_none()) {
                        (false, true) => "The key typed below (if any) is what will be sent; no remembered key is used for a new address. This run has no spend cap: type one below (then Resume again) to limit what it may spend.",
                        (false, false) => "The key typed below (if any) is what will be sent; no remembered key is used for a new address. A spend cap typed below replaces the run's.",
                        (true, true) => "The key typed below, else the one remembered for this address, is what will be sent. This run has no spend cap: type one below (then Resume again) to limit what it may spend.",
                        (true, false) => "The key typed below, else the one remembered for this address, is what will be sent. A spend cap typed below replaces the run's.",
                    }}</p>
                    <div class="toolbar">
                        <button class="danger" data-testid="runs-confirm-go" on:click=move |_| confirm_endpoint(app, state)>{format!("Send requests to {}", p.origin)}</button>
                        <button data-testid="runs-confirm-cancel" on:click=move |_| state.confirm_endpoint.set(None)>"Cancel"</button>
                    </div>
                </div>
            })}
            {move || state.confirm_cost.get().map(|p| view! {
                <div class="warn-box" role="alertdialog" data-testid="runs-estimate">
                    <p><strong>{format!("{}: ", p.entry.id())}</strong><span data-testid="runs-estimate-line">{p.line.clone()}</span></p>
                    <div class="toolbar">
                        <button data-testid="runs-estimate-go" disabled=p.could_pass_cap && matches!(p.what, Action::RetryAsBatch) on:click=move |_| confirm_cost(app, state)>
                            {if matches!(p.what, Action::RetryAsBatch) { "Submit the batch" } else { "Go on" }}
                        </button>
                        <button data-testid="runs-estimate-cancel" on:click=move |_| state.confirm_cost.set(None)>"Cancel"</button>
                    </div>
                </div>
            })}
            <Show when=needs_key>
                <label class="field">
                    <span class="label">"API key for resuming (kept in memory only)"</span>
                    <input type="password" class="key-field" data-testid="runs-key" prop:value=move || state.key.get() on:input=move |ev| state.key.set(event_target_value(&ev)) />
                </label>
            </Show>
            <Show when=move || state.confirm_endpoint.with(Option::is_some) || runs.entries.with(|e| e.iter().any(|e| e.manifest.spend_cap.is_some() && e.state.resumable()))>
                <label class="field">
                    <span class="label">"New spend cap for resuming ($, the whole run; empty: the run's own)"</span>
                    <input type="text" class="narrow" data-testid="runs-cap" prop:value=move || state.cap.get() on:input=move |ev| state.cap.set(event_target_value(&ev)) />
                </label>
            </Show>
            <Show when=move || job.progress.running.get()>
                <div class="toolbar" data-testid="runs-job">
                    <span class="job">{move || job.progress.label.get().unwrap_or_default()}</span>
                    <span class="stats">{move || format!("{} / {} samples", job.progress.done.get(), job.progress.total.get())}</span>
                    <button data-testid="runs-stop" on:click=move |_| job.progress.stop()>"Stop"</button>
                </div>
                <ProgressBar done=job.progress.done total=job.progress.total />
            </Show>
            {move || job.error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="runs-job-error">{e}</p> })}
            <Show when=move || runs.loaded.get() fallback=|| view! { <p class="muted">"Reading the stored runs…"</p> }>
                <Show when=move || !runs.entries.with(Vec::is_empty) fallback=|| view! { <p class="muted empty" data-testid="runs-empty">"No runs stored yet: evaluate a model (Evaluate), or import a run file."</p> }>
                    <div class="table-scroll">
                        <table class="runs-table" data-testid="runs-table" data-ready-ms=move || format!("{:.1}", runs.loaded_at_ms.get())>
                            <thead>
                                <tr>
                                    <th>"Run"</th><th>"Dataset, task"</th><th>"Template"</th><th>"Progress"</th><th>"pass@1"</th>
                                    <th>"Tokens"</th><th>"Cost"</th><th>"State"</th><th>"Started"</th><th></th>
                                </tr>
                            </thead>
                            <tbody>
                                <For each=move || runs.entries.with(|e| e.iter().map(|e| e.id().to_string()).collect::<Vec<_>>()) key=|id| id.clone() let:id>
                                    <RunRow id=id state=state />
                                </For>
                            </tbody>
                        </table>
                    </div>
                </Show>
            </Show>
            // Below the list, not above it: the figures arrive after the list is shown, and a
            // line that grows above the rows would move their buttons under the pointer.
            <p class="muted small" data-testid="runs-storage">
                {move || match runs.storage.get() {
                    Some((used, quota)) => format!("This site uses {} of the {} the browser allows it.", bytes(used), bytes(quota)),
                    None => "The browser does not say how much storage this site uses.".to_string(),
                }}
                " "
                <span data-testid="runs-persisted" data-persisted=move || match runs.persisted.get() { Some(true) => "yes", Some(false) => "no", None => "unknown" }>
                    {move || match runs.persisted.get() {
                        Some(true) => "Storage is persistent: the browser keeps it until you clear it.",
                        Some(false) => "Storage is not persistent: the browser may clear it when the disk is nearly full (starting or importing a run asks it to keep it).",
                        None => "The browser does not say whether it keeps this site's storage.",
                    }}
                </span>
            </p>
        </section>
    }
}

/// While the evaluation running `id` has its concurrency lowered by rate limits: what it is and
/// when it is back (live only: the stored entry does not keep it).
fn concurrency_note(id: &str) -> Option<String> {
    let job = evaluation_run();
    if job.run_id.get().as_deref() != Some(id) {
        return None;
    }
    job.status.with(|s| s.as_ref().and_then(|s| s.concurrency_note()))
}

/// What a row's action buttons offer: they are drawn anew only when this changes, not at every
/// progress update of a running run.
#[derive(Clone, PartialEq)]
struct Offers {
    /// Batches not yet collected: Check now and Stop.
    waiting: bool,
    is_batch: bool,
    resume: bool,
    retry: bool,
    retry_as_batch: bool,
    /// Extend, and the n it would reach.
    extend_to: Option<usize>,
    codecrash: bool,
}

impl Offers {
    fn of(entry: &RunEntry) -> Self {
        let waiting = batch::waiting_summary(&entry.batches).is_some();
        let is_batch = !entry.batches.is_empty();
        let errors = entry.tally.errors > 0;
        let settled = entry.state != RunState::Running;
        Offers {
            waiting,
            is_batch,
            // Every state that is not the end offers Resume: samples without a record, and after
            // an Extend cut short, the answers some samples still lack (with none of either, it
            // finishes). A batch run's samples in batches not yet collected are paid for: nothing
            // asks for them live until Check now has collected every batch.
            resume: entry.state.resumable() && !waiting,
            retry: errors && settled && !waiting,
            // A batch run's errors can go in a new batch even while other batches wait.
            retry_as_batch: is_batch && errors && settled,
            extend_to: (entry.state == RunState::Finished && !errors).then(|| entry.manifest.n + EXTEND_BY),
            codecrash: has_codecrash_layout(&entry.manifest),
        }
    }
}

/// The state a row shows for a run nobody drives now.
fn state_label(entry: &RunEntry) -> &'static str {
    if batch::waiting_summary(&entry.batches).is_some() && entry.state == RunState::Paused {
        "submitted"
    } else {
        entry.state.label()
    }
}

/// One run of the list. The list keys rows by the run's id alone and each row reads its entry
/// from the list: a running run's updates change the figures in place and leave the buttons
/// alone (a row drawn anew between a mousedown and its mouseup loses the click).
#[component]
fn RunRow(id: String, state: RunsPageState) -> impl IntoView {
    let app = expect_context::<AppState>();
    let id_kept = StoredValue::new(id.clone());
    let entry = Memo::new(move |_| {
        app.runs.entries.with(|all| id_kept.with_value(|id| all.iter().find(|e| e.id() == id).cloned()))
    });
    // Reads the entry; `None` only in the moment between a run leaving the list and its row.
    let read = move |f: fn(&RunEntry) -> String| entry.with(|e| e.as_ref().map(f).unwrap_or_default());
    let active = move || app.runs.active.with(|a| id_kept.with_value(|id| a.contains(id)));
    // Driven by another tab: shown, never driven here (no Resume, Retry, Extend, Rename or Delete).
    let elsewhere = move || app.runs.elsewhere.with(|a| id_kept.with_value(|id| a.contains(id)));
    let busy = move || active() || elsewhere();
    let missing = move || app.runs.missing.with(|m| id_kept.with_value(|id| m.get(id).and_then(|c| c.message())));
    let label = Memo::new(move |_| entry.with(|e| e.as_ref().map(RunLabel::of)));
    let offers = Memo::new(move |_| entry.with(|e| e.as_ref().map(Offers::of)));
    let waiting = move || offers.with(|o| o.as_ref().is_some_and(|o| o.waiting));
    let quiet_state = move || entry.with(|e| e.as_ref().map_or("", state_label));
    let next_check = move || app.runs.polling.next_check_s.with(|n| id_kept.with_value(|id| n.get(id).copied()));
    let checking = move || state.checking.get().as_deref() == Some(id_kept.get_value().as_str());
    let asking = move || state.confirm_delete.get().as_deref() == Some(id_kept.get_value().as_str());
    // A button's action reads the entry as it is at the click.
    let act = move |what: Action| {
        if let Some(e) = entry.get_untracked() {
            carry_on(app, state, e, what);
        }
    };
    let export_now = move |codecrash: bool| {
        if let Some(e) = entry.get_untracked() {
            export(app, state, e, codecrash);
        }
    };
    let progress = move || {
        read(|e| {
            let errors = if e.tally.errors > 0 {
                format!(" ({})", counted(e.tally.errors as u64, "error", "errors"))
            } else {
                String::new()
            };
            format!("{} / {}{errors}", e.tally.recorded(), e.manifest.samples)
        })
    };
    let pass = move || {
        entry.with(|e| {
            let Some(e) = e else { return Vec::new() };
            let m = &e.manifest;
            m.modes
                .iter()
                .enumerate()
                .map(|(i, mode)| {
                    format!(
                        "{} {}",
                        mode.label(),
                        e.tally.pass_at_1(i).map_or("n/a".to_string(), |p| format!("{p:.1}"))
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    let usage_title = move || {
        read(|e| {
            let u = e.tally.usage;
            format!("{} prompt, {} completion ({} reasoning)", u.prompt_tokens, u.completion_tokens, u.reasoning_tokens)
        })
    };
    // A batch run waited for its provider: how long since it was made, not how long it "ran".
    let time_note = move || {
        read(|e| {
            if e.batches.is_empty() {
                format!("ran {}", duration(e.active_ms))
            } else {
                format!("waited {}", duration((e.updated_ms - e.manifest.created as f64 * 1000.0).max(0.0)))
            }
        })
    };
    let unsaved = move || {
        entry.track();
        let n = app.runs.has_unsaved(&id_kept.get_value());
        (n > 0).then(|| {
            format!(
                "{n} result{} not yet stored: Resume writes {} first",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" }
            )
        })
    };
    view! {
        <tr data-testid="run-row" data-run=id.clone() data-state=move || if elsewhere() { "elsewhere" } else { quiet_state() }>
            <td class="run-source">
                {move || label.get().map(|l| view! { <RunName label=l active=Signal::derive(busy) message=state.message /> })}
            </td>
            <td>{move || read(|e| e.manifest.dataset.clone())}<span class="muted small note">{move || read(|e| e.manifest.task.words().to_string())}</span></td>
            <td class="small-cell">{move || read(|e| format!("{} · n={}", e.manifest.template.name, e.manifest.n))}</td>
            <td class="num" data-testid="run-progress">
                {move || match missing() {
                    // The entry's figures count records that are gone: say so instead.
                    Some(said) => view! { <span class="records-missing" data-testid="run-records-missing">{said}</span> }.into_any(),
                    None => view! { {progress}<span class="muted small note" data-testid="run-scored">{move || read(|e| format!("{} scored", e.tally.scored))}</span> }.into_any(),
                }}
            </td>
            <td class="num" data-testid="run-pass1">{move || if missing().is_some() { view! { "–" }.into_any() } else { pass().into_iter().map(|p| view! { <span class="line">{p}</span> }).collect_view().into_any() }}</td>
            <td class="num" data-testid="run-tokens" title=usage_title>{move || read(|e| format_tokens(e.tally.usage.total()))}</td>
            <td class="num" data-testid="run-cost" title=move || read(|e| e.price_source(&e.tally.live_usage).unwrap_or_else(|| "no price known".into()))>
                {move || read(|e| e.cost().map_or("–".to_string(), format_usd))}
            </td>
            <td data-testid="run-state" class="runs-state-cell">
                <strong data-testid="run-state-label">{move || if active() { "running" } else if elsewhere() { "running in another tab" } else { quiet_state() }}</strong>
                {move || active().then(|| concurrency_note(&id_kept.get_value())).flatten().map(|n| view! { <span class="small note" data-testid="run-concurrency">{n}</span> })}
                {move || offers.with(|o| o.as_ref().is_some_and(|o| o.is_batch)).then(|| view! { <span class="imported-mark small note" data-testid="run-batch-mark" title="answered by the provider's batch service">"batch"</span> })}
                {move || entry.with(|e| e.as_ref().and_then(|e| e.note.clone())).map(|n| view! { <span class="muted small note" data-testid="run-note">{n}</span> })}
                {move || next_check().filter(|_| waiting()).map(|s| view! { <span class="muted small note" data-testid="run-next-check">{format!("next check in {s} s")}</span> })}
                {move || unsaved().map(|said| view! { <span class="small note">{said}</span> })}
            </td>
            <td class="small-cell">{move || read(|e| started(e.manifest.created))}<span class="muted small note" data-testid="run-time">{time_note}</span></td>
            <td class="actions">
                {move || offers.get().map(|o| view! {
                    {o.waiting.then(|| view! { <button data-testid="run-check-batches" title="ask the provider where the batches are, and collect the results that are ready" disabled=checking on:click=move |_| act(Action::Batches(BatchAction::Check))>"Check now"</button> })}
                    {o.waiting.then(|| view! { <button class="danger" data-testid="run-stop-batches" title="cancel the batches at the provider and collect what finished" disabled=checking on:click=move |_| act(Action::Batches(BatchAction::Stop))>"Stop"</button> })}
                    {o.retry_as_batch.then(|| view! { <button data-testid="run-retry-batch" title="the error records (errored, expired, cancelled lines) submitted again as a new batch" disabled=checking on:click=move |_| act(Action::RetryAsBatch)>"Retry errors as a new batch"</button> })}
                    {o.resume.then(|| view! { <button data-testid="run-resume" disabled=busy hidden=elsewhere on:click=move |_| act(Action::Carry(Continue::Resume))>"Resume"</button> })}
                    {o.retry.then(|| view! { <button data-testid="run-retry" disabled=busy hidden=elsewhere on:click=move |_| act(Action::Carry(Continue::RetryErrors))>{if o.is_batch { "Retry errors live" } else { "Retry errors" }}</button> })}
                    {o.extend_to.map(|n| view! { <button data-testid="run-extend" disabled=busy hidden=elsewhere on:click=move |_| act(Action::Carry(Continue::Extend { extra: EXTEND_BY }))>{format!("Extend n to {n}")}</button> })}
                    <button data-testid="run-export" on:click=move |_| export_now(false)>"Export"</button>
                    {o.codecrash.then(|| view! { <button data-testid="run-export-codecrash" title="CodeCrash's result layout" on:click=move |_| export_now(true)>"CodeCrash"</button> })}
                })}
                <Show when=asking fallback=move || {
                    view! { <button class="danger" data-testid="run-delete" disabled=busy on:click=move |_| state.confirm_delete.set(Some(id_kept.get_value()))>"Delete"</button> }
                }>
                    <button class="danger" data-testid="run-delete-confirm" on:click=move |_| { state.confirm_delete.set(None); app.runs.delete(id_kept.get_value()); }>"Delete it and its records"</button>
                    <button data-testid="run-delete-cancel" on:click=move |_| state.confirm_delete.set(None)>"Keep"</button>
                </Show>
            </td>
        </tr>
    }
}

/// What the name cell shows of a run: drawn anew only when one of these changes (a rename), so an
/// open Rename input survives the run's progress updates.
#[derive(Clone, PartialEq)]
struct RunLabel {
    id: String,
    /// The name shown: the user's, else the default.
    shown: String,
    /// The user's own name, empty for none.
    own: String,
    default: String,
    /// The model, and the endpoint's host where there is one.
    on: String,
    imported: bool,
}

impl RunLabel {
    fn of(entry: &RunEntry) -> Self {
        let m = &entry.manifest;
        RunLabel {
            id: entry.id().to_string(),
            shown: run_name(m),
            own: m.name.clone().unwrap_or_default(),
            default: default_name(m),
            on: match endpoint_host(m) {
                Some(host) => format!("{} at {host}", m.model),
                None => m.model.clone(),
            },
            imported: entry.imported,
        }
    }
}

/// A run's name (a link to its page), what it ran on (model, endpoint host), whether it was
/// imported, and Rename: an input in place, Enter keeps the name, Escape leaves it; an empty name
/// goes back to the default.
#[component]
fn RunName(label: RunLabel, active: Signal<bool>, message: RwSignal<Option<(bool, String)>>) -> impl IntoView {
    let app = expect_context::<AppState>();
    let RunLabel { id, shown: name, own, default: placeholder, on, imported } = label;
    let editing = RwSignal::new(false);
    let stored_name = StoredValue::new(own);
    let typed = RwSignal::new(stored_name.get_value());
    let save = {
        let id = id.clone();
        move || {
            let id = id.clone();
            leptos::task::spawn_local(async move {
                match app.runs.rename(&id, &typed.get_untracked()).await {
                    Ok(()) => editing.set(false),
                    Err(e) => message.set(Some((false, format!("{id}: {e}")))),
                }
            });
        }
    };
    let title = format!("{name} ({id})");
    view! {
        <Show when=move || editing.get() fallback={
            let (name, title) = (name.clone(), title.clone());
            move || view! {
                <a href=Route::Run(id.clone()).href() data-testid="run-open" class="run-name" title=title.clone()>{name.clone()}</a>
                <button class="link-button small" data-testid="run-rename" disabled=active on:click=move |_| editing.set(true)>"Rename"</button>
            }
        }>
            <input type="text" class="run-name-input" data-testid="run-name-input" aria-label="Run name (empty: the default)"
                placeholder=placeholder.clone() prop:value=move || typed.get() autofocus=true
                on:input=move |ev| typed.set(event_target_value(&ev))
                on:keydown={
                    let save = save.clone();
                    move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
                        "Enter" => save(),
                        "Escape" => {
                            typed.set(stored_name.get_value());
                            editing.set(false);
                        }
                        _ => {}
                    }
                } />
        </Show>
        <span class="muted small note" data-testid="run-model">{on}</span>
        {imported.then(|| view! { <span class="imported-mark small note" data-testid="run-imported" title="came from a run file (Import)">"imported"</span> })}
    }
}

/// One stored run: its summary, chart, exports and per-sample table, read from the store.
#[component]
pub fn RunPage(id: String) -> impl IntoView {
    let app = expect_context::<AppState>();
    let loaded: RwSignal<Option<Result<Arc<crate::jobs::results::RunResults>, String>>> = RwSignal::new(None);
    let missing: RwSignal<Option<String>> = RwSignal::new(None);
    {
        let id = id.clone();
        leptos::task::spawn_local(async move {
            let store = app.runs.store().await;
            let result = match store.entry(&id).await {
                Ok(Some(entry)) => match store.records(&id).await {
                    Ok(records) => {
                        missing.set(RecordsCheck::of(entry.tally.recorded(), records.len()).message());
                        let mut run = results_of(&entry, &records, entry.manifest.model.starts_with("re-scored "));
                        run.id = 1;
                        Ok(Arc::new(run))
                    }
                    Err(e) => Err(e.to_string()),
                },
                Ok(None) => Err(format!("no run `{id}` is stored in this browser")),
                Err(e) => Err(e.to_string()),
            };
            loaded.set(Some(result));
        });
    }
    let runs = Signal::derive(move || {
        loaded.with(|l| l.as_ref().and_then(|r| r.as_ref().ok()).cloned().into_iter().collect::<Vec<_>>())
    });
    let (table_mode, table_filter) =
        (RwSignal::new(execbench_eval::score::Mode::Strict), RwSignal::new(RowFilter::All));
    view! {
        <section class="run-view" data-testid="run-page">
            <p><a href=Route::Runs.href()>"← All runs"</a></p>
            {move || match loaded.get() {
                None => view! { <p class="muted">"Reading the run…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error-box" role="alert" data-testid="run-page-error">{e}</p> }.into_any(),
                Some(Ok(run)) => {
                    let cost = run.cost.map(|c| format!(" · cost {}", format_usd(c))).unwrap_or_default();
                    let usage = run.usage.map(|u| format!("{} · tokens: {} prompt, {} completion ({} reasoning){cost}", run.requests.describe(), u.prompt_tokens, u.completion_tokens, u.reasoning_tokens));
                    let errors = run.errors.clone();
                    view! {
                        <h1 data-testid="run-title" class="run-name-title">{run.name.clone()}</h1>
                        <p class="muted" data-testid="run-what">{run.title()}{run.imported.then_some(" · imported from a run file")}</p>
                        {move || missing.get().map(|m| view! { <p class="error-box" role="alert" data-testid="run-records-missing">{m}</p> })}
                        <p class="stats" data-testid="run-summary-line">{format!("{} of {} samples scored · {} · {}", run.scored(), run.planned, run.end, duration(run.elapsed_ms))}</p>
                        {usage.map(|u| view! { <p class="stats" data-testid="run-usage">{u}</p> })}
                        {(!errors.is_empty()).then(|| view! {
                            <details class="error-box" open=true data-testid="run-errors">
                                <summary>{format!("{} sample{} failed for infrastructure reasons (left out of pass@k)", errors.len(), if errors.len() == 1 { "" } else { "s" })}</summary>
                                <ul>{errors.iter().take(100).map(|(id, message)| view! { <li data-testid="run-error"><code>{id.clone()}</code>": "{message.clone()}</li> }).collect_view()}</ul>
                            </details>
                        })}
                        <ResultsSummary runs=runs />
                        <StoredVerdicts run=run.clone() />
                        <h3>"Export"</h3>
                        <ResultsExports runs=runs />
                        <h3>"Per sample"</h3>
                        <SampleTable run=run mode=table_mode filter=table_filter />
                    }
                    .into_any()
                }
            }}
        </section>
    }
}
