//! A question about one run of a program, with its ground truth and where it came from; and the
//! same question as a dataset's sample, so a questions file is a dataset like any other: the row's
//! `id`, `code` and `call` are the question's, its `output` is the expected answer as a model
//! writes it (`yes`, `7`, `return`, a literal), and `kind`, `line`, `variable`, `visit`, `truth`
//! and `source` stay in the sample's `meta`, where [`Question::from_sample`] reads them back.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::sample::Sample;

/// Whether `sample` is a question's row: its `meta` has both `kind` and `truth`. (A CodeCrash
/// file's `kind` names a perturbation and comes with no `truth`.)
pub fn is_question(sample: &Sample) -> bool {
    sample.meta.contains_key("kind") && sample.meta.contains_key("truth")
}

/// What a question asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Does line N run at all during the call?
    Coverage,
    /// What does variable v hold right after line N runs for the k-th time?
    State,
    /// Which line runs right after line N's k-th run?
    Path,
    /// What does the call return?
    Output,
}

impl QuestionKind {
    /// The order of a consistency chain: each kind needs more of the run than the one before.
    pub const ALL: [QuestionKind; 4] =
        [QuestionKind::Coverage, QuestionKind::State, QuestionKind::Path, QuestionKind::Output];

    pub fn label(self) -> &'static str {
        match self {
            QuestionKind::Coverage => "coverage",
            QuestionKind::State => "state",
            QuestionKind::Path => "path",
            QuestionKind::Output => "output",
        }
    }

    pub fn from_label(label: &str) -> Option<QuestionKind> {
        QuestionKind::ALL.into_iter().find(|k| k.label() == label.trim())
    }

    /// The kind of question `sample` holds; `None` for an ordinary sample (see [`is_question`])
    /// or a kind that is none of the four.
    pub fn of_sample(sample: &Sample) -> Option<QuestionKind> {
        if !is_question(sample) {
            return None;
        }
        sample.meta.get("kind").and_then(Value::as_str).and_then(QuestionKind::from_label)
    }

    /// `coverage,state,path` as the command line writes it; names the unknown word.
    pub fn parse_list(text: &str) -> Result<Vec<QuestionKind>, String> {
        let mut kinds = Vec::new();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let kind = QuestionKind::from_label(word).ok_or_else(|| {
                format!("unknown question kind `{word}`: the kinds are coverage, state, path and output")
            })?;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        if kinds.is_empty() {
            return Err("no question kind given: name some of coverage, state, path, output".to_owned());
        }
        kinds.sort();
        Ok(kinds)
    }
}

/// The answer the trace gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum Truth {
    /// Coverage: whether the line ran.
    Runs { runs: bool },
    /// State: the variable's value (its `repr`, a literal) and type.
    Value {
        repr: String,
        #[serde(rename = "type")]
        type_name: String,
    },
    /// Path: the next line, or `None` when the call returned and nothing of the program ran after.
    NextLine { line: Option<u32> },
    /// Output: the call's return value as a literal.
    Output { repr: String },
}

impl Truth {
    /// The expected answer as a model should write it.
    pub fn answer_text(&self) -> String {
        match self {
            Truth::Runs { runs } => if *runs { "yes" } else { "no" }.to_owned(),
            Truth::Value { repr, .. } | Truth::Output { repr } => repr.clone(),
            Truth::NextLine { line: Some(line) } => line.to_string(),
            Truth::NextLine { line: None } => "return".to_owned(),
        }
    }
}

impl Truth {
    /// A well-formed answer that is surely wrong: the other of yes and no, another line (or
    /// `return` for a line), `None` for a value (`0` when the value is `None`). What the mock
    /// server and the simulated model say when asked to be wrong.
    pub fn wrong_answer_text(&self) -> String {
        match self {
            Truth::Runs { runs } => if *runs { "no" } else { "yes" }.to_owned(),
            Truth::NextLine { line: Some(_) } => "return".to_owned(),
            Truth::NextLine { line: None } => "1".to_owned(),
            Truth::Value { repr, .. } | Truth::Output { repr } => {
                if repr.trim() == "None" { "0" } else { "None" }.to_owned()
            }
        }
    }
}

/// One question: the program, the call, what is asked, and the truth.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// `<sample id>/<kind>/<n>`: unique within a set made from one dataset.
    pub id: String,
    pub kind: QuestionKind,
    /// The program as the model sees it, numbered from line 1.
    pub code: String,
    /// The call whose run is asked about.
    pub call: String,
    /// The line asked about (coverage, state, path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The variable asked about (state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// Which run of the line, from 1 (state, path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visit: Option<u32>,
    pub truth: Truth,
    pub source: Source,
}

/// Where a question came from: enough to make it again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The sample's id in its dataset.
    pub sample: String,
    /// The dataset's name, as the user or the file gave it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dataset: String,
    /// The seed the line, variable and visit were chosen with.
    pub seed: u64,
}

/// The fields of a question that a sample keeps in its `meta`.
const META_FIELDS: [&str; 6] = ["kind", "line", "variable", "visit", "truth", "source"];

impl Question {
    /// The question as a dataset's sample (the row a questions file holds, without its prompt).
    pub fn to_sample(&self) -> Sample {
        let call = self.call.trim();
        let (function_name, input) = match call.split_once('(') {
            Some((callee, rest)) if rest.ends_with(')') => {
                let name = callee.rsplit('.').next().unwrap_or(callee).trim();
                (name.to_owned(), rest[..rest.len() - 1].to_owned())
            }
            _ => (String::new(), String::new()),
        };
        let meta = match serde_json::to_value(self) {
            Ok(Value::Object(mut row)) => {
                META_FIELDS.iter().filter_map(|f| Some((f.to_string(), row.remove(*f)?))).collect()
            }
            _ => Map::new(),
        };
        Sample {
            id: self.id.clone(),
            code: self.code.clone(),
            function_name,
            input,
            call: self.call.clone(),
            output: self.truth.answer_text(),
            meta,
        }
    }

    /// The question a sample holds, read from its `meta`; `None` when the sample has no `kind`
    /// and `truth` (an ordinary sample); an error naming the field when they are there but wrong.
    pub fn from_sample(sample: &Sample) -> Option<Result<Question, String>> {
        if !is_question(sample) {
            return None;
        }
        let mut row: Map<String, Value> =
            META_FIELDS.iter().filter_map(|f| Some((f.to_string(), sample.meta.get(*f)?.clone()))).collect();
        row.insert("id".into(), sample.id.clone().into());
        row.insert("code".into(), sample.code.clone().into());
        row.insert("call".into(), sample.call.clone().into());
        row.entry("source").or_insert_with(|| serde_json::json!({"sample": sample.id, "seed": 0}));
        Some(
            serde_json::from_value::<Question>(Value::Object(row))
                .map_err(|e| format!("sample `{}` is not a readable question: {e}", sample.id))
                .and_then(|q| q.checked()),
        )
    }

    /// A question whose fields fit its kind: coverage, state and path name a line of the program,
    /// state a variable and a run, and the truth is of the kind's shape.
    fn checked(self) -> Result<Question, String> {
        let lines = self.code.lines().count() as u32;
        let wants_line = self.kind != QuestionKind::Output;
        let problem = match (self.kind, &self.truth) {
            (QuestionKind::Coverage, Truth::Runs { .. })
            | (QuestionKind::State, Truth::Value { .. })
            | (QuestionKind::Path, Truth::NextLine { .. })
            | (QuestionKind::Output, Truth::Output { .. }) => None,
            _ => Some(format!("`truth` does not answer a {} question", self.kind.label())),
        }
        .or_else(|| match self.line {
            None if wants_line => Some(format!("`line` is missing (a {} question names a line)", self.kind.label())),
            Some(line) if wants_line && (line == 0 || line > lines) => {
                Some(format!("`line` {line} is not a line of the {lines}-line program"))
            }
            _ => None,
        })
        .or_else(|| {
            (self.kind == QuestionKind::State && self.variable.as_deref().is_none_or(|v| v.trim().is_empty()))
                .then(|| "`variable` is missing (a state question names one)".to_owned())
        });
        match problem {
            Some(problem) => Err(format!("sample `{}`: {problem}", self.id)),
            None => Ok(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(kind: QuestionKind, truth: Truth) -> Question {
        Question {
            id: "s/x/0".into(),
            kind,
            code: "def f(x):\n    y = x + 1\n    return y".into(),
            call: "f(1)".into(),
            line: (kind != QuestionKind::Output).then_some(2),
            variable: (kind == QuestionKind::State).then(|| "y".to_owned()),
            visit: matches!(kind, QuestionKind::State | QuestionKind::Path).then_some(1),
            truth,
            source: Source { sample: "s".into(), dataset: "d".into(), seed: 3 },
        }
    }

    fn every_kind() -> Vec<Question> {
        vec![
            question(QuestionKind::Coverage, Truth::Runs { runs: true }),
            question(QuestionKind::State, Truth::Value { repr: "2".into(), type_name: "int".into() }),
            question(QuestionKind::Path, Truth::NextLine { line: Some(3) }),
            question(QuestionKind::Path, Truth::NextLine { line: None }),
            question(QuestionKind::Output, Truth::Output { repr: "None".into() }),
        ]
    }

    #[test]
    fn a_question_reads_back_from_its_sample() {
        for q in every_kind() {
            let sample = q.to_sample();
            assert_eq!((sample.function_name.as_str(), sample.input.as_str()), ("f", "1"));
            assert_eq!(sample.output, q.truth.answer_text());
            assert_eq!(Question::from_sample(&sample), Some(Ok(q)));
        }
        let plain = Sample::new("p", "def f(x):\n    return x", "f", "1", "1");
        assert_eq!(Question::from_sample(&plain), None);
    }

    /// (what is changed in the sample's meta, the error's words)
    #[test]
    fn a_broken_question_is_named() {
        let state = question(QuestionKind::State, Truth::Value { repr: "2".into(), type_name: "int".into() });
        let cases: [(&str, Value, &str); 5] = [
            ("truth", serde_json::json!({"is": "runs", "runs": true}), "does not answer a state question"),
            ("line", Value::from(9), "`line` 9 is not a line of the 3-line program"),
            ("line", Value::Null, "`line` is missing"),
            ("variable", Value::from(" "), "`variable` is missing"),
            ("kind", Value::from("colour"), "not a readable question"),
        ];
        for (field, value, words) in cases {
            let mut sample = state.to_sample();
            sample.meta.insert(field.into(), value);
            let error = Question::from_sample(&sample).unwrap().unwrap_err();
            assert!(error.contains(words) && error.contains("s/x/0"), "{field}: {error}");
        }
    }

    /// (the sample's meta, the kind of question it holds)
    #[test]
    fn only_a_row_with_kind_and_truth_is_a_question() {
        let truth = serde_json::json!({"is": "runs", "runs": true});
        let cases: [(Value, Option<QuestionKind>); 5] = [
            (serde_json::json!({}), None),
            // A CodeCrash row: its kind is a perturbation.
            (serde_json::json!({"kind": "coverage"}), None),
            (serde_json::json!({"truth": truth}), None),
            (serde_json::json!({"kind": "coverage", "truth": truth}), Some(QuestionKind::Coverage)),
            (serde_json::json!({"kind": "colour", "truth": truth}), None),
        ];
        for (meta, want) in cases {
            let mut sample = Sample::new("p", "def f(x):\n    return x", "f", "1", "1");
            sample.meta = meta.as_object().unwrap().clone();
            assert_eq!(QuestionKind::of_sample(&sample), want, "{meta}");
            assert_eq!(is_question(&sample), meta.get("kind").is_some() && meta.get("truth").is_some(), "{meta}");
        }
    }

    #[test]
    fn the_wrong_answer_is_never_the_truth() {
        for q in every_kind() {
            assert_ne!(q.truth.wrong_answer_text(), q.truth.answer_text(), "{:?}", q.truth);
        }
    }
}
