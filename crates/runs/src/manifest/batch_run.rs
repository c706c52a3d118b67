//! What a stored run keeps of its batches ([`SubmittedBatch`]) and how a batch run is priced
//! (half the live price, the live one kept beside it): read by the manifest, the run file and
//! the batch job alike, so it sits with the manifest rather than with the job (`execbench_run::batch`).

use execbench_providers::batch::BatchStatus;
use serde::{Deserialize, Serialize};

use crate::cost::{Price, SpendCap};
use crate::manifest::{PriceUsed, RunEntry, RunManifest};

/// A batch the provider accepted, as the run store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubmittedBatch {
    pub id: String,
    /// The lines' custom ids in input order (Gemini's results may come without them).
    pub custom_ids: Vec<String>,
    /// The provider's latest word on it.
    pub status: BatchStatus,
    /// Its results are in the run's records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collected: bool,
}

impl SubmittedBatch {
    /// "batch_abc: in progress, 410 answered, 3 failed of 1000 (provider: in_progress)". Failed
    /// counts errored lines, and (once ended) expired or cancelled ones.
    pub fn describe(&self) -> String {
        let s = &self.status;
        let collected = if self.collected { ", collected" } else { "" };
        format!(
            "{}: {}, {} answered, {} failed of {} (provider: {}){collected}",
            self.id,
            s.phase.label(),
            s.succeeded,
            s.failed,
            if s.total == 0 { self.custom_ids.len() as u64 } else { s.total },
            s.provider_state
        )
    }
}

/// The batch price: half the live price (what every provider's batch service charges; the
/// bundled LiteLLM snapshot carries no `*_batches` fields, which would be taken first).
pub fn batch_price(live: Price) -> Price {
    Price {
        input: live.input / 2.0,
        output: live.output / 2.0,
        cached_input: live.cached_input.map(|p| p / 2.0),
        reasoning: live.reasoning.map(|p| p / 2.0),
    }
}

/// The live price a batch price was made from: the inverse of [`batch_price`], for batch runs
/// stored before their manifest kept the live price.
pub fn live_price_of(batch: Price) -> Price {
    Price {
        input: batch.input * 2.0,
        output: batch.output * 2.0,
        cached_input: batch.cached_input.map(|p| p * 2.0),
        reasoning: batch.reasoning.map(|p| p * 2.0),
    }
}

/// Makes `manifest` a batch run's: costs at the batch price, the live price kept beside it for
/// the answers it may ask live later. The page and the CLI both price a new batch run here.
pub fn price_as_batch_run(manifest: &mut RunManifest) {
    manifest.live_price = manifest.price.clone();
    manifest.price = batch_price_used(manifest.price.take());
}

/// The price a continuation of `entry` asks at (Resume, Extend, Retry errors live: all live): a
/// batch run's live price (kept beside its batch price, or for a run stored before that was
/// kept, its batch price doubled), a live run's own. What a continued run's plan carries.
pub fn live_price_used(entry: &RunEntry) -> Option<PriceUsed> {
    if !entry.is_batch_run() {
        return entry.manifest.price.clone();
    }
    if let Some(live) = &entry.manifest.live_price {
        return Some(live.clone());
    }
    let batch = entry.manifest.price.as_ref()?;
    Some(PriceUsed { price: live_price_of(batch.price), source: format!("{}, doubled: the live price", batch.source) })
}

/// The spend cap a submission is checked against: the run's limit at its batch price, with what
/// its records already cost (answers asked live counted at the live price).
pub fn batch_spend_cap(entry: &RunEntry) -> Option<SpendCap> {
    let (limit, price) = (entry.manifest.spend_cap?, entry.manifest.price.as_ref()?);
    Some(SpendCap { limit, price: price.price, spent_before: entry.cost().unwrap_or(0.0) })
}

/// A batch run's price: the live one halved, its source saying so.
pub fn batch_price_used(live: Option<PriceUsed>) -> Option<PriceUsed> {
    live.map(|p| PriceUsed { price: batch_price(p.price), source: format!("{} at the batch price (half)", p.source) })
}
