//! What a finished sample leaves behind: its scored results (one per mode) or its error, with the
//! usage, the parameters actually sent, the latency and every attempt. The page and the command
//! line write the same records; no record ever holds an API key (requests are not stored, only
//! the generation parameters, which hold none).

use execbench_eval::report::SampleResult;
use execbench_providers::{ErrorKind, ProviderError, Usage};
use serde::{Deserialize, Serialize};

/// One try at a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// How long it took, ms.
    pub ms: f64,
    /// Why it failed; `None` when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ProviderError>,
}

/// Why a sample has no answers. Such a sample is an error, never a wrong answer: it is left out
/// of pass@k, counted, listed, and "Retry errors" runs it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleError {
    /// The provider error's kind; `None` for an offline model's own failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorKind>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    pub sample_id: String,
    /// Position of the sample in the job (dataset order).
    pub index: usize,
    /// Scored results, one per mode in the job's order; empty when `error` is set.
    pub results: Vec<SampleResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<SampleError>,
    /// Summed over the sample's requests; `None` for offline models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Of `usage`, the tokens a batch run asked live (Resume, Retry errors live, Extend), which
    /// cost the live price; the rest of a batch run's cost the batch price. `None`: a live run's
    /// record, a batch's answers, or a record stored before this was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_usage: Option<Usage>,
    /// The generation parameters sent (model, temperature, max tokens, n, stream, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finish_reasons: Vec<Option<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptRecord>,
    /// From the first request to the last response, ms.
    pub latency_ms: f64,
}

impl SampleRecord {
    /// A sample's record before anything is known of it: no results, no error, no usage. The
    /// engine and batch collecting fill it in, so both write the same fields.
    pub fn new(sample_id: &str, index: usize) -> SampleRecord {
        SampleRecord {
            sample_id: sample_id.to_string(),
            index,
            results: Vec::new(),
            error: None,
            usage: None,
            live_usage: None,
            sent: None,
            finish_reasons: Vec::new(),
            attempts: Vec::new(),
            latency_ms: 0.0,
        }
    }

    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }
}
