//! The run engine's clock in a page: `performance.now()` and `setTimeout`. A sleep or timeout
//! that is dropped (a request that finished before its time-out) clears its timer and frees its
//! callback.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::channel::oneshot;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

pub struct BrowserClock;

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

impl execbench_run::io::Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        now_ms()
    }

    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        Sleep::new(ms)
    }
}

/// Calls `f` once after `ms`, unless dropped first: dropping it clears the timer and frees the
/// callback. The callback is owned here rather than handed to JS with `Closure::once_into_js`,
/// which frees a callback only when it is called: every cleared timer's stayed alive for good
/// (two JS functions each, one per sample of a run, as the soak found).
pub struct Timeout {
    handle: Option<i32>,
    _callback: Closure<dyn FnMut()>,
}

impl Timeout {
    pub fn new(ms: u64, f: impl FnOnce() + 'static) -> Self {
        let callback: Closure<dyn FnMut()> = Closure::once(f);
        let ms = ms.min(i32::MAX as u64) as i32;
        let handle = web_sys::window().and_then(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.as_ref().unchecked_ref(), ms).ok()
        });
        Timeout { handle, _callback: callback }
    }
}

impl Drop for Timeout {
    /// Clearing a timer that already fired does nothing. Dropping a `Timeout` from inside its own
    /// callback is safe: wasm-bindgen frees a closure only once its call has returned.
    fn drop(&mut self) {
        if let (Some(handle), Some(w)) = (self.handle, web_sys::window()) {
            w.clear_timeout_with_handle(handle);
        }
    }
}

/// Resolves after `ms`; clears its timer when dropped early.
pub struct Sleep {
    handle: Option<i32>,
    done: oneshot::Receiver<()>,
    _callback: Closure<dyn FnMut()>,
}

impl Sleep {
    pub fn new(ms: u64) -> Self {
        let (tx, rx) = oneshot::channel();
        let mut tx = Some(tx);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(tx) = tx.take() {
                let _ = tx.send(());
            }
        });
        let ms = ms.min(i32::MAX as u64) as i32;
        let handle = web_sys::window().and_then(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.as_ref().unchecked_ref(), ms).ok()
        });
        Sleep { handle, done: rx, _callback: callback }
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.handle.is_none() {
            // No window (cannot happen in a page): do not hang.
            return Poll::Ready(());
        }
        match Pin::new(&mut self.done).poll(cx) {
            Poll::Ready(_) => {
                self.handle = None;
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let (Some(handle), Some(w)) = (self.handle, web_sys::window()) {
            w.clear_timeout_with_handle(handle);
        }
    }
}
