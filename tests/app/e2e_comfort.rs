//! End-to-end: the first screen, the dark theme and the narrow (420 px) layout, on the built
//! `dist/` in headless Chromium. Quick by design: none of them waits for Python.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use fantoccini::Locator;

async fn open_app() -> (Browser, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let browser = Browser::launch().await;
    (browser, server)
}

async fn js(b: &Browser, script: &str) -> serde_json::Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

async fn is_displayed(b: &Browser, css: &str) -> bool {
    b.client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no `{css}`: {e}")).is_displayed().await.unwrap()
}

async fn choose_theme(b: &Browser, value: &str) {
    b.client.find(Locator::Css("[data-testid=theme-switch]")).await.unwrap().select_by_value(value).await.unwrap();
}

async fn body_background(b: &Browser) -> String {
    js(b, "return getComputedStyle(document.body).backgroundColor").await.as_str().unwrap_or_default().to_string()
}

/// The document's width and the width it is shown in (the viewport less a scrollbar): a document
/// wider than that scrolls sideways.
async fn page_and_view_width(b: &Browser) -> (u64, u64) {
    let widths = js(b, "const d = document.documentElement; return [d.scrollWidth, d.clientWidth]").await;
    (widths[0].as_u64().unwrap(), widths[1].as_u64().unwrap())
}

async fn assert_no_sideways_scroll(b: &Browser, page: &str) {
    let (page_width, view_width) = page_and_view_width(b).await;
    assert!(
        page_width <= view_width && page_width <= 420,
        "the {page} page is {page_width} px wide in a {view_width} px view"
    );
}

async fn wait_datasets(b: &Browser) {
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
}

async fn wait_evaluate(b: &Browser) {
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bare_address_shows_the_home_screen_and_its_starts_lead_to_their_pages() {
    let (b, server) = open_app().await;
    b.set_viewport(1400, 900).await;
    let base = &server.base_url;
    b.client.goto(base).await.unwrap();
    let lead = b.wait_text("[data-testid=home] .lead", Duration::from_secs(20), |t| !t.is_empty()).await;
    assert!(lead.contains("Python program"), "{lead}");
    let docs = b.wait_text("[data-testid=home-docs]", Duration::from_secs(5), |_| true).await;
    for page in ["Datasets", "Playground", "Verify dataset", "Perturb", "Questions", "Evaluate", "Runs", "Build"] {
        assert!(docs.contains(page), "{page} missing from the guide: {docs}");
    }
    let icon = js(&b, "const l = document.querySelector('link[rel=icon]'); return l ? l.href : ''").await;
    assert!(icon.as_str().unwrap_or_default().ends_with("favicon.svg"), "{icon}");
    b.screenshot("home").await;

    for (start, arrived) in [
        ("home-start-datasets", "#/datasets"),
        ("home-start-perturb", "#/perturb"),
        ("home-start-evaluate", "#/evaluate"),
    ] {
        b.client.goto(base).await.unwrap();
        b.click(&format!("[data-testid={start}]")).await;
        let url = b.client.current_url().await.unwrap();
        assert_eq!(url.fragment().map(|f| format!("#{f}")).as_deref(), Some(arrived), "{start}");
        match arrived {
            "#/datasets" => wait_datasets(&b).await,
            "#/perturb" => drop(
                b.wait_text("[data-testid=perturb-empty]", Duration::from_secs(20), |t| t.contains("Pick a sample"))
                    .await,
            ),
            _ => wait_evaluate(&b).await,
        }
    }
    // The brand leads home again.
    b.click(".topbar .brand").await;
    b.wait_text("[data-testid=home] h1", Duration::from_secs(5), |t| !t.is_empty()).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dark_theme_is_chosen_in_the_top_bar_and_survives_a_reload() {
    let (b, server) = open_app().await;
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();
    wait_datasets(&b).await;

    choose_theme(&b, "light").await;
    let light = body_background(&b).await;
    choose_theme(&b, "dark").await;
    assert_eq!(js(&b, "return document.documentElement.dataset.theme").await, "dark");
    let dark = body_background(&b).await;
    assert_ne!(light, dark, "the body's background did not change with the theme");

    b.client.refresh().await.unwrap();
    wait_datasets(&b).await;
    assert_eq!(js(&b, "return document.documentElement.dataset.theme").await, "dark");
    assert_eq!(js(&b, "return document.querySelector('[data-testid=theme-switch]').value").await, "dark");
    assert_eq!(body_background(&b).await, dark);
    b.screenshot("datasets-dark").await;

    // Back to the system's setting: the attribute goes, and so does the stored choice.
    choose_theme(&b, "system").await;
    assert_eq!(js(&b, "return document.documentElement.hasAttribute('data-theme')").await, false);
    assert_eq!(js(&b, "return localStorage.getItem('execbench.theme')").await, serde_json::Value::Null);
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn at_420_pixels_the_navigation_is_a_menu_and_nothing_scrolls_sideways() {
    let (b, server) = open_app().await;
    let width = b.set_viewport(420, 860).await;
    assert_eq!(width, 420, "the viewport could not be made 420 px wide");
    b.client.goto(&format!("{}#/datasets", server.base_url)).await.unwrap();
    wait_datasets(&b).await;

    assert!(is_displayed(&b, "[data-testid=menu-button]").await, "no menu button at 420 px");
    assert!(!is_displayed(&b, "[data-testid=site-nav]").await, "the navigation shows before the menu is opened");
    assert_no_sideways_scroll(&b, "datasets").await;
    b.screenshot("datasets-420").await;

    b.click("[data-testid=menu-button]").await;
    assert!(is_displayed(&b, "[data-testid=site-nav]").await, "the menu did not open");
    assert_eq!(
        js(&b, "return document.querySelector('[data-testid=menu-button]').getAttribute('aria-expanded')").await,
        "true"
    );
    b.screenshot("datasets-420-menu").await;

    // Following a link goes there and folds the menu again.
    b.click("[data-testid=site-nav] a[href='#/evaluate']").await;
    wait_evaluate(&b).await;
    assert!(!is_displayed(&b, "[data-testid=site-nav]").await, "the menu stayed open after navigating");
    assert_no_sideways_scroll(&b, "evaluate").await;
    b.screenshot("evaluate-420").await;

    // The Build page: its method picker and funnel fold into the width.
    b.click("[data-testid=menu-button]").await;
    b.click("[data-testid=site-nav] a[href='#/build']").await;
    b.wait_text("[data-testid=build-method-count]", Duration::from_secs(10), |t| t.contains("of 69")).await;
    assert_no_sideways_scroll(&b, "build").await;
    b.screenshot("build-420").await;
    b.close().await;
}

/// An imported file is kept in the browser: a reload opens it again (on the page the user was
/// on), the dataset menu switches between it, other kept files and CRUXEval, and a file removed
/// from the browser (or gone from its storage) gives way to CRUXEval with a word about it.
#[tokio::test(flavor = "multi_thread")]
async fn imported_datasets_are_kept_and_a_reload_returns_to_the_one_open() {
    let dir = std::env::temp_dir().join(format!("execbench-shelf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kept = dir.join("kept.jsonl");
    std::fs::write(
        &kept,
        [
            r#"{"id": "k1", "code": "def f(x):\n    return x + 1", "input": "1", "output": "2"}"#,
            r#"{"id": "k2", "code": "def f(s):\n    return s[::-1]", "input": "'ab'", "output": "'ba'"}"#,
            r#"{"id": "k3", "code": "def f(x):"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let second = dir.join("second.jsonl");
    std::fs::write(&second, r#"{"id": "s1", "code": "def f():\n    return 0", "input": "", "output": "0"}"#).unwrap();
    let (b, server) = open_app().await;
    let base = &server.base_url;
    let import = |path: std::path::PathBuf| {
        let client = b.client.clone();
        async move {
            client
                .find(Locator::Css("[data-testid=import]"))
                .await
                .unwrap()
                .send_keys(path.to_str().unwrap())
                .await
                .unwrap()
        }
    };
    let menu = |b: &Browser| {
        let client = b.client.clone();
        async move {
            let v = client.execute("const s = document.querySelector('[data-testid=dataset-switcher]'); return [s.options[s.selectedIndex].text, [...s.options].map(o => o.text)]", vec![]).await.unwrap();
            let chosen = v[0].as_str().unwrap().to_string();
            let all: Vec<String> = v[1].as_array().unwrap().iter().map(|o| o.as_str().unwrap().to_string()).collect();
            (chosen, all)
        }
    };

    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    wait_datasets(&b).await;
    import(kept.clone()).await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "2 of 2").await;
    // A reload on a sample page of the imported file opens that file and that sample.
    b.client.goto(&format!("{base}#/sample/k2")).await.unwrap();
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == "k2").await;
    b.client.refresh().await.unwrap();
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(20), |t| t == "k2").await;
    assert_eq!(b.wait_text("[data-testid=back-to-list]", Duration::from_secs(5), |_| true).await, "kept.jsonl");

    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "2 of 2").await;
    let (chosen, all) = menu(&b).await;
    assert!(chosen.starts_with("kept.jsonl (2 samples, 1 row refused, "), "{chosen}");
    assert_eq!(all.len(), 2, "{all:?}");
    b.screenshot("datasets-kept-menu").await;

    // Back to CRUXEval, and a reload stays there.
    b.client
        .find(Locator::Css("[data-testid=dataset-switcher]"))
        .await
        .unwrap()
        .select_by_value("bundled")
        .await
        .unwrap();
    wait_datasets(&b).await;
    b.client.refresh().await.unwrap();
    wait_datasets(&b).await;
    assert_eq!(menu(&b).await.0, "CRUXEval (bundled)");

    // A second file goes to the top of the menu; the first is still one choice away.
    import(second.clone()).await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "1 of 1").await;
    let (chosen, all) = menu(&b).await;
    assert!(chosen.starts_with("second.jsonl"), "{chosen}");
    assert!(all[1].starts_with("second.jsonl") && all[2].starts_with("kept.jsonl"), "{all:?}");
    b.client.execute("const s = document.querySelector('[data-testid=dataset-switcher]'); s.selectedIndex = 2; s.dispatchEvent(new Event('change'))", vec![]).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "2 of 2").await;
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(5), |t| t == "kept.jsonl").await;

    // Removing it opens CRUXEval; the other file stays in the menu.
    b.click("[data-testid=dataset-forget]").await;
    wait_datasets(&b).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while menu(&b).await.1.len() != 2 {
        assert!(std::time::Instant::now() < deadline, "the removed file is still in the menu: {:?}", menu(&b).await.1);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(menu(&b).await.1[1].starts_with("second.jsonl"));
    b.client.refresh().await.unwrap();
    wait_datasets(&b).await;

    // A remembered file that storage no longer has: CRUXEval opens, and the page says why.
    js(&b, "localStorage.setItem('execbench.dataset', 'ds-0000000000000000')").await;
    b.client.refresh().await.unwrap();
    wait_datasets(&b).await;
    let problem = b.wait_text("[data-testid=shelf-problem]", Duration::from_secs(10), |_| true).await;
    assert!(
        problem.contains("no longer kept in this browser") && problem.contains("CRUXEval is open instead"),
        "{problem}"
    );
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// WebDriver key codes.
const TAB: &str = "\u{e004}";
const ENTER: &str = "\u{e007}";
const ARROW_DOWN: &str = "\u{e015}";

/// Types `keys` one after another on whatever has the focus, as a person at the keyboard would
/// (WebDriver key actions: sending keys to an element would read them as a file's path when the
/// focus is on a file input).
async fn press(b: &Browser, keys: &str) {
    for key in keys.chars() {
        b.press(&[key]).await;
    }
}

async fn focused_matches(b: &Browser, css: &str) -> bool {
    let script = format!("return !!document.activeElement && document.activeElement.matches({css:?})");
    js(b, &script).await.as_bool().unwrap_or(false)
}

/// Presses Tab until the focus is on `css` (at most `max` times): how a keyboard user gets there.
async fn tab_to(b: &Browser, css: &str, max: usize) {
    for _ in 0..max {
        if focused_matches(b, css).await {
            return;
        }
        press(b, TAB).await;
    }
    assert!(
        focused_matches(b, css).await,
        "{max} presses of Tab did not reach `{css}`; the focus is on {}",
        js(b, "return document.activeElement && document.activeElement.outerHTML.slice(0, 200)").await
    );
}

/// The issue's whole flow, keyboard only, at 1400 px and at 420 px: open a sample from the list,
/// perturb it, evaluate the oracle on 20 samples, export the per-sample JSONL.
#[tokio::test(flavor = "multi_thread")]
async fn one_whole_flow_by_keyboard_only_wide_and_narrow() {
    let (b, server) = open_app().await;
    for (width, label) in [(1400, "wide"), (420, "narrow")] {
        b.set_viewport(width, 900).await;
        b.client.goto(&server.base_url).await.unwrap();
        b.client.refresh().await.unwrap();
        b.wait_text("[data-testid=home] .lead", Duration::from_secs(20), |t| !t.is_empty()).await;

        // First screen → the list.
        tab_to(&b, "[data-testid=home-start-datasets]", 30).await;
        press(&b, ENTER).await;
        wait_datasets(&b).await;
        // One Tab stop into the list; arrows move the current row; Enter opens it.
        tab_to(&b, "[data-testid=sample-list]", 30).await;
        for _ in 0..3 {
            press(&b, ARROW_DOWN).await;
        }
        let current = js(&b, "const l = document.querySelector('[data-testid=sample-list]'); const id = l.getAttribute('aria-activedescendant'); return id && document.getElementById(id) ? document.getElementById(id).querySelector('.col-id').textContent : null").await;
        let current =
            current.as_str().unwrap_or_else(|| panic!("the list names its current row: {current}")).to_string();
        b.screenshot(&format!("keyboard-{label}-1-list")).await;
        press(&b, ENTER).await;
        b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == current).await;

        // The sample → Perturb (the link perturbs it at once).
        tab_to(&b, "[data-testid=perturb-link]", 40).await;
        press(&b, ENTER).await;
        b.wait_text("[data-testid=perturb-verdict]", Duration::from_secs(60), |t| t == "agree").await;
        b.screenshot(&format!("keyboard-{label}-2-perturbed")).await;

        // The top bar → Evaluate (on a narrow screen, through the menu).
        if width < 860 {
            tab_to(&b, "[data-testid=menu-button]", 60).await;
            press(&b, ENTER).await;
        }
        tab_to(&b, "#site-nav a[href='#/evaluate']", 60).await;
        press(&b, ENTER).await;
        wait_evaluate(&b).await;
        tab_to(&b, "[data-testid=eval-limit]", 40).await;
        press(&b, "20").await;
        tab_to(&b, "[data-testid=eval-run]", 20).await;
        press(&b, ENTER).await;
        b.wait_text("[data-testid=eval-state]", Duration::from_secs(120), |t| t == "finished").await;
        b.screenshot(&format!("keyboard-{label}-3-evaluated")).await;

        // Export the per-sample JSONL: 20 rows, each with its provenance.
        js(&b, "window.savedBlobs = []; if (!window.__make) { window.__make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return window.__make(blob); }; }").await;
        tab_to(&b, "[data-testid=results] [data-testid=download-jsonl]", 80).await;
        press(&b, ENTER).await;
        let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; const wait = () => window.savedBlobs.length ? window.savedBlobs[0].text().then(done) : setTimeout(wait, 50); wait();", vec![]).await.unwrap();
        let rows: Vec<serde_json::Value> =
            saved.as_str().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let samples: std::collections::BTreeSet<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
        assert_eq!(samples.len(), 20, "every evaluated sample is in the file");
        assert_eq!(rows.len(), 40, "one row per sample and scoring mode (strict and compatible)");
        assert!(rows.iter().all(|r| r["provenance"]["model"].is_string()), "{}", rows[0]);
        b.screenshot(&format!("keyboard-{label}-4-exported")).await;
    }
    b.close().await;
}

/// The Evaluate form is as the user left it after a reload: model, task, n, how many samples and
/// the scoring modes.
#[tokio::test(flavor = "multi_thread")]
async fn the_evaluate_form_survives_a_reload() {
    let (b, server) = open_app().await;
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    wait_evaluate(&b).await;
    let value_of = |css: &'static str| {
        let client = b.client.clone();
        async move {
            client
                .execute(
                    &format!(
                        "const e = document.querySelector('{css}'); return e.type === 'checkbox' ? e.checked : e.value"
                    ),
                    vec![],
                )
                .await
                .unwrap()
        }
    };
    b.client
        .find(Locator::Css("[data-testid=eval-model]"))
        .await
        .unwrap()
        .select_by_value("type-default")
        .await
        .unwrap();
    b.client.find(Locator::Css("[data-testid=eval-task]")).await.unwrap().select_by_value("input").await.unwrap();
    b.fill("[data-testid=eval-n]", "3").await;
    b.fill("[data-testid=eval-limit]", "20").await;
    b.click("[data-testid=eval-strict]").await;
    let template = value_of("[data-testid=eval-template]").await;
    assert!(
        template.as_str().is_some_and(|t| t.starts_with("input")),
        "choosing the task chose one of its templates: {template}"
    );

    b.client.refresh().await.unwrap();
    wait_evaluate(&b).await;
    assert_eq!(value_of("[data-testid=eval-model]").await, "type-default");
    assert_eq!(value_of("[data-testid=eval-task]").await, "input");
    assert_eq!(value_of("[data-testid=eval-template]").await, template);
    assert_eq!(value_of("[data-testid=eval-n]").await, "3");
    assert_eq!(value_of("[data-testid=eval-limit]").await, "20");
    assert_eq!(value_of("[data-testid=eval-strict]").await, false);
    assert_eq!(value_of("[data-testid=eval-compatible]").await, true);
    b.close().await;
}
