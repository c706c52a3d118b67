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
