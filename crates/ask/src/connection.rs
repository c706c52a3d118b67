//! "Test connection": one tiny request, then a plain verdict (OK with the model and latency, bad
//! key, unknown model, no credits, rate limited, blocked by the browser with the fix, unreachable).

use execbench_providers::{
    ConnectionVerdict, Endpoint, ErrorKind, HttpRequest, ProviderError, connection_test_request, connection_verdict,
};
use futures::{FutureExt, select};

use crate::api::KeyRedactor;
use execbench_io::{Clock, HttpClient, read_all};

/// Sends the test request and judges the answer. `page_origin` goes into the advice for a
/// blocked request (the origin a local server must allow).
pub async fn test_connection<H: HttpClient, C: Clock>(
    http: &H,
    clock: &C,
    endpoint: &Endpoint,
    key: Option<&str>,
    timeout_ms: u64,
    page_origin: &str,
) -> ConnectionVerdict {
    let built = match connection_test_request(endpoint, key) {
        Ok(b) => b,
        Err(e) => return ConnectionVerdict::Failed(e),
    };
    let started = clock.now_ms();
    let outcome = exchange(http, clock, &built.http, timeout_ms).await;
    let latency_ms = (clock.now_ms() - started).max(0.0) as u64;
    // The verdict quotes the provider's answer: what it (or a proxy) echoed of the key is gone.
    let redactor = KeyRedactor::new(key);
    let outcome = match outcome {
        Ok((status, headers, body)) => Ok((status, headers, redactor.text(&body))),
        Err(e) => Err(redactor.error(e)),
    };
    connection_verdict(endpoint, outcome, latency_ms, page_origin)
}

/// The models the server offers (`GET {base}/models`), sorted; an error in words, the key
/// redacted from anything the server echoed.
pub async fn list_models<H: HttpClient, C: Clock>(
    http: &H,
    clock: &C,
    endpoint: &Endpoint,
    key: Option<&str>,
    timeout_ms: u64,
) -> Result<Vec<String>, String> {
    let request = execbench_providers::models_request(endpoint, key)?;
    let redactor = KeyRedactor::new(key);
    match exchange(http, clock, &request, timeout_ms).await {
        Ok((200, _, body)) => execbench_providers::parse_models(endpoint.wire(), &body),
        Ok((status, _, body)) => {
            Err(format!("the model list answered {status}: {}", shorten(&redactor.text(&body), 200)))
        }
        Err(e) => Err(redactor.error(e).message),
    }
}

fn shorten(text: &str, chars: usize) -> String {
    let mut out: String = text.chars().take(chars).collect();
    if text.chars().count() > chars {
        out.push('…');
    }
    out
}

/// One request and its whole answer (status, headers, body), or a time-out after `timeout_ms`.
async fn exchange<H: HttpClient, C: Clock>(
    http: &H,
    clock: &C,
    request: &HttpRequest,
    timeout_ms: u64,
) -> Result<(u16, Vec<(String, String)>, String), ProviderError> {
    let exchange = async {
        let mut head = http.send(request).await?;
        let body = read_all(&mut head.body).await?;
        Ok::<_, ProviderError>((head.status, head.headers, String::from_utf8_lossy(&body).into_owned()))
    }
    .fuse();
    let timeout = clock.sleep(timeout_ms).fuse();
    futures::pin_mut!(exchange, timeout);
    select! {
        r = exchange => r,
        _ = timeout => Err(ProviderError { kind: ErrorKind::Timeout, status: None, message: format!("no answer within {} s", timeout_ms / 1000), retry_after_ms: None }),
    }
}
