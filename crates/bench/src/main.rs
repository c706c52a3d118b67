//! `execbench-bench`: execbench's Python worker against Pyodide, side by side in one run, in
//! headless Chromium (the issue's "Benchmark" section).
//!
//! One local server carries the built site (`/execbench/`, from `trunk build --release`), the
//! benchmark's own page (`/bench/`, crates/bench/web) and the npm package `pyodide` (`/pyodide/`,
//! installed by scripts/setup.sh `install_bench_tools`). For each repetition and each engine a
//! fresh Chromium (fresh profile) opens `bench.html?engine=...`; the page starts the engine's
//! worker and runs the 800 CRUXEval samples through it (see web/execbench-bench.js). Then the
//! download sizes are computed here, gzip and brotli per file, as a static host would serve them.
//!
//! Two more sections time the library's work, natively and in the built app as a user would
//! start it: perturbing the dataset with each kind (`perturbation.rs`) and scoring 800 x 10
//! answers (`scoring.rs`). The last (`models.rs`) measures the run engine's request throughput
//! against the mock model server (400 requests, 200 ms latency, 8 at a time), from the command
//! line (the release `execbench` binary: `EXECBENCH_CLI`, else target/release) and from the
//! Evaluate page, with the page's longest frame meanwhile.
//!
//! Options: `--reps N` cold pages per engine (3), `--warm N` warm passes per page (3),
//! `--restarts N` worker restarts timed on each execbench page (3), `--sections LIST` which parts
//! to run (`engine,profile,perturb,score,models,store,build,compare,offline,cli,localmodel`, all by default;
//! `soak` only when named, `soak.rs`; only `engine` needs Pyodide; `store`
//! times the page's IndexedDB run store, `store.rs`; `build` the Build page's filter on the 800
//! samples as candidates, natively, in CPython and in the page, `build_filter.rs`; `cli` the
//! command line's `--jobs`, one against all, `cli_jobs.rs`; `localmodel` the in-process model
//! against llama.cpp on the same GGUF file, `local_model.rs`; `realmodel`, only when named, the
//! real Qwen2.5-Coder-0.5B file on CRUXEval samples against llama.cpp's server, `real_model.rs`;
//! these need no browser; `realapp`, only when named, the same file through the app's own form,
//! with a reload and Resume, against the command line's answers, `real_app.rs`),
//! `--json FILE` also writes the figures as JSON (`figures.rs`), `--busy-cores N` keeps N cores
//! busy throughout, to measure a loaded machine (`machine.rs`; every run prints the cores and the
//! load average before and after it). `profile` traces one warm
//! verify-all pass of the app per pool size and sums each thread's busy time
//! (`app_engine::profile`); `EXECBENCH_TRACE_DIR=DIR` also keeps the raw traces there, to open in
//! Perfetto or `chrome://tracing`. Nothing here asserts a time: it
//! prints figures.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use serde_json::Value;

use figures::{Amount, Figure};

mod app_engine;
mod build_filter;
mod cli_jobs;
mod compare;
mod figures;
mod local_model;
mod local_model_page;
mod machine;
mod models;
mod offline;
mod page;
mod perturbation;
mod real_app;
mod real_model;
mod scoring;
mod soak;
mod store;
mod tracing_cost;

const PYODIDE_VERSION: &str = "314.0.7";
const SAMPLES: usize = 800;

/// What one cold page measured for one engine.
struct PageRun {
    ready_ms: f64,
    first_ms: f64,
    first_passed: u64,
    first_engine_ms: f64,
    warm_ms: Vec<f64>,
    warm_engine_ms: Vec<f64>,
    warm_passed: Vec<u64>,
    restart_ms: Vec<f64>,
    init_ms: f64,
    /// Pyodide only: when its last file had arrived, since navigation start.
    fetched_ms: Option<f64>,
    resources: Vec<String>,
}

struct Options {
    reps: usize,
    warm: usize,
    restarts: usize,
    sections: Vec<String>,
    /// `--json FILE`: where every figure goes as JSON too.
    json: Option<PathBuf>,
    /// `--busy-cores N`: cores the benchmark keeps busy itself while it measures.
    busy_cores: usize,
}

const SECTIONS: [&str; 12] = [
    "engine",
    "profile",
    "perturb",
    "score",
    "models",
    "store",
    "build",
    "compare",
    "offline",
    "cli",
    "localmodel",
    "trace",
];
/// Sections that need no browser: they run natively after the others.
const NATIVE: [&str; 5] = ["cli", "localmodel", "realmodel", "realapp", "trace"];
/// Sections run only when named: `soak` takes many minutes and is no comparison; `realmodel`
/// and `realapp` fetch a 491 MB model and take many minutes.
const ON_REQUEST: [&str; 3] = ["soak", "realmodel", "realapp"];

/// The benchmark's flags, as typed; [`options`] turns them into [`Options`].
#[derive(clap::Parser, Debug)]
#[command(
    name = "execbench-bench",
    version,
    about = "execbench's Python worker against Pyodide, and the library's timings"
)]
struct Flags {
    /// Cold pages per engine (at least 1)
    #[arg(long, value_name = "N", default_value_t = 3)]
    reps: usize,
    /// Warm passes per page (at least 1)
    #[arg(long, value_name = "N", default_value_t = 3)]
    warm: usize,
    /// Worker restarts timed on each execbench page
    #[arg(long, value_name = "N", default_value_t = 3)]
    restarts: usize,
    /// Which parts to run, comma-separated [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(SECTIONS.iter().chain(&ON_REQUEST)))]
    sections: Vec<String>,
    /// Also write every figure as JSON to this file
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Keep N cores busy throughout (threads of this process), to measure a loaded machine
    #[arg(long, value_name = "N", default_value_t = 0)]
    busy_cores: usize,
}

fn options() -> Options {
    use clap::Parser;
    options_of(Flags::parse())
}

fn options_of(flags: Flags) -> Options {
    let sections = if flags.sections.is_empty() { SECTIONS.map(String::from).to_vec() } else { flags.sections };
    Options {
        reps: flags.reps.max(1),
        warm: flags.warm.max(1),
        restarts: flags.restarts,
        sections,
        json: flags.json,
        busy_cores: flags.busy_cores,
    }
}

fn pyodide_dir() -> PathBuf {
    pyodide_dir_if_installed().unwrap_or_else(|| {
        eprintln!("no pyodide@{PYODIDE_VERSION} under EXECBENCH_TOOLS: run scripts/bench.sh (it installs it)");
        std::process::exit(1);
    })
}

/// Where scripts/setup.sh puts its tools (scripts/bench.sh passes EXECBENCH_TOOLS).
fn tools_dir() -> PathBuf {
    let cache = std::env::var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| ".".into())).join(".cache"));
    std::env::var("EXECBENCH_TOOLS").map(PathBuf::from).unwrap_or_else(|_| cache.join("execbench-tools"))
}

fn pyodide_dir_if_installed() -> Option<PathBuf> {
    let dir = tools_dir().join("node_modules/pyodide");
    let package = std::fs::read_to_string(dir.join("package.json")).unwrap_or_default();
    package.contains(&format!("\"version\": \"{PYODIDE_VERSION}\"")).then_some(dir)
}

fn main() {
    // A child of the sandbox section runs before any runtime thread exists: the rules it applies
    // bind the thread that applies them and the threads it starts later.
    if let Some(code) = cli_jobs::serve_verify_child() {
        std::process::exit(code);
    }
    bench();
}

#[tokio::main]
async fn bench() {
    let opts = options();
    let section = |name: &str| opts.sections.iter().any(|s| s == name);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut conditions = machine::Conditions {
        cores,
        busy_cores: opts.busy_cores,
        load_before: machine::load_average(),
        load_after: None,
        busy_rounds: 0,
    };
    println!("{}", conditions.describe());
    let busy = machine::Busy::hold(opts.busy_cores);
    // Every section but the native ones works in the built app.
    if opts.sections.iter().any(|s| !NATIVE.contains(&s.as_str())) {
        browser_sections(&opts).await;
    }
    if section("cli") {
        let dataset_path = execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl");
        let samples = read_samples(&dataset_path);
        figures::record(cli_jobs::section(&samples, &dataset_path));
        figures::record(cli_jobs::sandbox_section(&samples, &dataset_path, opts.reps));
    }
    if section("trace") {
        let samples = read_samples(&execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl"));
        let figures = tracing_cost::section(&samples, opts.reps);
        println!(
            "\n### Tracing a run (the trace questions' source), 800 CRUXEval samples, best of {} passes\n",
            opts.reps
        );
        println!("{}", figures::markdown_table("untraced / CPython", &figures));
        figures::record(figures);
    }
    if section("localmodel") {
        let figures = local_model::section(&tools_dir()).await;
        println!(
            "\n### In-process model (candle, natively and in the page's worker) vs llama.cpp, same GGUF file and token ids\n"
        );
        println!("{}", figures::markdown_table("llama.cpp", &figures));
        figures::record(figures);
    }
    if section("realmodel") {
        let figures = real_model::section().await;
        println!("\n### The real Qwen2.5-Coder-0.5B file on CRUXEval-O, in-process vs llama.cpp's server\n");
        println!("{}", figures::markdown_table("llama.cpp", &figures));
        figures::record(figures);
    }
    if section("realapp") {
        let figures = real_app::section().await;
        println!(
            "\n### The real Qwen2.5-Coder-0.5B file through the app's form (download, run, reload, Resume) vs the command line\n"
        );
        println!("{}", figures::markdown_table("native", &figures));
        figures::record(figures);
    }
    conditions.busy_rounds = busy.rounds();
    drop(busy);
    conditions.load_after = machine::load_average();
    println!("\n{}", conditions.describe());
    figures::record(conditions.figures());
    if let Some(path) = &opts.json {
        match std::fs::write(path, figures::recorded_json()) {
            Ok(()) => println!("\nfigures written to {}", path.display()),
            Err(e) => {
                eprintln!("cannot write {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
}

fn read_samples(path: &Path) -> Vec<execbench_core::Sample> {
    match std::fs::read_to_string(path) {
        Ok(text) => execbench_core::load_jsonl("cruxeval.jsonl", &text).samples,
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.display());
            std::process::exit(1);
        }
    }
}

async fn browser_sections(opts: &Options) {
    // Serve a snapshot: others may rebuild dist/ (Trunk swaps it out) while this runs.
    let built = execbench_testkit::dist_dir();
    let dist = std::env::temp_dir().join(format!("execbench-bench-dist-{}", std::process::id()));
    copy_site(&built, &dist);
    let section = |name: &str| opts.sections.iter().any(|s| s == name);
    // Only the engine section serves (and so needs) Pyodide; the offline one reads its sizes.
    let pyodide = section("engine").then(pyodide_dir);
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut mounts = vec![("/bench/".to_string(), web), ("/execbench/".to_string(), dist.clone())];
    if let Some(pyodide) = &pyodide {
        mounts.push(("/pyodide/".to_string(), pyodide.clone()));
    }
    let server = StaticServer::mount(mounts);
    let app_url = format!("{}/execbench/", server.origin);
    if let Some(pyodide) = &pyodide {
        engine_section(opts, &server, &built, &dist, pyodide).await;
    }
    if section("profile") {
        // Where a warm pass spends its time, thread by thread (a traced browser of its own).
        let pool = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4);
        match app_engine::profile(&app_url, &[1, pool], 1).await {
            Ok(profiles) => print_profiles(&profiles),
            Err(e) => eprintln!("the app's pass profile failed: {e}"),
        }
    }
    let dataset_path = dist.join("data/cruxeval/cruxeval.jsonl");
    let samples = read_samples(&dataset_path);
    if section("perturb") {
        println!(
            "\nperturbation: natively (fastest of {} runs a kind, then verified once), then in the app's Perturb view...",
            opts.reps
        );
        let native = perturbation::native(&samples, opts.reps);
        match perturbation::browser(&app_url).await {
            Ok((browser, browser_wall_ms)) => perturbation::print(
                &perturbation::PerturbationFigures { native, browser, browser_wall_ms },
                samples.len(),
            ),
            Err(e) => eprintln!("perturbation in the browser failed: {e}"),
        }
    }
    if section("score") {
        println!("\nscoring: natively, in CPython, then in the app's Evaluate page...");
        let scratch = std::env::temp_dir().join(format!("execbench-bench-score-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&scratch);
        let generations = scoring::write_generations(&samples, &scratch);
        let (native_strict_ms, native_compatible_ms, native_correct, answers) = scoring::native(&samples, &generations);
        let cpython = scoring::cpython(&dataset_path, &generations);
        let browser = scoring::browser(&app_url, &generations).await;
        if let Err(e) = &browser {
            eprintln!("scoring in the browser failed: {e}");
        }
        let (browser_ms, browser_runs) = match browser {
            Ok((ms, line)) => (Some(ms), Some(line)),
            Err(_) => (None, None),
        };
        let figures = scoring::ScoringFigures {
            answers,
            native_strict_ms,
            native_compatible_ms,
            native_correct,
            browser_ms,
            browser_runs,
            cpython_ms: cpython.map(|c| c.0),
            cpython_passed: cpython.map(|c| c.1),
        };
        scoring::print(&figures, samples.len());
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if section("models") {
        models::section(&app_url).await;
    }
    if section("store") {
        store::section(&app_url, opts.reps).await;
    }
    if section("build") {
        build_section(opts, &samples, &app_url).await;
    }
    if section("compare") {
        compare::section(&app_url, opts.reps).await;
    }
    if section("offline") {
        offline::section(&dist, opts.reps, offline_transfer(&dist)).await;
    }
    if section("soak") {
        soak::section(&app_url).await;
    }
    let _ = std::fs::remove_dir_all(&dist);
}

/// The filter on the 800 samples as candidates: natively (first pass, then rounds of a warm pass
/// and the runs alone, interleaved with CPython on the same runs; the static rules and the rewrite
/// alone, median of `--reps`), then the Build page (first pass and `--warm` warm passes), and, to
/// see where the time goes, the same 800 rejected by the static rules and 800 trivial candidates.
async fn build_section(opts: &Options, samples: &[execbench_core::Sample], app_url: &str) {
    println!(
        "\nfilter: the {} samples as candidates, natively, in CPython, then in the app's Build page...",
        samples.len()
    );
    let scratch = std::env::temp_dir().join(format!("execbench-bench-build-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let candidates = build_filter::candidates(samples);
    let file = scratch.join("cruxeval-candidates.jsonl");
    let static_file = scratch.join("cruxeval-static-rejections.jsonl");
    build_filter::write_jsonl(&candidates, &file);
    build_filter::write_jsonl(&build_filter::static_rejects(&candidates), &static_file);
    let trivial = build_filter::trivial(candidates.len());
    let trivial_file = scratch.join("trivial-candidates.jsonl");
    build_filter::write_jsonl(&trivial, &trivial_file);
    let requests = scratch.join("filter-requests.json");
    build_filter::write_requests(&candidates, &requests);
    let (native, cpython) =
        build_filter::measure(&candidates, &trivial, &requests, opts.warm.max(opts.reps), opts.reps);
    let page = build_filter::browser(app_url, &file, &static_file, &trivial_file, opts.warm).await;
    if let Err(e) = &page {
        eprintln!("filtering in the browser failed: {e}");
    }
    build_filter::print(samples.len(), &native, cpython.as_ref(), page.as_ref().ok());
    let _ = std::fs::remove_dir_all(&scratch);
}

/// execbench's worker against Pyodide: start-up, verify-all passes, restarts, download sizes.
async fn engine_section(opts: &Options, server: &StaticServer, built: &Path, dist: &Path, pyodide: &Path) {
    let started = Instant::now();
    println!(
        "execbench-bench: {} cold page(s) per engine, {} warm pass(es) each, serving on {}",
        opts.reps, opts.warm, server.origin
    );

    // Alternate the engines so that noise on the shared machine hits both alike.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for rep in 1..=opts.reps {
        for engine in ["execbench", "pyodide"] {
            let restarts = if engine == "execbench" { opts.restarts } else { 0 };
            let url =
                format!("{}/bench/bench.html?engine={engine}&warm={}&restarts={restarts}", server.origin, opts.warm);
            let run = match measure_page(&url).await {
                Ok(run) => run,
                Err(e) => {
                    eprintln!("{engine}, repetition {rep}: {e}");
                    let _ = std::fs::remove_dir_all(dist);
                    std::process::exit(1);
                }
            };
            println!(
                "  {rep}/{} {engine:>9}: ready {:>6.0} ms ({}engine init {:.0} ms), first pass {:>6.0} ms ({} pass), warm {} ms{}",
                opts.reps,
                run.ready_ms,
                run.fetched_ms.map(|t| format!("files fetched at {t:.0} ms, ")).unwrap_or_default(),
                run.init_ms,
                run.first_ms,
                run.first_passed,
                run.warm_ms.iter().map(|t| format!("{t:.0}")).collect::<Vec<_>>().join("/"),
                if run.restart_ms.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", restarts {} ms",
                        run.restart_ms.iter().map(|t| format!("{t:.0}")).collect::<Vec<_>>().join("/")
                    )
                }
            );
            if engine == "execbench" { ours.push(run) } else { theirs.push(run) }
        }
    }
    // The app itself: ready on its real page, verify-all with one worker and with a pool.
    let pool = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4);
    let app_url = format!("{}/execbench/", server.origin);
    let app = match app_engine::measure(&app_url, &[1, pool], opts.warm).await {
        Ok(app) => {
            println!(
                "  app: ready {:.0} ms; first pass {:.0} ms clicked {} s after ready; {}",
                app.ready_ms,
                app.first_after_idle_ms,
                app_engine::IDLE_BEFORE_FIRST.as_secs(),
                app.pools
                    .iter()
                    .map(|p| format!(
                        "{} worker(s): first pass {:.0} ms, warm {} ms, {} ready, {:.0} MB",
                        p.workers,
                        p.first_ms,
                        p.warm_ms.iter().map(|t| format!("{t:.0}")).collect::<Vec<_>>().join("/"),
                        p.workers_ready,
                        p.memory_bytes as f64 / 1e6
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            Some(app)
        }
        Err(e) => {
            eprintln!("the app's engine figures failed: {e}");
            None
        }
    };
    let browser_secs = started.elapsed().as_secs_f64();

    // Sizes. The execbench page may fetch any file of the built site: count them all (hidden
    // folders such as Trunk's `.stage` are not part of the site). For Pyodide, count what its
    // worker's Performance timeline says loadPyodide fetched, plus the module the worker imports.
    let site_files = files_under(dist);
    let mut pyodide_names: Vec<String> = theirs
        .iter()
        .flat_map(|r| r.resources.iter())
        .filter_map(|url| url.split("/pyodide/").nth(1).map(|n| n.split(['?', '#']).next().unwrap_or(n).to_string()))
        .collect();
    let measured_in_browser = !pyodide_names.is_empty();
    if !measured_in_browser {
        pyodide_names = ["pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
            .map(String::from)
            .to_vec();
    }
    pyodide_names.push("pyodide.mjs".to_string());
    pyodide_names.sort();
    pyodide_names.dedup();
    let pyodide_files: Vec<PathBuf> = pyodide_names.iter().map(|n| pyodide.join(n)).filter(|p| p.is_file()).collect();
    print!(
        "compressing {} site files and {} Pyodide files (gzip -9, brotli q11; cached by content)... ",
        site_files.len(),
        pyodide_files.len()
    );
    let _ = std::io::stdout().flush();
    let size_started = Instant::now();
    let mut cache = SizeCache::load();
    let site = sizes(&site_files, &mut cache);
    let peer = sizes(&pyodide_files, &mut cache);
    cache.save(&[&site, &peer]);
    println!("{:.0} s", size_started.elapsed().as_secs_f64());
    println!(
        "Pyodide files counted ({}): {}",
        if measured_in_browser {
            "seen fetched in the browser, plus pyodide.mjs"
        } else {
            "fixed list: the browser reported none"
        },
        pyodide_names.join(", ")
    );
    println!("execbench files counted: all {} files of {}", site_files.len(), built.display());
    for (root, files, sizes) in [(&dist, &site_files, &site), (&pyodide, &pyodide_files, &peer)] {
        for (path, size) in files.iter().zip(&sizes.each).filter(|(_, s)| s.raw > 100_000) {
            println!("  {:<40} {}", path.strip_prefix(root).unwrap_or(path).display(), size.describe());
        }
    }

    print_table(&ours, &theirs, app.as_ref(), &site.total, &peer.total);
    println!(
        "\nMedians over {} cold page(s) per engine (warm: over all warm passes). Browser part {:.0} s, whole run {:.0} s.",
        opts.reps,
        browser_secs,
        started.elapsed().as_secs_f64()
    );
    println!(
        "ready: navigation start to the worker's ready message, fresh browser profile each time. \
         Passes: wall time for 800 samples sent to one worker in batches of 64 runs a message, results posted in groups at most 4 ms of runs apart, \
         as the app sends them (fresh globals, exec, f(input) == output); 'app page' rows: the app's Verify page, its own \
         elapsed time, with the pool size set in the page's setting (the pool grows during the first pass); \
         'inside the engine' sums the workers' own per-sample elapsed_ms (no messaging). \
         Sizes: each file gzip -9 / brotli 11 on its own; execbench = every file of dist/ (app, worker, dataset), \
         Pyodide = its engine files only. Restart: terminate the worker, new worker until ready (no HTTP cache here)."
    );
}

/// The profile of a warm verify-all pass as a table (and as figures for `--json`): per pool
/// size, the page's thread (busy, its CPU, and the parts) against each worker's thread.
fn print_profiles(profiles: &[app_engine::PassProfile]) {
    println!(
        "\n| warm verify-all, traced | pass | page thread busy (CPU) | script and messages | GC | style, layout, paint | each worker busy (CPU) | CPU of these threads / pass |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---:|");
    let mut rows = Vec::new();
    for p in profiles {
        let workers_cpu: f64 = p.workers_busy.iter().map(|(_, cpu)| cpu).sum();
        println!(
            "| {} worker(s) | {:.0} ms | {:.0} ms ({:.0}) | {:.0} ms | {:.0} ms | {:.0} ms | {} | {:.2} |",
            p.workers,
            p.pass_ms,
            p.page.busy_ms,
            p.page.cpu_ms,
            p.page.script_ms,
            p.page.gc_ms,
            p.page.render_ms,
            p.workers_busy.iter().map(|(ms, cpu)| format!("{ms:.0} ms ({cpu:.0})")).collect::<Vec<_>>().join(", "),
            (p.page.cpu_ms + workers_cpu) / p.pass_ms
        );
        let figure = |metric: String, ms: f64| Figure::alone("profile", metric, Some(Amount::Ms(ms)));
        let n = p.workers;
        rows.push(figure(format!("traced warm pass, {n} worker(s)"), p.pass_ms));
        rows.push(figure(format!("page thread busy, {n} worker(s)"), p.page.busy_ms));
        rows.push(figure(format!("page thread CPU, {n} worker(s)"), p.page.cpu_ms));
        rows.push(figure(format!("page thread script and messages, {n} worker(s)"), p.page.script_ms));
        rows.push(figure(format!("page thread GC, {n} worker(s)"), p.page.gc_ms));
        rows.push(figure(format!("page thread rendering, {n} worker(s)"), p.page.render_ms));
        for (i, (ms, cpu)) in p.workers_busy.iter().enumerate() {
            rows.push(figure(format!("worker {} busy, {n} worker(s)", i + 1), *ms));
            rows.push(figure(format!("worker {} CPU, {n} worker(s)", i + 1), *cpu));
        }
    }
    println!(
        "Busy: wall time inside each thread's tasks in Chromium's trace during one warm pass (after one untimed one), \
         between marks the click script sets; CPU: the thread's own clock in those tasks (less than busy while it \
         waited for a core). Script and messages, GC and rendering are the outermost such events on the page's thread. \
         Tracing slows the page: compare the threads with each other, not these passes with the table's."
    );
    figures::record(rows);
}

/// The first visit's transfer for the offline section: every file the service worker caches on
/// install (a superset of what the page itself fetches) and sw.js, brotli, against Pyodide's
/// engine files (the engine section's fixed list); sizes come from the engine section's cache
/// when it ran. Files cached on first use (`precache: false` in sw.js) are not fetched with the
/// first screen; of those, the ones the page has kept once a visit has settled (`idle`: the
/// standard library's rest, the Parquet loader) are reported beside the total.
fn offline_transfer(dist: &Path) -> Option<offline::Transfer> {
    let pyodide = pyodide_dir_if_installed()?;
    let names = ["pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "pyodide.mjs"];
    let pyodide_files: Vec<PathBuf> = names.iter().map(|n| pyodide.join(n)).filter(|p| p.is_file()).collect();
    let mut cache = SizeCache::load();
    let on_demand = files_cached_on_first_use(dist);
    let first_visit: Vec<PathBuf> =
        files_under(dist).into_iter().filter(|f| !on_demand.iter().any(|(p, _)| p == f)).collect();
    let settled: Vec<PathBuf> = on_demand.into_iter().filter(|(_, idle)| *idle).map(|(p, _)| p).collect();
    let site = sizes(&first_visit, &mut cache);
    let later = sizes(&settled, &mut cache);
    let peer = sizes(&pyodide_files, &mut cache);
    cache.save(&[&site, &later, &peer]);
    Some(offline::Transfer {
        first_visit: site.total.brotli,
        kept_once_settled: (!settled.is_empty()).then_some(later.total.brotli),
        pyodide: peer.total.brotli,
    })
}

/// The files sw.js marks `"precache": false` (scripts/offline_build.py), as paths under `dist`,
/// each with whether it is also marked `"idle": true` (kept once a visit has settled).
fn files_cached_on_first_use(dist: &Path) -> Vec<(PathBuf, bool)> {
    let Ok(sw) = std::fs::read_to_string(dist.join("sw.js")) else { return Vec::new() };
    // `const BUILD = {...};` then the worker's code after a blank line.
    let build = sw.split_once("const BUILD = ").and_then(|(_, rest)| rest.split_once(";\n\n")).map(|(json, _)| json);
    let Some(Ok(build)) = build.map(serde_json::from_str::<Value>) else {
        eprintln!("sw.js has no readable BUILD list: every file counts as fetched on the first visit");
        return Vec::new();
    };
    let files = build["files"].as_array().cloned().unwrap_or_default();
    files
        .iter()
        .filter(|f| f["precache"] == Value::Bool(false))
        .filter_map(|f| Some((dist.join(f["path"].as_str()?), f["idle"] == Value::Bool(true))))
        .collect()
}

/// Copies the built site (without hidden folders such as Trunk's `.stage`).
fn copy_site(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    for file in files_under(from) {
        let target = to.join(file.strip_prefix(from).expect("under the site"));
        std::fs::create_dir_all(target.parent().expect("a folder")).expect("create the snapshot folder");
        std::fs::copy(&file, &target).unwrap_or_else(|e| panic!("copy {}: {e}", file.display()));
    }
}

/// Opens a fresh browser on the page and waits for its figures.
async fn measure_page(url: &str) -> Result<PageRun, String> {
    let browser = Browser::launch_fresh().await;
    let result = drive(&browser, url).await;
    browser.close().await;
    result
}

async fn drive(browser: &Browser, url: &str) -> Result<PageRun, String> {
    browser.client.goto(url).await.map_err(|e| format!("could not open {url}: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(180);
    let state = loop {
        let text = browser
            .client
            .execute(
                "return window.benchState && window.benchState.done ? JSON.stringify(window.benchState) : null",
                vec![],
            )
            .await
            .map_err(|e| format!("reading the page's state: {e}"))?;
        if let Some(text) = text.as_str() {
            break serde_json::from_str::<Value>(text).map_err(|e| e.to_string())?;
        }
        if Instant::now() > deadline {
            return Err("the page did not finish within 180 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    if let Some(error) = state["error"].as_str() {
        return Err(format!("the page failed: {error}"));
    }
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let warm = state["warm"].as_array().cloned().unwrap_or_default();
    let run = PageRun {
        ready_ms: f(&state["ready_ms"]),
        first_ms: f(&state["first"]["ms"]),
        first_passed: state["first"]["passed"].as_u64().unwrap_or(0),
        first_engine_ms: f(&state["first"]["engine_ms"]),
        warm_ms: warm.iter().map(|w| f(&w["ms"])).collect(),
        warm_engine_ms: warm.iter().map(|w| f(&w["engine_ms"])).collect(),
        warm_passed: warm.iter().map(|w| w["passed"].as_u64().unwrap_or(0)).collect(),
        restart_ms: state["restart_ms"].as_array().map(|a| a.iter().map(f).collect()).unwrap_or_default(),
        init_ms: f(&state["init_ms"]),
        fetched_ms: state["fetched_ms"].as_f64(),
        resources: state["resources"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
            .unwrap_or_default(),
    };
    if state["samples"].as_u64() != Some(SAMPLES as u64) {
        return Err(format!("expected {SAMPLES} samples, the page read {}", state["samples"]));
    }
    if let Some(failures) = state["first"]["failures"].as_array().filter(|a| !a.is_empty()) {
        eprintln!("    first failures: {}", Value::Array(failures.clone()));
    }
    Ok(run)
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            // scripts/dist.sh's .br/.gz copies: a browser fetches one form of each file, the
            // original or a copy, and the sizes here are computed from the originals.
            let copy = matches!(path.extension().and_then(|e| e.to_str()), Some("br" | "gz"))
                && path.with_extension("").is_file();
            if path.is_dir() {
                stack.push(path);
            } else if path.is_file() && !copy {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[derive(Clone, Copy, Default)]
struct Size {
    raw: u64,
    gzip: u64,
    brotli: u64,
}

impl Size {
    fn describe(&self) -> String {
        format!("{} raw, {} gzip, {} brotli", mb(self.raw), mb(self.gzip), mb(self.brotli))
    }
}

struct Sizes {
    each: Vec<Size>,
    total: Size,
}

/// Each file compressed on its own, as it would be served: gzip level 9 and brotli quality 11,
/// window 2^22 (what a host that pre-compresses its files would use). Brotli 11 is slow (about a
/// minute for the 16 MB worker module here), so results are cached by content hash in
/// `target/execbench-bench-sizes.tsv`; Pyodide's files never change between runs.
fn sizes(files: &[PathBuf], cache: &mut SizeCache) -> Sizes {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let contents: Vec<Vec<u8>> =
        files.iter().map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))).collect();
    let keys: Vec<u64> = contents.iter().map(|c| content_key(c)).collect();
    // One task per file and codec, largest first, so the two threads finish together.
    let mut tasks: Vec<(usize, bool)> = (0..files.len())
        .filter(|&i| !cache.known.contains_key(&keys[i]))
        .flat_map(|i| [(i, true), (i, false)])
        .collect();
    tasks.sort_by_key(|&(i, brotli)| std::cmp::Reverse(contents[i].len() * if brotli { 8 } else { 1 }));
    let next = AtomicUsize::new(0);
    let done = Mutex::new(vec![(0u64, 0u64); files.len()]);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(&(i, brotli)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let n = if brotli { brotli_size(&contents[i]) } else { gzip_size(&contents[i]) };
                    let mut done = done.lock().unwrap();
                    if brotli { done[i].1 = n } else { done[i].0 = n }
                }
            });
        }
    });
    let done = done.into_inner().unwrap();
    let each: Vec<Size> = (0..files.len())
        .map(|i| {
            *cache.known.entry(keys[i]).or_insert(Size {
                raw: contents[i].len() as u64,
                gzip: done[i].0,
                brotli: done[i].1,
            })
        })
        .collect();
    let total = each.iter().fold(Size::default(), |t, s| Size {
        raw: t.raw + s.raw,
        gzip: t.gzip + s.gzip,
        brotli: t.brotli + s.brotli,
    });
    Sizes { each, total }
}

fn gzip_size(bytes: &[u8]) -> u64 {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap().len() as u64
}

fn brotli_size(bytes: &[u8]) -> u64 {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 22, ..Default::default() };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).unwrap();
    out.len() as u64
}

/// A hash of the content and of the compression settings (change the tag when they change).
fn content_key(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    "gzip9-brotli11-lgwin22".hash(&mut h);
    bytes.hash(&mut h);
    h.finish()
}

/// Compressed sizes already computed: `key raw gzip brotli` per line.
struct SizeCache {
    path: PathBuf,
    known: std::collections::HashMap<u64, Size>,
}

impl SizeCache {
    fn load() -> SizeCache {
        let path = execbench_testkit::repo_root().join("target/execbench-bench-sizes.tsv");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let known = text
            .lines()
            .filter_map(|line| {
                let n: Vec<u64> = line.split('\t').filter_map(|f| f.parse().ok()).collect();
                (n.len() == 4).then(|| (n[0], Size { raw: n[1], gzip: n[2], brotli: n[3] }))
            })
            .collect();
        SizeCache { path, known }
    }

    /// Keeps only the entries of this run, so the file does not grow with every build.
    fn save(&self, used: &[&Sizes]) {
        let keep: std::collections::HashSet<(u64, u64, u64)> =
            used.iter().flat_map(|s| s.each.iter().map(|e| (e.raw, e.gzip, e.brotli))).collect();
        let text: String = self
            .known
            .iter()
            .filter(|(_, s)| keep.contains(&(s.raw, s.gzip, s.brotli)))
            .map(|(k, s)| format!("{k}\t{}\t{}\t{}\n", s.raw, s.gzip, s.brotli))
            .collect();
        let _ = std::fs::write(&self.path, text);
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn print_table(ours: &[PageRun], theirs: &[PageRun], app: Option<&app_engine::AppFigures>, site: &Size, peer: &Size) {
    let row =
        |metric: &str, a: Amount, b: Option<Amount>, ratio: Option<f64>, target: Option<String>, met: Option<bool>| {
            Figure {
                section: "engine".into(),
                metric: metric.to_string(),
                execbench: Some(a),
                reference: Some("Pyodide".into()),
                reference_amount: b,
                ratio,
                target,
                met,
            }
        };
    let versus = |ratio: f64, target: Option<f64>| (target.map(|t| format!("<= {t}")), target.map(|t| ratio <= t));
    let time_row = |metric: &str, pick: &dyn Fn(&[PageRun]) -> f64, target: Option<f64>| {
        let (a, b) = (pick(ours), pick(theirs));
        let (target, met) = versus(a / b, target);
        row(metric, Amount::Ms(a), Some(Amount::Ms(b)), Some(a / b), target, met)
    };
    let size_row = |metric: &str, a: u64, b: u64, target: Option<f64>| {
        let ratio = a as f64 / b as f64;
        let (target, met) = versus(ratio, target);
        row(metric, Amount::Bytes(a), Some(Amount::Bytes(b)), Some(ratio), target, met)
    };
    let passes = |runs: &[PageRun]| {
        let first: Vec<u64> = runs.iter().map(|r| r.first_passed).collect();
        let warm: Vec<u64> = runs.iter().flat_map(|r| r.warm_passed.iter().copied()).collect();
        let (lo, hi) = first.iter().chain(&warm).fold((u64::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        if lo == hi { format!("{lo}/{SAMPLES}") } else { format!("{lo}-{hi}/{SAMPLES}") }
    };
    let all_pass =
        ours.iter().all(|r| r.first_passed == SAMPLES as u64 && r.warm_passed.iter().all(|&p| p == SAMPLES as u64));
    let restart = median(ours.iter().flat_map(|r| r.restart_ms.iter().copied()));
    let mut rows = vec![
        time_row("ready from a cold page", &|r| median(r.iter().map(|x| x.ready_ms)), Some(0.2)),
        time_row("first verify-all pass (800)", &|r| median(r.iter().map(|x| x.first_ms)), Some(1.5)),
        time_row(
            "warm verify-all pass (800)",
            &|r| median(r.iter().flat_map(|x| x.warm_ms.iter().copied())),
            Some(1.0),
        ),
        time_row("  first pass, inside the engine", &|r| median(r.iter().map(|x| x.first_engine_ms)), None),
        time_row(
            "  warm pass, inside the engine",
            &|r| median(r.iter().flat_map(|x| x.warm_engine_ms.iter().copied())),
            None,
        ),
        row(
            "samples passing",
            Amount::Text(passes(ours)),
            Some(Amount::Text(passes(theirs))),
            None,
            Some(format!("{SAMPLES}/{SAMPLES} (ours)")),
            Some(all_pass),
        ),
        size_row("transfer, brotli (page vs engine)", site.brotli, peer.brotli, Some(1.0)),
        size_row("transfer, gzip (page vs engine)", site.gzip, peer.gzip, None),
        size_row("raw bytes (page vs engine)", site.raw, peer.raw, None),
        Figure {
            execbench: restart.is_finite().then_some(Amount::Ms(restart)),
            ..row("worker restart to ready", Amount::Ms(restart), None, None, None, None)
        },
    ];
    // The app's own figures against the Pyodide page's (one worker, the same batches).
    if let Some(app) = app {
        let pyodide_ready = median(theirs.iter().map(|x| x.ready_ms));
        let pyodide_first = median(theirs.iter().map(|x| x.first_ms));
        let pyodide_warm = median(theirs.iter().flat_map(|x| x.warm_ms.iter().copied()));
        let against = |metric: String, ms: f64, reference: f64, target: Option<f64>| {
            let (target, met) = versus(ms / reference, target);
            row(&metric, Amount::Ms(ms), Some(Amount::Ms(reference)), Some(ms / reference), target, met)
        };
        rows.push(against("app page: ready from a cold page".into(), app.ready_ms, pyodide_ready, None));
        rows.push(against(
            format!(
                "app page: first verify-all (800), 1 worker, clicked {} s after ready",
                app_engine::IDLE_BEFORE_FIRST.as_secs()
            ),
            app.first_after_idle_ms,
            pyodide_first,
            None,
        ));
        for pool in &app.pools {
            let target = if pool.workers == 1 { 1.0 } else { 0.6 };
            let workers =
                if pool.workers == 1 { "1 worker".to_string() } else { format!("a pool of {}", pool.workers) };
            rows.push(against(
                format!("app page: first verify-all (800), {workers}"),
                pool.first_ms,
                pyodide_first,
                None,
            ));
            rows.push(against(
                format!("app page: warm verify-all (800), {workers}"),
                median(pool.warm_ms.iter().copied()),
                pyodide_warm,
                Some(target),
            ));
            let per_worker = pool.memory_bytes / pool.workers_ready.max(1) as u64;
            rows.push(Figure {
                execbench: Some(Amount::Bytes(per_worker)),
                ..row(
                    &format!("app page: memory per worker ({} ready), {workers}", pool.workers_ready),
                    Amount::Bytes(per_worker),
                    None,
                    None,
                    None,
                    None,
                )
            });
            let all = pool.passed.iter().all(|&p| p == SAMPLES as u64);
            rows.push(row(
                &format!("app page: samples passing, {workers}"),
                Amount::Text(format!("{:?}", pool.passed)),
                None,
                None,
                Some(format!("{SAMPLES} every pass")),
                Some(all),
            ));
        }
    }
    println!("\n{}", figures::markdown_table("Pyodide", &rows));
    figures::record(rows);
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    fn parsed(args: &[&str]) -> Result<Options, clap::Error> {
        Flags::try_parse_from([&["execbench-bench"][..], args].concat()).map(options_of)
    }

    #[test]
    fn flags_become_options() {
        Flags::command().debug_assert();
        let all = parsed(&[]).unwrap();
        assert_eq!((all.reps, all.warm, all.restarts, all.sections.len(), all.json), (3, 3, 3, SECTIONS.len(), None));
        assert_eq!(all.busy_cores, 0);
        assert_eq!(parsed(&["--busy-cores", "1"]).unwrap().busy_cores, 1);
        let some = parsed(&["--reps", "0", "--sections", "cli,score", "--json", "f.json", "--restarts", "0"]).unwrap();
        assert_eq!((some.reps, some.restarts, some.sections), (1, 0, vec!["cli".to_string(), "score".to_string()]));
        assert_eq!(some.json, Some(PathBuf::from("f.json")));
        for (args, flag) in [
            (&["--sections", "cli,nope"][..], "--sections"),
            (&["--reps", "x"], "--reps"),
            (&["--busy-cores", "many"], "--busy-cores"),
            (&["--bogus"], "--bogus"),
        ] {
            let error = parsed(args).err().unwrap_or_else(|| panic!("{args:?} parsed"));
            assert!(error.to_string().contains(flag), "{args:?}: {error}");
            assert_eq!(error.exit_code(), 2);
        }
    }
}
