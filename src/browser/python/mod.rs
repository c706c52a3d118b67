//! The page's side of the Python workers (the edge between the app and the engine).
//!
//! Python runs in a pool of dedicated Web Workers (`crates/python-worker`), each with its own
//! RustPython. Runs are queued and handed out in batches (`schedule.rs`): one message carries up
//! to [`schedule::MAX_BATCH`] runs, and the worker posts their results in groups, a few
//! milliseconds apart at most (a message costs more than a short run). The page keeps a
//! wall-clock deadline for the first unanswered run of each worker (its time limit plus a grace
//! period). When a deadline passes or a worker dies (a trap, running out of memory), only that
//! worker is terminated and replaced, the only hard stop a browser offers; its unanswered runs go
//! back to the front of the queue, run again one answer at a time when the culprit is not yet
//! known, so a runaway fails alone. The page never waits on Python synchronously, so it stays
//! responsive whatever the program does.
//!
//! The pool starts with one worker (Python is warm by the first click) and grows to its size
//! when runs wait in the queue. Its size is a setting (`pool_size`); a worker that fails to start
//! is reported and shrinks the pool, never retried.

mod schedule;

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use execbench_core::{Outcome, RunRequest, RunResult};
use execbench_worker_protocol::FromWorker;
use futures::channel::oneshot;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use schedule::{Batch, GiveUp, RunQueue};

use crate::browser::clock::Timeout;

/// What a worker's error says when its saved start failed (scripts/python_worker_start.js).
const SAVED_START_FAILED: &str = "Python's saved start failed";

/// Trunk writes the worker's loader next to index.html; relative, so sub-paths work.
const WORKER_URL: &str = "execbench-python-worker_loader.js";
/// Where the user's choice of pool size is kept.
const POOL_SIZE_KEY: &str = "execbench.python-workers";
/// The largest pool the setting offers.
pub const MAX_POOL: usize = 8;

/// What the header shows about the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerStatus {
    Starting,
    /// `start_ms`: from creating a worker to its engine being ready, for the latest worker;
    /// `workers` ready now out of the pool's `size`; `memory_bytes`: their WebAssembly memory.
    /// `ready_at_ms`: when the first worker became ready, from the page's navigation start.
    Ready {
        start_ms: f64,
        /// Of `start_ms`, the time the latest worker took to start its interpreter (the rest is
        /// fetching, compiling and instantiating its module).
        init_ms: f64,
        /// The latest worker began from the saved copy of a started worker's memory
        /// (`scripts/python_worker_start.js`), so `init_ms` is the time putting it back took.
        restored: bool,
        ready_at_ms: f64,
        restarts: u32,
        workers: usize,
        size: usize,
        memory_bytes: u64,
        /// Runs the workers executed and answered since the page opened (a replaced worker's
        /// unanswered runs are not among them): what Stop saves shows here.
        runs_answered: u64,
        note: Option<String>,
    },
    Failed(String),
}

/// The pool's default size: one worker fewer than the device has cores (the page's own thread
/// needs one), at least one, at most four; one where the device reports little memory.
pub fn default_pool_size(cores: usize, memory_gb: Option<f64>) -> usize {
    if memory_gb.is_some_and(|gb| gb <= 2.0) {
        return 1;
    }
    cores.saturating_sub(1).clamp(1, 4)
}

/// The pool size a stored setting asks for, when it is a number the setting offers.
pub fn stored_pool_size(text: Option<&str>) -> Option<usize> {
    text?.trim().parse::<usize>().ok().filter(|n| (1..=MAX_POOL).contains(n))
}

/// The device's cores and memory, as the browser reports them.
pub fn device() -> (usize, Option<f64>) {
    let read = |on: &JsValue, name: &str| {
        js_sys::Reflect::get(on, &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined())
    };
    let Some(navigator) = read(&js_sys::global(), "navigator") else { return (1, None) };
    let cores = read(&navigator, "hardwareConcurrency").and_then(|v| v.as_f64()).unwrap_or(1.0) as usize;
    // `deviceMemory` is Chromium's only; elsewhere it is unknown.
    let memory = read(&navigator, "deviceMemory").and_then(|v| v.as_f64());
    (cores.max(1), memory)
}

/// The pool size in effect: the user's setting, else the device's default.
pub fn pool_size() -> usize {
    stored_pool_size(crate::browser::storage::get(POOL_SIZE_KEY).as_deref()).unwrap_or_else(|| {
        let (cores, memory) = device();
        default_pool_size(cores, memory)
    })
}

/// A handle to the pool; cheap to clone. Each handle belongs to a job (`for_job`): Stop ends
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
pub const QUESTIONS_JOB: u64 = 4;
const FIRST_FREE_JOB: u64 = 16;

type ReplyTo = oneshot::Sender<RunResult>;

/// One worker of the pool.
struct Slot {
    worker: web_sys::Worker,
    /// Unique over the page's life: events of a replaced worker are recognised and ignored.
    generation: u64,
    ready: bool,
    spawned_at: f64,
    batch: Batch<ReplyTo>,
    /// The executing run's deadline timer (dropping it clears it) and when the page learnt it
    /// started.
    timer: Option<Timeout>,
    run_started: f64,
    last_panic: Option<String>,
    memory_bytes: u64,
}

#[derive(Default)]
struct Inner {
    slots: Vec<Slot>,
    queue: RunQueue<ReplyTo>,
    size: usize,
    next_generation: u64,
    next_job: u64,
    restarts: u32,
    runs_answered: u64,
    latest_start_ms: Option<f64>,
    latest_init_ms: f64,
    latest_restored: bool,
    /// A worker was started again because its saved start failed (at most once).
    saved_start_retried: bool,
    first_ready_at: Option<f64>,
    /// Why workers were given up on (they failed to start); the latest is shown.
    given_up: Vec<String>,
}

/// The Python worker index.html's inline script starts before the app's module has loaded (the
/// two then load side by side), with the events it posted until the app takes it over.
struct EarlyWorker {
    worker: web_sys::Worker,
    started_at: f64,
    held: Vec<JsValue>,
}

impl EarlyWorker {
    /// The global index.html sets; the app takes it once.
    const GLOBAL: &str = "execbenchFirstPython";

    fn take() -> Option<EarlyWorker> {
        let window = web_sys::window()?;
        let early = js_sys::Reflect::get(&window, &Self::GLOBAL.into()).ok().filter(|v| v.is_object())?;
        let _ = js_sys::Reflect::delete_property(&window, &Self::GLOBAL.into());
        let field = |name: &str| js_sys::Reflect::get(&early, &name.into()).ok();
        let worker = field("worker")?.dyn_into::<web_sys::Worker>().ok()?;
        let started_at = field("at").and_then(|at| at.as_f64()).unwrap_or_else(now);
        let held = field("held").map(|held| js_sys::Array::from(&held).to_vec()).unwrap_or_default();
        Some(EarlyWorker { worker, started_at, held })
    }
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

impl PythonWorker {
    /// Creates the pool and starts its first worker straight away, so Python is warm by the time
    /// someone clicks Run.
    pub fn start() -> Self {
        let inner = Inner { next_job: FIRST_FREE_JOB, size: pool_size(), ..Inner::default() };
        let pool =
            PythonWorker { inner: Rc::new(RefCell::new(inner)), status: RwSignal::new(WorkerStatus::Starting), job: 0 };
        pool.add_worker();
        pool.publish();
        pool
    }

    /// Runs one request; never fails: a dead or runaway worker comes back as an `Outcome`.
    pub async fn run(&self, request: RunRequest) -> RunResult {
        let (reply, answer) = oneshot::channel();
        // With no worker left because none could start, every run fails at once with the reason:
        // starting one per run would retry without end.
        let given_up = {
            let inner = self.inner.borrow();
            inner.slots.is_empty().then(|| inner.given_up.last().cloned()).flatten()
        };
        if let Some(reason) = given_up {
            return crashed(reason, 0.0);
        }
        self.inner.borrow_mut().queue.push(self.job, request, reply);
        if self.inner.borrow().slots.is_empty() {
            self.add_worker();
        }
        self.dispatch();
        answer.await.unwrap_or_else(|_| crashed("the request was dropped".to_string(), 0.0))
    }

    /// The same pool, for job `job`.
    pub fn for_job(&self, job: u64) -> PythonWorker {
        PythonWorker { job, ..self.clone() }
    }

    /// The same pool, for a job with a new id.
    pub fn new_job(&self) -> PythonWorker {
        let job = {
            let mut inner = self.inner.borrow_mut();
            inner.next_job += 1;
            inner.next_job
        };
        self.for_job(job)
    }

    /// How many runs it pays a job to have waiting at once: a worker holds up to two full
    /// batches (the one it runs and the next), and one more waits in the queue.
    pub fn runs_at_once(&self) -> usize {
        3 * schedule::MAX_BATCH * self.inner.borrow().size.max(1)
    }

    /// The pool's size now.
    pub fn size(&self) -> usize {
        self.inner.borrow().size
    }

    /// Changes the pool's size and keeps the choice for the next visit. Extra workers leave as
    /// soon as they are idle; missing ones start when runs wait.
    pub fn set_size(&self, size: usize) {
        let size = size.clamp(1, MAX_POOL);
        let _ = crate::browser::storage::set(POOL_SIZE_KEY, &size.to_string());
        self.inner.borrow_mut().size = size;
        self.dispatch();
        self.publish();
    }

    /// The Stop button of this handle's job: its queued runs end as stopped, and a worker
    /// executing one of its runs is replaced (the only way to interrupt Python). Other jobs'
    /// runs carry on, those of a replaced worker's batch first.
    pub fn stop(&self) {
        let reason = STOPPED_BY_USER.to_string();
        let mut answered = self.inner.borrow_mut().queue.remove_job(self.job);
        let mut to_replace = Vec::new();
        {
            let mut inner = self.inner.borrow_mut();
            for slot in &mut inner.slots {
                let (replies, running_mine) = slot.batch.stop_job(self.job);
                answered.extend(replies);
                if running_mine {
                    to_replace.push(slot.generation);
                }
            }
        }
        for reply in answered {
            let _ = reply.send(crashed(reason.clone(), 0.0));
        }
        for generation in to_replace {
            self.replace(generation, GiveUp::Stopped, |started| crashed(reason.clone(), now() - started));
        }
        self.dispatch();
    }

    /// Starts one more worker: the first one index.html started early if it is there to adopt.
    fn add_worker(&self) {
        let generation = {
            let mut inner = self.inner.borrow_mut();
            inner.next_generation += 1;
            inner.next_generation
        };
        let early = EarlyWorker::take();
        let spawned_at = early.as_ref().map_or_else(now, |early| early.started_at);
        let (worker, held) = match early {
            Some(early) => (Ok(early.worker), early.held),
            None => (
                web_sys::Worker::new_with_options(WORKER_URL, &web_sys::WorkerOptions::new())
                    .map_err(|e| format!("{e:?}")),
                Vec::new(),
            ),
        };
        match worker.map(|worker| self.listen(worker, generation)) {
            Ok(worker) => self.inner.borrow_mut().slots.push(Slot {
                worker,
                generation,
                ready: false,
                spawned_at,
                batch: Batch::default(),
                timer: None,
                run_started: 0.0,
                last_panic: None,
                memory_bytes: 0,
            }),
            Err(reason) => self.give_up(None, format!("could not create a Python worker: {reason}")),
        }
        // What the early worker posted before the app listened, in its order.
        for event in held {
            let event: web_sys::Event = event.unchecked_into();
            if event.type_() == "message" {
                let message: web_sys::MessageEvent = event.unchecked_into();
                self.on_message(generation, message.data().as_string().unwrap_or_default());
            } else {
                let message = event.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message());
                self.on_worker_died(generation, message.unwrap_or_else(|| "its script failed to load".to_string()));
            }
        }
    }

    /// Hands `worker`'s messages and errors to this pool as those of `generation`.
    fn listen(&self, worker: web_sys::Worker, generation: u64) -> web_sys::Worker {
        let weak = Rc::downgrade(&self.inner);
        let status = self.status;
        let on_message = {
            let weak = weak.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                if let Some(pool) = Self::from_weak(&weak, status) {
                    pool.on_message(generation, event.data().as_string().unwrap_or_default());
                }
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            if let Some(pool) = Self::from_weak(&weak, status) {
                pool.on_worker_died(generation, event.message());
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The worker owns its callbacks from now on; JS frees them with it.
        let _ = on_message.into_js_value();
        let _ = on_error.into_js_value();
        worker
    }

    fn from_weak(weak: &Weak<RefCell<Inner>>, status: RwSignal<WorkerStatus>) -> Option<PythonWorker> {
        Some(PythonWorker { inner: weak.upgrade()?, status, job: 0 })
    }

    /// The slot of a worker still in the pool; events of a replaced one find none.
    fn slot_of(&self, generation: u64) -> Option<usize> {
        self.inner.borrow().slots.iter().position(|s| s.generation == generation)
    }

    fn on_message(&self, generation: u64, text: String) {
        let Some(at) = self.slot_of(generation) else { return };
        match serde_json::from_str::<FromWorker>(&text) {
            Ok(FromWorker::Ready { memory_bytes, init_ms, restored }) => {
                {
                    let mut inner = self.inner.borrow_mut();
                    let slot = &mut inner.slots[at];
                    slot.ready = true;
                    slot.memory_bytes = memory_bytes;
                    let start_ms = now() - slot.spawned_at;
                    inner.latest_start_ms = Some(start_ms);
                    inner.latest_init_ms = init_ms;
                    inner.latest_restored = restored;
                    inner.first_ready_at.get_or_insert_with(now);
                }
                self.dispatch();
                self.publish();
            }
            Ok(FromWorker::Results { results }) => {
                let mut more = false;
                let mut any = false;
                for output in results {
                    let finished = self.inner.borrow_mut().slots[at].batch.finish(output.id);
                    let Some(finished) = finished else { continue };
                    any = true;
                    self.inner.borrow_mut().runs_answered += 1;
                    self.inner.borrow_mut().queue.pace.observe(output.result.elapsed_ms);
                    more = finished.next_limit_ms.is_some();
                    if let Some(reply) = finished.reply {
                        let _ = reply.send(output.result);
                    }
                }
                if !any {
                    return;
                }
                // One deadline per message: for the first run still unanswered, from now.
                if more {
                    self.arm_deadline(at);
                } else {
                    self.inner.borrow_mut().slots[at].timer = None;
                }
                self.dispatch();
                self.publish();
            }
            Ok(FromWorker::Idle { memory_bytes }) => {
                self.inner.borrow_mut().slots[at].memory_bytes = memory_bytes;
                self.publish();
            }
            Ok(FromWorker::Panic { message }) => self.inner.borrow_mut().slots[at].last_panic = Some(message),
            // The running program's import is downloading the standard library's rest: its
            // deadline waits for the download (which gives up by itself), then starts again.
            Ok(FromWorker::StdlibDownload { finished: false }) => self.inner.borrow_mut().slots[at].timer = None,
            Ok(FromWorker::StdlibDownload { finished: true }) => self.arm_deadline(at),
            Ok(FromWorker::BadMessage { error }) => {
                self.fail_batch(at, format!("the worker rejected a message: {error}"))
            }
            Err(e) => self.fail_batch(at, format!("unreadable message from the worker: {e}")),
        }
    }

    fn on_worker_died(&self, generation: u64, message: String) {
        let Some(at) = self.slot_of(generation) else { return };
        let (panic, was_ready) = {
            let mut inner = self.inner.borrow_mut();
            let slot = &mut inner.slots[at];
            (slot.last_panic.take(), slot.ready)
        };
        if !was_ready {
            // A worker whose saved start failed dropped it before dying, so one more boots
            // instead; once per page, so that a failure that comes back cannot loop.
            let retry = message.contains(SAVED_START_FAILED)
                && !std::mem::replace(&mut self.inner.borrow_mut().saved_start_retried, true);
            if retry {
                self.replace(generation, GiveUp::Stuck, |started| crashed(message.clone(), now() - started));
                self.dispatch();
                return;
            }
            // Dying before it was ever ready (missing file, no WebAssembly, no memory for one
            // more): starting it again would loop, so the pool gives this worker up.
            self.give_up(Some(generation), format!("a Python worker could not start: {}", panic.unwrap_or(message)));
            return;
        }
        let reason = match panic {
            Some(p) => format!("the Python engine failed ({p}); a fresh worker was started"),
            None if message.contains("unreachable") || message.to_lowercase().contains("memory") => {
                "the program ran out of memory (or hit an engine limit); a fresh worker was started".to_string()
            }
            None => format!("the Python worker stopped ({message}); a fresh worker was started"),
        };
        self.replace(generation, GiveUp::Stuck, |started| crashed(reason.clone(), now() - started));
        self.dispatch();
    }

    fn on_deadline(&self, generation: u64, id: u64) {
        let Some(at) = self.slot_of(generation) else { return };
        let limit_ms = match self.inner.borrow().slots[at].batch.running() {
            Some((running, limit_ms)) if running == id => limit_ms,
            _ => return,
        };
        self.replace(generation, GiveUp::Stuck, |started| RunResult {
            outcome: Outcome::TimedOut { limit_ms },
            stdout: String::new(),
            elapsed_ms: now() - started,
            trace: None,
        });
        self.dispatch();
    }

    /// Terminates a worker and starts a fresh one in its place: the run that caused it, when it
    /// is known, is answered with `result`; the others go back to the front of the queue.
    fn replace(&self, generation: u64, why: GiveUp, result: impl FnOnce(f64) -> RunResult) {
        let Some(at) = self.slot_of(generation) else { return };
        let (running, started) = {
            let mut inner = self.inner.borrow_mut();
            let slot = &mut inner.slots[at];
            slot.timer = None;
            slot.worker.terminate();
            let abandoned = slot.batch.abandon(why);
            let started = slot.run_started;
            let running = abandoned.culprit;
            inner.queue.put_back(abandoned.requeue, running.is_none());
            inner.slots.remove(at);
            inner.restarts += 1;
            (running, started)
        };
        if let Some(reply) = running.and_then(|r| r.reply) {
            let _ = reply.send(result(started));
        }
        self.add_worker();
        self.publish();
    }

    /// A worker that failed to start leaves the pool for good, and the pool shrinks; with no
    /// worker left, every queued run fails with the reason.
    fn give_up(&self, generation: Option<u64>, reason: String) {
        let failed = {
            let mut inner = self.inner.borrow_mut();
            let mut failed = Vec::new();
            if let Some(at) = generation.and_then(|g| inner.slots.iter().position(|s| s.generation == g)) {
                let mut slot = inner.slots.remove(at);
                slot.timer = None;
                slot.worker.terminate();
                // A worker that never started has no batch; stay correct anyway.
                let abandoned = slot.batch.abandon(GiveUp::Stuck);
                let suspects = abandoned.culprit.is_none();
                failed.extend(abandoned.culprit.and_then(|r| r.reply));
                inner.queue.put_back(abandoned.requeue, suspects);
            }
            inner.given_up.push(reason.clone());
            inner.size = inner.slots.len().max(1);
            if inner.slots.is_empty() {
                failed.extend(inner.queue.remove_all());
            }
            failed
        };
        for reply in failed {
            let _ = reply.send(crashed(reason.clone(), 0.0));
        }
        self.publish();
        self.dispatch();
    }

    /// The worker could not read its batch: every run of it fails with `reason`.
    fn fail_batch(&self, at: usize, reason: String) {
        let replies = {
            let mut inner = self.inner.borrow_mut();
            let slot = &mut inner.slots[at];
            slot.timer = None;
            slot.batch.take_all()
        };
        for reply in replies {
            let _ = reply.send(crashed(reason.clone(), 0.0));
        }
        self.dispatch();
    }

    /// Starts the deadline of the run slot `at` is executing now.
    fn arm_deadline(&self, at: usize) {
        let mut inner = self.inner.borrow_mut();
        let slot = &mut inner.slots[at];
        let (Some((id, _)), Some(deadline_ms)) = (slot.batch.running(), slot.batch.deadline_ms()) else { return };
        let weak = Rc::downgrade(&self.inner);
        let status = self.status;
        let generation = slot.generation;
        slot.run_started = now();
        slot.timer = Some(Timeout::new(deadline_ms.into(), move || {
            if let Some(pool) = Self::from_weak(&weak, status) {
                pool.on_deadline(generation, id);
            }
        }));
    }

    /// Hands batches to idle workers, lets surplus idle workers go, and grows the pool while runs
    /// wait (once the first worker has started, so extra ones do not slow the first).
    fn dispatch(&self) {
        loop {
            let sent = {
                let mut inner = self.inner.borrow_mut();
                let inner = &mut *inner;
                // Surplus workers (the size was lowered) leave when idle.
                while inner.slots.len() > inner.size {
                    let Some(at) = inner.slots.iter().rposition(|s| s.batch.is_empty()) else { break };
                    inner.slots.remove(at).worker.terminate();
                }
                if inner.queue.is_empty() {
                    break;
                }
                // Workers running low, the emptiest first.
                let refill_at = inner.queue.pace.refill_at();
                let mut idle: Vec<usize> = (0..inner.slots.len())
                    .filter(|&i| inner.slots[i].ready && inner.slots[i].batch.wants_more(refill_at))
                    .collect();
                idle.sort_by_key(|&i| inner.slots[i].batch.len());
                let Some(&at) = idle.first() else { break };
                let batch = inner.queue.take_batch(idle.len());
                if batch.is_empty() {
                    break;
                }
                let message = serde_json::to_string(&batch.message()).unwrap_or_default();
                let slot = &mut inner.slots[at];
                let was_idle = slot.batch.is_empty();
                slot.batch.append(batch);
                (at, was_idle, slot.worker.clone(), message)
            };
            let (at, was_idle, worker, message) = sent;
            // A worker still busy keeps its executing run's deadline.
            if was_idle {
                self.arm_deadline(at);
            }
            if let Err(e) = worker.post_message(&JsValue::from_str(&message)) {
                self.fail_batch(at, format!("could not send to the worker: {e:?}"));
            }
        }
        let grow = {
            let inner = self.inner.borrow();
            !inner.queue.is_empty()
                && inner.latest_start_ms.is_some()
                && inner.slots.len() < inner.size
                && inner.slots.iter().all(|s| s.ready)
        };
        if grow {
            let missing = {
                let inner = self.inner.borrow();
                inner.size - inner.slots.len()
            };
            for _ in 0..missing {
                self.add_worker();
            }
            self.publish();
        }
    }

    /// What the header shows, set only when it changed.
    fn publish(&self) {
        let next = {
            let inner = self.inner.borrow();
            let ready: Vec<&Slot> = inner.slots.iter().filter(|s| s.ready).collect();
            if inner.slots.is_empty() && !inner.given_up.is_empty() {
                WorkerStatus::Failed(inner.given_up.last().cloned().unwrap_or_default())
            } else if ready.is_empty() {
                WorkerStatus::Starting
            } else {
                WorkerStatus::Ready {
                    start_ms: inner.latest_start_ms.unwrap_or_default(),
                    init_ms: inner.latest_init_ms,
                    restored: inner.latest_restored,
                    ready_at_ms: inner.first_ready_at.unwrap_or_default(),
                    restarts: inner.restarts,
                    workers: ready.len(),
                    size: inner.size,
                    memory_bytes: ready.iter().map(|s| s.memory_bytes).sum(),
                    runs_answered: inner.runs_answered,
                    note: inner.given_up.last().cloned(),
                }
            }
        };
        if self.status.get_untracked() != next {
            self.status.set(next);
        }
    }
}

fn crashed(reason: String, elapsed_ms: f64) -> RunResult {
    RunResult { outcome: Outcome::Crashed { reason }, stdout: String::new(), elapsed_ms, trace: None }
}

/// The pool shared by every page, from context.
pub fn use_python() -> PythonWorker {
    expect_context::<StoredValue<PythonWorker, LocalStorage>>().get_value()
}

/// The run engine's Python in a page: this handle's job in the shared pool.
impl execbench_run::io::Python for PythonWorker {
    fn run(&self, request: RunRequest) -> impl std::future::Future<Output = RunResult> {
        PythonWorker::run(self, request)
    }

    fn runs_at_once(&self) -> usize {
        PythonWorker::runs_at_once(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_pool_leaves_a_core_to_the_page() {
        // (cores, device memory in GB) -> workers
        let cases = [
            (1, None, 1),
            (2, None, 1),
            (4, None, 3),
            (8, Some(8.0), 4),
            (16, None, 4),
            (8, Some(2.0), 1),
            (8, Some(0.5), 1),
        ];
        for (cores, memory, expected) in cases {
            assert_eq!(default_pool_size(cores, memory), expected, "{cores} cores, {memory:?} GB");
        }
    }

    #[test]
    fn a_stored_size_counts_only_when_the_setting_offers_it() {
        let cases = [
            (None, None),
            (Some("2"), Some(2)),
            (Some(" 8 "), Some(8)),
            (Some("0"), None),
            (Some("9"), None),
            (Some("two"), None),
        ];
        for (text, expected) in cases {
            assert_eq!(stored_pool_size(text), expected, "{text:?}");
        }
    }
}
