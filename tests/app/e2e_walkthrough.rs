//! End-to-end: the app tried as a new user would, start to finish, through clicks, file pickers
//! and menus only. A LiveCodeBench execution file (Parquet, named as Hugging Face's conversion
//! names it) is imported and verified; a CodeCrash-shaped perturbed file made from the same rows
//! (misleading comments, `lcb_MCC_output.jsonl`, same original ids) is imported; the oracle, a
//! baseline and a model's replayed answers are evaluated on both; the Runs page lists the six
//! runs; Compare shows the drops and a flipped sample side by side; the Markdown report, the CSV
//! table and two charts are downloaded. Every step leaves a numbered screenshot,
//! tests/artifacts/walkthrough-NN-*.png, and the downloads land beside them.
//!
//! The oracle and the baselines answer from the call and the expected output alone, so a
//! perturbation that keeps both (as CodeCrash's do) cannot move them: no drop, no flipped sample.
//! A flip needs a model that reads the program: here a model's answers, replayed from a file per
//! dataset (both named `answers.json`, so that the two runs are the same model's and pair).

use std::path::Path;
use std::time::{Duration, Instant};

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use fantoccini::Locator;
use serde_json::{Value, json};

use crate::parquet_writer;

const ROWS: usize = 12;
/// The answers a (replayed) model gives on the MCC file that it got right on the original: the
/// comment told it the count is 0, and it believed it (samples whose true output is not 0).
const MISLED: [usize; 4] = [1, 2, 5, 6];

async fn js(b: &Browser, script: &str) -> Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// Runs `script` until its value satisfies `pred` (10 s at most), returning the value.
async fn wait_js(b: &Browser, script: &str, pred: impl Fn(&Value) -> bool) -> Value {
    b.wait_script(script, Duration::from_secs(10), pred).await
}

async fn select(b: &Browser, css: &str, value: &str) {
    let element = b
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    element.select_by_value(value).await.unwrap();
}

async fn upload(b: &Browser, css: &str, path: &Path) {
    let wait = b.client.wait().at_most(Duration::from_secs(10));
    let input = wait.for_element(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    input.send_keys(path.to_str().unwrap()).await.unwrap();
}

/// Clicks a link of the top bar, as a person moves between pages, and waits until it is the
/// current page's.
async fn nav(b: &Browser, label: &str) {
    let xpath = format!("//nav[@id='site-nav']/a[normalize-space()='{label}']");
    let link =
        b.client.find(Locator::XPath(&xpath)).await.unwrap_or_else(|e| panic!("no `{label}` in the top bar: {e}"));
    link.click().await.unwrap();
    let script = format!("return document.evaluate(\"{xpath}\", document).iterateNext()?.classList.contains('active')");
    wait_js(b, &script, |v| v == &Value::Bool(true)).await;
}

async fn scroll_to(b: &Browser, css: &str) {
    js(b, &format!("document.querySelector('{css}').scrollIntoView({{block: 'start'}})")).await;
}

async fn shot(b: &Browser, name: &str) {
    b.screenshot(&format!("walkthrough-{name}")).await;
}

/// One evaluation on the Evaluate page: model, output prediction, n = 1, every sample. Waits for
/// it to finish and returns the new run's (title, strict pass@1, compatible pass@1) as shown.
async fn evaluate(b: &Browser, model: &str, answers: Option<&Path>) -> (String, String, String) {
    select(b, "[data-testid=eval-model]", model).await;
    if let Some(file) = answers {
        // A file read earlier keeps its status line until the new one is read, and a file of the
        // same name draws the same line: nothing in the page tells the two apart, so give the
        // read (a 200-byte file) half a second. The pass@1 the run shows would catch a stale file.
        let earlier = js(b, "return document.querySelector('[data-testid=replay-file-status]') !== null").await;
        upload(b, "[data-testid=replay-file]", file).await;
        if earlier == Value::Bool(true) {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let name = file.file_name().unwrap().to_str().unwrap();
        let status = b.wait_text("[data-testid=replay-file-status]", Duration::from_secs(10), |_| true).await;
        assert_eq!(status, format!("{name}: {ROWS} entries, extracted answers (CRUXEval generations)"));
    }
    select(b, "[data-testid=eval-task]", "output").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "").await;
    // The results view lists its runs by id, newest first: a new id is the new run.
    let newest = || async {
        js(b, "return Math.max(-1, ...[...document.querySelectorAll('[data-testid=table-run] option')].map(o => Number(o.value)))").await.as_i64().unwrap()
    };
    let before = newest().await;
    b.click("[data-testid=eval-run]").await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while newest().await <= before
        || js(b, "return document.querySelector('[data-testid=eval-state]')?.textContent ?? ''").await != "finished"
    {
        assert!(
            Instant::now() < deadline,
            "{model}: no finished run; page says {}",
            js(b, "return document.querySelector('.evaluate').innerText").await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The newest run comes first: its strict row, then its compatible row.
    let row = js(b, "return [...document.querySelectorAll('[data-testid=summary-row]')].slice(0, 2).map(r => [r.querySelector('.run-source').title, r.children[2].textContent, r.children[5].textContent])").await;
    let rows: Vec<(String, String, String)> = serde_json::from_value(row).unwrap();
    assert_eq!((rows[0].1.as_str(), rows[1].1.as_str()), ("strict", "compatible"), "{rows:?}");
    (rows[0].0.clone(), rows[0].2.clone(), rows[1].2.clone())
}

/// Captures what the page hands the browser to download: each link clicked with a `download`
/// name, and the Blob behind a `blob:` address.
async fn capture_downloads(b: &Browser) {
    js(b, "window.saved = []; window.blobs = {}; const make = URL.createObjectURL; URL.createObjectURL = blob => { const url = make(blob); window.blobs[url] = blob; return url; }; const click = HTMLAnchorElement.prototype.click; HTMLAnchorElement.prototype.click = function () { if (this.download) window.saved.push([this.download, this.href]); return click.call(this); };").await;
}

/// The files downloaded since [`capture_downloads`]: (name, bytes).
async fn downloads(b: &Browser) -> Vec<(String, Vec<u8>)> {
    let script = "const done = arguments[arguments.length - 1];
        const bytes = href => href.startsWith('blob:') ? window.blobs[href].arrayBuffer().then(a => [...new Uint8Array(a)])
            : Promise.resolve([...atob(href.split(',')[1])].map(c => c.charCodeAt(0)));
        setTimeout(() => Promise.all(window.saved.map(([name, href]) => bytes(href).then(b => [name, b]))).then(done), 300);";
    serde_json::from_value(b.client.execute_async(script, vec![]).await.unwrap()).unwrap()
}

/// A CodeCrash record of an LCB row: the program normalised as `ast.unparse` writes it, with
/// misleading comments (MCC) that say the count is 0; the call as LiveCodeBench wrote it.
fn codecrash_row(row: &parquet_writer::LcbRow) -> String {
    let call = row.input.clone().unwrap();
    let output = row.output.clone().unwrap();
    let code = "def minimumCost(s: str) -> int:\n    # s holds no '1' here, so nothing is counted\n    # the function returns 0\n    return s.count('1')";
    json!({
        "task_id": row.id, "dataset": "lcb", "code": code, "function_name": "minimumCost",
        "function_call": call, "output": output, "test": format!("assert {call} == {output}"),
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_user_imports_lcb_and_codecrash_evaluates_both_and_compares() {
    let started = Instant::now();
    let dir = std::env::temp_dir().join(format!("execbench-e2e-walkthrough-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["vanilla", "MCC"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let artifacts = execbench_testkit::repo_root().join("tests/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();

    // What the user has: LiveCodeBench's execution split as Hugging Face's Parquet conversion
    // names it, and CodeCrash's perturbed file of the same rows.
    let difficulties = ["easy", "medium", "hard"];
    let rows: Vec<parquet_writer::LcbRow> =
        (0..ROWS).map(|n| parquet_writer::lcb_row(n, difficulties[n % 3])).collect();
    let lcb = dir.join("0000.parquet");
    std::fs::write(&lcb, parquet_writer::lcb_file(&rows, 5)).unwrap();
    let codecrash = dir.join("lcb_MCC_output.jsonl");
    std::fs::write(&codecrash, rows.iter().map(|r| codecrash_row(r) + "\n").collect::<String>()).unwrap();
    // A model's answers (extracted, CRUXEval's generations shape), one file per dataset under the
    // same name: right on every original program, misled by the comments on MISLED.
    let answers = |misled: &[usize]| -> String {
        let map: serde_json::Map<String, Value> = (0..ROWS)
            .map(|n| {
                let answer = if misled.contains(&n) { "0".to_string() } else { (n % 4).to_string() };
                (format!("sample_{n}"), json!([answer]))
            })
            .collect();
        Value::Object(map).to_string()
    };
    let vanilla_answers = dir.join("vanilla/answers.json");
    std::fs::write(&vanilla_answers, answers(&[])).unwrap();
    let mcc_answers = dir.join("MCC/answers.json");
    std::fs::write(&mcc_answers, answers(&MISLED)).unwrap();
    let expected_outputs: Vec<String> = rows.iter().map(|r| r.output.clone().unwrap()).collect();
    assert!(MISLED.iter().all(|&n| expected_outputs[n] != "0"), "every misled answer is wrong");

    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.set_viewport(1280, 900).await;

    // The first screen.
    b.client.goto(&server.base_url).await.unwrap();
    let home = b.wait_text("[data-testid=home] h1", Duration::from_secs(30), |t| !t.is_empty()).await;
    assert_eq!(home, "Test how well models reason about code");
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    shot(&b, "01-home").await;

    // Datasets → Import dataset…: the Parquet file, every row checked by running it.
    b.click("[data-testid=home-start-datasets]").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    upload(&b, "[data-testid=import]", &lcb).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(20), |t| t == "0000.parquet").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "12 of 12").await;
    let status =
        b.wait_text("[data-testid=import-check-status]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(status, "Every row runs and returns its output (12 of 12 checked, finished).");
    let first_row = js(&b, "const r = document.querySelector('[data-testid=sample-row]'); return [r.dataset.id, r.querySelector('[data-testid=row-call]').textContent, r.querySelector('[data-testid=row-output]').textContent]").await;
    assert_eq!(first_row, json!(["sample_0", "minimumCost(s = '00')", "0"]));
    shot(&b, "02-lcb-imported").await;

    // Verify dataset: every sample runs to its expected output.
    nav(&b, "Verify").await;
    b.click("[data-testid=verify-start]").await;
    assert_eq!(b.wait_text("[data-testid=verify-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    assert_eq!(b.wait_text("[data-testid=verify-passed]", Duration::from_secs(5), |_| true).await, "12 passed");
    assert_eq!(b.wait_text("[data-testid=verify-failed]", Duration::from_secs(5), |_| true).await, "0 failed");
    let stats = b.wait_text("[data-testid=verify-stats]", Duration::from_secs(5), |_| true).await;
    assert!(stats.starts_with("12 / 12 samples"), "{stats}");
    shot(&b, "03-lcb-verified").await;

    // The CodeCrash file: its rows pass the check; a sample shows the kind and original id.
    nav(&b, "Datasets").await;
    upload(&b, "[data-testid=import]", &codecrash).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(20), |t| t == "lcb_MCC_output.jsonl").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "12 of 12").await;
    let status =
        b.wait_text("[data-testid=import-check-status]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(status, "Every row runs and returns its output (12 of 12 checked, finished).");
    let switcher = js(
        &b,
        "const s = document.querySelector('[data-testid=dataset-switcher]'); return s.options[s.selectedIndex].text",
    )
    .await;
    assert!(switcher.as_str().unwrap().starts_with("lcb_MCC_output.jsonl (12 samples"), "{switcher}");
    shot(&b, "04-codecrash-imported").await;
    b.click("[data-testid=sample-row][data-id=sample_5] a.row-link").await;
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == "sample_5").await;
    assert_eq!(
        b.wait_text("[data-testid=sample-call]", Duration::from_secs(5), |_| true).await,
        "minimumCost(s = '001')"
    );
    b.click("[data-testid=sample-meta] summary").await;
    let meta: Vec<String> = serde_json::from_value(js(&b, "return [...document.querySelectorAll('[data-testid=sample-meta] dt')].map(dt => dt.textContent + '=' + dt.nextElementSibling.textContent)").await).unwrap();
    for wanted in ["perturbation=MCC", "task=output", "original_id=sample_5", "dataset=lcb"] {
        assert!(meta.iter().any(|m| m == wanted), "{wanted} not among the row's fields {meta:?}");
    }
    shot(&b, "05-codecrash-sample").await;

    // Evaluate on the CodeCrash file (the open dataset): the oracle, the type-default baseline,
    // and the model's answers to these programs.
    nav(&b, "Evaluate").await;
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(12 samples)")).await;
    let (title, strict, compatible) = evaluate(&b, "oracle", None).await;
    assert!(title.starts_with("oracle · lcb_MCC_output.jsonl · output prediction"), "{title}");
    assert_eq!((strict.as_str(), compatible.as_str()), ("100.0", "100.0"), "oracle on the MCC file");
    let (title, strict, compatible) = evaluate(&b, "type-default", None).await;
    assert!(title.starts_with("type-default · lcb_MCC_output.jsonl"), "{title}");
    // `0` is right where the count is 0: samples 0, 4 and 8 of 12.
    assert_eq!((strict.as_str(), compatible.as_str()), ("25.0", "25.0"), "type-default on the MCC file");
    let (title, strict, _) = evaluate(&b, "replay", Some(&mcc_answers)).await;
    assert!(title.starts_with("replay: answers.json · lcb_MCC_output.jsonl"), "{title}");
    assert_eq!(strict, "66.7", "8 of 12 right");
    scroll_to(&b, "[data-testid=results]").await;
    shot(&b, "06-codecrash-evaluated").await;

    // Back to the LiveCodeBench file through the dataset menu, and the same three there.
    nav(&b, "Datasets").await;
    let kept = wait_js(&b, "return [...document.querySelectorAll('[data-testid=dataset-switcher] option')].filter(o => o.text.startsWith('0000.parquet')).map(o => o.value)", |v| v.as_array().is_some_and(|a| !a.is_empty())).await;
    let kept: Vec<String> = serde_json::from_value(kept).unwrap();
    assert_eq!(kept.len(), 1, "the Parquet file is kept once in the dataset menu: {kept:?}");
    select(&b, "[data-testid=dataset-switcher]", &kept[0]).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(20), |t| t == "0000.parquet").await;
    nav(&b, "Evaluate").await;
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| {
        t.contains("0000.parquet") && t.contains("(12 samples)")
    })
    .await;
    let (title, strict, compatible) = evaluate(&b, "oracle", None).await;
    assert!(title.starts_with("oracle · 0000.parquet · output prediction"), "{title}");
    assert_eq!((strict.as_str(), compatible.as_str()), ("100.0", "100.0"), "oracle on LiveCodeBench");
    let (_, strict, _) = evaluate(&b, "type-default", None).await;
    assert_eq!(strict, "25.0", "the baseline is below the oracle, and the comments do not change it");
    let (_, strict, _) = evaluate(&b, "replay", Some(&vanilla_answers)).await;
    assert_eq!(strict, "100.0", "the model is right on every original program");
    scroll_to(&b, "[data-testid=results]").await;
    shot(&b, "07-lcb-evaluated").await;

    // Runs: the six evaluations are stored, each finished with its pass@1.
    nav(&b, "Runs").await;
    b.wait_text("[data-testid=runs-table]", Duration::from_secs(20), |_| true).await;
    let listed = js(&b, "return [...document.querySelectorAll('[data-testid=run-row]')].map(r => [r.querySelector('[data-testid=run-model]').textContent, r.children[1].firstChild.textContent, r.dataset.state, r.querySelector('[data-testid=run-pass1]').innerText.replace(/\\s+/g, ' ')])").await;
    let mut listed: Vec<[String; 4]> = serde_json::from_value(listed).unwrap();
    listed.sort();
    let run = |model: &str, dataset: &str, pass1: &str| {
        [model, dataset, "finished", &format!("strict {pass1} compatible {pass1}")].map(str::to_string)
    };
    let mut wanted = vec![
        run("oracle", "0000.parquet", "100.0"),
        run("oracle", "lcb_MCC_output.jsonl", "100.0"),
        run("type-default", "0000.parquet", "25.0"),
        run("type-default", "lcb_MCC_output.jsonl", "25.0"),
        run("replay: answers.json", "0000.parquet", "100.0"),
        run("replay: answers.json", "lcb_MCC_output.jsonl", "66.7"),
    ];
    wanted.sort();
    assert_eq!(listed, wanted);
    shot(&b, "08-runs").await;

    // Compare: all six runs; each model's MCC run pairs with its vanilla run.
    nav(&b, "Compare").await;
    b.client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=compare-run]"))
        .await
        .unwrap();
    let ids: Vec<String> = serde_json::from_value(
        js(&b, "return [...document.querySelectorAll('[data-testid=compare-run]')].map(e => e.dataset.run)").await,
    )
    .unwrap();
    assert_eq!(ids.len(), 6, "{ids:?}");
    for id in &ids {
        b.click(&format!("[data-testid=compare-run][data-run='{id}']")).await;
    }
    b.click("[data-testid=compare-start]").await;
    b.client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=compare-table]"))
        .await
        .unwrap();
    let table = js(&b, "const t = document.querySelector('[data-testid=compare-table]'); return [[...t.querySelectorAll('thead th')].map(th => th.textContent), [...t.querySelectorAll('tbody tr')].map(tr => [tr.querySelector('th').textContent, ...[...tr.querySelectorAll('[data-testid=compare-cell]')].map(td => td.innerText.replace(/\\s+/g, ' ').trim())])]").await;
    let (heads, body): (Vec<String>, Vec<Vec<String>>) = serde_json::from_value(table).unwrap();
    assert_eq!(heads, ["model", "vanilla", "MCC"]);
    let row = |model: &str| body.iter().find(|r| r[0] == model).unwrap_or_else(|| panic!("no {model} row: {body:?}"));
    assert!(row("oracle")[1].starts_with("100.0") && row("oracle")[2].starts_with("100.0"), "{body:?}");
    // The offline models: paired, and unmoved (no sample changed either way).
    for (model, pass1) in [("oracle", "100.0"), ("type-default", "25.0")] {
        let cell = &row(model)[2];
        assert!(cell.starts_with(pass1) && cell.contains("vs vanilla 0.0 pt") && cell.contains("(b 0, c 0)"), "{cell}");
    }
    let replay = &row("replay: answers.json")[2];
    assert!(replay.starts_with("66.7") && replay.contains("vs vanilla −33.3 pt (−33.3%)"), "{body:?}");
    assert!(replay.contains("(b 4, c 0)"), "four answers went from right to wrong: {replay}");
    let worse = js(&b, "return document.querySelectorAll('[data-testid=compare-cell] .drop-worse').length").await;
    assert_eq!(worse, json!(1), "one cell is marked as a drop");
    let better = js(&b, "return document.querySelectorAll('[data-testid=compare-cell] .drop-better').length").await;
    assert_eq!(better, json!(0), "a change of 0.0 is neither better nor worse");
    shot(&b, "09-compare-table").await;

    // The flipped samples of the model's pair: MISLED, each right → wrong; the first opened
    // shows both programs as the model read them, and what the perturbation added.
    let pair = js(&b, "return [...document.querySelectorAll('[data-testid=compare-pair] option')].filter(o => o.text.startsWith('replay: answers.json')).map(o => o.value)").await;
    let pair: Vec<String> = serde_json::from_value(pair).unwrap();
    assert_eq!(pair.len(), 1, "one pair for the replayed model");
    select(&b, "[data-testid=compare-pair]", &pair[0]).await;
    let flips = b.wait_text("[data-testid=compare-flips]", Duration::from_secs(5), |t| !t.is_empty()).await;
    let wanted: Vec<String> = MISLED.iter().map(|n| format!("sample_{n} (right → wrong)")).collect();
    assert_eq!(flips.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>(), wanted);
    b.click("[data-testid=compare-flip]").await;
    let side = b.wait_text("[data-testid=compare-flip-view]", Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(side.contains("vanilla: sample_1") && side.contains("perturbed"), "{side}");
    let prompts: Vec<String> = serde_json::from_value(js(&b, "return [...document.querySelectorAll('[data-testid=compare-flip-view] .flip-side pre.code')].map(p => p.textContent)").await).unwrap();
    assert!(prompts.len() >= 2, "{prompts:?}");
    assert!(
        prompts[0].contains("return s.count('1')") && !prompts[0].contains("# the function returns 0"),
        "{}",
        prompts[0]
    );
    assert!(prompts.iter().skip(1).any(|p| p.contains("# the function returns 0")), "{prompts:?}");
    let answers_shown: Vec<String> = serde_json::from_value(js(&b, "return [...document.querySelectorAll('[data-testid=compare-flip-view] .flip-answer code')].map(c => c.textContent)").await).unwrap();
    assert_eq!(answers_shown, ["1", "0"], "right on the original, misled on the perturbed");
    // What the perturbation changed: the two comments in; out, only the blank line LiveCodeBench's
    // trailing newline leaves before the assertion (CodeCrash's `ast.unparse` code has none).
    let diff = js(&b, "const d = document.querySelector('[data-testid=compare-prompt-diff]'); return [d.querySelector('summary').textContent, [...d.querySelectorAll('.diff-removed')].map(e => e.textContent), [...d.querySelectorAll('.diff-added')].map(e => e.textContent)]").await;
    assert_eq!(
        diff,
        json!([
            "What the perturbation changed in the prompt: 1 line out, 2 in",
            ["- \n"],
            ["+     # s holds no '1' here, so nothing is counted\n", "+     # the function returns 0\n"]
        ])
    );
    // The programs as a reader opens them: both prompts unfolded and scrolled to their end, the
    // diff at its first change; a taller window to hold it all.
    for side in 1..=2 {
        b.click(&format!("[data-testid=compare-flip-view] .flip-side:nth-child({side}) details > summary")).await;
    }
    js(&b, "document.querySelectorAll('[data-testid=compare-flip-view] pre.code').forEach(p => p.scrollTop = p.scrollHeight); const d = document.querySelector('[data-testid=compare-prompt-diff] pre'); d.scrollTop = d.querySelector('.diff-added').offsetTop - d.offsetTop - 120; document.querySelector('[data-testid=compare-prompt-diff]').scrollIntoView({block: 'start'})").await;
    b.set_viewport(1280, 1250).await;
    shot(&b, "10-flipped-sample").await;
    b.set_viewport(1280, 900).await;

    // Downloads: the Markdown report, the table as CSV, a chart as SVG and as PNG.
    capture_downloads(&b).await;
    b.click("[data-testid=compare-download-md]").await;
    b.click("[data-testid=compare-download-csv]").await;
    b.click("[data-testid=compare-chart-pass-at-1-strict] button:nth-of-type(1)").await;
    b.click("[data-testid=compare-chart-relative-drop-strict] button:nth-of-type(2)").await;
    let saved = {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let saved = downloads(&b).await;
            if saved.len() == 4 || Instant::now() > deadline {
                break saved;
            }
        }
    };
    let names: Vec<&str> = saved.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["comparison.md", "comparison.csv", "pass-at-1-strict.svg", "relative-drop-strict.png"]);
    for (name, bytes) in &saved {
        std::fs::write(artifacts.join(format!("walkthrough-{name}")), bytes).unwrap();
    }
    let markdown = String::from_utf8(saved[0].1.clone()).unwrap();
    assert!(markdown.starts_with("## Comparison "), "{markdown}");
    assert!(markdown.contains("### strict\n\n| model | vanilla | MCC |\n|---|---:|---:|\n"), "{markdown}");
    assert!(markdown.contains("| model | column | paired | right → wrong | wrong → right | McNemar p |"), "{markdown}");
    for (model, flips) in [("oracle", "0 | 0"), ("replay: answers.json", "4 | 0"), ("type-default", "0 | 0")] {
        assert!(markdown.contains(&format!("| {model} | MCC | 12 | {flips} |")), "{model}: {markdown}");
    }
    assert!(markdown.contains("drop 33.3 pt (33.3%)"), "{markdown}");
    let csv = String::from_utf8(saved[1].1.clone()).unwrap();
    assert!(csv.starts_with("mode,model,dataset,task,perturbation,run_id,"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 2 * 6, "a line per run and mode: {csv}");
    let svg = String::from_utf8(saved[2].1.clone()).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<title>") && svg.contains("replay: answers.json"), "{svg}");
    assert!(saved[3].1.starts_with(b"\x89PNG\r\n\x1a\n") && saved[3].1.len() > 1000, "a PNG image");

    // The downloaded report, opened as a file.
    b.client.goto(&format!("file://{}", artifacts.join("walkthrough-comparison.md").display())).await.unwrap();
    shot(&b, "11-downloaded-report").await;

    println!("walkthrough: {:.1} s", started.elapsed().as_secs_f64());
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
