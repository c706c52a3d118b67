//! The Verify job: `execbench_dataset_jobs::verify::verify_dataset` in the worker, its totals published.

use execbench_core::verify::{SampleCheck, VerifySummary};
use execbench_core::{Limits, Provenance, Sample};
use execbench_dataset_jobs::verify::verify_dataset;
use leptos::prelude::*;

use super::{FINISHED, JobProgress, STOPPED};
use crate::browser::python::{PythonWorker, VERIFY_JOB};

#[derive(Clone, Copy)]
pub struct VerifyRun {
    pub job: JobProgress,
    pub summary: RwSignal<VerifySummary>,
    /// Every check of the last run, for the download; set when it ends.
    pub checks: StoredValue<Vec<SampleCheck>>,
    /// The verified dataset's provenance, for every exported row.
    pub provenance: StoredValue<Provenance>,
    python: StoredValue<PythonWorker, LocalStorage>,
}

impl VerifyRun {
    /// The job runs in `worker` as `VERIFY_JOB`.
    pub fn new(worker: &PythonWorker) -> Self {
        VerifyRun {
            job: JobProgress::new(),
            summary: RwSignal::new(VerifySummary::default()),
            checks: StoredValue::new(Vec::new()),
            provenance: StoredValue::new(Provenance::default()),
            python: StoredValue::new_local(worker.for_job(VERIFY_JOB)),
        }
    }

    /// `dataset`: its name, for the export's provenance.
    pub fn start(self, samples: Vec<Sample>, dataset: &str) {
        let python = self.python.get_value();
        self.provenance.set_value(Provenance::of_dataset(env!("CARGO_PKG_VERSION"), dataset, &samples));
        let cancel = self.job.begin(format!("Verifying {} samples", samples.len()), samples.len(), &python);
        self.summary.set(VerifySummary::default());
        self.checks.set_value(Vec::new());
        leptos::task::spawn_local(async move {
            let mut on_check = |summary: &VerifySummary, _: &SampleCheck| {
                if self.job.publish(summary.total()) {
                    self.summary.set(summary.clone());
                }
            };
            let outcome = verify_dataset(&python, &samples, Limits::default(), &cancel, &mut on_check).await;
            self.summary.set(outcome.summary);
            self.checks.set_value(outcome.checks);
            self.job.finish(self.checks.with_value(Vec::len), if outcome.stopped { STOPPED } else { FINISHED });
        });
    }

    pub fn stop(self) {
        self.job.stop();
    }
}
