//! The Evaluate form's choices (model, task, template, n, how many samples, scoring modes), kept in
//! `localStorage` so a reload or the next visit finds the form as the user left it. No key and no
//! file is in it: the model API's own settings (and a key, only when "remember" is ticked) are
//! kept by `api_form.rs`, and a replay file must be picked again.

use execbench_eval::Task;
use serde::{Deserialize, Serialize};

pub const STORAGE_KEY: &str = "execbench.evaluate-form";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FormSettings {
    /// The model choice's value (`oracle`, `api`, …).
    pub model: String,
    pub task: Task,
    /// The selected template's id.
    pub template: String,
    pub n: String,
    /// Empty: the whole dataset.
    pub limit: String,
    pub strict: bool,
    pub compatible: bool,
}

impl Default for FormSettings {
    fn default() -> Self {
        FormSettings {
            model: "oracle".into(),
            task: Task::Output,
            template: "output-direct".into(),
            n: "5".into(),
            limit: String::new(),
            strict: true,
            compatible: true,
        }
    }
}

impl FormSettings {
    /// The settings stored, or the defaults where nothing (or nothing readable) is: the form
    /// always opens. A field that is missing or of the wrong shape falls back on its own.
    pub fn parse(stored: Option<&str>) -> FormSettings {
        let Some(Ok(serde_json::Value::Object(fields))) = stored.map(serde_json::from_str::<serde_json::Value>) else {
            return FormSettings::default();
        };
        let mut settings = FormSettings::default();
        let field = |name: &str| fields.get(name).cloned();
        let take = |name: &str| field(name).and_then(|v| v.as_str().map(str::to_string));
        if let Some(v) = take("model") {
            settings.model = v;
        }
        if let Some(task) = field("task").and_then(|v| serde_json::from_value::<Task>(v).ok()) {
            settings.task = task;
        }
        if let Some(v) = take("template") {
            settings.template = v;
        }
        if let Some(v) = take("n") {
            settings.n = v;
        }
        if let Some(v) = take("limit") {
            settings.limit = v;
        }
        if let Some(v) = field("strict").and_then(|v| v.as_bool()) {
            settings.strict = v;
        }
        if let Some(v) = field("compatible").and_then(|v| v.as_bool()) {
            settings.compatible = v;
        }
        settings
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_settings_are_read_back_and_anything_else_gives_defaults() {
        let chosen = FormSettings {
            model: "api".into(),
            task: Task::Input,
            template: "input-cot".into(),
            n: "3".into(),
            limit: "20".into(),
            strict: false,
            compatible: true,
        };
        let partial = FormSettings { n: "10".into(), ..FormSettings::default() };
        let cases: [(Option<&str>, FormSettings); 6] = [
            (None, FormSettings::default()),
            (Some("not json"), FormSettings::default()),
            (Some("[1, 2]"), FormSettings::default()),
            (Some(&chosen.to_json()), chosen.clone()),
            // A field missing, or of another shape (an older or a hand-edited value), keeps its default.
            (Some(r#"{"n": "10", "task": "sideways", "strict": "yes"}"#), partial.clone()),
            (Some(r#"{"n": "10", "model": 7}"#), partial),
        ];
        for (stored, expected) in cases {
            assert_eq!(FormSettings::parse(stored), expected, "{stored:?}");
        }
    }
}
