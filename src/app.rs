//! The shell: header, navigation and the hash router. The state the pages share is `crate::state`.

use leptos::prelude::*;

use crate::browser::offline::AppUpdates;
use crate::browser::python::{PythonWorker, WorkerStatus};
use crate::components::theme_switch::ThemeSwitch;
use crate::pages::{
    build::BuildPage,
    compare::ComparePage,
    datasets::DatasetsPage,
    evaluate::EvaluatePage,
    home::HomePage,
    perturb::PerturbPage,
    playground::PlaygroundPage,
    questions::QuestionsPage,
    runs::{RunPage, RunsPage},
    sample::SamplePage,
    verify::VerifyPage,
};
use crate::route::{self, Route};
use crate::state::AppState;

#[component]
pub fn App() -> impl IntoView {
    let worker = PythonWorker::start();
    let status = worker.status;
    let state = AppState::new(&worker);
    crate::state::tabs::take_over_runs(state, worker.clone());
    provide_context(StoredValue::new_local(worker));
    provide_context(state);
    state.restore();
    let updates = AppUpdates::start();
    provide_context(updates);
    // A new build waits while any job runs: reloading would cut it off.
    let job_running = move || {
        state.verify.job.running.get()
            || state.perturb.job.running.get()
            || state.questions.job.running.get()
            || state.reproduction.job.running.get()
            || state.build.progress.running.get()
            || !state.runs.active.get().is_empty()
    };

    let (route, set_route) = signal(route::current());
    // On narrow screens the navigation is a menu; following any link closes it.
    let menu_open = RwSignal::new(false);
    // Read once: the page's origin does not change while it is open.
    let shared_origin = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .and_then(|href| execbench_providers::shared_origin_warning(&href));
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        set_route.set(route::current());
        menu_open.set(false);
    });
    on_cleanup(move || handle.remove());

    let nav_link = move |target: Route, label: &'static str| {
        let href = target.href();
        let active = {
            let target = target.clone();
            move || match (&route.get(), &target) {
                (Route::Sample(..) | Route::Datasets(_), Route::Datasets(_))
                | (Route::Evaluate(_), Route::Evaluate(_))
                | (Route::Run(_), Route::Runs) => true,
                (current, target) => current == target,
            }
        };
        view! { <a href=href class:active=active>{label}</a> }
    };

    view! {
        <header class="topbar" class:menu-open=move || menu_open.get()
            on:keydown=move |ev| if ev.key() == "Escape" { menu_open.set(false) }>
            <a class="brand" href=Route::Home.href()>"execbench"</a>
            <nav id="site-nav" data-testid="site-nav">
                {nav_link(Route::datasets(), "Datasets")}
                {nav_link(Route::Playground, "Playground")}
                {nav_link(Route::Verify, "Verify")}
                {nav_link(Route::Perturb, "Perturb")}
                {nav_link(Route::Questions, "Questions")}
                {nav_link(Route::evaluate(), "Evaluate")}
                {nav_link(Route::Runs, "Runs")}
                {nav_link(Route::Build, "Build")}
                {nav_link(Route::Compare, "Compare")}
            </nav>
            <Show when=move || updates.offline.get()>
                <span class="offline-tag" data-testid="offline" title="No network: model APIs wait for it; everything else works">"Offline"</span>
            </Show>
            <EngineStatus status=status />
            <ThemeSwitch />
            <button class="menu-button" data-testid="menu-button" aria-controls="site-nav" title="Menu"
                aria-expanded=move || menu_open.get().to_string() on:click=move |_| menu_open.update(|open| *open = !*open)>
                <span class="bars" aria-hidden="true"></span><span class="visually-hidden">"Menu"</span>
            </button>
        </header>
        {shared_origin.map(|warning| view! {
            <div class="warn-box shared-origin" role="alert" data-testid="shared-origin">{warning}</div>
        })}
        <Show when=move || updates.ready.get()>
            <div class="update-banner" role="status" data-testid="update-banner">
                <span>"A new version of execbench is ready."</span>
                <button class="primary" data-testid="update-reload" disabled=job_running on:click=move |_| updates.apply()>
                    "Reload to update"
                </button>
                <Show when=job_running>
                    <span class="muted">"It loads once the running job ends."</span>
                </Show>
            </div>
        </Show>
        <main>
            {move || match route.get() {
                Route::Home => view! { <HomePage /> }.into_any(),
                Route::Datasets(query) => view! { <DatasetsPage query=query /> }.into_any(),
                Route::Sample(id, query) => view! { <SamplePage id=id query=query /> }.into_any(),
                Route::Playground => view! { <PlaygroundPage /> }.into_any(),
                Route::Verify => view! { <VerifyPage /> }.into_any(),
                Route::Perturb => view! { <PerturbPage /> }.into_any(),
                Route::Questions => view! { <QuestionsPage /> }.into_any(),
                Route::Evaluate(query) => view! { <EvaluatePage query=query /> }.into_any(),
                Route::Runs => view! { <RunsPage /> }.into_any(),
                Route::Build => view! { <BuildPage /> }.into_any(),
                Route::Compare => view! { <ComparePage /> }.into_any(),
                Route::Run(id) => view! { <RunPage id=id /> }.into_any(),
            }}
        </main>
    }
}

/// The engine's state in the header; opened, it shows the pool of workers and its size setting.
#[component]
fn EngineStatus(status: RwSignal<WorkerStatus>) -> impl IntoView {
    let badge = move || {
        match status.get() {
        WorkerStatus::Starting => view! { <span class="engine starting" data-status="starting">"Python: starting…"</span> }.into_any(),
        // The data attributes are for the benchmark (crates/bench/src/app_engine.rs).
        WorkerStatus::Ready { start_ms, init_ms, restored, ready_at_ms, workers, memory_bytes, runs_answered, .. } => view! {
            <span class="engine ready" data-status="ready" data-ready-at=format!("{ready_at_ms:.1}") data-start-ms=format!("{start_ms:.1}") data-init-ms=format!("{init_ms:.1}") data-restored=restored.to_string() data-workers=workers.to_string() data-memory=memory_bytes.to_string() data-runs=runs_answered.to_string()>
                {format!("Python ready ({start_ms:.0} ms)")}
            </span>
        }.into_any(),
        WorkerStatus::Failed(reason) => view! { <span class="engine failed" data-status="failed" title=reason.clone()>"Python unavailable"</span> }.into_any(),
    }
    };
    view! {
        <details class="engine-menu" data-testid="engine-menu">
            <summary title="Python workers">{badge}</summary>
            <EnginePanel status=status />
        </details>
    }
}

#[component]
fn EnginePanel(status: RwSignal<WorkerStatus>) -> impl IntoView {
    let python = crate::browser::python::use_python();
    let (cores, memory_gb) = crate::browser::python::device();
    let default = crate::browser::python::default_pool_size(cores, memory_gb);
    let size = RwSignal::new(python.size());
    let on_size = {
        let python = python.clone();
        move |ev| {
            if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                python.set_size(n);
                size.set(python.size());
            }
        }
    };
    let state = move || match status.get() {
        WorkerStatus::Starting => "Starting the first worker…".to_string(),
        WorkerStatus::Failed(reason) => reason,
        WorkerStatus::Ready { start_ms, restored, restarts, workers, size, memory_bytes, runs_answered, .. } => {
            format!(
                "{workers} of {size} worker{} running RustPython ({:.0} MB of memory); the latest took {start_ms:.0} ms to start{}; {restarts} restart{}; {runs_answered} run{} answered.",
                if size == 1 { "" } else { "s" },
                memory_bytes as f64 / 1e6,
                if restored { ", from a saved start" } else { "" },
                if restarts == 1 { "" } else { "s" },
                if runs_answered == 1 { "" } else { "s" },
            )
        }
    };
    let note = move || match status.get() {
        WorkerStatus::Ready { note: Some(note), .. } => {
            Some(view! { <p class="hint warn" data-testid="engine-note">{note}</p> })
        }
        _ => None,
    };
    view! {
        <div class="engine-panel" data-testid="engine-panel">
            <p data-testid="engine-state">{state}</p>
            {note}
            <label>"Python workers "
                <select data-testid="pool-size" on:change=on_size prop:value=move || size.get().to_string()>
                    {(1..=crate::browser::python::MAX_POOL).map(|n| view! { <option value=n.to_string() selected=move || size.get() == n>{n.to_string()}</option> }).collect_view()}
                </select>
            </label>
            <p class="hint">{format!(
                "Verifying, perturbing and scoring spread their runs over the workers. This device reports {cores} core{}{}; the default is {default}. Each worker holds its own interpreter in memory; extra workers start when runs wait.",
                if cores == 1 { "" } else { "s" },
                memory_gb.map(|gb| format!(" and {gb} GB of memory")).unwrap_or_default(),
            )}</p>
        </div>
    }
}
