//! The figures a command-line run prints when it ends, summed from its records as they are stored:
//! a few dozen bytes a sample (each mode's [`SummaryShare`]), never the records themselves, so a
//! run of tens of thousands of answers keeps its memory flat. The run file holds the records.

use std::collections::BTreeMap;

use execbench_core::question::QuestionKind;
use execbench_eval::report::{Summary, SummaryShare, summarize_by_question, summarize_shares};
use execbench_eval::{Mode, Task};
use execbench_providers::Usage;

use crate::record::SampleRecord;

#[derive(Clone, Debug, Default)]
pub struct ClosingReport {
    /// By sample id: a later record of a sample replaces its earlier one, as in the run file.
    rows: BTreeMap<String, Row>,
}

#[derive(Clone, Debug)]
struct Row {
    index: usize,
    error: Option<String>,
    usage: Option<Usage>,
    live_usage: Option<Usage>,
    shares: Vec<SummaryShare>,
}

impl ClosingReport {
    pub fn add(&mut self, record: &SampleRecord) {
        let row = Row {
            index: record.index,
            error: record.error.as_ref().map(|e| e.message.clone()),
            usage: record.usage,
            live_usage: record.live_usage,
            shares: record.results.iter().map(SummaryShare::of).collect(),
        };
        self.rows.insert(record.sample_id.clone(), row);
    }

    /// Samples with a record.
    pub fn samples(&self) -> usize {
        self.rows.len()
    }

    /// The samples whose record is an error, with its message, in dataset order.
    pub fn errors(&self) -> Vec<(&str, &str)> {
        let mut errors: Vec<(usize, &str, &str)> =
            self.rows.iter().filter_map(|(id, row)| Some((row.index, id.as_str(), row.error.as_deref()?))).collect();
        errors.sort_by_key(|(index, ..)| *index);
        errors.into_iter().map(|(_, id, message)| (id, message)).collect()
    }

    /// Tokens over every record.
    pub fn usage(&self) -> Usage {
        sum(self.rows.values().filter_map(|r| r.usage))
    }

    /// Of [`ClosingReport::usage`], the tokens a batch run asked live (costed at the live price).
    pub fn live_usage(&self) -> Usage {
        sum(self.rows.values().filter_map(|r| r.live_usage))
    }

    /// One summary per mode (the job's modes, in its order), samples summed in dataset order.
    pub fn summaries(&self, task: Task, modes: &[Mode]) -> Vec<Summary> {
        let mut rows: Vec<&Row> = self.rows.values().collect();
        rows.sort_by_key(|r| r.index);
        modes
            .iter()
            .enumerate()
            .map(|(i, mode)| summarize_shares(task, *mode, rows.iter().filter_map(|r| r.shares.get(i).copied())))
            .collect()
    }

    /// A question run's figures by kind of question, per mode (the job's modes, in its order).
    pub fn by_question(&self, task: Task, modes: &[Mode]) -> Vec<Vec<(QuestionKind, Summary)>> {
        let mut rows: Vec<&Row> = self.rows.values().collect();
        rows.sort_by_key(|r| r.index);
        modes
            .iter()
            .enumerate()
            .map(|(i, mode)| summarize_by_question(task, *mode, rows.iter().filter_map(|r| r.shares.get(i).copied())))
            .collect()
    }
}

fn sum(usages: impl Iterator<Item = Usage>) -> Usage {
    usages.fold(Usage::default(), |mut total, u| {
        total.add(&u);
        total
    })
}

#[cfg(test)]
mod tests {
    use execbench_eval::Extraction;
    use execbench_eval::report::{AnswerRecord, SampleResult, summarize};
    use execbench_eval::score::Verdict;

    use super::*;
    use crate::record::SampleError;

    fn answer(verdict: Verdict) -> AnswerRecord {
        AnswerRecord { response: Some("[ANSWER] 1 [/ANSWER]".into()), extraction: Extraction::verbatim("1"), verdict }
    }

    /// A record with one result per mode, each with `verdicts` (n = their count), or an error.
    fn record(id: &str, index: usize, verdicts: &[Verdict], error: Option<&str>) -> SampleRecord {
        let correct = verdicts.iter().filter(|v| **v == Verdict::Correct).count();
        let result = |mode: Mode| SampleResult {
            id: id.into(),
            task: Task::Output,
            mode,
            prompt: Some(format!("the prompt of {id}")),
            answers: verdicts.iter().cloned().map(answer).collect(),
            n: verdicts.len(),
            correct,
            dropped: 0,
            pass_at_1: (!verdicts.is_empty()).then(|| correct as f64 / verdicts.len() as f64),
            pass_at_5: None,
            model_error: None,
            question: None,
            program: None,
        };
        SampleRecord {
            sample_id: id.into(),
            index,
            results: if error.is_some() { Vec::new() } else { vec![result(Mode::Strict), result(Mode::Compatible)] },
            error: error.map(|m| SampleError { kind: None, message: m.into() }),
            usage: Some(Usage { prompt_tokens: 10 * (index as u64 + 1), completion_tokens: 3, ..Usage::default() }),
            live_usage: None,
            sent: None,
            finish_reasons: Vec::new(),
            attempts: Vec::new(),
            latency_ms: 1.0,
        }
    }

    #[test]
    fn the_report_sums_what_the_records_say() {
        let wrong = || Verdict::WrongValue { got: "2".into(), expected: "1".into() };
        let timeout = || Verdict::Timeout { detail: "1 s".into() };
        let not_literal = || Verdict::NotALiteral { detail: "f(x)".into() };
        // Stored in this order (not dataset order); `c` is an error first, then answered.
        let stored = vec![
            record("b", 1, &[Verdict::Correct, wrong(), timeout()], None),
            record("c", 2, &[], Some("HTTP 503")),
            record("a", 0, &[Verdict::Correct, Verdict::Correct, not_literal()], None),
            record("d", 3, &[], Some("cut stream")),
            record("c", 2, &[wrong(), wrong(), Verdict::Correct], None),
        ];
        let mut report = ClosingReport::default();
        for r in &stored {
            report.add(r);
        }
        // What the run file would read back: the latest record of each sample, in dataset order.
        let latest: Vec<&SampleRecord> =
            ["a", "b", "c", "d"].iter().map(|id| stored.iter().rev().find(|r| r.sample_id == *id).unwrap()).collect();
        assert_eq!(report.samples(), 4);
        assert_eq!(report.errors(), vec![("d", "cut stream")]);
        let usage = report.usage();
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (10 + 20 + 30 + 40, 12));
        let modes = [Mode::Strict, Mode::Compatible];
        for (i, summary) in report.summaries(Task::Output, &modes).into_iter().enumerate() {
            let rows: Vec<SampleResult> = latest.iter().filter_map(|r| r.results.get(i).cloned()).collect();
            assert_eq!(summary, summarize(Task::Output, modes[i], &rows), "{:?}", modes[i]);
            assert_eq!((summary.samples, summary.answers, summary.correct), (3, 9, 4));
            assert_eq!((summary.wrong_value, summary.timeouts, summary.not_literal), (3, 1, 1));
            assert_eq!(summary.pass_at_1.display(), "44.4");
        }
    }
}
