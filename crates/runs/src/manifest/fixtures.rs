//! A stored run and its records as the tests of every store, the manifest and the run file build
//! them: an offline ("oracle") run of 3 samples and a record with the given pass@1. Public for
//! the stores' conformance table in other crates ([`crate::store::conformance`]).

use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::report::SampleResult;
use execbench_eval::score::Mode;
use execbench_providers::Usage;

use crate::manifest::{FORMAT, RunManifest};
use crate::record::{SampleError, SampleRecord};

/// An offline run's manifest, made at `created` (seconds since 1970).
pub fn manifest(run_id: &str, created: u64) -> RunManifest {
    RunManifest {
        format: FORMAT.into(),
        run_id: run_id.into(),
        model: "oracle".into(),
        api: None,
        key_used: false,
        dataset: "d.jsonl".into(),
        dataset_hash: "0123456789abcdef".into(),
        samples: 3,
        task: Task::Output,
        template: default_template(Task::Output, Style::Direct),
        n: 1,
        modes: vec![Mode::Strict],
        created,
        app_version: "test".into(),
        provenance: None,
        simulation: None,
        price: None,
        live_price: None,
        spend_cap: None,
        stored: None,
        name: None,
    }
}

/// Sample `index`'s record: passed with `pass` (`None`: unscored), or an HTTP 503 error.
pub fn record(id: &str, index: usize, pass: Option<f64>, error: bool) -> SampleRecord {
    let result = SampleResult {
        id: id.into(),
        task: Task::Output,
        mode: Mode::Strict,
        prompt: None,
        answers: Vec::new(),
        n: 1,
        correct: pass.map_or(0, |p| (p > 0.0) as usize),
        dropped: 0,
        pass_at_1: pass,
        pass_at_5: None,
        model_error: None,
        question: None,
        program: None,
    };
    SampleRecord {
        sample_id: id.into(),
        index,
        results: if error { Vec::new() } else { vec![result] },
        error: error.then(|| SampleError { kind: None, message: "HTTP 503".into() }),
        usage: Some(Usage { prompt_tokens: 100, completion_tokens: 10, reasoning_tokens: 0, cached_tokens: 0 }),
        live_usage: None,
        sent: None,
        finish_reasons: Vec::new(),
        attempts: Vec::new(),
        latency_ms: 5.0,
    }
}
