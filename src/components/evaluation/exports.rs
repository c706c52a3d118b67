//! Exports of the results: a Markdown summary (shown in a box to copy, and as a download) and the
//! per-sample rows as JSON Lines.

use std::sync::Arc;

use execbench_core::markdown_text;
use execbench_eval::report::markdown_table;
use execbench_run::manifest::counted;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::jobs::results::RunResults;

/// One heading and table per run, newest first: what a paper or an issue needs.
pub fn markdown_summary(runs: &[Arc<RunResults>]) -> String {
    let mut out = String::new();
    for run in runs {
        let summaries: Vec<_> = run.per_mode.iter().map(|m| m.summary.clone()).collect();
        // Titles and sent parameters name models from data: escaped, never markup or a way out of a span.
        out.push_str(&format!("### {}\n\n", markdown_text(&run.title())));
        if run.stopped {
            out.push_str(&format!("Stopped after {} of {} samples.\n\n", run.scored(), run.planned));
        }
        if !run.errors.is_empty() {
            out.push_str(&format!(
                "{} ended in an error (the provider failed; not scored, not in pass@k).\n\n",
                counted(run.errors.len() as u64, "sample", "samples")
            ));
        }
        if let Some(u) = run.usage {
            // A run stored before requests were counted has none to say.
            let requests =
                if run.requests.is_zero() { String::new() } else { format!(" in {}", run.requests.describe()) };
            out.push_str(&format!(
                "Tokens: {} prompt, {} completion ({} reasoning){requests}.\n\n",
                u.prompt_tokens, u.completion_tokens, u.reasoning_tokens
            ));
        }
        if let Some(sent) = &run.sent {
            let deviations = execbench_run::protocol::deviations(sent, &run.not_sent);
            out.push_str(&format!(
                "Parameters sent: {}{}.\n\n",
                markdown_text(&sent.to_string()),
                if deviations.is_empty() {
                    String::new()
                } else {
                    format!(" (differs from CodeCrash's protocol: {})", deviations.join("; "))
                }
            ));
        }
        out.push_str(&markdown_table(&summaries));
        out.push('\n');
    }
    out
}

/// Every run's rows, every mode: one JSON object per sample and mode, each with its run's
/// provenance (so rows of several runs stay apart).
pub fn results_jsonl(runs: &[Arc<RunResults>]) -> String {
    runs.iter().flat_map(|run| run.per_mode.iter().map(|m| run.provenance.jsonl(&m.rows))).collect()
}

/// `navigator.clipboard.writeText`, reached by name: the web-sys clipboard bindings are not
/// compiled in, and this is the only place that needs them.
fn copy_to_clipboard(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let navigator = js_sys::Reflect::get(&window, &"navigator".into()).map_err(|e| format!("{e:?}"))?;
    let clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into()).map_err(|e| format!("{e:?}"))?;
    let write = js_sys::Reflect::get(&clipboard, &"writeText".into()).map_err(|e| format!("{e:?}"))?;
    let write: js_sys::Function = write.dyn_into().map_err(|_| "the clipboard cannot be written here".to_string())?;
    write.call1(&clipboard, &text.into()).map(|_| ()).map_err(|e| format!("{e:?}"))
}

#[component]
pub fn ResultsExports(#[prop(into)] runs: Signal<Vec<Arc<RunResults>>>) -> impl IntoView {
    let markdown = Memo::new(move |_| runs.with(|r| markdown_summary(r)));
    let (notice, set_notice) = signal(String::new());
    let copy = move |_| {
        set_notice.set(match copy_to_clipboard(&markdown.get_untracked()) {
            Ok(()) => "copied".to_string(),
            Err(e) => format!("could not copy ({e}): select the text and copy it by hand"),
        });
    };
    let download_markdown = move |_| {
        if let Err(e) =
            crate::browser::download::download_text("execbench-summary.md", "text/markdown", &markdown.get_untracked())
        {
            set_notice.set(format!("download failed: {e}"));
        }
    };
    let download_jsonl = move |_| {
        let text = runs.with_untracked(|r| results_jsonl(r));
        if let Err(e) = crate::browser::download::download_text("execbench-results.jsonl", "application/jsonl", &text) {
            set_notice.set(format!("download failed: {e}"));
        }
    };
    view! {
        <div class="exports">
            <div class="toolbar">
                <button data-testid="copy-markdown" on:click=copy>"Copy Markdown"</button>
                <button data-testid="download-markdown" on:click=download_markdown>"Download Markdown"</button>
                <button data-testid="download-jsonl" on:click=download_jsonl>"Download per-sample JSONL"</button>
                <span class="muted" data-testid="export-notice">{notice}</span>
            </div>
            <textarea class="code-input markdown-box" readonly=true rows="8" data-testid="markdown" aria-label="Markdown summary"
                prop:value=move || markdown.get()
                on:focus=move |ev| { event_target::<web_sys::HtmlTextAreaElement>(&ev).select(); }></textarea>
        </div>
    }
}
