//! `execbench build generate`: the Generate step of building a benchmark. A prompt per method
//! (seeded choice of worked examples), answered by the offline candidate source, a replayed file
//! of generations or a model's API (the same provider flags as `execbench run`), through the run
//! engine's generation loop. Every finished response is appended to the generations file at once
//! (so `--resume` asks only for the rest); the candidates (`{id, method, code, input}` a line)
//! are written at the end from every answered response, earlier sessions' included.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;

use execbench_build::Candidate;
use execbench_build::methods::{all_methods, parse_method_list};
use execbench_build::offline::offline_response;
use execbench_build::parse::{ParsedResponse, parse_response};
use execbench_build::prompt::{
    GenerationRequest, PromptTemplate, default_pool, generation_requests, pool_hash, pool_to_jsonl, read_pool,
    request_index,
};
use execbench_build::replay::{GenerationRow, answered_ids, latest_by_id, read_generations};
use execbench_build::{Generation, GeneratorSource};
use execbench_providers::Usage;
use execbench_run::api::ApiModel;
use execbench_run::cost::{SpendCap, format_usd};
use execbench_run::generation::{GenerationEvent, GenerationJob, GenerationSource, generator_for, run_generation};
use execbench_run::{CancelToken, RunEnd};

use crate::api_args::{API_FLAGS, api_key, api_options};
use crate::args::Args;
use crate::http::{NativeHttp, TokioClock};

pub const USAGE: &str = "execbench build generate --methods str.split,list.sort|str|all --per-method N [--seed S] [--source offline|replay FILE|api] [--prompt TEMPLATE.txt] [--pool POOL.jsonl] --out GENERATIONS.jsonl --candidates CANDIDATES.jsonl [--record GENERATION.json] [--resume] [provider flags of `execbench run` with --source api: --provider P --model M [--base-url URL] [--key-env NAME] [--allow-http] ...]\n  execbench build generate --show-template | --show-pool   (the built-in prompt template or example pool, to edit)";
pub const SWITCHES: &[&str] = &["resume", "stream", "allow-http", "show-template", "show-pool"];
const OWN_FLAGS: &[&str] = &[
    "methods",
    "per-method",
    "seed",
    "source",
    "replay",
    "prompt",
    "pool",
    "out",
    "candidates",
    "record",
    "resume",
    "show-template",
    "show-pool",
];

/// `--source replay FILE` as two words: read as `--source replay --replay FILE`.
pub fn normalize(raw: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(raw.len() + 1);
    let mut i = 0;
    while i < raw.len() {
        out.push(raw[i].clone());
        if raw[i] == "--source"
            && raw.get(i + 1).is_some_and(|s| s == "replay")
            && raw.get(i + 2).is_some_and(|s| !s.starts_with("--"))
        {
            out.push("replay".into());
            out.push("--replay".into());
            out.push(raw[i + 2].clone());
            i += 3;
            continue;
        }
        i += 1;
    }
    out
}

enum Source {
    Offline,
    Replay(String),
    Api,
}

fn read_text(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// Returns the exit code: 0 finished, 1 finished with failed requests or stopped at the spend
/// cap, 3 stopped by the provider.
pub fn run(args: &Args) -> Result<i32, String> {
    if args.switch("show-template") {
        print!("{}", PromptTemplate::default().text);
        return Ok(0);
    }
    if args.switch("show-pool") {
        print!("{}", pool_to_jsonl(&default_pool()));
        return Ok(0);
    }
    let known: Vec<&str> = OWN_FLAGS.iter().chain(API_FLAGS).copied().collect();
    args.reject_unknown(&known)?;
    let source = match (args.optional("source"), args.optional("replay")) {
        (None | Some("offline"), None) => Source::Offline,
        (Some("replay"), Some(file)) => Source::Replay(file.to_string()),
        (Some("replay"), None) => return Err("--source replay needs the file: --source replay FILE".into()),
        (Some("api"), None) => Source::Api,
        (_, Some(_)) => return Err("--replay FILE goes with --source replay".into()),
        (Some(other), None) => return Err(format!("unknown --source `{other}` (known: offline, replay FILE, api)")),
    };
    if !matches!(source, Source::Api)
        && let Some(flag) = API_FLAGS.iter().find(|f| args.optional(f).is_some() || args.switch(f))
    {
        return Err(format!("--{flag} is a provider flag: it goes with --source api"));
    }
    let methods = match (args.optional("methods"), &source) {
        (Some(spec), _) => parse_method_list(spec)?,
        (None, Source::Replay(_)) => all_methods(),
        (None, _) => return Err("--methods is required (e.g. str.split,list.sort or all)".into()),
    };
    let per_method: usize = args.number("per-method", 1)?;
    if !(1..=1000).contains(&per_method) {
        return Err(format!("--per-method must be between 1 and 1000, got {per_method}"));
    }
    let seed: u64 = args.number("seed", 0)?;
    let out = args.required("out")?.to_string();
    let candidates_path = args.required("candidates")?.to_string();
    let resume = args.switch("resume");
    let template = match args.optional("prompt") {
        None => PromptTemplate::default(),
        Some(path) => PromptTemplate::new(&read_text(path)?).map_err(|e| format!("{path}: {e}"))?,
    };
    let pool = match args.optional("pool") {
        None => default_pool(),
        Some(path) => {
            let (pool, errors) = read_pool(path, &read_text(path)?);
            if !errors.is_empty() {
                return Err(format!(
                    "the example pool has bad lines:\n  {}",
                    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n  ")
                ));
            }
            pool
        }
    };
    let (api, price, cap) = match source {
        Source::Api => {
            let provider = args.required("provider")?;
            let options = api_options(args, provider, &[])?;
            let key = api_key(&options.key)?;
            (Some(ApiModel { settings: options.api, key }), options.price, options.spend_cap)
        }
        _ => (None, None, None),
    };

    // The requests: prompts per method, or a replayed file's answered rows.
    let (requests, replayed) = match &source {
        Source::Replay(file) => {
            let (rows, errors) = read_generations(file, &read_text(file)?);
            for e in &errors {
                eprintln!("invalid row: {e}");
            }
            let latest = latest_by_id(&rows);
            let mut seen = std::collections::BTreeSet::new();
            let requests: Vec<GenerationRequest> = rows
                .iter()
                .filter(|r| methods.contains(&r.method) && seen.insert(r.id.clone()))
                .map(|r| GenerationRequest { id: r.id.clone(), method: r.method.clone(), prompt: String::new() })
                .collect();
            if requests.is_empty() {
                return Err(format!("{file} has no rows for the methods asked"));
            }
            (requests, Some(latest))
        }
        _ => (generation_requests(&methods, per_method, seed, &template, &pool)?, None),
    };

    // Resume: the rows already in --out; their answered ids are not asked again.
    let earlier: Vec<GenerationRow> = if std::path::Path::new(&out).exists() {
        if !resume {
            return Err(format!("{out} exists: pass --resume to continue it, or choose another --out"));
        }
        let (rows, errors) = read_generations(&out, &read_text(&out)?);
        for e in &errors {
            eprintln!("invalid row (asked again): {e}");
        }
        rows
    } else {
        Vec::new()
    };
    let done = answered_ids(&earlier);
    // The cap covers the whole generation: what the rows already in --out cost counts.
    let spend_cap = match (cap, &price) {
        (Some(limit), Some(price)) => {
            let mut before = Usage::default();
            for row in latest_by_id(&earlier).values() {
                before.add(&Usage {
                    prompt_tokens: row.prompt_tokens.unwrap_or(0),
                    completion_tokens: row.completion_tokens.unwrap_or(0),
                    ..Usage::default()
                });
            }
            Some(SpendCap { limit, price: price.price, spent_before: price.price.cost(&before) })
        }
        _ => None,
    };
    let job = GenerationJob { requests: requests.clone(), done, spend_cap };
    let to_ask = job.requests.iter().filter(|r| !job.done.contains(&r.id)).count();
    let source_name = match &source {
        Source::Offline => format!("offline source (seed {seed})"),
        Source::Replay(file) => format!("replay of {file}"),
        Source::Api => api.as_ref().map(ApiModel::name).unwrap_or_default(),
    };
    eprintln!(
        "{source_name}: {} requests for {} methods ({} already answered, {to_ask} to ask)",
        job.requests.len(),
        methods.len(),
        job.requests.len() - to_ask
    );

    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out)
        .map_err(|e| format!("cannot open {out}: {e}"))?;
    let write_error: RefCell<Option<String>> = RefCell::new(None);
    let cancel = CancelToken::new();
    let fresh: RefCell<Vec<GenerationRow>> = RefCell::new(Vec::new());
    let last_line = RefCell::new(String::new());
    let on_event = |event: GenerationEvent| match event {
        GenerationEvent::Generated(g) => {
            let row = g.row();
            // Appended and flushed at once: a killed run loses only what was in flight.
            if let Err(e) = (&file).write_all(row.line().as_bytes()).and_then(|_| (&file).flush()) {
                write_error.borrow_mut().get_or_insert(format!("cannot write {out}: {e}"));
                cancel.cancel();
            }
            fresh.borrow_mut().push(row);
        }
        GenerationEvent::Status(status) => {
            let line = format!(
                "{}/{} responses, {}; tokens {} in / {} out",
                status.done,
                status.total,
                status.describe(),
                status.usage.prompt_tokens,
                status.usage.completion_tokens
            );
            let mut last = last_line.borrow_mut();
            if status.done == status.total || (status.done % 50 == 0 && *last != line) {
                if *last != line {
                    eprintln!("{line}");
                }
                *last = line;
            }
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let (http, clock) = (NativeHttp::new()?, TokioClock::new());
    let settings = api.as_ref().map(|m| m.settings.clone());
    let mut generation_source = match (&source, api) {
        (Source::Api, Some(model)) => GenerationSource::Api(model),
        (Source::Replay(file), _) => {
            let latest = replayed.unwrap_or_default();
            let file = file.clone();
            GenerationSource::Offline(Box::new(move |r: &GenerationRequest| match latest.get(&r.id) {
                Some(GenerationRow { response: Some(text), .. }) => Ok(text.clone()),
                Some(GenerationRow { error: Some(e), .. }) => {
                    Err(format!("the replayed row of {} in {file} holds an error: {e}", r.id))
                }
                _ => Err(format!("no response for {} in {file}", r.id)),
            }))
        }
        _ => GenerationSource::Offline(Box::new(move |r: &GenerationRequest| {
            offline_response(&r.method, seed, request_index(&r.id))
        })),
    };
    let outcome = runtime.block_on(run_generation(&job, &mut generation_source, &http, &clock, &cancel, &on_event));
    if let Some(e) = write_error.into_inner() {
        return Err(e);
    }

    // Every answered response, earlier sessions' too, in request order, parsed again (the parser
    // is deterministic, so a resumed file gives the candidates a single session would).
    let mut latest: BTreeMap<String, GenerationRow> = latest_by_id(&earlier);
    for row in fresh.into_inner() {
        latest.insert(row.id.clone(), row);
    }
    let mut parsed: Vec<ParsedResponse> = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    let mut usage = Usage::default();
    for request in &requests {
        let Some(row) = latest.get(&request.id) else { continue };
        usage.add(&Usage {
            prompt_tokens: row.prompt_tokens.unwrap_or(0),
            completion_tokens: row.completion_tokens.unwrap_or(0),
            ..Usage::default()
        });
        match (&row.response, &row.error) {
            (Some(text), _) => parsed.push(parse_response(&request.id, &request.method, text)),
            (None, Some(e)) => failed.push((request.id.clone(), e.clone())),
            (None, None) => {}
        }
    }
    let candidates: Vec<&Candidate> = parsed.iter().flat_map(|p| &p.candidates).collect();
    let text: String = candidates.iter().map(|c| serde_json::to_string(c).unwrap_or_default() + "\n").collect();
    std::fs::write(&candidates_path, text).map_err(|e| format!("cannot write {candidates_path}: {e}"))?;

    let unparseable: Vec<&ParsedResponse> = parsed.iter().filter(|p| p.problem.is_some()).collect();
    // The record `build sample --generation` puts in the benchmark's provenance (never a key).
    if let Some(path) = args.optional("record") {
        let kind = match source {
            Source::Offline => GeneratorSource::Offline,
            Source::Replay(_) => GeneratorSource::Replay,
            Source::Api => GeneratorSource::Model,
        };
        let generator = generator_for(kind, settings.as_ref(), seed);
        let record = Generation {
            generator,
            methods: methods.clone(),
            prompt_template: template.text.clone(),
            few_shot_pool_hash: pool_hash(&pool),
            responses: parsed.len(),
            unparseable: unparseable.len(),
        };
        let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())? + "\n";
        std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    eprintln!(
        "{}; {} of {} requests answered, {} failed",
        outcome.end.describe(),
        parsed.len(),
        requests.len(),
        failed.len()
    );
    for (id, e) in failed.iter().take(10) {
        eprintln!("  failed: {id}: {e}");
    }
    for p in unparseable.iter().take(10) {
        eprintln!("  unparseable: {}: {}", p.request_id, p.problem.as_deref().unwrap_or(""));
    }
    println!("responses: {} answered, {} unparseable, {} failed", parsed.len(), unparseable.len(), failed.len());
    println!(
        "candidates: {} from {} functions, written to {candidates_path}",
        candidates.len(),
        parsed.len() - unparseable.len()
    );
    if matches!(source, Source::Api) {
        println!("tokens: {} prompt, {} completion", usage.prompt_tokens, usage.completion_tokens);
        if let Some(price) = &price {
            println!("cost: {} (price: {})", format_usd(price.price.cost(&usage)), price.source);
        }
    }
    Ok(match outcome.end {
        RunEnd::Finished if failed.is_empty() => 0,
        RunEnd::ProviderStopped(_) | RunEnd::StoreFailed(_) => 3,
        _ => 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(raw: &[&str]) -> Args {
        Args::parse(&normalize(&raw.iter().map(|s| s.to_string()).collect::<Vec<_>>()), SWITCHES).expect("flags parse")
    }

    #[test]
    fn flags_are_checked_before_any_work() {
        let base = ["--out", "/nonexistent/g.jsonl", "--candidates", "/nonexistent/c.jsonl"];
        let cases: &[(&[&str], &str)] = &[
            (&[], "--methods is required"),
            (&["--methods", "str.splat"], "unknown method `str.splat`"),
            (&["--methods", "all", "--per-method", "0"], "--per-method must be between 1 and 1000, got 0"),
            (&["--methods", "all", "--source", "cloud"], "unknown --source `cloud`"),
            (&["--methods", "all", "--source", "replay"], "--source replay needs the file"),
            (&["--methods", "all", "--model", "m"], "--model is a provider flag: it goes with --source api"),
            (&["--methods", "all", "--source", "api"], "--provider is required"),
            (
                &["--methods", "all", "--source", "api", "--provider", "openai", "--model", "m", "--spend-cap", "1"],
                "--spend-cap needs a price",
            ),
            (&["--methods", "all", "--api-key", "sk"], "unknown flag --api-key"),
            (&["--methods", "all", "--source", "replay", "/nonexistent/r.jsonl"], "cannot read /nonexistent/r.jsonl"),
        ];
        for (extra, message) in cases {
            let err = run(&parsed(&[&base[..], extra].concat())).err().unwrap_or_default();
            assert!(err.starts_with(message), "{extra:?}: {err}");
        }
    }

    #[test]
    fn replay_file_reads_as_two_words_or_a_flag() {
        let cases: &[(&[&str], &[&str])] = &[
            (
                &["--source", "replay", "g.jsonl", "--seed", "1"],
                &["--source", "replay", "--replay", "g.jsonl", "--seed", "1"],
            ),
            (&["--source", "replay", "--replay", "g.jsonl"], &["--source", "replay", "--replay", "g.jsonl"]),
            (&["--source", "offline", "--seed", "1"], &["--source", "offline", "--seed", "1"]),
        ];
        for (raw, want) in cases {
            let raw: Vec<String> = raw.iter().map(|s| s.to_string()).collect();
            assert_eq!(normalize(&raw), want.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        }
        assert_eq!((request_index("str.split-12"), request_index("weird")), (12, 1));
    }
}
