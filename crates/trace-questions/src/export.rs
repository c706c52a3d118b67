//! The exported questions file (the command line's `--out`, the page's download): one writer for
//! both, so the two files are the same byte for byte.

use crate::prompt::prompt;
use crate::question::Question;

/// Questions as the exported file holds them (the command line's `--out`, the page's download):
/// one JSON object a line, the question's fields, its `output` (the expected answer as a model
/// writes it, so the file loads as a dataset: `execbench_core::question`) and its `prompt`.
pub fn questions_jsonl(questions: &[Question]) -> String {
    let mut text = String::new();
    for question in questions {
        // A question is plain data: it always serialises to an object.
        let mut row = serde_json::to_value(question).unwrap_or_default();
        row["output"] = serde_json::Value::String(question.truth.answer_text());
        row["prompt"] = serde_json::Value::String(prompt(question));
        text.push_str(&row.to_string());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::{QuestionKind, Source, Truth};

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
        assert_eq!(row["prompt"], prompt(&question));
        assert_eq!(
            (&row["kind"], &row["line"], &row["truth"]["is"], &row["truth"]["type"], &row["source"]["seed"]),
            (&"state".into(), &2.into(), &"value".into(), &"int".into(), &7.into())
        );
        assert_eq!(row["output"], "2");
        // The line reads back as the question it was written from, and loads as its sample.
        assert_eq!(serde_json::from_value::<Question>(row.clone()).unwrap(), question);
        let sample = execbench_core::sample_from_row(row.as_object().unwrap().clone()).unwrap();
        assert_eq!(execbench_core::question::Question::from_sample(&sample), Some(Ok(question)));
        assert_eq!(questions_jsonl(&[]), "");
    }
}
