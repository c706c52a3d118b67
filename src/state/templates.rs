//! The prompt templates' state: the built-ins and the custom templates this browser keeps (in
//! local storage), the selection, and unsaved drafts. The rules are
//! `execbench_eval::template_library`'s; the panel is `crate::components::evaluation::template_editor`.

use std::collections::BTreeMap;

use execbench_eval::Task;
use execbench_eval::prompt::Template;
use execbench_eval::template_library::{TemplateDraft, TemplateLibrary};
use leptos::prelude::*;

/// Where the custom templates are kept (`.v1`: a new storage format would get a new key).
pub const STORAGE_KEY: &str = "execbench.templates.v1";

/// The templates and the panel's state. Created once per page load, under the root owner, so the
/// selection and unsaved edits survive a visit to another page.
#[derive(Clone, Copy)]
pub struct TemplateState {
    pub library: RwSignal<TemplateLibrary>,
    /// The selected template's id.
    pub selected: RwSignal<String>,
    /// Unsaved edits of custom templates, by id: switching templates does not lose them.
    pub drafts: RwSignal<BTreeMap<String, TemplateDraft>>,
    /// Why the last Save was refused, and the template it was for.
    pub problems: RwSignal<Option<(String, Vec<String>)>>,
    pub notice: RwSignal<Option<String>>,
    pub error: RwSignal<Option<String>>,
}

impl TemplateState {
    /// The built-ins plus the custom templates this browser kept, with `first` selected.
    pub fn load(first: &str) -> TemplateState {
        let (library, message) = match read_stored() {
            Ok(stored) => TemplateLibrary::restore(stored.as_deref()),
            Err(e) => (
                TemplateLibrary::new(),
                Some(format!("this browser cannot keep custom templates ({e}); they last until the page is closed")),
            ),
        };
        TemplateState {
            library: RwSignal::new(library),
            selected: RwSignal::new(first.to_string()),
            drafts: RwSignal::new(BTreeMap::new()),
            problems: RwSignal::new(None),
            notice: RwSignal::new(None),
            error: RwSignal::new(message),
        }
    }

    pub fn select(self, id: String) {
        self.problems.set(None);
        self.selected.set(id);
    }

    /// Selects the first template for `task` (after the task changed).
    pub fn select_first(self, task: Task) {
        let first = self.library.with_untracked(|l| l.for_task(task).next().map(|t| t.id.clone())).unwrap_or_default();
        self.select(first);
    }

    /// The template an evaluation uses: the selected one, for `task`, with no unsaved edits (they
    /// would silently not be used).
    pub fn for_evaluation(self, task: Task) -> Result<Template, String> {
        let id = self.selected.get_untracked();
        let template = self
            .library
            .with_untracked(|l| l.get(&id).filter(|t| t.task == task).cloned())
            .ok_or(format!("no {} template `{id}`", task.words()))?;
        if self.has_unsaved_edits(&template) {
            return Err(format!("the template “{}” has unsaved changes: save or revert them first", template.name));
        }
        Ok(template)
    }

    pub fn has_unsaved_edits(self, template: &Template) -> bool {
        self.drafts.with_untracked(|d| d.get(&template.id).is_some_and(|draft| draft.apply_to(template) != *template))
    }

    /// Applies a change to a copy of the library; when it succeeds, the copy becomes the library
    /// and is kept in storage. A refused change leaves everything as it was.
    pub fn change<R, E>(self, change: impl FnOnce(&mut TemplateLibrary) -> Result<R, E>) -> Result<R, E> {
        let mut library = self.library.get_untracked();
        let result = change(&mut library)?;
        // Nothing is written when the library cannot be serialised: the saved templates stay.
        let stored = library.to_storage().and_then(|text| write_stored(&text));
        self.library.set(library);
        if let Err(e) = stored {
            self.complain(format!(
                "could not keep the custom templates in this browser ({e}); they last until the page is closed"
            ));
        }
        Ok(result)
    }

    pub fn say(self, notice: String) {
        self.error.set(None);
        self.notice.set(Some(notice));
    }

    pub fn complain(self, error: String) {
        self.notice.set(None);
        self.error.set(Some(error));
    }
}

fn local_storage() -> Result<web_sys::Storage, String> {
    let window = web_sys::window().ok_or("no window")?;
    window.local_storage().map_err(|e| format!("{e:?}"))?.ok_or_else(|| "no local storage".to_string())
}

fn read_stored() -> Result<Option<String>, String> {
    local_storage()?.get_item(STORAGE_KEY).map_err(|e| format!("{e:?}"))
}

fn write_stored(text: &str) -> Result<(), String> {
    local_storage()?.set_item(STORAGE_KEY, text).map_err(|e| format!("{e:?}"))
}
