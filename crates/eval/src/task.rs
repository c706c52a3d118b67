use execbench_core::Sample;
use execbench_core::question::Question;
use serde::{Deserialize, Serialize};

/// What the model is asked to predict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Given the code and the call, the return value.
    Output,
    /// Given the code and the return value, a call `f(...)` that produces it.
    Input,
    /// The question each sample holds about its program's run (coverage, state, path, output:
    /// `crate::question`); the dataset is a questions file.
    Question,
}

impl Task {
    pub const ALL: [Task; 3] = [Task::Output, Task::Input, Task::Question];
    /// CRUXEval's two tasks, which any dataset of programs can be asked.
    pub const PREDICTION: [Task; 2] = [Task::Output, Task::Input];

    pub fn label(self) -> &'static str {
        match self {
            Task::Output => "output",
            Task::Input => "input",
            Task::Question => "question",
        }
    }

    pub fn from_label(label: &str) -> Option<Task> {
        Task::ALL.into_iter().find(|t| t.label() == label)
    }

    /// In a sentence: "output prediction", "questions about the run".
    pub fn words(self) -> &'static str {
        match self {
            Task::Output => "output prediction",
            Task::Input => "input prediction",
            Task::Question => "questions about the run",
        }
    }

    /// What a user picks from: "Output prediction", "Questions about the run".
    pub fn title(self) -> &'static str {
        match self {
            Task::Output => "Output prediction",
            Task::Input => "Input prediction",
            Task::Question => "Questions about the run",
        }
    }

    /// Why `samples` cannot be asked this task, or `None`: the question task needs a questions
    /// file (its first broken question is named), and the prediction tasks are not asked of one.
    pub fn misfit(self, samples: &[Sample]) -> Option<String> {
        let mut questions = samples.iter().filter_map(Question::from_sample).peekable();
        match self {
            Task::Question => match questions.peek() {
                None => Some(
                    "the dataset holds no questions about a run: make them from it (Questions, or `execbench questions`) and evaluate that file"
                        .to_owned(),
                ),
                Some(_) => questions.find_map(Result::err),
            },
            Task::Output | Task::Input => questions.next().map(|_| {
                format!(
                    "the dataset holds questions about a run, whose expected answers are not a call's output: choose the task `{}`",
                    Task::Question.title()
                )
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_core::question::{QuestionKind, Source, Truth};

    #[test]
    fn a_task_says_when_the_dataset_does_not_fit() {
        let plain = Sample::new("p", "def f(x):\n    return x", "f", "1", "1");
        let question = Question {
            id: "p/coverage/0".into(),
            kind: QuestionKind::Coverage,
            code: plain.code.clone(),
            call: "f(1)".into(),
            line: Some(2),
            variable: None,
            visit: None,
            truth: Truth::Runs { runs: true },
            source: Source { sample: "p".into(), dataset: String::new(), seed: 0 },
        }
        .to_sample();
        let mut broken = question.clone();
        broken.meta.insert("line".into(), 40.into());
        let cases: [(Task, Vec<Sample>, Option<&str>); 6] = [
            (Task::Output, vec![plain.clone()], None),
            (Task::Question, vec![question.clone()], None),
            (Task::Question, vec![plain.clone()], Some("holds no questions about a run")),
            (Task::Input, vec![plain.clone(), question.clone()], Some("choose the task `Questions about the run`")),
            (Task::Question, vec![question.clone(), broken.clone()], Some("`line` 40 is not a line")),
            (Task::Question, vec![broken], Some("`line` 40 is not a line")),
        ];
        for (task, samples, words) in cases {
            let got = task.misfit(&samples);
            match words {
                None => assert_eq!(got, None, "{task:?}"),
                Some(words) => assert!(got.as_deref().is_some_and(|g| g.contains(words)), "{task:?}: {got:?}"),
            }
        }
    }
}
