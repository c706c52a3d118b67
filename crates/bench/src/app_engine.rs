//! The engine as the app runs it (issue 15): "ready" on the real app page (navigation start to
//! the first worker's ready message, read from the header's `data-ready-at`), and verify-all on
//! the Verify page with a pool of one worker and with a larger pool (first and warm passes, the
//! page's own `data-ms`), plus the workers' WebAssembly memory after the passes.

use std::time::Duration;

use execbench_testkit::browser::Browser;

use crate::page::{click, js, wait_text};

/// One pool size's figures.
#[derive(Clone, Debug, Default)]
pub struct AppPool {
    pub workers: usize,
    pub first_ms: f64,
    pub warm_ms: Vec<f64>,
    pub passed: Vec<u64>,
    /// Workers ready after the passes, and their memory together.
    pub workers_ready: usize,
    pub memory_bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct AppFigures {
    /// Navigation start to the first worker's ready message, on a cold page.
    pub ready_ms: f64,
    /// One worker: the first verify-all pass of a fresh page clicked `IDLE_BEFORE_FIRST` after
    /// ready, as a person who looks at the page first would (the worker warms up meanwhile).
    pub first_after_idle_ms: f64,
    pub pools: Vec<AppPool>,
}

const POOL_SIZE_KEY: &str = "execbench.python-workers";
/// How long after ready the idle first pass is clicked.
pub const IDLE_BEFORE_FIRST: Duration = Duration::from_secs(3);

/// Measures in a fresh browser: a cold load for "ready", then each pool size (kept in
/// `localStorage`, the page reloaded) with one first and `warm` warm verify-all passes.
pub async fn measure(app_url: &str, pool_sizes: &[usize], warm: usize) -> Result<AppFigures, String> {
    let b = Browser::launch().await;
    let result = drive(&b, app_url, pool_sizes, warm).await;
    b.close().await;
    result
}

async fn ready_at(b: &Browser) -> Result<f64, String> {
    wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    let at = js(b, "return document.querySelector('.engine').dataset.readyAt").await?;
    at.as_str().and_then(|t| t.parse().ok()).ok_or(format!("no data-ready-at: {at}"))
}

async fn drive(b: &Browser, app_url: &str, pool_sizes: &[usize], warm: usize) -> Result<AppFigures, String> {
    let mut figures = AppFigures::default();
    b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
    figures.ready_ms = ready_at(b).await?;
    for &workers in pool_sizes {
        js(b, &format!("localStorage.setItem('{POOL_SIZE_KEY}', '{workers}'); return true")).await?;
        b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
        b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
        ready_at(b).await?;
        let mut pool = AppPool { workers, ..AppPool::default() };
        for pass in 0..=warm {
            let (ms, passed) = verify_all(b).await?;
            if pass == 0 {
                pool.first_ms = ms;
            } else {
                pool.warm_ms.push(ms);
            }
            pool.passed.push(passed);
        }
        let engine = js(
            b,
            "const e = document.querySelector('.engine'); return [Number(e.dataset.workers), Number(e.dataset.memory)]",
        )
        .await?;
        pool.workers_ready = engine[0].as_u64().unwrap_or(0) as usize;
        pool.memory_bytes = engine[1].as_u64().unwrap_or(0);
        figures.pools.push(pool);
    }
    // A fresh page with one worker, the first pass clicked a while after ready.
    js(b, &format!("localStorage.setItem('{POOL_SIZE_KEY}', '1'); return true")).await?;
    b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
    b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
    ready_at(b).await?;
    tokio::time::sleep(IDLE_BEFORE_FIRST).await;
    figures.first_after_idle_ms = verify_all(b).await?.0;
    js(b, &format!("localStorage.removeItem('{POOL_SIZE_KEY}'); return true")).await?;
    Ok(figures)
}

/// One verify-all pass on the Verify page: (the page's elapsed ms, samples passed).
async fn verify_all(b: &Browser) -> Result<(f64, u64), String> {
    click(b, "[data-testid=verify-start]").await?;
    let state = wait_text(b, "[data-testid=verify-state]", Duration::from_secs(600), |t| !t.is_empty()).await?;
    if !state.contains("finished") {
        return Err(format!("verify-all ended with `{state}`"));
    }
    let read = js(b, "return [document.querySelector('[data-testid=verify-stats]').dataset.ms, document.querySelector('[data-testid=verify-passed]').textContent]").await?;
    let ms: f64 = read[0].as_str().and_then(|t| t.parse().ok()).ok_or(format!("no data-ms: {read}"))?;
    let passed: u64 = read[1]
        .as_str()
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .ok_or(format!("no passed count: {read}"))?;
    Ok((ms, passed))
}
