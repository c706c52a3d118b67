//! The worker's message loop: one `Files` store, at most one loaded model.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use execbench_localmodel::chat_api::answer_chat;
use execbench_localmodel::{GenerateOptions, LocalModel, LocalModelError, Sampling, TokenizerSource, generate};
use execbench_model_files::protocol::{FromWorker, Speed, ToWorker};
use execbench_worker_protocol::bootstrap::Page;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, WorkerGlobalScope};

use crate::blob_reader::BlobReader;
use crate::files::{Files, size_of};

/// The files a model was loaded from: the GGUF URL and the tokenizer.json URL, if one was used
/// (`None`: the GGUF's own tokenizer).
type Source = (String, Option<String>);

/// The loaded model and the files it came from (a second `load` of the same is free).
type Loaded = Rc<RefCell<Option<(Source, LocalModel)>>>;

/// This worker's wasm memory, in bytes.
fn memory_bytes() -> u64 {
    wasm_bindgen::memory()
        .unchecked_into::<js_sys::WebAssembly::Memory>()
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as u64
}

fn now_ms() -> f64 {
    js_sys::global().unchecked_into::<WorkerGlobalScope>().performance().map(|p| p.now()).unwrap_or(0.0)
}

pub fn start() {
    let page = Page::this_worker();
    page.post_panics(|info| {
        let payload = info.payload();
        let message = execbench_core::panic_message(payload).unwrap_or_else(|| info.to_string());
        FromWorker::Panic { message }
    });
    let loaded: Loaded = Rc::new(RefCell::new(None));
    // Messages are handled one after another, in order: a `chat` sent while its `load` reads
    // the files waits for the model, and two loads never hold two models in memory.
    let queue: Rc<RefCell<VecDeque<ToWorker>>> = Rc::default();
    let busy = Rc::new(Cell::new(false));
    let reply = page.clone();
    page.on_message(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        match serde_json::from_str::<ToWorker>(&text) {
            Ok(message) => queue.borrow_mut().push_back(message),
            Err(e) => return reply.post(&FromWorker::BadMessage { error: format!("unreadable message: {e}") }),
        }
        if busy.replace(true) {
            return;
        }
        let (page, loaded, queue, busy) = (reply.clone(), loaded.clone(), queue.clone(), busy.clone());
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                let next = queue.borrow_mut().pop_front();
                let Some(message) = next else { break };
                handle(&page, &loaded, message).await;
            }
            busy.set(false);
        });
    });
    page.post(&FromWorker::Ready);
}

async fn handle(page: &Page, loaded: &Loaded, message: ToWorker) {
    match message {
        ToWorker::Size { url } => {
            let (bytes, error) = match size_of(&url).await {
                Ok(bytes) => (bytes, None),
                Err(e) => (None, Some(e)),
            };
            page.post(&FromWorker::Size { url, bytes, error });
        }
        ToWorker::Download { file } => {
            let url = file.url.clone();
            let outcome = match Files::open().await {
                Ok(files) => {
                    let progress =
                        |received, total| page.post(&FromWorker::Progress { url: url.clone(), received, total });
                    files.download(&file, &progress).await
                }
                Err(e) => Err((e, 0)),
            };
            page.post(&match outcome {
                Ok((bytes, checked)) => FromWorker::Downloaded { url, bytes, checked },
                Err((error, kept)) => FromWorker::DownloadFailed { url, error, kept },
            });
        }
        ToWorker::List => {
            let files = match Files::open().await {
                Ok(f) => f.list().await,
                Err(e) => Err(e),
            };
            page.post(&match files {
                Ok(files) => FromWorker::Listing { files },
                Err(error) => FromWorker::BadMessage { error },
            });
        }
        ToWorker::Remove { url } => {
            let removed = match Files::open().await {
                Ok(f) => f.remove(&url).await,
                Err(e) => Err(e),
            };
            if loaded
                .borrow()
                .as_ref()
                .is_some_and(|((gguf, tokenizer), _)| *gguf == url || tokenizer.as_ref() == Some(&url))
            {
                *loaded.borrow_mut() = None;
            }
            page.post(&match removed {
                Ok(()) => FromWorker::Removed { url },
                Err(error) => FromWorker::BadMessage { error },
            });
        }
        ToWorker::Load { gguf, tokenizer } => page.post(&load(loaded, (gguf, tokenizer)).await),
        ToWorker::Chat { id, body } => {
            let mut slot = loaded.borrow_mut();
            let reply = match slot.as_mut() {
                None => FromWorker::Reply {
                    id,
                    status: 503,
                    content_type: "application/json".into(),
                    body: r#"{"error":{"message":"no model is loaded in this browser yet","type":"server_error"}}"#
                        .into(),
                    speed: None,
                },
                Some((_, model)) => match answer_chat(model, body.as_bytes(), now_ms, || true) {
                    Ok(answer) => FromWorker::Reply {
                        id,
                        status: 200,
                        content_type: answer.content_type.to_string(),
                        body: String::from_utf8_lossy(&answer.body).into_owned(),
                        speed: Some(Speed {
                            prefill_tokens: answer.timings.prefill_tokens as u64,
                            reused_tokens: answer.timings.reused_tokens as u64,
                            prefill_ms: answer.timings.prefill_ms,
                            decode_tokens: answer.timings.decode_tokens as u64,
                            decode_ms: answer.timings.decode_ms,
                        }),
                    },
                    Err(e) => FromWorker::Reply {
                        id,
                        status: e.status(),
                        content_type: "application/json".into(),
                        body: String::from_utf8_lossy(&e.body()).into_owned(),
                        speed: None,
                    },
                },
            };
            drop(slot);
            page.post(&reply);
        }
        ToWorker::Time { prompt, steps } => {
            let mut slot = loaded.borrow_mut();
            let answer = match slot.as_mut() {
                None => Err("no model is loaded".to_string()),
                Some((_, model)) => time(model, &prompt, steps).map_err(|e| e.to_string()),
            };
            drop(slot);
            page.post(&match answer {
                Ok((prefill_ms, decode_ms, first_tokens)) => {
                    FromWorker::Timed { prefill_ms, decode_ms, first_tokens, error: None }
                }
                Err(e) => {
                    FromWorker::Timed { prefill_ms: 0.0, decode_ms: 0.0, first_tokens: Vec::new(), error: Some(e) }
                }
            });
        }
        ToWorker::Logits { prompt, forced } => {
            let mut slot = loaded.borrow_mut();
            let answer = match slot.as_mut() {
                None => Err("no model is loaded".to_string()),
                Some((_, model)) => logits(model, &prompt, &forced).map_err(|e| e.to_string()),
            };
            drop(slot);
            page.post(&match answer {
                Ok((rows, greedy)) => FromWorker::Logits { rows, greedy, error: None },
                Err(e) => FromWorker::Logits { rows: Vec::new(), greedy: Vec::new(), error: Some(e) },
            });
        }
    }
}

/// Prefill and greedy decode timed by the worker's clock: (prefill ms, decode ms, first tokens).
fn time(model: &mut LocalModel, prompt: &[u32], steps: u32) -> Result<(f64, f64, Vec<u32>), LocalModelError> {
    let argmax = |l: &[f32]| l.iter().enumerate().fold(0, |best, (i, &x)| if x > l[best] { i } else { best }) as u32;
    let started = now_ms();
    let mut logits = model.prefill(prompt)?;
    let prefilled = now_ms();
    let mut tokens = Vec::new();
    for _ in 0..steps {
        let next = argmax(&logits);
        tokens.push(next);
        logits = model.step(next)?;
    }
    tokens.truncate(8);
    Ok((prefilled - started, now_ms() - prefilled, tokens))
}

/// Teacher-forced logits rows and greedy tokens, as crates/localmodel/tests/localmodel/reference.rs takes them.
fn logits(
    model: &mut LocalModel,
    prompt: &[u32],
    forced: &[u32],
) -> Result<(Vec<Vec<f32>>, Vec<u32>), LocalModelError> {
    let mut rows = vec![model.prefill(prompt)?];
    for &token in forced {
        rows.push(model.step(token)?);
    }
    let options = GenerateOptions { max_tokens: forced.len(), sampling: Sampling::Greedy, stop_texts: Vec::new() };
    let greedy = generate(model, prompt, &options, |_, _| true)?.tokens;
    Ok((rows, greedy))
}

/// Loads the GGUF file with tokenizer.json when one is named, else with the GGUF's own
/// tokenizer.
async fn load(loaded: &Loaded, source: Source) -> FromWorker {
    if let Some((_, model)) = loaded.borrow().as_ref().filter(|(from, _)| *from == source) {
        return FromWorker::Loaded { summary: summary(model), load_ms: 0.0, memory_bytes: memory_bytes() };
    }
    let (gguf, tokenizer) = (source.0.as_str(), source.1.as_deref());
    let started = now_ms();
    let files = match Files::open().await {
        Ok(f) => f,
        Err(error) => return FromWorker::LoadFailed { error },
    };
    // The old model goes first: two in memory may not fit.
    *loaded.borrow_mut() = None;
    let kept = async {
        let tokenizer_bytes = match tokenizer {
            Some(url) => Some(files.read_whole(url).await?),
            None => None,
        };
        let reader = BlobReader::new(files.blob_of(gguf).await?).map_err(|e| e.to_string())?;
        Ok::<_, String>((reader, tokenizer_bytes))
    };
    let (reader, tokenizer_bytes) = match kept.await {
        Ok(b) => b,
        Err(error) => return FromWorker::LoadFailed { error },
    };
    // Buffered: the header is read in many small pieces; a tensor's read passes straight through.
    let mut reader = std::io::BufReader::with_capacity(1 << 20, reader);
    match LocalModel::read_with(&mut reader, tokenizer_bytes.as_deref()) {
        Ok(model) => {
            let summary = summary(&model);
            *loaded.borrow_mut() = Some((source, model));
            FromWorker::Loaded { summary, load_ms: now_ms() - started, memory_bytes: memory_bytes() }
        }
        Err(e) => FromWorker::LoadFailed { error: e.to_string() },
    }
}

/// What the page shows of a loaded model, ending with where its tokenizer came from.
fn summary(model: &LocalModel) -> String {
    let i = model.info();
    let tokenizer = match model.tokenizer().source() {
        TokenizerSource::Gguf { pre } => format!("the GGUF file's own tokenizer (pre-tokenizer {pre})"),
        TokenizerSource::Json => "tokenizer.json".to_string(),
    };
    format!(
        "{} layers, {} wide, {} heads ({} for keys/values), {} tokens; {tokenizer}",
        i.layers, i.hidden, i.heads, i.kv_heads, i.vocab
    )
}
