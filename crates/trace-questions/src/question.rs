//! A question about one run of a program, with its ground truth and where it came from.

use serde::{Deserialize, Serialize};

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

/// Questions as the exported file holds them (the command line's `--out`, the page's download):
/// one JSON object a line, the question's fields and its `prompt`.
pub fn questions_jsonl(questions: &[Question]) -> String {
    let mut text = String::new();
    for question in questions {
        // A question is plain data: it always serialises to an object.
        let mut row = serde_json::to_value(question).unwrap_or_default();
        row["prompt"] = serde_json::Value::String(crate::prompt::prompt(question));
        text.push_str(&row.to_string());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exported_line_is_the_question_with_its_prompt() {
        let question = Question {
            id: "sample_0/state/0".into(),
            kind: QuestionKind::State,
            code: "def f(x):\n    y = x + 1\n    return y".into(),
            call: "f(1)".into(),
            line: Some(2),
            variable: Some("y".into()),
            visit: Some(1),
            truth: Truth::Value { repr: "2".into(), type_name: "int".into() },
            source: Source { sample: "sample_0".into(), dataset: "cruxeval".into(), seed: 7 },
        };
        let text = questions_jsonl(std::slice::from_ref(&question));
        assert_eq!(text.lines().count(), 1);
        let row: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(row["prompt"], crate::prompt::prompt(&question));
        assert_eq!(
            (&row["kind"], &row["line"], &row["truth"]["is"], &row["truth"]["type"], &row["source"]["seed"]),
            (&"state".into(), &2.into(), &"value".into(), &"int".into(), &7.into())
        );
        // The line reads back as the question it was written from.
        assert_eq!(serde_json::from_value::<Question>(row).unwrap(), question);
        assert_eq!(questions_jsonl(&[]), "");
    }
}
