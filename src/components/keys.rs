//! Keys the pages share.

/// Ctrl+Enter, or Cmd+Enter on macOS: the pages' "run" key.
pub fn is_run_shortcut(ev: &leptos::ev::KeyboardEvent) -> bool {
    ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) && !ev.repeat()
}
