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

    /// What a user picks from: "Output prediction", "Questions about the run".
    pub fn title(self) -> &'static str {
        match self {
            Task::Output => "Output prediction",
            Task::Input => "Input prediction",
            Task::Question => "Questions about the run",
        }
    }
}
