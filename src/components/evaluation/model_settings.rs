//! The "Model API" settings form: provider, URL, model, key, generation settings, prices, and Test
//! connection. Its state is `crate::state::api_form::ApiForm`.

use execbench_providers::presets;
use execbench_run::cost::prices::PriceTable;
use leptos::prelude::*;

use super::local_model::LocalModelPanel;
use crate::state::api_form::{ApiForm, saved_prices};

/// Chromium's (and Firefox's) limit of HTTP/1.1 connections to one host.
const BROWSER_CONNECTIONS_PER_HOST: u32 = 6;

#[component]
pub fn ApiSettingsPanel(form: ApiForm) -> impl IntoView {
    let text_field = move |label: &'static str,
                           signal: RwSignal<String>,
                           testid: &'static str,
                           kind: &'static str,
                           class: &'static str| {
        view! {
            <label class=format!("field {class}")>
                <span class="label">{label}</span>
                <input type=kind data-testid=testid prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev)) />
            </label>
        }
    };
    let verdict_view = move || {
        form.verdict.get().map(|v| {
            let class = if v.is_ok() { "verdict ok" } else { "verdict bad" };
            view! { <p class=class role="status" data-testid="connection-verdict" data-ok=v.is_ok().to_string()>{v.describe()}</p> }
        })
    };
    view! {
        <div class="api-settings" data-testid="api-settings">
            <div class="row-fields">
                <label class="field">
                    <span class="label">"Provider"</span>
                    <select data-testid="api-provider" on:change=move |ev| form.pick_provider(event_target_value(&ev))>
                        {presets().iter().map(|p| {
                            let id = p.id;
                            view! { <option value=id selected=move || form.provider.get() == id>{p.label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label class="field">
                    <span class="label">"Model"</span>
                    <input type="text" data-testid="api-model" list="api-model-list" prop:value=move || form.model.get() on:input=move |ev| form.model.set(event_target_value(&ev)) />
                    <datalist id="api-model-list" data-testid="api-model-list">
                        {move || form.models.get().and_then(Result::ok).unwrap_or_default().into_iter().map(|m| view! { <option value=m.clone()></option> }).collect_view()}
                    </datalist>
                </label>
            </div>
            // The simulated and the in-browser model are answered in this page: no address, no key.
            <Show when=move || !form.is_answered_here()>
                <label class="field grow">
                    <span class="label">"Base URL"</span>
                    <input type="url" data-testid="api-base-url" prop:value=move || form.base_url.get() on:input=move |ev| { form.base_url.set(event_target_value(&ev)); form.refill_key(); } />
                </label>
                <div class="row-fields">
                    <label class="field grow">
                        <span class="label">"API key"</span>
                        <input type="password" data-testid="api-key" prop:value=move || form.key.get() on:input=move |ev| { form.key_filled_for.set(None); form.key.set(event_target_value(&ev)); } />
                    </label>
                    <label class="field check">
                        <input type="checkbox" data-testid="api-remember" prop:checked=move || form.remember_key.get() on:change=move |ev| form.remember_key.set(event_target_checked(&ev)) />
                        " remember on this device"
                    </label>
                </div>
                <Show when=move || form.remember_key.get()>
                    <p class="muted small">"The key will be kept in this browser's storage: anyone using this browser profile can read it."</p>
                </Show>
                {move || form.http_warning().map(|w| view! { <p class="error-box small" role="alert" data-testid="api-http-warning">{format!("Careful: {w}.")}</p> })}
                <p class="muted small">"The key is sent only to the provider and address typed here (a run file from elsewhere asks first), a remembered key only to the address it was used with, and never stored in results, exports or links."</p>
            </Show>
            <p class="muted small">"Empty temperature or top-p: not sent. A setting the chosen model does not take is left out and said below; the results say when the parameters differ from CodeCrash's protocol (2000 tokens, 0.2, 0.95)."</p>
            <div class="row-fields">
                {text_field("Max tokens", form.max_tokens, "api-max-tokens", "number", "narrow-field")}
                {text_field("Temperature", form.temperature, "api-temperature", "text", "narrow-field")}
                {text_field("Top-p", form.top_p, "api-top-p", "text", "narrow-field")}
                {text_field("Concurrency", form.concurrency, "api-concurrency", "number", "narrow-field")}
                {text_field("Delay (ms)", form.delay_ms, "api-delay", "number", "narrow-field")}
                {text_field("Time-out (s)", form.timeout_s, "api-timeout", "number", "narrow-field")}
                <Show when=move || !form.is_answered_here()>
                    <label class="field narrow-field">
                        <span class="label">"Reasoning effort"</span>
                        <select data-testid="api-reasoning-effort" on:change=move |ev| form.reasoning_effort.set(event_target_value(&ev))>
                            {["", "low", "medium", "high"].into_iter().map(|e| view! {
                                <option value=e selected=move || form.reasoning_effort.get() == e>{if e.is_empty() { "not sent" } else { e }}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    {text_field("Thinking budget", form.thinking_budget, "api-thinking-budget", "number", "narrow-field")}
                </Show>
                <label class="field check">
                    <input type="checkbox" data-testid="api-stream" prop:checked=move || form.stream.get() on:change=move |ev| form.stream.set(event_target_checked(&ev)) />
                    " stream"
                </label>
            </div>
            {move || {
                let left_out = form.left_out();
                (!left_out.is_empty()).then(|| view! {
                    <div class="notice small" data-testid="api-not-sent">
                        <span>"Not sent to this model (the run records it so):"</span>
                        <ul>{left_out.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
                    </div>
                })
            }}
            <Show when=move || form.is_in_browser()>
                <LocalModelPanel api=form />
            </Show>
            <Show when=move || form.is_simulated()>
                <div class="row-fields" data-testid="sim-settings">
                    {text_field("Simulated latency (ms)", form.sim_latency_ms, "sim-latency", "number", "narrow-field")}
                    {text_field("Every k-th sample wrong", form.sim_wrong_every, "sim-wrong-every", "number", "narrow-field")}
                </div>
                <p class="muted small">"The simulated model answers in this page with the dataset's own answers (every k-th sample wrong), after the latency, with token counts of one per four characters: try a whole run, Resume and costs without a key or a provider."</p>
            </Show>
            <div class="row-fields">
                <label class="field narrow-field">
                    <span class="label">"Input $ / 1M tokens"</span>
                    <input type="text" data-testid="price-in" placeholder=move || price_placeholder(form, true) prop:value=move || form.price_in.get() on:input=move |ev| form.price_in.set(event_target_value(&ev)) />
                </label>
                <label class="field narrow-field">
                    <span class="label">"Output $ / 1M tokens"</span>
                    <input type="text" data-testid="price-out" placeholder=move || price_placeholder(form, false) prop:value=move || form.price_out.get() on:input=move |ev| form.price_out.set(event_target_value(&ev)) />
                </label>
                {text_field("Spend cap ($)", form.spend_cap, "spend-cap", "text", "narrow-field")}
            </div>
            <p class="muted small" data-testid="price-source">{move || price_source(form)}</p>
            <Show when=move || {
                let over = form.concurrency.get().trim().parse::<u32>().is_ok_and(|c| c > BROWSER_CONNECTIONS_PER_HOST);
                over && form.base_url.get().trim().starts_with("http://")
            }>
                <p class="muted small" data-testid="api-connection-cap">
                    "Browsers open at most 6 connections to one server over plain http:// (HTTP/1.1): above 6, the extra requests wait in the browser. HTTPS servers speaking HTTP/2 have no such limit; the command line has none."
                </p>
            </Show>
            <div class="toolbar">
                <button data-testid="api-test" on:click=move |_| form.test_connection() disabled=move || form.testing.get()>
                    {move || if form.testing.get() { "Testing…" } else { "Test connection" }}
                </button>
                <Show when=move || !form.is_answered_here()>
                    <button data-testid="api-list-models" title="Ask the server which models it offers: they become the model field's suggestions" on:click=move |_| form.list_models()>
                        "List models"
                    </button>
                </Show>
            </div>
            {move || form.models.get().map(|listed| match listed {
                Ok(models) => view! {
                    <p class="muted small" data-testid="api-models">{match models.len() {
                        0 => "The server lists no models.".to_string(),
                        1 => format!("1 model: {} (suggested in the model field).", models[0]),
                        n => format!("{n} models, suggested in the model field: {}.", models.join(", ")),
                    }}</p>
                }.into_any(),
                Err(e) => view! { <p class="error-box small" role="alert" data-testid="api-models">{format!("No model list: {e}")}</p> }.into_any(),
            })}
            {verdict_view}
        </div>
    }
}

fn price_placeholder(form: ApiForm, input: bool) -> String {
    match form.known_price(&saved_prices()) {
        Some((price, _)) => format!("{:.4}", if input { price.input } else { price.output } * 1e6)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string(),
        None => "unknown".to_string(),
    }
}

/// Where the price comes from, in words, or what to do when none is known.
fn price_source(form: ApiForm) -> String {
    if !form.price_in.get().trim().is_empty() || !form.price_out.get().trim().is_empty() {
        return "Your price, kept in this browser for this model. Costs are shown before, during and after a run; the spend cap pauses the run before a request that could pass it.".to_string();
    }
    let table = PriceTable::bundled();
    match form.known_price(&saved_prices()) {
        Some((_, source)) => {
            format!("Price: {source}. Enter your own to override (bundled prices: {}, {}).", table.source, table.date)
        }
        None => "No price known for this model: enter one (dollars per 1M tokens) to see costs and use a spend cap."
            .to_string(),
    }
}
