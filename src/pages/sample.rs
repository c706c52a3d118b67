//! One sample: highlighted code, the call, the expected output, and a Run button.

use execbench_core::{Limits, RunResult};
use leptos::prelude::*;

use crate::browser::python::use_python;
use crate::components::code_view::CodeView;
use crate::components::run_result::RunResultView;
use crate::route::{ListQuery, Route};
use crate::state::{AppState, DatasetState};

/// The samples before and after sample `index` in the list it was opened from: the matches of
/// `query` (as the dataset list computes them), or the whole dataset when the query is empty or the
/// sample is not among its matches (a link from elsewhere). Returns (previous, next, the query
/// the links keep).
pub fn neighbours(
    samples: &[execbench_core::Sample],
    index: usize,
    query: &ListQuery,
) -> (Option<usize>, Option<usize>, ListQuery) {
    let in_list = if query.is_empty() {
        None
    } else {
        let matches = execbench_core::search::matching(samples, &query.q, query.kind);
        matches
            .iter()
            .position(|&m| m == index)
            .map(|p| (p.checked_sub(1).map(|q| matches[q]), matches.get(p + 1).copied()))
    };
    match in_list {
        Some((prev, next)) => (prev, next, query.clone()),
        None => (index.checked_sub(1), (index + 1 < samples.len()).then_some(index + 1), ListQuery::default()),
    }
}

#[component]
pub fn SamplePage(id: String, query: ListQuery) -> impl IntoView {
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
                        let (prev, next, query) = neighbours(&report.samples, i, &query);
                        let link = |n: usize| Route::Sample(report.samples[n].id.clone(), query.clone()).href();
                        let (prev, next) = (prev.map(link), next.map(link));
                        let list = Route::Datasets(query.clone()).href();
                        view! { <SampleView sample=report.samples[i].clone() prev=prev next=next list=list /> }.into_any()
                    }
                }
            }
        }
    }
}

#[component]
fn SampleView(
    sample: execbench_core::Sample,
    prev: Option<String>,
    next: Option<String>,
    list: String,
) -> impl IntoView {
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
                <a href=list data-testid="back-to-list">{expect_context::<AppState>().dataset_name.get_untracked()}</a> " / " <strong data-testid="sample-id">{sample.id.clone()}</strong>
                <span class="pager">
                    <a href=crate::route::perturb_link(&sample.id) data-testid="perturb-link">"Perturb…"</a>
                    {prev.map(|h| view! { <a href=h data-testid="prev">"← previous"</a> })}
                    {next.map(|h| view! { <a href=h data-testid="next">"next →"</a> })}
                </span>
            </nav>
            <CodeView code=Signal::derive(move || code.clone()) />
            <div class="field"><span class="label">"Call"</span><pre class="value" data-testid="sample-call">{sample.call.clone()}</pre></div>
            <div class="field"><span class="label">"Expected output"</span><pre class="value" data-testid="sample-expected">{sample.output.clone()}</pre></div>
            {(!sample.meta.is_empty()).then(|| view! {
                <details class="sample-meta" data-testid="sample-meta">
                    <summary>{format!("Other fields of the row ({})", sample.meta.len())}</summary>
                    <dl>
                        {sample.meta.iter().map(|(k, v)| view! {
                            <dt>{k.clone()}</dt>
                            <dd><code>{match v { serde_json::Value::String(s) => s.clone(), other => other.to_string() }}</code></dd>
                        }).collect_view()}
                    </dl>
                </details>
            })}
            <button class="primary" data-testid="run" on:click=run disabled=running>
                {move || if running.get() { "Running…" } else { "Run" }}
            </button>
            {move || result.get().map(|r| view! { <RunResultView result=r /> })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_core::sample::OutputKind;

    #[test]
    fn prev_and_next_step_through_the_list_the_sample_was_opened_from() {
        let rows = [("s0", "[1]"), ("s1", "2"), ("s2", "[3]"), ("s3", "4"), ("s4", "[5]")];
        let text: Vec<String> = rows
            .iter()
            .map(|(id, out)| {
                serde_json::json!({"id": id, "code": "def f(x):\n    return x", "input": "1", "output": out})
                    .to_string()
            })
            .collect();
        let samples = execbench_core::load_jsonl("t.jsonl", &text.join("\n")).samples;
        let lists = ListQuery { q: String::new(), kind: Some(OutputKind::List) };
        let s4 = ListQuery { q: "s4".into(), kind: None };
        // (index, query, previous, next, query kept)
        let cases = [
            (2, ListQuery::default(), Some(1), Some(3), ListQuery::default()),
            (0, ListQuery::default(), None, Some(1), ListQuery::default()),
            (4, ListQuery::default(), Some(3), None, ListQuery::default()),
            (0, lists.clone(), None, Some(2), lists.clone()),
            (2, lists.clone(), Some(0), Some(4), lists.clone()),
            (4, lists.clone(), Some(2), None, lists.clone()),
            (4, s4.clone(), None, None, s4.clone()),
            // Not among the matches: the whole dataset, and the links drop the query.
            (1, lists.clone(), Some(0), Some(2), ListQuery::default()),
        ];
        for (index, query, prev, next, kept) in cases {
            assert_eq!(neighbours(&samples, index, &query), (prev, next, kept), "sample {index}, {query:?}");
        }
    }
}
