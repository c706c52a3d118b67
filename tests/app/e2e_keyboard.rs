//! End-to-end: the pages by keyboard alone, on the built `dist/` in headless Chromium. The
//! dataset list is one Tab stop whose current row the arrows move, Enter opens and Space or →
//! expands in place; Ctrl+Enter runs the Playground and perturbs; Tab indents in code boxes and
//! Esc then Tab leaves them; Enter in Perturb's sample field perturbs.

use std::time::Duration;

use execbench_core::Sample;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use fantoccini::key::Key;
use serde_json::Value;

fn key(k: Key) -> char {
    k.into()
}

async fn open_app() -> (Browser, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let browser = Browser::launch().await;
    (browser, server)
}

fn cruxeval() -> Vec<Sample> {
    let path = execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl");
    execbench_core::load_jsonl("cruxeval.jsonl", &std::fs::read_to_string(path).unwrap()).samples
}

async fn js(b: &Browser, script: &str) -> Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The focused element's test id ("" when it has none).
async fn focused(b: &Browser) -> String {
    js(b, "return document.activeElement ? (document.activeElement.dataset.testid || '') : ''")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The list's current row as the page tells assistive technology: the id of the row that
/// `aria-activedescendant` names, whether that row is rendered, marked selected and highlighted,
/// and whether it lies wholly inside the list's visible box.
#[derive(Debug, PartialEq)]
struct CurrentRow {
    sample: String,
    rendered: bool,
    selected: bool,
    in_view: bool,
}

async fn current_row(b: &Browser) -> CurrentRow {
    let value = js(b, "const list = document.querySelector('[data-testid=sample-list]');
        const row = document.getElementById(list.getAttribute('aria-activedescendant') || '');
        if (!row) return ['', false, false, false];
        const r = row.getBoundingClientRect(), l = list.getBoundingClientRect();
        const highlighted = row.classList.contains('current') && document.querySelectorAll('[data-testid=sample-row].current').length === 1;
        return [row.dataset.id, list.contains(row), row.getAttribute('aria-selected') === 'true' && highlighted,
                r.top >= l.top - 1 && r.bottom <= l.bottom + 1];").await;
    CurrentRow {
        sample: value[0].as_str().unwrap_or_default().to_string(),
        rendered: value[1].as_bool().unwrap(),
        selected: value[2].as_bool().unwrap(),
        in_view: value[3].as_bool().unwrap(),
    }
}

/// Waits until the current row is `sample`, rendered, highlighted and in view.
async fn expect_current(b: &Browser, sample: &str) {
    let want = CurrentRow { sample: sample.to_string(), rendered: true, selected: true, in_view: true };
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let got = current_row(b).await;
        if got == want {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "the current row is {got:?}, not {want:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// From the search box, Tab and Tab (past the output-type filter) reach the list.
async fn tab_into_list(b: &Browser) {
    b.click("[data-testid=search]").await;
    b.press(&[key(Key::Tab)]).await;
    assert_eq!(focused(b).await, "kind-filter");
    b.press(&[key(Key::Tab)]).await;
    assert_eq!(focused(b).await, "sample-list", "the list is the next Tab stop after the filter");
}

async fn wait_count(b: &Browser, count: &str) {
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == count).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_list_is_one_tab_stop_whose_row_the_keys_move_and_enter_opens() {
    let crux = cruxeval();
    let (b, server) = open_app().await;
    b.set_viewport(1400, 900).await;
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();
    wait_count(&b, "800 of 800").await;

    tab_into_list(&b).await;
    expect_current(&b, "sample_0").await;
    b.press_times(key(Key::Down), 5).await;
    expect_current(&b, "sample_5").await;
    b.press(&[key(Key::Up)]).await;
    expect_current(&b, "sample_4").await;
    // The highlight is a ring drawn inside the row, so the list's edges cannot cut it.
    let ring = js(&b, "const s = getComputedStyle(document.querySelector('[data-testid=sample-row].current')); return [s.outlineStyle, s.outlineWidth, s.outlineOffset]").await;
    assert_eq!(ring, serde_json::json!(["solid", "2px", "-2px"]));
    b.screenshot("keyboard-list-row-1400").await;

    // A page down moves by the rows a view shows and scrolls the list so the row is in it.
    let page = js(&b, "return Math.floor(document.querySelector('[data-testid=sample-list]').clientHeight / document.querySelector('[data-testid=sample-row]').offsetHeight)").await.as_u64().unwrap();
    assert!(page >= 3, "{page} rows a page");
    b.press(&[key(Key::PageDown)]).await;
    b.press(&[key(Key::PageDown)]).await;
    expect_current(&b, &format!("sample_{}", 4 + 2 * page)).await;
    assert!(
        js(&b, "return document.querySelector('[data-testid=sample-list]').scrollTop").await.as_f64().unwrap() > 0.0,
        "the list did not scroll"
    );
    b.press(&[key(Key::End)]).await;
    expect_current(&b, "sample_799").await;
    b.press(&[key(Key::PageUp)]).await;
    expect_current(&b, &format!("sample_{}", 799 - page)).await;
    b.press(&[key(Key::Home)]).await;
    expect_current(&b, "sample_0").await;
    assert_eq!(
        js(&b, "return document.querySelector('[data-testid=sample-list]').scrollTop").await.as_f64(),
        Some(0.0)
    );

    // The rows are not Tab stops (nothing inside the list takes the focus), so Shift+Tab leaves
    // the list for the filter and Tab comes back to the same row.
    b.press(&[key(Key::Down)]).await;
    let stops = js(
        &b,
        "return [...document.querySelectorAll('[data-testid=sample-list] *')].filter(e => e.tabIndex >= 0).length",
    )
    .await;
    assert_eq!(stops, 0, "rows or their controls are Tab stops");
    b.press(&[key(Key::Shift), key(Key::Tab)]).await;
    assert_eq!(focused(&b).await, "kind-filter");
    b.press(&[key(Key::Tab)]).await;
    assert_eq!(focused(&b).await, "sample-list");
    expect_current(&b, "sample_1").await;

    // Enter opens the current row's sample with the list's search in the address.
    let matches: Vec<&Sample> = crux
        .iter()
        .filter(|s| [&s.id, &s.code, &s.call, &s.output].iter().any(|f| f.to_lowercase().contains("sorted")))
        .collect();
    assert!(matches.len() > 3);
    b.fill("[data-testid=search]", "sorted").await;
    wait_count(&b, &format!("{} of 800", matches.len())).await;
    tab_into_list(&b).await;
    expect_current(&b, &matches[0].id).await;
    b.press_times(key(Key::Down), 2).await;
    expect_current(&b, &matches[2].id).await;
    b.press(&[key(Key::Enter)]).await;
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == matches[2].id).await;
    assert_eq!(js(&b, "return location.hash").await, format!("#/sample/{}?q=sorted", matches[2].id));
    b.close().await;
}

/// Top and height of rendered rows, by sample id.
async fn row_box(b: &Browser, id: &str) -> (f64, f64) {
    let value = js(b, &format!("const r = document.querySelector('[data-testid=sample-row][data-id=\"{id}\"]'); if (!r) return null; const box = r.getBoundingClientRect(); return [box.top, box.height]")).await;
    assert!(!value.is_null(), "row {id} is not rendered");
    (value[0].as_f64().unwrap(), value[1].as_f64().unwrap())
}

async fn full_code_of(b: &Browser, id: &str) -> Option<String> {
    js(b, &format!("const c = document.querySelector('[data-testid=sample-row][data-id=\"{id}\"] [data-testid=row-full-code]'); return c ? c.textContent : null")).await.as_str().map(str::to_string)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rows_code_expands_in_place_by_keyboard_and_the_rows_below_move_down() {
    let crux = cruxeval();
    let (b, server) = open_app().await;
    for (width, name) in [(1400, "1400"), (420, "420")] {
        b.set_viewport(width, 900).await;
        // Every program defines `def f`: each row's preview and expanded code mark the search.
        b.client.goto(&format!("{}#/datasets?q=def%20f", server.base_url)).await.unwrap();
        b.client.refresh().await.unwrap();
        let matches: Vec<&Sample> = crux
            .iter()
            .filter(|s| [&s.id, &s.code, &s.call, &s.output].iter().any(|f| f.to_lowercase().contains("def f")))
            .collect();
        wait_count(&b, &format!("{} of 800", matches.len())).await;
        let marks =
            js(&b, "return [...document.querySelectorAll('[data-testid=row-preview] mark')].map(m => m.textContent)")
                .await;
        assert!(
            !marks.as_array().unwrap().is_empty() && marks.as_array().unwrap().iter().all(|m| m == "def f"),
            "{marks}"
        );

        tab_into_list(&b).await;
        b.press_times(key(Key::Down), 2).await;
        let (id, next) = (matches[2].id.as_str(), matches[3].id.as_str());
        expect_current(&b, id).await;
        b.screenshot(&format!("keyboard-list-row-{name}")).await;
        let (top, collapsed) = row_box(&b, id).await;
        assert_eq!(row_box(&b, next).await.0, top + collapsed);
        assert_eq!(full_code_of(&b, id).await, None, "expanded before asking");

        b.press(&[key(Key::Right)]).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while full_code_of(&b, id).await.is_none() {
            assert!(std::time::Instant::now() < deadline, "→ did not expand {id}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(full_code_of(&b, id).await.as_deref(), Some(matches[2].code.as_str()), "the full code, exactly");
        let (top_open, expanded) = row_box(&b, id).await;
        let lines = matches[2].code.lines().count() as f64;
        assert!(expanded > collapsed && expanded >= lines * 16.0, "{id} is {expanded} px tall for {lines} lines");
        // The row below starts where the expanded one ends: moved down, not overlapped.
        assert_eq!(row_box(&b, next).await.0, top_open + expanded);
        let toggle = js(&b, &format!("return document.querySelector('[data-testid=sample-row][data-id=\"{id}\"] [data-testid=row-toggle]').getAttribute('aria-expanded')")).await;
        assert_eq!(toggle, "true");
        let full_marks = js(&b, &format!("return [...document.querySelectorAll('[data-testid=sample-row][data-id=\"{id}\"] [data-testid=row-full-code] mark')].map(m => m.textContent)")).await;
        // Highlighting splits a mark where the colours change ("def", " ", "f"): together they
        // are every occurrence of the search.
        let marked: String = full_marks.as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(
            marked,
            "def f".repeat(matches[2].code.to_lowercase().matches("def f").count()),
            "the search is not marked in the full code"
        );
        assert!(!marked.is_empty());
        expect_current(&b, id).await;
        b.screenshot(&format!("keyboard-list-expanded-{name}")).await;
        if width == 420 {
            let (page_width, view_width) = {
                let w = js(&b, "const d = document.documentElement; return [d.scrollWidth, d.clientWidth]").await;
                (w[0].as_u64().unwrap(), w[1].as_u64().unwrap())
            };
            assert!(page_width <= view_width, "the page is {page_width} px wide in a {view_width} px view");
        }

        // The keys keep working past the taller row; Space shows and hides the next one, ← hides this one.
        b.press(&[key(Key::Down)]).await;
        expect_current(&b, next).await;
        b.press(&[key(Key::Space)]).await;
        b.wait_text(
            &format!("[data-testid=sample-row][data-id=\"{next}\"] [data-testid=row-full-code]"),
            Duration::from_secs(5),
            |_| true,
        )
        .await;
        b.press(&[key(Key::Space)]).await;
        b.press(&[key(Key::Up)]).await;
        b.press(&[key(Key::Left)]).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while full_code_of(&b, id).await.is_some() || full_code_of(&b, next).await.is_some() {
            assert!(std::time::Instant::now() < deadline, "the rows did not fold again");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(row_box(&b, id).await.1, collapsed);

        // The toggle is a click target too, and leaves the keyboard in the list.
        b.click(&format!("[data-testid=sample-row][data-id=\"{next}\"] [data-testid=row-toggle]")).await;
        b.wait_text(
            &format!("[data-testid=sample-row][data-id=\"{next}\"] [data-testid=row-full-code]"),
            Duration::from_secs(5),
            |_| true,
        )
        .await;
        assert_eq!(focused(&b).await, "sample-list");
        expect_current(&b, next).await;
    }
    b.close().await;
}

async fn wait_engine_ready(b: &Browser) {
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
}

async fn value_of(b: &Browser, testid: &str) -> String {
    js(b, &format!("return document.querySelector('[data-testid={testid}]').value"))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn code_boxes_indent_with_tab_and_ctrl_enter_runs_and_perturbs() {
    let (b, server) = open_app().await;
    b.set_viewport(1400, 900).await;
    b.client.goto(&format!("{}#/playground", server.base_url)).await.unwrap();
    wait_engine_ready(&b).await;
    assert_eq!(
        b.wait_text("[data-testid=program-keys]", Duration::from_secs(5), |_| true).await,
        "Tab indents · Esc then Tab leaves"
    );

    // Typing with Tab: four spaces at the caret, and the program that runs is the one typed.
    b.fill("[data-testid=program]", "def f(x):\n").await;
    assert_eq!(focused(&b).await, "program");
    b.press(&[key(Key::Tab)]).await;
    assert_eq!(focused(&b).await, "program", "Tab left the code box");
    b.client.active_element().await.unwrap().send_keys("return x * 2").await.unwrap();
    assert_eq!(value_of(&b, "program").await, "def f(x):\n    return x * 2");
    // Shift+Tab takes the indent away, Tab puts it back.
    b.press(&[key(Key::Shift), key(Key::Tab)]).await;
    assert_eq!(value_of(&b, "program").await, "def f(x):\nreturn x * 2");
    b.press(&[key(Key::Home)]).await;
    b.press(&[key(Key::Tab)]).await;
    assert_eq!(value_of(&b, "program").await, "def f(x):\n    return x * 2");
    // Esc then Tab leaves the box without typing.
    b.press(&[key(Key::Escape)]).await;
    b.press(&[key(Key::Tab)]).await;
    assert_eq!(focused(&b).await, "expression", "Esc then Tab did not move on");
    assert_eq!(value_of(&b, "program").await, "def f(x):\n    return x * 2");

    b.fill("[data-testid=expression]", "f(21)").await;
    b.press(&[key(Key::Control), key(Key::Enter)]).await;
    assert_eq!(b.wait_text("[data-testid=result-value]", Duration::from_secs(20), |t| t == "42").await, "42");
    b.wait_text("[data-testid=run-number]", Duration::from_secs(5), |t| t == "Result of run 1").await;
    // From inside the code box too, and the edited program is the one run.
    b.click("[data-testid=program]").await;
    b.press(&[key(Key::Control), key(Key::End)]).await;
    b.client.active_element().await.unwrap().send_keys(" + 1").await.unwrap();
    b.press(&[key(Key::Control), key(Key::Enter)]).await;
    b.wait_text("[data-testid=run-number]", Duration::from_secs(20), |t| t == "Result of run 2").await;
    assert_eq!(b.wait_text("[data-testid=result-value]", Duration::from_secs(5), |_| true).await, "43");
    b.screenshot("keyboard-playground").await;

    // Perturb: Enter in the sample field perturbs that sample.
    b.client.goto(&format!("{}#/perturb", server.base_url)).await.unwrap();
    b.wait_text("[data-testid=perturb-empty]", Duration::from_secs(20), |t| t.contains("Pick a sample")).await;
    b.fill("[data-testid=sample-id-input]", "sample_3").await;
    b.press(&[key(Key::Enter)]).await;
    b.wait_text("[data-testid=perturb-verdict]", Duration::from_secs(30), |t| t == "agree").await;
    assert!(js(&b, "return location.hash").await.as_str().unwrap().starts_with("#/perturb/sample_3?"));
    assert!(b.wait_text("h3", Duration::from_secs(5), |_| true).await.contains("sample_3"));

    // Pasted code: Tab indents there too, and Ctrl+Enter perturbs it.
    b.click("[data-testid=source-paste]").await;
    b.fill("[data-testid=paste-code]", "def g(n):\n").await;
    b.press(&[key(Key::Tab)]).await;
    b.client.active_element().await.unwrap().send_keys("return n + 1").await.unwrap();
    assert_eq!(value_of(&b, "paste-code").await, "def g(n):\n    return n + 1");
    b.fill("[data-testid=paste-call]", "g(4)").await;
    b.click("[data-testid=paste-code]").await;
    b.press(&[key(Key::Control), key(Key::Enter)]).await;
    b.wait_text("[data-testid=original-call]", Duration::from_secs(20), |t| t == "g(4)").await;
    b.wait_text("[data-testid=perturb-verdict]", Duration::from_secs(30), |t| t == "agree").await;
    b.close().await;
}
