//! The address bar: changing the hash without a `hashchange`, so a page can keep its own state in
//! the address (the dataset list's search and filter) without being rendered again.

/// Replaces the current history entry's address with `href` (`#/…`): no new entry, no
/// `hashchange`. For changes made keystroke by keystroke.
pub fn replace(href: &str) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(href));
    }
}

/// Adds a history entry at `href` (`#/…`), without a `hashchange`: Back returns to the address
/// before (and the browser's `hashchange` on Back renders it).
pub fn push(href: &str) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(href));
    }
}
