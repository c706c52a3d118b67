//! What a run asks a model with, except the key ([`ApiSettings`]): stored with the run and
//! exported, so it sits with the manifest that keeps it, below the asking (`execbench_run::api`):
//! the endpoint and parameters, the retry policy, the local model's files and the simulated
//! model's behaviour.

use execbench_providers::{Endpoint, GenerationParams, NotSent};
use serde::{Deserialize, Serialize};

/// Everything about calling a model except the key: safe to store and export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiSettings {
    pub endpoint: Endpoint,
    pub params: GenerationParams,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Least time between two request starts, ms.
    pub delay_ms: u64,
    /// Time-out of one request, ms (CodeCrash uses 300 s).
    pub timeout_ms: u64,
    pub retry: RetryPolicy,
    /// The in-process model's files, for the `local` provider: what Resume loads again and
    /// checks is unchanged. `None` for every server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_model: Option<LocalModelFile>,
    /// What the run asked for that its model does not take ([`ApiSettings::fit_to_model`]): left
    /// out of every request, so `params` is what was sent. Said before the run starts and kept
    /// with it, so a report never claims a temperature the model did not use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_sent: Vec<NotSent>,
}

/// The GGUF model (and tokenizer.json, when one was given) a `local` run answers with
/// (`crates/localmodel`), named and fingerprinted so a run is resumed with the very same model or
/// refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalModelFile {
    /// Where the GGUF file was read from (the command line: its path).
    pub gguf: String,
    pub gguf_bytes: u64,
    /// Lowercase hex.
    pub gguf_sha256: String,
    /// Where tokenizer.json was read from; `None` (written as `null`): the run used the GGUF
    /// file's own tokenizer (its metadata, fingerprinted with the file by `gguf_sha256`).
    pub tokenizer: Option<String>,
    /// The tokenizer.json's SHA-256 (lowercase hex); `None` with the GGUF's own tokenizer.
    pub tokenizer_sha256: Option<String>,
}

impl ApiSettings {
    pub fn new(endpoint: Endpoint) -> Self {
        ApiSettings {
            endpoint,
            params: GenerationParams::default(),
            concurrency: 4,
            delay_ms: 0,
            timeout_ms: 300_000,
            retry: RetryPolicy::default(),
            local_model: None,
            not_sent: Vec::new(),
        }
    }

    /// Fits `params` to the model (`execbench_providers::fit`): afterwards they are what every
    /// request carries, and `not_sent` lists what was left out and why. Fitting again adds
    /// nothing (what was left out is no longer asked for).
    pub fn fit_to_model(&mut self) -> &[NotSent] {
        let fitted = execbench_providers::fit(&self.endpoint, &self.params);
        self.params = fitted.params;
        self.not_sent.extend(fitted.not_sent);
        &self.not_sent
    }
}

/// How many times a request is tried again and how long to wait (`execbench_run::backoff` decides).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// Retries after transient faults, per request.
    pub max_retries: u32,
    /// Waits after rate limits, per request.
    pub max_rate_limit_waits: u32,
    /// First back-off delay; doubles each time.
    pub base_ms: u64,
    /// Longest back-off delay.
    pub cap_ms: u64,
    /// A provider asking for a longer wait than this has a quota that will not recover soon.
    pub longest_wait_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 5,
            max_rate_limit_waits: 10,
            base_ms: 1_000,
            cap_ms: 60_000,
            longest_wait_ms: 300_000,
        }
    }
}

/// How the simulated model behaves.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Simulation {
    /// Time to the whole answer, ms.
    pub latency_ms: u64,
    /// Every k-th sample (by its position) is answered wrong; `None`: always right.
    pub wrong_every: Option<usize>,
    /// Tokens of simulated reasoning added to every answer (billed as output).
    pub reasoning_tokens: u64,
}

impl Default for Simulation {
    fn default() -> Self {
        Simulation { latency_ms: 400, wrong_every: Some(4), reasoning_tokens: 0 }
    }
}
