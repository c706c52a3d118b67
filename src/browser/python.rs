//! The page's side of the Python worker (the edge between the app and the engine).
//!
//! Python runs in a dedicated Web Worker (`crates/worker`). Requests are queued and sent one at a
//! time. Every request has a wall-clock deadline (its time limit plus a grace period for the
//! message round trip); when it passes, or the worker dies (a trap, running out of memory), the
//! worker is terminated and a fresh one is started: the only hard stop a browser offers. The page
//! never waits on Python synchronously, so it stays responsive whatever the program does.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use execbench_core::{Outcome, RunRequest, RunResult};
use futures::channel::oneshot;
use leptos::prelude::*;
use execbench_worker_protocol::{FromWorker, ToWorker};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Trunk writes the worker's loader next to index.html; relative, so sub-paths work.
const WORKER_URL: &str = "execbench-worker_loader.js";
/// Added to each run's time limit before the page gives up on the worker.
const GRACE_MS: u32 = 500;

/// What the header shows about the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerStatus {
    Starting,
    /// `start_ms`: from creating the worker to its engine being ready, for the latest worker.
    Ready { start_ms: f64, restarts: u32 },
    Failed(String),
}

/// A handle to the worker; cheap to clone. Each handle belongs to a job (`for_job`): Stop ends
/// that job's runs only, so stopping one page's work never fails another page's queued runs.
#[derive(Clone)]
pub struct PythonWorker {
    inner: Rc<RefCell<Inner>>,
    pub status: RwSignal<WorkerStatus>,
    job: u64,
}

/// Jobs with a fixed id: one per page that runs long jobs. Evaluate runs get fresh ids.
/// The reason a run ended by Stop gives (shown as "stopped", not as an engine failure).
pub const STOPPED_BY_USER: &str = "stopped by the user";
pub const VERIFY_JOB: u64 = 1;
pub const PERTURB_JOB: u64 = 2;
pub const BUILD_JOB: u64 = 3;
const FIRST_FREE_JOB: u64 = 16;

struct Queued {
    job: u64,
    request: RunRequest,
    reply: oneshot::Sender<RunResult>,
}

struct Pending {
    job: u64,
    id: u64,
    reply: oneshot::Sender<RunResult>,
    timer: i32,
    started: f64,
    limit_ms: u32,
}

#[derive(Default)]
struct Inner {
    worker: Option<web_sys::Worker>,
    generation: u64,
    ready: bool,
    spawned_at: f64,
    queue: VecDeque<Queued>,
    next_job: u64,
    pending: Option<Pending>,
    next_id: u64,
    last_panic: Option<String>,
    restarts: u32,
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

impl PythonWorker {
    /// Creates the handle and starts the first worker straight away, so Python is warm by the
    /// time someone clicks Run.
    pub fn start() -> Self {
        let inner = Inner { next_job: FIRST_FREE_JOB, ..Inner::default() };
        let worker = PythonWorker { inner: Rc::new(RefCell::new(inner)), status: RwSignal::new(WorkerStatus::Starting), job: 0 };
        worker.spawn();
        worker
    }

    /// Runs one request; never fails: a dead or runaway worker comes back as an `Outcome`.
    pub async fn run(&self, request: RunRequest) -> RunResult {
        let (reply, answer) = oneshot::channel();
        self.inner.borrow_mut().queue.push_back(Queued { job: self.job, request, reply });
        if self.inner.borrow().worker.is_none() {
            self.spawn();
        }
        self.dispatch();
        answer.await.unwrap_or_else(|_| crashed("the request was dropped".to_string(), 0.0))
    }

    /// The same worker, for job `job`.
    pub fn for_job(&self, job: u64) -> PythonWorker {
        PythonWorker { job, ..self.clone() }
    }

    /// The same worker, for a job with a new id.
    pub fn new_job(&self) -> PythonWorker {
        let job = {
            let mut inner = self.inner.borrow_mut();
            inner.next_job += 1;
            inner.next_job
        };
        self.for_job(job)
    }

    /// The Stop button of this handle's job: its queued runs end as stopped, and when the run in
    /// the worker is its own, the worker is replaced (the only way to interrupt Python). Other
    /// jobs' queued runs carry on in the fresh worker.
    pub fn stop(&self) {
        let reason = STOPPED_BY_USER.to_string();
        let queued: Vec<Queued> = {
            let mut inner = self.inner.borrow_mut();
            let (mine, others): (VecDeque<Queued>, VecDeque<Queued>) = inner.queue.drain(..).partition(|q| q.job == self.job);
            inner.queue = others;
            mine.into_iter().collect()
        };
        for q in queued {
            let _ = q.reply.send(crashed(reason.clone(), 0.0));
        }
        let running_mine = self.inner.borrow().pending.as_ref().is_some_and(|p| p.job == self.job);
        if running_mine {
            self.restart(reason, false);
        }
    }

    fn spawn(&self) {
        let options = web_sys::WorkerOptions::new();
        let worker = match web_sys::Worker::new_with_options(WORKER_URL, &options) {
            Ok(w) => w,
            Err(e) => {
                self.status.set(WorkerStatus::Failed(format!("could not create the Python worker: {e:?}")));
                return;
            }
        };
        let generation = {
            let mut inner = self.inner.borrow_mut();
            inner.generation += 1;
            inner.ready = false;
            inner.spawned_at = now();
            inner.generation
        };
        self.status.set(WorkerStatus::Starting);
        let weak = Rc::downgrade(&self.inner);
        let status = self.status;
        let on_message = {
            let weak = weak.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                if let Some(handle) = Self::from_weak(&weak, status, generation) {
                    handle.on_message(event.data().as_string().unwrap_or_default());
                }
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            if let Some(handle) = Self::from_weak(&weak, status, generation) {
                handle.on_worker_died(event.message());
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The worker owns its callbacks from now on; JS frees them with it.
        let _ = on_message.into_js_value();
        let _ = on_error.into_js_value();
        self.inner.borrow_mut().worker = Some(worker);
    }

    /// Events from a worker that has since been replaced are ignored.
    fn from_weak(weak: &Weak<RefCell<Inner>>, status: RwSignal<WorkerStatus>, generation: u64) -> Option<PythonWorker> {
        let inner = weak.upgrade()?;
        if inner.borrow().generation != generation {
            return None;
        }
        Some(PythonWorker { inner, status, job: 0 })
    }

    fn on_message(&self, text: String) {
        match serde_json::from_str::<FromWorker>(&text) {
            Ok(FromWorker::Ready { .. }) => {
                let (start_ms, restarts) = {
                    let mut inner = self.inner.borrow_mut();
                    inner.ready = true;
                    (now() - inner.spawned_at, inner.restarts)
                };
                self.status.set(WorkerStatus::Ready { start_ms, restarts });
                self.dispatch();
            }
            Ok(FromWorker::Result { id, result }) => {
                let pending = self.inner.borrow_mut().pending.take_if(|p| p.id == id);
                if let Some(p) = pending {
                    clear_timer(p.timer);
                    let _ = p.reply.send(result);
                }
                self.dispatch();
            }
            Ok(FromWorker::Panic { message }) => self.inner.borrow_mut().last_panic = Some(message),
            Ok(FromWorker::BadMessage { error }) => self.finish_pending(|p| crashed(format!("the worker rejected a message: {error}"), now() - p.started)),
            Err(e) => self.finish_pending(|p| crashed(format!("unreadable message from the worker: {e}"), now() - p.started)),
        }
    }

    fn on_worker_died(&self, message: String) {
        let (panic, was_ready) = {
            let mut inner = self.inner.borrow_mut();
            (inner.last_panic.take(), inner.ready)
        };
        if !was_ready {
            // Dying before it was ever ready (missing file, no WebAssembly): restarting would loop.
            let reason = format!("the Python worker could not start: {}", panic.unwrap_or(message));
            self.terminate();
            self.fail_all(&reason);
            self.status.set(WorkerStatus::Failed(reason));
            return;
        }
        let reason = match panic {
            Some(p) => format!("the Python engine failed ({p}); a fresh worker was started"),
            None if message.contains("unreachable") || message.to_lowercase().contains("memory") => {
                "the program ran out of memory (or hit an engine limit); a fresh worker was started".to_string()
            }
            None => format!("the Python worker stopped ({message}); a fresh worker was started"),
        };
        self.restart(reason, false);
    }

    fn on_deadline(&self, id: u64) {
        let is_current = self.inner.borrow().pending.as_ref().is_some_and(|p| p.id == id);
        if !is_current {
            return;
        }
        let pending = self.inner.borrow_mut().pending.take();
        if let Some(p) = pending {
            let _ = p.reply.send(RunResult { outcome: Outcome::TimedOut { limit_ms: p.limit_ms }, stdout: String::new(), elapsed_ms: now() - p.started });
        }
        self.terminate();
        self.inner.borrow_mut().restarts += 1;
        self.spawn();
        self.dispatch();
    }

    fn restart(&self, reason: String, drop_queue: bool) {
        self.finish_pending(|p| crashed(reason.clone(), now() - p.started));
        if drop_queue {
            self.fail_all(&reason);
        }
        self.terminate();
        self.inner.borrow_mut().restarts += 1;
        self.spawn();
        self.dispatch();
    }

    fn terminate(&self) {
        let worker = self.inner.borrow_mut().worker.take();
        if let Some(w) = worker {
            w.terminate();
        }
        let mut inner = self.inner.borrow_mut();
        inner.ready = false;
        inner.generation += 1;
    }

    fn finish_pending(&self, result: impl FnOnce(&Pending) -> RunResult) {
        let pending = self.inner.borrow_mut().pending.take();
        if let Some(p) = pending {
            clear_timer(p.timer);
            let r = result(&p);
            let _ = p.reply.send(r);
        }
    }

    fn fail_all(&self, reason: &str) {
        self.finish_pending(|p| crashed(reason.to_string(), now() - p.started));
        let queued: Vec<_> = self.inner.borrow_mut().queue.drain(..).collect();
        for q in queued {
            let _ = q.reply.send(crashed(reason.to_string(), 0.0));
        }
    }

    /// Sends the next queued request when the worker is ready and idle.
    fn dispatch(&self) {
        let mut inner = self.inner.borrow_mut();
        if !inner.ready || inner.pending.is_some() {
            return;
        }
        let Some(Queued { job, request, reply }) = inner.queue.pop_front() else { return };
        let Some(worker) = inner.worker.clone() else { return };
        inner.next_id += 1;
        let id = inner.next_id;
        let limit_ms = request.limits.time_ms;
        let message = serde_json::to_string(&ToWorker { id, request }).unwrap_or_default();
        let weak = Rc::downgrade(&self.inner);
        let status = self.status;
        let generation = inner.generation;
        let timer = set_timer(limit_ms.saturating_add(GRACE_MS), move || {
            if let Some(handle) = Self::from_weak(&weak, status, generation) {
                handle.on_deadline(id);
            }
        });
        inner.pending = Some(Pending { job, id, reply, timer, started: now(), limit_ms });
        drop(inner);
        if let Err(e) = worker.post_message(&JsValue::from_str(&message)) {
            self.finish_pending(|p| crashed(format!("could not send to the worker: {e:?}"), now() - p.started));
        }
    }
}

fn crashed(reason: String, elapsed_ms: f64) -> RunResult {
    RunResult { outcome: Outcome::Crashed { reason }, stdout: String::new(), elapsed_ms }
}

fn set_timer(ms: u32, f: impl FnOnce() + 'static) -> i32 {
    let callback = Closure::once_into_js(f);
    web_sys::window()
        .and_then(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), ms.min(i32::MAX as u32) as i32).ok())
        .unwrap_or(0)
}

fn clear_timer(handle: i32) {
    if let Some(w) = web_sys::window() {
        w.clear_timeout_with_handle(handle);
    }
}

/// The worker shared by every page, from context.
pub fn use_python() -> PythonWorker {
    expect_context::<StoredValue<PythonWorker, LocalStorage>>().get_value()
}

/// The run engine's Python in a page: this handle's job in the shared worker.
impl execbench_run::io::Python for PythonWorker {
    fn run(&self, request: RunRequest) -> impl std::future::Future<Output = RunResult> {
        PythonWorker::run(self, request)
    }
}
