//! End-to-end: the Compare page in headless Chromium. Three run files (a model's vanilla run and
//! two perturbed runs, written by the library's synthetic source) are imported on the Runs page,
//! chosen on the Compare page and compared; the table, the flipped samples and the downloaded
//! Markdown report must be the library's own, byte for byte, computed here natively.

use crate::common;

use std::time::Duration;

use execbench_compare::report::{csv_table, markdown_section};
use execbench_compare::synthetic::synthetic_runs;
use execbench_compare::{CompareOptions, RunInput, compare};
use execbench_eval::score::Mode;
use execbench_run::runfile::{manifest_line, record_line};
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use fantoccini::Locator;

use common::import_run_file;

async fn js(b: &Browser, script: &str) -> serde_json::Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

fn run_file(run: &RunInput) -> String {
    let mut text = manifest_line(&run.manifest) + "\n";
    let mut records: Vec<_> = run.records.values().collect();
    records.sort_by_key(|r| r.index);
    for record in records {
        text += &(record_line(record) + "\n");
    }
    text
}

async fn saved_texts(b: &Browser) -> Vec<String> {
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; setTimeout(() => Promise.all(window.savedBlobs.map(b => b.text())).then(done), 300);", vec![]).await.unwrap();
    serde_json::from_value(saved).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn imported_runs_compare_as_the_library_does_with_flips_and_reports() {
    let mut runs = synthetic_runs(1, 40, 1, 11);
    assert_eq!(runs.len(), 3);
    // The program each run's model read: the REN run's prompts rename the variable, so a flip's
    // prompt diff has lines out and in.
    for run in &mut runs {
        let renamed = run.manifest.run_id.ends_with("REN");
        for record in run.records.values_mut() {
            for result in &mut record.results {
                let name = if renamed { "Var_1" } else { "total" };
                result.prompt =
                    Some(format!("def f(x):\n    {name} = x + 1\n    return {name}\nassert f({}) == ??", record.index));
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("execbench-e2e-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let site = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.set_viewport(1400, 1000).await;
    b.client.goto(&format!("{}#/runs", site.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    for run in &runs {
        let id = &run.manifest.run_id;
        let said = import_run_file(&b, &format!("{id}.jsonl"), &run_file(run), |t| t.contains(id.as_str())).await;
        assert!(said.starts_with("imported"), "{said}");
    }

    // A dataset whose rows carry a category: the Compare page offers its field.
    let dataset: String = (0..40).map(|i| format!("{{\"id\": \"sample_{i}\", \"code\": \"def f(x):\\n    return x + 1\", \"input\": \"{i}\", \"output\": \"{}\", \"category\": \"{}\"}}\n", i + 1, if i % 4 == 0 { "fours" } else { "others" })).collect();
    let dataset_path = dir.join("categorised.jsonl");
    std::fs::write(&dataset_path, dataset).unwrap();
    b.client.goto(&format!("{}#/datasets", site.base_url)).await.unwrap();
    b.client
        .find(Locator::Css("[data-testid=import]"))
        .await
        .unwrap()
        .send_keys(dataset_path.to_str().unwrap())
        .await
        .unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(20), |t| t == "40 of 40").await;

    b.client.goto(&format!("{}#/compare", site.base_url)).await.unwrap();
    b.client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=compare-run]"))
        .await
        .unwrap();
    let listed =
        js(&b, "return [...document.querySelectorAll('[data-testid=compare-run]')].map(e => e.dataset.run)").await;
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");
    for id in &listed {
        b.click(&format!("[data-testid=compare-run][data-run='{id}']")).await;
    }
    b.click("[data-testid=compare-start]").await;
    b.client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=compare-table]"))
        .await
        .unwrap();

    // The library's comparison of the same runs, in the page's (listed) order, each named by its
    // run id as the page names stored runs.
    let ordered: Vec<RunInput> = listed
        .iter()
        .map(|id| runs.iter().find(|r| &r.manifest.run_id == id).unwrap())
        .map(|r| RunInput::new(r.manifest.run_id.clone(), r.manifest.clone(), r.records.values().cloned()))
        .collect();
    let categories =
        (0..40).map(|i| (format!("sample_{i}"), if i % 4 == 0 { "fours" } else { "others" }.to_string())).collect();
    let expected = compare(&ordered, &CompareOptions { categories, ..CompareOptions::default() });
    let strict = expected.table(Mode::Strict).unwrap();
    assert_eq!(strict.cells.len(), 1, "one model");
    let cells: Vec<String> = serde_json::from_value(
        js(
            &b,
            "return [...document.querySelectorAll('[data-testid=compare-cell] .compare-main')].map(e => e.textContent)",
        )
        .await,
    )
    .unwrap();
    let wanted: Vec<String> =
        strict.cells[0].iter().map(|c| format!("{:.1}", c.as_ref().unwrap().score.pass_at_1.unwrap())).collect();
    assert_eq!(cells, wanted, "pass@1 per column as the library computes it");
    let heads = b.wait_text("[data-testid=compare-table] thead", Duration::from_secs(5), |_| true).await;
    assert!(heads.contains("vanilla") && heads.contains("REN") && heads.contains("MCC"), "{heads}");

    // The flipped samples of the first strict pair (vanilla vs REN), as the library lists them.
    let pair = expected.pairs.iter().find(|p| p.mode == Mode::Strict).unwrap();
    let flips = pair.flips(&ordered);
    assert!(!flips.is_empty(), "the synthetic runs differ on some samples");
    let shown: Vec<String> = serde_json::from_value(
        js(&b, "return [...document.querySelectorAll('[data-testid=compare-flip]')].map(e => e.textContent)").await,
    )
    .unwrap();
    let wanted: Vec<String> = flips
        .iter()
        .map(|f| {
            format!(
                "{} ({})",
                f.original_id,
                if f.first.answers.first().is_some_and(|a| a.verdict.is_correct()) {
                    "right → wrong"
                } else {
                    "wrong → right"
                }
            )
        })
        .collect();
    assert_eq!(shown, wanted);
    b.click("[data-testid=compare-flip]").await;
    let side = b.wait_text("[data-testid=compare-flip-view]", Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(side.contains(&format!("vanilla: {}", flips[0].original_id)) && side.contains("perturbed"), "{side}");
    // The prompts' diff, as the library computes it, and the Perturb view that makes the REN
    // program again from the run's provenance.
    let diff = execbench_compare::line_diff(
        flips[0].first.prompt.as_deref().unwrap(),
        flips[0].second.prompt.as_deref().unwrap(),
    );
    let (removed, added) = execbench_compare::diff::changed_lines(&diff);
    assert_eq!((removed, added), (2, 2), "the two renamed lines");
    let counts = js(&b, "const d = document.querySelector('[data-testid=compare-prompt-diff]'); return [d.dataset.removed, d.dataset.added, d.querySelectorAll('.diff-removed').length, d.querySelectorAll('.diff-added').length]").await;
    assert_eq!(counts, serde_json::json!(["2", "2", 2, 2]));
    let href = js(&b, "return document.querySelector('[data-testid=compare-flip-perturb]').getAttribute('href')").await;
    assert_eq!(href, serde_json::json!(format!("#/perturb/{}?kind=REN&seed=0", flips[0].original_id)));
    js(&b, "document.querySelector('[data-testid=compare-flip-perturb]').scrollIntoView({block: 'start'})").await;
    b.screenshot("compare-flip").await;
    // Per-category bars from the imported dataset's `category` field, chosen by default.
    assert_eq!(
        js(&b, "return document.querySelector('[data-testid=compare-category]').value").await,
        serde_json::json!("category")
    );
    let bars =
        js(&b, "return document.querySelector('[data-testid=compare-chart-categories-strict] svg').textContent").await;
    let bars = bars.as_str().unwrap();
    assert!(bars.contains("fours") && bars.contains("others"), "{bars}");
    assert!(
        js(&b, "return document.querySelector('[data-testid=compare-chart-pass-at-1-strict] svg') !== null")
            .await
            .as_bool()
            .unwrap()
    );
    b.screenshot("compare").await;

    // The downloads are the library's text, byte for byte (the Markdown dated as the page dated it).
    js(&b, "window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };").await;
    b.click("[data-testid=compare-download-md]").await;
    b.click("[data-testid=compare-download-csv]").await;
    let saved = saved_texts(&b).await;
    assert_eq!(saved.len(), 2);
    let date =
        saved[0].lines().next().and_then(|l| l.strip_prefix("## Comparison ")).expect("a dated heading").to_string();
    assert_eq!(saved[0], markdown_section(&expected, &date));
    assert_eq!(saved[1], csv_table(&expected));

    b.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
