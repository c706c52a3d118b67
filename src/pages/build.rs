//! Build a benchmark: candidates from the offline source, a model, a replayed generations file or
//! a candidates file; the filter's live funnel; the rejections with their offending operation
//! marked; then sample, export with provenance, and open the result as a dataset. The work is
//! `crate::jobs::BuildJob` (in app state, so it carries on while the user looks elsewhere).

use std::sync::Arc;

use execbench_providers::{KeyScope, KeyUse, key_use};
use execbench_recipe::prompt::{DEFAULT_TEMPLATE, default_pool, pool_to_jsonl};
use execbench_recipe::replay::read_generations;
use execbench_recipe::{Funnel, dedupe, kept_jsonl, kept_of, read_candidates, rejected_jsonl};
use execbench_run::generation_store::GenerationEntry;
use leptos::prelude::*;

use crate::browser::key_scopes;
use crate::components::build::funnel_chart::FunnelChart;
use crate::components::build::method_picker::MethodPicker;
use crate::components::build::rejections::RejectionTable;
use crate::components::evaluation::model_settings::ApiSettingsPanel;
use crate::components::progress_bar::ProgressBar;
use crate::jobs::build::BuildSource;
use crate::route::Route;
use crate::state::AppState;
use crate::state::build::{Loaded, build_form};

fn on_file<T: Clone + Send + Sync + 'static>(
    target: RwSignal<Loaded<T>>,
    read: fn(&str, &str) -> (T, Vec<String>),
) -> impl Fn(leptos::ev::Event) {
    move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            let name = file.name();
            match crate::browser::download::read_file_text(&file).await {
                Ok(text) => {
                    let (value, problems) = read(&name, &text);
                    target.set(Loaded::Read { name, value, problems });
                }
                Err(e) => target.set(Loaded::Read { name, value: read("", "").0, problems: vec![e] }),
            }
        });
    }
}

fn read_replay(name: &str, text: &str) -> (Vec<execbench_recipe::replay::GenerationRow>, Vec<String>) {
    let (rows, errors) = read_generations(name, text);
    (rows, errors.iter().map(ToString::to_string).collect())
}

fn read_candidate_file(name: &str, text: &str) -> (Vec<execbench_recipe::Candidate>, Vec<String>) {
    let (rows, errors) = read_candidates(name, text);
    (rows, errors.iter().map(ToString::to_string).collect())
}

#[component]
fn FileStatus<T: Clone + Send + Sync + 'static>(
    loaded: RwSignal<Loaded<T>>,
    count: fn(&T) -> usize,
    what: &'static str,
    testid: &'static str,
) -> impl IntoView {
    move || {
        match loaded.get() {
        Loaded::None => view! { <p class="muted" data-testid=testid>"No file yet."</p> }.into_any(),
        Loaded::Read { name, value, problems } => view! {
            <div data-testid=testid>
                <p>{format!("{name}: {} {what}", count(&value))}{(!problems.is_empty()).then(|| format!(", {} rows refused", problems.len()))}</p>
                {(!problems.is_empty()).then(|| view! {
                    <ul class="problems-list">{problems.iter().take(10).map(|p| view! { <li>{p.clone()}</li> }).collect_view()}</ul>
                })}
            </div>
        }.into_any(),
    }
    }
}

fn download(name: &str, mime: &str, text: &str) {
    let _ = crate::browser::download::download_text(name, mime, text);
}

#[component]
pub fn BuildPage() -> impl IntoView {
    let app = expect_context::<AppState>();
    let job = app.build;
    let form = build_form();
    let progress = job.progress;

    let funnel = Memo::new(move |_| {
        let judged = job.judged.get();
        let mut funnel = Funnel::from_judged(job.responses.get(), job.unparseable.get(), &judged);
        let unique = dedupe(&kept_of(&judged)).unique;
        funnel.set_unique(&unique);
        if let Some(b) = job.benchmark.get() {
            funnel.set_sampled(&b.rows);
        }
        // Before the filter has judged them, the candidates read so far are the parsed bar.
        funnel.parsed = funnel.parsed.max(job.candidates.get());
        funnel
    });
    let rule_counts = Memo::new(move |_| {
        funnel.with(|f| f.rejections.iter().filter(|r| r.count > 0).map(|r| (r.rule, r.count)).collect::<Vec<_>>())
    });

    let start = move |_| {
        form.form_error.set(None);
        let source = match form.source.get_untracked().as_str() {
            "candidates" => {
                match form.candidates.get_untracked() {
                    Loaded::Read { value, .. } if !value.is_empty() => job.filter_file(value),
                    _ => form.form_error.set(Some("choose a candidates file with at least one good row".to_string())),
                }
                return;
            }
            "replay" => match form.replay.get_untracked() {
                Loaded::Read { name, value, .. } if !value.is_empty() => {
                    BuildSource::Replay { file: name, rows: value }
                }
                _ => {
                    form.form_error.set(Some("choose a generations file with at least one good row".to_string()));
                    return;
                }
            },
            "model" => match form.api.model().and_then(|m| Ok((m, form.api.price()?, form.api.spend_cap()?))) {
                Ok((_, None, Some(_))) => {
                    form.form_error
                        .set(Some("a spend cap needs a price: none is known for this model; enter one".to_string()));
                    return;
                }
                Ok((model, price, cap)) => BuildSource::Model(Box::new(model), price, cap),
                Err(e) => {
                    form.form_error.set(Some(e));
                    return;
                }
            },
            _ => BuildSource::Offline,
        };
        match form.plan() {
            Ok(plan) => job.generate(source, plan),
            Err(e) => form.form_error.set(Some(e)),
        }
    };
    let sample = move |_| match form.spec() {
        Ok(spec) => job.sample(spec),
        Err(e) => job.error.set(Some(e)),
    };
    let open_benchmark = move |_| {
        let Some(b) = job.benchmark.get_untracked() else { return };
        let name = "built-benchmark.jsonl".to_string();
        let bytes = b.jsonl.clone().into_bytes();
        let report = execbench_core::load_jsonl_bytes(&name, &bytes);
        app.import(name, bytes, report);
        let _ = window().location().set_hash(&Route::datasets().href());
    };
    let generating = move || matches!(form.source.get().as_str(), "offline" | "model" | "replay");
    // The key goes only where the library's rule lets it: the kept generation's provider and
    // origin must be the form's (typed here), or one the user typed or confirmed before.
    let key_for = move |entry: &GenerationEntry| -> Option<String> {
        let model = form.api.model().ok()?;
        let typed = KeyScope::of(&model.settings.endpoint.provider, &model.settings.endpoint.base_url).ok()?;
        let stored = &entry.api.endpoint;
        match key_use(&key_scopes::trusted(), &stored.provider, &stored.base_url, false) {
            KeyUse::Allowed(scope) if scope == typed => model.key,
            _ => None,
        }
    };

    view! {
        <section class="page build">
            <h1>"Build a benchmark"</h1>
            <p class="muted">"CRUXEval's recipe, in this tab: ask a model for short functions that use one standard-library method each, with test inputs; keep only the candidates that pass the filter (static rules, then a measured run); deduplicate, sample and export. Without a key, the offline source writes candidates here."</p>

            <h2>"1. Candidates"</h2>
            <div class="row-fields">
                <label class="field">
                    <span class="label">"Source"</span>
                    <select data-testid="build-source" prop:value=move || form.source.get() on:change=move |ev| form.source.set(event_target_value(&ev))>
                        <option value="offline">"Offline source (no model)"</option>
                        <option value="model">"A model API"</option>
                        <option value="replay">"Replay a generations file"</option>
                        <option value="candidates">"A candidates file (filter only)"</option>
                    </select>
                </label>
                <Show when=generating>
                    <label class="field">
                        <span class="label">"Responses per method"</span>
                        <input data-testid="build-per-method" inputmode="numeric" prop:value=move || form.per_method.get() on:input=move |ev| form.per_method.set(event_target_value(&ev)) />
                    </label>
                    <label class="field">
                        <span class="label">"Seed"</span>
                        <input data-testid="build-seed" inputmode="numeric" prop:value=move || form.seed.get() on:input=move |ev| form.seed.set(event_target_value(&ev)) />
                    </label>
                </Show>
            </div>
            <Show when=move || form.source.get() == "model">
                <ApiSettingsPanel form=form.api />
            </Show>
            <Show when=move || job.kept.entries.with(|e| !e.is_empty())>
                <div class="kept-generations" data-testid="build-kept">
                    <h3>"Kept generations"</h3>
                    <p class="hint">"A model's responses are kept in this browser as they arrive. After a reload, choose “A model API” as the source with the same provider and its key, then Resume: it asks only the prompts without a response and filters everything."</p>
                    <ul>
                        {move || job.kept.entries.get().into_iter().take(5).map(|entry| {
                            let (resume_id, discard_id) = (entry.id.clone(), entry.id.clone());
                            let resume_entry = entry.clone();
                            let unfinished = entry.unfinished();
                            view! {
                                <li data-testid="build-kept-row">
                                    <span data-testid="build-kept-label">{entry.label()}</span>
                                    {entry.note.clone().map(|n| view! { <span class="muted">{format!(" ({n})")}</span> })}
                                    " "
                                    <button type="button" data-testid="build-kept-resume" disabled=move || progress.running.get()
                                        on:click=move |_| job.resume(resume_id.clone(), key_for(&resume_entry), form.api.spend_cap().ok().flatten())>
                                        {if unfinished { "Resume" } else { "Filter again" }}
                                    </button>
                                    <button type="button" data-testid="build-kept-discard" disabled=move || progress.running.get()
                                        on:click=move |_| job.discard(discard_id.clone())>"Discard"</button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                    {move || job.kept.problem.get().map(|p| view! { <p class="error" role="alert" data-testid="build-kept-problem">{p}</p> })}
                </div>
            </Show>
            <Show when=move || form.source.get() == "replay">
                <div class="field">
                    <label class="button">"Generations file…"
                        <input type="file" class="visually-hidden" data-testid="build-replay-file" accept=".jsonl,.json,.txt" on:change=on_file(form.replay, read_replay) />
                    </label>
                    <FileStatus loaded=form.replay count=Vec::len what="responses" testid="build-replay-status" />
                    <p class="hint">"Rows `{id, method, response}` as `execbench build generate` writes them; each prompt's response is taken from the file instead of a model."</p>
                </div>
            </Show>
            <Show when=move || form.source.get() == "candidates">
                <div class="field">
                    <label class="button">"Candidates file…"
                        <input type="file" class="visually-hidden" data-testid="build-candidates-file" accept=".jsonl,.json,.txt" on:change=on_file(form.candidates, read_candidate_file) />
                    </label>
                    <FileStatus loaded=form.candidates count=Vec::len what="candidates" testid="build-candidates-status" />
                    <p class="hint">"Rows `{id, code, input}` (`method` optional); the output is computed by running the code."</p>
                </div>
            </Show>
            <Show when=generating>
                <MethodPicker selected=form.methods />
                <details class="prompt-editor">
                    <summary>"Prompt and examples"</summary>
                    <label class="field">
                        <span class="label">"Prompt template (placeholders: {method}, {type}, {name}, {count}, {examples})"</span>
                        <textarea data-testid="build-template" rows="10" prop:value=move || form.template.get() on:input=move |ev| form.template.set(event_target_value(&ev))></textarea>
                    </label>
                    <label class="field">
                        <span class="label">"Example pool (JSONL: method, code, inputs); two are drawn for each prompt"</span>
                        <textarea data-testid="build-pool" rows="8" prop:value=move || form.pool.get() on:input=move |ev| form.pool.set(event_target_value(&ev))></textarea>
                    </label>
                    <button type="button" on:click=move |_| { form.template.set(DEFAULT_TEMPLATE.to_string()); form.pool.set(pool_to_jsonl(&default_pool())); }>"Restore the defaults"</button>
                </details>
            </Show>
            <div class="toolbar">
                <button class="primary" data-testid="build-start" on:click=start disabled=move || progress.running.get()>
                    {move || if generating() { "Generate and filter" } else { "Filter" }}
                </button>
                <button data-testid="build-stop" on:click=move |_| job.stop() disabled=move || !progress.running.get()>"Stop"</button>
            </div>
            {move || form.form_error.get().map(|e| view! { <p class="error" role="alert" data-testid="build-form-error">{e}</p> })}
            <ProgressBar done=progress.done total=progress.total />
            <p class="stats" data-testid="build-progress">
                {move || {
                    let label = progress.label.get().unwrap_or_else(|| progress.outcome.get().map(|o| format!("Last job {o}")).unwrap_or_default());
                    format!("{label} · {} / {} · {:.1} s", progress.done.get(), progress.total.get(), progress.elapsed_ms.get() / 1000.0)
                }}
            </p>
            {move || job.usage.get().map(|(usage, cost)| view! {
                <p class="stats" data-testid="build-usage">
                    {format!("tokens: {} in, {} out", usage.prompt_tokens, usage.completion_tokens)}
                    {cost.map(|c| format!(" · cost {}", execbench_run::cost::format_usd(c))).unwrap_or_else(|| " · no price known for this model".to_string())}
                </p>
            })}
            {move || job.error.get().map(|e| view! { <p class="error" role="alert" data-testid="build-error">{e}</p> })}

            <h2>"2. Funnel"</h2>
            <FunnelChart funnel=funnel />
            <div class="rule-chips" data-testid="build-rules">
                {move || rule_counts.get().into_iter().map(|(rule, count)| view! {
                    <button type="button" class="chip" data-testid=format!("build-rule-{}", rule.id()) title=rule.describe()
                        class:active=move || form.rule.get() == Some(rule)
                        on:click=move |_| form.rule.update(|r| *r = if *r == Some(rule) { None } else { Some(rule) })>
                        {format!("{} {count}", rule.id())}
                    </button>
                }).collect_view()}
            </div>
            <details class="per-method">
                <summary>"Per method"</summary>
                <div class="table-scroll">
                    <table class="runs-table" data-testid="build-per-method-table">
                        <thead><tr><th>"method"</th><th>"parsed"</th><th>"passed static"</th><th>"passed runtime"</th><th>"unique"</th><th>"sampled"</th></tr></thead>
                        <tbody>{move || funnel.with(|f| f.by_method.iter().map(|m| view! {
                            <tr><td>{m.method.clone().unwrap_or_else(|| "(none)".into())}</td><td class="num">{m.parsed}</td><td class="num">{m.passed_static}</td><td class="num">{m.passed_runtime}</td><td class="num">{m.unique}</td><td class="num">{m.sampled}</td></tr>
                        }).collect_view())}</tbody>
                    </table>
                </div>
            </details>

            <h2>"3. Rejected candidates"</h2>
            <RejectionTable judged=job.judged rule=form.rule />
            <div class="toolbar">
                <button data-testid="build-download-kept" disabled=move || job.judged.with(|j| j.is_empty())
                    on:click=move |_| download("kept.jsonl", "application/jsonl", &kept_jsonl(&job.judged.get_untracked()))>"Download kept (JSONL)"</button>
                <button data-testid="build-download-rejected" disabled=move || job.judged.with(|j| j.is_empty())
                    on:click=move |_| download("rejected.jsonl", "application/jsonl", &rejected_jsonl(&job.judged.get_untracked()))>"Download rejected (JSONL)"</button>
                <button data-testid="build-download-generations" disabled=move || progress.running.get() || job.generation_rows.with_value(Vec::is_empty)
                    on:click=move |_| download("generations.jsonl", "application/jsonl", &job.generation_rows.with_value(|rows| rows.iter().map(|r| r.line()).collect::<String>()))>"Download generations (JSONL)"</button>
            </div>

            <h2>"4. Sample and export"</h2>
            <div class="row-fields">
                <label class="field">
                    <span class="label">"Samples"</span>
                    <input data-testid="sample-n" inputmode="numeric" prop:value=move || form.sample_n.get() on:input=move |ev| form.sample_n.set(event_target_value(&ev)) />
                </label>
                <label class="field">
                    <span class="label">"Sampling seed"</span>
                    <input data-testid="sample-seed" inputmode="numeric" prop:value=move || form.sample_seed.get() on:input=move |ev| form.sample_seed.set(event_target_value(&ev)) />
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="sample-balanced" prop:checked=move || form.balanced.get() on:change=move |ev| form.balanced.set(event_target_checked(&ev)) />
                    "Balance across methods"
                </label>
            </div>
            <div class="toolbar">
                <button class="primary" data-testid="sample-build" on:click=sample disabled=move || progress.running.get() || funnel.with(|f| f.unique == 0)>"Sample"</button>
                <button data-testid="download-benchmark" disabled=move || job.benchmark.with(Option::is_none)
                    on:click=move |_| if let Some(b) = job.benchmark.get_untracked() { download("built-benchmark.jsonl", "application/jsonl", &b.jsonl) }>"Download benchmark (JSONL)"</button>
                <button data-testid="download-provenance" disabled=move || job.benchmark.with(Option::is_none)
                    on:click=move |_| if let Some(b) = job.benchmark.get_untracked() { download("built-benchmark.provenance.json", "application/json", &b.provenance.to_pretty_json()) }>"Download provenance (JSON)"</button>
                <button data-testid="open-benchmark" disabled=move || job.benchmark.with(Option::is_none) on:click=open_benchmark>"Open in Datasets"</button>
            </div>
            {move || job.benchmark.get().map(|b: Arc<execbench_recipe::Benchmark>| view! {
                <p class="ok-box" data-testid="sample-summary">
                    {format!("{} samples drawn from {} unique candidates ({} duplicates dropped), dataset hash {}.", b.rows.len(), b.provenance.funnel.unique, b.provenance.duplicates_dropped, b.provenance.dataset_hash)}
                </p>
            })}
        </section>
    }
}
