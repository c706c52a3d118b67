//! The reproduction re-scoring job: `execbench_dataset_jobs::reproduction::rescore_reproductions` in the
//! worker, its report published as it grows.

use execbench_core::{Limits, Provenance, Sample};
use execbench_dataset_jobs::reproduction::rescore_reproductions;
use execbench_eval::reproduction::{ReproductionReport, ReproductionRow};
use leptos::prelude::*;

use super::{FINISHED, JobProgress, STOPPED};
use crate::browser::python::PythonWorker;

#[derive(Clone, Copy)]
pub struct ReproductionRun {
    pub job: JobProgress,
    pub report: RwSignal<ReproductionReport>,
    /// The results file's name, for the export's name.
    pub file: RwSignal<String>,
    /// The dataset's provenance, for every exported row.
    pub provenance: StoredValue<Provenance>,
    python: StoredValue<PythonWorker, LocalStorage>,
}

impl ReproductionRun {
    /// The job runs in `worker` under a job id of its own, so its Stop ends only its runs.
    pub fn new(worker: &PythonWorker) -> Self {
        ReproductionRun {
            job: JobProgress::new(),
            report: RwSignal::new(ReproductionReport::default()),
            file: RwSignal::new(String::new()),
            provenance: StoredValue::new(Provenance::default()),
            python: StoredValue::new_local(worker.new_job()),
        }
    }

    /// `file`: the results file's name; `dataset`: the dataset's, for the provenance.
    pub fn start(self, rows: Vec<ReproductionRow>, samples: Vec<Sample>, file: &str, dataset: &str) {
        let python = self.python.get_value();
        let mut provenance = Provenance::of_dataset(env!("CARGO_PKG_VERSION"), dataset, &samples);
        provenance.model = Some(format!("reproduction: {file}"));
        self.provenance.set_value(provenance);
        self.file.set(file.to_string());
        let cancel = self.job.begin(format!("Re-scoring {} rows of {file}", rows.len()), rows.len(), &python);
        self.report.set(ReproductionReport::default());
        leptos::task::spawn_local(async move {
            let mut on_row = |done: usize, report: &ReproductionReport, _: Option<&_>| {
                if self.job.publish(done) {
                    self.report.set(report.clone());
                }
            };
            let outcome =
                rescore_reproductions(&python, &rows, &samples, Limits::default(), &cancel, &mut on_row).await;
            let done = outcome.report.rescored.len() + outcome.report.unknown_rows();
            self.report.set(outcome.report);
            self.job.finish(done, if outcome.stopped { STOPPED } else { FINISHED });
        });
    }

    pub fn stop(self) {
        self.job.stop();
    }
}
