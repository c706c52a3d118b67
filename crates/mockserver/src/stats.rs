//! What the server has seen.

use std::collections::{BTreeMap, HashMap};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::answer::Task;

/// How many requests the log in [`Stats::recent`] keeps (the latest).
pub const RECENT_LIMIT: usize = 200;

/// Counters since the start or the last reset. "Model requests" are the POSTs to the three APIs;
/// preflights, model lists and the `/_mock/` endpoints are not.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Model requests, including refused ones (401, 404, 400).
    pub requests_total: u64,
    /// Model requests (that passed the key, body and model checks) per identified sample id.
    pub per_sample: BTreeMap<String, u32>,
    /// The most model requests in flight at once, each from its arrival to the end of its
    /// response body (streams included).
    pub max_concurrency: u32,
    /// Model requests in flight now.
    pub in_flight: u32,
    /// Model requests whose handling or response body was dropped before it finished (the
    /// client went away).
    pub cancelled: u64,
    /// Model requests whose prompt matched no sample (and was no connection test).
    pub unidentified: u64,
    /// Connection tests answered (prompts containing "Reply with the word OK").
    pub connection_tests: u64,
    /// Model requests a fault rule applied to (`Hang` included).
    pub faults_served: u64,
    /// `OPTIONS` requests.
    pub preflights: u64,
    /// Calls to the batch services, by what they did (`upload`, `create`, `status`, `cancel`,
    /// `results`): how few requests a batch run takes.
    #[serde(default)]
    pub batch_calls: BTreeMap<String, u64>,
    /// The latest model requests, oldest first, at most [`RECENT_LIMIT`].
    pub recent: Vec<RequestRecord>,
}

/// One model request as the server saw it: what the client sent and what it got.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// `openai`, `anthropic` or `gemini`.
    pub format: String,
    pub path: String,
    pub model: String,
    pub sample_id: Option<String>,
    pub task: Option<Task>,
    /// The attempt number the fault rules saw (0 when the request was refused before).
    pub attempt: u32,
    pub n: u32,
    pub stream: bool,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub status: u16,
    /// The fault served, by its JSON name (`rate_limit`, `stream_cut`, ...).
    pub fault: Option<String>,
    /// Whether the answer was the right one (None: no sample, or no answer was given).
    pub right: Option<bool>,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub stats: Stats,
    /// Attempts per key (a sample id, or the shared keys of unidentified prompts and connection
    /// tests), for the fault rules.
    pub attempts: HashMap<String, u32>,
}

impl Counters {
    pub fn reset(&mut self) {
        let in_flight = self.stats.in_flight;
        self.stats = Stats { in_flight, max_concurrency: in_flight, ..Stats::default() };
        self.attempts.clear();
    }

    pub fn record(&mut self, record: RequestRecord) {
        let recent = &mut self.stats.recent;
        if recent.len() >= RECENT_LIMIT {
            recent.remove(0);
        }
        recent.push(record);
    }
}

#[derive(Debug, Default)]
pub(crate) struct SharedCounters(Mutex<Counters>);

impl SharedCounters {
    pub fn lock(&self) -> MutexGuard<'_, Counters> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Counts one model request in flight from its creation to its drop; a drop before
/// [`FlightGuard::finish`] counts as cancelled.
#[derive(Debug)]
pub(crate) struct FlightGuard {
    counters: Arc<SharedCounters>,
    finished: bool,
}

impl FlightGuard {
    pub fn new(counters: Arc<SharedCounters>) -> FlightGuard {
        {
            let mut c = counters.lock();
            c.stats.requests_total += 1;
            c.stats.in_flight += 1;
            c.stats.max_concurrency = c.stats.max_concurrency.max(c.stats.in_flight);
        }
        FlightGuard { counters, finished: false }
    }

    pub fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for FlightGuard {
    fn drop(&mut self) {
        let mut c = self.counters.lock();
        c.stats.in_flight = c.stats.in_flight.saturating_sub(1);
        if !self.finished {
            c.stats.cancelled += 1;
        }
    }
}

/// A response body that holds its request's [`FlightGuard`] until the body has been given out
/// whole (finished) or dropped (cancelled).
pub(crate) struct TrackedBody {
    inner: Body,
    guard: Option<FlightGuard>,
}

impl TrackedBody {
    pub fn new(inner: Body, guard: FlightGuard) -> TrackedBody {
        TrackedBody { inner, guard: Some(guard) }
    }

    fn finish(&mut self) {
        if let Some(mut guard) = self.guard.take() {
            guard.finish();
        }
    }
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(None) => self.finish(),
            Poll::Ready(Some(Ok(_))) if self.inner.is_end_stream() => self.finish(),
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for TrackedBody {
    fn drop(&mut self) {
        if http_body::Body::is_end_stream(&self.inner) {
            self.finish();
        }
    }
}
