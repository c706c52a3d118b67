//! A progress bar for long runs over a dataset.

use leptos::prelude::*;

#[component]
pub fn ProgressBar(#[prop(into)] done: Signal<usize>, #[prop(into)] total: Signal<usize>) -> impl IntoView {
    let percent = move || {
        let total = total.get();
        if total == 0 { 0.0 } else { done.get() as f64 * 100.0 / total as f64 }
    };
    view! {
        <div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow=move || format!("{:.0}", percent())>
            <div class="progress-fill" style=move || format!("width: {:.1}%", percent())></div>
        </div>
    }
}
