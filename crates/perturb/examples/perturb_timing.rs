//! Times the six deterministic kinds over a dataset and writes a digest of every result, so that
//! an optimization can be shown to change nothing:
//! `cargo run --release -p execbench-perturb --example perturb_timing -- [--reps N] [--kind K] [--digest FILE | --no-digest] [dataset.jsonl]`
//! (`--kind` times one kind alone; `--no-digest` only times, e.g. under a profiler).
//!
//! 1. Per kind (default options, as the page's "Perturb all" and crates/bench time them): the
//!    fastest of `--reps` runs (5 by default) over every sample, and the tree-sitter parses run.
//!    Then the six kinds in one pass as a dataset run does them (crates/run): each sample parsed
//!    once ([`Parsed`]) for all kinds, the parsing included.
//! 2. Per kind x seeds 0..4 x both profiles: an FNV-1a hash of the JSON of every sample's result
//!    (code, call, edits, hint, or the error), one line each in the digest file (stdout without
//!    `--digest`). Two digest files that are equal mean byte-identical outputs. Each result is
//!    also computed from the shared [`Parsed`] and must be equal.

use std::fmt::Write as _;
use std::time::Instant;

use execbench_perturb::{Kind, OfflineWrongAnswers, Options, Parsed, Profile, perturb_parsed, perturb_sample, syntax};

/// The bundled CRUXEval file, found from this crate whatever the working directory.
const DEFAULT_DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let reps: usize = value_of("--reps").and_then(|n| n.parse().ok()).unwrap_or(5).max(1);
    let digest_file = value_of("--digest");
    let path = args
        .iter()
        .enumerate()
        .find(|(i, a)| {
            !a.starts_with("--") && (*i == 0 || !["--reps", "--digest", "--kind"].contains(&args[i - 1].as_str()))
        })
        .map_or_else(|| DEFAULT_DATASET.to_string(), |(_, a)| a.clone());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let samples = execbench_core::load_jsonl(&path, &text).samples;

    let only = value_of("--kind").map(|k| Kind::parse(&k).unwrap_or_else(|| panic!("unknown kind `{k}`")));
    let options = Options::default();
    let mut total = 0.0;
    for kind in Kind::DETERMINISTIC.into_iter().filter(|k| only.is_none_or(|o| o == *k)) {
        let mut best = f64::INFINITY;
        let mut ok = 0;
        let mut parses = 0;
        for _ in 0..reps {
            let before = syntax::parse_count();
            let started = Instant::now();
            ok = samples.iter().filter(|s| perturb_sample(s, kind, &options).is_ok()).count();
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
            parses = syntax::parse_count() - before;
        }
        total += best;
        println!("{:8} {best:8.1} ms  {ok:4} ok  {parses:6} parses", kind.name());
    }
    println!("{:8} {total:8.1} ms", "total");
    if only.is_none() {
        let mut best = f64::INFINITY;
        let mut parses = 0;
        for _ in 0..reps {
            let before = syntax::parse_count();
            let started = Instant::now();
            let parsed: Vec<_> = samples.iter().map(Parsed::new).collect();
            for kind in Kind::DETERMINISTIC {
                let ok = samples
                    .iter()
                    .zip(&parsed)
                    .filter(|(s, p)| {
                        p.as_ref().is_ok_and(|p| {
                            perturb_parsed(s, p, kind, &options, &mut OfflineWrongAnswers::default()).is_ok()
                        })
                    })
                    .count();
                std::hint::black_box(ok);
            }
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
            parses = syntax::parse_count() - before;
        }
        println!("{:8} {best:8.1} ms  (the six kinds, each sample parsed once)  {parses:6} parses", "shared");
    }
    if args.iter().any(|a| a == "--no-digest") {
        return;
    }

    let mut digest = String::new();
    let mut all = 0xcbf2_9ce4_8422_2325_u64;
    let parsed: Vec<_> = samples.iter().map(|s| Parsed::new(s).ok()).collect();
    for profile in Profile::ALL {
        for kind in Kind::DETERMINISTIC {
            for seed in 0..5 {
                let options = Options { seed, profile, ..Options::default() };
                let mut hash = 0xcbf2_9ce4_8422_2325_u64;
                for (sample, parsed) in samples.iter().zip(&parsed) {
                    let result = perturb_sample(sample, kind, &options);
                    if let Some(parsed) = parsed {
                        let shared =
                            perturb_parsed(sample, parsed, kind, &options, &mut OfflineWrongAnswers::default());
                        assert_eq!(
                            shared, result,
                            "{} {kind} seed {seed} {profile}: perturb_parsed differs",
                            sample.id
                        );
                    }
                    let line = serde_json::to_string(&result).unwrap_or_else(|e| panic!("{}: {e}", sample.id));
                    hash = fnv1a(hash, line.as_bytes());
                    hash = fnv1a(hash, b"\n");
                }
                all = fnv1a(all, &hash.to_le_bytes());
                let _ = writeln!(digest, "{profile} {} seed{seed} {hash:016x}", kind.name());
            }
        }
    }
    let _ = writeln!(digest, "all {all:016x}");
    match digest_file {
        Some(file) => {
            std::fs::write(&file, &digest).unwrap_or_else(|e| panic!("{file}: {e}"));
            println!("digest of everything: {all:016x} (per kind, seed and profile in {file})");
        }
        None => print!("{digest}"),
    }
}
