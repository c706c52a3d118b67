//! The rows of a whole-dataset perturbation, browsable: filter by kind, find a sample, hide the
//! rows a kind left as they were, and open any row in the single-program view (its address
//! reproduces the row: same sample, kind, seed and options).

use execbench_perturb::claims_file::claim_in_hint_comment;
use execbench_perturb::{ExportRow, Kind, Options};
use leptos::prelude::*;

use crate::jobs::PerturbRun;
use crate::route::PerturbLink;

const ROWS_PER_PAGE: usize = 20;

/// Which rows the table shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowsQuery {
    pub kind: Option<Kind>,
    /// Part of a sample id (case-insensitive); empty for all.
    pub sample: String,
    pub changed_only: bool,
}

/// Positions of the rows `query` keeps, in the run's order.
pub fn rows_matching(rows: &[ExportRow], query: &RowsQuery) -> Vec<usize> {
    let wanted = query.sample.trim().to_lowercase();
    rows.iter()
        .enumerate()
        .filter(|(_, r)| query.kind.is_none_or(|k| r.kind == k))
        .filter(|(_, r)| wanted.is_empty() || r.id.to_lowercase().contains(&wanted))
        .filter(|(_, r)| !query.changed_only || r.code != r.original_code)
        .map(|(i, _)| i)
        .collect()
}

/// How many of the perturbed program's lines are not lines of the original (counted with
/// multiplicity), and the first of them: what a glance at the row should tell.
pub fn new_lines<'r>(original: &str, perturbed: &'r str) -> (usize, Option<&'r str>) {
    let mut left: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for line in original.lines() {
        *left.entry(line).or_default() += 1;
    }
    let mut count = 0;
    let mut first = None;
    for line in perturbed.lines() {
        match left.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                count += 1;
                first = first.or(Some(line));
            }
        }
    }
    (count, first)
}

/// The single-program view's address for a row. An MHC row carries its hint's claim, read back
/// from the code, so the view shows the row's program even when the claim was a model's.
pub fn open_href(row: &ExportRow) -> String {
    let options = Options {
        seed: row.seed,
        p: row.options.p,
        once: row.options.once,
        prediction: row.options.prediction,
        profile: row.options.profile,
    };
    let claim = (row.kind == Kind::Mhc)
        .then(|| claim_in_hint_comment(&row.code, &row.function_name))
        .flatten()
        .map(|(_, claim)| claim);
    PerturbLink { sample: Some(row.id.clone()), kind: row.kind, options, claim }.href()
}

#[component]
pub fn PerturbedRows(run: PerturbRun) -> impl IntoView {
    let query = RwSignal::new(RowsQuery::default());
    let page = RwSignal::new(0usize);
    // The rows are stored when a run ends; a new run's count changing resets the view.
    let finished = move || !run.job.running.get() && run.row_count.get() > 0;
    let kinds = move || {
        run.row_count.track();
        run.rows.with_value(|rows| {
            let mut kinds: Vec<Kind> = rows.iter().map(|r| r.kind).collect();
            kinds.dedup();
            kinds
        })
    };
    let matches = Memo::new(move |_| {
        run.row_count.track();
        run.job.running.track();
        let query = query.get();
        run.rows.with_value(|rows| rows_matching(rows, &query))
    });
    let pages = move || matches.with(|m| m.len().div_ceil(ROWS_PER_PAGE).max(1));
    let on_last_page = move || page.get() + 1 >= pages();
    let set_query = move |change: &dyn Fn(&mut RowsQuery)| {
        query.update(|q| change(q));
        page.set(0);
    };
    let rows = move || {
        let first = page.get() * ROWS_PER_PAGE;
        matches.with(|indices| {
            run.rows.with_value(|rows| {
                indices.iter().skip(first).take(ROWS_PER_PAGE).map(|&i| row_view(&rows[i])).collect_view()
            })
        })
    };
    view! {
        <Show when=finished>
            <details class="perturbed-rows" data-testid="perturbed-rows" open=true>
                <summary>{move || format!("Browse the {} verified rows", run.row_count.get())}</summary>
                <div class="toolbar">
                    <select aria-label="Kind" data-testid="rows-kind" on:change=move |ev| {
                        let kind = Kind::parse(&event_target_value(&ev));
                        set_query(&|q| q.kind = kind);
                    }>
                        <option value="">"All kinds"</option>
                        {move || kinds().into_iter().map(|k| view! { <option value=k.name()>{k.name()}</option> }).collect_view()}
                    </select>
                    <input type="search" placeholder="Sample id…" aria-label="Find a sample" data-testid="rows-sample"
                        on:input=move |ev| { let text = event_target_value(&ev); set_query(&|q| q.sample = text.clone()); } />
                    <label class="check"><input type="checkbox" data-testid="rows-changed-only"
                        on:change=move |ev| { let on = event_target_checked(&ev); set_query(&|q| q.changed_only = on); } />
                        "Changed rows only"</label>
                    <span class="count" data-testid="rows-count">{move || format!("{} of {} rows", matches.with(Vec::len), run.row_count.get())}</span>
                    <span class="pager">
                        <button on:click=move |_| page.update(|p| *p = p.saturating_sub(1)) disabled=move || page.get() == 0>"‹ Previous"</button>
                        <span class="count">{move || format!("page {} of {}", page.get() + 1, pages())}</span>
                        <button data-testid="rows-next" on:click=move |_| page.update(|p| *p += 1) disabled=on_last_page>"Next ›"</button>
                    </span>
                </div>
                <div class="table-scroll">
                    <table class="problems perturbed-table">
                        <thead><tr><th>"sample"</th><th>"kind"</th><th class="num">"seed"</th><th class="num">"new lines"</th><th>"first new line"</th><th></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </details>
        </Show>
    }
}

fn row_view(row: &ExportRow) -> impl IntoView + use<> {
    let (count, first) = new_lines(&row.original_code, &row.code);
    let first = first.map(|l| l.trim().to_string());
    let href = open_href(row);
    view! {
        <tr data-testid="perturbed-row" data-kind=row.kind.name()>
            <td class="mono">{row.id.clone()}</td>
            <td>{row.kind.name()}</td>
            <td class="num">{row.seed}</td>
            <td class="num">{count}</td>
            <td>{match first {
                Some(line) => view! { <code class="first-new-line">{line}</code> }.into_any(),
                None => view! { <span class="muted">"unchanged"</span> }.into_any(),
            }}</td>
            // The single view sits at the top of this page: go there to see the opened row.
            <td><a href=href data-testid="open-row" on:click=|_| { if let Some(w) = web_sys::window() { w.scroll_to_with_x_and_y(0.0, 0.0) } }>"Open"</a></td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_perturb::RowOptions;

    fn row(id: &str, kind: Kind, seed: u64, code: &str, original: &str) -> ExportRow {
        ExportRow {
            id: id.into(),
            dataset: "d".into(),
            kind,
            seed,
            options: RowOptions {
                p: 1.0,
                once: false,
                prediction: execbench_perturb::Prediction::Output,
                profile: execbench_perturb::Profile::Execbench,
            },
            code: code.into(),
            function_name: "f".into(),
            call: "f(1)".into(),
            output: "1".into(),
            original_code: original.into(),
            message_true: false,
        }
    }

    #[test]
    fn the_query_keeps_the_rows_it_names() {
        let rows = [
            row("sample_1", Kind::Ren, 0, "def f(Var_1):\n    return Var_1", "def f(x):\n    return x"),
            row("sample_1", Kind::Rtf, 0, "def f(x):\n    return x", "def f(x):\n    return x"),
            row(
                "sample_12",
                Kind::Rtf,
                1,
                "def f(x):\n    if not not x:\n        return x",
                "def f(x):\n    if x:\n        return x",
            ),
        ];
        let q = |kind, sample: &str, changed_only| RowsQuery { kind, sample: sample.into(), changed_only };
        let cases = [
            (q(None, "", false), vec![0, 1, 2]),
            (q(Some(Kind::Rtf), "", false), vec![1, 2]),
            (q(None, "SAMPLE_12", false), vec![2]),
            (q(None, "sample_1", false), vec![0, 1, 2]),
            (q(None, "", true), vec![0, 2]),
            (q(Some(Kind::Rtf), "", true), vec![2]),
            (q(Some(Kind::Gbc), "", false), vec![]),
        ];
        for (query, expected) in cases {
            assert_eq!(rows_matching(&rows, &query), expected, "{query:?}");
        }
    }

    #[test]
    fn new_lines_are_counted_with_their_multiplicity() {
        let cases = [
            ("a\nb", "a\nb", (0, None)),
            ("a\nb", "a\nc", (1, Some("c"))),
            ("a", "x\na\na", (2, Some("x"))),
            ("a\na", "a", (0, None)),
            ("", "print('hi')", (1, Some("print('hi')"))),
        ];
        for (original, perturbed, expected) in cases {
            assert_eq!(new_lines(original, perturbed), expected, "{original:?} -> {perturbed:?}");
        }
    }

    #[test]
    fn a_row_opens_at_the_address_that_reproduces_it() {
        let mut r = row("sample 3", Kind::Mcc, 7, "", "");
        r.options.p = 0.5;
        assert_eq!(open_href(&r), "#/perturb/sample%203?kind=MCC&seed=7&p=0.5");
        let parsed = PerturbLink::parse(&open_href(&r));
        assert_eq!(
            (parsed.sample.as_deref(), parsed.kind, parsed.options.seed, parsed.options.p),
            (Some("sample 3"), Kind::Mcc, 7, 0.5)
        );
        assert_eq!(open_href(&row("s", Kind::Rtf, 2, "", "")), "#/perturb/s?kind=RTF&seed=2");
        // MHC: the hint's claim rides along, read back from the row's code.
        let mhc = row(
            "s",
            Kind::Mhc,
            0,
            "def f(x):\n    return x  # The return value is [1, 2]\n",
            "def f(x):\n    return x\n",
        );
        assert_eq!(PerturbLink::parse(&open_href(&mhc)).claim.as_deref(), Some("[1, 2]"));
    }
}
