//! The run engine's request throughput against the project's mock model server (a real HTTP
//! server on 127.0.0.1, fixed latency per request): 400 CRUXEval samples, n = 1, output
//! prediction, strict mode, 8 requests at a time, once from the command line (`execbench run`,
//! the release binary) and once from the app's Evaluate page in headless Chromium (another origin
//! than the page: CORS is real). The ideal is N x L / c: every request waits its latency and
//! nothing else, c of them always in flight. In the page a `requestAnimationFrame` loop records the
//! longest gap between frames while the run goes on: how long the page froze at worst.
//! Then the rate-limit recovery: `execbench run` with a 429 (`Retry-After: 1`) on the first
//! attempt of every seventh sample, against its ideal ceil(N / c) x L + the one wait.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use execbench_mockserver::{Fault, FaultRule, MockConfig, MockServer, SampleMatch, bundled_dataset};
use execbench_testkit::browser::Browser;

use crate::figures::{Amount, Figure};
use crate::page::{js, select, wait_text};

/// Requests (samples, n = 1).
pub const REQUESTS: usize = 400;
/// The server's latency per request.
pub const LATENCY_MS: u64 = 200;
pub const CONCURRENCY: usize = 8;
/// Targets: wall time over the ideal, and the longest frame in the page.
const RATIO_TARGET: f64 = 1.1;
const FRAME_TARGET_MS: f64 = 50.0;

/// One measurement (a row of the table).
pub struct Throughput {
    pub place: &'static str,
    pub requests: u64,
    pub wall_ms: f64,
    pub max_concurrency: u32,
    /// In the page only: the longest gap between two frames, and how many frames there were.
    pub longest_frame_ms: Option<f64>,
    pub frames: Option<u64>,
    /// When the longest frame ended, since the frame monitor started (just before the click).
    pub longest_frame_at_ms: Option<f64>,
    /// In the page only: its own timing and usage lines (`[data-testid=run-timing]`, `run-usage`).
    pub page_timing: Option<String>,
    pub page_usage: Option<String>,
}

fn ideal_ms() -> f64 {
    (REQUESTS as u64 * LATENCY_MS) as f64 / CONCURRENCY as f64
}

/// The `execbench` binary: `EXECBENCH_CLI`, else `$CARGO_TARGET_DIR/release/execbench`, else the
/// workspace's `target/release/execbench`.
pub fn cli_binary() -> PathBuf {
    if let Ok(path) = std::env::var("EXECBENCH_CLI") {
        return PathBuf::from(path);
    }
    let root = execbench_testkit::repo_root();
    let target = std::env::var("CARGO_TARGET_DIR").map(|d| root.join(d)).unwrap_or_else(|_| root.join("target"));
    target.join("release").join(format!("execbench{}", std::env::consts::EXE_SUFFIX))
}

/// The whole section: starts the mock server, measures both places, prints the table.
pub async fn section(app_url: &str) {
    println!(
        "\nmodel API throughput: {REQUESTS} requests (CRUXEval output prediction, n = 1, strict), mock server latency {LATENCY_MS} ms, concurrency {CONCURRENCY}; the command line, then the app's Evaluate page..."
    );
    let dataset = match bundled_dataset() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read the bundled dataset for the mock server: {e}");
            return;
        }
    };
    let mock = match MockServer::start(dataset.clone(), MockConfig { latency_ms: LATENCY_MS, ..Default::default() }, 0)
        .await
    {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot start the mock model server: {e}");
            return;
        }
    };
    let mut rows: Vec<Result<Throughput, (&'static str, String)>> = Vec::new();

    mock.reset();
    let cli = command_line(&mock, REQUESTS, CONCURRENCY).await;
    rows.push(cli.map(|t| with_stats(t, &mock)).map_err(|e| ("command line (`execbench run`)", e)));

    mock.reset();
    let page = in_the_page(app_url, &mock).await;
    rows.push(page.map(|t| with_stats(t, &mock)).map_err(|e| ("in the page (Evaluate, headless Chromium)", e)));

    print(&rows);
    rate_limit_recovery(dataset).await;
}

/// Fills in what the server saw since the last reset, warning when it is not one request a sample.
fn with_stats(mut t: Throughput, mock: &MockServer) -> Throughput {
    let stats = mock.stats();
    t.requests = stats.requests_total;
    t.max_concurrency = stats.max_concurrency;
    if stats.requests_total != REQUESTS as u64 {
        println!("  warning: {}: the server saw {} model requests, expected {REQUESTS}", t.place, stats.requests_total);
    }
    if stats.unidentified > 0 {
        println!("  warning: {}: {} prompts matched no sample of the server's dataset", t.place, stats.unidentified);
    }
    t
}

/// `execbench run` against the mock server, `requests` samples at `concurrency`; wall time around
/// the process.
async fn command_line(mock: &MockServer, requests: usize, concurrency: usize) -> Result<Throughput, String> {
    let place = "command line (`execbench run`)";
    let binary = cli_binary();
    if !binary.is_file() {
        let message = format!(
            "no execbench binary at {}: run `cargo build --release -p execbench-cli` first (scripts/bench.sh does), or point EXECBENCH_CLI at one",
            binary.display()
        );
        eprintln!("{message}");
        return Err("no binary (see above)".into());
    }
    let dataset = execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl");
    let scratch = std::env::temp_dir().join(format!("execbench-bench-models-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let out = scratch.join("run.jsonl");
    let mut cmd = std::process::Command::new(&binary);
    cmd.arg("run")
        .arg("--dataset")
        .arg(&dataset)
        .args([
            "--task",
            "output",
            "--provider",
            "openai-compatible",
            "--base-url",
            &format!("{}/v1", mock.base_url()),
            "--model",
            "mock",
        ])
        .args([
            "--n",
            "1",
            "--concurrency",
            &concurrency.to_string(),
            "--limit",
            &requests.to_string(),
            "--mode",
            "strict",
            "--out",
        ])
        .arg(&out)
        // No key is needed (openai-compatible); do not send the user's to the mock server.
        .env_remove("OPENAI_API_KEY");
    let started = Instant::now();
    // Off the runtime's threads: the mock server answers on them meanwhile.
    let output = tokio::task::spawn_blocking(move || cmd.output()).await.map_err(|e| e.to_string())?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let _ = std::fs::remove_dir_all(&scratch);
    let output = output.map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(10).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(format!("execbench run failed ({}): {}", output.status, tail.join(" / ")));
    }
    Ok(Throughput {
        place,
        requests: 0,
        wall_ms,
        max_concurrency: 0,
        longest_frame_ms: None,
        frames: None,
        longest_frame_at_ms: None,
        page_timing: None,
        page_usage: None,
    })
}

/// The same run from the Evaluate page; wall time from the click on Run until the run's state
/// shows, the longest frame from a `requestAnimationFrame` loop started just before the click.
async fn in_the_page(app_url: &str, mock: &MockServer) -> Result<Throughput, String> {
    let b = Browser::launch_fresh().await;
    let result = drive(&b, app_url, mock).await;
    b.close().await;
    result
}

/// Records the longest gap between two animation frames (`window.__longestFrame`, ms), when it
/// ended (`window.__longestAt`, ms since the monitor started) and the number of frames
/// (`window.__frames`) until `window.__frameMonitor` is set to false.
const FRAME_MONITOR: &str = r#"
window.__longestFrame = 0;
window.__longestAt = 0;
window.__frames = 0;
window.__frameMonitor = true;
const start = performance.now();
let last = null;
const tick = (now) => {
    if (last !== null && now - last > window.__longestFrame) {
        window.__longestFrame = now - last;
        window.__longestAt = now - start;
    }
    last = now;
    window.__frames += 1;
    if (window.__frameMonitor) requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"#;

async fn drive(b: &Browser, app_url: &str, mock: &MockServer) -> Result<Throughput, String> {
    let place = "in the page (Evaluate, headless Chromium)";
    b.client.goto(&format!("{app_url}#/evaluate")).await.map_err(|e| format!("could not open the app: {e}"))?;
    wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    wait_text(b, ".evaluate .muted", Duration::from_secs(60), |t| t.contains("(800 samples)")).await?;
    select(b, "[data-testid=eval-model]", "api").await?;
    select(b, "[data-testid=api-provider]", "openai-compatible").await?;
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
    b.fill("[data-testid=api-model]", "mock").await;
    b.fill("[data-testid=api-concurrency]", &CONCURRENCY.to_string()).await;
    select(b, "[data-testid=eval-task]", "output").await?;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", &REQUESTS.to_string()).await;
    // Strict only, as on the command line: the compatible box starts ticked.
    b.click("[data-testid=eval-compatible]").await;
    let modes = js(b, "const q = (t) => document.querySelector(`[data-testid=${t}]`).checked; return [q('eval-strict'), q('eval-compatible')]").await?;
    if modes != serde_json::json!([true, false]) {
        return Err(format!("expected strict only, the mode boxes are (strict, compatible) = {modes}"));
    }

    mock.reset();
    js(b, FRAME_MONITOR).await?;
    let started = Instant::now();
    b.click("[data-testid=eval-run]").await;
    // Every API run shows its cost estimate first.
    wait_text(b, "[data-testid=estimate-go]", Duration::from_secs(20), |_| true).await?;
    b.click("[data-testid=estimate-go]").await;
    let state = wait_text(b, "[data-testid=eval-state]", Duration::from_secs(600), |t| !t.is_empty()).await?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let frames =
        js(b, "window.__frameMonitor = false; return [window.__longestFrame, window.__frames, window.__longestAt]")
            .await?;
    if state != "finished" {
        let error = js(b, "const e = document.querySelector('[data-testid=eval-error]'); return e ? e.innerText : ''")
            .await
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        return Err(format!("the run ended with `{state}` {error}"));
    }
    let page_timing = wait_text(b, "[data-testid=run-timing]", Duration::from_secs(10), |t| !t.is_empty()).await.ok();
    // "400 requests (at most 8 at once) · tokens: ...": the engine's own count of requests in flight.
    let page_usage = wait_text(b, "[data-testid=run-usage]", Duration::from_secs(2), |t| !t.is_empty()).await.ok();
    Ok(Throughput {
        place,
        requests: 0,
        wall_ms,
        max_concurrency: 0,
        longest_frame_ms: frames[0].as_f64(),
        frames: frames[1].as_u64(),
        longest_frame_at_ms: frames[2].as_f64(),
        page_timing,
        page_usage,
    })
}

fn print(rows: &[Result<Throughput, (&'static str, String)>]) {
    let ideal = ideal_ms();
    println!(
        "\n### Model API throughput: {REQUESTS} requests, latency L = {LATENCY_MS} ms, concurrency c = {CONCURRENCY}\n"
    );
    println!(
        "| where | requests | wall time | ideal N x L / c | ratio (target <= {RATIO_TARGET}) | server's max concurrency | longest frame (target < {FRAME_TARGET_MS:.0} ms) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let flag = |text: String, met: bool| if met { text } else { format!("**{text}**") };
    for row in rows {
        match row {
            Ok(t) => {
                let ratio = t.wall_ms / ideal;
                let frame = match t.longest_frame_ms {
                    Some(ms) => flag(format!("{ms:.0} ms"), ms < FRAME_TARGET_MS),
                    None => "-".into(),
                };
                println!(
                    "| {} | {} | {:.2} s | {:.2} s | {} | {} | {} |",
                    t.place,
                    t.requests,
                    t.wall_ms / 1000.0,
                    ideal / 1000.0,
                    flag(format!("{ratio:.2}"), ratio <= RATIO_TARGET),
                    t.max_concurrency,
                    frame
                );
            }
            Err((place, e)) => println!("| {place} | failed: {e} | - | {:.2} s | - | - | - |", ideal / 1000.0),
        }
    }
    // One figure a row: its wall time against the ideal.
    crate::figures::record(rows.iter().map(|row| {
        let (place, wall_ms) = match row {
            Ok(t) => (t.place, Some(t.wall_ms)),
            Err((place, _)) => (*place, None),
        };
        Figure {
            section: "models".into(),
            metric: format!("{place}: {REQUESTS} requests"),
            execbench: wall_ms.map(Amount::Ms),
            reference: Some("ideal N x L / c".into()),
            reference_amount: Some(Amount::Ms(ideal)),
            ratio: wall_ms.map(|ms| ms / ideal),
            target: Some(format!("<= {RATIO_TARGET}")),
            met: wall_ms.map(|ms| ms / ideal <= RATIO_TARGET),
        }
    }));
    println!(
        "\nIdeal: each of the N requests waits the server's latency L and nothing else, c always in flight (N x L / c). \
         The wall time also holds everything else: the command line's process start and RustPython, prompt building, \
         extracting and scoring the answers (strict), writing the run file; in the page, its own work on the main thread \
         and the worker, and the polling granularity (~20 ms plus a WebDriver round trip). Bold: over the target."
    );
    for t in rows.iter().flatten() {
        if let Some(timing) = &t.page_timing {
            println!("The page's own figures: {timing}.");
            if let (Some(frames), Some(longest), Some(at)) = (t.frames, t.longest_frame_ms, t.longest_frame_at_ms) {
                println!(
                    "  {frames} frames while it ran; the longest ({longest:.0} ms) ended {:.2} s after the click (the run took {:.2} s).",
                    at / 1000.0,
                    t.wall_ms / 1000.0
                );
            }
        }
        if let Some(usage) = &t.page_usage {
            println!("  {usage}");
        }
        let seen = t.max_concurrency as usize;
        if (1..CONCURRENCY).contains(&seen) {
            let ideal_seen = (REQUESTS as u64 * LATENCY_MS) as f64 / seen as f64;
            println!(
                "{}: the server never had more than {seen} requests at once, though {CONCURRENCY} were allowed{}. At {seen}, N x L / {seen} = {:.2} s, ratio {:.2}.",
                t.place,
                if t.longest_frame_ms.is_some() {
                    " (Chromium opens at most 6 HTTP/1.1 connections per host, and the mock server speaks HTTP/1.1 only)"
                } else {
                    ""
                },
                ideal_seen / 1000.0,
                t.wall_ms / ideal_seen
            );
        }
    }
}

/// The rate-limit recovery's run: samples, latency, concurrency, the provider's wait, the target.
const RECOVERY_REQUESTS: usize = 60;
const RECOVERY_LATENCY_MS: u64 = 400;
const RECOVERY_CONCURRENCY: usize = 4;
const RECOVERY_WAIT_MS: u64 = 1_000;
const RECOVERY_TARGET: f64 = 1.3;

/// `execbench run` with a 429 on the first attempt of every seventh sample: an isolated rate limit
/// should cost its own request's wait, not the run's concurrency.
async fn rate_limit_recovery(dataset: Vec<execbench_core::Sample>) {
    let ideal =
        (RECOVERY_REQUESTS.div_ceil(RECOVERY_CONCURRENCY) as u64 * RECOVERY_LATENCY_MS + RECOVERY_WAIT_MS) as f64;
    let config = MockConfig {
        latency_ms: RECOVERY_LATENCY_MS,
        faults: vec![FaultRule::on_attempts(
            SampleMatch::EveryKth(7),
            &[1],
            Fault::RateLimit { retry_after_s: Some(RECOVERY_WAIT_MS as f64 / 1000.0), retry_after_ms: None },
        )],
        ..Default::default()
    };
    println!(
        "\n### Rate-limit recovery: {RECOVERY_REQUESTS} requests, L = {RECOVERY_LATENCY_MS} ms, c = {RECOVERY_CONCURRENCY}, a 429 with Retry-After {} s on the first attempt of every 7th sample\n",
        RECOVERY_WAIT_MS / 1000
    );
    let mock = match MockServer::start(dataset, config, 0).await {
        Ok(m) => m,
        Err(e) => return eprintln!("cannot start the mock model server: {e}"),
    };
    let result = command_line(&mock, RECOVERY_REQUESTS, RECOVERY_CONCURRENCY).await;
    let stats = mock.stats();
    println!(
        "| where | requests (429s) | wall time | ideal ceil(N / c) x L + wait | ratio (target <= {RECOVERY_TARGET}) | server's max concurrency |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let wall_ms = match &result {
        Ok(t) => {
            let ratio = t.wall_ms / ideal;
            let shown = if ratio <= RECOVERY_TARGET { format!("{ratio:.2}") } else { format!("**{ratio:.2}**") };
            println!(
                "| {} | {} ({}) | {:.2} s | {:.2} s | {shown} | {} |",
                t.place,
                stats.requests_total,
                stats.faults_served,
                t.wall_ms / 1000.0,
                ideal / 1000.0,
                stats.max_concurrency
            );
            Some(t.wall_ms)
        }
        Err(e) => {
            println!("| command line (`execbench run`) | failed: {e} | - | {:.2} s | - | - |", ideal / 1000.0);
            None
        }
    };
    crate::figures::record([Figure {
        section: "models".into(),
        metric: format!("command line: {RECOVERY_REQUESTS} requests, a 429 on every 7th"),
        execbench: wall_ms.map(Amount::Ms),
        reference: Some("ideal ceil(N / c) x L + one Retry-After".into()),
        reference_amount: Some(Amount::Ms(ideal)),
        ratio: wall_ms.map(|ms| ms / ideal),
        target: Some(format!("<= {RECOVERY_TARGET}")),
        met: wall_ms.map(|ms| ms / ideal <= RECOVERY_TARGET),
    }]);
    println!(
        "\nIdeal: the run without faults (ceil(N / c) waves of L) plus the one Retry-After no schedule can hide \
         (the last limited sample's). Each limited sample's own wait overlaps the other samples' requests."
    );
}
