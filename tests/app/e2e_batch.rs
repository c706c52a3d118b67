//! End to end, batch runs on the page: the built app in headless Chromium, the real IndexedDB and
//! the mock model server's OpenAI batch service on its test-moved clock. The issue's whole story:
//! all 800 samples x n = 2 submitted from Evaluate's Batch choice, the tab reloaded, the browser
//! closed and opened again on the same profile, the mock's day passing with lines errored and
//! expired, Runs → Check now (the key typed again: it was not remembered) collecting them with
//! the scores of a live run of the same mock answers, Retry errors finishing them, and the key in
//! no store. Then short ones: Stop on a waiting run, Retry errors live, and the polling loop.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use execbench_mockserver::{AnswerPolicy, BatchScript, MockConfig, MockServer, bundled_dataset};
use execbench_providers::Usage;
use execbench_run::batch::RetryVia;
use execbench_run::continuation_cost::{describe_continuation, estimate_continuation};
use execbench_run::cost::Price;
use execbench_run::manifest::RunEntry;
use execbench_run::record::SampleRecord;
use execbench_run::session;
use execbench_testkit::browser::{Browser, KeptProfile};
use execbench_testkit::static_server::StaticServer;
use fantoccini::Locator;
use serde_json::Value;

use common::open_evaluate;

const KEY: &str = "sk-e2e-BATCH-5151";

async fn js(b: &Browser, script: &str) -> Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

async fn select(b: &Browser, css: &str, value: &str) {
    let element = b.client.wait().at_most(Duration::from_secs(10)).for_element(Locator::Css(css)).await.unwrap();
    element.select_by_value(value).await.unwrap();
}

/// IndexedDB's run entries, and every record by (run id, sample id).
async fn stored(b: &Browser) -> (Vec<Value>, BTreeMap<(String, String), Value>) {
    let script = r#"
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('execbench');
        open.onsuccess = () => {
            const db = open.result;
            const tx = db.transaction(['runs', 'records'], 'readonly');
            const out = {};
            tx.objectStore('runs').getAll().onsuccess = e => out.runs = e.target.result;
            tx.objectStore('records').getAll().onsuccess = e => out.records = e.target.result;
            tx.objectStore('records').getAllKeys().onsuccess = e => out.keys = e.target.result;
            tx.oncomplete = () => { db.close(); done(JSON.stringify(out)); };
        };"#;
    let text = b.client.execute_async(script, vec![]).await.unwrap();
    let all: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
    let parse = |v: &Value| match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::String(s.clone())),
        other => other.clone(),
    };
    let runs = all["runs"].as_array().unwrap().iter().map(parse).collect();
    let mut records = BTreeMap::new();
    for (key, value) in all["keys"].as_array().unwrap().iter().zip(all["records"].as_array().unwrap()) {
        let record = parse(value);
        let run = match key {
            Value::Array(parts) => parts[0].as_str().unwrap_or_default().to_string(),
            Value::String(s) => s.split(['\u{0}', '/', '|']).next().unwrap_or_default().to_string(),
            other => other.to_string(),
        };
        records.insert((run, record["sample_id"].as_str().unwrap().to_string()), record);
    }
    (runs, records)
}

async fn run_states(b: &Browser) -> Vec<(String, String, bool)> {
    stored(b)
        .await
        .0
        .iter()
        .map(|r| {
            let batches = r.get("batches").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
            (
                r["manifest"]["run_id"].as_str().unwrap_or_default().to_string(),
                r["state"].as_str().unwrap_or_default().to_string(),
                batches,
            )
        })
        .collect()
}

/// Waits until a stored run (a batch run or not) is in `state`; returns its id.
async fn wait_run(b: &Browser, batch: bool, state: &str, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let runs = run_states(b).await;
        if let Some((id, _, _)) = runs.iter().find(|(_, s, is_batch)| *is_batch == batch && s == state) {
            return id.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no {} run is {state}: {runs:?}; page says: {}",
            if batch { "batch" } else { "live" },
            js(b, "return document.body.innerText").await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The mock with a key and answers of which every 4th is wrong; batches behave as `script`.
async fn mock_with(script: BatchScript) -> MockServer {
    let config = MockConfig {
        api_key: Some(KEY.into()),
        answers: AnswerPolicy { wrong_every: Some(4), ..Default::default() },
        ..Default::default()
    };
    let mock = MockServer::start(bundled_dataset().unwrap(), config, 0).await.unwrap();
    mock.set_batch_script(script);
    mock
}

/// Opens `route` of the site and waits until Python is ready and the bundled dataset loaded.
async fn open(b: &Browser, site: &StaticServer, route: &str) {
    b.client.goto(&format!("{}#/{route}", site.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
}

/// Evaluate's form for the mock's OpenAI-compatible API, `samples` x `n`, the key typed.
async fn fill_api_form(b: &Browser, mock: &MockServer, samples: usize, n: usize) {
    select(b, "[data-testid=eval-model]", "api").await;
    select(b, "[data-testid=api-provider]", "openai-compatible").await;
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
    b.fill("[data-testid=api-model]", "mock-model").await;
    b.fill("[data-testid=api-key]", KEY).await;
    b.fill("[data-testid=eval-n]", &n.to_string()).await;
    b.fill("[data-testid=eval-limit]", &samples.to_string()).await;
}

/// Run evaluation → Batch → Submit the batch; returns what Evaluate said.
async fn submit_batch(b: &Browser) -> String {
    b.click("[data-testid=eval-run]").await;
    b.click("[data-testid=estimate-batch]").await;
    let estimate = b.wait_text("[data-testid=estimate-batch-text]", Duration::from_secs(10), |t| !t.is_empty()).await;
    assert!(estimate.contains("At the batch price"), "{estimate}");
    b.click("[data-testid=estimate-go]").await;
    b.wait_text("[data-testid=eval-batch-said]", Duration::from_secs(30), |t| t.contains("submitted")).await
}

/// A row's part, by its test id.
fn row(run: &str, part: &str) -> String {
    format!("[data-run='{run}'] [data-testid={part}]")
}

/// The run's records by sample id.
fn records_of(records: &BTreeMap<(String, String), Value>, run: &str) -> BTreeMap<String, SampleRecord> {
    records
        .iter()
        .filter(|((r, _), _)| r == run)
        .map(|((_, s), v)| (s.clone(), serde_json::from_value(v.clone()).unwrap()))
        .collect()
}

/// What a record scored, per mode: (mode, answers, correct, pass@1), to compare two runs by.
fn scores(record: &SampleRecord) -> Vec<String> {
    record.results.iter().map(|r| format!("{:?} {:?} {} {:?}", r.mode, r.answers, r.correct, r.pass_at_1)).collect()
}

/// A live run of the same mock answers, made natively by `execbench run` (the CLI built beside
/// this test by `cargo test --workspace`): all its records by sample id.
fn live_run_natively(mock_url: &str, samples: usize, n: usize, dir: &Path) -> BTreeMap<String, SampleRecord> {
    let cli = execbench_testkit::fresh_cli_binary();
    let out = dir.join("live.jsonl");
    let dataset = execbench_mockserver::bundled_dataset_path();
    let output = std::process::Command::new(&cli)
        .args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", "openai-compatible"])
        .args(["--base-url", &format!("{mock_url}/v1"), "--model", "mock-model", "--key-env", "OPENAI_API_KEY"])
        .args(["--n", &n.to_string(), "--limit", &samples.to_string(), "--out", out.to_str().unwrap()])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .expect("execbench runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let mut by_id = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("{\"sample_id\"")) {
        let record: SampleRecord = serde_json::from_str(line).unwrap();
        by_id.insert(record.sample_id.clone(), record);
    }
    assert_eq!(by_id.len(), samples, "the live run recorded every sample");
    by_id
}

/// Every store a page can write, searched for `needle` inside the page: each IndexedDB database's
/// stores (values and keys, binary ones as text), localStorage, sessionStorage and Cache Storage
/// (every cached request and body). Returns the parts that hold it, and how many characters of
/// IndexedDB were searched with the ids they hold (so an empty dump cannot pass).
async fn stores_holding(b: &Browser, needle: &str, also: &str) -> (Vec<String>, usize, bool) {
    let script = r#"
        const [needle, also, done] = arguments;
        const text = v => JSON.stringify(v, (_, x) =>
            x instanceof ArrayBuffer ? new TextDecoder().decode(x)
            : ArrayBuffer.isView(x) ? new TextDecoder().decode(x) : x);
        const asked = r => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
        (async () => {
            const holding = [];
            let idbChars = 0, idbHasAlso = false;
            for (const info of await indexedDB.databases()) {
                const db = await asked(indexedDB.open(info.name));
                for (const name of db.objectStoreNames) {
                    const store = db.transaction(name, 'readonly').objectStore(name);
                    const values = await asked(store.getAll());
                    const keys = await asked(store.getAllKeys());
                    const dump = text(values) + text(keys);
                    idbChars += dump.length;
                    idbHasAlso = idbHasAlso || dump.includes(also);
                    if (dump.includes(needle)) holding.push(`IndexedDB ${info.name}/${name}`);
                }
                db.close();
            }
            for (const [name, area] of [['localStorage', localStorage], ['sessionStorage', sessionStorage]]) {
                if (text(Object.entries(area)).includes(needle)) holding.push(name);
            }
            for (const name of await caches.keys()) {
                const cache = await caches.open(name);
                for (const request of await cache.keys()) {
                    const response = await cache.match(request);
                    const body = response ? await response.text() : '';
                    if (request.url.includes(needle) || body.includes(needle)) holding.push(`Cache ${name} ${request.url}`);
                }
            }
            return JSON.stringify([holding, idbChars, idbHasAlso]);
        })().then(done, e => done(JSON.stringify([[`the dump failed: ${e}`], 0, false])));"#;
    let got = b.client.execute_async(script, vec![needle.into(), also.into()]).await.unwrap();
    serde_json::from_str(got.as_str().unwrap()).unwrap()
}

/// The issue's "Done when", on the page: 800 x n = 2 submitted, the tab reloaded, the browser
/// closed and opened again on the same profile, the mock's clock moved on (lines errored and
/// expired), Check now collecting with the live run's scores, Retry errors finishing the error
/// records, and the key in no store.
#[tokio::test(flavor = "multi_thread")]
async fn an_800_sample_batch_run_outlives_a_closed_browser_and_scores_as_the_live_run() {
    const SAMPLES: usize = 800;
    let started = Instant::now();
    // Two days of work in a one-day window: lines run in input order, about half expire.
    let mock = mock_with(BatchScript { run_s: 172_800, errored_every: Some(7), ..Default::default() }).await;
    let scratch = KeptProfile::new();
    // The live run the batch run must equal, made natively while the browser starts.
    let (url, dir) = (mock.base_url(), scratch.path().join("cli"));
    std::fs::create_dir_all(&dir).unwrap();
    let live = tokio::task::spawn_blocking(move || live_run_natively(&url, SAMPLES, 2, &dir));
    let site = StaticServer::start(&execbench_testkit::dist_dir());
    let profile = KeptProfile::new();
    let b = Browser::launch_in_profile(profile.path()).await;
    open(&b, &site, "evaluate").await;
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    fill_api_form(&b, &mock, SAMPLES, 2).await;
    let live = live.await.unwrap();
    mock.reset();

    // Submitted: one batch of 800 lines (one line of n = 2 per sample), and nothing more.
    let said = submit_batch(&b).await;
    assert!(said.contains("800 requests submitted in 1 batch"), "{said}");
    let batch_id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    let submitted = mock.stats().requests_total;
    assert_eq!(mock.stats().batch_calls.values().sum::<u64>(), 2, "upload and create");

    // The tab reloaded, then the whole browser closed and opened again on the same profile. Each
    // time, once the row is drawn (the page has decided whether to poll: a scheduled poll shows
    // its next check), the page has started no request and the server has seen none.
    b.client.refresh().await.unwrap();
    open(&b, &site, "runs").await;
    b.wait_text(&row(&batch_id, "run-note"), Duration::from_secs(30), |t| !t.is_empty()).await;
    assert_eq!(common::provider_requests(&b).await, 0, "the reloaded tab asked nothing at load");
    b.close().await;
    let b = Browser::launch_in_profile(profile.path()).await;
    open(&b, &site, "runs").await;
    let note = b.wait_text(&row(&batch_id, "run-note"), Duration::from_secs(30), |t| !t.is_empty()).await;
    assert!(note.contains("submitted: 1 batch, 0 / 800 done, provider says validating"), "{note}");
    let shown = b.wait_text(&row(&batch_id, "run-state"), Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(shown.starts_with("submitted"), "{shown}");
    b.wait_text(&row(&batch_id, "run-batch-mark"), Duration::from_secs(5), |t| t == "batch").await;
    let polled =
        js(&b, &format!("return document.querySelectorAll(\"{}\").length", row(&batch_id, "run-next-check"))).await;
    assert_eq!(polled, 0, "a new session polls nothing before the user asks");
    assert_eq!(common::provider_requests(&b).await, 0, "the new session asked nothing at load");
    assert_eq!(mock.stats().requests_total, submitted, "nothing asked at load, after a reload or a new session");
    assert_eq!(mock.stats().batch_calls.values().sum::<u64>(), 2, "no batch call at load either");

    // The provider's day passes: half the lines ran (every 7th errored), the rest expired.
    mock.advance_batch_clock(86_400);
    b.click(&row(&batch_id, "run-check-batches")).await;
    let said = b.wait_text("[data-testid=runs-message]", Duration::from_secs(20), |t| t.contains("API key")).await;
    assert!(said.contains("Nothing was sent"), "{said}");
    assert_eq!(common::provider_requests(&b).await, 0, "the page started no request without the key");
    assert_eq!(mock.stats().requests_total, submitted, "no request without the key");
    b.fill("[data-testid=runs-key]", KEY).await;
    let collecting = Instant::now();
    b.click(&row(&batch_id, "run-check-batches")).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(180), |t| t.contains("every batch collected")).await;
    let collect_s = collecting.elapsed().as_secs_f64();
    wait_run(&b, true, "finished", Duration::from_secs(10)).await;

    // Sample for sample, the live run's scores; errored and expired lines are error records.
    let (_, records) = stored(&b).await;
    let batch = records_of(&records, &batch_id);
    assert_eq!(batch.len(), SAMPLES);
    let (mut errored, mut expired) = (0, 0);
    for (id, record) in &batch {
        match &record.error {
            Some(e) if e.message.contains("expired") => expired += 1,
            Some(e) if e.message.contains("server error") => errored += 1,
            Some(e) => panic!("{id}: an error the mock did not make: {e:?}"),
            None => assert_eq!(scores(record), scores(&live[id]), "{id}: the batch's scores are the live run's"),
        }
    }
    assert!(
        errored > 20 && expired > 300 && errored + expired < SAMPLES / 2 + 80,
        "{errored} errored, {expired} expired"
    );

    // The error records are on the run's page with the provider's reasons.
    b.click(&row(&batch_id, "run-open")).await;
    let listed = b
        .wait_text("[data-testid=run-errors]", Duration::from_secs(20), |t| {
            t.contains("expired") && t.contains("server error")
        })
        .await;
    assert!(listed.contains(&format!("{} samples failed", errored + expired)), "{listed}");
    open(&b, &site, "runs").await;

    // Retry errors as a new batch (the provider behaves now); the next day Check now collects it.
    mock.set_batch_script(BatchScript::default());
    b.fill("[data-testid=runs-key]", KEY).await;
    b.click(&row(&batch_id, "run-retry-batch")).await;
    let said =
        b.wait_text("[data-testid=runs-message]", Duration::from_secs(30), |t| t.contains("submitted again")).await;
    assert!(said.contains(&format!("{} requests submitted again in 1 batch", errored + expired)), "{said}");
    mock.advance_batch_clock(86_400);
    b.click(&row(&batch_id, "run-check-batches")).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(180), |t| t.contains("every batch collected")).await;
    wait_run(&b, true, "finished", Duration::from_secs(10)).await;
    b.screenshot("batch-800-collected").await;
    let (_, records) = stored(&b).await;
    let batch = records_of(&records, &batch_id);
    for (id, record) in &batch {
        assert!(record.error.is_none(), "{id}: {:?}", record.error);
        assert_eq!(scores(record), scores(&live[id]), "{id}: after Retry errors, the live run's scores");
    }
    assert_eq!(batch.len(), SAMPLES);

    // The key: in no store of the page (the dump does reach the run's data).
    let (holding, idb_chars, has_run) = stores_holding(&b, KEY, &batch_id).await;
    assert!(holding.is_empty(), "the key is stored in {holding:?}");
    assert!(has_run && idb_chars > 100_000, "the IndexedDB dump read the run ({idb_chars} characters)");
    eprintln!(
        "800 x 2 batch run: collected in {collect_s:.1} s; the whole test took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    b.close().await;
    drop(profile);
}

/// Stop on a waiting batch run: its batch is cancelled at the provider, the lines that finished
/// are collected as answers, the rest are error records saying the batch was cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn stop_cancels_a_waiting_batch_and_collects_what_finished() {
    const SAMPLES: usize = 20;
    let mock = mock_with(BatchScript::default()).await;
    let (b, site) = open_evaluate().await;
    fill_api_form(&b, &mock, SAMPLES, 1).await;
    let said = submit_batch(&b).await;
    assert!(said.contains("20 requests submitted in 1 batch"), "{said}");
    let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    // Validation (60 s) and half the hour of work: lines 0..10 have run.
    mock.advance_batch_clock(60 + 1_800);
    open(&b, &site, "runs").await;
    b.fill("[data-testid=runs-key]", KEY).await;
    b.click(&row(&id, "run-stop-batches")).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(30), |t| t.contains("every batch collected")).await;
    assert_eq!(mock.stats().batch_calls.get("cancel"), Some(&1), "{:?}", mock.stats().batch_calls);
    let (_, records) = stored(&b).await;
    let got = records_of(&records, &id);
    assert_eq!(got.len(), SAMPLES);
    let answered = got.values().filter(|r| r.error.is_none() && r.results[0].answers.len() == 1).count();
    let cancelled = got.values().filter(|r| r.error.as_ref().is_some_and(|e| e.message.contains("cancel"))).count();
    assert_eq!((answered, cancelled), (10, 10), "{got:?}");
    b.close().await;
}

/// A full store while a batch is collected (issue 55): Check now says the run could not be stored
/// and keeps the batch uncollected (its results stay at the provider); with room again, Check now
/// collects it whole, one record per sample, and the run finishes.
#[tokio::test(flavor = "multi_thread")]
async fn a_full_store_while_collecting_leaves_the_batch_to_collect_again() {
    const SAMPLES: usize = 20;
    let mock = mock_with(BatchScript::default()).await;
    let (b, site) = open_evaluate().await;
    fill_api_form(&b, &mock, SAMPLES, 1).await;
    let said = submit_batch(&b).await;
    assert!(said.contains("20 requests submitted in 1 batch"), "{said}");
    let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    mock.advance_batch_clock(86_400);
    open(&b, &site, "runs").await;
    b.fill("[data-testid=runs-key]", KEY).await;
    // IndexedDB's put throws QuotaExceededError from the 6th write on.
    common::store_full_from_write(&b, 6).await;
    let said = said_after(&b, &row(&id, "run-check-batches")).await;
    assert!(said.contains("the storage is full") && said.contains("press Check now"), "{said}");
    assert!(!said.contains("Resume"), "a batch is collected again with Check now: {said}");
    b.screenshot("batch-store-full").await;
    let entry = run_states(&b).await.into_iter().find(|(run, _, _)| *run == id).expect("the run is listed");
    assert_ne!(entry.1, "finished", "a run whose records could not all be stored is not finished: {entry:?}");
    let downloads = mock.stats().batch_calls.get("download").copied().unwrap_or(0)
        + mock.stats().batch_calls.get("results").copied().unwrap_or(0);
    assert!(downloads >= 1, "{:?}", mock.stats().batch_calls);

    common::store_has_room_again(&b).await;
    let said = said_after(&b, &row(&id, "run-check-batches")).await;
    assert!(said.contains("every batch collected"), "{said}");
    wait_run(&b, true, "finished", Duration::from_secs(20)).await;
    let (_, records) = stored(&b).await;
    let got = records_of(&records, &id);
    assert_eq!(got.len(), SAMPLES, "one record per sample");
    assert!(got.values().all(|r| r.error.is_none() && r.results[0].answers.len() == 1), "{got:?}");
    b.close().await;
}

/// The cost a row or a run's page shows ("$1.23" in "… · cost $1.23"), as a number.
fn dollars_in(text: &str) -> f64 {
    let at = text.rfind('$').unwrap_or_else(|| panic!("no cost in {text:?}"));
    let digits: String = text[at + 1..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// Retry errors live on a collected batch run: only its error records are asked, live, and the
/// run ends with none. The retried answers are billed live, so the cost shown counts them at the
/// live price and the batch's at half (worked out from the mock's usage in the records).
#[tokio::test(flavor = "multi_thread")]
async fn retry_errors_live_finishes_a_batch_runs_errors() {
    const SAMPLES: usize = 21;
    // Dollars per million tokens: dear enough that the two prices differ by far more than a cent.
    const PRICE_IN: f64 = 1000.0;
    const PRICE_OUT: f64 = 3000.0;
    let mock = mock_with(BatchScript { errored_every: Some(3), ..Default::default() }).await;
    let (b, site) = open_evaluate().await;
    fill_api_form(&b, &mock, SAMPLES, 1).await;
    b.fill("[data-testid=price-in]", &PRICE_IN.to_string()).await;
    b.fill("[data-testid=price-out]", &PRICE_OUT.to_string()).await;
    submit_batch(&b).await;
    let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    mock.advance_batch_clock(86_400);
    open(&b, &site, "runs").await;
    b.fill("[data-testid=runs-key]", KEY).await;
    b.click(&row(&id, "run-check-batches")).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(30), |t| t.contains("every batch collected")).await;
    let (_, records) = stored(&b).await;
    let errored: Vec<String> =
        records_of(&records, &id).values().filter(|r| r.error.is_some()).map(|r| r.sample_id.clone()).collect();
    assert_eq!(errored.len(), 7, "every 3rd of 21 lines errored");
    // Both Retry buttons are whole in the row's actions, within the table's visible width.
    let fits = format!(
        "const s = document.querySelector(\"{}\").closest('.table-scroll');
         return [...document.querySelectorAll(\"[data-run='{id}'] .actions button\")].map(b => {{
             const box = b.getBoundingClientRect();
             return [b.innerText, box.width > 0 && box.right <= s.getBoundingClientRect().right + 0.5 && b.scrollWidth <= b.clientWidth + 1];
         }});",
        row(&id, "run-retry-batch")
    );
    let buttons = js(&b, &fits).await;
    b.screenshot("batch-row-actions").await;
    let cut: Vec<&Value> = buttons.as_array().unwrap().iter().filter(|p| p[1] != true).collect();
    assert!(buttons.as_array().unwrap().len() >= 4 && cut.is_empty(), "buttons cut: {cut:?} of {buttons}");
    mock.reset();
    let retry = b.wait_text(&row(&id, "run-retry"), Duration::from_secs(10), |t| !t.is_empty()).await;
    assert_eq!(retry, "Retry errors live");

    // A priced run says first what going on asks and costs, at the price the provider bills: the
    // library's own estimate of the stored run (made here, natively), word for word. Cancel sends
    // nothing.
    let (runs, records) = stored(&b).await;
    let entry: RunEntry = serde_json::from_value(
        runs.into_iter().find(|r| r["manifest"]["run_id"] == id.as_str()).expect("the run is stored"),
    )
    .unwrap();
    let records: Vec<SampleRecord> = records_of(&records, &id).into_values().collect();
    let dataset = bundled_dataset().unwrap();
    let api = entry.manifest.api.clone().unwrap();
    let expected = |as_batch: bool| {
        let plan = match as_batch {
            true => execbench_run::batch::retry_errors(&entry, records.clone(), &dataset, RetryVia::Batch, None),
            false => session::continuation(&entry, records.clone(), &dataset, session::Continue::RetryErrors, None),
        }
        .unwrap();
        let supports_n = api.endpoint.supports_n();
        let e =
            estimate_continuation(&plan.entry, &plan.job, &records, as_batch, supports_n, api.params.max_tokens as u64);
        describe_continuation(&e)
    };
    for (button, as_batch, words) in
        [("run-retry-batch", true, "at the batch price"), ("run-retry", false, "at the live price")]
    {
        b.click(&row(&id, button)).await;
        let line = b.wait_text("[data-testid=runs-estimate-line]", Duration::from_secs(10), |t| !t.is_empty()).await;
        assert!(line.starts_with("asks 7 answers of 7 samples") && line.contains(words), "{button}: {line}");
        assert_eq!(line, expected(as_batch), "{button}: the page's estimate is the library's");
        if as_batch {
            assert!(line.contains("less than live"), "{line}");
            b.screenshot("batch-retry-estimate").await;
        }
        b.click("[data-testid=runs-estimate-cancel]").await;
    }
    let stats = mock.stats();
    assert_eq!((stats.requests_total, stats.batch_calls.len()), (0, 0), "an estimate cancelled sends nothing");
    b.click(&row(&id, "run-retry")).await;
    b.click("[data-testid=runs-estimate-go]").await;
    wait_run(&b, true, "finished", Duration::from_secs(30)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, records) = stored(&b).await;
        let got = records_of(&records, &id);
        if got.values().all(|r| r.error.is_none()) {
            assert_eq!(got.len(), SAMPLES);
            break;
        }
        assert!(Instant::now() < deadline, "errors left: {got:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stats = mock.stats();
    assert_eq!(stats.requests_total, 7, "only the 7 errors asked, live");
    assert!(stats.batch_calls.is_empty(), "no batch call: {:?}", stats.batch_calls);

    // The cost: the batch's tokens at half the price, the 7 retried samples' at the live price.
    let (_, records) = stored(&b).await;
    let got = records_of(&records, &id);
    let (mut batch_tokens, mut live_tokens) = (Usage::default(), Usage::default());
    for (sample, record) in &got {
        let usage = record.usage.unwrap_or_else(|| panic!("{sample}: no usage"));
        assert!(usage.prompt_tokens > 0, "{sample}: the mock's usage");
        if errored.contains(sample) {
            assert_eq!(record.live_usage, record.usage, "{sample}: asked live, kept apart");
            live_tokens.add(&usage);
        } else {
            assert_eq!(record.live_usage, None, "{sample}: the batch's answer");
            batch_tokens.add(&usage);
        }
    }
    let live_price = Price::per_million(PRICE_IN, PRICE_OUT);
    let half_price = execbench_run::batch::batch_price(live_price);
    let want = half_price.cost(&batch_tokens) + live_price.cost(&live_tokens);
    let all_at_half = half_price.cost(&batch_tokens) + half_price.cost(&live_tokens);
    assert!(want - all_at_half > 0.05, "the test tells the prices apart: {want} vs {all_at_half}");
    open(&b, &site, "runs").await;
    let shown = b.wait_text(&row(&id, "run-cost"), Duration::from_secs(10), |t| t.contains('$')).await;
    assert!(
        (dollars_in(&shown) - want).abs() <= 0.005,
        "the row's cost {shown} should be {want:.4} (batch tokens at half price, retried ones live; all at half: {all_at_half:.4})"
    );
    b.click(&row(&id, "run-open")).await;
    let usage_line = b.wait_text("[data-testid=run-usage]", Duration::from_secs(20), |t| t.contains('$')).await;
    assert!(
        (dollars_in(&usage_line) - want).abs() <= 0.005,
        "the run's page says {usage_line:?}, the cost should be {want:.4}"
    );
    b.close().await;
}

/// The polling loop really checks: after a submission the row says when the next check is, a
/// check that finds nothing new doubles the wait, and once the mock's day passes the run is
/// collected with no click. The page's long timers are sped up 100 times (only `setTimeout`'s
/// delays: what is checked and shown is the page's own).
#[tokio::test(flavor = "multi_thread")]
async fn polling_collects_a_batch_run_with_no_click() {
    const SAMPLES: usize = 10;
    let mock = mock_with(BatchScript::default()).await;
    let (b, _site) = open_evaluate().await;
    speed_up_long_timers(&b).await;
    fill_api_form(&b, &mock, SAMPLES, 1).await;
    submit_batch(&b).await;
    let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    // Followed by a link, not a reload: the page session (and the sped-up timers) go on.
    js(&b, "location.hash = '#/runs'; return true;").await;
    let first = b.wait_text(&row(&id, "run-next-check"), Duration::from_secs(10), |t| !t.is_empty()).await;
    assert!(first == "next check in 30 s" || first == "next check in 60 s", "{first}");
    // A check that finds the batch still validating: the next one waits twice as long.
    b.wait_text(&row(&id, "run-next-check"), Duration::from_secs(10), |t| t == "next check in 60 s").await;
    assert!(mock.stats().batch_calls.get("status").is_some_and(|n| *n >= 1), "{:?}", mock.stats().batch_calls);
    mock.advance_batch_clock(86_400);
    wait_run(&b, true, "finished", Duration::from_secs(30)).await;
    let state = b.wait_text(&row(&id, "run-state"), Duration::from_secs(10), |t| !t.starts_with("submitted")).await;
    assert!(!state.is_empty(), "{state}");
    let (_, records) = stored(&b).await;
    assert_eq!(records_of(&records, &id).len(), SAMPLES);
    assert_eq!(mock.stats().batch_calls.get("results"), Some(&1), "{:?}", mock.stats().batch_calls);
    b.close().await;
}

/// Makes the page's timers of 30 s and longer fire 100 times sooner (only `setTimeout`'s delays:
/// what is checked and shown is the page's own).
async fn speed_up_long_timers(b: &Browser) {
    js(
        b,
        "const later = window.setTimeout.bind(window);
         window.setTimeout = (f, ms, ...rest) => later(f, ms >= 30000 ? ms / 100 : ms, ...rest);
         return true;",
    )
    .await;
}

/// Takes the run's Web Lock from outside the app (as another tab driving the run would hold it)
/// and keeps it until [`release_lock`].
async fn hold_lock(b: &Browser, run: &str) {
    let script = r#"
        const [name, done] = arguments;
        navigator.locks.request(name, () => { done(true); return new Promise(r => { window.__releaseRunLock = r; }); });"#;
    let held = b.client.execute_async(script, vec![format!("execbench-run:{run}").into()]).await.unwrap();
    assert_eq!(held, Value::Bool(true), "the test holds the run's lock");
}

async fn release_lock(b: &Browser) {
    js(b, "window.__releaseRunLock(); return true;").await;
}

/// Clicks `css` and returns what the Runs page then says (once its "…" of work in hand is gone).
async fn said_after(b: &Browser, css: &str) -> String {
    b.click(css).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(30), |t| !t.is_empty() && !t.ends_with('…')).await
}

/// Clicks `css` and returns what the Runs page then says, clicking again (up to 10 times) while
/// the answer is that this tab's own poll is in hand: with the timers sped up, a click can meet
/// one, and that refusal is this tab's own, while the test is about another tab's lock.
async fn said_past_own_poll(b: &Browser, css: &str) -> String {
    const OWN_POLL: &str = "this tab is already asking the provider";
    let message = "[data-testid=runs-message]";
    let mut said = said_after(b, css).await;
    for _ in 0..10 {
        if !said.contains(OWN_POLL) {
            return said;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        b.click(css).await;
        // The same refusal again leaves the message as it was: read it after a moment.
        tokio::time::sleep(Duration::from_millis(700)).await;
        said = b.wait_text(message, Duration::from_secs(30), |t| !t.is_empty() && !t.ends_with('…')).await;
    }
    said
}

/// Check now, Stop, Retry errors as a new batch and each poll hold the run's Web Lock: while
/// another holder has it, each is refused (saying so) and nothing is sent to the provider. The
/// page's long timers are sped up 100 times, as in the polling test.
#[tokio::test(flavor = "multi_thread")]
async fn batch_actions_and_polls_wait_while_another_tab_holds_the_runs_lock() {
    const SAMPLES: usize = 6;
    let mock = mock_with(BatchScript { errored_every: Some(3), ..Default::default() }).await;
    let (b, _site) = open_evaluate().await;
    speed_up_long_timers(&b).await;
    fill_api_form(&b, &mock, SAMPLES, 1).await;
    submit_batch(&b).await;
    let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    let calls = || mock.stats().batch_calls.values().sum::<u64>();
    // Another holder takes the lock before Runs is shown (the submission armed its polling).
    hold_lock(&b, &id).await;
    let before = calls();
    js(&b, "location.hash = '#/runs'; return true;").await;
    b.wait_text(&row(&id, "run-check-batches"), Duration::from_secs(10), |t| t == "Check now").await;
    b.fill("[data-testid=runs-key]", KEY).await;

    // Check now and Stop: refused, nothing asked.
    for (button, action) in [("run-check-batches", "Check now"), ("run-stop-batches", "Stop")] {
        let said = said_past_own_poll(&b, &row(&id, button)).await;
        assert!(
            said.contains("being worked on in another tab"),
            "{action} while another tab holds the run's lock should be refused; the page said {said:?}"
        );
        assert_eq!(calls(), before, "{action} asked the provider while another tab held the run's lock");
    }
    // The polls: the loop wakes (its wait doubles with each refused poll: 30, 60, 120, 240 s)
    // and leaves the provider alone.
    let grown = b
        .wait_text(&row(&id, "run-next-check"), Duration::from_secs(20), |t| {
            t.trim_start_matches("next check in ").trim_end_matches(" s").parse::<u64>().is_ok_and(|s| s >= 240)
        })
        .await;
    assert_eq!(calls(), before, "a poll asked the provider while another tab held the run's lock ({grown})");

    // Let go: the polling asks again, and once the mock's day has passed collects the run
    // (errored lines are error records).
    release_lock(&b).await;
    mock.advance_batch_clock(86_400);
    wait_run(&b, true, "finished", Duration::from_secs(30)).await;
    assert!(calls() > before, "the polling asked once the lock was free");

    // Retry errors as a new batch waits for the lock too.
    b.wait_text(&row(&id, "run-retry-batch"), Duration::from_secs(10), |t| !t.is_empty()).await;
    let collected = calls();
    hold_lock(&b, &id).await;
    let said = said_past_own_poll(&b, &row(&id, "run-retry-batch")).await;
    assert!(
        said.contains("being worked on in another tab"),
        "Retry errors as a new batch while another tab holds the run's lock should be refused; the page said {said:?}"
    );
    assert_eq!(calls(), collected, "Retry errors as a new batch submitted while another tab held the run's lock");
    release_lock(&b).await;
    b.close().await;
}

/// Gemini's input-file path from the page: with the inline limit lowered (the page's
/// `execbench.gemini-inline-bytes`, as the CLI's `EXECBENCH_GEMINI_INLINE_BYTES`), a 30 x 2 run
/// goes as one uploaded file: the Files API's two calls, one create, the next day's status check
/// (Check now) and one download. It scores as the live run and the key is in no store.
/// Then a server that hides the upload address from pages: the page says so and sends the same
/// requests as inline batches, and that run completes too.
#[tokio::test(flavor = "multi_thread")]
async fn a_gemini_run_past_the_inline_limit_goes_as_a_file_from_the_page() {
    const SAMPLES: usize = 30;
    let mock = mock_with(BatchScript::default()).await;
    let scratch = KeptProfile::new();
    let (url, dir) = (mock.base_url(), scratch.path().join("cli"));
    std::fs::create_dir_all(&dir).unwrap();
    let live = tokio::task::spawn_blocking(move || live_run_natively(&url, SAMPLES, 2, &dir));
    let (b, site) = open_evaluate().await;
    // Read once as the app starts.
    js(&b, "localStorage.setItem('execbench.gemini-inline-bytes', '4000')").await;
    b.client.refresh().await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    let live = live.await.unwrap();
    for hidden in [false, true] {
        mock.reset();
        mock.set_batch_script(BatchScript { upload_url_hidden_from_pages: hidden, ..Default::default() });
        open(&b, &site, "evaluate").await;
        select(&b, "[data-testid=eval-model]", "api").await;
        select(&b, "[data-testid=api-provider]", "gemini").await;
        b.fill("[data-testid=api-base-url]", &format!("{}/v1beta", mock.base_url())).await;
        b.fill("[data-testid=api-model]", "mock").await;
        b.fill("[data-testid=api-key]", KEY).await;
        b.fill("[data-testid=eval-n]", "2").await;
        b.fill("[data-testid=eval-limit]", &SAMPLES.to_string()).await;
        let said = submit_batch(&b).await;
        let calls = mock.stats().batch_calls;
        let count = |name: &str| calls.get(name).copied().unwrap_or(0);
        if hidden {
            assert!(said.contains("could not be uploaded from here") && said.contains("inline batch"), "{said}");
            assert_eq!(count("upload"), 0, "no bytes sent to an address the page cannot read: {calls:?}");
            assert!(count("create") > 1, "the lowered limit splits the inline requests: {calls:?}");
        } else {
            assert!(said.contains("as the input file files/"), "{said}");
            assert_eq!((count("upload_start"), count("upload"), count("create")), (1, 1, 1), "{calls:?}");
        }
        let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
        mock.advance_batch_clock(86_400);
        open(&b, &site, "runs").await;
        b.fill("[data-testid=runs-key]", KEY).await;
        b.click(&row(&id, "run-check-batches")).await;
        b.wait_text("[data-testid=runs-message]", Duration::from_secs(60), |t| t.contains("every batch collected"))
            .await;
        let calls = mock.stats().batch_calls;
        if !hidden {
            let count = |name: &str| calls.get(name).copied().unwrap_or(0);
            assert_eq!((count("status"), count("download")), (1, 1), "{calls:?}");
            assert_eq!(calls.values().sum::<u64>(), 5, "five calls for the whole run: {calls:?}");
        }
        let (_, records) = stored(&b).await;
        let batch = records_of(&records, &id);
        assert_eq!(batch.len(), SAMPLES, "hidden address: {hidden}");
        for (sample, record) in &batch {
            assert_eq!(scores(record), scores(&live[sample]), "{sample}: the batch's scores are the live run's");
        }
    }
    let (holding, _, _) = stores_holding(&b, KEY, "execbench").await;
    assert!(holding.is_empty(), "the key is stored in {holding:?}");
    b.close().await;
}

/// Rewrites the stored run `run` as another tab would by deleting it and importing a run of the
/// same id in its place: the same batches, its base URL `base_url`. Then tells this tab so, as
/// the other tab's import does (a `BroadcastChannel` message on the runs' channel).
async fn replace_run_pointing_to(b: &Browser, run: &str, base_url: &str) {
    let script = r#"
        const [run, baseUrl, channel, done] = arguments;
        const open = indexedDB.open('execbench');
        open.onsuccess = () => {
            const db = open.result;
            const tx = db.transaction(['runs'], 'readwrite');
            const runs = tx.objectStore('runs');
            const keys = runs.getAllKeys();
            const values = runs.getAll();
            let found = false;
            values.onsuccess = () => keys.result.forEach((key, i) => {
                const raw = values.result[i];
                const entry = typeof raw === 'string' ? JSON.parse(raw) : raw;
                if (entry.manifest.run_id !== run) return;
                entry.manifest.api.endpoint.base_url = baseUrl;
                runs.put(typeof raw === 'string' ? JSON.stringify(entry) : entry, key);
                found = true;
            });
            tx.oncomplete = () => {
                db.close();
                new BroadcastChannel(channel).postMessage('imported ' + run);
                done(found);
            };
        };"#;
    let args = vec![run.into(), base_url.into(), execbench_run::tabs::NOTICE_CHANNEL.into()];
    let found = b.client.execute_async(script, args).await.unwrap();
    assert_eq!(found, Value::Bool(true), "the stored run {run} was rewritten");
}

/// A batch run's polling key is armed for the provider and origin the run named when the key was
/// given. Another tab deletes the run and imports one of the same id pointing elsewhere: this
/// tab's loop, at its next wake, sees the changed scope, stops (its "next check" goes) and sends
/// nothing, the key least of all, to the new address. The page's long timers are sped up.
#[tokio::test(flavor = "multi_thread")]
async fn a_polling_key_never_follows_a_run_replaced_to_point_elsewhere() {
    const SAMPLES: usize = 4;
    let mock = mock_with(BatchScript::default()).await;
    let elsewhere = mock_with(BatchScript::default()).await;
    let (b, _site) = open_evaluate().await;
    speed_up_long_timers(&b).await;
    fill_api_form(&b, &mock, SAMPLES, 1).await;
    submit_batch(&b).await;
    let id = wait_run(&b, true, "paused", Duration::from_secs(20)).await;
    js(&b, "location.hash = '#/runs'; return true;").await;
    // The loop runs: its first check goes to the run's own server.
    b.wait_text(&row(&id, "run-next-check"), Duration::from_secs(10), |t| t == "next check in 60 s").await;
    assert!(mock.stats().batch_calls.get("status").is_some_and(|n| *n >= 1), "{:?}", mock.stats().batch_calls);

    replace_run_pointing_to(&b, &id, &format!("{}/v1", elsewhere.base_url())).await;
    // The page has decided when the row (read again, now naming the other server) has no next
    // check: the loop woke, saw the scope changed and disarmed.
    let gone = format!("return document.querySelector(\"{}\") === null", row(&id, "run-next-check"));
    let decided = b.wait_script(&gone, Duration::from_secs(20), |v| v == &Value::Bool(true)).await;
    assert_eq!(decided, Value::Bool(true));
    let asked = elsewhere.stats();
    let reached = asked.requests_total + asked.preflights + asked.batch_calls.values().sum::<u64>();
    assert_eq!(reached, 0, "the armed key's poll went to the address the replaced run names: {asked:?}");
    b.close().await;
}
