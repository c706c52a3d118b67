//! Where a key goes, held against the parsers that really send: the key check's reading of an
//! address (`execbench_providers::Address`, the origin `key_use` binds a key to) against
//! headless Chromium's (`new URL()`, the parser `fetch` uses) and reqwest's (the command line's
//! client), over thousands of generated addresses (`url_cases`), and over the request URLs built
//! from each.

use crate::url_cases;

use std::collections::BTreeMap;

use execbench_providers::{Address, Endpoint, GenerationParams, Message, build_request};
use execbench_testkit::browser::Browser;
use serde_json::{Value, json};

/// (protocol, hostname, port) as Chromium reads each string, null where it throws.
const READ_IN_CHROMIUM: &str = r#"
    return arguments[0].map(s => {
        try { const u = new URL(s); return [u.protocol, u.hostname, u.port]; } catch (e) { return null; }
    });"#;

/// A reading as (scheme, host, port), the port always written.
type Origin = (String, String, u16);

fn chromium_origin(read: &Value) -> Option<Origin> {
    let parts = read.as_array()?;
    let text = |i: usize| parts.get(i).and_then(Value::as_str).unwrap_or("").to_string();
    let scheme = text(0).trim_end_matches(':').to_string();
    let port = match (text(2).as_str(), scheme.as_str()) {
        ("", "http") => 80,
        ("", "https") => 443,
        (p, _) => p.parse().ok()?,
    };
    Some((scheme, text(1), port))
}

fn ours(address: &Address) -> Origin {
    (address.scheme.clone(), address.host.clone(), address.port)
}

async fn read_in_chromium(browser: &Browser, strings: &[String]) -> Vec<Option<Origin>> {
    let read =
        browser.client.execute(READ_IN_CHROMIUM, vec![json!(strings)]).await.expect("new URL() over the strings");
    let read = read.as_array().expect("an array back").clone();
    assert_eq!(read.len(), strings.len());
    read.iter().map(chromium_origin).collect()
}

fn read_by_reqwest(client: &reqwest::Client, url: &str) -> Option<Origin> {
    let request = client.post(url).build().ok()?;
    let u = request.url();
    Some((u.scheme().to_string(), u.host_str()?.to_string(), u.port_or_known_default()?))
}

/// Every address the key check accepts is read as the same origin by Chromium, and the request
/// built from it goes, by Chromium's and reqwest's reading, to that same origin. Addresses the
/// check refuses send nothing (counted, not compared). A disagreement lists the first strings.
#[tokio::test(flavor = "multi_thread")]
async fn the_key_check_chromium_and_reqwest_read_every_address_alike() {
    let addresses = url_cases::addresses(6_000);
    assert!(addresses.len() > 15_000, "{} addresses", addresses.len());
    let browser = Browser::launch().await;
    let by_chromium = read_in_chromium(&browser, &addresses).await;
    let client = reqwest::Client::builder().build().expect("a reqwest client");
    let conversation = [Message::user("Q")];
    let mut disagreements: Vec<String> = Vec::new();
    let mut accepted = Vec::new();
    let mut refused_here_only = 0;
    for (text, chromium) in addresses.iter().zip(&by_chromium) {
        match Address::parse(text) {
            Ok(address) => {
                if chromium.as_ref() != Some(&ours(&address)) {
                    disagreements.push(format!("{text:?}: key check {:?}, Chromium {chromium:?}", ours(&address)));
                }
                accepted.push((text.clone(), address));
            }
            Err(_) => refused_here_only += usize::from(chromium.is_some()),
        }
    }
    // The request URLs: one per accepted address and wire format, built as the engine builds them.
    let mut requests = Vec::new();
    for (text, address) in &accepted {
        for provider in ["openai-compatible", "anthropic", "gemini", "azure"] {
            let endpoint = Endpoint { provider: provider.into(), base_url: text.clone(), model: "m/x".into() };
            let built = build_request(&endpoint, Some("sk-test"), &GenerationParams::default(), &conversation, 1)
                .unwrap_or_else(|e| panic!("{text:?} was accepted by the key check but not built: {e}"));
            requests.push((text.clone(), ours(address), built.http.url));
        }
    }
    let urls: Vec<String> = requests.iter().map(|(_, _, url)| url.clone()).collect();
    let request_by_chromium = read_in_chromium(&browser, &urls).await;
    for ((text, checked, url), chromium) in requests.iter().zip(&request_by_chromium) {
        let reqwest = read_by_reqwest(&client, url);
        if chromium.as_ref() != Some(checked) || reqwest.as_ref() != Some(checked) {
            disagreements.push(format!(
                "{text:?} -> request {url:?}: key check {checked:?}, Chromium {chromium:?}, reqwest {reqwest:?}"
            ));
        }
    }
    browser.close().await;
    let hosts: BTreeMap<&str, usize> = accepted.iter().fold(BTreeMap::new(), |mut m, (_, a)| {
        *m.entry(a.host.as_str()).or_default() += 1;
        m
    });
    println!(
        "{} addresses: {} accepted ({} hosts, {} request URLs), {} refused that Chromium reads",
        addresses.len(),
        accepted.len(),
        hosts.len(),
        urls.len(),
        refused_here_only
    );
    assert!(accepted.len() > 3_000 && hosts.len() > 10, "too few accepted addresses to compare: {hosts:?}");
    assert!(
        disagreements.is_empty(),
        "{} disagreements, the first:\n{}",
        disagreements.len(),
        disagreements.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}
