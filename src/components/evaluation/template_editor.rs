//! The template panel of the Evaluate page: the selected prompt template's name, messages and stop
//! sequences; built-ins read-only with "Edit a copy", custom templates editable (Save, Revert,
//! Delete); import and export as JSON; a preview of the prompt for the dataset's first sample.
//!
//! The rules (unique copy ids, what Save refuses, what an import adds or replaces) are
//! `execbench_eval::template_library`'s; this file keeps the custom templates in the browser's
//! local storage and shows the results.

use execbench_core::Sample;
use execbench_eval::Task;
use execbench_eval::template_library::{TemplateDraft, TemplateLibrary, stop_sequences_text};
use leptos::prelude::*;

use crate::state::templates::TemplateState;

/// A text field of the draft: the editor's inputs each set one.
type DraftField = fn(&mut TemplateDraft, String);

#[component]
pub fn TemplatePanel(
    state: TemplateState,
    #[prop(into)] task: Signal<Task>,
    #[prop(into)] sample: Signal<Option<Sample>>,
) -> impl IntoView {
    // The selected template and whether it is a built-in.
    let selected = Memo::new(move |_| {
        let id = state.selected.get();
        state.library.with(|l| l.get(&id).map(|t| (t.clone(), l.is_builtin(&id))))
    });
    let kind = Memo::new(move |_| selected.with(|s| s.as_ref().map(|(t, builtin)| (t.id.clone(), *builtin))));
    let is_custom = move || kind.with(|k| matches!(k, Some((_, false))));
    // The fields as the editor shows them: the unsaved edits, else the saved template.
    let draft = move || {
        let id = state.selected.get();
        state
            .drafts
            .with(|d| d.get(&id).cloned())
            .or_else(|| selected.with(|s| s.as_ref().map(|(t, _)| TemplateDraft::of(t))))
            .unwrap_or_default()
    };
    let unsaved = move || {
        selected.with(|s| {
            s.as_ref().is_some_and(|(t, builtin)| {
                !builtin && state.drafts.with(|d| d.get(&t.id).is_some_and(|draft| draft.apply_to(t) != *t))
            })
        })
    };
    let edit = move |field: DraftField| {
        move |ev: leptos::ev::Event| {
            let value = event_target_value(&ev);
            let mut edited = untrack(draft);
            field(&mut edited, value);
            let id = state.selected.get_untracked();
            state.drafts.update(|d| {
                d.insert(id, edited);
            });
        }
    };

    let copy = move |_| {
        let id = state.selected.get_untracked();
        match state.change(|l| l.add_copy_of(&id)) {
            Ok(copy) => {
                state.say(format!("Made `{}`, a copy of `{id}`: edit it below, then Save.", copy.id));
                state.select(copy.id);
            }
            Err(e) => state.complain(e),
        }
    };
    let save = move |_| {
        let Some((saved, false)) = selected.get_untracked() else { return };
        let edited = untrack(draft).apply_to(&saved);
        let name = edited.name.clone();
        match state.change(|l| l.save(edited)) {
            Ok(()) => {
                state.drafts.update(|d| {
                    d.remove(&saved.id);
                });
                state.problems.set(None);
                state.say(format!("Saved “{name}”."));
            }
            Err(problems) => state.problems.set(Some((saved.id, problems))),
        }
    };
    let revert = move |_| {
        let id = state.selected.get_untracked();
        state.drafts.update(|d| {
            d.remove(&id);
        });
        state.problems.set(None);
    };
    // Delete asks once more: a custom template may hold an afternoon's work.
    let confirm_delete = RwSignal::new(None::<String>);
    let delete = move |_| {
        let id = state.selected.get_untracked();
        if confirm_delete.get_untracked().as_ref() != Some(&id) {
            confirm_delete.set(Some(id));
            return;
        }
        confirm_delete.set(None);
        match state.change(|l| l.delete(&id)) {
            Ok(deleted) => {
                state.drafts.update(|d| {
                    d.remove(&id);
                });
                state.say(format!("Deleted “{}”.", deleted.name));
                state.select_first(deleted.task);
            }
            Err(e) => state.complain(e),
        }
    };
    let download = move |file_name: String, json: Option<String>| {
        let Some(json) = json else { return };
        if let Err(e) = crate::browser::download::download_text(&file_name, "application/json", &json) {
            state.complain(format!("download failed: {e}"));
        }
    };
    let export = move |_| {
        let id = state.selected.get_untracked();
        download(format!("{id}.json"), state.library.with_untracked(|l| l.export_one(&id)));
    };
    let export_custom = move |_| {
        download(
            "execbench-templates.json".to_string(),
            Some(state.library.with_untracked(TemplateLibrary::export_custom)),
        )
    };
    let import = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        // Cleared so that picking the same file again (after fixing it) imports it again.
        input.set_value("");
        leptos::task::spawn_local(async move {
            let name = file.name();
            let imported = match crate::browser::download::read_file_text(&file).await {
                Ok(text) => state.change(|l| l.import(&name, &text)),
                Err(e) => Err(e),
            };
            match imported {
                Ok(report) => {
                    state.drafts.update(|d| d.retain(|id, _| !report.replaced.contains(id)));
                    state.say(format!("Imported {}.", report.describe()));
                    // Show the first imported template when it is for the task at hand.
                    let task = task.get_untracked();
                    let first = state.library.with_untracked(|l| {
                        report
                            .added
                            .iter()
                            .chain(&report.replaced)
                            .find(|id| l.get(id).is_some_and(|t| t.task == task))
                            .cloned()
                    });
                    if let Some(id) = first {
                        state.select(id);
                    }
                }
                Err(e) => state.complain(e),
            }
        });
    };

    let readonly = move || {
        selected.get().map(|(t, _)| {
            view! {
                <div class="template-fields" data-testid="template-readonly">
                    <div class="field">
                        <span class="label">"System message"</span>
                        {match t.system.clone() {
                            Some(system) => view! { <pre class="template-text" data-testid="template-system-text">{system}</pre> }.into_any(),
                            None => view! { <span class="muted">"none"</span> }.into_any(),
                        }}
                    </div>
                    <div class="field">
                        <span class="label">"User message"</span>
                        <pre class="template-text" data-testid="template-text">{t.user.clone()}</pre>
                    </div>
                    <div class="field">
                        <span class="label">"Stop sequences"</span>
                        <pre class="template-text stops" data-testid="template-stops">{stop_sequences_text(&t.stop)}</pre>
                    </div>
                    <p class="muted">"Built-in templates are read-only: “Edit a copy” makes one you can change."</p>
                </div>
            }
        })
    };
    let editor = move || {
        let problems =
            move || state.problems.get().filter(|(id, _)| *id == state.selected.get()).map(|(_, problems)| problems);
        view! {
            <div class="template-fields" data-testid="template-editor">
                <label class="field">
                    <span class="label">"Name"</span>
                    <input type="text" data-testid="template-name-input" prop:value=move || draft().name on:input=edit(|d, v| d.name = v) />
                </label>
                <label class="field">
                    <span class="label">"System message (optional)"</span>
                    <textarea class="code-input" rows="2" spellcheck="false" data-testid="template-system" prop:value=move || draft().system on:input=edit(|d, v| d.system = v)></textarea>
                </label>
                <label class="field">
                    <span class="label">"User message"</span>
                    <textarea class="code-input" rows="12" spellcheck="false" data-testid="template-user" prop:value=move || draft().user on:input=edit(|d, v| d.user = v)></textarea>
                </label>
                <label class="field">
                    <span class="label">"Stop sequences"</span>
                    <textarea class="code-input" rows="2" spellcheck="false" data-testid="template-stop" prop:value=move || draft().stop on:input=edit(|d, v| d.stop = v)></textarea>
                    <span class="hint">"One a line. Inside one, " <code>"\\n"</code> " is a line break, " <code>"\\t"</code> " a tab, " <code>"\\\\"</code> " a backslash."</span>
                </label>
                <p class="muted placeholders">
                    "Placeholders, each replaced once and literally: " <code>"{code}"</code> " or " <code>"{program}"</code> ", " <code>"{call}"</code> ", "
                    <code>"{input}"</code> ", " <code>"{output}"</code> ", " <code>"{function_name}"</code> ". Output prediction needs " <code>"{call}"</code>
                    ", input prediction " <code>"{output}"</code> "."
                </p>
                {move || problems().map(|problems| view! {
                    <div class="error-box" role="alert" data-testid="template-problems">
                        {format!("Not saved: {}", if problems.len() == 1 { "1 problem" } else { "these problems" })}
                        <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                    </div>
                })}
                <div class="toolbar">
                    <button class="primary" data-testid="template-save" on:click=save disabled=move || !unsaved()>"Save"</button>
                    <button data-testid="template-revert" on:click=revert disabled=move || !unsaved()>"Revert"</button>
                    <Show when=unsaved>
                        <span class="unsaved" data-testid="template-unsaved">"unsaved changes"</span>
                    </Show>
                </div>
            </div>
        }
    };
    let preview = move || {
        let (template, builtin) = selected.get()?;
        let sample = sample.get()?;
        let shown = if builtin { template } else { draft().apply_to(&template) };
        let prompt = shown.render(&sample);
        let stops = if prompt.stop.is_empty() {
            "none".to_string()
        } else {
            prompt.stop.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
        };
        Some(view! {
            <details class="template-preview">
                <summary>{format!("Preview: the prompt for {}", sample.id)}</summary>
                <div data-testid="template-preview">
                    {prompt.messages.into_iter().map(|m| view! {
                        <div class="preview-message">
                            <span class="label">{m.role}</span>
                            <pre class="template-text">{m.content}</pre>
                        </div>
                    }).collect_view()}
                    <p class="muted">{format!("Stop sequences: {stops}")}</p>
                </div>
            </details>
        })
    };

    view! {
        <details class="template-panel" open=true data-testid="template-panel">
            <summary>
                "Template: "
                <span data-testid="template-name">{move || selected.with(|s| s.as_ref().map(|(t, _)| t.name.clone()).unwrap_or_default())}</span>
                {move || kind.get().map(|(id, builtin)| view! {
                    <span class={if builtin { "template-kind builtin" } else { "template-kind custom" }} data-testid="template-kind">{if builtin { "built-in" } else { "custom" }}</span>
                    <code class="template-id">{id}</code>
                })}
            </summary>
            <div class="toolbar">
                <button data-testid="template-copy" on:click=copy disabled=move || kind.with(Option::is_none)>"Edit a copy"</button>
                <Show when=is_custom>
                    <button data-testid="template-delete" on:click=delete>
                        {move || if confirm_delete.get() == Some(state.selected.get()) { "Really delete?" } else { "Delete" }}
                    </button>
                </Show>
                <button data-testid="template-export" on:click=export disabled=move || kind.with(Option::is_none)>"Export"</button>
                <Show when=move || state.library.with(|l| !l.custom().is_empty())>
                    <button data-testid="template-export-custom" on:click=export_custom>"Export all custom"</button>
                </Show>
                <label class="button">
                    "Import templates…"
                    <input type="file" class="visually-hidden" data-testid="template-import" accept=".json,application/json" on:change=import />
                </label>
            </div>
            {move || state.notice.get().map(|n| view! { <p class="notice" data-testid="template-notice">{n}</p> })}
            {move || state.error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="template-error">{e}</p> })}
            {move || match kind.get() {
                None => view! { <p class="muted">"No template selected."</p> }.into_any(),
                Some((_, true)) => readonly().into_any(),
                Some((_, false)) => editor().into_any(),
            }}
            {preview}
        </details>
    }
}
