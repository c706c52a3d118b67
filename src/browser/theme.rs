//! The theme's browser side: read and keep the user's choice, and mark `<html>` with it.

use crate::browser::storage;
use crate::theme::Theme;

/// The choice kept from an earlier visit, or the system's theme.
pub fn stored() -> Theme {
    storage::get(Theme::STORAGE_KEY).map(|v| Theme::from_value(&v)).unwrap_or_default()
}

/// Keeps the choice; a browser that keeps nothing (a private window) just forgets it.
pub fn save(theme: Theme) {
    match theme {
        Theme::System => storage::remove(Theme::STORAGE_KEY),
        _ => {
            let _ = storage::set(Theme::STORAGE_KEY, theme.value());
        }
    }
}

/// Sets or clears `data-theme` on `<html>`, which the style sheets' colours follow.
pub fn apply(theme: Theme) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else {
        return;
    };
    let _ = match theme.attribute() {
        Some(value) => root.set_attribute("data-theme", value),
        None => root.remove_attribute("data-theme"),
    };
}
