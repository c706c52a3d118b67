//! The dataset menu: the bundled CRUXEval and every imported file kept in this browser, most
//! recently used first; choosing one opens it (and the next visit opens it again).

use leptos::prelude::*;

use crate::state::AppState;

/// The menu's value for the bundled dataset (shelf ids start with `ds-`, so they never clash).
const BUNDLED: &str = "bundled";

#[component]
pub fn DatasetSwitcher() -> impl IntoView {
    let state = expect_context::<AppState>();
    let shelf = state.shelf;
    let on_change = move |ev: leptos::ev::Event| {
        let chosen = event_target_value(&ev);
        if chosen == BUNDLED { state.load_bundled() } else { state.open_kept(chosen) }
    };
    let forget = move |_| {
        if let Some(id) = shelf.current.get_untracked() {
            leptos::task::spawn_local(async move { shelf.forget(&id).await });
            state.load_bundled();
        }
    };
    let options = move || {
        let current = shelf.current.get();
        shelf
            .entries
            .get()
            .into_iter()
            .map(|e| {
                let selected = current.as_deref() == Some(e.id.as_str());
                view! { <option value=e.id.clone() prop:selected=selected>{e.label()}</option> }
            })
            .collect_view()
    };
    view! {
        <label class="dataset-switcher">
            <span class="visually-hidden">"Dataset"</span>
            <select data-testid="dataset-switcher" title="Datasets kept in this browser" on:change=on_change>
                <option value=BUNDLED prop:selected=move || shelf.current.get().is_none()>"CRUXEval (bundled)"</option>
                {options}
            </select>
        </label>
        <Show when=move || shelf.current.get().is_some()>
            <button data-testid="dataset-forget" title="Removes this file from the browser's storage and opens CRUXEval" on:click=forget>"Remove from this browser"</button>
        </Show>
        {move || shelf.problem.get().map(|p| view! { <p class="error-box" role="alert" data-testid="shelf-problem">{p}</p> })}
    }
}
