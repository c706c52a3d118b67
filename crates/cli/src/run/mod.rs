//! `execbench run`: evaluate a model behind a provider's API (or an offline model) on a dataset,
//! with the same engine and the same records as the page. Records go to the run file as each
//! sample finishes (appended and flushed), so a killed run loses at most the requests in flight and
//! `--resume` asks only for the rest. Scoring runs its Python on `--jobs` interpreters.
//!
//! What the run does is decided first, from plain values, by `execbench_run::plan` (the new run's
//! manifest or how the resumed file goes on, the estimate, live or batch); this module turns the
//! flags into settings, reads the files and the key, says the plan and carries it out.

mod batch;

use std::cell::RefCell;
use std::io::Write;
use std::path::Path;

use execbench_core::Sample;
use execbench_eval::prompt::{Style, Template, builtin_templates, default_template};
use execbench_eval::report::markdown_table;
use execbench_eval::{Mode, Task};
use execbench_run::api::{ApiModel, ApiSettings};
use execbench_run::batch::RetryVia;
use execbench_run::closing_report::ClosingReport;
use execbench_run::continuation_cost::describe_continuation;
use execbench_run::cost::format_usd;
use execbench_run::manifest::{PriceUsed, RunEntry, counted};
use execbench_run::plan::{self, Answering, ResumePlan, Resuming, RunFlags, RunPlan, Start};
use execbench_run::record::SampleRecord;
use execbench_run::runfile::read_run_file;
use execbench_run::session::{self, NewRun, Session, SessionEnd, SessionEvent, SessionIo, run_session};
use execbench_run::{CancelToken, EvalJob, Event, KeepRecords, Responder, RunEnd};

use crate::api_args::{ApiFlags, KeySource, LOCAL, api_key, api_options, local_api_options};
use crate::http::{NativeHttp, TokioClock};
use crate::local_model::{LocalModelHttp, ModelFiles, RunHttp};
use crate::progress::StatusBar;
use crate::python::Workers;
use crate::store::JsonlRunStore;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "The key comes from the variable --key-env names; a provider's own (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) is read only for its own address, and never sent over plain http to another machine without --allow-http.\nProviders: openai, anthropic, gemini, openrouter, deepseek, deepinfra, together, qwen, azure, vllm, sglang, ollama, llamacpp, openai-compatible; in this process: local (--model-file, and --tokenizer to use a tokenizer.json instead of the file's own); offline: oracle, echo-first-argument, type-default."
)]
pub struct RunArgs {
    /// The dataset (.jsonl or .parquet)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// What the model predicts
    #[arg(long, value_name = "output|input")]
    task: String,
    /// A built-in prompt template's id [default: the task's direct one]
    #[arg(long, value_name = "ID")]
    template: Option<String>,
    /// A model API's preset, or an offline model
    #[arg(long, value_name = "P")]
    provider: String,
    /// Answers asked per sample (1 to 100)
    #[arg(long, value_name = "N", default_value_t = 1)]
    n: usize,
    /// Only the first N samples
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// One scoring mode [default: both]
    #[arg(long, value_name = "strict|compatible")]
    mode: Option<String>,
    /// Python worker processes scoring at once [default: every core]
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// The run file (JSON Lines), written as samples finish
    #[arg(long, value_name = "RUN.jsonl")]
    out: String,
    /// Continue the run file --out names, asking only for the samples not yet done
    #[arg(long)]
    resume: bool,
    /// Submit the run to the provider's batch service (about half price, results within 24 h)
    /// and return; `--resume` later collects what is ready
    #[arg(long)]
    batch: bool,
    /// With --batch (or --resume of a batch run): check politely until every batch is collected
    #[arg(long)]
    wait: bool,
    /// With --resume: ask again for the samples whose record is an error. A batch run's errors
    /// (errored, expired and cancelled lines) go in a new batch [default], or are asked live
    #[arg(long, value_name = "batch|live", num_args = 0..=1, requires = "resume")]
    retry_errors: Option<Option<String>>,
    /// With --provider local: the GGUF model file (qwen2 or llama) run in this process [--resume: the run's]
    #[arg(long, value_name = "F.gguf", help_heading = "Local model")]
    model_file: Option<String>,
    /// With --provider local: the model's tokenizer.json, used instead of the tokenizer in the GGUF file [--resume: the run's]
    #[arg(long, value_name = "FILE", help_heading = "Local model")]
    tokenizer: Option<String>,
    #[command(flatten)]
    pub api: ApiFlags,
}

const OFFLINE: &[&str] = &["oracle", "echo-first-argument", "type-default"];

/// The settings, checked before any file is read or request sent.
#[derive(Debug)]
struct Settings {
    dataset: String,
    task: Task,
    template: Template,
    /// `None` for an offline model.
    api: Option<ApiSettings>,
    offline: Option<String>,
    /// Where the key comes from and where it goes; `None` for an offline model.
    key: Option<KeySource>,
    n: usize,
    limit: Option<usize>,
    modes: Vec<Mode>,
    out: String,
    resume: bool,
    /// The price costs are computed with: `--price`, else the bundled table's.
    price: Option<PriceUsed>,
    /// `--spend-cap`: dollars for the whole run.
    spend_cap: Option<f64>,
    /// `--jobs`: Python interpreters scoring at once.
    jobs: usize,
    /// `--retry-errors`: `Some(None)` without a value (a batch run's errors go in a new batch).
    retry: Option<Option<RetryVia>>,
    /// `--provider local`: the files the flags name (none on a resume that takes the run's).
    local: Option<LocalFlags>,
}

#[derive(Debug)]
struct LocalFlags {
    /// The GGUF file and, when given, tokenizer.json.
    files: Option<(String, Option<String>)>,
    /// `--model` was given: the run's model name is not taken from the file.
    named: bool,
}

fn settings(args: &RunArgs) -> Result<Settings, String> {
    let dataset = args.dataset.clone();
    let task_label = args.task.as_str();
    let task = Task::from_label(task_label)
        .ok_or(format!("unknown --task `{task_label}` (known: output, input, question)"))?;
    let template = match args.template.as_deref() {
        None => default_template(task, Style::Direct),
        Some(id) => {
            let all = builtin_templates();
            let found = all.iter().find(|t| t.id == id).cloned().ok_or(format!(
                "unknown --template `{id}` (known: {})",
                all.iter().map(|t| t.id.as_str()).collect::<Vec<_>>().join(", ")
            ))?;
            if found.task != task {
                return Err(format!("--template `{id}` is for {}, not {}", found.task.words(), task.words()));
            }
            found
        }
    };
    let provider = args.provider.as_str();
    let n = args.n;
    if !(1..=100).contains(&n) {
        return Err(format!("--n must be between 1 and 100, got {n}"));
    }
    let limit = match args.limit {
        Some(0) => return Err("--limit must be a positive number".to_string()),
        limit => limit,
    };
    let modes = match args.mode.as_deref() {
        None => Mode::ALL.to_vec(),
        Some(label) => {
            vec![Mode::from_label(label).ok_or(format!("unknown --mode `{label}` (known: strict, compatible)"))?]
        }
    };
    let out = args.out.clone();
    let resume = args.resume;
    let jobs = crate::args::jobs(args.jobs)?;
    let retry = match &args.retry_errors {
        None => None,
        Some(None) => Some(None),
        Some(Some(label)) => Some(Some(
            RetryVia::from_label(label)
                .ok_or(format!("unknown --retry-errors `{label}` (known: {})", RetryVia::LABELS))?,
        )),
    };
    if (args.model_file.is_some() || args.tokenizer.is_some()) && provider != LOCAL {
        return Err(format!(
            "--model-file and --tokenizer are for --provider local (a GGUF model run in this process), not `{provider}`"
        ));
    }
    if OFFLINE.contains(&provider) {
        if args.api.spend_cap.is_some() || args.api.price.is_some() {
            return Err(format!("--spend-cap and --price are for model APIs; `{provider}` costs nothing"));
        }
        return Ok(Settings {
            dataset,
            task,
            template,
            api: None,
            offline: Some(provider.to_string()),
            key: None,
            n,
            limit,
            modes,
            out,
            resume,
            price: None,
            spend_cap: None,
            jobs,
            retry,
            local: None,
        });
    }
    if provider == LOCAL {
        let files = match (&args.model_file, &args.tokenizer) {
            (Some(model), tokenizer) => Some((model.clone(), tokenizer.clone())),
            (None, None) if resume => None,
            (None, None) => {
                return Err("--provider local needs --model-file F.gguf (its tokenizer is read from the file; \
                            --tokenizer tokenizer.json to use another)"
                    .to_string());
            }
            (None, Some(_)) => {
                return Err("--tokenizer goes with --model-file (the GGUF file it tokenizes for)".to_string());
            }
        };
        if args.batch {
            return Err("--batch is for model APIs: --provider local answers in this process".to_string());
        }
        // The name is the file's until the files are known (`resolve_local_model`).
        let name = files.as_ref().map_or(String::new(), |(model, _)| crate::local_model::model_name(model));
        let options = local_api_options(&args.api, &name)?;
        return Ok(Settings {
            dataset,
            task,
            template,
            api: Some(options.api),
            offline: None,
            // No key is read for a model in this process: not even the environment is looked at.
            key: None,
            n,
            limit,
            modes,
            out,
            resume,
            price: options.price,
            spend_cap: None,
            jobs,
            retry,
            local: Some(LocalFlags { files, named: args.api.model.is_some() }),
        });
    }
    if provider == execbench_run::simulate::PROVIDER {
        return Err("the simulated model answers inside the web page; here, run the mock model server (cargo run -p execbench-mockserver) and use --provider openai-compatible --base-url".to_string());
    }
    let options = api_options(&args.api, provider, OFFLINE)?;
    Ok(Settings {
        dataset,
        task,
        template,
        api: Some(options.api),
        offline: None,
        key: Some(options.key),
        n,
        limit,
        modes,
        out,
        resume,
        price: options.price,
        spend_cap: options.spend_cap,
        jobs,
        retry,
        local: None,
    })
}

/// `--provider local`: the files the flags name, else (on `--resume`) the ones the run file's
/// manifest names, read and fingerprinted; their description goes in the settings (and so in the
/// manifest). A missing or unreadable file is an error naming it.
fn resolve_local_model(settings: &mut Settings) -> Result<Option<ModelFiles>, String> {
    let Some(local) = &settings.local else { return Ok(None) };
    let from_run = || -> Result<(String, Option<String>, String), String> {
        let text = std::fs::read_to_string(&settings.out).map_err(|e| {
            format!("--provider local needs --model-file (cannot read {} for the run's: {e})", settings.out)
        })?;
        let api = read_run_file(&settings.out, &text)?.manifest.api;
        let files = api.as_ref().and_then(|a| a.local_model.as_ref()).ok_or(format!(
            "{} was not made with --provider local: it names no model file (pass --model-file)",
            settings.out
        ))?;
        let name = api.as_ref().map_or(String::new(), |a| a.endpoint.model.clone());
        Ok((files.gguf.clone(), files.tokenizer.clone(), name))
    };
    let (gguf, tokenizer, run_name) = match &local.files {
        Some((gguf, tokenizer)) => (gguf.clone(), tokenizer.clone(), None),
        None => {
            let (gguf, tokenizer, name) = from_run()?;
            (gguf, tokenizer, Some(name))
        }
    };
    let named = local.named;
    let files = crate::local_model::read_model_files(&gguf, tokenizer.as_deref())?;
    let api = settings.api.as_mut().ok_or("--provider local has no settings")?;
    if !named {
        api.endpoint.model = run_name.unwrap_or_else(|| crate::local_model::model_name(&gguf));
    }
    api.local_model = Some(files.description.clone());
    Ok(Some(files))
}

fn key(settings: &Settings) -> Result<Option<String>, String> {
    settings.key.as_ref().map_or(Ok(None), api_key)
}

/// Wall-clock time, ms since 1970 (the run entry's times).
fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Returns the exit code: 0 finished, 1 finished with errors or bad rows, or paused (Ctrl-C, the
/// spend cap), 2 refused (the run file is in use, or describes another run), 3 stopped by the
/// provider or the store, 4 batches still waiting.
pub fn run(args: &RunArgs) -> Result<i32, String> {
    let mut settings = settings(args)?;
    if settings.local.is_some() {
        // Before any thread starts: candle reads it once, when its pool starts.
        crate::local_model::set_thread_count();
    }
    // Held until this function returns: one process drives a run file, whatever its flags.
    let _lock = match crate::runlock::lock_run_file(Path::new(&settings.out)) {
        Ok(lock) => lock,
        Err(message) => {
            eprintln!("{message}");
            return Ok(2);
        }
    };
    let key = key(&settings)?;
    let local_files = resolve_local_model(&mut settings)?;
    let report = crate::dataset::read_dataset(&settings.dataset)?;
    let samples: Vec<Sample> = report.samples.iter().take(settings.limit.unwrap_or(usize::MAX)).cloned().collect();
    if samples.is_empty() {
        return Err(format!("{} has no usable samples", settings.dataset));
    }
    if let Some(why) = settings.template.task.misfit(&samples) {
        return Err(format!("{}: {why}", settings.dataset));
    }
    let key_used = settings.api.is_some() && key.is_some();
    let mut responder = responder(&settings, key)?;
    let flags = settings.flags(args);
    let store = JsonlRunStore::in_dir(".");
    let Some(start) = start(&settings, &flags, &store, &responder, key_used, &samples)? else { return Ok(2) };

    let plan = plan::plan(start, &flags, matches!(responder, Responder::Api(_)));
    say_plan(&plan);
    let RunPlan { entry, job, earlier, answering, .. } = plan;
    if let Answering::Batch { submit } = answering? {
        let Responder::Api(model) = &responder else { unreachable!("the plan answers by batch only for a model API") };
        let run = batch::BatchRun {
            out: &settings.out,
            store: &store,
            entry,
            records: earlier,
            job,
            model: model.clone(),
            submit,
            wait: args.wait,
        };
        return answer_by_batch(run, settings.jobs);
    }
    eprintln!(
        "{}: {} samples x {} ({} to ask), {}, template {}",
        responder.name(),
        samples.len(),
        job.n,
        samples.len() - job.done.len(),
        settings.task.words(),
        settings.template.id
    );
    let session = Session { store: &store, entry, earlier, unsaved: Vec::new(), now_ms: Box::new(now_ms) };
    let (end, closing, http) = answer_live(&settings, session, job, &mut responder, local_files, samples.len())?;
    Ok(say_results(&settings, end, closing, &http, report.errors.is_empty()))
}

impl Settings {
    /// The flags that choose what the run does, for its plan.
    fn flags(&self, args: &RunArgs) -> RunFlags {
        RunFlags { batch: args.batch, wait: args.wait, retry: self.retry, spend_cap: self.spend_cap }
    }
}

/// The model the settings name: a model API (with the key), or an offline model.
fn responder(settings: &Settings, key: Option<String>) -> Result<Responder, String> {
    Ok(match (&settings.api, settings.offline.as_deref()) {
        (Some(api), _) => Responder::Api(ApiModel { settings: api.clone(), key }),
        (None, Some(name)) => Responder::Offline(
            execbench_eval::models::offline_model(name).ok_or(format!("unknown offline model `{name}`"))?,
        ),
        (None, None) => unreachable!("settings() sets one of the two"),
    })
}

/// What the session starts from: a new run (its file must not exist yet), or with `--resume` the
/// run file's, as `execbench_run::plan::resume` decides; the file's cut last line gets its line
/// end, and the plan's words are said, in the order they apply. `None`: the file describes
/// another run than the flags (said on stderr; nothing written).
fn start(
    settings: &Settings,
    flags: &RunFlags,
    store: &JsonlRunStore,
    responder: &Responder,
    key_used: bool,
    samples: &[Sample],
) -> Result<Option<Start>, String> {
    let job = EvalJob::new(samples.to_vec(), settings.template.clone(), settings.n, settings.modes.clone());
    let about = NewRun {
        run_id: format!("run-{}", now_secs()),
        created: now_secs(),
        model: session::model_name(responder, None),
        api: settings.api.clone(),
        key_used,
        dataset: settings.dataset.clone(),
        simulation: None,
        price: settings.price.clone(),
        stored: None,
        app_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let manifest = plan::new_run_manifest(&job, about, flags)?;
    let out = &settings.out;
    let file_exists = Path::new(out).exists();
    if !(settings.resume && file_exists) {
        if file_exists {
            return Err(format!("{out} exists: pass --resume to continue it, or choose another --out"));
        }
        store.bind(&manifest.run_id, out);
        return Ok(Some(plan::new_run(manifest, job, now_ms())));
    }
    // Resume: the file's manifest must describe the same run; its finished samples are skipped.
    let text = std::fs::read_to_string(out).map_err(|e| format!("cannot read {out}: {e}"))?;
    let run_file = read_run_file(out, &text)?;
    let (run_id, truncated_tail) = (run_file.manifest.run_id.clone(), run_file.truncated_tail);
    let local_model = |api: Option<&ApiSettings>| api.and_then(|a| a.local_model.clone());
    let local_model_changes = match (local_model(run_file.manifest.api.as_ref()), local_model(settings.api.as_ref())) {
        (Some(run), Some(now)) => crate::local_model::changed_files(&run, &now),
        _ => Vec::new(),
    };
    let resuming = Resuming {
        wanted: &manifest,
        key_env: settings.key.as_ref().and_then(|k| k.env.as_deref()),
        price: settings.price.clone(),
        local_model_changes,
        samples,
        flags,
        now_ms: now_ms(),
    };
    let (price_changes, start) = match plan::resume(run_file, &resuming) {
        ResumePlan::Refused(conflicts) => {
            eprintln!("cannot resume {out}:");
            for c in &conflicts {
                eprintln!("  {c}");
            }
            return Ok(None);
        }
        ResumePlan::GoesOn { price_changes, start } => (price_changes, start),
    };
    if truncated_tail {
        eprintln!(
            "{out}: the last line was cut short (the run was killed while writing it); that sample is asked again"
        );
        // The cut line gets its own line end, so the next line starts fresh.
        let mut f =
            std::fs::OpenOptions::new().append(true).open(out).map_err(|e| format!("cannot open {out}: {e}"))?;
        writeln!(f).map_err(|e| format!("cannot write {out}: {e}"))?;
    }
    store.bind(&run_id, out);
    for change in price_changes {
        eprintln!("{out}: {change}");
    }
    let start = start.map_err(|e| format!("cannot resume {out}: {e}"))?;
    eprintln!("resuming {out}: {} of {} samples already done", start.job.done.len(), samples.len());
    Ok(Some(start))
}

/// What the plan says before the first request: what the session asks and may cost, and what
/// the model does not take.
fn say_plan(plan: &RunPlan) {
    if let Some(estimate) = &plan.estimate {
        eprintln!("estimate: {}", describe_continuation(estimate));
    }
    for setting in &plan.not_sent {
        eprintln!("not sent: {setting}");
    }
}

fn async_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// The run answered by the provider's batch service (`batch.rs`); returns its exit code.
fn answer_by_batch(run: batch::BatchRun, jobs: usize) -> Result<i32, String> {
    let runtime = async_runtime()?;
    let python = Workers::of_this_binary()?.python(jobs);
    let (http, clock) = (NativeHttp::new()?, TokioClock::new());
    runtime.block_on(batch::run_batch(run, &python, &http, &clock))
}

/// A live session of the run, Ctrl-C stopping it: how it ended, its closing report (the
/// records stored), and the HTTP client that answered (a local model says its speed).
fn answer_live(
    settings: &Settings,
    session: Session<'_, JsonlRunStore>,
    job: EvalJob,
    responder: &mut Responder,
    local_files: Option<ModelFiles>,
    total: usize,
) -> Result<(SessionEnd, ClosingReport, RunHttp), String> {
    let runtime = async_runtime()?;
    let python = Workers::of_this_binary()?.python(settings.jobs);
    let http = match local_files {
        // Loaded once for the whole run; the file's bytes are dropped once the weights are copied.
        Some(files) => RunHttp::Local(LocalModelHttp::load(files)?),
        None => RunHttp::Native(NativeHttp::new()?),
    };
    let clock = TokioClock::new();
    let cancel = CancelToken::new();
    // The Ctrl-C listener runs beside the session on this thread (the token is not `Send`).
    let beside = tokio::task::LocalSet::new();
    beside.spawn_local(stop_on_ctrl_c(cancel.clone()));
    let progress = LiveProgress::new(total, &session.earlier);
    let on_event = |event: SessionEvent| progress.on_event(event);
    let job = EvalJob { keep: KeepRecords::Nothing, ..job };
    let io = SessionIo { python: &python, http: &http, clock: &clock };
    let end = beside
        .block_on(&runtime, run_session(session, job, responder, io, &cancel, &on_event))
        .map_err(|e| format!("cannot write {}: {}", settings.out, e.error))?;
    Ok((end, progress.closing.into_inner(), http))
}

/// What a live session shows as it runs (the progress bar on a terminal, else a line a second at
/// most), and its closing report, summed as records are stored (the run file keeps them whole,
/// so a long run's memory stays flat).
struct LiveProgress {
    bar: Option<StatusBar>,
    /// When the last line was said (the session's elapsed ms), and what it said.
    last_line: RefCell<(f64, String)>,
    closing: RefCell<ClosingReport>,
}

impl LiveProgress {
    fn new(total: usize, earlier: &[SampleRecord]) -> LiveProgress {
        let last_line = RefCell::new((0.0f64, String::new()));
        let bar = StatusBar::on_terminal(total);
        let mut closing = ClosingReport::default();
        for record in earlier {
            closing.add(record);
        }
        LiveProgress { bar, last_line, closing: RefCell::new(closing) }
    }

    fn on_event(&self, event: SessionEvent) {
        if let SessionEvent::Engine(Event::Record(record), _) = &event {
            self.closing.borrow_mut().add(record);
        }
        let SessionEvent::Engine(Event::Status(status), _) = event else { return };
        if let Some(bar) = &self.bar {
            let message = format!(
                "{}; {} requests, tokens {} in / {} out",
                status.describe(),
                status.requests_sent,
                status.usage.prompt_tokens,
                status.usage.completion_tokens
            );
            bar.show(status.done, status.total, &message);
            return;
        }
        let line = format!(
            "{}/{} samples, {}; {} requests, tokens {} in / {} out",
            status.done,
            status.total,
            status.describe(),
            status.requests_sent,
            status.usage.prompt_tokens,
            status.usage.completion_tokens
        );
        let mut last = self.last_line.borrow_mut();
        // At most one line a second, and only when something changed.
        if line != last.1 && (status.elapsed_ms - last.0 >= 1000.0 || status.done == status.total) {
            eprintln!("{line}");
            *last = (status.elapsed_ms, line);
        }
    }
}

/// How a live session ended, its errors and results; returns the exit code. `rows_ok`: the
/// dataset had no bad rows.
fn say_results(settings: &Settings, end: SessionEnd, mut closing: ClosingReport, http: &RunHttp, rows_ok: bool) -> i32 {
    if let Some(e) = &end.state_error {
        eprintln!("cannot record the run's state in {}: {e}", settings.out);
    }
    let outcome = &end.outcome;
    // Paid for but not stored (the store failed): still this run's answers.
    for record in &end.unsaved {
        closing.add(record);
    }
    let errors = closing.errors();
    eprintln!(
        "{}; {} recorded, {} (left out of pass@k); {} this session, {} in all",
        outcome.end.describe(),
        counted(closing.samples() as u64, "sample", "samples"),
        counted(errors.len() as u64, "error", "errors"),
        counted(outcome.status.requests_sent as u64, "request", "requests"),
        end.entry.requests.describe()
    );
    for (id, message) in errors.iter().take(10) {
        eprintln!("  error: {id}: {message}");
    }
    if let RunHttp::Local(model) = http {
        println!("{}", crate::local_model::describe_speed(&model.timings()));
    }
    let summaries = print_results(&closing, &end.entry, settings.task, &settings.modes);
    println!("\n{}", markdown_table(&summaries));
    live_exit_code(&outcome.end, errors.is_empty() && rows_ok)
}

/// 0 finished with no errors and no bad rows (`clean`), 1 finished with some, or paused (Ctrl-C,
/// the spend cap), 3 stopped by the provider or the store.
fn live_exit_code(end: &RunEnd, clean: bool) -> i32 {
    match end {
        RunEnd::Finished if clean => 0,
        RunEnd::Finished | RunEnd::Stopped | RunEnd::SpendCap { .. } => 1,
        RunEnd::ProviderStopped(_) | RunEnd::StoreFailed(_) => 3,
    }
}

/// The run's tokens, cost and pass@k per mode on stdout (a live run and a collected batch run say
/// the same; a batch run's answers asked live cost the live price); returns the summaries.
pub(crate) fn print_results(
    closing: &ClosingReport,
    entry: &RunEntry,
    task: Task,
    modes: &[Mode],
) -> Vec<execbench_eval::report::Summary> {
    let (usage, live) = (closing.usage(), closing.live_usage());
    println!(
        "tokens: {} prompt, {} completion ({} reasoning)",
        usage.prompt_tokens, usage.completion_tokens, usage.reasoning_tokens
    );
    if let (Some(cost), Some(source)) = (entry.cost_of(&usage, &live), entry.price_source(&live)) {
        println!("cost: {} (price: {source})", format_usd(cost));
    }
    let summaries = closing.summaries(task, modes);
    for s in &summaries {
        println!(
            "{} {}: pass@1 {}  pass@5 {}  ({} samples, {} answers, {} correct)",
            s.task.label(),
            s.mode.label(),
            s.pass_at_1.display(),
            s.pass_at_5.display(),
            s.samples,
            s.answers,
            s.correct
        );
    }
    for (mode, kinds) in modes.iter().zip(closing.by_question(task, modes)) {
        for (kind, s) in kinds {
            println!(
                "  {} questions, {}: pass@1 {}  ({} samples, {} answers, {} correct)",
                kind.label(),
                mode.label(),
                s.pass_at_1.display(),
                s.samples,
                s.answers,
                s.correct
            );
        }
    }
    summaries
}

/// Ctrl-C stops the run as the page's Stop does: requests in flight are dropped, the file says
/// it paused, `--resume` asks for the rest. A second Ctrl-C quits at once.
async fn stop_on_ctrl_c(cancel: CancelToken) {
    if tokio::signal::ctrl_c().await.is_ok() {
        eprintln!("stopping: the samples in flight are dropped (Ctrl-C again quits at once)");
        cancel.cancel();
        if tokio::signal::ctrl_c().await.is_ok() {
            std::process::exit(130);
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;
    use crate::cli::Command;

    fn parsed(raw: &[&str]) -> Result<RunArgs, clap::Error> {
        match crate::cli::parse_from([&["execbench", "run"][..], raw].concat())?.command {
            Command::Run(args) => Ok(args),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settings_are_checked_before_any_work() {
        let base = ["--dataset", "d.jsonl", "--task", "output", "--out", "r.jsonl"];
        // What clap refuses, naming the flag at fault; a key is never a flag.
        let refused: &[(&[&str], ErrorKind, &str)] = &[
            (&[], ErrorKind::MissingRequiredArgument, "--provider"),
            (&["--provider", "openai", "--model", "m", "--api-key", "sk"], ErrorKind::UnknownArgument, "--api-key"),
            (&["--provider", "openai", "--model", "m", "--n", "many"], ErrorKind::ValueValidation, "--n"),
            (
                &["--provider", "openai", "--model", "m", "--retry-errors", "live"],
                ErrorKind::MissingRequiredArgument,
                "--resume",
            ),
        ];
        for (extra, kind, flag) in refused {
            let err = parsed(&[&base[..], extra].concat()).expect_err("refused");
            assert_eq!(err.kind(), *kind, "{extra:?}: {err}");
            assert!(err.to_string().contains(flag), "{extra:?}: {err}");
        }
        let cases: &[(&[&str], &str)] = &[
            (&["--provider", "nope"], "unknown --provider `nope`"),
            (&["--provider", "openai"], "--model is required"),
            (&["--provider", "openai", "--model", "m", "--n", "0"], "--n must be between 1 and 100, got 0"),
            (
                &["--provider", "openai", "--model", "m", "--concurrency", "0"],
                "--concurrency must be between 1 and 64, got 0",
            ),
            (
                &["--provider", "openai", "--model", "m", "--template", "input-direct"],
                "--template `input-direct` is for input prediction, not output",
            ),
            (&["--provider", "oracle", "--limit", "0"], "--limit must be a positive number"),
            (&["--provider", "oracle", "--price", "1,2"], "--spend-cap and --price are for model APIs"),
            (
                &["--provider", "oracle", "--resume", "--retry-errors", "later"],
                "unknown --retry-errors `later` (known: batch, live)",
            ),
        ];
        for (extra, message) in cases {
            let args = parsed(&[&base[..], extra].concat()).expect("flags parse");
            let err = settings(&args).err().unwrap_or_default();
            assert!(err.starts_with(message), "{extra:?}: {err}");
        }
        let s = settings(
            &parsed(&[&base[..], &["--provider", "anthropic", "--model", "claude", "--n", "5", "--stream"]].concat())
                .expect("flags parse"),
        )
        .unwrap();
        let api = s.api.unwrap();
        assert_eq!(
            (api.endpoint.base_url.as_str(), api.params.stream, s.n, s.key.unwrap().env.as_deref()),
            ("https://api.anthropic.com/v1", true, 5, Some("ANTHROPIC_API_KEY"))
        );
        let s = settings(
            &parsed(
                &[&base[..], &["--provider", "vllm", "--model", "q", "--base-url", "http://127.0.0.1:9/v1/"]].concat(),
            )
            .expect("flags parse"),
        )
        .unwrap();
        assert_eq!(
            (s.api.unwrap().endpoint.base_url, s.key.unwrap().required),
            ("http://127.0.0.1:9/v1".to_string(), false)
        );
        // The model in this process: no key source at all (the environment is never read), one
        // request at a time, free, named after its file until --model names it.
        let local = ["--provider", "local", "--model-file", "dir/m.gguf", "--tokenizer", "t.json"];
        let s = settings(&parsed(&[&base[..], &local].concat()).expect("flags parse")).unwrap();
        assert!(s.key.is_none());
        let price = s.price.unwrap();
        assert_eq!((price.price, price.source.as_str()), (execbench_run::cost::Price::FREE, "local server"));
        let api = s.api.unwrap();
        assert_eq!((api.endpoint.model.as_str(), api.concurrency, api.local_model), ("m.gguf", 1, None));
        let named = settings(&parsed(&[&base[..], &local, &["--model", "qwen"]].concat()).unwrap()).unwrap();
        assert_eq!(named.api.unwrap().endpoint.model, "qwen");
        // The GGUF file alone: its own tokenizer.
        let alone = settings(&parsed(&[&base[..], &local[..4]].concat()).unwrap()).unwrap();
        assert_eq!(alone.local.unwrap().files, Some(("dir/m.gguf".to_string(), None)));
    }
}
