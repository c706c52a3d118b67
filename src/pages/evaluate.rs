//! The Evaluate view (issue 4): being built.

use leptos::prelude::*;

#[component]
pub fn EvaluatePage() -> impl IntoView {
    view! { <section class="page"><h1>"Evaluate"</h1></section> }
}
