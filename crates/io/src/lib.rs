//! The edges every job talks through, and nothing else: Python, an HTTP client, a clock
//! ([`Python`], [`HttpClient`], [`Clock`]), cancellation ([`cancel`]) and the step every job's loop
//! shares ([`stoppable`]). Each trait is small so a browser, a native process and a test can each
//! supply their own: the page gives the Web Worker, `fetch` and `setTimeout`; the command line
//! gives RustPython, a native client and tokio (and [`threaded_python`], several interpreters on
//! threads). Where records are kept is `execbench-runs`' `ResultStore`.
//!
//! The futures are not required to be `Send`: a run is one future on one thread (a browser tab
//! has only one), and concurrency comes from polling many requests inside it.

pub mod cancel;
pub mod stoppable;
#[cfg(not(target_arch = "wasm32"))]
pub mod threaded_python;

pub use cancel::CancelToken;

use std::future::Future;

use execbench_core::{PythonEngine, RunRequest, RunResult};
use execbench_providers::{ErrorKind, HttpRequest, ProviderError};

/// Runs Python. Every call gets fresh globals (see `execbench_core::PythonEngine`).
pub trait Python {
    fn run(&self, request: RunRequest) -> impl Future<Output = RunResult>;

    /// How many runs a job should have waiting at once to keep this Python busy: 1 for one
    /// blocking interpreter; more for a pool (the page's workers, the CLI's threads), whose
    /// runs spread only if they are asked for together. Results never depend on it.
    fn runs_at_once(&self) -> usize {
        1
    }
}

/// A blocking engine as an asynchronous one: the run happens when the future is first polled.
/// Native callers use it; the page's worker is truly asynchronous.
pub struct BlockingPython<E: PythonEngine>(pub std::cell::RefCell<E>);

impl<E: PythonEngine> BlockingPython<E> {
    pub fn new(engine: E) -> Self {
        BlockingPython(std::cell::RefCell::new(engine))
    }
}

impl<E: PythonEngine> Python for BlockingPython<E> {
    fn run(&self, request: RunRequest) -> impl Future<Output = RunResult> {
        let result = self.0.borrow_mut().run(&request);
        std::future::ready(result)
    }
}

/// Status and the headers a client may read (in a browser only the CORS-exposed ones), then the
/// body as it arrives. Names are lower case.
pub struct HttpHead<B> {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: B,
}

/// A response body read chunk by chunk (a stream's events arrive as they are sent).
pub trait ResponseBody {
    /// The next bytes, `None` at the end. A connection that drops is an error of kind `Network`.
    fn chunk(&mut self) -> impl Future<Output = Result<Option<Vec<u8>>, ProviderError>>;
}

/// Sends HTTP requests. Dropping the returned future (or the body) must abort the request: that is
/// how Stop and time-outs cancel what is in flight.
pub trait HttpClient {
    type Body: ResponseBody;
    /// Resolves when status and headers are in. Transport failures are `ProviderError`s of kind
    /// `Network` or `Blocked` (a browser refusing a cross-origin request).
    fn send(&self, request: &HttpRequest) -> impl Future<Output = Result<HttpHead<Self::Body>, ProviderError>>;
}

/// Reads a whole body.
pub async fn read_all<B: ResponseBody>(body: &mut B) -> Result<Vec<u8>, ProviderError> {
    let mut all = Vec::new();
    while let Some(chunk) = body.chunk().await? {
        all.extend_from_slice(&chunk);
    }
    Ok(all)
}

/// Time, for back-off waits, time-outs, the delay between requests and progress.
pub trait Clock {
    /// Milliseconds since some fixed point (monotonic).
    fn now_ms(&self) -> f64;
    fn sleep(&self, ms: u64) -> impl Future<Output = ()>;
}

/// An HTTP client for callers that have none: every request fails at once.
pub struct NoHttp;

pub struct NoBody;

impl ResponseBody for NoBody {
    fn chunk(&mut self) -> impl Future<Output = Result<Option<Vec<u8>>, ProviderError>> {
        std::future::ready(Ok(None))
    }
}

impl HttpClient for NoHttp {
    type Body = NoBody;
    fn send(&self, _: &HttpRequest) -> impl Future<Output = Result<HttpHead<NoBody>, ProviderError>> {
        std::future::ready(Err(ProviderError {
            kind: ErrorKind::Network,
            status: None,
            message: "no HTTP client in this context".into(),
            retry_after_ms: None,
        }))
    }
}
