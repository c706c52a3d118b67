//! End to end, a batch run on the page: the built app in headless Chromium, the real IndexedDB and
//! the mock model server's OpenAI batch service on its test-moved clock. A run of 40 samples x
//! n = 2 is submitted from Evaluate's Batch choice, the tab is reloaded, the mock's clock moves on
//! a day, and Runs → Check now (the key typed again: it was not remembered) collects it. Its
//! records score as a live run of the same mock answers, sample for sample; errored lines are
//! error records; the key is in no stored value.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use execbench_mockserver::{AnswerPolicy, BatchScript, MockConfig, MockServer, bundled_dataset};
use execbench_run::record::SampleRecord;
use execbench_testkit::browser::Browser;
use fantoccini::Locator;
use serde_json::Value;

use common::{open_evaluate, start_api_run};

const KEY: &str = "sk-e2e-BATCH-5151";
const SAMPLES: usize = 40;

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

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_run_submitted_reloaded_and_checked_scores_as_the_live_run() {
    let config = MockConfig {
        api_key: Some(KEY.into()),
        answers: AnswerPolicy { wrong_every: Some(4), ..Default::default() },
        ..Default::default()
    };
    let mock = MockServer::start(bundled_dataset().unwrap(), config, 0).await.unwrap();
    mock.set_batch_script(BatchScript { errored_every: Some(7), ..Default::default() });
    let (b, site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "api").await;
    select(&b, "[data-testid=api-provider]", "openai-compatible").await;
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
    b.fill("[data-testid=api-model]", "mock-model").await;
    b.fill("[data-testid=api-key]", KEY).await;
    b.fill("[data-testid=eval-n]", "2").await;
    b.fill("[data-testid=eval-limit]", &SAMPLES.to_string()).await;

    // The live run the batch run must equal.
    start_api_run(&b).await;
    let live_id = wait_run(&b, false, "finished", Duration::from_secs(60)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    mock.reset();

    // Batch: the estimate at the batch price with the saving, then submitted and nothing more.
    b.click("[data-testid=eval-run]").await;
    b.click("[data-testid=estimate-batch]").await;
    let estimate = b.wait_text("[data-testid=estimate-batch-text]", Duration::from_secs(10), |t| !t.is_empty()).await;
    assert!(estimate.contains("At the batch price"), "{estimate}");
    b.click("[data-testid=estimate-go]").await;
    let said = b.wait_text("[data-testid=eval-batch-said]", Duration::from_secs(20), |t| t.contains("submitted")).await;
    assert!(said.contains("40 requests submitted in 1 batch"), "{said}");
    let batch_id = wait_run(&b, true, "paused", Duration::from_secs(10)).await;
    let submitted = mock.stats().requests_total;

    // A reload: nothing is asked of the provider until the user says so.
    b.client.refresh().await.unwrap();
    b.client.goto(&format!("{}#/runs", site.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    let note = b
        .wait_text(&format!("[data-run='{batch_id}'] [data-testid=run-note]"), Duration::from_secs(30), |t| {
            !t.is_empty()
        })
        .await;
    assert!(note.contains("submitted: 1 batch, 0 / 40 done, provider says validating"), "{note}");
    let row = |part: &str| format!("[data-run='{batch_id}'] [data-testid={part}]");
    let shown = b.wait_text(&row("run-state"), Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(shown.starts_with("submitted"), "{shown}");
    b.wait_text(&row("run-batch-mark"), Duration::from_secs(5), |t| t == "batch").await;
    let waited = b.wait_text(&row("run-time"), Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(waited.starts_with("waited "), "{waited}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(mock.stats().requests_total, submitted, "no request at page load");
    let polled = js(
        &b,
        &format!("return document.querySelectorAll(\"[data-run='{batch_id}'] [data-testid=run-next-check]\").length"),
    )
    .await;
    assert_eq!(polled, 0, "a reload polls nothing before the user asks");

    // The provider's day passes; Check now without the key asks for it and sends nothing.
    mock.advance_batch_clock(86_400);
    let check = format!("[data-run='{batch_id}'] [data-testid=run-check-batches]");
    b.click(&check).await;
    let said = b.wait_text("[data-testid=runs-message]", Duration::from_secs(20), |t| t.contains("API key")).await;
    assert!(said.contains("Nothing was sent"), "{said}");
    assert_eq!(mock.stats().requests_total, submitted, "no request without the key");
    b.fill("[data-testid=runs-key]", KEY).await;
    b.click(&check).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(30), |t| t.contains("every batch collected")).await;
    wait_run(&b, true, "finished", Duration::from_secs(10)).await;
    b.screenshot("batch-collected").await;

    // Sample for sample, the live run's scores; errored lines are error records.
    let (_, records) = stored(&b).await;
    let of = |run: &str| -> BTreeMap<String, SampleRecord> {
        records
            .iter()
            .filter(|((r, _), _)| r == run)
            .map(|((_, s), v)| (s.clone(), serde_json::from_value(v.clone()).unwrap()))
            .collect()
    };
    let (live, batch) = (of(&live_id), of(&batch_id));
    assert_eq!((live.len(), batch.len()), (SAMPLES, SAMPLES));
    let mut errors = 0;
    for (id, record) in &batch {
        match &record.error {
            Some(e) => {
                errors += 1;
                assert!(!e.message.is_empty() && record.results.is_empty(), "{id}: {e:?}");
            }
            None => {
                let (l, r) = (&live[id].results[0], &record.results[0]);
                assert_eq!((l.answers.len(), l.correct), (r.answers.len(), r.correct), "{id}");
                assert_eq!(l.answers, r.answers, "{id}");
            }
        }
    }
    assert!((1..SAMPLES / 2).contains(&errors), "{errors} error records");

    // Retry errors as a new batch: only the error records are submitted; the run is polled from
    // then on (its key was given in this page session); Check now collects them.
    let before = mock.stats().batch_calls.values().sum::<u64>();
    b.click(&row("run-retry-batch")).await;
    let said =
        b.wait_text("[data-testid=runs-message]", Duration::from_secs(20), |t| t.contains("submitted again")).await;
    assert!(said.contains(&format!("{errors} requests submitted again in 1 batch")), "{said}");
    let next = b.wait_text(&row("run-next-check"), Duration::from_secs(10), |t| !t.is_empty()).await;
    assert_eq!(next, "next check in 30 s");
    assert_eq!(mock.stats().batch_calls.values().sum::<u64>(), before + 2, "upload and create, no poll yet");
    mock.advance_batch_clock(86_400);
    b.click(&row("run-check-batches")).await;
    b.wait_text("[data-testid=runs-message]", Duration::from_secs(30), |t| t.contains("every batch collected")).await;
    wait_run(&b, true, "finished", Duration::from_secs(10)).await;
    let (_, records) = stored(&b).await;
    let retried = records.iter().filter(|((r, _), _)| *r == batch_id).filter(|(_, v)| v["error"].is_null()).count();
    // The mock errors every 7th line of a batch: the retried batch's lines are fewer than 7.
    assert_eq!(retried, SAMPLES, "Retry errors finished every error record");
    for ((run, id), v) in records.iter().filter(|((r, _), _)| *r == batch_id) {
        let record: SampleRecord = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(record.results[0].answers, live[id].results[0].answers, "{run} {id}");
    }
    let errors = 0;

    // A finished batch run opens like any other.
    b.click(&format!("[data-run='{batch_id}'] [data-testid=run-open]")).await;
    let line = b.wait_text("[data-testid=run-summary-line]", Duration::from_secs(20), |t| !t.is_empty()).await;
    assert!(line.contains(&format!("{} of 40 samples scored", SAMPLES - errors)), "{line}");

    // The key: in no stored value, and not in localStorage (it was not remembered).
    let (runs, records) = stored(&b).await;
    assert!(!format!("{runs:?}{records:?}").contains(KEY), "no key in IndexedDB");
    let local = js(&b, "return JSON.stringify(Object.entries(localStorage))").await;
    assert!(!local.as_str().unwrap().contains(KEY), "no key in localStorage");
    b.close().await;
}
