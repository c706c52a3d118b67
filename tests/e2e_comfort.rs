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
    assert!(page_width <= view_width && page_width <= 420, "the {page} page is {page_width} px wide in a {view_width} px view");
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
    for page in ["Datasets", "Playground", "Verify dataset", "Perturb", "Evaluate", "Runs"] {
        assert!(docs.contains(page), "{page} missing from the guide: {docs}");
    }
    let icon = js(&b, "const l = document.querySelector('link[rel=icon]'); return l ? l.href : ''").await;
    assert!(icon.as_str().unwrap_or_default().ends_with("favicon.svg"), "{icon}");
    b.screenshot("home").await;

    for (start, arrived) in [("home-start-datasets", "#/datasets"), ("home-start-perturb", "#/perturb"), ("home-start-evaluate", "#/evaluate")] {
        b.client.goto(base).await.unwrap();
        b.click(&format!("[data-testid={start}]")).await;
        let url = b.client.current_url().await.unwrap();
        assert_eq!(url.fragment().map(|f| format!("#{f}")).as_deref(), Some(arrived), "{start}");
        match arrived {
            "#/datasets" => wait_datasets(&b).await,
            "#/perturb" => drop(b.wait_text("[data-testid=perturb-empty]", Duration::from_secs(20), |t| t.contains("Pick a sample")).await),
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
    assert_eq!(js(&b, "return document.querySelector('[data-testid=menu-button]').getAttribute('aria-expanded')").await, "true");
    b.screenshot("datasets-420-menu").await;

    // Following a link goes there and folds the menu again.
    b.click("[data-testid=site-nav] a[href='#/evaluate']").await;
    wait_evaluate(&b).await;
    assert!(!is_displayed(&b, "[data-testid=site-nav]").await, "the menu stayed open after navigating");
    assert_no_sideways_scroll(&b, "evaluate").await;
    b.screenshot("evaluate-420").await;
    b.close().await;
}
