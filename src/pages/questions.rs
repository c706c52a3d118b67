//! Questions: beyond a call's output, questions about its run (does line N run, what does a
//! variable hold right after line N, which line runs next), made from each sample's traced run in
//! the worker (REval's kinds, Chen et al. 2024). The job is `crate::jobs::QuestionsRun`, in app
//! state; the download is the command line's `execbench questions --out` file, line for line.

use execbench_eval::Task;
use execbench_trace_questions::{Question, QuestionKind, prompt, questions_jsonl};
use leptos::prelude::*;

use crate::components::progress_bar::ProgressBar;
use crate::jobs::questions::{QuestionsForm, TRACE_TIME_MS};
use crate::route::Route;
use crate::state::{AppState, DatasetState, dataset_column};

/// Questions shown in the table; the download has them all.
const SHOWN: usize = 50;

fn kind_help(kind: QuestionKind) -> &'static str {
    match kind {
        QuestionKind::Coverage => "does line N run at all?",
        QuestionKind::State => "what does a variable hold right after line N?",
        QuestionKind::Path => "which line runs right after line N?",
        QuestionKind::Output => "what does the call return?",
    }
}

/// What the question asks about, in a few words: `line 5, total, 2nd run`.
fn asked(question: &Question) -> String {
    let mut parts = Vec::new();
    if let Some(line) = question.line {
        parts.push(format!("line {line}"));
    }
    if let Some(variable) = &question.variable {
        parts.push(format!("`{variable}`"));
    }
    if let Some(visit) = question.visit {
        parts.push(format!("{} run", execbench_trace_questions::prompt::ordinal(visit)));
    }
    parts.join(", ")
}

#[component]
pub fn QuestionsPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let run = state.questions;
    let job = run.job;
    let form = RwSignal::new(QuestionsForm::default());
    let error = RwSignal::new(None::<String>);
    let loaded = move || matches!(state.dataset.get(), DatasetState::Loaded(_));

    let start = move |_| {
        let DatasetState::Loaded(report) = state.dataset.get_untracked() else { return };
        let dataset = dataset_column(&state.dataset_name.get_untracked());
        match form.get_untracked().read(&dataset) {
            Ok((options, limit)) => {
                error.set(None);
                let samples = report.samples.iter().take(limit.unwrap_or(usize::MAX)).cloned().collect();
                run.start(samples, options);
            }
            Err(message) => error.set(Some(message)),
        }
    };
    let stop = move |_| run.stop();
    // The questions become the working dataset (kept like an imported file, so a reload and
    // Resume find it), and Evaluate opens on the question task.
    let evaluate = move |_| {
        let name = format!("{}-questions.jsonl", run.dataset.get_value());
        let bytes = run.questions.with_untracked(|questions| questions_jsonl(questions)).into_bytes();
        leptos::task::spawn_local(async move {
            match crate::browser::loader::load_off_thread(&name, &bytes).await {
                Ok(report) => {
                    state.import(name, bytes, report);
                    let form = crate::state::evaluate::evaluate_state();
                    form.task.set(Task::Question);
                    form.templates.select_first(Task::Question);
                    let _ = window().location().set_hash(&Route::evaluate().href());
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };
    let download = move |_| {
        let name = format!("{}-questions.jsonl", run.dataset.get_value());
        let text = run.questions.with_untracked(|questions| questions_jsonl(questions));
        if let Err(e) = crate::browser::download::download_text(&name, "application/jsonl", &text) {
            error.set(Some(format!("could not save {name}: {e}")));
        }
    };

    view! {
        <section class="page questions">
            <h1>"Questions about a run"</h1>
            <p class="muted">
                {move || format!("Dataset: {}. ", state.dataset_name.get())}
                "Runs each sample's call in the page with a line-by-line trace, then asks about that run: not only what it returns, but which lines run, what a variable holds after a line, and which line comes next. A model that predicts outputs by pattern often cannot follow the run. "
                {format!("Limit: {} s per traced run.", TRACE_TIME_MS / 1000)}
            </p>
            <div class="row-fields options">
                <fieldset class="field kinds"><legend class="label">"Kinds"</legend>
                    {QuestionKind::ALL.into_iter().map(|kind| view! {
                        <label class="kind-choice" title=kind_help(kind)>
                            <input type="checkbox" data-testid=format!("question-kind-{}", kind.label())
                                prop:checked=move || form.with(|f| f.kinds.contains(&kind))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    form.update(|f| {
                                        f.kinds.retain(|k| *k != kind);
                                        if on { f.kinds.push(kind); }
                                    });
                                } />
                            {kind.label()}
                        </label>
                    }).collect_view()}
                </fieldset>
                <label class="field"><span class="label">"Seed"</span>
                    <input class="narrow-field" data-testid="questions-seed" inputmode="numeric"
                        prop:value=move || form.with(|f| f.seed.clone())
                        on:input=move |ev| form.update(|f| f.seed = event_target_value(&ev)) />
                </label>
                <label class="field"><span class="label">"Per kind"</span>
                    <input class="narrow-field" data-testid="questions-per-kind" inputmode="numeric"
                        prop:value=move || form.with(|f| f.per_kind.clone())
                        on:input=move |ev| form.update(|f| f.per_kind = event_target_value(&ev)) />
                </label>
                <label class="field"><span class="label">"Samples (first; empty: all)"</span>
                    <input class="narrow-field" data-testid="questions-limit" inputmode="numeric"
                        prop:value=move || form.with(|f| f.limit.clone())
                        on:input=move |ev| form.update(|f| f.limit = event_target_value(&ev)) />
                </label>
            </div>
            <div class="toolbar">
                <button class="primary" data-testid="questions-start" on:click=start
                    disabled=move || job.running.get() || !loaded()>"Make questions"</button>
                <button data-testid="questions-stop" on:click=stop disabled=move || !job.running.get()>"Stop"</button>
                <button data-testid="questions-evaluate" on:click=evaluate
                    title="Open these questions as the dataset and evaluate a model on them"
                    disabled=move || job.running.get() || run.questions.with(Vec::is_empty)>"Evaluate these questions"</button>
                <button data-testid="questions-download" on:click=download
                    disabled=move || job.running.get() || run.questions.with(Vec::is_empty)>"Download questions (JSONL)"</button>
            </div>
            {move || error.get().map(|message| view! { <p class="error" role="alert" data-testid="questions-error">{message}</p> })}
            <ProgressBar done=job.done total=job.total />
            <p class="stats" data-testid="questions-stats">
                {move || format!("{} / {} samples traced · {:.1} s · {:.0} samples/s", job.done.get(), job.total.get(), job.elapsed_ms.get() / 1000.0, job.rate())}
            </p>
            {move || {
                let summary = run.summary.get();
                (job.done.get() > 0).then(|| view! {
                    <div class="summary" data-testid="questions-summary" data-total=summary.total().to_string()>
                        <span class="badge pass">{format!("{} questions", summary.total())}</span>
                        {summary.by_kind.iter().map(|(kind, n)| view! {
                            <span class="badge info" data-testid=format!("questions-count-{}", kind.label())>{format!("{n} {}", kind.label())}</span>
                        }).collect_view()}
                        <span class=if summary.skipped.is_empty() { "badge none" } else { "badge info" } data-testid="questions-skipped">
                            {format!("{} samples gave none", summary.skipped.len())}
                        </span>
                        {move || job.outcome.get().map(|outcome| view! { <span class="muted" data-testid="questions-state">{outcome}</span> })}
                    </div>
                    {(!summary.skipped.is_empty() || !summary.missing.is_empty()).then(|| view! {
                        <details class="questions-why">
                            <summary>"Why some samples gave fewer questions"</summary>
                            <ul>
                                {summary.missing.iter().map(|(kind, why, n)| view! {
                                    <li>{format!("no {kind} question for {n} sample{}: {why}", if *n == 1 { "" } else { "s" })}</li>
                                }).collect_view()}
                                {summary.skipped.iter().map(|(id, why)| view! {
                                    <li><a href=Route::sample(id.clone()).href()>{id.clone()}</a>{format!(": {why}")}</li>
                                }).collect_view()}
                            </ul>
                        </details>
                    })}
                })
            }}
            {move || run.questions.with(|questions| (!questions.is_empty()).then(|| view! {
                <table class="eval-table questions-table" data-testid="questions-table">
                    <caption class="muted">{if questions.len() > SHOWN {
                        format!("The first {SHOWN} of {} questions; the download has them all.", questions.len())
                    } else {
                        format!("{} questions.", questions.len())
                    }}</caption>
                    <thead><tr><th>"sample"</th><th>"kind"</th><th>"asks about"</th><th>"truth"</th><th>"prompt"</th></tr></thead>
                    <tbody>
                        {questions.iter().take(SHOWN).map(|q| view! {
                            <tr data-testid="question-row">
                                <td><a href=Route::sample(q.source.sample.clone()).href()>{q.source.sample.clone()}</a></td>
                                <td>{q.kind.label()}</td>
                                <td>{asked(q)}</td>
                                <td><code>{q.truth.answer_text()}</code></td>
                                <td><details><summary>"show"</summary><pre class="prompt-text">{prompt(q)}</pre></details></td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }))}
        </section>
    }
}
