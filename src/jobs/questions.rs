//! The Questions job: `execbench_dataset_jobs::trace_questions::questions_for_dataset` in the
//! worker (every sample's call traced, then questions made from each trace), its counts published
//! as it goes; the questions kept for the page's table and download.

use execbench_core::{Limits, Sample};
use execbench_dataset_jobs::trace_questions::questions_for_dataset;
use execbench_trace_questions::{MakeOptions, Question, QuestionKind};
use leptos::prelude::*;

use super::{FINISHED, JobProgress, STOPPED};
use crate::browser::python::{PythonWorker, QUESTIONS_JOB};

/// A traced run may take this long: tracing slows a run, so more than Verify's 2 s (the command
/// line's `execbench questions` default too).
pub const TRACE_TIME_MS: u32 = 5_000;

/// What the page shows of the questions made so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuestionsSummary {
    /// Questions of each kind, in `QuestionKind::ALL` order.
    pub by_kind: Vec<(QuestionKind, usize)>,
    /// Samples that gave no question: (id, why).
    pub skipped: Vec<(String, String)>,
    /// How many (sample, kind) pairs gave no question of that kind, by kind and reason.
    pub missing: Vec<(String, String, usize)>,
}

impl QuestionsSummary {
    fn of(questions: &[Question], skipped: &[(String, String)], missing: &[(String, &'static str, String)]) -> Self {
        let by_kind = QuestionKind::ALL
            .into_iter()
            .map(|kind| (kind, questions.iter().filter(|q| q.kind == kind).count()))
            .filter(|(_, n)| *n > 0)
            .collect();
        let mut counted: std::collections::BTreeMap<(&str, &str), usize> = std::collections::BTreeMap::new();
        for (_, kind, why) in missing {
            *counted.entry((kind, why.as_str())).or_default() += 1;
        }
        QuestionsSummary {
            by_kind,
            skipped: skipped.to_vec(),
            missing: counted.into_iter().map(|((kind, why), n)| (kind.to_owned(), why.to_owned(), n)).collect(),
        }
    }

    pub fn total(&self) -> usize {
        self.by_kind.iter().map(|(_, n)| n).sum()
    }
}

/// The Questions form as typed: which kinds, the seed, questions of each kind per sample, and how
/// many samples (from the first; empty for all).
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionsForm {
    pub kinds: Vec<QuestionKind>,
    pub seed: String,
    pub per_kind: String,
    pub limit: String,
}

impl Default for QuestionsForm {
    fn default() -> Self {
        QuestionsForm {
            kinds: QuestionKind::ALL.to_vec(),
            seed: "0".into(),
            per_kind: "1".into(),
            limit: String::new(),
        }
    }
}

impl QuestionsForm {
    /// What to make, and how many samples to trace (`None`: all); or what is wrong, by field.
    pub fn read(&self, dataset: &str) -> Result<(MakeOptions, Option<usize>), String> {
        if self.kinds.is_empty() {
            return Err("Kinds: pick at least one kind of question".into());
        }
        let seed = self
            .seed
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("Seed: `{}` is not a whole number from 0", self.seed.trim()))?;
        let per_kind = match self.per_kind.trim().parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return Err(format!("Per kind: `{}` is not a number from 1 to 100", self.per_kind.trim())),
        };
        let limit = match self.limit.trim() {
            "" => None,
            text => match text.parse::<usize>() {
                Ok(n) if n >= 1 => Some(n),
                _ => return Err(format!("Samples: `{text}` is not a number from 1 (leave it empty for all)")),
            },
        };
        let mut kinds = self.kinds.clone();
        kinds.sort();
        kinds.dedup();
        Ok((MakeOptions { kinds, seed, per_kind, dataset: dataset.to_owned() }, limit))
    }
}

#[derive(Clone, Copy)]
pub struct QuestionsRun {
    pub job: JobProgress,
    pub summary: RwSignal<QuestionsSummary>,
    /// The questions of the last run, in dataset order; set as samples finish.
    pub questions: RwSignal<Vec<Question>>,
    /// The name the download is given: the dataset's.
    pub dataset: StoredValue<String>,
    python: StoredValue<PythonWorker, LocalStorage>,
}

impl QuestionsRun {
    /// The job runs in `worker` as `QUESTIONS_JOB`.
    pub fn new(worker: &PythonWorker) -> Self {
        QuestionsRun {
            job: JobProgress::new(),
            summary: RwSignal::new(QuestionsSummary::default()),
            questions: RwSignal::new(Vec::new()),
            dataset: StoredValue::new(String::new()),
            python: StoredValue::new_local(worker.for_job(QUESTIONS_JOB)),
        }
    }

    /// Traces `samples` and makes `options`' questions about each run.
    pub fn start(self, samples: Vec<Sample>, options: MakeOptions) {
        let python = self.python.get_value();
        self.dataset.set_value(options.dataset.clone());
        let cancel = self.job.begin(format!("Tracing {} samples", samples.len()), samples.len(), &python);
        self.summary.set(QuestionsSummary::default());
        self.questions.set(Vec::new());
        leptos::task::spawn_local(async move {
            let mut made = Vec::<Question>::new();
            let mut on_sample = |done: usize, questions: &[Question]| {
                made.extend_from_slice(questions);
                if self.job.publish(done) {
                    self.summary.set(QuestionsSummary::of(&made, &[], &[]));
                }
            };
            let limits = Limits { time_ms: TRACE_TIME_MS, max_steps: 0 };
            let outcome = questions_for_dataset(&python, &samples, &options, limits, &cancel, &mut on_sample).await;
            self.summary.set(QuestionsSummary::of(&outcome.questions, &outcome.skipped, &outcome.missing));
            self.questions.set(outcome.questions);
            self.job.finish(outcome.traced, if outcome.stopped { STOPPED } else { FINISHED });
        });
    }

    pub fn stop(self) {
        self.job.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_trace_questions::{Source, Truth};

    fn question(kind: QuestionKind) -> Question {
        Question {
            id: format!("s/{}/0", kind.label()),
            kind,
            code: "def f(x):\n    return x".into(),
            call: "f(1)".into(),
            line: None,
            variable: None,
            visit: None,
            truth: Truth::Output { repr: "1".into() },
            source: Source { sample: "s".into(), dataset: String::new(), seed: 0 },
        }
    }

    #[test]
    fn the_form_reads_or_names_the_field_that_is_wrong() {
        let form = |kinds: &[QuestionKind], seed: &str, per_kind: &str, limit: &str| QuestionsForm {
            kinds: kinds.to_vec(),
            seed: seed.into(),
            per_kind: per_kind.into(),
            limit: limit.into(),
        };
        let all = QuestionKind::ALL;
        // (form, Ok((kinds, seed, per kind, limit)) or the start of the message)
        type Read = Result<(Vec<QuestionKind>, u64, usize, Option<usize>), &'static str>;
        let cases: Vec<(QuestionsForm, Read)> = vec![
            (QuestionsForm::default(), Ok((all.to_vec(), 0, 1, None))),
            (form(&all, " 7 ", "3", " 20 "), Ok((all.to_vec(), 7, 3, Some(20)))),
            // Kinds come out in the chain's order, once each, whatever order they were ticked in.
            (
                form(&[QuestionKind::Path, QuestionKind::Coverage, QuestionKind::Path], "0", "1", ""),
                Ok((vec![QuestionKind::Coverage, QuestionKind::Path], 0, 1, None)),
            ),
            (form(&[], "0", "1", ""), Err("Kinds:")),
            (form(&all, "-1", "1", ""), Err("Seed: `-1`")),
            (form(&all, "", "1", ""), Err("Seed: ``")),
            (form(&all, "0", "0", ""), Err("Per kind: `0`")),
            (form(&all, "0", "101", ""), Err("Per kind: `101`")),
            (form(&all, "0", "1", "0"), Err("Samples: `0`")),
            (form(&all, "0", "1", "ten"), Err("Samples: `ten`")),
        ];
        for (form, want) in cases {
            let got = form.read("cruxeval");
            match (got, want) {
                (Ok((options, limit)), Ok((kinds, seed, per_kind, want_limit))) => {
                    assert_eq!(
                        (options.kinds, options.seed, options.per_kind, options.dataset.as_str(), limit),
                        (kinds, seed, per_kind, "cruxeval", want_limit),
                        "{form:?}"
                    );
                }
                (Err(message), Err(start)) => assert!(message.starts_with(start), "{form:?}: {message}"),
                (got, want) => panic!("{form:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn the_summary_counts_kinds_in_order_and_reasons_once_each() {
        let questions =
            [question(QuestionKind::Output), question(QuestionKind::Coverage), question(QuestionKind::Output)];
        let skipped = [("t".to_string(), "no line ran".to_string())];
        let why = "no assignment ran".to_string();
        let missing = [("a".to_string(), "state", why.clone()), ("b".to_string(), "state", why.clone())];
        let summary = QuestionsSummary::of(&questions, &skipped, &missing);
        assert_eq!(summary.by_kind, vec![(QuestionKind::Coverage, 1), (QuestionKind::Output, 2)]);
        assert_eq!(summary.total(), 3);
        assert_eq!(summary.skipped, skipped.to_vec());
        assert_eq!(summary.missing, vec![("state".to_string(), why, 2)]);
        assert_eq!(QuestionsSummary::of(&[], &[], &[]), QuestionsSummary::default());
    }
}
