//! Writes every kind x seeds 0..4 over a dataset, one file per (kind, seed), so that a change meant
//! to be invisible (an optimization) can be checked byte for byte with `sha256sum DIR/*`:
//! `cargo run --release -p execbench-perturb --example snapshot -- DIR [dataset.jsonl]` (the
//! dataset defaults to the bundled CRUXEval file).
//! Each line is one sample's full result (code, call, edits, hint, or the error) as JSON.

use std::io::Write;

use execbench_perturb::{Kind, Options, perturb_sample};

/// The bundled CRUXEval file, found from this crate whatever the working directory.
const DEFAULT_DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: snapshot DIR [dataset.jsonl]");
        std::process::exit(2);
    };
    let path = args.get(1).cloned().unwrap_or_else(|| DEFAULT_DATASET.to_string());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let samples = execbench_core::load_jsonl(&path, &text).samples;
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
    for kind in Kind::ALL {
        for seed in 0..5 {
            let options = Options::with_seed(seed);
            let file = format!("{dir}/{}-seed{seed}.jsonl", kind.name());
            let mut out =
                std::io::BufWriter::new(std::fs::File::create(&file).unwrap_or_else(|e| panic!("{file}: {e}")));
            for sample in &samples {
                let result = perturb_sample(sample, kind, &options);
                let line = serde_json::to_string(&result).unwrap_or_else(|e| panic!("{}: {e}", sample.id));
                writeln!(out, "{line}").unwrap_or_else(|e| panic!("{file}: {e}"));
            }
        }
    }
}
