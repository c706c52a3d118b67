//! The "In this browser (no key)" part of the model form: pick a model, see its size, Download
//! (progress, checksum), and the files kept in this browser with Remove. Its state is
//! `crate::state::local_model::LocalModelForm`; showing it starts the model worker.

use execbench_model_files::catalogue::catalogue;
use execbench_model_files::download::{human_bytes, progress_text};
use leptos::prelude::*;

use crate::state::api_form::ApiForm;
use crate::state::local_model::{CUSTOM, LocalModelForm};

#[component]
pub fn LocalModelPanel(api: ApiForm) -> impl IntoView {
    let form = LocalModelForm::new(api);
    // The form's model name is the chosen model's.
    if let Ok(spec) = form.spec() {
        api.model.set(spec.id);
    }
    form.refresh();
    let text_field = move |label: &'static str, signal: RwSignal<String>, testid: &'static str| {
        view! {
            <label class="field grow">
                <span class="label">{label}</span>
                <input type="text" data-testid=testid prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev)) />
            </label>
        }
    };
    let note = move || {
        let choice = form.choice.get();
        catalogue().into_iter().find(|m| m.id == choice).and_then(|m| m.note)
    };
    let kept_rows = move || {
        form.kept.get().into_iter().map(|file| {
            let name = file.url.rsplit('/').next().unwrap_or(&file.url).to_string();
            let state = if file.complete {
                if file.sha256.is_some() { "complete, SHA-256 checked".to_string() } else { "complete, unchecked".to_string() }
            } else {
                format!("partial: {} (Download resumes it)", progress_text(file.received(), file.total))
            };
            let url = file.url.clone();
            view! {
                <tr data-testid="local-kept-row" data-complete=file.complete.to_string()>
                    <td title=file.url.clone()>{name}</td>
                    <td>{human_bytes(file.received())}</td>
                    <td>{state}</td>
                    <td><button data-testid="local-remove" on:click=move |_| form.remove(url.clone())>"Remove"</button></td>
                </tr>
            }
        }).collect_view()
    };
    view! {
        <div class="local-model" data-testid="local-model">
            <p class="muted small">"The model runs in this page, in a worker of its own: no key, no server, nothing sent anywhere. Its files are downloaded once from their public address (nothing before you click Download) and kept in this browser."</p>
            <div class="row-fields">
                <label class="field grow">
                    <span class="label">"In-browser model"</span>
                    <select data-testid="local-choice" on:change=move |ev| form.pick(api, event_target_value(&ev))>
                        {catalogue().into_iter().map(|m| {
                            let id = m.id.clone();
                            view! { <option value=m.id.clone() selected=move || form.choice.get() == id>{m.label}</option> }
                        }).collect_view()}
                        <option value=CUSTOM selected=move || form.choice.get() == CUSTOM>"Custom: URL + SHA-256"</option>
                    </select>
                </label>
            </div>
            {move || note().map(|n| view! { <p class="muted small">{n}</p> })}
            <Show when=move || form.choice.get() == CUSTOM>
                <div class="row-fields">
                    {text_field("GGUF URL", form.gguf_url, "local-gguf-url")}
                    {text_field("GGUF SHA-256", form.gguf_sha256, "local-gguf-sha256")}
                </div>
                <div class="row-fields">
                    {text_field("tokenizer.json URL (optional)", form.tokenizer_url, "local-tokenizer-url")}
                    {text_field("tokenizer.json SHA-256 (optional)", form.tokenizer_sha256, "local-tokenizer-sha256")}
                </div>
                <p class="muted small">"The GGUF file carries its tokenizer: leave the tokenizer.json fields empty to use it, or give a tokenizer.json to use instead."</p>
            </Show>
            <p class="stats" data-testid="local-size">{move || match form.size.get() {
                Some(size) => format!("Size: {size}"),
                None => "Size: not known yet (Check size asks the server, without downloading)".to_string(),
            }}</p>
            <div class="toolbar">
                <button data-testid="local-check-size" on:click=move |_| form.check_size() disabled=move || form.busy.get()>"Check size"</button>
                <button data-testid="local-download" on:click=move |_| form.download(api) disabled=move || form.busy.get()>
                    {move || if form.busy.get() { "Working…" } else { "Download" }}
                </button>
            </div>
            {move || form.progress.get().map(|p| view! { <p class="stats muted" role="status" data-testid="local-progress">{p}</p> })}
            {move || form.said.get().map(|(ok, text, serial)| view! {
                <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="local-said" data-ok=ok.to_string() data-serial=serial>{text}</p>
            })}
            {move || if form.kept.with(Vec::is_empty) {
                view! { <p class="muted small" data-testid="local-kept">"Nothing is kept in this browser yet."</p> }.into_any()
            } else {
                view! {
                    <table class="local-kept" data-testid="local-kept">
                        <caption class="muted small">"Kept in this browser"</caption>
                        <tbody>{kept_rows}</tbody>
                    </table>
                }.into_any()
            }}
        </div>
    }
}
