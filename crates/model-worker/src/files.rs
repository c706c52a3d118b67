//! The model's files in Cache Storage: one entry per part (`…/<file key>/<offset>`) and an index
//! entry per file (`…/index/<file key>`, a `KeptFile` as JSON) that says which parts are whole.
//! A part is written before the index names it, so an interrupted write leaves at worst a part
//! nobody names, which the resume writes again at the same key.

use execbench_model_files::catalogue::FileSpec;
use execbench_model_files::download::{Checksum, KeptFile, Part};
use execbench_model_files::download_loop::{self, PartStore, RangedFetch, RangedResponse};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Cache, ReadableStreamDefaultReader, Request, RequestInit, Response, WorkerGlobalScope};

/// Not `execbench-…`: the service worker deletes its own older caches by that prefix.
const CACHE_NAME: &str = "model-files";

fn scope() -> WorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Words for a rejected promise: a DOMException's name and message, or the value's text.
pub fn js_error(e: &JsValue) -> String {
    let field = |k: &str| Reflect::get(e, &JsValue::from_str(k)).ok().and_then(|v| v.as_string());
    match (field("name"), field("message")) {
        (Some(name), Some(message)) if name == "QuotaExceededError" => format!(
            "the browser refused to store more (QuotaExceededError: {message}); free some disk space or remove kept models, then download again to resume"
        ),
        (Some(name), Some(message)) => format!("{name}: {message}"),
        _ => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

async fn wait<T: JsCast>(promise: js_sys::Promise) -> Result<T, String> {
    let value = JsFuture::from(promise).await.map_err(|e| js_error(&e))?;
    value.dyn_into::<T>().map_err(|v| format!("unexpected value {v:?}"))
}

/// Where entries live: this site's origin, so the keys are plain http(s) URLs.
fn base() -> String {
    let origin = Reflect::get(&scope().location(), &JsValue::from_str("origin")).ok().and_then(|v| v.as_string());
    format!("{}/__model-files/", origin.unwrap_or_else(|| "http://localhost".into()))
}

fn file_key(url: &str) -> String {
    Checksum::of(url.as_bytes())[..24].to_string()
}

fn index_key(url: &str) -> String {
    format!("{}index/{}", base(), file_key(url))
}

fn part_key(url: &str, offset: u64) -> String {
    format!("{}{}/{offset}", base(), file_key(url))
}

pub struct Files {
    cache: Cache,
}

impl Files {
    pub async fn open() -> Result<Files, String> {
        let caches = scope().caches().map_err(|e| format!("Cache Storage is not available here ({})", js_error(&e)))?;
        Ok(Files { cache: wait(caches.open(CACHE_NAME)).await? })
    }

    async fn get(&self, key: &str) -> Result<Option<Response>, String> {
        let found = JsFuture::from(self.cache.match_with_str(key)).await.map_err(|e| js_error(&e))?;
        Ok(found.dyn_into::<Response>().ok())
    }

    async fn put_bytes(&self, key: &str, bytes: &[u8]) -> Result<(), String> {
        let array = Uint8Array::from(bytes);
        let response = Response::new_with_opt_buffer_source(Some(&array)).map_err(|e| js_error(&e))?;
        JsFuture::from(self.cache.put_with_str(key, &response)).await.map_err(|e| js_error(&e))?;
        Ok(())
    }

    async fn read_bytes(&self, key: &str) -> Result<Vec<u8>, String> {
        let response = self.get(key).await?.ok_or_else(|| format!("a kept part is missing ({key})"))?;
        let buffer: js_sys::ArrayBuffer = wait(response.array_buffer().map_err(|e| js_error(&e))?).await?;
        Ok(Uint8Array::new(&buffer).to_vec())
    }

    pub async fn index(&self, url: &str) -> Result<Option<KeptFile>, String> {
        let Some(response) = self.get(&index_key(url)).await? else { return Ok(None) };
        let text = JsFuture::from(response.text().map_err(|e| js_error(&e))?).await.map_err(|e| js_error(&e))?;
        Ok(serde_json::from_str(&text.as_string().unwrap_or_default()).ok())
    }

    /// Every kept file (complete or not).
    pub async fn list(&self) -> Result<Vec<KeptFile>, String> {
        let requests: js_sys::Array = wait(self.cache.keys()).await?;
        let prefix = format!("{}index/", base());
        let mut files = Vec::new();
        for request in requests.iter() {
            let Ok(request) = request.dyn_into::<Request>() else { continue };
            if !request.url().starts_with(&prefix) {
                continue;
            }
            if let Some(response) = self.get(&request.url()).await? {
                let text =
                    JsFuture::from(response.text().map_err(|e| js_error(&e))?).await.map_err(|e| js_error(&e))?;
                if let Ok(kept) = serde_json::from_str::<KeptFile>(&text.as_string().unwrap_or_default()) {
                    files.push(kept);
                }
            }
        }
        files.sort_by(|a, b| a.url.cmp(&b.url));
        Ok(files)
    }

    pub async fn remove(&self, url: &str) -> Result<(), String> {
        if let Some(kept) = self.index(url).await? {
            self.drop_parts(url, &kept.parts).await;
        }
        JsFuture::from(self.cache.delete_with_str(&index_key(url))).await.map_err(|e| js_error(&e))?;
        Ok(())
    }

    /// A complete file's bytes, in one buffer (a tokenizer.json is read from it).
    pub async fn read_whole(&self, url: &str) -> Result<Vec<u8>, String> {
        let kept = self.complete(url).await?;
        let mut bytes = Vec::with_capacity(kept.received() as usize);
        for part in &kept.parts {
            bytes.extend_from_slice(&self.read_bytes(&part_key(url, part.offset)).await?);
        }
        Ok(bytes)
    }

    /// A complete file as one Blob of its kept parts: the browser holds the bytes, and the model
    /// is read from it window by window (`blob_reader.rs`), not copied whole into wasm memory.
    pub async fn blob_of(&self, url: &str) -> Result<web_sys::Blob, String> {
        let kept = self.complete(url).await?;
        let parts = js_sys::Array::new();
        for part in &kept.parts {
            let key = part_key(url, part.offset);
            let response = self.get(&key).await?.ok_or_else(|| format!("a kept part is missing ({key})"))?;
            let blob: web_sys::Blob = wait(response.blob().map_err(|e| js_error(&e))?).await?;
            parts.push(&blob);
        }
        web_sys::Blob::new_with_blob_sequence(&parts).map_err(|e| js_error(&e))
    }

    async fn complete(&self, url: &str) -> Result<KeptFile, String> {
        let name = url.rsplit('/').next().unwrap_or(url);
        self.index(url).await?.filter(|k| k.complete).ok_or_else(|| format!("{name} is not downloaded"))
    }

    /// Downloads `file`, resuming after what is kept. `progress(received, total)` is called as
    /// bytes arrive. Ok: (size, checked); Err: (message, bytes kept for a resume).
    pub async fn download(
        &self,
        file: &FileSpec,
        progress: &dyn Fn(u64, Option<u64>),
    ) -> Result<(u64, bool), (String, u64)> {
        download_loop::download(self, &WorkerFetch, file, progress).await
    }
}

/// The parts and the index in Cache Storage, for the download loop.
impl PartStore for Files {
    async fn read_index(&self, url: &str) -> Result<Option<KeptFile>, String> {
        self.index(url).await
    }

    async fn write_index(&self, kept: &KeptFile) -> Result<(), String> {
        let text = serde_json::to_string(kept).map_err(|e| e.to_string())?;
        self.put_bytes(&index_key(&kept.url), text.as_bytes()).await
    }

    async fn put_part(&self, url: &str, offset: u64, bytes: &[u8]) -> Result<(), String> {
        self.put_bytes(&part_key(url, offset), bytes).await
    }

    async fn read_part(&self, url: &str, offset: u64) -> Result<Vec<u8>, String> {
        self.read_bytes(&part_key(url, offset)).await
    }

    async fn drop_parts(&self, url: &str, parts: &[Part]) {
        for part in parts {
            let _ = JsFuture::from(self.cache.delete_with_str(&part_key(url, part.offset))).await;
        }
    }

    async fn remove_file(&self, url: &str) -> Result<(), String> {
        self.remove(url).await
    }
}

/// The worker's `fetch`, for the download loop; a body is read with its stream's reader.
struct WorkerFetch;

impl RangedFetch for WorkerFetch {
    type Body = ReadableStreamDefaultReader;

    async fn get(&self, url: &str, range: Option<&str>) -> Result<RangedResponse<Self::Body>, String> {
        let init = RequestInit::new();
        let headers = web_sys::Headers::new().map_err(|e| js_error(&e))?;
        if let Some(range) = range {
            let _ = headers.set("Range", range);
        }
        init.set_headers(&headers);
        let response: Response = wait(scope().fetch_with_str_and_init(url, &init)).await?;
        let header = |k: &str| response.headers().get(k).ok().flatten();
        Ok(RangedResponse {
            status: response.status(),
            content_range: header("content-range"),
            content_length: header("content-length").and_then(|v| v.parse::<u64>().ok()),
            body: response.body().map(|body| body.get_reader().unchecked_into()),
        })
    }

    async fn next_chunk(&self, reader: &mut Self::Body) -> Result<Option<Vec<u8>>, String> {
        loop {
            let step = JsFuture::from(reader.read()).await.map_err(|e| js_error(&e))?;
            if Reflect::get(&step, &JsValue::from_str("done")).ok().and_then(|v| v.as_bool()).unwrap_or(true) {
                return Ok(None);
            }
            // A step whose value cannot be read is skipped: the stream goes on with the next.
            if let Ok(value) = Reflect::get(&step, &JsValue::from_str("value")) {
                return Ok(Some(value.unchecked_into::<Uint8Array>().to_vec()));
            }
        }
    }
}

/// The file's size by a HEAD request.
pub async fn size_of(url: &str) -> Result<Option<u64>, String> {
    let init = RequestInit::new();
    init.set_method("HEAD");
    let response: Response = wait(scope().fetch_with_str_and_init(url, &init)).await?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    Ok(response.headers().get("content-length").ok().flatten().and_then(|v| v.parse().ok()))
}
