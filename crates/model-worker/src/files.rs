//! The model's files in Cache Storage: one entry per part (`…/<file key>/<offset>`) and an index
//! entry per file (`…/index/<file key>`, a `KeptFile` as JSON) that says which parts are whole.
//! A part is written before the index names it, so an interrupted write leaves at worst a part
//! nobody names, which the resume writes again at the same key.

use execbench_model_files::catalogue::FileSpec;
use execbench_model_files::download::{
    Answer, Checksum, KeptFile, Part, PartBuffer, Verdict, range_header, read_answer, resume_point, verdict,
};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Cache, ReadableStreamDefaultReader, Request, RequestInit, Response, WorkerGlobalScope};

/// Not `execbench-…`: the service worker deletes its own older caches by that prefix.
const CACHE_NAME: &str = "model-files";
/// Progress is posted at most once per this many bytes (and at the end).
const PROGRESS_STEP: u64 = 1 << 20;

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

    async fn write_index(&self, kept: &KeptFile) -> Result<(), String> {
        let text = serde_json::to_string(kept).map_err(|e| e.to_string())?;
        self.put_bytes(&index_key(&kept.url), text.as_bytes()).await
    }

    async fn drop_parts(&self, url: &str, parts: &[Part]) {
        for part in parts {
            let _ = JsFuture::from(self.cache.delete_with_str(&part_key(url, part.offset))).await;
        }
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
        let url = file.url.as_str();
        let name = url.rsplit('/').next().unwrap_or(url).to_string();
        let mut kept = match self.index(url).await.map_err(|e| (e, 0))? {
            Some(k) if k.sha256 == file.sha256 => k,
            Some(old) => {
                // Another hash was asked before: what is kept was checked against the wrong one.
                self.drop_parts(url, &old.parts).await;
                KeptFile::new(url, file.sha256.as_deref())
            }
            None => KeptFile::new(url, file.sha256.as_deref()),
        };
        if kept.complete {
            progress(kept.received(), kept.total);
            return Ok((kept.received(), kept.sha256.is_some()));
        }
        let (mut offset, keep, stray) = resume_point(&kept.parts);
        self.drop_parts(url, &stray).await;
        kept.parts = keep;
        // The hash so far, from the kept parts (a hasher's state cannot be stored).
        let mut hash = Checksum::default();
        for part in &kept.parts {
            let bytes = self.read_bytes(&part_key(url, part.offset)).await.map_err(|e| (e, 0))?;
            hash.update(&bytes);
        }
        let fail = |message: String, kept: u64| Err((format!("{name}: {message}"), kept));

        let init = RequestInit::new();
        let headers = web_sys::Headers::new().map_err(|e| (js_error(&e), offset))?;
        if let Some(range) = range_header(offset) {
            let _ = headers.set("Range", &range);
        }
        init.set_headers(&headers);
        let response: Response = match wait(scope().fetch_with_str_and_init(url, &init)).await {
            Ok(r) => r,
            Err(e) => return fail(format!("the download could not start ({e})"), offset),
        };
        let header = |k: &str| response.headers().get(k).ok().flatten();
        let length = header("content-length").and_then(|v| v.parse::<u64>().ok());
        match read_answer(response.status(), header("content-range").as_deref(), length, offset) {
            Ok(Answer::Append { total }) => kept.total = total.or(kept.total),
            Ok(Answer::Restart { total }) => {
                self.drop_parts(url, &kept.parts).await;
                kept.parts.clear();
                hash = Checksum::default();
                offset = 0;
                kept.total = total;
            }
            Err(e) => return fail(e, offset),
        }
        let total = kept.total.or(file.bytes);
        let Some(body) = response.body() else { return fail("the answer has no body".into(), offset) };
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut buffer = PartBuffer::starting_at(offset);
        let mut received = offset;
        let mut reported = offset;
        progress(received, total);
        let mut broken: Option<String> = None;
        loop {
            let step = match JsFuture::from(reader.read()).await {
                Ok(step) => step,
                Err(e) => {
                    broken = Some(format!("the connection broke after {received} bytes ({})", js_error(&e)));
                    break;
                }
            };
            if Reflect::get(&step, &JsValue::from_str("done")).ok().and_then(|v| v.as_bool()).unwrap_or(true) {
                break;
            }
            let chunk: Uint8Array = match Reflect::get(&step, &JsValue::from_str("value")) {
                Ok(v) => v.unchecked_into(),
                Err(_) => continue,
            };
            let chunk = chunk.to_vec();
            received += chunk.len() as u64;
            if let Some((part, data)) = buffer.push(&chunk) {
                if let Err(e) = self.keep_part(&mut kept, part, &data).await {
                    return fail(e, kept.received());
                }
                hash.update(&data);
            }
            if received - reported >= PROGRESS_STEP {
                reported = received;
                progress(received, total);
            }
        }
        // What arrived is kept even when the connection broke: the next try resumes after it.
        if let Some((part, data)) = buffer.take() {
            if let Err(e) = self.keep_part(&mut kept, part, &data).await {
                return fail(e, kept.received());
            }
            hash.update(&data);
        }
        progress(received, total);
        if let Some(message) = broken {
            return fail(format!("{message}; {received} bytes are kept and the next download resumes there"), received);
        }
        match verdict(url, file.sha256.as_deref(), total, received, &hash.hex()) {
            Verdict::Refused(message) => {
                let _ = self.remove(url).await;
                Err((message, 0))
            }
            v => {
                kept.complete = true;
                kept.total = Some(received);
                self.write_index(&kept).await.map_err(|e| (format!("{name}: {e}"), received))?;
                Ok((received, v == Verdict::Matches))
            }
        }
    }

    async fn keep_part(&self, kept: &mut KeptFile, part: Part, data: &[u8]) -> Result<(), String> {
        self.put_bytes(&part_key(&kept.url, part.offset), data).await?;
        kept.parts.push(part);
        self.write_index(kept).await
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
