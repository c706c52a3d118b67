//! The command line's HTTP client for the run engine: reqwest on a single-threaded tokio runtime.
//! Dropping a request's future or body aborts it, as the engine expects on Stop and time-outs.
//! Redirects are not followed (the key headers would go on to wherever a server points), and no
//! error names the URL (its path or query could hold a secret): only its origin.

use execbench_providers::{Address, ErrorKind, HttpRequest, ProviderError};
use execbench_run::io::{Clock, HttpClient, HttpHead, ResponseBody};

pub struct NativeHttp {
    client: reqwest::Client,
}

impl NativeHttp {
    pub fn new() -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot start the HTTP client: {}", e.without_url()))?;
        Ok(NativeHttp { client })
    }
}

fn network(message: String) -> ProviderError {
    ProviderError { kind: ErrorKind::Network, status: None, message, retry_after_ms: None }
}

/// A reqwest error as text, without the URL it carries.
fn describe(error: reqwest::Error) -> String {
    let error = error.without_url();
    // The causes say what failed (refused, DNS, TLS); reqwest's own line only "error sending request".
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// A 3xx answer: an error naming the status and where it pointed (the origin only). Following it
/// would send the key headers (`Authorization`, `x-api-key`, `api-key`, `x-goog-api-key`) on.
fn redirect_refusal(status: reqwest::StatusCode, location: Option<&str>) -> ProviderError {
    let to = location.and_then(|l| Address::parse(l).ok()).map_or(String::new(), |a| format!(" to {}", a.origin()));
    ProviderError {
        kind: ErrorKind::BadRequest,
        status: Some(status.as_u16()),
        message: format!(
            "the server answered {status} (a redirect{to}); redirects are not followed, so the key is not sent on: set --base-url to the address that answers"
        ),
        retry_after_ms: None,
    }
}

pub struct NativeBody(reqwest::Response);

impl ResponseBody for NativeBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        match self.0.chunk().await {
            Ok(bytes) => Ok(bytes.map(|b| b.to_vec())),
            Err(e) => Err(network(format!("the connection dropped while reading the response: {}", describe(e)))),
        }
    }
}

impl HttpClient for NativeHttp {
    type Body = NativeBody;

    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<NativeBody>, ProviderError> {
        let method = reqwest::Method::from_bytes(request.method.as_bytes())
            .map_err(|e| network(format!("bad method {}: {e}", request.method)))?;
        let mut builder = self.client.request(method, &request.url).body(request.body.clone());
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let response = builder
            .send()
            .await
            .map_err(|e| network(format!("could not reach {}: {}", origin_of(&request.url), describe(e))))?;
        if response.status().is_redirection() {
            let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
            return Err(redirect_refusal(response.status(), location));
        }
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_ascii_lowercase(), v.to_str().unwrap_or("").to_string()))
            .collect();
        Ok(HttpHead { status, headers, body: NativeBody(response) })
    }
}

/// The origin of a URL, for messages (never the path or query, which could hold a key).
fn origin_of(url: &str) -> String {
    Address::parse(url).map_or_else(|_| "the server".to_string(), |a| a.origin())
}

/// tokio's clock.
pub struct TokioClock {
    origin: tokio::time::Instant,
}

impl TokioClock {
    pub fn new() -> Self {
        TokioClock { origin: tokio::time::Instant::now() }
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> f64 {
        self.origin.elapsed().as_secs_f64() * 1000.0
    }

    async fn sleep(&self, ms: u64) {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transport_error_names_the_origin_and_never_the_path_or_query() {
        // A port nobody listens on: the connection is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let request = HttpRequest {
            method: "POST".into(),
            url: format!("http://127.0.0.1:{port}/v1/chat/completions?key=SECRET-IN-QUERY"),
            headers: vec![("authorization".into(), "Bearer sk-SECRET".into())],
            body: "{}".into(),
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let error = match runtime.block_on(NativeHttp::new().unwrap().send(&request)) {
            Err(e) => e,
            Ok(head) => panic!("nothing listens, yet status {}", head.status),
        };
        assert_eq!(error.kind, ErrorKind::Network);
        assert!(error.message.starts_with(&format!("could not reach http://127.0.0.1:{port}: ")), "{}", error.message);
        for secret in ["SECRET", "?", "/v1", "chat/completions"] {
            assert!(!error.message.contains(secret), "{secret} in: {}", error.message);
        }
    }
}
