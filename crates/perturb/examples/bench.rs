//! Times perturbing a whole dataset natively, per kind, without and with verification:
//! `cargo run --release -p execbench-perturb --example bench -- [dataset.jsonl] [--verify]`.

use std::time::Instant;

use execbench_core::{Limits, PythonEngine};
use execbench_perturb::{Kind, Options, perturb_sample, verify};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.iter().find(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| "/work/shared/data/cruxeval/cruxeval.jsonl".to_string());
    let with_verification = args.iter().any(|a| a == "--verify");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let samples = execbench_core::load_jsonl(&path, &text).samples;
    let options = Options::default();
    let mut total = 0.0;
    for kind in Kind::ALL {
        let started = Instant::now();
        let perturbed: Vec<_> = samples.iter().map(|s| perturb_sample(s, kind, &options)).collect();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        total += ms;
        let ok = perturbed.iter().filter(|p| p.is_ok()).count();
        println!("{:8} {} samples perturbed in {ms:8.1} ms ({ok} ok)", kind.name(), samples.len());
    }
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
