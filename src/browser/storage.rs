//! The browser's `localStorage`, for the few things the user asks to keep (custom templates, the
//! model settings, and an API key only when "remember on this device" is ticked). Failures (a
//! private window, storage disabled) read as "nothing stored" and writes report an error.

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

pub fn get(key: &str) -> Option<String> {
    local_storage().and_then(|s| s.get_item(key).ok().flatten())
}

pub fn set(key: &str, value: &str) -> Result<(), String> {
    let storage = local_storage().ok_or("this browser keeps no local storage here (private window?)")?;
    storage.set_item(key, value).map_err(|e| format!("could not save: {e:?}"))
}

pub fn remove(key: &str) {
    if let Some(s) = local_storage() {
        let _ = s.remove_item(key);
    }
}
