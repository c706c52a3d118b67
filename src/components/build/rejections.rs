//! The rejected candidates: filterable by rule, each with its rule, what broke it, and its code
//! highlighted with the offending operation marked.

use std::sync::Arc;

use execbench_recipe::{Judged, Rule, Verdict};
use leptos::prelude::*;

use crate::components::marked_code::{Mark, marked_html};

/// Rows shown at most: a table of thousands helps nobody; the download has them all.
pub const MAX_ROWS: usize = 200;

/// The rejected candidates, those of `rule` only when one is chosen, in judging order.
pub fn rejected(judged: &[Judged], rule: Option<Rule>) -> Vec<&Judged> {
    judged
        .iter()
        .filter(|j| matches!(&j.verdict, Verdict::Rejected(r) if rule.is_none_or(|want| r.rule == want)))
        .collect()
}

#[component]
pub fn RejectionTable(#[prop(into)] judged: Signal<Arc<Vec<Judged>>>, rule: RwSignal<Option<Rule>>) -> impl IntoView {
    let rows =
        Memo::new(move |_| judged.with(|all| rejected(all, rule.get()).into_iter().cloned().collect::<Vec<_>>()));
    view! {
        <div class="rejections">
            <label>"Rule "
                <select data-testid="rejected-filter" prop:value=move || rule.get().map_or("", |r| r.id())
                    on:change=move |ev| rule.set(Rule::from_id(&event_target_value(&ev)))>
                    <option value="">"every rule"</option>
                    {Rule::ALL.into_iter().map(|r| view! { <option value=r.id()>{format!("{} — {}", r.id(), r.describe())}</option> }).collect_view()}
                </select>
            </label>
            <p class="muted" data-testid="rejected-count">{move || {
                let n = rows.with(Vec::len);
                if n > MAX_ROWS { format!("{n} rejected; the first {MAX_ROWS} are shown (the download has all)") } else { format!("{n} rejected") }
            }}</p>
            <div class="table-scroll">
                <table class="rejected-table" data-testid="rejected-table">
                    <thead><tr><th>"candidate"</th><th>"rule"</th><th>"what broke it"</th><th>"code"</th></tr></thead>
                    <tbody>
                        {move || rows.with(|rows| rows.iter().take(MAX_ROWS).map(|j| {
                            let Verdict::Rejected(r) = &j.verdict else { return ().into_any() };
                            let code = &j.candidate.code;
                            let marks: Vec<Mark> = r.at.map(|(s, e)| Mark { range: s..e, class: "offending" }).into_iter().collect();
                            let line = r.line(code).map(|l| format!(" (line {l})")).unwrap_or_default();
                            let method = j.candidate.method.clone().unwrap_or_default();
                            view! {
                                <tr data-testid="rejected-row" data-rule=r.rule.id() data-id=j.candidate.id.clone()>
                                    <td><span class="line">{j.candidate.id.clone()}</span><span class="muted note">{method}</span></td>
                                    <td><code>{r.rule.id()}</code></td>
                                    <td>{format!("{}{line}", r.detail)}<span class="muted note">{format!("input: {}", j.candidate.input)}</span></td>
                                    <td><pre class="code small-code" inner_html=marked_html(code, &marks)></pre></td>
                                </tr>
                            }.into_any()
                        }).collect_view())}
                    </tbody>
                </table>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use execbench_recipe::{Candidate, Rejection};

    use super::*;

    #[test]
    fn the_filter_picks_one_rule() {
        let judged = |id: &str, verdict: Verdict| Judged {
            candidate: Candidate { id: id.into(), method: None, code: "def f(x): return x".into(), input: "1".into() },
            verdict,
        };
        let all = vec![
            judged("a", Verdict::Kept { output: "1".into() }),
            judged("b", Verdict::Rejected(Rejection::new(Rule::Float, "x"))),
            judged("c", Verdict::Rejected(Rejection::new(Rule::Import, "y"))),
        ];
        let ids = |rule| rejected(&all, rule).iter().map(|j| j.candidate.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(None), ["b", "c"]);
        assert_eq!(ids(Some(Rule::Import)), ["c"]);
        assert!(ids(Some(Rule::Syntax)).is_empty());
    }
}
