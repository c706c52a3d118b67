//! End-to-end: datasets people already have, imported in the page. A LiveCodeBench execution file
//! in Parquet, written by pyarrow as Hugging Face writes them (tests/fixtures/pyarrow: the dataset
//! card's schema, snappy, dictionary pages, three row groups, microsecond timestamps), is
//! imported, every row checked by running it, verified on the Verify page and scored 100% by the
//! oracle; a CodeCrash-shaped perturbed file is imported with its perturbation kept per sample.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

use crate::parquet_writer;

/// Parquet files written by pyarrow, with the script that made them.
const PYARROW_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pyarrow");

async fn select(b: &Browser, css: &str, value: &str) {
    b.element(css).await.select_by_value(value).await.unwrap();
}

async fn send_file(b: &Browser, path: &std::path::Path) {
    b.element("[data-testid=import]").await.send_keys(path.to_str().unwrap()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_livecodebench_parquet_file_is_imported_verified_and_scored_and_a_codecrash_file_keeps_its_kind() {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lcb = std::path::Path::new(PYARROW_FIXTURES).join("lcb_execution.parquet");
    // The library reads the same file natively: the page must show what it shows.
    let native = execbench_formats::load_dataset("lcb_execution.parquet", &std::fs::read(&lcb).unwrap()).report;
    assert_eq!((native.samples.len(), native.errors.len()), (24, 0), "{:?}", native.errors);

    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    let base = server.base_url.clone();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;

    send_file(&b, &lcb).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(10), |t| t == "lcb_execution.parquet").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "24 of 24").await;
    let status =
        b.wait_text("[data-testid=import-check-status]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(status, "Every row runs and returns its output (24 of 24 checked, finished).");
    b.client.goto(&format!("{base}#/sample/sample_5")).await.unwrap();
    let call = b.wait_text("[data-testid=sample-call]", Duration::from_secs(10), |_| true).await;
    assert_eq!(call, native.samples[5].call, "the call is LiveCodeBench's input as written");
    b.screenshot("import-lcb-sample").await;

    b.client.goto(&format!("{base}#/verify")).await.unwrap();
    b.click("[data-testid=verify-start]").await;
    b.wait_text("[data-testid=verify-state]", Duration::from_secs(120), |t| t == "finished").await;
    assert_eq!(b.wait_text("[data-testid=verify-passed]", Duration::from_secs(5), |_| true).await, "24 passed");

    b.client.goto(&format!("{base}#/evaluate")).await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(24 samples)")).await;
    select(&b, "[data-testid=eval-model]", "oracle").await;
    select(&b, "[data-testid=eval-task]", "output").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(120), |t| !t.is_empty()).await, "finished");
    for mode in ["strict", "compatible"] {
        assert_eq!(
            b.wait_text(&format!("[data-testid=pass1-output-{mode}]"), Duration::from_secs(5), |_| true).await,
            "100.0",
            "{mode}"
        );
    }

    // A CodeCrash file (its name says perturbation and task): one row per task, the perturbation
    // and the original id kept with each sample.
    let crux = dir.join("crux_MCC_output.jsonl");
    let row = |id: &str, x: i64| {
        serde_json::json!({"task_id": id, "dataset": "crux", "code": "def f(x):\n    # returns twice x\n    return x + 1", "function_name": "f", "function_call": format!("f({x})"), "output": (x + 1).to_string(), "test": format!("assert f({x}) == {}", x + 1)}).to_string()
    };
    std::fs::write(&crux, format!("{}\n{}\n", row("sample_0", 1), row("sample_1", 5))).unwrap();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    send_file(&b, &crux).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(10), |t| t == "crux_MCC_output.jsonl").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "2 of 2").await;
    let status =
        b.wait_text("[data-testid=import-check-status]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(status, "Every row runs and returns its output (2 of 2 checked, finished).");
    b.client.goto(&format!("{base}#/sample/sample_1")).await.unwrap();
    b.wait_text("[data-testid=sample-call]", Duration::from_secs(10), |t| t == "f(5)").await;
    b.click("[data-testid=sample-meta] summary").await;
    let meta = b.wait_text("[data-testid=sample-meta] dl", Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(
        meta.contains("perturbation") && meta.contains("MCC") && meta.contains("original_id"),
        "the sample's fields show its perturbation and original id: {meta}"
    );
    b.screenshot("import-codecrash-sample").await;

    b.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

/// "From Hugging Face…": a split fetched by name, page by page, from a rows API (the mock server
/// stands in for Hugging Face's dataset viewer, serving CRUXEval in the viewer's shape); the
/// dataset is kept like an imported file, so a reload opens it again.
#[tokio::test(flavor = "multi_thread")]
async fn a_split_is_loaded_by_name_through_the_rows_api_and_kept_for_a_reload() {
    use execbench_mockserver::{MockConfig, MockServer, bundled_dataset};
    let mock = MockServer::start(bundled_dataset().unwrap(), MockConfig::default(), 0).await.unwrap();
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    let base = server.base_url.clone();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    // Checking 800 rows is the Verify page's business here: this test is about the fetch.
    b.click("[data-testid=check-rows]").await;
    b.click("[data-testid=hf] > summary").await;
    b.fill("[data-testid=hf-dataset]", "cruxeval-org/cruxeval").await;
    b.click("[data-testid=hf] details > summary").await;
    b.fill("[data-testid=hf-api]", &format!("{}/rows", mock.base_url())).await;
    b.click("[data-testid=hf-load]").await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(30), |t| t == "cruxeval-org/cruxeval (test)").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "800 of 800").await;
    b.client.goto(&format!("{base}#/sample/sample_799")).await.unwrap();
    let bundled = bundled_dataset().unwrap();
    assert_eq!(
        b.wait_text("[data-testid=sample-expected]", Duration::from_secs(10), |_| true).await,
        bundled[799].output
    );

    b.client.refresh().await.unwrap();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(30), |t| t == "cruxeval-org/cruxeval (test)").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    b.close().await;
}

/// A big JSON Lines file (about 8 MB, 24 000 rows, one of them broken) is read a slice at a time:
/// the page shows how far it has got, with rows already loaded, between slices (so it never sits
/// frozen on the whole file), and ends with what the library loads from the whole file.
#[tokio::test(flavor = "multi_thread")]
async fn a_big_file_is_read_with_progress_and_loads_as_the_library_loads_it() {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-import-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let filler = "x".repeat(200);
    let mut text = String::new();
    for i in 0..24_000 {
        if i == 12_345 {
            text.push_str("{\"id\": \"broken\", \"code\": \n");
            continue;
        }
        text.push_str(&format!("{{\"id\": \"row_{i}\", \"code\": \"def f(s):\\n    return s + '{filler}'\", \"input\": \"'{i}'\", \"output\": \"'{i}{filler}'\"}}\n"));
    }
    assert!(text.len() > 7_000_000, "{}", text.len());
    let path = dir.join("big.jsonl");
    std::fs::write(&path, &text).unwrap();
    let native = execbench_formats::load_dataset("big.jsonl", text.as_bytes()).report;
    assert_eq!((native.samples.len(), native.errors.len()), (23_999, 1));

    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    let base = server.base_url.clone();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    b.click("[data-testid=check-rows]").await;
    // Every text the progress line shows, as the page draws it.
    b.client
        .execute(
            "window.readingSeen = []; new MutationObserver(() => { const e = document.querySelector('[data-testid=import-reading] [role=status]'); if (e && window.readingSeen[window.readingSeen.length - 1] !== e.textContent) window.readingSeen.push(e.textContent); }).observe(document.body, {subtree: true, childList: true, characterData: true});",
            vec![],
        )
        .await
        .unwrap();
    send_file(&b, &path).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(60), |t| t == "big.jsonl").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "23999 of 23999").await;
    let seen: Vec<String> =
        serde_json::from_value(b.client.execute("return window.readingSeen", vec![]).await.unwrap()).unwrap();
    assert!(seen.len() >= 4, "the progress was drawn between slices: {seen:?}");
    assert!(seen.iter().all(|s| s.starts_with("Reading big.jsonl: ")), "{seen:?}");
    let rows = |s: &String| {
        s.rsplit_once(", ").and_then(|(_, r)| r.strip_suffix(" rows")).and_then(|n| n.parse::<usize>().ok())
    };
    let counts: Vec<usize> = seen.iter().filter_map(rows).collect();
    assert!(
        counts.len() >= 3 && counts.windows(2).all(|w| w[0] < w[1]) && *counts.last().unwrap() < 24_000,
        "rows load as slices arrive: {seen:?}"
    );
    assert!(js_gone(&b).await, "the progress line goes when the file is read");
    // The broken row is named; the others are kept.
    let problems = b.wait_text("[data-testid=import-errors]", Duration::from_secs(10), |_| true).await;
    assert!(problems.contains("big.jsonl:12346"), "{problems}");
    b.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

async fn js_gone(b: &Browser) -> bool {
    b.client
        .execute("return document.querySelector('[data-testid=import-reading]') === null", vec![])
        .await
        .unwrap()
        .as_bool()
        .unwrap()
}

/// pyarrow's LiveCodeBench file, damaged so that no row can be read (natively): cut at a few
/// lengths, and with one bit flipped at the first offsets (of a fixed sequence) that break it.
fn damaged_pyarrow_files() -> Vec<(String, Vec<u8>)> {
    let good = std::fs::read(std::path::Path::new(PYARROW_FIXTURES).join("lcb_execution.parquet")).unwrap();
    let mut files: Vec<(String, Vec<u8>)> =
        [4, good.len() / 2, good.len() - 3].iter().map(|&n| (format!("cut-{n}.parquet"), good[..n].to_vec())).collect();
    let refused = |bytes: &[u8]| execbench_formats::load_dataset("x.parquet", bytes).report.samples.is_empty();
    let flipped = (0..good.len())
        .map(|i| (i * 7919) % good.len())
        .map(|at| {
            let mut bytes = good.clone();
            bytes[at] ^= 0x10;
            (format!("flip-{at}.parquet"), bytes)
        })
        .filter(|(_, bytes)| refused(bytes))
        .take(3);
    files.extend(flipped);
    assert_eq!(files.len(), 6, "three cut files and three flipped ones");
    files
}

/// A damaged Parquet file whose decoding traps (the `parquet` crate asserts; in wasm a panic
/// cannot be caught) is decoded in a worker: the page says the file is damaged, keeps the dataset
/// it had, and a good file imports right after (pyarrow's, with nulls in optional columns).
#[tokio::test(flavor = "multi_thread")]
async fn a_parquet_file_that_traps_its_decoder_leaves_the_page_working() {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-damaged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let damaged = dir.join("damaged.parquet");
    std::fs::write(&damaged, parquet_writer::file_that_panics_the_reader()).unwrap();
    let good = std::path::Path::new(PYARROW_FIXTURES).join("lcb_execution_nulls.parquet");

    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    // pyarrow's file cut short and with bits flipped (a corpus made natively, as
    // crates/formats/tests/prop_parquet.rs makes it): each refused by name, CRUXEval stays.
    for (name, bytes) in damaged_pyarrow_files() {
        let path = dir.join(&name);
        std::fs::write(&path, &bytes).unwrap();
        send_file(&b, &path).await;
        let refused = b
            .wait_text("[data-testid=import-refused]", Duration::from_secs(30), |t| t.starts_with(&format!("{name}: ")))
            .await;
        assert!(refused.contains("nothing was") || refused.contains("stays loaded"), "{refused}");
        assert_eq!(
            b.wait_text("[data-testid=match-count]", Duration::from_secs(5), |_| true).await,
            "800 of 800",
            "{name}"
        );
    }
    send_file(&b, &damaged).await;
    let refused = b.wait_text("[data-testid=import-refused]", Duration::from_secs(30), |_| true).await;
    assert!(refused.starts_with("damaged.parquet: the file is damaged: its decoder stopped"), "{refused}");
    // The decoder's own words (when its last message comes before the worker's error event).
    assert!(refused.ends_with("); nothing was loaded from it") && !refused.contains(".cargo"), "{refused}");
    assert_eq!(
        b.wait_text("[data-testid=match-count]", Duration::from_secs(5), |_| true).await,
        "800 of 800",
        "CRUXEval stays"
    );
    b.screenshot("import-damaged-parquet").await;
    send_file(&b, &good).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(20), |t| t == "lcb_execution_nulls.parquet").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "8 of 8").await;
    let status =
        b.wait_text("[data-testid=import-check-status]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(status, "Every row runs and returns its output (8 of 8 checked, finished).");
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
