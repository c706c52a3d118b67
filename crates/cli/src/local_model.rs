//! `execbench run --provider local`: a GGUF model run in this process by `execbench-localmodel`.
//! The run engine builds its usual OpenAI chat request; [`LocalModelHttp`] answers it with
//! `chat_api` on a blocking thread instead of sending it, so sessions, records, resume, costs and
//! compare are those of any provider. The model is loaded once per run. No key is involved and
//! nothing leaves the machine (the preset's address is in `.invalid`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use execbench_localmodel::chat_api::{DEFAULT_SEED, answer_chat, read_timings};
use execbench_localmodel::{LocalModel, Timings};
use execbench_providers::{ErrorKind, HttpRequest, ProviderError};
use execbench_run::api::LocalModelFile;
use execbench_run::io::{HttpClient, HttpHead, ResponseBody};
use sha2::{Digest, Sha256};

use crate::http::{NativeBody, NativeHttp};

/// Candle's thread pool spins while it waits for work, so on a machine also busy with the Python
/// workers more threads are slower (crates/localmodel/README.md). One thread unless the user set
/// `CANDLE_NUM_THREADS` or `RAYON_NUM_THREADS`.
const DEFAULT_THREADS: &str = "1";

/// Sets candle's thread count before its pool exists. Call before any other thread starts.
pub fn set_thread_count() {
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() && std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // SAFETY: called on the main thread before the runtime, the Python workers or candle's
        // pool start: no other thread reads the environment meanwhile.
        unsafe {
            std::env::set_var("CANDLE_NUM_THREADS", DEFAULT_THREADS);
            std::env::set_var("RAYON_NUM_THREADS", DEFAULT_THREADS);
        }
    }
}

/// The files as read now: their description for the manifest and their bytes for loading.
pub struct ModelFiles {
    pub description: LocalModelFile,
    gguf: Vec<u8>,
    /// tokenizer.json when one was given; else the GGUF file's own tokenizer is used.
    tokenizer: Option<Vec<u8>>,
}

fn read(path: &str, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read the {what} {path}: {e}"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads and fingerprints the GGUF file and, when given, tokenizer.json (without one, the GGUF
/// file's own tokenizer is used, and the manifest says so with no tokenizer file).
pub fn read_model_files(gguf: &str, tokenizer: Option<&str>) -> Result<ModelFiles, String> {
    let gguf_bytes = read(gguf, "model file")?;
    let tokenizer_bytes = tokenizer.map(|t| read(t, "tokenizer")).transpose()?;
    let description = LocalModelFile {
        gguf: gguf.to_string(),
        gguf_bytes: gguf_bytes.len() as u64,
        gguf_sha256: sha256_hex(&gguf_bytes),
        tokenizer: tokenizer.map(str::to_string),
        tokenizer_sha256: tokenizer_bytes.as_deref().map(sha256_hex),
    };
    Ok(ModelFiles { description, gguf: gguf_bytes, tokenizer: tokenizer_bytes })
}

/// How a run's tokenizer is named in messages: the file, or the GGUF's own.
fn tokenizer_name(file: &LocalModelFile) -> String {
    match &file.tokenizer {
        Some(path) => format!("the tokenizer {path}"),
        None => format!("the tokenizer in {}", file.gguf),
    }
}

/// The model's name in the run when `--model` gives none: the GGUF file's name.
pub fn model_name(gguf: &str) -> String {
    Path::new(gguf).file_name().map_or_else(|| gguf.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Why a run made with `run` cannot go on with the files as they are `now`, naming each file.
pub fn changed_files(run: &LocalModelFile, now: &LocalModelFile) -> Vec<String> {
    let mut out = Vec::new();
    if run.gguf_sha256 != now.gguf_sha256 {
        out.push(format!(
            "the model file {} is not the one the run used ({} bytes, SHA-256 {}; now {} bytes, SHA-256 {})",
            now.gguf, run.gguf_bytes, run.gguf_sha256, now.gguf_bytes, now.gguf_sha256
        ));
    }
    let sha = |file: &LocalModelFile| match &file.tokenizer_sha256 {
        Some(sha) => format!("tokenizer.json with SHA-256 {sha}"),
        None => "the GGUF file's own tokenizer".to_string(),
    };
    if run.tokenizer_sha256 != now.tokenizer_sha256 {
        out.push(format!(
            "{} is not the one the run used (the run used {}, now {})",
            tokenizer_name(now),
            sha(run),
            sha(now)
        ));
    }
    out
}

/// The engine's HTTP client for a `local` run: every chat request is answered by the model.
pub struct LocalModelHttp {
    model: Arc<Mutex<LocalModel>>,
    /// How often each request body was seen: the k-th identical request (the n answers of a
    /// sample, which the engine asks one by one) samples with seed DEFAULT_SEED + k, so they differ
    /// yet a run repeats.
    seen: RefCell<HashMap<String, u64>>,
    timings: Cell<Timings>,
}

impl LocalModelHttp {
    pub fn load(files: ModelFiles) -> Result<Self, String> {
        let model = LocalModel::load_with(&files.gguf, files.tokenizer.as_deref()).map_err(|e| {
            match &files.description.tokenizer {
                Some(tokenizer) => format!("cannot load {} with {tokenizer}: {e}", files.description.gguf),
                None => format!("cannot load {}: {e}", files.description.gguf),
            }
        })?;
        Ok(LocalModelHttp {
            model: Arc::new(Mutex::new(model)),
            seen: RefCell::new(HashMap::new()),
            timings: Cell::new(Timings::default()),
        })
    }

    /// Prefill and decode, summed over the answers of this session.
    pub fn timings(&self) -> Timings {
        self.timings.get()
    }
}

/// The body with a seed for this occurrence of it, when the request names none.
fn seeded(seen: &RefCell<HashMap<String, u64>>, body: &str) -> Result<Vec<u8>, ProviderError> {
    let mut value: serde_json::Value = serde_json::from_str(body).map_err(|e| failure(400, e.to_string()))?;
    let occurrence = {
        let mut seen = seen.borrow_mut();
        let count = seen.entry(body.to_string()).or_insert(0);
        *count += 1;
        *count - 1
    };
    if let Some(fields) = value.as_object_mut()
        && fields.get("seed").is_none_or(serde_json::Value::is_null)
    {
        fields.insert("seed".into(), DEFAULT_SEED.wrapping_add(occurrence).into());
    }
    Ok(value.to_string().into_bytes())
}

fn failure(status: u16, message: String) -> ProviderError {
    let kind = if status == 400 { ErrorKind::BadRequest } else { ErrorKind::ServerError };
    ProviderError { kind, status: Some(status), message, retry_after_ms: None }
}

/// Tells the model's thread to stop when the engine drops the request (Stop, a time-out).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The whole answer at once.
pub struct LocalBody(Option<Vec<u8>>);

impl ResponseBody for LocalBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        Ok(self.0.take())
    }
}

impl HttpClient for LocalModelHttp {
    type Body = LocalBody;

    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<LocalBody>, ProviderError> {
        if !request.url.ends_with("/chat/completions") {
            return Err(failure(404, "the in-process model answers chat completions only".into()));
        }
        let body = seeded(&self.seen, &request.body)?;
        let stop = Arc::new(AtomicBool::new(false));
        let _stop_on_drop = StopOnDrop(stop.clone());
        let model = self.model.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let mut model = model.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let origin = Instant::now();
            answer_chat(&mut model, &body, || origin.elapsed().as_secs_f64() * 1000.0, || !stop.load(Ordering::Relaxed))
        })
        .await
        .map_err(|e| failure(500, format!("the model's thread failed: {e}")))?;
        match answer {
            Ok(reply) => {
                if let Some(t) = read_timings(&reply.body) {
                    let mut sum = self.timings.get();
                    sum.add(&t);
                    self.timings.set(sum);
                }
                let headers = vec![("content-type".to_string(), reply.content_type.to_string())];
                Ok(HttpHead { status: 200, headers, body: LocalBody(Some(reply.body)) })
            }
            // A server's error answer, which the engine classifies as it would any provider's.
            Err(error) => {
                let headers = vec![("content-type".to_string(), "application/json".to_string())];
                Ok(HttpHead { status: error.status(), headers, body: LocalBody(Some(error.body())) })
            }
        }
    }
}

/// The client a live run sends through: the network, or the model in this process.
pub enum RunHttp {
    Native(NativeHttp),
    Local(LocalModelHttp),
}

pub enum RunBody {
    Native(NativeBody),
    Local(LocalBody),
}

impl ResponseBody for RunBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        match self {
            RunBody::Native(body) => body.chunk().await,
            RunBody::Local(body) => body.chunk().await,
        }
    }
}

impl HttpClient for RunHttp {
    type Body = RunBody;

    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<RunBody>, ProviderError> {
        fn wrap<B>(head: HttpHead<B>, body: impl FnOnce(B) -> RunBody) -> HttpHead<RunBody> {
            HttpHead { status: head.status, headers: head.headers, body: body(head.body) }
        }
        match self {
            RunHttp::Native(http) => http.send(request).await.map(|h| wrap(h, RunBody::Native)),
            RunHttp::Local(http) => http.send(request).await.map(|h| wrap(h, RunBody::Local)),
        }
    }
}

/// The closing line about speed: tokens per second of prefill and decode, summed over the session.
pub fn describe_speed(t: &Timings) -> String {
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1}"));
    format!(
        "local model: prefill {} tokens in {:.2} s ({} tokens/s; {} more reused from the cache), decode {} tokens in {:.2} s ({} tokens/s)",
        t.prefill_tokens,
        t.prefill_ms / 1000.0,
        rate(t.prefill_tokens_per_second()),
        t.reused_tokens,
        t.decode_tokens,
        t.decode_ms / 1000.0,
        rate(t.decode_tokens_per_second())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF file's description, with a tokenizer.json of this SHA-256 or (`None`) none.
    fn file(gguf_sha: &str, tokenizer_sha: Option<&str>) -> LocalModelFile {
        LocalModelFile {
            gguf: "m.gguf".into(),
            gguf_bytes: 3,
            gguf_sha256: gguf_sha.into(),
            tokenizer: tokenizer_sha.map(|_| "t.json".into()),
            tokenizer_sha256: tokenizer_sha.map(str::to_string),
        }
    }

    #[test]
    fn a_changed_file_is_named() {
        let cases: [(LocalModelFile, LocalModelFile, &[&str]); 8] = [
            (file("aa", Some("bb")), file("aa", Some("bb")), &[]),
            (file("aa", Some("bb")), file("cc", Some("bb")), &["the model file m.gguf"]),
            (file("aa", Some("bb")), file("aa", Some("cc")), &["the tokenizer t.json"]),
            (file("aa", Some("bb")), file("cc", Some("cc")), &["the model file m.gguf", "the tokenizer t.json"]),
            // The GGUF's own tokenizer: the file's hash covers it.
            (file("aa", None), file("aa", None), &[]),
            (file("aa", None), file("cc", None), &["the model file m.gguf"]),
            (
                file("aa", None),
                file("aa", Some("bb")),
                &["the tokenizer t.json is not the one the run used (the run used the GGUF file's own tokenizer"],
            ),
            (
                file("aa", Some("bb")),
                file("aa", None),
                &["the tokenizer in m.gguf is not the one the run used (the run used tokenizer.json with SHA-256 bb"],
            ),
        ];
        for (run, now, want) in cases {
            let got = changed_files(&run, &now);
            assert_eq!(got.len(), want.len(), "{got:?}");
            for (g, w) in got.iter().zip(want) {
                assert!(g.starts_with(w), "{g}");
            }
        }
    }

    #[test]
    fn a_manifest_says_which_tokenizer_the_run_used() {
        let own = serde_json::to_value(file("aa", None)).unwrap();
        assert_eq!((&own["tokenizer"], &own["tokenizer_sha256"]), (&serde_json::Value::Null, &serde_json::Value::Null));
        let json = serde_json::to_value(file("aa", Some("bb"))).unwrap();
        assert_eq!((json["tokenizer"].as_str(), json["tokenizer_sha256"].as_str()), (Some("t.json"), Some("bb")));
        // A manifest written before the tokenizer was optional reads as it did.
        let old = r#"{"gguf": "m.gguf", "gguf_bytes": 3, "gguf_sha256": "aa", "tokenizer": "t.json", "tokenizer_sha256": "bb"}"#;
        assert_eq!(serde_json::from_str::<LocalModelFile>(old).unwrap(), file("aa", Some("bb")));
    }

    #[test]
    fn identical_requests_get_successive_seeds_and_a_given_seed_is_kept() {
        let seen = RefCell::new(HashMap::new());
        let seed_of = |body: &str| {
            let sent: serde_json::Value = serde_json::from_slice(&seeded(&seen, body).unwrap()).unwrap();
            sent["seed"].as_u64()
        };
        let (a, b) = (r#"{"messages": [], "temperature": 1}"#, r#"{"messages": [], "temperature": 0.5}"#);
        let cases = [
            (a, Some(DEFAULT_SEED)),
            (a, Some(DEFAULT_SEED + 1)),
            (b, Some(DEFAULT_SEED)),
            (a, Some(DEFAULT_SEED + 2)),
            (r#"{"seed": 7}"#, Some(7)),
            (r#"{"seed": 7}"#, Some(7)),
            (r#"{"seed": null}"#, Some(DEFAULT_SEED)),
        ];
        for (body, want) in cases {
            assert_eq!(seed_of(body), want, "{body}");
        }
        assert_eq!(seeded(&seen, "not json").unwrap_err().kind, ErrorKind::BadRequest);
    }

    #[test]
    fn sha256_is_the_standard_one() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
