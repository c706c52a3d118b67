//! Results: one row per sample (serde; exported as JSON Lines) and a summary per task and mode
//! (exported as a Markdown table to paste into a paper or an issue).

use serde::{Deserialize, Serialize};

use crate::extract::Extraction;
use crate::passk::{DatasetScore, dataset_score};
use crate::score::{Mode, SampleScore, Verdict};
use crate::task::Task;
use execbench_core::question::QuestionKind;

/// One answer: the response it came from (when there was one), what was extracted, the verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    pub extraction: Extraction,
    pub verdict: Verdict,
}

/// The result of one sample under one task and mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleResult {
    pub id: String,
    pub task: Task,
    pub mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    pub answers: Vec<AnswerRecord>,
    pub n: usize,
    pub correct: usize,
    pub dropped: usize,
    pub pass_at_1: Option<f64>,
    pub pass_at_5: Option<f64>,
    /// Set when the model failed to answer at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_error: Option<String>,
    /// The kind of question the sample asked (a question run's results only), so reports and
    /// Compare can split a run's accuracy by kind without the dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<QuestionKind>,
    /// The program a question is about (its source sample's id), so a run's questions on one
    /// program can be read as a consistency chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

impl SampleResult {
    /// Puts a sample's answers and their score together. `responses` may be empty (answers that
    /// came already extracted); otherwise it pairs with `extractions` one to one.
    pub fn new(
        id: &str,
        task: Task,
        mode: Mode,
        prompt: Option<String>,
        responses: Vec<String>,
        extractions: Vec<Extraction>,
        score: SampleScore,
    ) -> Self {
        let mut responses = responses.into_iter();
        let answers = extractions
            .into_iter()
            .zip(score.verdicts)
            .map(|(extraction, verdict)| AnswerRecord { response: responses.next(), extraction, verdict })
            .collect();
        SampleResult {
            id: id.to_string(),
            task,
            mode,
            prompt,
            answers,
            n: score.n,
            correct: score.correct,
            dropped: score.dropped,
            pass_at_1: score.pass_at_1,
            pass_at_5: score.pass_at_5,
            model_error: None,
            question: None,
            program: None,
        }
    }

    /// Notes the kind of question `sample` asks, for a question run's result.
    pub fn of_sample(mut self, sample: &execbench_core::Sample) -> Self {
        if self.task == Task::Question {
            self.question = QuestionKind::of_sample(sample);
            let source = sample.meta.get("source").and_then(|s| s.get("sample")).and_then(|s| s.as_str());
            self.program = source.map(str::to_owned);
        }
        self
    }

    /// How the sample did over all its answers, for a table row: one word for the row's
    /// colour and filters, and "1 of 3 right" for people.
    pub fn outcome(&self) -> RowOutcome {
        match (self.answers.is_empty(), self.correct) {
            (true, _) => RowOutcome::NoAnswers,
            (false, 0) => RowOutcome::NoneRight,
            (false, c) if c >= self.n => RowOutcome::AllRight,
            _ => RowOutcome::SomeRight,
        }
    }

    /// "1 of 3 right", with the dropped answers named (compatible mode): `n` is the answers
    /// counted, so a reader sees why 3 answers given can read "1 of 2 right, 1 dropped".
    pub fn right_of_n(&self) -> String {
        if self.answers.is_empty() {
            return "no answers".to_string();
        }
        let mut words = format!("{} of {} right", self.correct, self.n);
        if self.dropped > 0 {
            words.push_str(&format!(", {} dropped", self.dropped));
        }
        words
    }

    /// Whether any answer has this verdict label (`wrong_value`, `dropped`, ...): for filters.
    pub fn has(&self, label: &str) -> bool {
        self.answers.iter().any(|a| a.verdict.label() == label)
    }
}

/// A sample's answers taken together: every one right, some, none, or no answer at all (the
/// model failed to answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOutcome {
    AllRight,
    SomeRight,
    NoneRight,
    NoAnswers,
}

impl RowOutcome {
    /// Machine name, for styles and tests.
    pub fn label(self) -> &'static str {
        match self {
            RowOutcome::AllRight => "all_right",
            RowOutcome::SomeRight => "some_right",
            RowOutcome::NoneRight => "none_right",
            RowOutcome::NoAnswers => "no_answers",
        }
    }
}

/// Per-sample rows as JSON Lines.
pub fn to_jsonl(results: &[SampleResult]) -> String {
    let mut out = String::new();
    for result in results {
        if let Ok(line) = serde_json::to_string(result) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Reads rows written by [`to_jsonl`] (a results file to replay or compare).
pub fn from_jsonl(file: &str, text: &str) -> Result<Vec<SampleResult>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| serde_json::from_str(line).map_err(|e| format!("{file}:{}: not a result row: {e}", i + 1)))
        .collect()
}

/// The figures of one task and mode over a dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub task: Task,
    pub mode: Mode,
    pub samples: usize,
    pub answers: usize,
    pub pass_at_1: DatasetScore,
    pub pass_at_5: DatasetScore,
    pub correct: usize,
    pub dropped: usize,
    pub extraction_failed: usize,
    pub not_literal: usize,
    pub not_a_call: usize,
    pub wrong_value: usize,
    pub timeouts: usize,
    pub errors: usize,
}

/// Sums up the results of one task and mode.
pub fn summarize(task: Task, mode: Mode, results: &[SampleResult]) -> Summary {
    summarize_shares(task, mode, results.iter().map(SummaryShare::of))
}

/// What one sample's result adds to its [`Summary`], in a few dozen bytes: a long run can keep
/// these for its closing report instead of the results with their answers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SummaryShare {
    pub answers: u32,
    pub pass_at_1: Option<f64>,
    pub pass_at_5: Option<f64>,
    /// Answers by verdict, in the order of [`SummaryShare::KINDS`].
    pub verdicts: [u32; 8],
    /// The kind of question the sample asked (a question run).
    pub question: Option<QuestionKind>,
}

impl SummaryShare {
    /// The verdict kinds counted: correct, dropped, extraction failed, not a literal, not a call,
    /// wrong value, timeout, error.
    const KINDS: usize = 8;

    pub fn of(result: &SampleResult) -> SummaryShare {
        let mut verdicts = [0u32; Self::KINDS];
        for answer in &result.answers {
            let kind = match &answer.verdict {
                Verdict::Correct => 0,
                Verdict::Dropped { .. } => 1,
                Verdict::ExtractionFailed { .. } => 2,
                Verdict::NotALiteral { .. } => 3,
                Verdict::NotACall { .. } => 4,
                Verdict::WrongValue { .. } => 5,
                Verdict::Timeout { .. } => 6,
                Verdict::Error { .. } => 7,
            };
            verdicts[kind] += 1;
        }
        SummaryShare {
            answers: result.answers.len() as u32,
            pass_at_1: result.pass_at_1,
            pass_at_5: result.pass_at_5,
            verdicts,
            question: result.question,
        }
    }
}

/// A question run's summary split by the kind of question, in `QuestionKind::ALL` order, kinds
/// with no sample left out (empty for a run of another task).
pub fn summarize_by_question(
    task: Task,
    mode: Mode,
    shares: impl IntoIterator<Item = SummaryShare>,
) -> Vec<(QuestionKind, Summary)> {
    let shares: Vec<SummaryShare> = shares.into_iter().collect();
    QuestionKind::ALL
        .into_iter()
        .filter_map(|kind| {
            let of_kind: Vec<SummaryShare> = shares.iter().filter(|s| s.question == Some(kind)).copied().collect();
            (!of_kind.is_empty()).then(|| (kind, summarize_shares(task, mode, of_kind)))
        })
        .collect()
}

/// Sums up one task and mode from each sample's share, in the order given (pass@k is a mean, so
/// the order only moves the last bits of a float).
pub fn summarize_shares(task: Task, mode: Mode, shares: impl IntoIterator<Item = SummaryShare>) -> Summary {
    let shares: Vec<SummaryShare> = shares.into_iter().collect();
    let count = |kind: usize| shares.iter().map(|s| s.verdicts[kind] as usize).sum();
    Summary {
        task,
        mode,
        samples: shares.len(),
        answers: shares.iter().map(|s| s.answers as usize).sum(),
        pass_at_1: dataset_score(shares.iter().map(|s| s.pass_at_1)),
        pass_at_5: dataset_score(shares.iter().map(|s| s.pass_at_5)),
        correct: count(0),
        dropped: count(1),
        extraction_failed: count(2),
        not_literal: count(3),
        not_a_call: count(4),
        wrong_value: count(5),
        timeouts: count(6),
        errors: count(7),
    }
}

/// A Markdown table, one row per summary.
pub fn markdown_table(summaries: &[Summary]) -> String {
    let mut out = String::from(
        "| task | mode | samples | answers | pass@1 | pass@5 | dropped | extraction failed | not a literal | timeouts | errors |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for s in summaries {
        let figure = |score: &DatasetScore| match score.percent {
            Some(_) if score.available < score.total => {
                format!("{} ({}/{})", score.display(), score.available, score.total)
            }
            _ => score.display(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            s.task.label(),
            s.mode.label(),
            s.samples,
            s.answers,
            figure(&s.pass_at_1),
            figure(&s.pass_at_5),
            s.dropped,
            s.extraction_failed,
            s.not_literal + s.not_a_call,
            s.timeouts,
            s.errors
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, mode: Mode, verdicts: Vec<Verdict>) -> SampleResult {
        let extractions = verdicts.iter().map(|_| Extraction::verbatim("1")).collect();
        SampleResult::new(
            id,
            Task::Output,
            mode,
            None,
            Vec::new(),
            extractions,
            SampleScore::from_verdicts(mode, verdicts),
        )
    }

    fn wrong() -> Verdict {
        Verdict::WrongValue { got: "1".into(), expected: "2".into() }
    }

    #[test]
    fn summary_and_markdown() {
        let strict = vec![
            result("a", Mode::Strict, vec![Verdict::Correct, wrong(), wrong(), wrong(), wrong()]),
            result(
                "b",
                Mode::Strict,
                vec![wrong(), Verdict::NotALiteral { detail: "x".into() }, wrong(), wrong(), wrong()],
            ),
        ];
        let compatible = vec![
            result("a", Mode::Compatible, vec![Verdict::Correct, Verdict::Dropped { why: "x".into() }]),
            result(
                "b",
                Mode::Compatible,
                vec![Verdict::Timeout { detail: "t".into() }, wrong(), wrong(), wrong(), wrong()],
            ),
        ];
        let s = summarize(Task::Output, Mode::Strict, &strict);
        assert_eq!((s.samples, s.answers, s.correct, s.not_literal, s.wrong_value), (2, 10, 1, 1, 8));
        assert_eq!(s.pass_at_1.display(), "10.0");
        assert_eq!(s.pass_at_5.display(), "50.0");
        let c = summarize(Task::Output, Mode::Compatible, &compatible);
        let table = markdown_table(&[s, c]);
        assert_eq!(
            table,
            "| task | mode | samples | answers | pass@1 | pass@5 | dropped | extraction failed | not a literal | timeouts | errors |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n\
             | output | strict | 2 | 10 | 10.0 | 50.0 | 0 | 0 | 1 | 0 | 0 |\n\
             | output | compatible | 2 | 7 | 50.0 | 0.0 (1/2) | 1 | 0 | 0 | 1 | 0 |\n"
        );
    }

    /// Each verdict is counted once, by its own figure (one answer of every kind, in strict
    /// mode so none is dropped from the row).
    #[test]
    fn every_verdict_has_its_own_count() {
        let detail = || "d".to_string();
        let verdicts = vec![
            Verdict::Correct,
            wrong(),
            Verdict::NotALiteral { detail: detail() },
            Verdict::NotACall { detail: detail() },
            Verdict::ExtractionFailed { detail: detail() },
            Verdict::Timeout { detail: detail() },
            Verdict::Error { message: detail() },
            Verdict::Dropped { why: detail() },
        ];
        let s = summarize(Task::Output, Mode::Strict, &[result("a", Mode::Strict, verdicts)]);
        let counts = [
            s.correct,
            s.wrong_value,
            s.not_literal,
            s.not_a_call,
            s.extraction_failed,
            s.timeouts,
            s.errors,
            s.dropped,
        ];
        assert_eq!((s.answers, counts), (8, [1; 8]));
    }

    /// (mode, verdicts, outcome, words): a sample partly right never reads as wrong.
    #[test]
    fn a_row_says_how_many_of_its_answers_are_right() {
        let dropped = || Verdict::Dropped { why: "w".into() };
        let cases = [
            (Mode::Strict, vec![Verdict::Correct, wrong(), wrong()], RowOutcome::SomeRight, "1 of 3 right"),
            (
                Mode::Strict,
                vec![Verdict::Correct, Verdict::Correct, Verdict::Correct],
                RowOutcome::AllRight,
                "3 of 3 right",
            ),
            (
                Mode::Strict,
                vec![wrong(), Verdict::ExtractionFailed { detail: "x".into() }],
                RowOutcome::NoneRight,
                "0 of 2 right",
            ),
            (Mode::Strict, vec![Verdict::Correct], RowOutcome::AllRight, "1 of 1 right"),
            // Compatible: a dropped answer leaves n when another is right, and counts when none is.
            (
                Mode::Compatible,
                vec![Verdict::Correct, dropped(), wrong()],
                RowOutcome::SomeRight,
                "1 of 2 right, 1 dropped",
            ),
            (Mode::Compatible, vec![Verdict::Correct, dropped()], RowOutcome::AllRight, "1 of 1 right, 1 dropped"),
            (Mode::Compatible, vec![dropped(), wrong()], RowOutcome::NoneRight, "0 of 2 right, 1 dropped"),
            (Mode::Strict, vec![], RowOutcome::NoAnswers, "no answers"),
        ];
        for (mode, verdicts, outcome, words) in cases {
            let row = result("a", mode, verdicts.clone());
            assert_eq!((row.outcome(), row.right_of_n().as_str()), (outcome, words), "{mode:?} {verdicts:?}");
        }
    }

    #[test]
    fn rows_round_trip_through_jsonl() {
        let rows = vec![
            result("a", Mode::Strict, vec![Verdict::Correct, wrong()]),
            result("b", Mode::Compatible, vec![Verdict::Dropped { why: "w".into() }]),
        ];
        let text = to_jsonl(&rows);
        assert_eq!(text.lines().count(), 2);
        assert!(text.starts_with(r#"{"id":"a","task":"output","mode":"strict","answers":[{"extraction":{"status":"found","answer":"1","rule":"verbatim"},"verdict":{"verdict":"correct"}}"#), "{text}");
        assert_eq!(from_jsonl("r.jsonl", &text).unwrap(), rows);
        assert!(from_jsonl("r.jsonl", "{}\n").unwrap_err().starts_with("r.jsonl:1: not a result row"));
        assert!(rows[0].has("wrong_value") && !rows[0].has("dropped"));
    }
}
