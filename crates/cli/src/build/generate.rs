//! `execbench build generate`: the Generate step of building a benchmark. A prompt per method
//! (seeded choice of worked examples), answered by the offline candidate source, a replayed file
//! of generations or a model's API (the same provider flags as `execbench run`), through the run
//! engine's generation loop. Every finished response is appended to the generations file at once
//! (so `--resume` asks only for the rest); the candidates (`{id, method, code, input}` a line)
//! are written at the end from every answered response, earlier sessions' included.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;

use execbench_providers::Usage;
use execbench_recipe::Candidate;
use execbench_recipe::methods::{all_methods, parse_method_list};
use execbench_recipe::offline::offline_response;
use execbench_recipe::parse::{ParsedResponse, parse_response};
use execbench_recipe::prompt::{
    GenerationRequest, PromptTemplate, default_pool, generation_requests, pool_hash, pool_to_jsonl, read_pool,
    request_index,
};
use execbench_recipe::replay::{GenerationRow, answered_ids, latest_by_id, read_generations};
use execbench_recipe::{Generation, GeneratorSource};
use execbench_run::api::ApiModel;
use execbench_run::cost::{SpendCap, format_usd};
use execbench_run::generation::{GenerationEvent, GenerationJob, GenerationSource, generator_for, run_generation};
use execbench_run::{CancelToken, RunEnd};

use crate::api_args::{ApiFlags, api_key, api_options};
use crate::http::{NativeHttp, TokioClock};
use crate::progress::StatusBar;

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// Methods to write functions for: a list (str.split,list.sort), a type (str) or all
    #[arg(long, value_name = "LIST|all")]
    methods: Option<String>,
    /// Prompts per method (1 to 1000)
    #[arg(long, value_name = "N", default_value_t = 1)]
    per_method: usize,
    /// The seed of the worked examples' choice (and of the offline source)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Where the answers come from: offline, replay FILE, or api [default: offline]
    #[arg(long, value_name = "SOURCE", num_args = 1..=2)]
    source: Vec<String>,
    /// With --source replay: the generations file replayed
    #[arg(long, value_name = "FILE")]
    replay: Option<String>,
    /// A prompt template of your own (see --show-template)
    #[arg(long, value_name = "TEMPLATE.txt")]
    prompt: Option<String>,
    /// An example pool of your own (see --show-pool)
    #[arg(long, value_name = "POOL.jsonl")]
    pool: Option<String>,
    /// The generations file, appended to as responses arrive
    #[arg(long, value_name = "GENERATIONS.jsonl", required_unless_present_any = ["show_template", "show_pool"])]
    out: Option<String>,
    /// Where the candidates go
    #[arg(long, value_name = "CANDIDATES.jsonl", required_unless_present_any = ["show_template", "show_pool"])]
    candidates: Option<String>,
    /// Also the generation's record, for `build sample --generation`
    #[arg(long, value_name = "GENERATION.json")]
    record: Option<String>,
    /// Continue the generations file --out names, asking only for what is not yet answered
    #[arg(long)]
    resume: bool,
    /// Print the built-in prompt template, to edit
    #[arg(long)]
    show_template: bool,
    /// Print the built-in example pool, to edit
    #[arg(long)]
    show_pool: bool,
    /// With --source api: the model API's preset
    #[arg(long, value_name = "P")]
    provider: Option<String>,
    #[command(flatten)]
    pub api: ApiFlags,
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
pub fn run(args: &GenerateArgs) -> Result<i32, String> {
    if args.show_template {
        print!("{}", PromptTemplate::default().text);
        return Ok(0);
    }
    if args.show_pool {
        print!("{}", pool_to_jsonl(&default_pool()));
        return Ok(0);
    }
    let source_words: Vec<&str> = args.source.iter().map(String::as_str).collect();
    let source = match (source_words.as_slice(), args.replay.as_deref()) {
        ([] | ["offline"], None) => Source::Offline,
        (["replay", file], None) => Source::Replay(file.to_string()),
        (["replay"], Some(file)) => Source::Replay(file.to_string()),
        (["replay"], None) => return Err("--source replay needs the file: --source replay FILE".into()),
        (["api"], None) => Source::Api,
        (["replay", _], Some(_)) => return Err("--source replay FILE or --replay FILE, not both".into()),
        (_, Some(_)) => return Err("--replay FILE goes with --source replay".into()),
        (words, None) => {
            return Err(format!("unknown --source `{}` (known: offline, replay FILE, api)", words.join(" ")));
        }
    };
    if !matches!(source, Source::Api) {
        let provider = args.provider.is_some().then_some("provider");
        if let Some(flag) = provider.into_iter().chain(args.api.given()).next() {
            return Err(format!("--{flag} is a provider flag: it goes with --source api"));
        }
    }
    let methods = match (args.methods.as_deref(), &source) {
        (Some(spec), _) => parse_method_list(spec)?,
        (None, Source::Replay(_)) => all_methods(),
        (None, _) => return Err("--methods is required (e.g. str.split,list.sort or all)".into()),
    };
    let per_method = args.per_method;
    if !(1..=1000).contains(&per_method) {
        return Err(format!("--per-method must be between 1 and 1000, got {per_method}"));
    }
    let seed = args.seed;
    let out = args.out.clone().ok_or("--out is required")?;
    let candidates_path = args.candidates.clone().ok_or("--candidates is required")?;
    let resume = args.resume;
    let template = match args.prompt.as_deref() {
        None => PromptTemplate::default(),
        Some(path) => PromptTemplate::new(&read_text(path)?).map_err(|e| format!("{path}: {e}"))?,
    };
    let pool = match args.pool.as_deref() {
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
            let provider = args.provider.as_deref().ok_or("--provider is required")?;
            let options = api_options(&args.api, provider, &[])?;
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
    let bar = StatusBar::on_terminal(to_ask);
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
            if let Some(bar) = &bar {
                let message = format!(
                    "{}; tokens {} in / {} out",
                    status.describe(),
                    status.usage.prompt_tokens,
                    status.usage.completion_tokens
                );
                bar.show(status.done, status.total, &message);
                return;
            }
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
    if let Some(path) = &args.record {
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

    fn parsed(raw: &[&str]) -> Result<GenerateArgs, clap::Error> {
        match crate::cli::parse_from([&["execbench", "build", "generate"][..], raw].concat())?.command {
            crate::cli::Command::Build(crate::build::BuildCommand::Generate(args)) => Ok(args),
            other => panic!("{other:?}"),
        }
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
            (
                &["--methods", "all", "--source", "replay", "a.jsonl", "--replay", "b.jsonl"],
                "--source replay FILE or --replay FILE, not both",
            ),
            (&["--methods", "all", "--replay", "b.jsonl"], "--replay FILE goes with --source replay"),
            (&["--methods", "all", "--source", "offline", "x"], "unknown --source `offline x`"),
            (&["--methods", "all", "--source", "replay", "/nonexistent/r.jsonl"], "cannot read /nonexistent/r.jsonl"),
        ];
        for (extra, message) in cases {
            let err = run(&parsed(&[&base[..], extra].concat()).expect("flags parse")).err().unwrap_or_default();
            assert!(err.starts_with(message), "{extra:?}: {err}");
        }
    }

    #[test]
    fn replay_file_reads_as_two_words_or_a_flag() {
        // (flags, --source's words, --replay, --seed)
        type Case<'a> = (&'a [&'a str], &'a [&'a str], Option<&'a str>, u64);
        let cases: &[Case] = &[
            (&["--source", "replay", "g.jsonl", "--seed", "1"], &["replay", "g.jsonl"], None, 1),
            (&["--source", "replay", "--replay", "g.jsonl"], &["replay"], Some("g.jsonl"), 0),
            (&["--source", "offline", "--seed", "1"], &["offline"], None, 1),
        ];
        for (raw, source, replay, seed) in cases {
            let args = parsed(&[&["--out", "o", "--candidates", "c"][..], raw].concat()).expect("flags parse");
            assert_eq!(args.source, *source, "{raw:?}");
            assert_eq!((args.replay.as_deref(), args.seed), (*replay, *seed), "{raw:?}");
        }
        // --out and --candidates are needed unless a built-in is only shown.
        let err = parsed(&["--methods", "all"]).expect_err("refused");
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(err.to_string().contains("--out"), "{err}");
        assert!(parsed(&["--show-template"]).is_ok());
        // A key never comes from a flag.
        let err = parsed(&["--out", "o", "--candidates", "c", "--api-key", "sk"]).expect_err("refused");
        assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
        assert_eq!((request_index("str.split-12"), request_index("weird")), (12, 1));
    }
}
