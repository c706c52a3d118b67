//! The command line's HTTP client for the run engine: reqwest on a single-threaded tokio runtime.
//! Dropping a request's future or body aborts it, as the engine expects on Stop and time-outs.

use execbench_providers::{ErrorKind, HttpRequest, ProviderError};
use execbench_run::io::{Clock, HttpClient, HttpHead, ResponseBody};

pub struct NativeHttp {
    client: reqwest::Client,
}

impl NativeHttp {
    pub fn new() -> Self {
        NativeHttp { client: reqwest::Client::new() }
    }
}

fn network(message: String) -> ProviderError {
    ProviderError { kind: ErrorKind::Network, status: None, message, retry_after_ms: None }
}

pub struct NativeBody(reqwest::Response);

impl ResponseBody for NativeBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        match self.0.chunk().await {
            Ok(bytes) => Ok(bytes.map(|b| b.to_vec())),
            Err(e) => Err(network(format!("the connection dropped while reading the response: {e}"))),
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
        let response =
            builder.send().await.map_err(|e| network(format!("could not reach {}: {e}", host_of(&request.url))))?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_ascii_lowercase(), v.to_str().unwrap_or("").to_string()))
            .collect();
        Ok(HttpHead { status, headers, body: NativeBody(response) })
    }
}

/// The host of a URL, for messages (never the path or query, which could hold a key).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    rest.split(['/', '?']).next().unwrap_or(rest)
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
