//! The execbench web app: a thin Leptos layer over the library crates. Pages read and write
//! signals; everything with rules in it lives in `crates/`.

mod app;
mod browser;
mod components;
mod jobs;
mod pages;
mod route;
mod state;
mod theme;

fn main() {
    // A panic is a bug: log it where a developer looks, then let the page carry on if it can.
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("execbench panicked: {info}").into());
    }));
    // The static shell of index.html goes as the app draws the same header in its place.
    if let Some(shell) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app-shell")) {
        shell.remove();
    }
    jobs::batch::apply_gemini_inline_override();
    leptos::mount::mount_to_body(app::App);
    // For the benchmark: when the app's own first screen is in the document (the shell paints
    // earlier).
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark("execbench-mounted");
    }
}
