//! Driving the built app from the benchmark: the waits and clicks of the sections that use the
//! page, returning errors (a section reports its failure and the others still run).

use std::time::{Duration, Instant};

use execbench_testkit::browser::Browser;
use fantoccini::Locator;

/// Like `Browser::wait_text`, but an error instead of a panic, and polling every 20 ms.
pub async fn wait_text(
    b: &Browser,
    css: &str,
    timeout: Duration,
    pred: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let deadline = Instant::now() + timeout;
    let mut last = String::from("(element not found)");
    loop {
        if let Ok(el) = b.client.find(Locator::Css(css)).await
            && let Ok(text) = el.text().await
        {
            if pred(&text) {
                return Ok(text);
            }
            last = text;
        }
        if Instant::now() > deadline {
            return Err(format!("waited {timeout:?} for `{css}`; last text: {last:?}"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub async fn click(b: &Browser, css: &str) -> Result<(), String> {
    let element = b
        .client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await
        .map_err(|e| format!("no `{css}`: {e}"))?;
    element.click().await.map_err(|e| format!("cannot click `{css}`: {e}"))
}

pub async fn select(b: &Browser, css: &str, value: &str) -> Result<(), String> {
    let element = b
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .map_err(|e| format!("no `{css}`: {e}"))?;
    element.select_by_value(value).await.map_err(|e| format!("`{css}`: cannot select `{value}`: {e}"))
}

pub async fn js(b: &Browser, script: &str) -> Result<serde_json::Value, String> {
    b.client.execute(script, vec![]).await.map_err(|e| format!("script failed: {e}"))
}
