//! Milliseconds from a monotonic-enough clock, on every target.

#[cfg(not(target_arch = "wasm32"))]
pub fn now_ms() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[cfg(target_arch = "wasm32")]
pub fn now_ms() -> f64 {
    // `performance` exists in windows and workers alike; Date is the fallback.
    use js_sys::Reflect;
    let global = js_sys::global();
    let ms = Reflect::get(&global, &"performance".into()).ok().and_then(|perf| {
        let now = Reflect::get(&perf, &"now".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
        now.call0(&perf).ok()?.as_f64()
    });
    ms.unwrap_or_else(js_sys::Date::now)
}

#[cfg(target_arch = "wasm32")]
use js_sys::wasm_bindgen::JsCast;
