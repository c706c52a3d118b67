//! The Perturb job: `execbench_run::perturbation::perturb_and_verify` (perturbing on the page's
//! thread in slices, verifying in the worker), its counts published.

use std::collections::BTreeMap;

use execbench_core::{Limits, Provenance, Sample};
use execbench_perturb::{ExportRow, Failure, Kind, Options};
use execbench_run::perturbation::{KindCounts, PerturbJob, PerturbTally, perturb_and_verify};
use leptos::prelude::*;

use super::{FINISHED, JobProgress, STOPPED};
use crate::browser::clock::BrowserClock;
use crate::browser::python::{PERTURB_JOB, PythonWorker};

#[derive(Clone, Copy)]
pub struct PerturbRun {
    pub job: JobProgress,
    pub counts: RwSignal<BTreeMap<Kind, KindCounts>>,
    pub failures: RwSignal<Vec<Failure>>,
    /// Verified rows of the last run, in (kind, seed, sample) order like the command line's; set
    /// when it ends.
    pub rows: StoredValue<Vec<ExportRow>>,
    pub row_count: RwSignal<usize>,
    /// `RTF` or `REN+RTF`: the chosen kinds, for the download's name.
    pub kinds_label: StoredValue<String>,
    /// The original dataset's provenance, for every exported row.
    pub provenance: StoredValue<Provenance>,
    python: StoredValue<PythonWorker, LocalStorage>,
}

impl PerturbRun {
    /// The job runs in `worker` as `PERTURB_JOB`.
    pub fn new(worker: &PythonWorker) -> Self {
        PerturbRun {
            job: JobProgress::new(),
            counts: RwSignal::new(BTreeMap::new()),
            failures: RwSignal::new(Vec::new()),
            rows: StoredValue::new(Vec::new()),
            row_count: RwSignal::new(0),
            kinds_label: StoredValue::new(String::new()),
            provenance: StoredValue::new(Provenance::default()),
            python: StoredValue::new_local(worker.for_job(PERTURB_JOB)),
        }
    }

    /// `dataset`: the export's `dataset` column. `options.seed` is replaced by each of `seeds`.
    pub fn start(self, samples: Vec<Sample>, dataset: String, kinds: Vec<Kind>, seeds: Vec<u64>, options: Options) {
        let python = self.python.get_value();
        let label = kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join("+");
        let total = samples.len() * kinds.iter().map(|k| k.seeds_that_matter(&seeds).len()).sum::<usize>();
        let cancel = self.job.begin(format!("Perturbing with {label}"), total, &python);
        self.kinds_label.set_value(label);
        self.provenance.set_value(Provenance::of_dataset(env!("CARGO_PKG_VERSION"), &dataset, &samples));
        self.rows.set_value(Vec::new());
        self.row_count.set(0);
        self.failures.set(Vec::new());
        // Every chosen kind has its row in the summary from the start.
        self.counts.set(kinds.iter().map(|&k| (k, KindCounts::default())).collect());
        leptos::task::spawn_local(async move {
            let job = PerturbJob { samples: &samples, dataset: &dataset, kinds: &kinds, seeds: &seeds, options, limits: Limits::default() };
            let outcome = perturb_and_verify(&python, &BrowserClock, &job, &cancel, &mut |tally| {
                if self.job.publish(tally.done) {
                    self.show(tally);
                }
            })
            .await;
            self.show(&outcome.tally);
            self.rows.set_value(outcome.tally.rows);
            self.job.finish(outcome.tally.done, if outcome.stopped { STOPPED } else { FINISHED });
        });
    }

    pub fn stop(self) {
        self.job.stop();
    }

    /// Redraws the summary; the failure list only when it grew.
    fn show(self, tally: &PerturbTally) {
        self.counts.set(tally.counts.clone());
        if self.failures.with_untracked(Vec::len) != tally.failures.len() {
            self.failures.set(tally.failures.clone());
        }
        self.row_count.set(tally.rows.len());
    }
}
