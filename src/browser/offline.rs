//! Working offline: the service worker (`scripts/service_worker.js`, built as `sw.js` by
//! `scripts/offline_build.py`) that keeps the whole build for the next visit, the update it
//! installs in the background, and whether the browser has a network at all.
//!
//! A new build never replaces the code of a running page by itself: its service worker waits
//! until [`AppUpdates::apply`] (the user's "Reload to update", offered only when no job runs)
//! asks it to take over, then the page reloads once.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{ServiceWorker, ServiceWorkerRegistration, ServiceWorkerState};

/// How often an open page asks whether a newer build was deployed (the browser also asks on
/// every visit).
const UPDATE_CHECK_MS: i32 = 30 * 60 * 1000;

/// The service worker's state, in signals.
#[derive(Clone, Copy)]
pub struct AppUpdates {
    /// A newer build is installed and waiting: reloading switches to it.
    pub ready: RwSignal<bool>,
    /// The browser says it has no network.
    pub offline: RwSignal<bool>,
    registration: StoredValue<Option<ServiceWorkerRegistration>, LocalStorage>,
    /// Set by [`AppUpdates::apply`]: the next change of controller is ours, so reload.
    asked: StoredValue<Rc<Cell<bool>>, LocalStorage>,
}

/// The message the service worker takes as "take over now".
const TAKE_OVER: &str = "execbench:update";

/// The message the service worker takes as "keep the files you would fetch on first use now".
const KEEP_THE_REST: &str = "execbench:keep-the-rest";

/// How long after its start the page asks for [`KEEP_THE_REST`]: the first screen, Python's
/// start and, on a first visit, the service worker's install come first.
const KEEP_THE_REST_AFTER_MS: u64 = 5_000;

/// `localStorage` key: `"first-use"` leaves the files a first visit does not need (the standard
/// library's rest, 0.64 MB brotli; the Parquet loader, 0.26 MB) to their first use, for a metered
/// connection; otherwise they are kept a few seconds after each visit's start, once, so that after
/// one visit every import and a Parquet file work offline too.
pub const OFFLINE_EXTRAS_KEY: &str = "execbench.offline-extras";

impl AppUpdates {
    /// Registers the service worker once the page has loaded (its install downloads the whole
    /// build, which must not compete with the first screen), and follows the network state.
    pub fn start() -> AppUpdates {
        let updates = AppUpdates {
            ready: RwSignal::new(false),
            offline: RwSignal::new(is_offline()),
            registration: StoredValue::new_local(None),
            asked: StoredValue::new_local(Rc::new(Cell::new(false))),
        };
        let _ = window_event_listener(leptos::ev::online, move |_| updates.offline.set(false));
        let _ = window_event_listener(leptos::ev::offline, move |_| updates.offline.set(true));
        let Some(window) = web_sys::window() else { return updates };
        let register = move || leptos::task::spawn_local(updates.register());
        if window.document().is_some_and(|d| d.ready_state() == "complete") {
            register();
        } else {
            let _ = window_event_listener(leptos::ev::load, move |_| register());
        }
        updates
    }

    async fn register(self) {
        let Some(window) = web_sys::window() else { return };
        let container = window.navigator().service_worker();
        // Not every context has one (a private window may refuse): the page then works online
        // as it always did.
        let Ok(registration) = wasm_bindgen_futures::JsFuture::from(container.register("sw.js")).await else {
            return;
        };
        let Ok(registration) = registration.dyn_into::<ServiceWorkerRegistration>() else { return };
        let asked = self.asked.get_value();
        let on_controller = Closure::<dyn FnMut()>::new(move || {
            // The first install takes control too (clients.claim): only a switch we asked for reloads.
            if asked.get() {
                let _ = web_sys::window().map(|w| w.location().reload());
            }
        });
        container.set_oncontrollerchange(Some(on_controller.as_ref().unchecked_ref()));
        on_controller.forget();
        if registration.waiting().is_some() && container.controller().is_some() {
            self.ready.set(true);
        }
        let updates = self;
        let on_found = Closure::<dyn FnMut()>::new(move || updates.follow_install());
        registration.set_onupdatefound(Some(on_found.as_ref().unchecked_ref()));
        on_found.forget();
        self.registration.set_value(Some(registration));
        leptos::task::spawn_local(keep_the_rest(container.clone()));
        let check = Closure::<dyn FnMut()>::new(move || updates.check());
        let _ = window
            .set_interval_with_callback_and_timeout_and_arguments_0(check.as_ref().unchecked_ref(), UPDATE_CHECK_MS);
        check.forget();
        let _ = window_event_listener(leptos::ev::visibilitychange, move |_| {
            if web_sys::window().and_then(|w| w.document()).is_some_and(|d| !d.hidden()) {
                updates.check();
            }
        });
    }

    /// A newer build is being installed: say so once it waits (a first install has nothing to
    /// replace, so it is not an update).
    fn follow_install(self) {
        let Some(installing) = self.registration.with_value(|r| r.as_ref().and_then(|r| r.installing())) else {
            return;
        };
        let worker = installing.clone();
        let on_state = Closure::<dyn FnMut()>::new(move || {
            let controlled = web_sys::window().is_some_and(|w| w.navigator().service_worker().controller().is_some());
            if worker.state() == ServiceWorkerState::Installed && controlled {
                self.ready.set(true);
            }
        });
        installing.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
        on_state.forget();
    }

    /// Asks the server whether a newer build is deployed.
    pub fn check(self) {
        self.registration.with_value(|r| {
            if let Some(r) = r {
                let _ = r.update();
            }
        });
    }

    /// Switches to the waiting build: it takes over, and the page reloads once it has.
    pub fn apply(self) {
        let waiting: Option<ServiceWorker> = self.registration.with_value(|r| r.as_ref().and_then(|r| r.waiting()));
        match waiting {
            Some(worker) => {
                self.asked.with_value(|a| a.set(true));
                let _ = worker.post_message(&TAKE_OVER.into());
            }
            None => {
                let _ = web_sys::window().map(|w| w.location().reload());
            }
        }
    }
}

/// Asks the active service worker, a while after the start, to keep what it would otherwise fetch
/// on first use (it fetches only what its cache lacks), unless the user chose first use, the
/// browser asks to save data, or there is no network.
async fn keep_the_rest(container: web_sys::ServiceWorkerContainer) {
    let Ok(ready) = container.ready() else { return };
    let Ok(registration) = wasm_bindgen_futures::JsFuture::from(ready).await else { return };
    let Ok(registration) = registration.dyn_into::<ServiceWorkerRegistration>() else { return };
    crate::browser::clock::Sleep::new(KEEP_THE_REST_AFTER_MS).await;
    let first_use_only = crate::browser::storage::get(OFFLINE_EXTRAS_KEY).as_deref() == Some("first-use");
    let decided = if first_use_only {
        "first-use"
    } else if is_offline() {
        "offline"
    } else if saves_data() {
        "saves-data"
    } else if let Some(active) = registration.active() {
        let _ = active.post_message(&KEEP_THE_REST.into());
        "asked"
    } else {
        "no-worker"
    };
    // What was decided, on `<html data-keep-the-rest>`: a test waits for it rather than for time.
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-keep-the-rest", decided);
    }
}

/// The browser asks sites to save data (`navigator.connection.saveData`, where there is one).
fn saves_data() -> bool {
    let Some(window) = web_sys::window() else { return false };
    let connection = js_sys::Reflect::get(&window.navigator(), &"connection".into()).unwrap_or_default();
    if connection.is_undefined() || connection.is_null() {
        return false;
    }
    js_sys::Reflect::get(&connection, &"saveData".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The browser knows it has no network (`navigator.onLine`; a captive portal still says online).
pub fn is_offline() -> bool {
    web_sys::window().is_some_and(|w| !w.navigator().on_line())
}

/// Refuses what needs a model API while the browser has no network, in words: no request is
/// tried, so an offline run is one clear message rather than a failure per sample.
pub fn refuse_when_offline() -> Result<(), String> {
    if is_offline() {
        Err("you are offline: a model API needs the network (Python, perturbations, the offline models, \
             Replay, Build with offline sources and Compare all work offline)"
            .to_string())
    } else {
        Ok(())
    }
}
