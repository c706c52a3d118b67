//! End-to-end: a LeetCode-contest dataset in the built app. Importing it checks that every row
//! runs and flags the one that does not; a `class Solution` sample runs from its page; a
//! reproduction's results file is re-scored on the Evaluate page, per model, with its
//! disagreement. Fixtures: tests/fixtures/leetcode-*.jsonl.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

async fn send_file(b: &Browser, css: &str, path: &str) {
    let input = b.client.find(fantoccini::Locator::Css(css)).await.unwrap();
    input.send_keys(path).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_leetcode_contest_dataset_is_checked_run_and_a_reproduction_rescored() {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    let base = server.base_url.clone();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    let checked =
        b.client.execute("return document.querySelector('[data-testid=check-rows]').checked", vec![]).await.unwrap();
    assert_eq!(checked, serde_json::json!(true), "the quick check is on by default");

    // Import: the list is there at once, the check follows and flags the row whose code returns
    // something else than its output; the others (class Solution methods using List, nsmallest;
    // a top-level function using deque) run.
    send_file(&b, "[data-testid=import]", &fixture("leetcode-contest.jsonl")).await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(10), |t| t == "leetcode-contest.jsonl").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "4 of 4").await;
    let status =
        b.wait_text("[data-testid=import-check-status]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(status, "1 of 4 rows checked do not run as the file says (finished):");
    let problems = b
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=import-check-problem]')].map(p => p.textContent)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(problems, serde_json::json!(["sample_2 (does not run): returned 3, expected 4"]));
    let flagged = b
        .client
        .execute("return [...document.querySelectorAll('[data-testid=row-flag]')].map(f => f.closest('[data-testid=sample-row]').querySelector('.col-id').textContent + ': ' + f.textContent + ' / ' + f.title)", vec![])
        .await
        .unwrap();
    assert_eq!(flagged, serde_json::json!(["sample_2: does not run / returned 3, expected 4"]));
    b.screenshot("leetcode-import-checked").await;

    // A class Solution sample runs from its page; the code shown is the dataset's own.
    b.client.goto(&format!("{base}#/sample/sample_0")).await.unwrap();
    b.wait_text("[data-testid=sample-call]", Duration::from_secs(10), |t| t.starts_with("countSeniors(details = ["))
        .await;
    let code = b.wait_text("pre.code", Duration::from_secs(5), |_| true).await;
    assert!(code.starts_with("class Solution:") && !code.contains("Solution()"), "{code}");
    b.click("[data-testid=run]").await;
    assert_eq!(
        b.wait_text("[data-testid=result-badge]", Duration::from_secs(30), |t| !t.is_empty()).await,
        "matches the expected output"
    );
    assert_eq!(b.wait_text("[data-testid=result-value]", Duration::from_secs(5), |_| true).await, "2");
    b.screenshot("leetcode-sample-run").await;

    // A reproduction's results: recognised by its fields, its bad line named, re-scored per model.
    b.client.goto(&format!("{base}#/evaluate")).await.unwrap();
    send_file(&b, "[data-testid=rescore-file]", &fixture("leetcode-reproduction.jsonl")).await;
    let described = b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(10), |_| true).await;
    assert_eq!(
        described,
        "leetcode-reproduction.jsonl: 5 entries, a reproduction's results (generated code, re-scored by running it)"
    );
    let problems = b.wait_text("[data-testid=rescore-file-status-problems]", Duration::from_secs(5), |_| true).await;
    assert!(
        problems.contains("leetcode-reproduction.jsonl:6: field `generated_code`: missing (required)"),
        "{problems}"
    );
    b.click("[data-testid=rescore-run]").await;
    let progress =
        b.wait_text("[data-testid=repro-progress]", Duration::from_secs(60), |t| t.contains("finished")).await;
    assert_eq!(progress, "5 of 5 rows, finished");
    let models = b
        .client
        .execute("return [...document.querySelectorAll('[data-testid=repro-model-row]')].map(r => [...r.children].map(c => c.textContent).join(' | '))", vec![])
        .await
        .unwrap();
    assert_eq!(models, serde_json::json!(["gpt-4o | 2 | 100.0% | 50.0% | 1", "llama-3-8b | 2 | 100.0% | 100.0% | 0"]));
    let disagreements = b
        .client
        .execute("return [...document.querySelectorAll('[data-testid=repro-disagreement]')].map(r => [...r.children].map(c => c.textContent).join(' | '))", vec![])
        .await
        .unwrap();
    assert_eq!(disagreements, serde_json::json!(["2800 | gpt-4o | success | failure | returned 4, expected 2"]));
    let unknown = b.wait_text("[data-testid=repro-unknown]", Duration::from_secs(5), |_| true).await;
    assert_eq!(unknown, "1 row names a problem that the dataset lacks, left out: 9999");
    b.client.execute("document.querySelector('[data-testid=repro-results]').scrollIntoView()", vec![]).await.unwrap();
    b.screenshot("leetcode-reproduction").await;
    b.close().await;
}
