//! The changes a perturbation made, one row an edit: stage, line (or `call`), text before and after.

use execbench_perturb::{Edit, Placed, Target};
use leptos::prelude::*;

/// 1-based line of a byte offset.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Shows whitespace-only or empty text so a row never looks blank.
fn shown(text: &str) -> String {
    if text.is_empty() {
        "(nothing)".to_string()
    } else if text.trim().is_empty() {
        text.replace('\n', "⏎").replace(' ', "·")
    } else {
        text.to_string()
    }
}

#[component]
pub fn EditList(edits: Vec<Edit>, placed: Vec<Placed>, perturbed_code: String) -> impl IntoView {
    if edits.is_empty() {
        return view! { <p class="muted" data-testid="edit-list">"No edits: this kind found nothing to change in this program."</p> }.into_any();
    }
    let count = edits.len();
    let rows = edits
        .into_iter()
        .zip(placed)
        .map(|(edit, place)| {
            // REN's edits of the call have no line in the code: they are marked as the call's.
            let line = match edit.target {
                Target::Code => line_of(&perturbed_code, place.after.start).to_string(),
                Target::Call => "call".to_string(),
            };
            view! {
                <tr>
                    <td>{edit.kind.name()}</td>
                    <td class="num">{line}</td>
                    <td><pre class="edit-text before">{shown(&edit.before)}</pre></td>
                    <td><pre class="edit-text after">{shown(&edit.after)}</pre></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <details class="edit-list" open=count <= 12 data-testid="edit-list">
            <summary>{format!("{count} edit{}", if count == 1 { "" } else { "s" })}</summary>
            <table class="edits">
                <thead><tr><th>"stage"</th><th>"line"</th><th>"before"</th><th>"after"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
    .into_any()
}
