//! What a finished (or stopped) evaluation gives the results view: every mode's rows and summary
//! with the run's figures. The evaluation job and the Runs page make it (`evaluate::results_of`);
//! the results components show it.

use execbench_eval::Task;
use execbench_eval::report::{SampleResult, Summary};
use execbench_eval::score::Mode;

/// One finished (or stopped) evaluation or re-scoring: every mode's rows and summary.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResults {
    /// Unique in the page; newer runs have larger ids.
    pub id: u64,
    /// What answered: a model name (`oracle`) or the re-scored file's name.
    pub source: String,
    pub dataset: String,
    pub task: Task,
    /// The prompt template's name, when a model was prompted.
    pub template: Option<String>,
    /// The template itself, when a model was prompted: it tells the table where each prompt's
    /// own part begins (`Template::parts`).
    pub prompt_template: Option<execbench_eval::prompt::Template>,
    /// Responses asked per sample, when a model was prompted.
    pub n: Option<usize>,
    pub per_mode: Vec<ModeResults>,
    /// Samples the run meant to score, and how many it did before it finished or was stopped.
    pub planned: usize,
    pub stopped: bool,
    pub elapsed_ms: f64,
    /// Python runs made in the worker (model steps and scoring).
    pub python_runs: usize,
    /// A file of answers: dataset samples it had no answers for (never scored), ids the dataset
    /// does not know.
    pub missing: Vec<String>,
    pub unknown: Vec<String>,
    /// Samples that failed for infrastructure reasons: (id, message). Not in `per_mode`.
    pub errors: Vec<(String, String)>,
    /// API runs: tokens from the providers' usage fields.
    pub usage: Option<execbench_providers::Usage>,
    /// The run's requests over all its sessions (as stored with it).
    pub requests: execbench_run::manifest::RequestCounts,
    /// The most requests in flight at once in the session that made these results (0: read
    /// from storage).
    pub most_concurrent: usize,
    /// How the run ended, in words (`finished`, `stopped`, `stopped by the provider: …`).
    pub end: String,
    /// API runs: the generation parameters as sent (from the first record that has them).
    pub sent: Option<serde_json::Value>,
    /// API runs: what the run asked for that its model does not take (left out, and why).
    pub not_sent: Vec<execbench_providers::NotSent>,
    /// Dollars the run's tokens cost, when its price is known.
    pub cost: Option<f64>,
    /// This session's record writes: (count, median ms, p99 ms).
    pub store_times: Option<(usize, f64, f64)>,
    /// What every exported row of this run carries (run, model, template, dataset, version).
    pub provenance: execbench_core::Provenance,
    /// A re-scored evaluation file's own verdicts and figures, shown next to execbench's.
    pub stored: Option<execbench_eval::stored::StoredScores>,
    /// The run's name (`execbench_run::naming::run_name`): what tells runs of one model apart.
    pub name: String,
    /// The endpoint's host, for an API run.
    pub host: Option<String>,
    /// The run came from an imported run file.
    pub imported: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModeResults {
    pub mode: Mode,
    pub rows: Vec<SampleResult>,
    pub summary: Summary,
}

impl RunResults {
    /// A one-line description, for headings, the chart and the Markdown export.
    pub fn title(&self) -> String {
        let mut title = format!("{} · {} · {}", self.source, self.dataset, self.task.words());
        if let Some(template) = &self.template {
            title.push_str(&format!(" · {template}"));
        }
        if let Some(n) = self.n {
            title.push_str(&format!(" · n={n}"));
        }
        title
    }

    /// The stored run these results are (every run of the page is stored: its run id).
    pub fn run_id(&self) -> Option<&str> {
        self.provenance.run_id.as_deref()
    }

    /// What the per-sample run selector shows: the name, the dataset, samples scored, and
    /// whether the run was imported.
    pub fn label(&self) -> String {
        let imported = if self.imported { " · imported" } else { "" };
        format!("{} · {} · {} of {} scored{imported}", self.name, self.dataset, self.scored(), self.planned)
    }

    pub fn scored(&self) -> usize {
        self.per_mode.first().map_or(0, |m| m.rows.len())
    }

    /// The model's answers (every mode judges the same ones).
    pub fn answers(&self) -> usize {
        self.per_mode.first().map_or(0, |m| m.summary.answers)
    }
}
