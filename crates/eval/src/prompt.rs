//! Prompt templates: text with placeholders that renders, for one sample, to chat messages and a
//! stop list. Templates are plain data (serde), so users can view, edit, import and export them.
//!
//! Placeholders are replaced literally in a single pass: `{code}` and `{program}` (the code),
//! `{call}` (the full call, `f([1, 2])`), `{input}` (the argument text), `{output}` (the expected
//! output) and `{function_name}`. Any other brace is left alone, and text that a substitution
//! inserts is never scanned again, so code full of braces (dicts, f-strings, `'{}'.format`) and
//! code that happens to contain `{output}` both come through unchanged.

use std::borrow::Cow;

use execbench_core::Sample;
use execbench_core::question::Question;
use serde::{Deserialize, Serialize};

use crate::task::Task;

/// Direct answer or reasoning first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    Direct,
    ChainOfThought,
}

/// The stop sequence of every built-in template: generation ends once the answer is closed.
pub const ANSWER_STOP: &str = "[/ANSWER]";

/// A prompt template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    /// Unique among templates, e.g. `output-direct`.
    pub id: String,
    pub name: String,
    pub task: Task,
    pub style: Style,
    /// Optional system message, with the same placeholders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The user message.
    pub user: String,
    #[serde(default)]
    pub stop: Vec<String>,
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system` or `user`.
    pub role: String,
    pub content: String,
}

/// What a template gives for one sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    pub messages: Vec<Message>,
    pub stop: Vec<String>,
}

impl Prompt {
    /// The messages as one text (for completion-style models and for display).
    pub fn text(&self) -> String {
        self.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n\n")
    }
}

/// A rendered prompt cut where the sample's own part begins, so a reader can open the sample's
/// code and leave the worked examples folded. Put back together (instructions, examples, own)
/// the parts are the prompt, byte for byte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptParts {
    /// The system message (if any) and the instructions before the first example.
    pub instructions: String,
    /// The worked examples, each with the blank line after it.
    pub examples: Vec<String>,
    /// The sample's own part: its code, the call or output, and the answer's opening.
    pub own: String,
}

impl PromptParts {
    fn whole(rendered: &str) -> PromptParts {
        PromptParts { own: rendered.to_string(), ..PromptParts::default() }
    }
}

/// Every placeholder a template may use. `{numbered_code}` (the code with its lines numbered) and
/// `{question}` (what a question sample asks, and how to answer: `crate::question`) are for
/// question datasets; for another sample `{question}` is empty.
pub const PLACEHOLDERS: [&str; 8] =
    ["code", "program", "call", "input", "output", "function_name", "numbered_code", "question"];

/// Replaces the placeholders of `text` with the sample's fields, in one pass.
pub fn fill(text: &str, sample: &Sample) -> String {
    let mut out = String::with_capacity(text.len() + sample.code.len() + 64);
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let replacement = after.find('}').and_then(|close| Some((value_of(&after[..close], sample)?, close)));
        match replacement {
            Some((value, close)) => {
                out.push_str(&value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn value_of<'s>(name: &str, sample: &'s Sample) -> Option<Cow<'s, str>> {
    Some(match name {
        "code" | "program" => Cow::Borrowed(&sample.code),
        "call" => Cow::Borrowed(&sample.call),
        "input" => Cow::Borrowed(&sample.input),
        "output" => Cow::Borrowed(&sample.output),
        "function_name" => Cow::Borrowed(&sample.function_name),
        "numbered_code" => Cow::Owned(crate::question::numbered(&sample.code)),
        "question" => match Question::from_sample(sample) {
            Some(Ok(question)) => Cow::Owned(crate::question::question_text(&question)),
            _ => Cow::Borrowed(""),
        },
        _ => return None,
    })
}

impl Template {
    pub fn render(&self, sample: &Sample) -> Prompt {
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = self.system.as_deref().filter(|s| !s.trim().is_empty()) {
            messages.push(Message { role: "system".into(), content: fill(system, sample) });
        }
        messages.push(Message { role: "user".into(), content: fill(&self.user, sample) });
        Prompt { messages, stop: self.stop.clone() }
    }

    /// Cuts `rendered` (this template's [`Prompt::text`] for some sample) into its parts. The
    /// sample's part starts at the paragraph (text after a blank line) of the user message that
    /// holds the first `{code}`, `{program}` or `{numbered_code}`; each earlier paragraph that opens with the same
    /// line (`[PYTHON]` in the built-ins) starts a worked example. When the user message before
    /// that paragraph or the system message has placeholders (its length depends on the sample),
    /// or `rendered` does not start the way this template does, nothing is cut: the whole prompt
    /// is the own part.
    pub fn parts(&self, rendered: &str) -> PromptParts {
        let user = self.user.as_str();
        let Some(code_at) = ["{code}", "{program}", "{numbered_code}"].iter().filter_map(|p| user.find(p)).min() else {
            return PromptParts::whole(rendered);
        };
        let own_start = user[..code_at].rfind("\n\n").map_or(0, |i| i + 2);
        let before = &user[..own_start];
        if before.is_empty() || PLACEHOLDERS.iter().any(|p| before.contains(&format!("{{{p}}}"))) {
            return PromptParts::whole(rendered);
        }
        // Where the user message begins: at the start, or after the system message and the
        // blank line `Prompt::text` puts between them. A system message with placeholders has a
        // length that depends on the sample, and its filled text may hold the instructions too
        // (a program that contains them): the start cannot be told, so nothing is cut.
        let begins = match self.system.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(system) if PLACEHOLDERS.iter().any(|p| system.contains(&format!("{{{p}}}"))) => None,
            Some(system) => {
                let at = system.len() + 2;
                (rendered.starts_with(system)
                    && rendered[system.len()..].starts_with("\n\n")
                    && rendered[at..].starts_with(before))
                .then_some(at)
            }
            None => rendered.starts_with(before).then_some(0),
        };
        let Some(begins) = begins else { return PromptParts::whole(rendered) };
        let (lead, own) = rendered.split_at(begins + before.len());
        // Examples open with the own paragraph's first line, unless that line is the code itself.
        let opening = user[own_start..].lines().next().unwrap_or("");
        let mut starts: Vec<usize> = Vec::new();
        if !opening.is_empty() && !opening.contains('{') {
            let mut at = begins;
            for line in lead[begins..].split_inclusive('\n') {
                if line.trim_end_matches('\n') == opening && (at == begins || lead[..at].ends_with("\n\n")) {
                    starts.push(at);
                }
                at += line.len();
            }
        }
        let Some(&first) = starts.first() else {
            return PromptParts { instructions: lead.to_string(), examples: Vec::new(), own: own.to_string() };
        };
        let ends = starts.iter().skip(1).copied().chain([lead.len()]);
        let examples = starts.iter().zip(ends).map(|(&a, b)| lead[a..b].to_string()).collect();
        PromptParts { instructions: lead[..first].to_string(), examples, own: own.to_string() }
    }

    /// Problems that make a template unusable, or likely wrong, for its task.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.id.trim().is_empty() {
            problems.push("the id is empty".to_string());
        }
        if self.user.trim().is_empty() {
            problems.push("the user message is empty".to_string());
        }
        let all = format!("{}{}", self.system.as_deref().unwrap_or(""), self.user);
        if !["{code}", "{program}", "{numbered_code}"].iter().any(|p| all.contains(p)) {
            problems.push(
                "no {code}, {program} or {numbered_code} placeholder: the model would not see the program".to_string(),
            );
        }
        let needed = match self.task {
            Task::Output => "{call}",
            Task::Input => "{output}",
            Task::Question => "{question}",
        };
        if !all.contains(needed) {
            problems.push(format!("no {needed} placeholder, which the {} task needs", self.task.label()));
        }
        problems
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads one template or a list of them, refusing unusable ones with the reason.
    pub fn import_json(text: &str) -> Result<Vec<Template>, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let templates: Vec<Template> = match value {
            serde_json::Value::Array(_) => serde_json::from_value(value),
            _ => serde_json::from_value(value).map(|t| vec![t]),
        }
        .map_err(|e| format!("not a template: {e}"))?;
        for template in &templates {
            let problems = template.problems();
            if !problems.is_empty() {
                return Err(format!("template `{}`: {}", template.id, problems.join("; ")));
            }
        }
        Ok(templates)
    }
}

/// The built-in templates: output and input prediction, direct and chain-of-thought, written for
/// execbench, plus the zero-shot output prompt of the methodology we follow, verbatim.
pub fn builtin_templates() -> Vec<Template> {
    let template = |id: &str, name: &str, task, style, user: &str| Template {
        id: id.into(),
        name: name.into(),
        task,
        style,
        system: None,
        user: user.into(),
        stop: vec![ANSWER_STOP.into()],
    };
    vec![
        template(
            "output-direct",
            "Output prediction, direct (2 examples)",
            Task::Output,
            Style::Direct,
            include_str!("templates/output_direct.txt"),
        ),
        template(
            "output-cot",
            "Output prediction, chain of thought",
            Task::Output,
            Style::ChainOfThought,
            include_str!("templates/output_cot.txt"),
        ),
        template(
            "input-direct",
            "Input prediction, direct (2 examples)",
            Task::Input,
            Style::Direct,
            include_str!("templates/input_direct.txt"),
        ),
        template(
            "input-cot",
            "Input prediction, chain of thought",
            Task::Input,
            Style::ChainOfThought,
            include_str!("templates/input_cot.txt"),
        ),
        template(
            "output-zero-shot",
            "Output prediction, zero-shot",
            Task::Output,
            Style::Direct,
            include_str!("templates/output_zero_shot.txt"),
        ),
        template(
            "question-direct",
            "Questions about the run (numbered lines)",
            Task::Question,
            Style::Direct,
            include_str!("templates/question_direct.txt"),
        ),
    ]
}

/// The built-in template for a task and style (the few-shot or worked-example one).
pub fn default_template(task: Task, style: Style) -> Template {
    let id = match (task, style) {
        (Task::Output, Style::Direct) => "output-direct",
        (Task::Output, Style::ChainOfThought) => "output-cot",
        (Task::Input, Style::Direct) => "input-direct",
        (Task::Input, Style::ChainOfThought) => "input-cot",
        // The question template already asks to follow the run step by step.
        (Task::Question, _) => "question-direct",
    };
    builtin_templates().into_iter().find(|t| t.id == id).unwrap_or_else(|| builtin_templates().remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(code: &str, input: &str, output: &str) -> Sample {
        Sample::new("t", code, "f", input, output)
    }

    /// (template text, filled text) for a sample whose code is full of braces.
    #[test]
    fn placeholders_are_replaced_once_and_literally() {
        let s = sample("def f(d):\n    return '{}-{call}'.format(d) + f'{d!r}'", "{'a': 1}", "\"{'a': 1}-{call}\"");
        let cases: &[(&str, &str)] = &[
            ("{call}", "f({'a': 1})"),
            ("{input}|{output}|{function_name}", "{'a': 1}|\"{'a': 1}-{call}\"|f"),
            ("{program}", &s.code),
            ("{code}{code}", &format!("{0}{0}", s.code)),
            ("{unknown} {} {{call}} {", "{unknown} {} {f({'a': 1})} {"),
            ("{call", "{call"),
            ("no placeholders", "no placeholders"),
            ("", ""),
            ("é{call}ü", "éf({'a': 1})ü"),
        ];
        for (text, filled) in cases {
            assert_eq!(fill(text, &s), *filled, "{text}");
        }
    }

    #[test]
    fn builtins_are_usable_and_distinct() {
        let templates = builtin_templates();
        assert_eq!(templates.len(), 6);
        for t in &templates {
            assert!(t.problems().is_empty(), "{}: {:?}", t.id, t.problems());
            assert_eq!(t.stop, vec!["[/ANSWER]".to_string()]);
            let prompt = t.render(&sample("def f(x):\n    return x", "1", "1"));
            assert_eq!(prompt.messages.len(), 1);
            assert!(!prompt.text().contains("{code}") && !prompt.text().contains("{call}"), "{}", t.id);
        }
        for task in Task::ALL {
            for style in [Style::Direct, Style::ChainOfThought] {
                let t = default_template(task, style);
                // The one question template asks for step-by-step reasoning already.
                let style = if task == Task::Question { Style::Direct } else { style };
                assert_eq!((t.task, t.style), (task, style));
            }
        }
    }

    #[test]
    fn system_message_comes_first() {
        let t = Template {
            system: Some("You run {function_name} in your head.".into()),
            ..default_template(Task::Output, Style::Direct)
        };
        let prompt = t.render(&sample("def f(x):\n    return x", "1", "1"));
        let roles: Vec<&str> = prompt.messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["system", "user"]);
        assert_eq!(prompt.messages[0].content, "You run f in your head.");
    }

    #[test]
    fn json_round_trip_and_import_errors() {
        let all = builtin_templates();
        let text = serde_json::to_string(&all).unwrap();
        assert_eq!(Template::import_json(&text).unwrap(), all);
        assert_eq!(Template::import_json(&all[0].to_json()).unwrap(), vec![all[0].clone()]);
        let cases: &[(&str, &str)] = &[
            ("{", "not valid JSON"),
            (r#"{"id": "x"}"#, "not a template: missing field `name`"),
            (
                r#"{"id": "x", "name": "x", "task": "output", "style": "direct", "user": "Say {call}"}"#,
                "template `x`: no {code}, {program} or {numbered_code} placeholder",
            ),
            (
                r#"{"id": "x", "name": "x", "task": "input", "style": "direct", "user": "{code} {call}"}"#,
                "no {output} placeholder, which the input task needs",
            ),
            (
                r#"{"id": "x", "name": "x", "task": "question", "style": "direct", "user": "{numbered_code} {call}"}"#,
                "no {question} placeholder, which the question task needs",
            ),
            (
                r#"{"id": "x", "name": "x", "task": "both", "style": "direct", "user": "{code}"}"#,
                "unknown variant `both`",
            ),
        ];
        for (json, message) in cases {
            let err = Template::import_json(json).unwrap_err();
            assert!(err.contains(message), "{json}: {err}");
        }
    }
}
