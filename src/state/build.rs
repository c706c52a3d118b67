//! The Build page's form, kept while the app runs (the job's results are `crate::jobs::BuildJob`,
//! in app state).

use std::collections::BTreeSet;

use execbench_recipe::methods::all_methods;
use execbench_recipe::prompt::{DEFAULT_TEMPLATE, PromptTemplate, default_pool, pool_to_jsonl, read_pool};
use execbench_recipe::{Rule, SampleSpec};
use leptos::prelude::*;

use crate::jobs::build::GenerationPlan;
use crate::state::api_form::ApiForm;

/// A file the user gave, read: its name and what it held (or why not).
#[derive(Clone)]
pub enum Loaded<T> {
    None,
    Read { name: String, value: T, problems: Vec<String> },
}

/// The page's form, kept while the app runs (not across reloads: the job's results are not).
#[derive(Clone, Copy)]
pub struct BuildForm {
    pub source: RwSignal<String>,
    pub methods: RwSignal<BTreeSet<String>>,
    pub per_method: RwSignal<String>,
    pub seed: RwSignal<String>,
    pub template: RwSignal<String>,
    pub pool: RwSignal<String>,
    pub replay: RwSignal<Loaded<Vec<execbench_recipe::replay::GenerationRow>>>,
    pub candidates: RwSignal<Loaded<Vec<execbench_recipe::Candidate>>>,
    pub api: ApiForm,
    pub sample_n: RwSignal<String>,
    pub sample_seed: RwSignal<String>,
    pub balanced: RwSignal<bool>,
    pub rule: RwSignal<Option<Rule>>,
    pub form_error: RwSignal<Option<String>>,
}

thread_local! {
    /// The form, made once under the app's root owner: coming back to the page finds it as it was.
    static FORM: std::cell::OnceCell<BuildForm> = const { std::cell::OnceCell::new() };
}

pub fn build_form() -> BuildForm {
    FORM.with(|cell| *cell.get_or_init(|| super::under_root_owner(BuildForm::new)))
}

impl BuildForm {
    pub fn new() -> Self {
        BuildForm {
            source: RwSignal::new("offline".to_string()),
            methods: RwSignal::new(all_methods().into_iter().collect()),
            per_method: RwSignal::new("1".to_string()),
            seed: RwSignal::new("0".to_string()),
            template: RwSignal::new(DEFAULT_TEMPLATE.to_string()),
            pool: RwSignal::new(pool_to_jsonl(&default_pool())),
            replay: RwSignal::new(Loaded::None),
            candidates: RwSignal::new(Loaded::None),
            api: ApiForm::new(),
            sample_n: RwSignal::new(execbench_recipe::DEFAULT_N.to_string()),
            sample_seed: RwSignal::new("0".to_string()),
            balanced: RwSignal::new(false),
            rule: RwSignal::new(None),
            form_error: RwSignal::new(None),
        }
    }
}

/// A whole number from a field, named in the error.
pub fn number(field: &str, text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("{field}: `{}` is not a whole number", text.trim()))
}

impl BuildForm {
    pub fn plan(self) -> Result<GenerationPlan, String> {
        let methods: Vec<String> =
            all_methods().into_iter().filter(|m| self.methods.with_untracked(|s| s.contains(m))).collect();
        if methods.is_empty() {
            return Err("choose at least one method".to_string());
        }
        let per_method = number("candidates per method", &self.per_method.get_untracked())? as usize;
        if per_method == 0 {
            return Err("candidates per method: at least 1".to_string());
        }
        let seed = number("seed", &self.seed.get_untracked())?;
        let template =
            PromptTemplate::new(&self.template.get_untracked()).map_err(|e| format!("prompt template: {e}"))?;
        let (pool, errors) = read_pool("example pool", &self.pool.get_untracked());
        if let Some(e) = errors.first() {
            return Err(format!("{e}"));
        }
        Ok(GenerationPlan { methods, per_method, seed, template, pool })
    }

    pub fn spec(self) -> Result<SampleSpec, String> {
        let n = number("samples", &self.sample_n.get_untracked())? as usize;
        if n == 0 {
            return Err("samples: at least 1".to_string());
        }
        Ok(SampleSpec {
            n,
            seed: number("sampling seed", &self.sample_seed.get_untracked())?,
            balanced: self.balanced.get_untracked(),
        })
    }
}
