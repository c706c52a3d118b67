use serde::{Deserialize, Serialize};

/// What the model is asked to predict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Given the code and the call, the return value.
    Output,
    /// Given the code and the return value, a call `f(...)` that produces it.
    Input,
}

impl Task {
    pub const ALL: [Task; 2] = [Task::Output, Task::Input];

    pub fn label(self) -> &'static str {
        match self {
            Task::Output => "output",
            Task::Input => "input",
        }
    }

    pub fn from_label(label: &str) -> Option<Task> {
        Task::ALL.into_iter().find(|t| t.label() == label)
    }
}
