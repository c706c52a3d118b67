//! Retry errors of a batch run: its errored, expired and cancelled lines are error records, and
//! they are asked again either as a new batch of the same run (the default: half price) or live.
//! Samples a batch not yet collected still holds are never asked again: they are paid for.

use execbench_core::Sample;

use super::pending_samples;
use crate::manifest::RunEntry;
use crate::record::SampleRecord;
use crate::session::{self, Continuation, Continue};

/// How Retry errors asks again for a batch run's errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryVia {
    /// Submitted as a new batch of the same run (`submit_run`).
    Batch,
    /// Asked live, as any run's Retry errors (`run_session`).
    Live,
}

impl RetryVia {
    pub const LABELS: &'static str = "batch, live";

    pub fn from_label(label: &str) -> Option<RetryVia> {
        match label {
            "batch" => Some(RetryVia::Batch),
            "live" => Some(RetryVia::Live),
            _ => None,
        }
    }
}

/// The Retry errors plan of a batch run: the samples whose record is an error and those with no
/// record, except the samples of batches still waiting. Live is refused while a batch waits (its
/// ending would be stored over the waiting state); either is refused when nothing is left to ask.
pub fn retry_errors(
    entry: &RunEntry,
    records: Vec<SampleRecord>,
    dataset: &[Sample],
    via: RetryVia,
    cap: Option<f64>,
) -> Result<Continuation, String> {
    let pending = pending_samples(&entry.batches);
    if via == RetryVia::Live && !pending.is_empty() {
        return Err(format!(
            "{}: {} samples are still in batches not yet collected: check the batches first (or retry as a new batch)",
            entry.id(),
            pending.len()
        ));
    }
    let mut plan = session::continuation(entry, records, dataset, Continue::RetryErrors, cap)?;
    let waiting: Vec<String> = pending.iter().filter_map(|&i| plan.job.samples.get(i).map(|s| s.id.clone())).collect();
    plan.job.done.extend(waiting);
    if plan.job.samples.iter().all(|s| plan.job.done.contains(&s.id)) {
        return Err(format!("{}: no errors and no samples without a record: nothing to retry", entry.id()));
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use execbench_providers::batch::{self as wire, BatchPhase, BatchStatus};

    use super::*;
    use crate::batch::SubmittedBatch;
    use crate::manifest::dataset_hash;
    use crate::session::endings::samples_of;
    use crate::store::conformance::{manifest, record};

    fn batch(samples: &[usize], collected: bool) -> SubmittedBatch {
        SubmittedBatch {
            id: "b".into(),
            custom_ids: samples.iter().map(|&s| wire::custom_id(s, 0)).collect(),
            status: BatchStatus {
                id: "b".into(),
                phase: if collected { BatchPhase::Expired } else { BatchPhase::InProgress },
                provider_state: "x".into(),
                total: samples.len() as u64,
                succeeded: 0,
                failed: 0,
                result_files: Vec::new(),
                reason: None,
            },
            collected,
        }
    }

    /// Which samples each choice asks again for, and when it is refused.
    #[test]
    fn retry_errors_asks_for_errors_and_never_for_waiting_samples() {
        // (records: (sample, is error), batches, via, the samples asked or the refusal's words)
        type Case =
            (&'static [(usize, bool)], Vec<SubmittedBatch>, RetryVia, Result<&'static [&'static str], &'static str>);
        let cases: Vec<Case> = vec![
            (
                &[(0, false), (1, true), (2, true), (3, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Batch,
                Ok(&["s1", "s2"]),
            ),
            (
                &[(0, false), (1, true), (2, true), (3, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Live,
                Ok(&["s1", "s2"]),
            ),
            // A sample with no record is asked too.
            (
                &[(0, false), (1, true), (2, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Batch,
                Ok(&["s1", "s3"]),
            ),
            // Samples in a batch still waiting are paid for: left out of a new batch...
            (&[(0, true), (1, false)], vec![batch(&[0, 1], true), batch(&[2, 3], false)], RetryVia::Batch, Ok(&["s0"])),
            // ...and live waits until every batch is collected.
            (
                &[(0, true), (1, false)],
                vec![batch(&[0, 1], true), batch(&[2, 3], false)],
                RetryVia::Live,
                Err("still in batches not yet collected"),
            ),
            (
                &[(0, false), (1, false), (2, false), (3, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Batch,
                Err("nothing to retry"),
            ),
            (
                &[(0, false), (1, false)],
                vec![batch(&[0, 1], true), batch(&[2, 3], false)],
                RetryVia::Batch,
                Err("nothing to retry"),
            ),
        ];
        let data = samples_of(4);
        for (i, (records, batches, via, want)) in cases.into_iter().enumerate() {
            let mut m = manifest("run-1", 1);
            m.samples = data.len();
            m.dataset_hash = dataset_hash(&data);
            let mut entry = RunEntry::new(m, 0.0);
            entry.batches = batches;
            let records = records.iter().map(|&(s, error)| record(&format!("s{s}"), s, Some(1.0), error)).collect();
            match (retry_errors(&entry, records, &data, via, None), want) {
                (Ok(plan), Ok(asked)) => {
                    let got: Vec<&str> = plan
                        .job
                        .samples
                        .iter()
                        .filter(|s| !plan.job.done.contains(&s.id))
                        .map(|s| s.id.as_str())
                        .collect();
                    assert_eq!(got, asked, "case {i}");
                }
                (Err(e), Err(words)) => assert!(e.contains(words), "case {i}: {e}"),
                (got, want) => panic!("case {i}: got {:?}, want {want:?}", got.map(|p| p.job.done)),
            }
        }
    }
}
