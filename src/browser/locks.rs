//! The Web Locks API (`navigator.locks`): a tab holds a run's lock for as long as it drives the
//! run, so two tabs never drive one run; the browser lets go when the tab closes. What a tab does
//! with a held or free lock is `execbench_run::tabs`'; this is only the call.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A lock this tab holds; dropping it lets go.
pub struct Held {
    release: Option<Function>,
}

impl Held {
    /// Where the browser has no Web Locks: each tab works alone, as before locks.
    fn unguarded() -> Held {
        Held { release: None }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            let _ = release.call0(&JsValue::UNDEFINED);
        }
    }
}

/// Takes `name` if no tab holds it: `None` when another tab (or this one) holds it.
pub async fn try_hold(name: &str) -> Option<Held> {
    request(name, Wait::No).await
}

/// Waits until `name` is free (the tab holding it lets go or closes), then holds it.
pub async fn hold(name: &str) -> Held {
    request(name, Wait::Forever).await.unwrap_or_else(Held::unguarded)
}

/// Waits at most `ms` for `name`, in the browser's queue for it (first asked, first granted),
/// then holds it: `None` when nobody let go of it by then.
pub async fn hold_within(name: &str, ms: u32) -> Option<Held> {
    request(name, Wait::Until(ms)).await
}

enum Wait {
    No,
    Forever,
    Until(u32),
}

async fn request(name: &str, wait: Wait) -> Option<Held> {
    let get = |target: &JsValue, key: &str| {
        Reflect::get(target, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
    };
    let Some(locks) = get(&js_sys::global(), "navigator").and_then(|n| get(&n, "locks")) else {
        return Some(Held::unguarded());
    };
    let Some(request) = get(&locks, "request").and_then(|f| f.dyn_into::<Function>().ok()) else {
        return Some(Held::unguarded());
    };
    // The lock is held until the promise its callback returns settles: `release` resolves it.
    let mut release_fn = None;
    let release = Promise::new(&mut |resolve, _| release_fn = Some(resolve));
    let mut granted_fn = None;
    let granted = Promise::new(&mut |resolve, _| granted_fn = Some(resolve));
    let (Some(release_fn), Some(granted_fn)) = (release_fn, granted_fn) else {
        return Some(Held::unguarded());
    };
    let refused_fn = granted_fn.clone();
    // The browser calls this at most once (with the lock, or with null when `ifAvailable` finds it
    // held), which frees it: a watched run's request waits, but is not left behind.
    let callback = Closure::once_into_js(move |lock: JsValue| -> JsValue {
        let _ = granted_fn.call1(&JsValue::UNDEFINED, &JsValue::from_bool(!lock.is_null()));
        if lock.is_null() { JsValue::UNDEFINED } else { release.into() }
    });
    let options = Object::new();
    match wait {
        Wait::No => {
            let _ = Reflect::set(&options, &JsValue::from_str("ifAvailable"), &JsValue::TRUE);
        }
        Wait::Forever => {}
        Wait::Until(ms) => {
            // Aborted while still queued, the request's promise is rejected and the callback never
            // runs: that rejection is the refusal. (Aborting after the grant changes nothing.)
            let signal = web_sys::AbortSignal::timeout_with_u32(ms);
            let _ = Reflect::set(&options, &JsValue::from_str("signal"), &signal);
        }
    }
    let asked = match request.call3(&locks, &JsValue::from_str(name), &options, &callback) {
        Ok(asked) => asked,
        Err(_) => return Some(Held::unguarded()),
    };
    // The request's own promise settles when the lock is let go (nothing waits for that), or is
    // rejected when it was never granted.
    if let Ok(asked) = asked.dyn_into::<Promise>() {
        wasm_bindgen_futures::spawn_local(async move {
            if JsFuture::from(asked).await.is_err() {
                let _ = refused_fn.call1(&JsValue::UNDEFINED, &JsValue::FALSE);
            }
        });
    }
    match JsFuture::from(granted).await.ok().and_then(|v| v.as_bool()) {
        Some(true) => Some(Held { release: Some(release_fn) }),
        Some(false) => None,
        None => Some(Held::unguarded()),
    }
}
