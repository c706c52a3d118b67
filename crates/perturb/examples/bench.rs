//! Times perturbing a whole dataset natively, per kind, without and with verification:
//! `cargo run --release -p execbench-perturb --example bench -- [dataset.jsonl] [--verify] [--repeat N] [--kind K]`
//! (the dataset defaults to the bundled CRUXEval file; with `--repeat`, each kind's time is the
//! fastest of N runs).

use std::time::Instant;

use execbench_core::{Limits, PythonEngine};
use execbench_perturb::{Kind, Options, perturb_sample, verify};

/// The bundled CRUXEval file, found from this crate whatever the working directory.
const DEFAULT_DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || !["--repeat", "--kind"].contains(&args[i - 1].as_str())))
        .map(|(_, a)| a)
        .cloned()
        .unwrap_or_else(|| DEFAULT_DATASET.to_string());
    let with_verification = args.iter().any(|a| a == "--verify");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let samples = execbench_core::load_jsonl(&path, &text).samples;
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1);
    // The floor: every kind parses its input once (an incremental re-parse checks the output).
    let mut parse_only = f64::INFINITY;
    for _ in 0..repeat {
        let started = Instant::now();
        let valid =
            samples.iter().filter(|s| execbench_perturb::syntax::parse_valid(&s.code, "the code").is_ok()).count();
        parse_only = parse_only.min(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(valid, samples.len(), "every sample parses");
    }
    println!("parse only: {} samples in {parse_only:.1} ms", samples.len());
    let options = Options::default();
    let mut total = 0.0;
    let mut deterministic = 0.0;
    let only: Option<Kind> =
        args.iter().position(|a| a == "--kind").and_then(|i| args.get(i + 1)).and_then(|k| Kind::parse(k));
    for kind in Kind::ALL.into_iter().filter(|k| only.is_none_or(|o| o == *k)) {
        // On a shared machine the fastest of several runs is the least disturbed one.
        let mut best = f64::INFINITY;
        let mut ok = 0;
        for _ in 0..repeat {
            let started = Instant::now();
            let perturbed: Vec<_> = samples.iter().map(|s| perturb_sample(s, kind, &options)).collect();
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
            ok = perturbed.iter().filter(|p| p.is_ok()).count();
        }
        total += best;
        if Kind::DETERMINISTIC.contains(&kind) {
            deterministic += best;
        }
        println!("{:8} {} samples perturbed in {best:8.1} ms ({ok} ok)", kind.name(), samples.len());
    }
    println!("the six deterministic kinds: {deterministic:.1} ms");
    println!("all kinds: {total:.1} ms");
    if with_verification {
        let mut engine = execbench_pyengine::RustPythonEngine::new();
        let limits = Limits { time_ms: 10_000, max_steps: 0 };
        let mut total = 0.0;
        for kind in Kind::ALL {
            let started = Instant::now();
            let mut verified = 0;
            for sample in &samples {
                if let Ok(p) = perturb_sample(sample, kind, &options) {
                    verified += usize::from(verify(&mut engine as &mut dyn PythonEngine, sample, &p, limits).is_ok());
                }
            }
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            total += ms;
            println!("{:8} perturbed + verified in {ms:8.1} ms ({verified} verified)", kind.name());
        }
        println!("all kinds with verification: {total:.1} ms");
    }
}
