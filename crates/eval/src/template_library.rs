//! The templates a user can pick from: the built-ins, read-only, and the user's own (custom)
//! templates, which can be copied from any template, edited, deleted, imported and exported.
//!
//! Everything here is text in, text out: the page keeps the custom list in its storage as the text
//! [`TemplateLibrary::to_storage`] gives and hands it back to [`TemplateLibrary::restore`].
//! Nothing a user types or imports can make these functions panic; every refusal says why.

use serde::Deserialize;

use crate::prompt::{Template, builtin_templates};
use crate::task::Task;

/// Built-in templates, then custom ones. Ids are unique across both lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateLibrary {
    builtins: Vec<Template>,
    custom: Vec<Template>,
}

/// What an import changed, by id, in the file's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub file: String,
    pub added: Vec<String>,
    pub replaced: Vec<String>,
}

impl ImportReport {
    /// `templates.json: added `a`, `b`; replaced `c``.
    pub fn describe(&self) -> String {
        let ids = |ids: &[String]| ids.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ");
        let mut parts = Vec::new();
        if !self.added.is_empty() {
            parts.push(format!("added {}", ids(&self.added)));
        }
        if !self.replaced.is_empty() {
            parts.push(format!("replaced {}", ids(&self.replaced)));
        }
        format!("{}: {}", self.file, parts.join("; "))
    }
}

/// The editable fields of a template as the editor shows them: the stop list as one sequence a
/// line (see [`stop_sequences_text`]), no system message as empty text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateDraft {
    pub name: String,
    pub system: String,
    pub user: String,
    pub stop: String,
}

impl TemplateDraft {
    pub fn of(template: &Template) -> TemplateDraft {
        TemplateDraft {
            name: template.name.clone(),
            system: template.system.clone().unwrap_or_default(),
            user: template.user.clone(),
            stop: stop_sequences_text(&template.stop),
        }
    }

    /// `template` with the draft's fields; its id, task and style stay.
    pub fn apply_to(&self, template: &Template) -> Template {
        Template {
            name: self.name.trim().to_string(),
            system: (!self.system.trim().is_empty()).then(|| self.system.clone()),
            user: self.user.clone(),
            stop: parse_stop_sequences(&self.stop),
            ..template.clone()
        }
    }
}

const COPY_SUFFIX: &str = "-copy";
const COPY_NAME_SUFFIX: &str = " (copy)";

impl Default for TemplateLibrary {
    fn default() -> Self {
        TemplateLibrary::new()
    }
}

impl TemplateLibrary {
    /// The built-ins and no custom templates.
    pub fn new() -> TemplateLibrary {
        TemplateLibrary { builtins: builtin_templates(), custom: Vec::new() }
    }

    pub fn custom(&self) -> &[Template] {
        &self.custom
    }

    /// The templates for a task: built-ins first, then custom ones in the order they were added.
    pub fn for_task(&self, task: Task) -> impl Iterator<Item = &Template> {
        self.builtins.iter().chain(&self.custom).filter(move |t| t.task == task)
    }

    pub fn get(&self, id: &str) -> Option<&Template> {
        self.builtins.iter().chain(&self.custom).find(|t| t.id == id)
    }

    pub fn is_builtin(&self, id: &str) -> bool {
        self.builtins.iter().any(|t| t.id == id)
    }

    /// Adds an editable copy of template `id` to the custom ones and returns it. Its id is the
    /// original's plus `-copy` (then `-copy-2`, `-copy-3`, … while taken; a copy of a copy counts
    /// on from the same stem), its name the original's plus ` (copy)`.
    pub fn add_copy_of(&mut self, id: &str) -> Result<Template, String> {
        let original = self.get(id).ok_or(format!("there is no template `{id}` to copy"))?;
        let stem = copy_stem(&original.id);
        let new_id = (1..)
            .map(|n| if n == 1 { format!("{stem}{COPY_SUFFIX}") } else { format!("{stem}{COPY_SUFFIX}-{n}") })
            .find(|candidate| self.get(candidate).is_none())
            .unwrap_or_default();
        let name = if original.name.ends_with(COPY_NAME_SUFFIX) {
            original.name.clone()
        } else {
            format!("{}{COPY_NAME_SUFFIX}", original.name)
        };
        let copy = Template { id: new_id, name, ..original.clone() };
        self.custom.push(copy.clone());
        Ok(copy)
    }

    /// Saves a custom template, replacing the one with its id or adding it. Refused, with every
    /// reason, when it is unusable or its id is a built-in's.
    pub fn save(&mut self, template: Template) -> Result<(), Vec<String>> {
        let problems = self.problems_of(&template);
        if !problems.is_empty() {
            return Err(problems);
        }
        self.put(template);
        Ok(())
    }

    /// Why `template` cannot be a custom template: [`Template::problems`], an empty name, a
    /// built-in's id.
    pub fn problems_of(&self, template: &Template) -> Vec<String> {
        let mut problems = Vec::new();
        if self.is_builtin(&template.id) {
            problems.push(format!(
                "`{}` is the id of a built-in template, which cannot be changed: make a copy and edit that",
                template.id
            ));
        }
        if template.name.trim().is_empty() {
            problems.push("the name is empty".to_string());
        }
        problems.extend(template.problems());
        problems
    }

    fn put(&mut self, template: Template) -> bool {
        match self.custom.iter_mut().find(|t| t.id == template.id) {
            Some(existing) => {
                *existing = template;
                true
            }
            None => {
                self.custom.push(template);
                false
            }
        }
    }

    /// Deletes a custom template and returns it.
    pub fn delete(&mut self, id: &str) -> Result<Template, String> {
        if self.is_builtin(id) {
            return Err(format!("`{id}` is a built-in template and cannot be deleted"));
        }
        let index = self.custom.iter().position(|t| t.id == id).ok_or(format!("there is no custom template `{id}`"))?;
        Ok(self.custom.remove(index))
    }

    /// Imports one template or a list of them from the text of `file`. All or nothing: a file with
    /// any refused template changes nothing, and the error names the file and the template. A
    /// template with a custom template's id replaces it; a built-in's id is refused.
    pub fn import(&mut self, file: &str, text: &str) -> Result<ImportReport, String> {
        let templates = Template::import_json(text).map_err(|e| format!("{file}: {e}"))?;
        if templates.is_empty() {
            return Err(format!("{file}: the file has no templates"));
        }
        for (index, template) in templates.iter().enumerate() {
            if templates[..index].iter().any(|t| t.id == template.id) {
                return Err(format!("{file}: template `{}` appears twice", template.id));
            }
            let problems = self.problems_of(template);
            if !problems.is_empty() {
                return Err(format!("{file}: template `{}`: {}", template.id, problems.join("; ")));
            }
        }
        let mut report = ImportReport { file: file.to_string(), ..ImportReport::default() };
        for template in templates {
            let id = template.id.clone();
            if self.put(template) { report.replaced.push(id) } else { report.added.push(id) }
        }
        Ok(report)
    }

    /// The custom templates as a JSON array that [`TemplateLibrary::import`] reads back.
    pub fn export_custom(&self) -> String {
        serde_json::to_string_pretty(&self.custom).unwrap_or_default()
    }

    /// One template (built-in or custom) as JSON that [`TemplateLibrary::import`] reads back.
    pub fn export_one(&self, id: &str) -> Option<String> {
        self.get(id).map(Template::to_json)
    }

    /// The custom templates, for the page's storage. A failure is an error, never an empty text:
    /// written to storage, that would replace the templates saved before.
    pub fn to_storage(&self) -> Result<String, String> {
        serde_json::to_string(&self.custom)
            .map_err(|e| format!("the custom templates could not be written as JSON: {e}"))
    }

    /// The library with the custom templates saved by [`TemplateLibrary::to_storage`] (`None`:
    /// nothing saved yet), and a message for the user when some or all of them could not be read.
    /// Unreadable text gives no custom templates; an unusable entry is left out and named.
    pub fn restore(stored: Option<&str>) -> (TemplateLibrary, Option<String>) {
        let mut library = TemplateLibrary::new();
        let Some(text) = stored.filter(|t| !t.trim().is_empty()) else { return (library, None) };
        let entries = match serde_json::from_str::<Vec<serde_json::Value>>(text) {
            Ok(entries) => entries,
            Err(e) => {
                return (
                    library,
                    Some(format!("the saved templates could not be read ({e}); starting with no custom templates")),
                );
            }
        };
        let mut dropped = Vec::new();
        for (index, entry) in entries.into_iter().enumerate() {
            let template = match Template::deserialize(&entry) {
                Ok(template) => template,
                Err(e) => {
                    dropped.push(format!("saved template {}: {e}", index + 1));
                    continue;
                }
            };
            let mut problems = library.problems_of(&template);
            if library.custom.iter().any(|t| t.id == template.id) {
                problems.push("its id appears twice".to_string());
            }
            if problems.is_empty() {
                library.custom.push(template);
            } else {
                dropped.push(format!("saved template `{}`: {}", template.id, problems.join("; ")));
            }
        }
        let message = (!dropped.is_empty())
            .then(|| format!("left out {} of the saved templates: {}", dropped.len(), dropped.join(" · ")));
        (library, message)
    }
}

/// `output-direct-copy-2` → `output-direct`: copies of copies count on from the original's id.
fn copy_stem(id: &str) -> &str {
    if let Some(stem) = id.strip_suffix(COPY_SUFFIX) {
        return stem;
    }
    match id.rsplit_once(&format!("{COPY_SUFFIX}-")) {
        Some((stem, number)) if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => id,
    }
}

/// Reads a stop-sequence field: one sequence a line, blank lines skipped, repeats dropped. Inside a
/// line `\n` is a line break, `\t` a tab and `\\` a backslash; any other backslash stays as typed.
pub fn parse_stop_sequences(text: &str) -> Vec<String> {
    let mut stops: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let stop = unescape(line);
        if !stops.contains(&stop) {
            stops.push(stop);
        }
    }
    stops
}

/// The stop list as [`parse_stop_sequences`] reads it back.
pub fn stop_sequences_text(stops: &[String]) -> String {
    stops
        .iter()
        .map(|s| s.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r").replace('\t', "\\t"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.clone().next() {
            Some(next @ ('n' | 't' | 'r' | '\\')) => {
                chars.next();
                out.push(match next {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    _ => '\\',
                });
            }
            _ => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::{ANSWER_STOP, Style};

    fn custom(id: &str, task: Task) -> Template {
        let user = match task {
            Task::Output => "{code}\nassert {call} == ??",
            Task::Input => "{code}\nassert f(??) == {output}",
            Task::Question => "{numbered_code}\n{call}\n{question}",
        };
        Template {
            id: id.into(),
            name: format!("Mine: {id}"),
            task,
            style: Style::Direct,
            system: None,
            user: user.into(),
            stop: vec![ANSWER_STOP.into()],
        }
    }

    fn library_with(customs: &[Template]) -> TemplateLibrary {
        let mut library = TemplateLibrary::new();
        for t in customs {
            library.save(t.clone()).unwrap();
        }
        library
    }

    fn ids<'a>(templates: impl Iterator<Item = &'a Template>) -> Vec<&'a str> {
        templates.map(|t| t.id.as_str()).collect()
    }

    #[test]
    fn lists_builtins_first_then_custom_by_task() {
        let library =
            library_with(&[custom("b-out", Task::Output), custom("a-in", Task::Input), custom("a-out", Task::Output)]);
        assert_eq!(
            ids(library.for_task(Task::Output)),
            ["output-direct", "output-cot", "output-zero-shot", "b-out", "a-out"]
        );
        assert_eq!(ids(library.for_task(Task::Input)), ["input-direct", "input-cot", "a-in"]);
        assert!(library.is_builtin("output-cot") && !library.is_builtin("a-out"));
        assert_eq!(library.get("a-in").map(|t| t.task), Some(Task::Input));
        assert_eq!(library.get("nope"), None);
    }

    /// (customs already there, template to copy, id of the copy, name of the copy)
    #[test]
    fn copies_get_unique_ids_and_copy_names() {
        let cases: &[(&[&str], &str, &str, &str)] = &[
            (&[], "output-direct", "output-direct-copy", "Output prediction, direct (2 examples) (copy)"),
            (
                &["output-direct-copy"],
                "output-direct",
                "output-direct-copy-2",
                "Output prediction, direct (2 examples) (copy)",
            ),
            (
                &["output-direct-copy", "output-direct-copy-2"],
                "output-direct-copy",
                "output-direct-copy-3",
                "Mine: output-direct-copy (copy)",
            ),
            (
                &["output-direct-copy", "output-direct-copy-2"],
                "output-direct-copy-2",
                "output-direct-copy-3",
                "Mine: output-direct-copy-2 (copy)",
            ),
            (&["mine"], "mine", "mine-copy", "Mine: mine (copy)"),
            (&["mine-copy-x"], "mine-copy-x", "mine-copy-x-copy", "Mine: mine-copy-x (copy)"),
            (&["input-cot-copy"], "input-cot", "input-cot-copy-2", "Input prediction, chain of thought (copy)"),
        ];
        for (existing, original, id, name) in cases {
            let customs: Vec<Template> = existing
                .iter()
                .map(|id| custom(id, if id.starts_with("input") { Task::Input } else { Task::Output }))
                .collect();
            let mut library = library_with(&customs);
            let copy = library.add_copy_of(original).unwrap();
            assert_eq!((copy.id.as_str(), copy.name.as_str()), (*id, *name), "copy of {original} with {existing:?}");
            let source = library.get(original).unwrap().clone();
            assert_eq!(
                (copy.task, copy.style, &copy.user, &copy.stop),
                (source.task, source.style, &source.user, &source.stop)
            );
            assert_eq!(library.custom().last(), Some(&copy), "the copy is a custom template");
        }
        // A copy of a copy that is already named "(copy)" keeps its name.
        let mut library = TemplateLibrary::new();
        library.add_copy_of("output-cot").unwrap();
        assert_eq!(library.add_copy_of("output-cot-copy").unwrap().name, "Output prediction, chain of thought (copy)");
        assert_eq!(library.add_copy_of("missing").unwrap_err(), "there is no template `missing` to copy");
    }

    #[test]
    fn save_replaces_or_adds_and_refuses_with_reasons() {
        let mut library = TemplateLibrary::new();
        let copy = library.add_copy_of("output-direct").unwrap();
        let edited = Template { user: format!("MARKER\n{}", copy.user), ..copy.clone() };
        library.save(edited.clone()).unwrap();
        assert_eq!(library.custom(), std::slice::from_ref(&edited));
        library.save(custom("other", Task::Input)).unwrap();
        assert_eq!(ids(library.custom().iter()), ["output-direct-copy", "other"]);

        // (the template, the reasons it is refused)
        let cases: Vec<(Template, Vec<&str>)> = vec![
            (
                Template { user: "{code}".into(), ..copy.clone() },
                vec!["no {call} placeholder, which the output task needs"],
            ),
            (
                Template { user: "   ".into(), ..copy.clone() },
                vec![
                    "the user message is empty",
                    "no {code}, {program} or {numbered_code} placeholder: the model would not see the program",
                    "no {call} placeholder, which the output task needs",
                ],
            ),
            (Template { name: " ".into(), ..copy.clone() }, vec!["the name is empty"]),
            (Template { id: "".into(), ..copy.clone() }, vec!["the id is empty"]),
            (
                Template { id: "output-direct".into(), ..copy.clone() },
                vec![
                    "`output-direct` is the id of a built-in template, which cannot be changed: make a copy and edit that",
                ],
            ),
            (
                Template { task: Task::Input, ..copy.clone() },
                vec!["no {output} placeholder, which the input task needs"],
            ),
        ];
        for (template, reasons) in cases {
            assert_eq!(library.save(template.clone()).unwrap_err(), reasons, "{template:?}");
        }
        assert_eq!(library.custom()[0], edited, "a refused save changes nothing");
    }

    #[test]
    fn delete_only_custom_templates() {
        let mut library = library_with(&[custom("a", Task::Output), custom("b", Task::Output)]);
        assert_eq!(library.delete("a").unwrap().id, "a");
        assert_eq!(ids(library.custom().iter()), ["b"]);
        let cases: &[(&str, &str)] = &[
            ("a", "there is no custom template `a`"),
            ("output-direct", "`output-direct` is a built-in template and cannot be deleted"),
        ];
        for (id, error) in cases {
            assert_eq!(library.delete(id).unwrap_err(), *error);
        }
        assert_eq!(library.for_task(Task::Output).count(), 4);
    }

    #[test]
    fn import_adds_replaces_and_refuses_whole_files() {
        let mut library = library_with(&[custom("kept", Task::Output), custom("old", Task::Output)]);
        let new_old = Template { name: "Old, renewed".into(), ..custom("old", Task::Output) };
        let file = serde_json::to_string(&[custom("fresh", Task::Input), new_old.clone()]).unwrap();
        let report = library.import("templates.json", &file).unwrap();
        assert_eq!(
            report,
            ImportReport { file: "templates.json".into(), added: vec!["fresh".into()], replaced: vec!["old".into()] }
        );
        assert_eq!(report.describe(), "templates.json: added `fresh`; replaced `old`");
        assert_eq!(ids(library.custom().iter()), ["kept", "old", "fresh"]);
        assert_eq!(library.get("old"), Some(&new_old));
        // One template, not in a list.
        let one = library.import("one.json", &custom("single", Task::Output).to_json()).unwrap();
        assert_eq!(one.describe(), "one.json: added `single`");

        let before = library.clone();
        let no_call = r#"{"id": "x", "name": "x", "task": "output", "style": "direct", "user": "{code}"}"#;
        let builtin = builtin_templates()[0].to_json();
        let twice = serde_json::to_string(&[custom("t", Task::Output), custom("t", Task::Output)]).unwrap();
        let one_bad = serde_json::to_string(&vec![
            serde_json::to_value(custom("good", Task::Output)).unwrap(),
            serde_json::from_str(no_call).unwrap(),
        ])
        .unwrap();
        let nameless =
            serde_json::to_string(&Template { name: "".into(), ..custom("nameless", Task::Output) }).unwrap();
        let cases: &[(&str, &str)] = &[
            (no_call, "templates.json: template `x`: no {call} placeholder, which the output task needs"),
            (
                &builtin,
                "templates.json: template `output-direct`: `output-direct` is the id of a built-in template, which cannot be changed: make a copy and edit that",
            ),
            (&twice, "templates.json: template `t` appears twice"),
            (&one_bad, "templates.json: template `x`: no {call} placeholder, which the output task needs"),
            (&nameless, "templates.json: template `nameless`: the name is empty"),
            ("[]", "templates.json: the file has no templates"),
            ("", "templates.json: not valid JSON: EOF while parsing a value at line 1 column 0"),
            ("{\"id\": 3}", "templates.json: not a template: invalid type: integer `3`, expected a string"),
            ("[1]", "templates.json: not a template: invalid type: integer `1`, expected struct Template"),
        ];
        for (text, error) in cases {
            assert_eq!(library.import("templates.json", text).unwrap_err(), *error, "{text}");
        }
        assert_eq!(library, before, "a refused file changes nothing");
    }

    #[test]
    fn exports_read_back_the_same() {
        let mut library = TemplateLibrary::new();
        let copy = library.add_copy_of("output-cot").unwrap();
        let braces = Template {
            system: Some("You are {function_name}'s judge.\n\"quoted\" \\ {}".into()),
            stop: vec!["[/ANSWER]".into(), "\n\n".into()],
            ..copy
        };
        library.save(braces.clone()).unwrap();
        library.save(custom("in-mine", Task::Input)).unwrap();

        let mut elsewhere = TemplateLibrary::new();
        let report = elsewhere.import("all.json", &library.export_custom()).unwrap();
        assert_eq!(report.added, ["output-cot-copy", "in-mine"]);
        assert_eq!(elsewhere, library);

        let mut one = TemplateLibrary::new();
        one.import("one.json", &library.export_one("output-cot-copy").unwrap()).unwrap();
        assert_eq!(one.custom(), [braces]);
        assert_eq!(library.export_one("nope"), None);
        // A built-in's export reads as that template (importing it as custom is refused).
        assert_eq!(
            Template::import_json(&library.export_one("input-direct").unwrap()).unwrap()[0],
            *library.get("input-direct").unwrap()
        );
        assert_eq!(TemplateLibrary::new().export_custom(), "[]");
    }

    #[test]
    fn storage_round_trip_and_bad_stored_text() {
        let mut library = TemplateLibrary::new();
        library.add_copy_of("input-direct").unwrap();
        library.save(custom("mine", Task::Output)).unwrap();
        assert_eq!(TemplateLibrary::restore(Some(&library.to_storage().unwrap())), (library.clone(), None));

        let good = serde_json::to_value(custom("good", Task::Output)).unwrap();
        let unusable =
            serde_json::to_value(Template { user: "{code}".into(), ..custom("unusable", Task::Output) }).unwrap();
        let builtin = serde_json::to_value(&builtin_templates()[1]).unwrap();
        let entries = |values: Vec<serde_json::Value>| serde_json::to_string(&values).unwrap();
        // (stored text, custom ids restored, message)
        let cases: Vec<(Option<String>, Vec<&str>, Option<&str>)> = vec![
            (None, vec![], None),
            (Some("".into()), vec![], None),
            (
                Some("[not json".into()),
                vec![],
                Some(
                    "the saved templates could not be read (expected ident at line 1 column 3); starting with no custom templates",
                ),
            ),
            (
                Some("{\"a\": 1}".into()),
                vec![],
                Some(
                    "the saved templates could not be read (invalid type: map, expected a sequence at line 1 column 0); starting with no custom templates",
                ),
            ),
            (
                Some(entries(vec![good.clone(), serde_json::json!(7), good.clone()])),
                vec!["good"],
                Some(
                    "left out 2 of the saved templates: saved template 2: invalid type: integer `7`, expected struct Template · saved template `good`: its id appears twice",
                ),
            ),
            (
                Some(entries(vec![unusable, builtin, good])),
                vec!["good"],
                Some(
                    "left out 2 of the saved templates: saved template `unusable`: no {call} placeholder, which the output task needs · saved template `output-cot`: `output-cot` is the id of a built-in template, which cannot be changed: make a copy and edit that",
                ),
            ),
        ];
        for (stored, restored, message) in cases {
            let (library, got) = TemplateLibrary::restore(stored.as_deref());
            assert_eq!(ids(library.custom().iter()), restored, "{stored:?}");
            assert_eq!(got.as_deref(), message, "{stored:?}");
            assert_eq!(library.for_task(Task::Input).count(), 2, "the built-ins are always there");
        }
    }

    /// (field text, stop list)
    #[test]
    fn stop_sequences_one_a_line_with_escapes() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("[/ANSWER]", &["[/ANSWER]"]),
            ("[/ANSWER]\n\n  \n```\r\n", &["[/ANSWER]", "```"]),
            ("a\na\nb", &["a", "b"]),
            ("\\n\\n\n\\nassert", &["\n\n", "\nassert"]),
            ("tab\\there\\\\n \\d \\", &["tab\there\\n \\d \\"]),
            ("  leading and trailing  ", &["  leading and trailing  "]),
        ];
        for (text, stops) in cases {
            assert_eq!(parse_stop_sequences(text), *stops, "{text:?}");
        }
        // (stop list, field text): the text reads back as the same list.
        let lists: &[&[&str]] = &[&[], &["[/ANSWER]"], &["\n\n", "\\n literally", "a\tb", "\r\n", "back\\"]];
        for stops in lists {
            let stops: Vec<String> = stops.iter().map(|s| s.to_string()).collect();
            assert_eq!(parse_stop_sequences(&stop_sequences_text(&stops)), stops);
        }
        assert_eq!(stop_sequences_text(&["[/ANSWER]".into(), "\n\n".into()]), "[/ANSWER]\n\\n\\n");
    }

    #[test]
    fn drafts_edit_the_text_fields_only() {
        let original = Template {
            system: Some("sys".into()),
            stop: vec!["[/ANSWER]".into(), "\n".into()],
            ..custom("d", Task::Input)
        };
        let draft = TemplateDraft::of(&original);
        assert_eq!(
            draft,
            TemplateDraft {
                name: "Mine: d".into(),
                system: "sys".into(),
                user: original.user.clone(),
                stop: "[/ANSWER]\n\\n".into()
            }
        );
        assert_eq!(draft.apply_to(&original), original);
        let edited = TemplateDraft {
            name: "  Renamed ".into(),
            system: " \n".into(),
            user: "new {code} {output}".into(),
            stop: "".into(),
        }
        .apply_to(&original);
        assert_eq!(
            edited,
            Template {
                name: "Renamed".into(),
                system: None,
                user: "new {code} {output}".into(),
                stop: vec![],
                ..original
            }
        );
    }
}
