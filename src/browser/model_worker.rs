//! The in-browser model's worker (`crates/model-worker`), started the first time something asks
//! for it (the user picked "In this browser", or a stored run of that provider resumes): a first
//! visit never fetches its module. One worker per page; messages are JSON text
//! (`execbench_model_files::protocol`), each answer handed to the first caller waiting for it.
//!
//! [`stop`] terminates it (Stop during a generation: a chat cannot be interrupted inside the
//! worker); the next request starts a new one, which loads the kept files again.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use execbench_model_files::protocol::{FromWorker, ToWorker};
use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::{LocalBoxFuture, Shared};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Trunk writes the worker's shim next to index.html.
const MODEL_WORKER_URL: &str = "execbench-model-worker_loader.js";

type Answer = Result<FromWorker, String>;

struct Waiter {
    wants: Box<dyn Fn(&FromWorker) -> bool>,
    reply: oneshot::Sender<Answer>,
}

pub struct ModelWorker {
    worker: web_sys::Worker,
    waiters: RefCell<Vec<Waiter>>,
    panic: RefCell<Option<String>>,
    next_id: Cell<u64>,
    _callbacks: RefCell<Option<Callbacks>>,
}

/// The worker's message and error handlers, alive as long as it is.
type Callbacks = (Closure<dyn FnMut(web_sys::MessageEvent)>, Closure<dyn FnMut(web_sys::ErrorEvent)>);
/// Told of every download's progress: (url, received, total).
type ProgressListener = Rc<dyn Fn(&str, u64, Option<u64>)>;

type Starting = Shared<LocalBoxFuture<'static, Result<Rc<ModelWorker>, String>>>;

thread_local! {
    static CURRENT: RefCell<Option<Starting>> = const { RefCell::new(None) };
    static PROGRESS: RefCell<Option<ProgressListener>> = const { RefCell::new(None) };
}

/// Where download progress goes (the model form's progress line).
pub fn on_progress(listener: impl Fn(&str, u64, Option<u64>) + 'static) {
    PROGRESS.with(|p| *p.borrow_mut() = Some(Rc::new(listener)));
}

/// The running worker, started (and its `ready` awaited) if there is none.
pub async fn worker() -> Result<Rc<ModelWorker>, String> {
    let starting = CURRENT.with(|c| c.borrow_mut().get_or_insert_with(|| start().boxed_local().shared()).clone());
    let started = starting.await;
    if started.is_err() {
        CURRENT.with(|c| *c.borrow_mut() = None);
    }
    started
}

/// Ends the worker (and whatever it was computing); callers waiting get `why`.
pub fn stop(why: &str) {
    let current = CURRENT.with(|c| c.borrow_mut().take());
    if let Some(worker) = current.and_then(|s| s.peek().cloned()).and_then(Result::ok) {
        worker.end(why);
    }
}

/// Sends `message` and waits for the first answer `wants` accepts.
pub async fn ask(message: ToWorker, wants: impl Fn(&FromWorker) -> bool + 'static) -> Answer {
    worker().await?.ask(message, wants).await
}

/// A fresh id for a chat request.
pub async fn next_id() -> Result<u64, String> {
    let w = worker().await?;
    let id = w.next_id.get();
    w.next_id.set(id + 1);
    Ok(id)
}

async fn start() -> Result<Rc<ModelWorker>, String> {
    let worker = web_sys::Worker::new_with_options(MODEL_WORKER_URL, &web_sys::WorkerOptions::new())
        .map_err(|e| format!("could not start the in-browser model's worker ({e:?})"))?;
    let this = Rc::new(ModelWorker {
        worker,
        waiters: RefCell::new(Vec::new()),
        panic: RefCell::new(None),
        next_id: Cell::new(1),
        _callbacks: RefCell::new(None),
    });
    let ready = this.wait_for(Box::new(|m| matches!(m, FromWorker::Ready)));
    let weak = Rc::downgrade(&this);
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let Some(this) = weak.upgrade() else { return };
        let text = event.data().as_string().unwrap_or_default();
        match serde_json::from_str::<FromWorker>(&text) {
            Ok(FromWorker::Progress { url, received, total }) => {
                if let Some(listener) = PROGRESS.with(|p| p.borrow().clone()) {
                    listener(&url, received, total);
                }
            }
            // The worker dies right after; its error event fails the waiters, with this message.
            Ok(FromWorker::Panic { message }) => *this.panic.borrow_mut() = Some(message),
            Ok(message) => this.hand_over(message),
            Err(e) => this.hand_over(FromWorker::BadMessage { error: format!("unreadable answer: {e}") }),
        }
    });
    let weak = Rc::downgrade(&this);
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
        event.prevent_default();
        let Some(this) = weak.upgrade() else { return };
        let why = this.panic.borrow_mut().take().unwrap_or_else(|| event.message());
        CURRENT.with(|c| *c.borrow_mut() = None);
        this.end(&format!("the in-browser model's worker stopped ({why})"));
    });
    this.worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    this.worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    *this._callbacks.borrow_mut() = Some((on_message, on_error));
    ready.await?;
    Ok(this)
}

impl ModelWorker {
    /// Registered now, before the message goes, so an answer cannot come before its waiter.
    fn wait_for(&self, wants: Box<dyn Fn(&FromWorker) -> bool>) -> impl Future<Output = Answer> + use<> {
        let (reply, answer) = oneshot::channel();
        self.waiters.borrow_mut().push(Waiter { wants, reply });
        async move { answer.await.unwrap_or_else(|_| Err("the in-browser model's worker went away".to_string())) }
    }

    pub async fn ask(&self, message: ToWorker, wants: impl Fn(&FromWorker) -> bool + 'static) -> Answer {
        let answer = self.wait_for(Box::new(wants));
        let text = serde_json::to_string(&message).map_err(|e| e.to_string())?;
        self.worker
            .post_message(&JsValue::from_str(&text))
            .map_err(|e| format!("could not reach the in-browser model's worker ({e:?})"))?;
        answer.await
    }

    fn hand_over(&self, message: FromWorker) {
        let mut waiters = self.waiters.borrow_mut();
        if let Some(at) = waiters.iter().position(|w| (w.wants)(&message)) {
            let waiter = waiters.remove(at);
            let _ = waiter.reply.send(Ok(message));
        }
    }

    fn end(&self, why: &str) {
        self.worker.terminate();
        for waiter in self.waiters.borrow_mut().drain(..) {
            let _ = waiter.reply.send(Err(why.to_string()));
        }
    }
}
