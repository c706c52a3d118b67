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
    leptos::mount::mount_to_body(app::App);
}
