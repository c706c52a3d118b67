//! The per-sample table of one run: each sample's answers taken together ("1 of 3 right"), its
//! prompt opened at the sample's own code (the instructions and worked examples folded), and
//! every answer's verdict in words, extracted answer, reason and (folded) response. Columns are
//! named by the per-sample export's fields. The scoring mode and filter are the page's (they
//! outlive the table, and ride in the address). Only one page of rows is rendered at a time, so
//! 800 samples × 10 answers stay fast.

use std::sync::Arc;

use execbench_eval::Verdict;
use execbench_eval::prompt::{PromptParts, Template};
use execbench_eval::report::{AnswerRecord, SampleResult};
use execbench_eval::score::Mode;
use leptos::prelude::*;

use crate::jobs::results::RunResults;
use crate::route::{Route, RowFilter};

const ROWS_PER_PAGE: usize = 25;

/// The table's columns, each named by the field of an exported row (`results_jsonl`) it shows,
/// so the table and the file read with the same names.
pub const COLUMNS: [&str; 4] = ["id", "correct", "prompt", "answers"];

/// What each answer in the `answers` column shows: fields of an exported answer.
pub const ANSWER_FIELDS: [&str; 3] = ["verdict", "extraction", "response"];

/// The exported row's other fields, and where the page shows them (checked against an exported
/// row by the tests).
#[cfg_attr(not(test), allow(dead_code))]
pub const SHOWN_ELSEWHERE: [(&str, &str); 8] = [
    ("task", "the run's title"),
    ("mode", "the table's scoring mode"),
    ("n", "the correct column (\"1 of 3 right\")"),
    ("dropped", "the correct column (\", 1 dropped\")"),
    ("pass_at_1", "the summary"),
    ("pass_at_5", "the summary"),
    ("model_error", "the answers column, for a sample without answers"),
    ("provenance", "the run's title and the exports"),
];

// The filter is the address's (`crate::route::RowFilter`); what it shows and keeps is the table's.
impl RowFilter {
    fn label(self) -> &'static str {
        match self {
            RowFilter::All => "All samples",
            RowFilter::WrongOnly => "Wrong only",
            RowFilter::Dropped => "Dropped answers",
            RowFilter::ExtractionFailed => "No answer found",
        }
    }

    fn counts_against(answer: &AnswerRecord) -> bool {
        !matches!(answer.verdict, Verdict::Correct | Verdict::Dropped { .. })
    }

    fn accepts(self, answer: &AnswerRecord) -> bool {
        match self {
            RowFilter::All => true,
            RowFilter::WrongOnly => Self::counts_against(answer),
            RowFilter::Dropped => matches!(answer.verdict, Verdict::Dropped { .. }),
            RowFilter::ExtractionFailed => matches!(answer.verdict, Verdict::ExtractionFailed { .. }),
        }
    }

    fn keeps(self, row: &SampleResult) -> bool {
        self == RowFilter::All
            || row.answers.iter().any(|a| self.accepts(a))
            || (self == RowFilter::WrongOnly && row.model_error.is_some())
    }
}

/// `mode` and `filter` belong to the page showing the table: they keep the reader's choice when
/// another run is shown, or the page is visited again.
#[component]
pub fn SampleTable(run: Arc<RunResults>, mode: RwSignal<Mode>, filter: RwSignal<RowFilter>) -> impl IntoView {
    let (page, set_page) = signal(0usize);
    // The chosen mode, or the run's first when it was not scored in that mode.
    let mode_index = {
        let run = run.clone();
        move || {
            let chosen = mode.get();
            run.per_mode.iter().position(|m| m.mode == chosen).unwrap_or(0)
        }
    };
    let matching = {
        let run = run.clone();
        let mode_index = mode_index.clone();
        Memo::new(move |_| {
            let filter = filter.get();
            run.per_mode.get(mode_index()).map_or_else(Vec::new, |m| {
                m.rows.iter().enumerate().filter(|(_, r)| filter.keeps(r)).map(|(i, _)| i).collect::<Vec<_>>()
            })
        })
    };
    let pages = move || matching.with(|m| m.len().div_ceil(ROWS_PER_PAGE).max(1));
    let on_last_page = move || page.get() + 1 >= pages();
    let on_first_page = move || page.get() == 0;
    let rows = {
        let run = run.clone();
        let mode_index = mode_index.clone();
        move || {
            let Some(results) = run.per_mode.get(mode_index()) else { return Vec::new() };
            let template = run.prompt_template.as_ref();
            let first = page.get() * ROWS_PER_PAGE;
            matching.with(|indices| {
                indices
                    .iter()
                    .skip(first)
                    .take(ROWS_PER_PAGE)
                    .map(|&i| sample_row(&results.rows[i], template))
                    .collect::<Vec<_>>()
            })
        }
    };
    let mode_options = run
        .per_mode
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mode_index = mode_index.clone();
            view! { <option value=m.mode.label() prop:selected=move || mode_index() == i>{format!("{} mode", m.mode.label())}</option> }
        })
        .collect_view();
    let total = run.scored();
    view! {
        <div class="sample-table">
            <div class="toolbar">
                <select aria-label="Scoring mode" data-testid="table-mode" on:change=move |ev| {
                    if let Some(chosen) = Mode::from_label(&event_target_value(&ev)) {
                        mode.set(chosen);
                    }
                    set_page.set(0);
                }>{mode_options}</select>
                <select aria-label="Filter samples" data-testid="table-filter" on:change=move |ev| {
                    filter.set(RowFilter::parse(&event_target_value(&ev)).unwrap_or(RowFilter::All));
                    set_page.set(0);
                }>
                    {RowFilter::ALL.into_iter().map(|f| view! { <option value=f.value() prop:selected=move || filter.get() == f>{f.label()}</option> }).collect_view()}
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
                    <tr>
                        {COLUMNS.map(|c| {
                            let class = if c == "correct" { "num" } else { "" };
                            let parts = (c == "answers").then(|| view! { <span class="column-parts">{format!(" ({})", ANSWER_FIELDS.join(" · "))}</span> });
                            view! { <th class=class data-field=c>{c}{parts}</th> }
                        }).collect_view()}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

fn sample_row(row: &SampleResult, template: Option<&Template>) -> impl IntoView + use<> {
    let outcome = row.outcome().label();
    let prompt = row.prompt.as_deref().map(|p| prompt_cell(p, template).into_any());
    let answers = if row.answers.is_empty() {
        view! { <span class="answer-reason">{row.model_error.clone().unwrap_or_default()}</span> }.into_any()
    } else {
        view! { <ol class="answers">{row.answers.iter().map(answer_item).collect_view()}</ol> }.into_any()
    };
    view! {
        <tr data-testid="result-row" data-outcome=outcome>
            <td class="mono"><a href=Route::sample(row.id.clone()).href()>{row.id.clone()}</a></td>
            <td class="num"><span class=format!("verdict o-{outcome}") data-testid="row-correct">{row.right_of_n()}</span></td>
            <td>{prompt.unwrap_or_else(|| view! { <span class="muted">"—"</span> }.into_any())}</td>
            <td>{answers}</td>
        </tr>
    }
}

/// The prompt open at the sample's own part; the instructions and worked examples before it folded.
fn prompt_cell(prompt: &str, template: Option<&Template>) -> impl IntoView + use<> {
    let parts =
        template.map_or_else(|| PromptParts { own: prompt.to_string(), ..PromptParts::default() }, |t| t.parts(prompt));
    let lead = format!("{}{}", parts.instructions, parts.examples.concat());
    let summary = match parts.examples.len() {
        0 => "instructions".to_string(),
        1 => "instructions and 1 worked example".to_string(),
        k => format!("instructions and {k} worked examples"),
    };
    view! {
        <div class="prompt-cell">
            {(!lead.is_empty()).then(|| view! {
                <details class="prompt-lead" data-testid="prompt-lead" data-examples=parts.examples.len().to_string()>
                    <summary>{summary}</summary><pre>{lead}</pre>
                </details>
            })}
            <pre class="prompt-own" data-testid="prompt-own">{parts.own}</pre>
        </div>
    }
}

/// One answer of a sample: its verdict in words, what was extracted and by which rule, why it is
/// not right, and the response it came from, folded.
fn answer_item(answer: &AnswerRecord) -> impl IntoView + use<> {
    let label = answer.verdict.label();
    let reason = reason_of(&answer.verdict);
    let response = answer.response.clone().map(|r| {
        view! { <details class="answer-response"><summary>"response"</summary><pre data-testid="answer-response">{r}</pre></details> }
    });
    view! {
        <li data-testid="answer-item" data-verdict=label>
            <span class=format!("verdict v-{label}")>{answer.verdict.words()}</span>
            " " <code class="answer-cell">{answer.extraction.answer().unwrap_or("—").to_string()}</code>
            " " <span class="extract-rule">{answer.extraction.rule_label()}</span>
            {(!reason.is_empty()).then(|| view! { <div class="answer-reason">{reason}</div> })}
            {response}
        </li>
    }
}

/// Why an answer got its verdict, in words (the verdict itself is shown beside it).
fn reason_of(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Correct => String::new(),
        Verdict::WrongValue { got, expected } => format!("got {got}, expected {expected}"),
        Verdict::NotALiteral { detail }
        | Verdict::NotACall { detail }
        | Verdict::ExtractionFailed { detail }
        | Verdict::Timeout { detail } => detail.clone(),
        Verdict::Error { message } => message.clone(),
        Verdict::Dropped { why } => why.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_eval::Extraction;
    use execbench_eval::Task;
    use execbench_eval::score::SampleScore;

    /// Every field of an exported row is a column of the table, shown in an answer, or placed
    /// elsewhere on the page, and every column and answer part names an exported field: a field
    /// added to or renamed in the export fails here until the table follows.
    #[test]
    fn columns_are_named_by_the_exports_fields() {
        let verdicts = vec![Verdict::Correct, Verdict::WrongValue { got: "1".into(), expected: "2".into() }];
        let mut row = SampleResult::new(
            "sample_0",
            Task::Output,
            Mode::Strict,
            Some("prompt".into()),
            vec!["r1".into(), "r2".into()],
            vec![Extraction::verbatim("2"), Extraction::verbatim("1")],
            SampleScore::from_verdicts(Mode::Strict, verdicts),
        );
        row.model_error = Some("none".into());
        let provenance = execbench_core::Provenance { run_id: Some("run-1".into()), ..Default::default() };
        let exported: serde_json::Value = serde_json::from_str(provenance.jsonl([&row]).trim_end()).unwrap();
        let keys: Vec<&str> = exported.as_object().unwrap().keys().map(String::as_str).collect();
        let mut placed: Vec<&str> =
            COLUMNS.iter().copied().chain(SHOWN_ELSEWHERE.iter().map(|(field, _)| *field)).collect();
        let mut sorted_keys = keys.clone();
        sorted_keys.sort();
        placed.sort();
        assert_eq!(placed, sorted_keys, "exported fields vs the table's columns and SHOWN_ELSEWHERE");
        let answer = exported["answers"][0].as_object().unwrap();
        let mut answer_keys: Vec<&str> = answer.keys().map(String::as_str).collect();
        answer_keys.sort();
        let mut parts = ANSWER_FIELDS.to_vec();
        parts.sort();
        assert_eq!(parts, answer_keys, "an exported answer's fields vs what each answer shows");
    }

    /// (filter, verdicts of a row, kept): a row partly right is kept by "wrong only".
    #[test]
    fn filters_keep_rows_with_an_answer_they_are_about() {
        let wrong = || Verdict::WrongValue { got: "1".into(), expected: "2".into() };
        let dropped = || Verdict::Dropped { why: "w".into() };
        let failed = || Verdict::ExtractionFailed { detail: "d".into() };
        let cases = [
            (RowFilter::All, vec![Verdict::Correct], true),
            (RowFilter::WrongOnly, vec![Verdict::Correct, wrong(), wrong()], true),
            (RowFilter::WrongOnly, vec![Verdict::Correct, dropped()], false),
            (RowFilter::WrongOnly, vec![failed()], true),
            (RowFilter::Dropped, vec![Verdict::Correct, dropped()], true),
            (RowFilter::Dropped, vec![wrong()], false),
            (RowFilter::ExtractionFailed, vec![Verdict::Correct, failed()], true),
            (RowFilter::ExtractionFailed, vec![wrong()], false),
        ];
        for (filter, verdicts, kept) in cases {
            let extractions = verdicts.iter().map(|_| Extraction::verbatim("1")).collect();
            let row = SampleResult::new(
                "s",
                Task::Output,
                Mode::Compatible,
                None,
                Vec::new(),
                extractions,
                SampleScore::from_verdicts(Mode::Compatible, verdicts.clone()),
            );
            assert_eq!(filter.keeps(&row), kept, "{filter:?} {verdicts:?}");
        }
    }
}
