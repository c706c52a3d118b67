//! The `local` provider ("In this browser (no key)"): its requests never leave the page. The
//! chat-completions body the engine built is handed to the model worker, which answers it as a
//! server would (`execbench_localmodel::chat_api`), so sessions, records, resume, costs, Runs and
//! Compare treat it like any provider.
//!
//! Which files a model name stands for is kept in `localStorage` when the user downloads them;
//! a run also keeps its files' addresses and SHA-256 in its manifest (`ApiSettings::local_model`),
//! so a run resumed after a reload, or imported from another browser, loads the very files it was
//! made with (or says which to download), as `execbench run --resume` does with its paths.

use std::collections::BTreeMap;

use execbench_model_files::catalogue::ModelSpec;
use execbench_model_files::protocol::{FromWorker, Speed, ToWorker};
use execbench_providers::{ErrorKind, HttpRequest, ProviderError};
use execbench_run::api::LocalModelFile;
use execbench_run::io::{HttpClient, HttpHead, ResponseBody};
use leptos::prelude::*;

use super::model_worker;
use super::storage;

/// The preset's id (crates/providers/src/presets.rs).
pub const PROVIDER: &str = "local";
/// Model name → its files, for every model downloaded in this browser.
const MODELS_KEY: &str = "execbench.local-models";

pub fn kept_models() -> BTreeMap<String, ModelSpec> {
    storage::get(MODELS_KEY).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

pub fn keep_model(spec: &ModelSpec) {
    let mut models = kept_models();
    models.insert(spec.id.clone(), spec.clone());
    let _ = storage::set(MODELS_KEY, &serde_json::to_string(&models).unwrap_or_default());
}

pub fn forget_file(url: &str) {
    let mut models = kept_models();
    models.retain(|_, m| m.gguf.url != url && m.tokenizer.as_ref().is_none_or(|t| t.url != url));
    let _ = storage::set(MODELS_KEY, &serde_json::to_string(&models).unwrap_or_default());
}

fn error(kind: ErrorKind, message: String) -> ProviderError {
    ProviderError { kind, status: None, message, retry_after_ms: None }
}

/// The files a run with the in-browser model records in its manifest: those kept for `name`.
pub fn run_files(name: &str) -> Option<LocalModelFile> {
    let spec = kept_models().remove(name)?;
    Some(LocalModelFile {
        gguf: spec.gguf.url,
        gguf_bytes: spec.gguf.bytes.unwrap_or(0),
        gguf_sha256: spec.gguf.sha256.unwrap_or_default(),
        tokenizer_sha256: spec.tokenizer.as_ref().map(|t| t.sha256.clone().unwrap_or_default()),
        tokenizer: spec.tokenizer.map(|t| t.url),
    })
}

/// Why the files kept under a run's model name are not the run's, if they are not: a GGUF file
/// or a tokenizer.json of another SHA-256. A hash not known on either side is not held against
/// it, nor a kept tokenizer.json when the run used the GGUF's own (or the reverse): the run's own
/// choice is what is loaded.
fn kept_differs(run: &LocalModelFile, kept: &ModelSpec) -> Option<String> {
    let known = |a: &str, b: Option<&str>| !a.is_empty() && b.is_some_and(|b| !b.is_empty() && a != b);
    if known(&run.gguf_sha256, kept.gguf.sha256.as_deref()) {
        return Some(format!(
            "the run was made with {} (SHA-256 {}), and this browser keeps {} (SHA-256 {}) under that name",
            run.gguf,
            run.gguf_sha256,
            kept.gguf.url,
            kept.gguf.sha256.as_deref().unwrap_or_default()
        ));
    }
    let (Some(run_sha), Some(kept)) = (&run.tokenizer_sha256, &kept.tokenizer) else { return None };
    known(run_sha, kept.sha256.as_deref()).then(|| {
        format!(
            "the run was made with the tokenizer {} (SHA-256 {run_sha}), and this browser keeps {} (SHA-256 {}) under that name",
            run.tokenizer.as_deref().unwrap_or_default(),
            kept.url,
            kept.sha256.as_deref().unwrap_or_default()
        )
    })
}

/// Loads the model named `name` (free when it is the loaded one): a run's own files when it
/// recorded them (`files`: the GGUF alone when the run used its own tokenizer), else the files
/// kept under that name. A kept file of that name whose SHA-256 differs from the run's is
/// refused, naming both.
pub async fn load(name: &str, files: Option<&LocalModelFile>) -> Result<String, String> {
    let kept = kept_models().remove(name);
    if let (Some(run), Some(spec)) = (files, kept.as_ref())
        && let Some(why) = kept_differs(run, spec)
    {
        return Err(format!("{name}: {why}: download the run's files to go on"));
    }
    let (gguf, tokenizer) = match (files, kept) {
        // The run's own files; `tokenizer` is `None` when it used the GGUF file's own tokenizer
        // (as `execbench run --provider local` given the GGUF file alone).
        (Some(run), _) => (run.gguf.clone(), run.tokenizer.clone()),
        (None, Some(spec)) => (spec.gguf.url, spec.tokenizer.map(|t| t.url)),
        (None, None) => {
            return Err(format!(
                "the model {name:?} is not downloaded in this browser: choose it under Model API and click Download"
            ));
        }
    };
    let message = ToWorker::Load { gguf, tokenizer };
    match model_worker::ask(message, |m| matches!(m, FromWorker::Loaded { .. } | FromWorker::LoadFailed { .. })).await?
    {
        FromWorker::Loaded { summary, .. } => Ok(summary),
        FromWorker::LoadFailed { error } => Err(match files {
            Some(run) => {
                let tokenizer = match &run.tokenizer {
                    Some(url) => {
                        format!(" and {url} (SHA-256 {})", run.tokenizer_sha256.as_deref().unwrap_or("unknown"))
                    }
                    None => " alone (its own tokenizer)".to_string(),
                };
                format!(
                    "{name}: {error}. The run was made with {} (SHA-256 {}){tokenizer}: give them under Model API → In this browser → custom URL, and click Download",
                    run.gguf, run.gguf_sha256
                )
            }
            None => format!("{name}: {error}"),
        }),
        other => Err(format!("unexpected answer {other:?}")),
    }
}

/// The page's HTTP for the `local` provider. `speed` sums every answer's prefill and decode;
/// `files`: the run's own files, when its manifest records them.
#[derive(Clone)]
pub struct LocalHttp {
    pub speed: RwSignal<Option<Speed>>,
    pub files: Option<LocalModelFile>,
}

/// A whole answer, handed over in one chunk.
pub struct LocalBody(Option<Vec<u8>>);

impl ResponseBody for LocalBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        Ok(self.0.take())
    }
}

/// Dropped before the answer came (Stop, a time-out): the generation cannot be interrupted
/// inside the worker, so the worker goes.
struct StopOnDrop(bool);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if self.0 {
            model_worker::stop("stopped");
        }
    }
}

impl HttpClient for LocalHttp {
    type Body = LocalBody;

    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<LocalBody>, ProviderError> {
        let body: serde_json::Value = serde_json::from_str(&request.body)
            .map_err(|e| error(ErrorKind::BadRequest, format!("the request body is not JSON: {e}")))?;
        let name = body.get("model").and_then(|m| m.as_str()).unwrap_or_default().to_string();
        let mut guard = StopOnDrop(true);
        load(&name, self.files.as_ref()).await.map_err(|e| error(ErrorKind::UnknownModel, e))?;
        let id = model_worker::next_id().await.map_err(|e| error(ErrorKind::ServerError, e))?;
        let chat = ToWorker::Chat { id, body: request.body.clone() };
        let answer = model_worker::ask(chat, move |m| matches!(m, FromWorker::Reply { id: i, .. } if *i == id)).await;
        guard.0 = false;
        match answer {
            Ok(FromWorker::Reply { status, content_type, body, speed, .. }) => {
                if let Some(s) = speed {
                    self.speed.update(|total| total.get_or_insert_with(Speed::default).add(&s));
                }
                Ok(HttpHead {
                    status,
                    headers: vec![("content-type".to_string(), content_type)],
                    body: LocalBody(Some(body.into_bytes())),
                })
            }
            Ok(other) => Err(error(ErrorKind::ServerError, format!("unexpected answer {other:?}"))),
            Err(e) => Err(error(ErrorKind::Network, e)),
        }
    }
}
