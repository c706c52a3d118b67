//! The Datasets page: the bundled CRUXEval samples, searchable and filterable, in a list that
//! renders only the rows in view (smooth at 800 rows and at 100,000).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use execbench_core::LoadReport;
use execbench_core::sample::OutputKind;
use execbench_core::search::{highlight_ranges, matching};
use execbench_core::verify::Verdict;
use leptos::prelude::*;

use self::list_layout::{
    MoveKey, PREVIEW_LINES, ROW_HEIGHT, RowLayout, code_box_height, expanded_height, next_position, rows_per_page,
};
use crate::components::dataset_switcher::DatasetSwitcher;
use crate::components::marked_code::{Mark, marked_html};
use crate::components::progress_bar::ProgressBar;
use crate::route::{ListQuery, Route};
use crate::state::{AppState, DatasetState};

mod list_layout;

const VIEWPORT_HEIGHT: f64 = 560.0;

/// The list is as tall as its rows, up to the viewport (a short import does not leave a void).
fn list_height(rows_height: f64) -> f64 {
    rows_height.clamp(3.0 * ROW_HEIGHT, VIEWPORT_HEIGHT) + 2.0
}

/// Lines a program shows in a `<pre>` (a last line break adds none).
fn code_lines(code: &str) -> usize {
    code.lines().count().max(1)
}

/// The first [`PREVIEW_LINES`] lines of a program, as written (indentation kept).
pub fn preview(code: &str) -> &str {
    let end: usize = code.split_inclusive('\n').take(PREVIEW_LINES).map(str::len).sum();
    code[..end].trim_end_matches(['\n', '\r'])
}

/// The element id of the row showing sample `index` (the list's `aria-activedescendant`).
fn row_dom_id(index: usize) -> String {
    format!("sample-row-{index}")
}

/// `text` with every match of the search wrapped in `<mark>`.
fn marked(text: &str, query: &str) -> Vec<AnyView> {
    let mut out = Vec::new();
    let mut at = 0;
    for r in highlight_ranges(text, query) {
        if r.start > at {
            out.push(text[at..r.start].to_string().into_any());
        }
        out.push(view! { <mark>{text[r.clone()].to_string()}</mark> }.into_any());
        at = r.end;
    }
    if at < text.len() {
        out.push(text[at..].to_string().into_any());
    }
    out
}

#[component]
pub fn DatasetsPage(query: ListQuery) -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match state.dataset.get() {
        DatasetState::Loading => view! { <p class="muted">"Loading the dataset…"</p> }.into_any(),
        DatasetState::Failed(e) => {
            view! { <p class="error-box" role="alert">{e}</p> <div class="toolbar"><ImportButton /></div> }.into_any()
        }
        DatasetState::Loaded(report) => view! { <DatasetBrowser report=report initial=query.clone() /> }.into_any(),
    }
}

/// Why an import does not replace the working dataset, or None when it does: a file in which no
/// row could be read would only throw away what the user had.
pub fn import_refusal(file: &str, report: &LoadReport, current: &str) -> Option<String> {
    if !report.samples.is_empty() {
        return None;
    }
    let first: Vec<String> = report.errors.iter().take(3).map(|e| e.to_string()).collect();
    let problems = if first.is_empty() { String::new() } else { format!(" First problems: {}", first.join("; ")) };
    let kept = if current.is_empty() { "nothing was replaced".to_string() } else { format!("{current} stays loaded") };
    Some(format!("{file}: none of its {} rows could be read, so {kept}.{problems}", report.rows))
}

/// Makes a loaded file the working dataset (checking every row when asked), or says why not.
fn accept_import(state: AppState, refused: RwSignal<Option<String>>, name: String, bytes: Vec<u8>, report: LoadReport) {
    match import_refusal(&name, &report, &state.dataset_name.get_untracked()) {
        Some(reason) => refused.set(Some(reason)),
        None => {
            // A verification already running (the Verify page's) is left alone.
            if state.check_imports.get_untracked() && !state.verify.job.running.get_untracked() {
                state.verify.start(report.samples.clone(), &name);
            }
            state.import(name, bytes, report);
        }
    }
}

/// "From Hugging Face…": a split fetched by name through the dataset viewer's rows API (a plain
/// GET that any page may make), LiveCodeBench's execution set by default.
#[component]
fn FromHuggingFace() -> impl IntoView {
    use crate::browser::hf_rows::{SplitAddress, fetch_split};
    let state = expect_context::<AppState>();
    let dataset = RwSignal::new("livecodebench/execution-v2".to_string());
    let config = RwSignal::new("default".to_string());
    let split = RwSignal::new("test".to_string());
    let api = RwSignal::new(execbench_formats::ROWS_API.to_string());
    let busy = RwSignal::new(false);
    let said = RwSignal::new(None::<String>);
    let refused = RwSignal::new(None::<String>);
    let load = move |_| {
        let address = SplitAddress {
            api: api.get_untracked().trim().to_string(),
            dataset: dataset.get_untracked().trim().to_string(),
            config: config.get_untracked().trim().to_string(),
            split: split.get_untracked().trim().to_string(),
        };
        if address.dataset.is_empty() {
            refused.set(Some("dataset: enter its name, as owner/name".to_string()));
            return;
        }
        busy.set(true);
        refused.set(None);
        leptos::task::spawn_local(async move {
            let progress = move |read: usize, total: usize| said.set(Some(format!("{read} of {total} rows fetched")));
            match fetch_split(&address, progress).await {
                Ok((bytes, report)) => accept_import(state, refused, address.label(), bytes, report),
                Err(e) => refused.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let field = |label: &'static str, value: RwSignal<String>, testid: &'static str| {
        view! {
            <label class="field">
                <span class="label">{label}</span>
                <input type="text" data-testid=testid prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
            </label>
        }
    };
    view! {
        <details class="from-hf" data-testid="hf">
            <summary>"From Hugging Face…"</summary>
            <div class="row-fields">
                {field("Dataset", dataset, "hf-dataset")}
                {field("Config", config, "hf-config")}
                {field("Split", split, "hf-split")}
            </div>
            <details>
                <summary class="small">"API address"</summary>
                {field("Rows API", api, "hf-api")}
            </details>
            <div class="toolbar">
                <button class="primary" data-testid="hf-load" on:click=load disabled=move || busy.get()>"Load"</button>
                <span class="muted small" data-testid="hf-progress">{move || said.get()}</span>
            </div>
            <p class="hint">"Fetched 100 rows at a time from the dataset viewer (no key, nothing else is sent). A cell the viewer cuts short is reported: import the Parquet file instead."</p>
            {move || refused.get().map(|r| view! { <p class="error" role="alert" data-testid="hf-error">{r}</p> })}
        </details>
    }
}

/// "Import dataset…": replaces the working dataset with the user's file (JSON Lines, LiveCodeBench Parquet, a
/// CodeCrash file), after checking every row.
/// A file with no usable row is refused and the working dataset stays. With "Check that every row
/// runs" (on by default: the check runs in the background through the Verify job while the list is
/// already usable, a LeetCode-contest file of a few hundred rows takes seconds, and a row that
/// cannot run is best found now rather than in the middle of an evaluation; Stop ends it), every
/// row is run once and the ones that fail are flagged in the list.
#[component]
fn ImportButton() -> impl IntoView {
    let state = expect_context::<AppState>();
    let refused = RwSignal::new(None::<String>);
    // The file being read: (words, bytes read, bytes in all).
    let reading = RwSignal::new(None::<(String, usize, usize)>);
    let check_rows = state.check_imports;
    let on_change = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        input.set_value("");
        let name = file.name();
        refused.set(None);
        leptos::task::spawn_local(async move {
            let shown = name.clone();
            let read = crate::browser::data::read_dataset_file(file, move |p| {
                reading.set(Some((crate::browser::data::progress_words(&shown, p), p.read as usize, p.total as usize)))
            })
            .await;
            reading.set(None);
            match read {
                Ok((bytes, report)) => accept_import(state, refused, name, bytes, report),
                Err(e) => refused.set(Some(e)),
            }
        });
    };
    view! {
        <label class="button">
            "Import dataset…"
            <input type="file" accept=".jsonl,.json,.txt,.parquet,application/jsonl" data-testid="import" class="visually-hidden" on:change=on_change />
        </label>
        <label class="check" title="After loading, run every row once and flag those that raise, time out or return something else">
            <input type="checkbox" data-testid="check-rows" prop:checked=check_rows on:change=move |ev| check_rows.set(event_target_checked(&ev)) />
            "Check that every row runs"
        </label>
        <DatasetSwitcher />
        {move || reading.get().map(|(words, read, total)| view! {
            <div class="import-reading" data-testid="import-reading">
                <span class="muted small" role="status">{words}</span>
                <ProgressBar done=Signal::derive(move || read) total=Signal::derive(move || total) />
            </div>
        })}
        {move || refused.get().map(|reason| view! { <p class="error-box" role="alert" data-testid="import-refused">{reason}</p> })}
    }
}

#[component]
fn DatasetBrowser(report: Arc<LoadReport>, initial: ListQuery) -> impl IntoView {
    let state = expect_context::<AppState>();
    let (query, set_query) = signal(initial.q);
    let (kind, set_kind) = signal::<Option<OutputKind>>(initial.kind);
    let list_query = move || ListQuery { q: query.get(), kind: kind.get() };
    // The search and the filter live in the address (`#/datasets?q=…&kind=…`), so Back, a reload
    // and a shared link show this view. Typing replaces the current history entry (one entry per
    // keystroke would make Back useless); choosing an output type pushes one, so Back undoes it.
    // Neither fires `hashchange`, so the list is not rendered again.
    let write_address = move |push: bool| {
        let href = Route::Datasets(ListQuery { q: query.get_untracked(), kind: kind.get_untracked() }).href();
        if push { crate::browser::address::push(&href) } else { crate::browser::address::replace(&href) }
    };
    let (scroll_top, set_scroll_top) = signal(0.0f64);
    let list_ref = NodeRef::<leptos::html::Div>::new();
    // The keyboard's row (a position in the matches) and the samples whose full code is shown.
    let current = RwSignal::new(None::<usize>);
    let expanded = RwSignal::new(BTreeSet::<usize>::new());
    // A new query or filter shows its first matches: both the element's scroll position and the
    // signal that the window is computed from go back to the top (resetting only the signal left
    // a scrolled-down list blank until the next scroll).
    let back_to_top = move || {
        if let Some(list) = list_ref.get_untracked() {
            list.set_scroll_top(0);
        }
        set_scroll_top.set(0.0);
        current.set(None);
    };
    let samples = report.clone();
    let matches = Memo::new(move |_| matching(&samples.samples, &query.get(), kind.get()));
    let total = report.samples.len();
    let errors = report.errors.clone();
    let flags = run_flags(state, report.clone());
    let layout = {
        let report = report.clone();
        Memo::new(move |_| {
            let open = expanded.get();
            matches.with(|m| {
                RowLayout::new(open.iter().filter_map(|&i| {
                    m.binary_search(&i).ok().map(|at| (at, expanded_height(code_lines(&report.samples[i].code))))
                }))
            })
        })
    };
    let view_height = move || list_ref.get_untracked().map_or(VIEWPORT_HEIGHT, |list| list.client_height() as f64);
    // Scrolls so the row at `position` is whole in view. Again on the next frame: a row that has
    // just grown needs the taller spacer, which the page has drawn by then.
    let show = move |position: usize| {
        let Some(list) = list_ref.get_untracked() else { return };
        let to = layout.get_untracked().keep_visible(position, list.scroll_top() as f64, view_height());
        set_scroll_top.set(to);
        list.set_scroll_top(to as i32);
        request_animation_frame(move || {
            if let Some(list) = list_ref.get_untracked() {
                list.set_scroll_top(to as i32);
                set_scroll_top.set(list.scroll_top() as f64);
            }
        });
    };
    // Shows or hides a row's full code (`open` None: the other way round); it becomes the current row.
    let toggle = move |position: usize, open: Option<bool>| {
        let Some(index) = matches.with_untracked(|m| m.get(position).copied()) else { return };
        expanded.update(|set| {
            if open.unwrap_or(!set.contains(&index)) {
                set.insert(index);
            } else {
                set.remove(&index);
            }
        });
        current.set(Some(position));
        show(position);
    };
    let open_sample = {
        let report = report.clone();
        move |position: usize| {
            let Some(index) = matches.with_untracked(|m| m.get(position).copied()) else { return };
            let href = Route::Sample(
                report.samples[index].id.clone(),
                ListQuery { q: query.get_untracked(), kind: kind.get_untracked() },
            )
            .href();
            if let Some(window) = web_sys::window() {
                let _ = window.location().set_hash(&href);
            }
        }
    };
    // One Tab stop for the whole list: arrows, page keys, Home and End move the current row;
    // Enter opens it; Space, → and ← show or hide its code.
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
            return;
        }
        let len = matches.with_untracked(Vec::len);
        let key = ev.key();
        if let Some(movement) = MoveKey::from_key(&key) {
            ev.prevent_default();
            if let Some(position) = next_position(movement, current.get_untracked(), len, rows_per_page(view_height()))
            {
                current.set(Some(position));
                show(position);
            }
            return;
        }
        let Some(position) = current.get_untracked().filter(|&at| at < len) else { return };
        match key.as_str() {
            "Enter" => {
                ev.prevent_default();
                open_sample(position);
            }
            " " => {
                ev.prevent_default();
                toggle(position, None);
            }
            "ArrowRight" => toggle(position, Some(true)),
            "ArrowLeft" => toggle(position, Some(false)),
            _ => {}
        }
    };
    // Coming into the list: the current row is the first one wholly in view (unless it already is
    // in view), so the highlight is where the eyes are.
    let on_focus = move |_| {
        let len = matches.with_untracked(Vec::len);
        if len == 0 {
            return;
        }
        let layout = layout.get_untracked();
        let (top, bottom) = (scroll_top.get_untracked(), scroll_top.get_untracked() + view_height());
        let in_view = |at: usize| layout.top(at) >= top - 0.5 && layout.top(at) + layout.height(at) <= bottom + 0.5;
        if current.get_untracked().is_some_and(|at| at < len && in_view(at)) {
            return;
        }
        let first = layout.position_at(top, len);
        current.set(Some(if in_view(first) { first } else { (first + 1).min(len - 1) }));
    };
    let active_row = move || current.get().and_then(|at| matches.with(|m| m.get(at).map(|&i| row_dom_id(i))));

    let visible_rows = {
        let report = report.clone();
        move || {
            let indices = matches.get();
            let list_query = list_query();
            let layout = layout.get();
            let current = current.get();
            let open = expanded.get();
            layout
                .window(scroll_top.get(), VIEWPORT_HEIGHT, indices.len())
                .map(|position| {
                    let index = indices[position];
                    let s = &report.samples[index];
                    let is_current = current == Some(position);
                    let is_open = open.contains(&index);
                    let style = format!("top: {}px; height: {}px", layout.top(position), layout.height(position));
                    let href = Route::Sample(s.id.clone(), list_query.clone()).href();
                    let lines = code_lines(&s.code);
                    let code = if is_open {
                        let marks: Vec<Mark> = highlight_ranges(&s.code, &list_query.q).into_iter().map(|range| Mark { range, class: "search-hit" }).collect();
                        let height = format!("height: {}px", code_box_height(lines));
                        view! { <div class="col-code"><pre class="code full-code" style=height data-testid="row-full-code" inner_html=marked_html(&s.code, &marks)></pre></div> }.into_any()
                    } else {
                        view! { <code class="col-code preview" data-testid="row-preview">{marked(preview(&s.code), &list_query.q)}</code> }.into_any()
                    };
                    let toggle_label = if is_open { format!("Hide the code of {}", s.id) } else { format!("Show all {lines} lines of {}", s.id) };
                    view! {
                        <div class="row" class:current=is_current class:expanded=is_open role="option" id=row_dom_id(index) aria-selected=is_current.to_string()
                            style=style data-testid="sample-row" data-id=s.id.clone()>
                            <button class="row-toggle" tabindex="-1" aria-expanded=is_open.to_string() aria-label=toggle_label.clone() title=toggle_label data-testid="row-toggle"
                                on:click=move |ev| {
                                    ev.prevent_default();
                                    toggle(position, None);
                                    if let Some(list) = list_ref.get_untracked() {
                                        let _ = list.focus();
                                    }
                                }>{if is_open { "▾" } else { "▸" }}</button>
                            <a class="row-link" tabindex="-1" href=href>
                                <span class="col-id">{marked(&s.id, &list_query.q)}</span>
                                {code}
                                <code class="col-call" data-testid="row-call">{marked(&s.call, &list_query.q)}</code>
                                <span class="col-output">
                                    <code class="output-value" data-testid="row-output">{marked(&s.output, &list_query.q)}</code>
                                    <span class="kind-badge">{s.output_kind().label()}</span>
                                    {flags.with(|f| f.get(&s.id).cloned()).map(|(label, reason)| view! { <span class="run-flag" data-testid="row-flag" title=reason>{label}</span> })}
                                </span>
                            </a>
                        </div>
                    }
                })
                .collect_view()
        }
    };

    view! {
        <section class="page">
            <div class="title-row">
                <h1 data-testid="dataset-name">{move || state.dataset_name.get()}</h1>
                <ImportButton />
            </div>
            <FromHuggingFace />
            {move || if state.dataset_name.get() == crate::browser::data::CRUXEVAL_NAME {
                view! {
                    <p class="attribution">
                        {format!("{total} samples. ")} "CRUXEval: Gu et al., “CRUXEval: A Benchmark for Code Reasoning, Understanding and Execution” (2024). "
                        "Data under the " <a href=crate::browser::data::CRUXEVAL_LICENSE_URL>"MIT License"</a> "."
                    </p>
                }.into_any()
            } else {
                view! { <p class="attribution">{format!("{total} samples imported from your file, kept in this browser: the dataset menu opens it again, also after a reload.")}</p> }.into_any()
            }}
            {(!errors.is_empty()).then(|| view! {
                <details class="error-box" open=true data-testid="import-errors"><summary>{format!("{} of {} rows could not be read; the other {} are loaded", errors.len(), report.rows, total)}</summary>
                    <ul>{errors.iter().take(200).map(|e| view! { <li>{e.to_string()}</li> }).collect_view()}</ul>
                    {(errors.len() > 200).then(|| view! { <p>{format!("… and {} more", errors.len() - 200)}</p> })}
                </details>
            })}
            <ImportCheck state=state dataset=report.clone() />
            <div class="toolbar">
                <input type="search" placeholder="Search id, code, call or output…" aria-label="Search samples" data-testid="search"
                    prop:value=query on:input=move |ev| { set_query.set(event_target_value(&ev)); write_address(false); back_to_top(); } />
                <select aria-label="Output type" data-testid="kind-filter" on:change=move |ev| { set_kind.set(OutputKind::from_label(&event_target_value(&ev))); write_address(true); back_to_top(); }>
                    <option value="" selected=kind.get_untracked().is_none()>"All output types"</option>
                    {OutputKind::ALL.into_iter().map(|k| view! { <option value=k.label() selected=kind.get_untracked() == Some(k)>{k.label()}</option> }).collect_view()}
                </select>
                <span class="count" data-testid="match-count">{move || format!("{} of {total}", matches.get().len())}</span>
            </div>
            <div class="list-head"><span class="row-toggle-space"></span><span class="col-id">"id"</span><span class="col-code">"code"</span><span class="col-call">"call"</span><span class="col-output">"output"</span></div>
            <div class="virtual-list" node_ref=list_ref style=move || format!("height: {}px", list_height(layout.with(|l| l.total(matches.with(Vec::len))))) data-testid="sample-list"
                tabindex="0" role="listbox" aria-label="Samples" aria-describedby="sample-list-keys" aria-activedescendant=active_row
                on:keydown=on_keydown on:focus=on_focus
                on:scroll=move |ev| set_scroll_top.set(event_target::<web_sys::HtmlElement>(&ev).scroll_top() as f64)>
                <div class="spacer" role="presentation" style=move || format!("height: {}px", layout.with(|l| l.total(matches.with(Vec::len))))>
                    {visible_rows}
                </div>
                <Show when=move || matches.get().is_empty()><p class="muted empty">"No sample matches."</p></Show>
            </div>
            <p class="hint list-keys" id="sample-list-keys">"Keys: ↑ ↓ Page Up/Down Home End move · Enter opens · Space or → ← show or hide the code"</p>
        </section>
    }
}

/// Whether the Verify job's last (or current) verification is of `report`'s samples.
fn verifies(state: AppState, report: &LoadReport) -> bool {
    let provenance = state.verify.provenance.get_value();
    provenance.dataset == state.dataset_name.get_untracked()
        && provenance.dataset_hash == execbench_core::provenance::dataset_hash(&report.samples)
}

/// The rows the verification of this dataset found wanting: id → (badge, reason).
fn run_flags(state: AppState, report: Arc<LoadReport>) -> Memo<HashMap<String, (&'static str, String)>> {
    let ours = StoredValue::new(None::<bool>);
    Memo::new(move |_| {
        let summary = state.verify.summary.get();
        if summary.problems.is_empty() {
            return HashMap::new();
        }
        // Hashing the dataset once per list, and only when there is something to flag.
        let is_ours = ours.get_value().unwrap_or_else(|| verifies(state, &report));
        ours.set_value(Some(is_ours));
        if !is_ours {
            return HashMap::new();
        }
        summary.problems.iter().map(|p| (p.id.clone(), flag_of(&p.verdict))).collect()
    })
}

fn flag_of(verdict: &Verdict) -> (&'static str, String) {
    match verdict {
        Verdict::EngineDifference { reason } => ("engine difference", reason.clone()),
        Verdict::Fail { reason } => ("does not run", reason.clone()),
        Verdict::Pass => ("", String::new()),
    }
}

/// The import's quick check (the Verify job on this dataset): progress and Stop while it runs,
/// then the rows that do not run as the file says, each with its reason.
#[component]
fn ImportCheck(state: AppState, dataset: Arc<LoadReport>) -> impl IntoView {
    let run = state.verify;
    let ours = StoredValue::new(None::<bool>);
    let shown = move || {
        // Reactive on the job, so a check started after this list was drawn still shows.
        let started = run.job.running.get() || run.job.outcome.get().is_some();
        started
            && ours.get_value().unwrap_or_else(|| {
                let is_ours = verifies(state, &dataset);
                ours.set_value(Some(is_ours));
                is_ours
            })
    };
    move || {
        shown().then(|| {
        let summary = run.summary.get();
        let total = run.job.total.get();
        let status = match run.job.outcome.get() {
            None => format!("Checking that every row runs: {} of {total}…", run.job.done.get()),
            Some(outcome) if summary.problems.is_empty() => format!("Every row runs and returns its output ({} of {total} checked, {outcome}).", summary.total()),
            Some(outcome) => format!("{} of {} rows checked do not run as the file says ({outcome}):", summary.problems.len(), summary.total()),
        };
        view! {
            <div class=if summary.problems.is_empty() { "import-check" } else { "import-check error-box" } data-testid="import-check">
                <span data-testid="import-check-status">{status}</span>
                {run.job.running.get().then(|| view! { <button data-testid="import-check-stop" on:click=move |_| run.stop()>"Stop"</button> })}
                <ul>{summary.problems.iter().take(200).map(|p| {
                    let (label, reason) = flag_of(&p.verdict);
                    view! { <li data-testid="import-check-problem"><a href=Route::Sample(p.id.clone(), ListQuery::default()).href()>{p.id.clone()}</a>{format!(" ({label}): {reason}")}</li> }
                }).collect_view()}</ul>
            </div>
        }
    })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_with_no_usable_row_is_refused_and_says_why() {
        let all_bad = execbench_core::load_jsonl("bad.jsonl", "{\"id\": \"a\"}\nnot json\n");
        let reason = import_refusal("bad.jsonl", &all_bad, "CRUXEval").expect("refused");
        assert!(reason.starts_with("bad.jsonl: none of its 2 rows could be read, so CRUXEval stays loaded. First problems: bad.jsonl:1: field `code`"), "{reason}");
        let some_good = execbench_core::load_jsonl(
            "ok.jsonl",
            "{\"id\": \"a\", \"code\": \"def f(x):\\n    return x\", \"input\": \"1\", \"output\": \"1\"}\nnot json\n",
        );
        assert_eq!(
            import_refusal("ok.jsonl", &some_good, "CRUXEval"),
            None,
            "a file with one good row loads (its bad rows are listed)"
        );
        let empty = execbench_core::load_jsonl("empty.jsonl", "");
        assert!(import_refusal("empty.jsonl", &empty, "").unwrap().contains("nothing was replaced"));
    }

    #[test]
    fn the_preview_is_the_first_lines_as_written() {
        // (code, preview)
        let cases = [
            ("def f(x):\n    y = x\n    z = y\n    return z\n", "def f(x):\n    y = x\n    z = y"),
            ("def f(x):\r\n    return x\r\n", "def f(x):\r\n    return x"),
            ("def f(x): return x", "def f(x): return x"),
            ("", ""),
        ];
        for (code, expected) in cases {
            assert_eq!(preview(code), expected, "{code:?}");
        }
        assert_eq!((code_lines("a\nb\n"), code_lines("")), (2, 1));
    }
}
