//! The top bar's theme switch: system, light or dark.

use leptos::prelude::*;

use crate::theme::Theme;

#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let theme = RwSignal::new(crate::browser::theme::stored());
    Effect::new(move |_| crate::browser::theme::apply(theme.get()));
    let choose = move |ev| {
        let chosen = Theme::from_value(&event_target_value(&ev));
        crate::browser::theme::save(chosen);
        theme.set(chosen);
    };
    view! {
        <label class="theme-switch">
            <span class="visually-hidden">"Colour theme"</span>
            <select data-testid="theme-switch" on:change=choose>
                {Theme::ALL.into_iter().map(|t| view! { <option value=t.value() selected=move || theme.get() == t>{t.label()}</option> }).collect_view()}
            </select>
        </label>
    }
}
