//! `execbench build sample`: the kept rows deduplicated, N sampled with a seed (optionally
//! balanced across methods), exported in CRUXEval's row shape, with the provenance as JSON.

use execbench_recipe::{DEFAULT_N, Judged, SampleSpec, build_benchmark, read_generation, read_kept, read_rejected};

#[derive(clap::Args, Debug)]
pub struct SampleArgs {
    /// The kept rows (`build filter --out`)
    #[arg(long = "in", value_name = "KEPT.jsonl")]
    input: String,
    /// How many to sample
    #[arg(long, value_name = "N", default_value_t = DEFAULT_N)]
    n: usize,
    /// The sampling's seed
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// As many from each method as can be
    #[arg(long)]
    balanced: bool,
    /// The rejected rows, for the provenance's funnel
    #[arg(long, value_name = "REJECTED.jsonl")]
    rejected: Option<String>,
    /// `build generate --record`'s file, for the provenance
    #[arg(long, value_name = "GENERATION.json")]
    generation: Option<String>,
    /// Where the benchmark goes (CRUXEval's row shape)
    #[arg(long, value_name = "BENCH.jsonl")]
    out: String,
    /// Also the provenance, as JSON
    #[arg(long, value_name = "PROV.json")]
    provenance: Option<String>,
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| format!("cannot read {path}: {e}"))
}

/// Returns the process exit code: 0 when the benchmark was written, 1 when nothing could be.
pub fn run(args: &SampleArgs) -> Result<i32, String> {
    let (input, out) = (args.input.as_str(), args.out.as_str());
    let spec = SampleSpec { n: args.n, seed: args.seed, balanced: args.balanced };
    let (kept, mut errors) = read_kept(input, &read(input)?);
    let mut judged: Vec<Judged> = kept.iter().map(|k| k.judged()).collect();
    if let Some(path) = &args.rejected {
        let (rejected, bad) = read_rejected(path, &read(path)?);
        judged.extend(rejected);
        errors.extend(bad);
    }
    for error in &errors {
        eprintln!("invalid row: {error}");
    }
    let generation = match &args.generation {
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
    if let Some(path) = &args.provenance {
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
