//! The run engine's HTTP client in a page: `fetch` with an `AbortController` (dropping the request
//! or its body aborts it, which is how Stop and time-outs cancel), bodies read chunk by chunk from
//! the response stream (Server-Sent Events arrive as they are sent).
//!
//! A request the browser refuses (CORS) rejects with the same bare `TypeError` as an unreachable
//! server. To tell the user which, a failed request is followed by a `no-cors` probe of the same
//! URL: if that gets any (opaque) response, the server is up and the browser blocked the real
//! request, so the error is `Blocked` (with the provider's fix shown by the caller).

use execbench_providers::{Address, ErrorKind, HttpRequest, ProviderError};
use execbench_run::io::{HttpClient, HttpHead, ResponseBody};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Response headers a page may read when the server exposes them (CORS), and the engine uses
/// (`x-goog-upload-url`: where Gemini's Files API takes a batch input file's bytes).
const READ_HEADERS: [&str; 5] = ["retry-after", "retry-after-ms", "content-type", "x-request-id", "x-goog-upload-url"];

pub struct FetchHttp;

thread_local! {
    static STARTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts a provider request this page starts, on `<html data-provider-requests>`. The page is
/// one thread, so the count read right after it says what it decided ("Nothing was sent", a
/// confirmation shown) is exact: tests check it there instead of waiting to see whether a late
/// request reaches the server.
fn count_started() {
    let n = STARTED.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-provider-requests", &n.to_string());
    }
}

/// Aborts the request when dropped.
struct AbortOnDrop(web_sys::AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub struct FetchBody {
    reader: Option<web_sys::ReadableStreamDefaultReader>,
    _abort: AbortOnDrop,
}

fn error(kind: ErrorKind, message: String) -> ProviderError {
    ProviderError { kind, status: None, message, retry_after_ms: None }
}

fn js_text(value: &JsValue) -> String {
    value
        .as_string()
        .or_else(|| js_sys::Reflect::get(value, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{value:?}"))
}

/// The URL's origin (scheme and host), for messages: never the path or query.
pub fn origin_of(url: &str) -> String {
    web_sys::Url::new(url).map(|u| u.origin()).unwrap_or_else(|_| "the server".to_string())
}

impl ResponseBody for FetchBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        let Some(reader) = &self.reader else { return Ok(None) };
        let result = JsFuture::from(reader.read()).await.map_err(|e| {
            error(ErrorKind::Network, format!("the connection dropped while reading the response ({})", js_text(&e)))
        })?;
        let done = js_sys::Reflect::get(&result, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true);
        if done {
            self.reader = None;
            return Ok(None);
        }
        let value = js_sys::Reflect::get(&result, &"value".into()).unwrap_or(JsValue::UNDEFINED);
        Ok(Some(js_sys::Uint8Array::new(&value).to_vec()))
    }
}

/// The browser's own reading of `url` must name the origin that the key check read with
/// [`Address::parse`]: the engine decided with one parser, and `fetch` sends with this one. The
/// requests are built from the canonical URL, on which the two agree (tests/app/e2e_keys.rs holds them
/// side by side over thousands of addresses); this is the last guard before a key leaves, so a
/// disagreement neither test nor review found is an error, never a request.
fn browser_reads_the_checked_origin(url: &str) -> Result<(), ProviderError> {
    let refuse = |why: String| {
        error(ErrorKind::BadRequest, format!("nothing was sent: {why}; use the address as the browser writes it"))
    };
    let checked =
        Address::parse(url).map_err(|e| refuse(format!("the request's address is not one a key may go to ({e})")))?;
    let browser = web_sys::Url::new(url)
        .map_err(|e| refuse(format!("the browser cannot read the request's address ({})", js_text(&e))))?;
    let port = match browser.port().as_str() {
        "" => match browser.protocol().as_str() {
            "http:" => Some(80),
            "https:" => Some(443),
            _ => None,
        },
        p => p.parse::<u16>().ok(),
    };
    let read = (browser.protocol(), browser.hostname(), port);
    if read != (format!("{}:", checked.scheme), checked.host.clone(), Some(checked.port)) {
        return Err(refuse(format!(
            "the browser reads the request's address as {}//{}:{} where the key check read {}",
            read.0,
            read.1,
            read.2.map_or("?".to_string(), |p| p.to_string()),
            checked.origin()
        )));
    }
    Ok(())
}

impl HttpClient for FetchHttp {
    type Body = FetchBody;

    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<FetchBody>, ProviderError> {
        browser_reads_the_checked_origin(&request.url)?;
        let window = web_sys::window().ok_or_else(|| error(ErrorKind::Network, "no window".into()))?;
        let controller = web_sys::AbortController::new().map_err(|e| error(ErrorKind::Network, js_text(&e)))?;
        let abort = AbortOnDrop(controller);
        let headers = web_sys::Headers::new().map_err(|e| error(ErrorKind::Network, js_text(&e)))?;
        for (name, value) in &request.headers {
            headers
                .set(name, value)
                .map_err(|e| error(ErrorKind::BadRequest, format!("header {name}: {}", js_text(&e))))?;
        }
        let init = web_sys::RequestInit::new();
        init.set_method(&request.method);
        init.set_headers(&headers);
        if !request.body.is_empty() {
            init.set_body(&JsValue::from_str(&request.body));
        }
        init.set_signal(Some(&abort.0.signal()));
        // Never send the page's cookies or referrer to a provider.
        init.set_credentials(web_sys::RequestCredentials::Omit);
        init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
        // A redirect would carry the key headers to wherever it points: it is an error instead.
        init.set_redirect(web_sys::RequestRedirect::Error);
        count_started();
        let response = match JsFuture::from(window.fetch_with_str_and_init(&request.url, &init)).await {
            Ok(r) => r.unchecked_into::<web_sys::Response>(),
            Err(e) => return Err(classify_failure(&request.url, &e).await),
        };
        let response_headers = response.headers();
        let headers = READ_HEADERS
            .iter()
            .filter_map(|name| response_headers.get(name).ok().flatten().map(|v| (name.to_string(), v)))
            .collect();
        let reader =
            response.body().map(|body| body.get_reader().unchecked_into::<web_sys::ReadableStreamDefaultReader>());
        Ok(HttpHead { status: response.status(), headers, body: FetchBody { reader, _abort: abort } })
    }
}

/// A rejected fetch: a redirect (model calls follow none), blocked by the browser (the server
/// answers a `no-cors` probe) or unreachable. The probes are GETs without the key.
async fn classify_failure(url: &str, rejection: &JsValue) -> ProviderError {
    let origin = origin_of(url);
    let Some(window) = web_sys::window() else { return error(ErrorKind::Network, js_text(rejection)) };
    let probe = async |mode: web_sys::RequestMode, redirect: web_sys::RequestRedirect| {
        let init = web_sys::RequestInit::new();
        init.set_method("GET");
        init.set_mode(mode);
        init.set_redirect(redirect);
        init.set_credentials(web_sys::RequestCredentials::Omit);
        let timer = crate::browser::clock::Sleep::new(5_000);
        let fetched = JsFuture::from(window.fetch_with_str_and_init(url, &init));
        futures::pin_mut!(timer);
        match futures::future::select(fetched, timer).await {
            futures::future::Either::Left((Ok(response), _)) => Some(response.unchecked_into::<web_sys::Response>()),
            _ => None,
        }
    };
    // A redirect is seen only by a CORS request that does not follow it (a `no-cors` one must).
    let redirected = probe(web_sys::RequestMode::Cors, web_sys::RequestRedirect::Manual)
        .await
        .is_some_and(|r| r.type_() == web_sys::ResponseType::Opaqueredirect);
    if redirected {
        return error(
            ErrorKind::BadRequest,
            format!(
                "{origin} answered with a redirect: model calls do not follow redirects (one would take the key elsewhere); use the address it redirects to as the base URL"
            ),
        );
    }
    if probe(web_sys::RequestMode::NoCors, web_sys::RequestRedirect::Follow).await.is_some() {
        error(
            ErrorKind::Blocked,
            format!(
                "the browser blocked the request to {origin}: the server answered, but did not allow this page's origin (CORS), or answered with a redirect, which model calls do not follow"
            ),
        )
    } else {
        error(ErrorKind::Network, format!("could not reach {origin} ({})", js_text(rejection)))
    }
}
