//! The per-sample table of one run: prompt, response, extracted answer, verdict and reason, with
//! filters. Only one page of rows is rendered at a time, so 800 samples × 10 answers stay fast.

use std::sync::Arc;

use execbench_eval::Verdict;
use execbench_eval::report::{AnswerRecord, SampleResult};
use leptos::prelude::*;

use super::RunResults;
use crate::route::Route;

const ROWS_PER_PAGE: usize = 25;

/// Which samples the table shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFilter {
    All,
    /// At least one answer that counts against the model (anything but correct or dropped).
    WrongOnly,
    Dropped,
    ExtractionFailed,
}

impl RowFilter {
    const ALL: [RowFilter; 4] = [RowFilter::All, RowFilter::WrongOnly, RowFilter::Dropped, RowFilter::ExtractionFailed];

    fn value(self) -> &'static str {
        match self {
            RowFilter::All => "all",
            RowFilter::WrongOnly => "wrong",
            RowFilter::Dropped => "dropped",
            RowFilter::ExtractionFailed => "extraction_failed",
        }
    }

    fn label(self) -> &'static str {
        match self {
            RowFilter::All => "All samples",
            RowFilter::WrongOnly => "Wrong only",
            RowFilter::Dropped => "Dropped answers",
            RowFilter::ExtractionFailed => "Extraction failed",
        }
    }

    fn from_value(value: &str) -> RowFilter {
        RowFilter::ALL.into_iter().find(|f| f.value() == value).unwrap_or(RowFilter::All)
    }

    fn counts_against(answer: &AnswerRecord) -> bool {
        !matches!(answer.verdict.label(), "correct" | "dropped")
    }

    fn accepts(self, answer: &AnswerRecord) -> bool {
        match self {
            RowFilter::All => true,
            RowFilter::WrongOnly => Self::counts_against(answer),
            RowFilter::Dropped => answer.verdict.label() == "dropped",
            RowFilter::ExtractionFailed => answer.verdict.label() == "extraction_failed",
        }
    }

    fn keeps(self, row: &SampleResult) -> bool {
        self == RowFilter::All || row.answers.iter().any(|a| self.accepts(a)) || (self == RowFilter::WrongOnly && row.model_error.is_some())
    }

    /// The answer a row shows: the first the filter is about, else the first that went wrong,
    /// else the first.
    fn shown_answer(self, row: &SampleResult) -> Option<&AnswerRecord> {
        let wanted = if self == RowFilter::All { RowFilter::WrongOnly } else { self };
        row.answers.iter().find(|a| wanted.accepts(a)).or(row.answers.first())
    }
}

#[component]
pub fn SampleTable(run: Arc<RunResults>) -> impl IntoView {
    let (mode_index, set_mode_index) = signal(0usize);
    let (filter, set_filter) = signal(RowFilter::All);
    let (page, set_page) = signal(0usize);
    let matching = {
        let run = run.clone();
        Memo::new(move |_| {
            let filter = filter.get();
            run.per_mode.get(mode_index.get()).map_or_else(Vec::new, |m| m.rows.iter().enumerate().filter(|(_, r)| filter.keeps(r)).map(|(i, _)| i).collect::<Vec<_>>())
        })
    };
    let pages = move || matching.with(|m| m.len().div_ceil(ROWS_PER_PAGE).max(1));
    let on_last_page = move || page.get() + 1 >= pages();
    let on_first_page = move || page.get() == 0;
    let rows = {
        let run = run.clone();
        move || {
            let Some(mode) = run.per_mode.get(mode_index.get()) else { return Vec::new() };
            let filter = filter.get();
            let first = page.get() * ROWS_PER_PAGE;
            matching.with(|indices| {
                indices.iter().skip(first).take(ROWS_PER_PAGE).map(|&i| sample_row(&mode.rows[i], filter)).collect::<Vec<_>>()
            })
        }
    };
    let mode_options = run.per_mode.iter().enumerate().map(|(i, m)| view! { <option value=i.to_string()>{format!("{} mode", m.mode.label())}</option> }).collect_view();
    let total = run.scored();
    view! {
        <div class="sample-table">
            <div class="toolbar">
                <select aria-label="Scoring mode" data-testid="table-mode" on:change=move |ev| {
                    set_mode_index.set(event_target_value(&ev).parse().unwrap_or(0));
                    set_page.set(0);
                }>{mode_options}</select>
                <select aria-label="Filter samples" data-testid="table-filter" on:change=move |ev| {
                    set_filter.set(RowFilter::from_value(&event_target_value(&ev)));
                    set_page.set(0);
                }>
                    {RowFilter::ALL.into_iter().map(|f| view! { <option value=f.value()>{f.label()}</option> }).collect_view()}
                </select>
                <span class="count" data-testid="table-count">{move || format!("{} of {total} samples", matching.with(Vec::len))}</span>
                <span class="pager">
                    <button on:click=move |_| set_page.update(|p| *p = p.saturating_sub(1)) disabled=on_first_page>"‹ Previous"</button>
                    <span class="count" data-testid="table-page">{move || format!("page {} of {}", page.get() + 1, pages())}</span>
                    <button data-testid="table-next" on:click=move |_| set_page.update(|p| *p += 1) disabled=on_last_page>"Next ›"</button>
                </span>
            </div>
            <table class="eval-table rows-table" data-testid="sample-table">
                <thead>
                    <tr><th>"sample"</th><th class="num">"correct"</th><th>"prompt"</th><th>"response"</th><th>"extracted answer"</th><th>"verdict"</th><th>"reason"</th></tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

fn sample_row(row: &SampleResult, filter: RowFilter) -> impl IntoView + use<> {
    let shown = filter.shown_answer(row);
    let response = shown.and_then(|a| a.response.clone()).unwrap_or_else(|| GIVEN_EXTRACTED.to_string());
    let extracted = shown.and_then(|a| a.extraction.answer()).unwrap_or("—").to_string();
    let rule = shown.map(|a| a.extraction.rule_label());
    let (verdict, reason) = match shown {
        Some(a) => (a.verdict.label(), reason_of(&a.verdict)),
        None => ("no answers", row.model_error.clone().unwrap_or_default()),
    };
    let verdict_class = format!("verdict v-{verdict}");
    // With n > 1, every answer: its verdict, extraction and reason in one line, its response
    // folded under it, so a row stays one line high until opened.
    let others = (row.answers.len() > 1).then(|| {
        let list = row.answers.iter().map(answer_item).collect_view();
        view! { <details class="all-answers"><summary>{format!("all {} answers", row.answers.len())}</summary><ol>{list}</ol></details> }
    });
    let prompt = row.prompt.clone().map(|p| {
        let size = format!("{} lines", p.lines().count());
        view! { <details class="prompt-cell"><summary>{size}</summary><pre>{p}</pre></details> }.into_any()
    });
    view! {
        <tr data-testid="result-row" data-verdict=verdict>
            <td class="mono"><a href=Route::sample(row.id.clone()).href()>{row.id.clone()}</a></td>
            <td class="num mono">{format!("{}/{}", row.correct, row.n)}</td>
            <td>{prompt.unwrap_or_else(|| view! { <span class="muted">"—"</span> }.into_any())}</td>
            <td><pre class="response-cell">{response}</pre>{others}</td>
            <td>
                <code class="answer-cell">{extracted}</code>
                {rule.map(|r| view! { <div class="extract-rule" data-testid="rule">{r}</div> })}
            </td>
            <td><span class=verdict_class>{verdict}</span></td>
            <td class="reason-cell">{reason}</td>
        </tr>
    }
}

const GIVEN_EXTRACTED: &str = "(answer given already extracted)";

/// One answer of a sample in the "all answers" list.
fn answer_item(answer: &AnswerRecord) -> impl IntoView + use<> {
    let label = answer.verdict.label();
    let reason = reason_of(&answer.verdict);
    let response = answer.response.clone().map(|r| {
        view! { <details class="answer-response"><summary>"response"</summary><pre data-testid="answer-response">{r}</pre></details> }
    });
    view! {
        <li data-testid="answer-item" data-verdict=label>
            <span class=format!("verdict v-{label}")>{label}</span>
            " " <code>{answer.extraction.answer().unwrap_or("—").to_string()}</code>
            " " <span class="extract-rule">{answer.extraction.rule_label()}</span>
            {(!reason.is_empty()).then(|| view! { <div class="answer-reason">{reason}</div> })}
            {response}
        </li>
    }
}

/// Why an answer got its verdict, in words (the verdict itself has its own column).
fn reason_of(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Correct => String::new(),
        Verdict::WrongValue { got, expected } => format!("got {got}, expected {expected}"),
        Verdict::NotALiteral { detail } | Verdict::NotACall { detail } | Verdict::ExtractionFailed { detail } | Verdict::Timeout { detail } => detail.clone(),
        Verdict::Error { message } => message.clone(),
        Verdict::Dropped { why } => why.clone(),
    }
}
