//! The "In this browser (no key)" model's form state: which model (a catalogue entry or a custom
//! URL + SHA-256), its size, the download's progress and verdict, and the files kept in this
//! browser with their Remove buttons. The work is done by the model worker
//! (`crate::browser::model_worker`); nothing is downloaded without a click on Download.

use execbench_model_files::catalogue::{FileSpec, ModelSpec, catalogue, custom};
use execbench_model_files::download::{KeptFile, human_bytes, progress_text};
use execbench_model_files::protocol::{FromWorker, ToWorker};
use leptos::prelude::*;

use super::api_form::ApiForm;
use crate::browser::{local_http, model_worker};

/// The choice that shows the custom fields.
pub const CUSTOM: &str = "custom";

#[derive(Clone, Copy)]
pub struct LocalModelForm {
    /// A catalogue id or [`CUSTOM`].
    pub choice: RwSignal<String>,
    pub gguf_url: RwSignal<String>,
    pub gguf_sha256: RwSignal<String>,
    pub tokenizer_url: RwSignal<String>,
    pub tokenizer_sha256: RwSignal<String>,
    /// The two files' sizes, once known (catalogue or HEAD).
    pub size: RwSignal<Option<String>>,
    pub progress: RwSignal<Option<String>>,
    pub busy: RwSignal<bool>,
    /// The last action's outcome: (ok, words, its number: each outcome gets the next one, so a
    /// repeated message still reads as new).
    pub said: RwSignal<Option<(bool, String, u32)>>,
    pub kept: RwSignal<Vec<KeptFile>>,
}

impl LocalModelForm {
    /// The form, with the model the API form names when it is a kept one.
    pub fn new(api: ApiForm) -> LocalModelForm {
        let kept_models = local_http::kept_models();
        let named = api.model.get_untracked();
        let (choice, spec) = match kept_models.get(&named) {
            Some(spec) if catalogue().iter().any(|c| c.id == spec.id) => (spec.id.clone(), Some(spec.clone())),
            Some(spec) => (CUSTOM.to_string(), Some(spec.clone())),
            None => (catalogue()[0].id.clone(), None),
        };
        let field = |f: fn(&ModelSpec) -> String| RwSignal::new(spec.as_ref().map(f).unwrap_or_default());
        let form = LocalModelForm {
            choice: RwSignal::new(choice),
            gguf_url: field(|s| s.gguf.url.clone()),
            gguf_sha256: field(|s| s.gguf.sha256.clone().unwrap_or_default()),
            tokenizer_url: field(|s| s.tokenizer.as_ref().map(|t| t.url.clone()).unwrap_or_default()),
            tokenizer_sha256: field(|s| s.tokenizer.as_ref().and_then(|t| t.sha256.clone()).unwrap_or_default()),
            size: RwSignal::new(None),
            progress: RwSignal::new(None),
            busy: RwSignal::new(false),
            said: RwSignal::new(None),
            kept: RwSignal::new(Vec::new()),
        };
        form.show_known_size();
        form
    }

    /// Shows an action's outcome.
    fn say(self, ok: bool, words: String) {
        let serial = self.said.with_untracked(|s| s.as_ref().map_or(0, |s| s.2)) + 1;
        let _ = self.said.try_set(Some((ok, words, serial)));
    }

    /// The chosen model's files, checked.
    pub fn spec(self) -> Result<ModelSpec, String> {
        let choice = self.choice.get_untracked();
        if choice == CUSTOM {
            return custom(
                &self.gguf_url.get_untracked(),
                &self.gguf_sha256.get_untracked(),
                &self.tokenizer_url.get_untracked(),
                &self.tokenizer_sha256.get_untracked(),
            );
        }
        catalogue().into_iter().find(|m| m.id == choice).ok_or_else(|| format!("no model {choice:?} in the catalogue"))
    }

    pub fn pick(self, api: ApiForm, choice: String) {
        self.choice.set(choice);
        self.show_known_size();
        if let Ok(spec) = self.spec() {
            api.model.set(spec.id);
        }
    }

    /// The size from the catalogue, when it has the GGUF's (else Check size asks).
    fn show_known_size(self) {
        let size = self
            .spec()
            .ok()
            .and_then(|s| Some(describe_size(s.gguf.bytes?, s.tokenizer.as_ref().and_then(|t| t.bytes))));
        self.size.set(size);
    }

    /// Asks the server for the files' sizes (HEAD requests: nothing is downloaded).
    pub fn check_size(self) {
        let spec = match self.spec() {
            Ok(s) => s,
            Err(e) => return self.say(false, e),
        };
        self.busy.set(true);
        leptos::task::spawn_local(async move {
            let gguf = size_of(&spec.gguf).await;
            let tokenizer = match &spec.tokenizer {
                Some(file) => size_of(file).await,
                None => Ok(None),
            };
            let _ = self.busy.try_set(false);
            match gguf {
                Ok(Some(bytes)) => {
                    let _ = self.size.try_set(Some(describe_size(bytes, tokenizer.ok().flatten())));
                }
                Ok(None) => {
                    let _ = self.size.try_set(Some("the server does not say how large the file is".into()));
                }
                Err(e) => {
                    self.say(false, e);
                }
            }
        });
    }

    /// Downloads (or resumes) the files (the GGUF, and tokenizer.json when the entry has one),
    /// then loads the model to check it reads.
    pub fn download(self, api: ApiForm) {
        let spec = match self.spec() {
            Ok(s) => s,
            Err(e) => return self.say(false, e),
        };
        api.model.set(spec.id.clone());
        self.busy.set(true);
        let progress = self.progress;
        model_worker::on_progress(move |url, received, total| {
            let name = url.rsplit('/').next().unwrap_or(url);
            let _ = progress.try_set(Some(format!("Downloading {name}: {}", progress_text(received, total))));
        });
        leptos::task::spawn_local(async move {
            let outcome = download_files(&spec).await;
            let _ = self.busy.try_set(false);
            let (ok, words) = match outcome {
                Ok(words) => {
                    local_http::keep_model(&spec);
                    match local_http::load(&spec.id, None).await {
                        Ok(summary) => (true, format!("{words} The model reads: {summary}.")),
                        Err(e) => (false, format!("{words} But the model does not load: {e}")),
                    }
                }
                Err(e) => (false, e),
            };
            // A download that failed is said so; its last "Downloading …" line would read as still
            // going. One that ended keeps its 100%.
            if !ok {
                let _ = progress.try_set(None);
            }
            self.say(ok, words);
            self.refresh();
        });
    }

    /// The kept files, from the worker's store.
    pub fn refresh(self) {
        leptos::task::spawn_local(async move {
            let answer = model_worker::ask(ToWorker::List, |m| {
                matches!(m, FromWorker::Listing { .. } | FromWorker::BadMessage { .. })
            })
            .await;
            match answer {
                Ok(FromWorker::Listing { files }) => {
                    let _ = self.kept.try_set(files);
                }
                Ok(FromWorker::BadMessage { error }) | Err(error) => {
                    self.say(false, format!("the kept files cannot be listed: {error}"));
                }
                Ok(_) => {}
            }
        });
    }

    pub fn remove(self, url: String) {
        leptos::task::spawn_local(async move {
            let wanted = url.clone();
            let answer = model_worker::ask(ToWorker::Remove { url: url.clone() }, move |m| {
                matches!(m, FromWorker::Removed { url } if *url == wanted) || matches!(m, FromWorker::BadMessage { .. })
            })
            .await;
            local_http::forget_file(&url);
            if let Ok(FromWorker::BadMessage { error }) | Err(error) = answer {
                self.say(false, format!("could not remove the file: {error}"));
            }
            self.refresh();
        });
    }
}

fn describe_size(gguf: u64, tokenizer: Option<u64>) -> String {
    match tokenizer {
        Some(t) => format!("{} (weights {}, tokenizer {})", human_bytes(gguf + t), human_bytes(gguf), human_bytes(t)),
        None => format!("weights {}", human_bytes(gguf)),
    }
}

async fn size_of(file: &FileSpec) -> Result<Option<u64>, String> {
    if file.bytes.is_some() {
        return Ok(file.bytes);
    }
    let wanted = file.url.clone();
    let answer = model_worker::ask(
        ToWorker::Size { url: file.url.clone() },
        move |m| matches!(m, FromWorker::Size { url, .. } if *url == wanted),
    )
    .await?;
    let name = file.url.rsplit('/').next().unwrap_or(&file.url).to_string();
    match answer {
        FromWorker::Size { error: Some(e), .. } => Err(format!("{name}: the size could not be asked ({e})")),
        FromWorker::Size { bytes, .. } => Ok(bytes),
        other => Err(format!("unexpected answer {other:?}")),
    }
}

/// The model's files, one after the other; the words say what was checked.
async fn download_files(spec: &ModelSpec) -> Result<String, String> {
    let mut words = Vec::new();
    for file in std::iter::once(&spec.gguf).chain(&spec.tokenizer) {
        let wanted = file.url.clone();
        let answer = model_worker::ask(ToWorker::Download { file: file.clone() }, move |m| {
            matches!(m, FromWorker::Downloaded { url, .. } | FromWorker::DownloadFailed { url, .. } if *url == wanted)
        })
        .await?;
        let name = file.url.rsplit('/').next().unwrap_or(&file.url).to_string();
        match answer {
            FromWorker::Downloaded { bytes, checked, .. } => words.push(format!(
                "{name} ({}, {})",
                human_bytes(bytes),
                if checked { "SHA-256 matches" } else { "no published SHA-256 to check" }
            )),
            FromWorker::DownloadFailed { error, .. } => return Err(error),
            other => return Err(format!("unexpected answer {other:?}")),
        }
    }
    Ok(format!("Downloaded and kept in this browser: {}.", words.join(", ")))
}
