//! The Perturb view (issue 3): being built.

use leptos::prelude::*;

#[component]
pub fn PerturbPage() -> impl IntoView {
    view! { <section class="page"><h1>"Perturb"</h1></section> }
}
