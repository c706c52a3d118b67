//! End-to-end: the app after one visit, with its server gone (Python, a perturbation and an
//! offline evaluation still work; a model API says "offline" and sends nothing), and a new build
//! deployed while a job runs (offered, held back until the job ends, loaded on "Reload to
//! update"). Served from a sub-path in one test and from the root in the other, each from a copy
//! of the built site that the test can stop serving or replace.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

/// A copy of the built site of its own, which a test may change.
fn site_copy(name: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("execbench-e2e-offline-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&execbench_testkit::dist_dir(), &dir);
    dir
}

async fn select(b: &Browser, css: &str, value: &str) {
    b.element(css).await.select_by_value(value).await.unwrap();
}

async fn wait_python(b: &Browser) {
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
}

/// Waits until the service worker has cached the build and controls the page.
async fn wait_kept(b: &Browser) {
    b.wait_script("return !!navigator.serviceWorker.controller", Duration::from_secs(60), |v| v == true).await;
}

/// Moves the app's and the Python worker's modules (their names carry their hashes) from the
/// service worker's cache to `cache`, a cache of another name; with `changed`, one bit of each is
/// flipped on the way, as another site on a shared origin could write them. Answers how many it
/// moved.
fn move_modules(cache: &str, changed: bool) -> String {
    format!(
        "const done = arguments[arguments.length - 1];
(async () => {{
  const elsewhere = await caches.open('{cache}');
  let moved = 0;
  for (const name of (await caches.keys()).filter((n) => n.startsWith('execbench-'))) {{
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {{
      if (!/\\/execbench-(app|worker)-[0-9a-f]+_bg\\.wasm$/.test(request.url)) continue;
      const bytes = new Uint8Array(await (await cache.match(request)).arrayBuffer());
      if ({changed}) bytes[bytes.length - 1] ^= 1;
      await elsewhere.put(request, new Response(bytes, {{ headers: {{ 'content-type': 'application/wasm' }} }}));
      await cache.delete(request);
      moved += 1;
    }}
  }}
  return moved;
}})().then(done, (e) => done(String(e)));"
    )
}

/// Deletes the standard library's rest from the service worker's caches; answers how many copies.
const FORGET_THE_STDLIB: &str = "const done = arguments[arguments.length - 1];
(async () => {
  let gone = 0;
  for (const name of (await caches.keys()).filter((n) => n.startsWith('execbench-'))) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (/\\/stdlib-[0-9a-f]{16}\\.bin$/.test(request.url) && (await cache.delete(request))) gone += 1;
    }
  }
  return gone;
})().then(done, (e) => done(String(e)));";

/// Where the page's own address and the Python worker's script were answered from, as the
/// browser's resource timing says (`workerMatchedSourceType`: "cache" for a static route to Cache
/// Storage, "fetch-event" for the service worker's fetch handler, "" when no route matched).
const STATIC_ROUTE_SOURCES: &str = "const worker = performance.getEntriesByType('resource')
  .find((e) => e.name.endsWith('/execbench-python-worker_loader.js'));
return [performance.getEntriesByType('navigation')[0].workerMatchedSourceType, worker ? worker.workerMatchedSourceType : null];";

#[tokio::test(flavor = "multi_thread")]
async fn after_one_visit_the_app_works_with_its_server_gone() {
    let site = site_copy("gone");
    let mut server = StaticServer::start(&site);
    let b = Browser::launch().await;
    b.client.goto(&server.base_url).await.unwrap();
    wait_python(&b).await;
    wait_kept(&b).await;
    // What a first visit leaves to first use (the standard library's rest, the Parquet loader) is
    // kept a few seconds after the visit's start, though nothing asked for it
    // (src/browser/offline.rs, `keep_the_rest`).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !(stdlib_cached(&b).await && loader_cached(&b).await) {
        assert!(std::time::Instant::now() < deadline, "the stdlib's rest and the Parquet loader were not kept in 60 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    server.stop();
    // Both wasm modules are read from Cache Storage directly, not through the service worker
    // (scripts/app_loader.py, scripts/python_worker_loader.py): moved out of the service worker's
    // cache into another one, they still load, which a request through the service worker (its
    // own cache only, then the gone server) could not do.
    assert_eq!(b.client.execute_async(&move_modules("moved-by-the-test", false), vec![]).await.unwrap(), 2);
    b.client.refresh().await.unwrap();
    wait_python(&b).await;
    // The page and the Python worker's script came from the cache by the service worker's static
    // routes, which the browser follows without running the service worker's code.
    assert_eq!(b.client.execute(STATIC_ROUTE_SOURCES, vec![]).await.unwrap(), serde_json::json!(["cache", "cache"]));

    // A perturbation, run and checked.
    b.client.goto(&format!("{}#/perturb", server.base_url)).await.unwrap();
    b.fill("[data-testid=sample-id-input]", "sample_0").await;
    b.click("[data-testid=perturb-one]").await;
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(60), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");

    // An offline evaluation of the bundled dataset.
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    select(&b, "[data-testid=eval-model]", "oracle").await;
    b.fill("[data-testid=eval-limit]", "5").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    b.screenshot("offline-evaluated").await;

    // The standard library beyond what starting imports is a file of its own
    // (crates/pyengine/src/lazy_stdlib.rs), kept after one visit: an import of it works offline.
    b.client.goto(&format!("{}#/playground", server.base_url)).await.unwrap();
    let counted = common::run_in_playground(&b, "from collections import Counter", "Counter('abb')['b']", "10");
    assert!(counted.await.contains('2'));
    // A browser that never kept it (the first-use setting, or a visit closed within seconds):
    // with the server gone, an import of it fails in words, and the engine goes on.
    assert_eq!(b.client.execute_async(FORGET_THE_STDLIB, vec![]).await.unwrap(), 1);
    b.client.refresh().await.unwrap();
    wait_python(&b).await;
    let said = common::run_in_playground(&b, "import collections", "1", "10").await;
    assert!(said.contains("ImportError") && said.contains("downloads on first use"), "{said}");
    assert!(common::run_in_playground(&b, "", "6 * 7", "10").await.contains("42"));
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;

    // No network at all: the header says so, and a model API run is refused in words, not tried.
    b.set_offline(true).await;
    b.wait_text("[data-testid=offline]", Duration::from_secs(10), |t| t == "Offline").await;
    select(&b, "[data-testid=eval-model]", "api").await;
    b.click("[data-testid=eval-run]").await;
    let said = b.wait_text("[data-testid=eval-error]", Duration::from_secs(10), |t| !t.is_empty()).await;
    assert!(said.contains("you are offline"), "{said}");
    b.set_offline(false).await;
    let _ = std::fs::remove_dir_all(site);
}

/// A module kept under its own name is used only when its bytes are the build's: copies changed
/// by one bit, in a cache the service worker did not write, are passed over and both modules come
/// from the server. Before the loaders checked the bytes, the page read those copies and failed.
#[tokio::test(flavor = "multi_thread")]
async fn modules_kept_with_other_bytes_are_not_used() {
    let site = site_copy("poisoned");
    let server = StaticServer::start(&site);
    let b = Browser::launch().await;
    b.client.goto(&server.base_url).await.unwrap();
    wait_python(&b).await;
    wait_kept(&b).await;
    assert_eq!(b.client.execute_async(&move_modules("written-by-another-site", true), vec![]).await.unwrap(), 2);
    let fetched = |seen: &[execbench_testkit::static_server::Seen]| {
        seen.iter().filter(|s| s.path.ends_with("_bg.wasm") && s.path.contains("/execbench-")).count()
    };
    let before = fetched(&server.requests());
    b.client.refresh().await.unwrap();
    wait_python(&b).await;
    assert_eq!(fetched(&server.requests()) - before, 2, "both modules came from the server, not the changed copies");
    b.client.goto(&format!("{}#/playground", server.base_url)).await.unwrap();
    assert!(common::run_in_playground(&b, "", "6 * 7", "10").await.contains("42"));
    let _ = std::fs::remove_dir_all(site);
}

/// Whether the service worker's cache holds a file whose address matches `pattern` (a JavaScript
/// regular expression's source).
async fn kept_file(b: &Browser, pattern: &str) -> bool {
    b.all_cached(&[pattern.to_string()]).await.unwrap()
}

async fn loader_cached(b: &Browser) -> bool {
    kept_file(b, r"/execbench-loader-worker_bg\.wasm$").await
}

async fn stdlib_cached(b: &Browser) -> bool {
    kept_file(b, r"/stdlib-[0-9a-f]{16}\.bin$").await
}

/// The Parquet loader and the rest of the standard library are not part of the first visit's
/// download (scripts/offline_build.py). With the first-use setting, the first file or import that
/// needs one fetches and keeps it, so it works offline after that.
#[tokio::test(flavor = "multi_thread")]
async fn the_parquet_loader_and_the_stdlib_are_kept_on_first_use_and_then_work_offline() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pyarrow");
    let site = site_copy("on-demand");
    let mut server = StaticServer::start(&site);
    let b = Browser::launch().await;
    // The setting for a metered connection, chosen before the first visit (on a file of the same
    // origin that is not the app): nothing is kept before its first use.
    b.client.goto(&format!("{}favicon.svg", server.base_url)).await.unwrap();
    b.client.execute("localStorage.setItem('execbench.offline-extras', 'first-use')", vec![]).await.unwrap();
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();
    wait_python(&b).await;
    wait_kept(&b).await;
    // The page's decision (`KEEP_THE_REST_AFTER_MS`, 5 s after its start) was to leave them.
    b.wait_script("return document.documentElement.dataset.keepTheRest || ''", Duration::from_secs(30), |v| {
        !v.as_str().unwrap_or_default().is_empty()
    })
    .await;
    let decided = b.client.execute("return document.documentElement.dataset.keepTheRest", vec![]).await.unwrap();
    assert_eq!(decided, serde_json::json!("first-use"), "the page's decision about the files left to first use");
    assert!(!loader_cached(&b).await, "the loader was downloaded before anything needed it");
    // The rest of the standard library likewise: not downloaded by the first visit, downloaded
    // and kept by the first import that needs it. Its download, here slower than the run's time
    // limit, holds the run's deadline instead of timing the program out.
    assert!(!stdlib_cached(&b).await, "the rest of the standard library was downloaded before any import");
    let stdlib = std::fs::read_dir(&site)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .find(|n| n.starts_with("stdlib-") && n.ends_with(".bin"))
        .expect("the built site has the standard library's file");
    server.delay_next(&format!("/execbench/{stdlib}"), 2_500);
    b.client.goto(&format!("{}#/playground", server.base_url)).await.unwrap();
    let counted = "from collections import Counter";
    let said = common::run_in_playground(&b, counted, "Counter('abca').most_common(1)", "1").await;
    assert!(said.contains("[('a', 2)]"), "{said}");
    assert!(stdlib_cached(&b).await, "the standard library was not kept after its first use");
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();

    let import = |name: &'static str, rows: usize| {
        let (b, path) = (&b, fixtures.join(name));
        async move {
            b.element("[data-testid=import]").await.send_keys(path.to_str().unwrap()).await.unwrap();
            b.wait_text("[data-testid=dataset-name]", Duration::from_secs(20), |t| t == name).await;
            b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == format!("{rows} of {rows}"))
                .await;
        }
    };
    import("lcb_execution.parquet", 24).await;
    assert!(loader_cached(&b).await, "the loader was not kept after its first use");

    server.stop();
    b.client.refresh().await.unwrap();
    wait_python(&b).await;
    b.client.goto(&format!("{}#/playground", server.base_url)).await.unwrap();
    let fraction =
        common::run_in_playground(&b, "from fractions import Fraction", "str(Fraction(1, 3) + Fraction(1, 6))", "30");
    assert!(fraction.await.contains("'1/2'"));
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();
    import("lcb_execution_nulls.parquet", 8).await;
    b.close().await;
    let _ = std::fs::remove_dir_all(site);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_build_is_offered_held_while_a_job_runs_and_loaded_on_reload() {
    let site = site_copy("update");
    let server = StaticServer::mount(vec![("/".into(), site.clone())]);
    let b = Browser::launch().await;
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    wait_python(&b).await;
    wait_kept(&b).await;
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;

    // A long job: the simulated model (no network needed) at half a second an answer, over
    // every sample (minutes; stopped below).
    select(&b, "[data-testid=eval-model]", "api").await;
    select(&b, "[data-testid=api-provider]", "simulated").await;
    b.fill("[data-testid=api-model]", "sim").await;
    b.fill("[data-testid=sim-latency]", "500").await;
    common::start_api_run(&b).await;
    b.wait_text("[data-testid=eval-stats]", Duration::from_secs(60), |t| !t.starts_with("0 /")).await;

    // A new build is deployed (a marker in its page) and the page asks for it, as it does every
    // half hour and when the tab is shown again.
    let index = site.join("index.html");
    let html = std::fs::read_to_string(&index).unwrap();
    std::fs::write(&index, html.replacen("<head>", r#"<head><meta name="execbench-recipe" content="second">"#, 1))
        .unwrap();
    // Deployed with scripts/dist.sh's .br/.gz copies beside the files: the new sw.js lists the
    // originals only (the browser asks for those; the host picks a copy).
    for copy in ["index.html.br", "index.html.gz"] {
        std::fs::write(site.join(copy), b"precompressed copy").unwrap();
    }
    let rebuilt = std::process::Command::new("python3")
        .arg(execbench_testkit::repo_root().join("scripts/offline_build.py"))
        .arg(&site)
        .status()
        .unwrap();
    assert!(rebuilt.success());
    let sw = std::fs::read_to_string(site.join("sw.js")).unwrap();
    assert!(sw.contains(r#""path": "index.html""#), "sw.js lists the page");
    assert!(!sw.contains(".html.br") && !sw.contains(".html.gz"), "sw.js lists no precompressed copy");
    b.client.execute("navigator.serviceWorker.getRegistration().then(r => r.update())", vec![]).await.unwrap();
    b.wait_text("[data-testid=update-banner]", Duration::from_secs(60), |t| t.contains("new version")).await;

    // The job goes on under the old code; the update waits for it.
    let state = "return document.querySelector('[data-testid=eval-state]')?.textContent ?? ''";
    assert_eq!(b.client.execute(state, vec![]).await.unwrap(), "", "the job still runs");
    let disabled = "return document.querySelector('[data-testid=update-reload]').disabled";
    assert_eq!(b.client.execute(disabled, vec![]).await.unwrap(), true, "no reload while the job runs");
    let before = b.wait_text("[data-testid=eval-stats]", Duration::from_secs(5), |_| true).await;
    b.wait_text("[data-testid=eval-stats]", Duration::from_secs(60), |t| t != before).await;
    b.client.execute("window.scrollTo(0, 0)", vec![]).await.unwrap();
    b.screenshot("offline-update-waiting").await;
    b.click("[data-testid=eval-stop]").await;
    b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await;

    b.wait_script(disabled, Duration::from_secs(10), |v| v == false).await;
    b.click("[data-testid=update-reload]").await;
    let marker = "return document.querySelector('meta[name=execbench-recipe]')?.content ?? null";
    b.wait_script(marker, Duration::from_secs(60), |v| v == "second").await;
    wait_python(&b).await;
    let _ = std::fs::remove_dir_all(site);
}

/// The saved start of the Python worker (scripts/python_worker_start.js), read in the page:
/// `{pages, valid, names, keys}` (`valid`: its digest checked as the loader checks it; `names`:
/// the JavaScript objects it holds; `keys`: the copies kept, all modules'), or null while there is
/// none.
const SAVED_START: &str = "const done = arguments[arguments.length - 1];
(async () => {
  const cache = await caches.open('python-start');
  const [key] = await cache.keys();
  if (!key) return null;
  const bytes = await (await cache.match(key)).arrayBuffer();
  const length = new DataView(bytes).getUint32(4, true);
  const head = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 8, length)));
  const digest = await crypto.subtle.digest('SHA-256', new Uint8Array(bytes, 8 + length));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  const keys = (await cache.keys()).length;
  return { pages: head.pages.length, valid: hex === head.sha256, names: head.refs.map((r) => r[1]), keys };
})().then(done, (e) => done(String(e)));";

/// Damages the saved start the way `arguments[0]` says: `byte` changes one byte of its memory
/// pages (its digest no longer matches); `name` renames the first JavaScript object it holds to
/// one the loader does not hand back (the pages and their digest stay right); `garbage` fills its
/// pages with 0xff and gives them their right digest (a copy that passes every check and breaks
/// the worker, as a bug in saving would).
const DAMAGE_SAVED_START: &str = "const [how, done] = arguments;
(async () => {
  const cache = await caches.open('python-start');
  const [key] = await cache.keys();
  const bytes = new Uint8Array(await (await cache.match(key)).arrayBuffer());
  const length = new DataView(bytes.buffer).getUint32(4, true);
  let head = new TextDecoder().decode(bytes.subarray(8, 8 + length));
  let pages = bytes.subarray(8 + length);
  if (how === 'byte') pages[pages.length >> 1] ^= 0x5a;
  if (how === 'name' || how === 'garbage') {
    const parsed = JSON.parse(head);
    if (how === 'name') parsed.refs[0][1] = 'document';
    if (how === 'garbage') {
      pages = new Uint8Array(pages.length).fill(0xff);
      const digest = await crypto.subtle.digest('SHA-256', pages);
      parsed.sha256 = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
    }
    head = JSON.stringify(parsed);
  }
  const encoded = new TextEncoder().encode(head);
  const lead = new DataView(new ArrayBuffer(8));
  lead.setUint32(0, new DataView(bytes.buffer).getUint32(0, true), true);
  lead.setUint32(4, encoded.length, true);
  await cache.put(key, new Response(new Blob([lead.buffer, encoded, pages])));
  return true;
})().then(done, (e) => done(String(e)));";

/// Whether the latest Python worker began from the saved start (the header's engine badge).
async fn restored(b: &Browser) -> bool {
    wait_python(b).await;
    let flag = b.client.execute("return document.querySelector('.engine').dataset.restored", vec![]).await.unwrap();
    flag == "true"
}

/// Waits until a saved start is there, whole and without the name `DAMAGE_SAVED_START` gives;
/// answers how many memory pages it holds.
async fn wait_saved_start(b: &Browser) -> u64 {
    let mut last = serde_json::Value::Null;
    for _ in 0..300 {
        last = b.client.execute_async(SAVED_START, vec![]).await.unwrap();
        if last["valid"] == true && last["names"].as_array().is_some_and(|n| n.iter().all(|n| n != "document")) {
            return last["pages"].as_u64().unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no whole saved start after 30 s: {last}");
}

/// A second worker begins from the first one's saved memory and answers as a booted one does
/// (the sandbox's guards included); a saved start that is damaged, or names an object the loader
/// cannot hand back, is not used: that worker boots, and saves a good copy again. One that passes
/// the checks and breaks its worker is dropped, and the page starts another worker, which boots.
#[tokio::test(flavor = "multi_thread")]
async fn a_later_worker_begins_from_the_saved_start_and_a_damaged_one_is_not_used() {
    let site = site_copy("saved");
    let server = StaticServer::start(&site);
    let b = Browser::launch().await;
    let playground = format!("{}#/playground", server.base_url);
    b.client.goto(&playground).await.unwrap();
    assert!(!restored(&b).await, "the first worker ever has nothing to begin from");
    let pages = wait_saved_start(&b).await;
    // Starting the interpreter changes a few MB of the worker's memory, not all of it.
    assert!((4..=160).contains(&pages), "{pages} pages of 64 KiB");

    // (program, expression, text the result must contain)
    let cases = [
        ("def f(s):\n    return sorted(set(s.split()), key=len)", "f('b aa b ccc aa')", "['b', 'aa', 'ccc']"),
        ("import json, re", "json.dumps({'k': re.findall(r'\\d+', 'a1b22')})", "{\"k\": [\"1\", \"22\"]}"),
        ("class A:\n    def __repr__(self):\n        return 'A!'", "[A(), 2 ** 70]", "[A!, 1180591620717411303424]"),
        ("import os", "os.system('ls')", "PermissionError: os.system() is not available"),
        ("", "open('/etc/passwd').read()", "PermissionError: files are not available"),
    ];
    b.client.goto("about:blank").await.unwrap();
    b.client.goto(&playground).await.unwrap();
    assert!(restored(&b).await, "the second visit's worker begins from the saved start");
    for (program, expression, want) in cases {
        let text = common::run_in_playground(&b, program, expression, "5").await;
        assert!(text.contains(want), "{expression}: {text}");
    }

    // A copy an older build's module saved (another hash in its name) goes when this one saves.
    let stale = "const done = arguments[arguments.length - 1];
        caches.open('python-start')
          .then((c) => c.put(new URL('execbench-worker-0123456789abcdef_bg.wasm?saved-start=1', location).href, new Response('old')))
          .then(() => done(true), (e) => done(String(e)));";
    assert_eq!(b.client.execute_async(stale, vec![]).await.unwrap(), true);
    for damage in ["byte", "name", "garbage"] {
        assert_eq!(b.client.execute_async(DAMAGE_SAVED_START, vec![damage.into()]).await.unwrap(), true);
        b.client.refresh().await.unwrap();
        assert!(!restored(&b).await, "a saved start damaged by `{damage}` was used");
        // The first two are refused before use; the third breaks its worker, which drops it, and
        // the page starts one more, which boots.
        let panel = b
            .client
            .execute("return document.querySelector('[data-testid=engine-panel]').textContent", vec![])
            .await
            .unwrap();
        let restarts = if damage == "garbage" { "1 restart;" } else { "0 restarts;" };
        assert!(panel.as_str().unwrap_or_default().contains(restarts), "after `{damage}`: {panel}");
        let text = common::run_in_playground(&b, cases[0].0, cases[0].1, "5").await;
        assert!(text.contains(cases[0].2), "after `{damage}`: {text}");
        wait_saved_start(&b).await;
        let kept = b.client.execute_async(SAVED_START, vec![]).await.unwrap();
        assert_eq!(kept["keys"], 1, "after `{damage}`: {kept}");
        b.client.refresh().await.unwrap();
        assert!(restored(&b).await, "after `{damage}`, the copy saved again is used");
    }
    let _ = std::fs::remove_dir_all(site);
}
