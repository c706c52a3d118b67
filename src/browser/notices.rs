//! Tabs telling each other that a stored run changed: a `BroadcastChannel`, which delivers a
//! message to every other tab of the site (never back to the sender). What a message says and
//! what a tab does on hearing it are `execbench_run::tabs`' (`Notice`, `heard`); this is only
//! the call. A browser without `BroadcastChannel` gets no notices: each tab learns on its own
//! look, as before.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// An open channel and its listener (kept as long as the channel: the page's lifetime).
pub struct Notices {
    channel: JsValue,
    _listener: Closure<dyn FnMut(JsValue)>,
}

impl Notices {
    /// Opens the channel `name`, calling `on_message` with the text of each message another tab
    /// posts; `None` where the browser has no `BroadcastChannel`.
    pub fn open(name: &str, on_message: impl Fn(String) + 'static) -> Option<Notices> {
        let constructor = Reflect::get(&js_sys::global(), &JsValue::from_str("BroadcastChannel"))
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        let channel = Reflect::construct(&constructor, &Array::of1(&JsValue::from_str(name))).ok()?;
        let listener = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            if let Some(text) = Reflect::get(&event, &JsValue::from_str("data")).ok().and_then(|d| d.as_string()) {
                on_message(text);
            }
        });
        Reflect::set(&channel, &JsValue::from_str("onmessage"), listener.as_ref()).ok()?;
        Some(Notices { channel, _listener: listener })
    }

    /// Posts `message` to every other tab listening on the channel.
    pub fn post(&self, message: &str) {
        let post =
            Reflect::get(&self.channel, &JsValue::from_str("postMessage")).and_then(|f| f.dyn_into::<Function>());
        if let Ok(post) = post {
            let _ = post.call1(&self.channel, &JsValue::from_str(message));
        }
    }
}
