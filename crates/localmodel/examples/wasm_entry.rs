//! The engine behind a plain C ABI, for wasm32: the host copies the GGUF file and tokenizer.json
//! into memory from `lm_alloc`, loads them, and runs a greedy generation whose token ids and
//! first logits row it reads back. It stands in for the worker module (which will use
//! wasm-bindgen) to measure size and check the wasm build's numbers.
//!
//!     cargo build --release --target wasm32-unknown-unknown -p execbench-localmodel --example wasm_entry

use std::cell::RefCell;

use execbench_localmodel::{GenerateOptions, LocalModel, Sampling, generate};

thread_local! {
    static MODEL: RefCell<Option<LocalModel>> = const { RefCell::new(None) };
    static OUTPUT: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    static LOGITS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    static ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Memory the host writes its input into (never freed: the process is short-lived).
#[unsafe(no_mangle)]
pub extern "C" fn lm_alloc(len: usize) -> *mut u8 {
    Box::leak(vec![0u8; len].into_boxed_slice()).as_mut_ptr()
}

/// # Safety
/// `ptr..ptr + len` must be a region the host got from `lm_alloc` and filled.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

fn fail(message: String) -> i32 {
    ERROR.with(|e| *e.borrow_mut() = message);
    -1
}

/// Loads a model; 0 on success, -1 with the message at `lm_error_ptr`.
///
/// # Safety
/// Both regions come from `lm_alloc` and hold the files.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lm_load(gguf: *const u8, gguf_len: usize, tok: *const u8, tok_len: usize) -> i32 {
    // SAFETY: the caller's promise above.
    let (gguf, tok) = unsafe { (bytes(gguf, gguf_len), bytes(tok, tok_len)) };
    match LocalModel::load(gguf, tok) {
        Ok(model) => {
            MODEL.with(|m| *m.borrow_mut() = Some(model));
            0
        }
        Err(e) => fail(e.to_string()),
    }
}

/// Greedy generation of up to `max_tokens` after the prompt (u32 ids); returns how many tokens
/// were made (read them at `lm_output_ptr`) or -1. The prefill logits are kept at `lm_logits_ptr`.
///
/// # Safety
/// `prompt` points at `prompt_len` u32 ids in a region from `lm_alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lm_generate(prompt: *const u32, prompt_len: usize, max_tokens: usize) -> i32 {
    // SAFETY: the caller's promise above.
    let prompt = unsafe { std::slice::from_raw_parts(prompt, prompt_len) };
    MODEL.with(|m| {
        let mut m = m.borrow_mut();
        let Some(model) = m.as_mut() else { return fail("no model loaded".into()) };
        match model.prefill(prompt) {
            Ok(logits) => LOGITS.with(|l| *l.borrow_mut() = logits),
            Err(e) => return fail(e.to_string()),
        }
        let options = GenerateOptions { max_tokens, sampling: Sampling::Greedy, stop_texts: vec![] };
        match generate(model, prompt, &options, |_, _| true) {
            Ok(g) => {
                let n = g.tokens.len() as i32;
                OUTPUT.with(|o| *o.borrow_mut() = g.tokens);
                n
            }
            Err(e) => fail(e.to_string()),
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn lm_output_ptr() -> *const u32 {
    OUTPUT.with(|o| o.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn lm_logits_ptr() -> *const f32 {
    LOGITS.with(|l| l.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn lm_logits_len() -> usize {
    LOGITS.with(|l| l.borrow().len())
}

#[unsafe(no_mangle)]
pub extern "C" fn lm_error_ptr() -> *const u8 {
    ERROR.with(|e| e.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn lm_error_len() -> usize {
    ERROR.with(|e| e.borrow().len())
}
