//! `execbench build sample`: the kept rows deduplicated, N sampled with a seed (optionally
//! balanced across methods), exported in CRUXEval's row shape, with the provenance as JSON.

use execbench_build::{DEFAULT_N, Judged, SampleSpec, build_benchmark, read_generation, read_kept, read_rejected};

use crate::args::Args;

pub const USAGE: &str = "execbench build sample --in KEPT.jsonl [--n N] [--seed S] [--balanced] [--rejected REJECTED.jsonl] [--generation GEN.json] --out BENCH.jsonl [--provenance PROV.json]";

pub const SWITCHES: &[&str] = &["balanced"];

fn read(path: &str) -> Result<String, String> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| format!("cannot read {path}: {e}"))
}

/// Returns the process exit code: 0 when the benchmark was written, 1 when nothing could be.
pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["in", "n", "seed", "balanced", "rejected", "generation", "out", "provenance"])?;
    let input = args.required("in")?;
    let out = args.required("out")?;
    let spec = SampleSpec {
        n: args.number("n", DEFAULT_N)?,
        seed: args.number("seed", 0u64)?,
        balanced: args.switch("balanced"),
    };
    let (kept, mut errors) = read_kept(input, &read(input)?);
    let mut judged: Vec<Judged> = kept.iter().map(|k| k.judged()).collect();
    if let Some(path) = args.optional("rejected") {
        let (rejected, bad) = read_rejected(path, &read(path)?);
        judged.extend(rejected);
        errors.extend(bad);
    }
    for error in &errors {
        eprintln!("invalid row: {error}");
    }
    let generation = match args.optional("generation") {
        Some(path) => Some(read_generation(path, &read(path)?)?),
        None => None,
    };
    let built = match build_benchmark(env!("CARGO_PKG_VERSION"), &judged, generation, spec) {
        Ok(built) => built,
        Err(problems) => {
            for problem in problems {
                eprintln!("{problem}");
            }
            return Ok(1);
        }
    };
    std::fs::write(out, &built.jsonl).map_err(|e| format!("cannot write {out}: {e}"))?;
    let p = &built.provenance;
    if let Some(path) = args.optional("provenance") {
        std::fs::write(path, p.to_pretty_json()).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    let how = if spec.balanced { "balanced across methods" } else { "not balanced" };
    println!(
        "{} kept rows, {} invalid rows, {} duplicates dropped, {} unique",
        kept.len(),
        errors.len(),
        p.duplicates_dropped,
        p.funnel.unique
    );
    println!(
        "sampled {} of {} (seed {}, {how}) into {out}, dataset hash {}",
        p.rows, p.funnel.unique, spec.seed, p.dataset_hash
    );
    Ok(0)
}
