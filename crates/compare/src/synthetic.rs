//! Synthetic runs for timing the comparison (the benchmark's input): not used by the comparison
//! itself. Deterministic for a seed.

use execbench_core::rng::Rng;
use execbench_eval::Task;
use execbench_eval::extract::Extraction;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::report::SampleResult;
use execbench_eval::score::{Mode, SampleScore, Verdict};
use execbench_perturb::Kind;
use execbench_runs::manifest::{FORMAT, RunManifest};
use execbench_runs::record::SampleRecord;

use crate::run::RunInput;

/// The perturbations each synthetic model is run on, with how much each lowers the chance of a
/// right answer.
const SETTINGS: [(Option<Kind>, f64); 3] = [(None, 0.0), (Some(Kind::Ren), 0.05), (Some(Kind::Mcc), 0.2)];

/// `models` × 3 runs (vanilla, REN, MCC) of `samples` samples with `n` answers each, scored in
/// both modes: `synthetic_runs(2, 800, 10, seed)` is the benchmark's 6 runs × 800 × 10.
pub fn synthetic_runs(models: usize, samples: usize, n: usize, seed: u64) -> Vec<RunInput> {
    let mut rng = Rng::new(seed);
    // How hard each sample is, shared by every run so that pairs are correlated as real ones are.
    let difficulty: Vec<f64> = (0..samples).map(|_| rng.unit()).collect();
    let mut runs = Vec::new();
    for m in 0..models {
        let model = format!("model-{m}");
        let skill = 0.45 + 0.4 * m as f64 / models.max(1) as f64;
        for (kind, penalty) in SETTINGS {
            let label = kind.map_or("vanilla".to_string(), |k| k.name().to_string());
            let dataset = match kind {
                None => "synthetic.jsonl".to_string(),
                Some(k) => format!("synthetic-{}-perturbed.jsonl", k.name()),
            };
            let manifest = RunManifest {
                format: FORMAT.to_string(),
                run_id: format!("{model}-{label}"),
                model: model.clone(),
                api: None,
                key_used: false,
                dataset,
                dataset_hash: "synthetic".to_string(),
                samples,
                task: Task::Output,
                template: default_template(Task::Output, Style::Direct),
                n,
                modes: vec![Mode::Strict, Mode::Compatible],
                created: 0,
                app_version: "synthetic".to_string(),
                provenance: kind.map(|k| serde_json::json!({ "kind": k.name(), "seed": 0 })),
                simulation: None,
                price: None,
                live_price: None,
                spend_cap: None,
                stored: None,
                name: None,
            };
            let records = (0..samples).map(|i| {
                let chance = (skill - penalty - 0.5 * difficulty[i] + 0.25).clamp(0.02, 0.98);
                let strict: Vec<Verdict> = (0..n)
                    .map(|_| {
                        if rng.chance(chance) {
                            Verdict::Correct
                        } else {
                            Verdict::WrongValue { got: "0".into(), expected: "1".into() }
                        }
                    })
                    .collect();
                // Compatible mode drops an answer now and then (one that contained the call).
                let compatible: Vec<Verdict> = strict
                    .iter()
                    .enumerate()
                    .map(|(a, v)| {
                        if !v.is_correct() && (i + a) % 7 == 0 {
                            Verdict::Dropped { why: "contains the call".into() }
                        } else {
                            v.clone()
                        }
                    })
                    .collect();
                let id = format!("sample_{i}");
                let result = |mode: Mode, verdicts: Vec<Verdict>| {
                    let responses = verdicts
                        .iter()
                        .map(|v| format!("[ANSWER]{}[/ANSWER]", if v.is_correct() { "1" } else { "0" }))
                        .collect();
                    let extractions =
                        verdicts.iter().map(|v| Extraction::verbatim(if v.is_correct() { "1" } else { "0" })).collect();
                    SampleResult::new(
                        &id,
                        Task::Output,
                        mode,
                        None,
                        responses,
                        extractions,
                        SampleScore::from_verdicts(mode, verdicts),
                    )
                };
                let results = vec![result(Mode::Strict, strict), result(Mode::Compatible, compatible)];
                SampleRecord {
                    sample_id: id.clone(),
                    index: i,
                    results,
                    error: None,
                    usage: None,
                    live_usage: None,
                    sent: None,
                    finish_reasons: Vec::new(),
                    attempts: Vec::new(),
                    latency_ms: 0.0,
                }
            });
            let records: Vec<SampleRecord> = records.collect();
            runs.push(RunInput::new(format!("{model}-{label}.jsonl"), manifest, records));
        }
    }
    runs
}
