//! The resumable, hash-checked download itself, written over two traits so that it runs natively
//! too: a [`PartStore`] keeps the parts and the index (Cache Storage in the model worker), a
//! [`RangedFetch`] asks the server for the bytes (the worker's `fetch`). The bookkeeping it
//! follows is in [`crate::download`].

use crate::catalogue::FileSpec;
use crate::download::{
    Answer, Checksum, KeptFile, Part, PartBuffer, Verdict, range_header, read_answer, resume_point, verdict,
};

/// Progress is reported at most once per this many bytes (and at the start and the end).
pub const PROGRESS_STEP: u64 = 1 << 20;

/// Where a download's parts and its index (a [`KeptFile`] per url) are kept. A part is stored
/// before the index names it, so an interrupted write leaves at worst a part nobody names.
///
/// Plain `async fn`: the model worker is single-threaded, no `Send` bound is wanted.
#[allow(async_fn_in_trait)]
pub trait PartStore {
    /// The index of `url`, `None` when there is none (or it cannot be read).
    async fn read_index(&self, url: &str) -> Result<Option<KeptFile>, String>;
    /// Writes `kept` as the index of `kept.url`, replacing the one before.
    async fn write_index(&self, kept: &KeptFile) -> Result<(), String>;
    /// Stores the bytes of `url`'s part starting at `offset`, replacing any kept there.
    async fn put_part(&self, url: &str, offset: u64, bytes: &[u8]) -> Result<(), String>;
    /// The bytes of `url`'s part starting at `offset`; an error when none is kept there.
    async fn read_part(&self, url: &str, offset: u64) -> Result<Vec<u8>, String>;
    /// Deletes these parts' bytes, as far as it can: a part left behind is named by no index
    /// and is written again at the same place.
    async fn drop_parts(&self, url: &str, parts: &[Part]);
    /// Removes `url`'s parts and its index.
    async fn remove_file(&self, url: &str) -> Result<(), String>;
}

/// What a server answered to a GET, before its body is read.
pub struct RangedResponse<Body> {
    pub status: u16,
    /// The `Content-Range` header, as sent.
    pub content_range: Option<String>,
    /// The `Content-Length` header, when it is a number.
    pub content_length: Option<u64>,
    /// `None`: the answer has no body.
    pub body: Option<Body>,
}

/// GET requests for a file's bytes, from the start or from a kept offset.
///
/// Plain `async fn`: the model worker is single-threaded, no `Send` bound is wanted.
#[allow(async_fn_in_trait)]
pub trait RangedFetch {
    /// A response body being read.
    type Body;
    /// Starts a GET of `url`, with `range` as its `Range` header when given. An error: the
    /// request could not start (no answer at all).
    async fn get(&self, url: &str, range: Option<&str>) -> Result<RangedResponse<Self::Body>, String>;
    /// The body's next chunk; `Ok(None)` at its end, an error when the connection broke.
    async fn next_chunk(&self, body: &mut Self::Body) -> Result<Option<Vec<u8>>, String>;
}

/// Downloads `file`, resuming after what `store` keeps of it. `progress(received, total)` is
/// called as bytes arrive. Ok: (size, whether it was checked against a hash); Err: (message,
/// bytes kept for a resume).
pub async fn download(
    store: &impl PartStore,
    fetch: &impl RangedFetch,
    file: &FileSpec,
    progress: &dyn Fn(u64, Option<u64>),
) -> Result<(u64, bool), (String, u64)> {
    let url = file.url.as_str();
    let name = url.rsplit('/').next().unwrap_or(url).to_string();
    let mut kept = match store.read_index(url).await.map_err(|e| (e, 0))? {
        Some(k) if k.sha256 == file.sha256 => k,
        Some(old) => {
            // Another hash was asked before: what is kept was checked against the wrong one.
            store.drop_parts(url, &old.parts).await;
            KeptFile::new(url, file.sha256.as_deref())
        }
        None => KeptFile::new(url, file.sha256.as_deref()),
    };
    if kept.complete {
        progress(kept.received(), kept.total);
        return Ok((kept.received(), kept.sha256.is_some()));
    }
    let (mut offset, keep, stray) = resume_point(&kept.parts);
    store.drop_parts(url, &stray).await;
    kept.parts = keep;
    // The hash so far, from the kept parts (a hasher's state cannot be stored).
    let mut hash = Checksum::default();
    for part in &kept.parts {
        let bytes = store.read_part(url, part.offset).await.map_err(|e| (e, 0))?;
        hash.update(&bytes);
    }
    let fail = |message: String, kept: u64| Err((format!("{name}: {message}"), kept));
    // Every byte kept but the verdict never written (the tab closed between the last part and
    // the index): the server would answer the next `Range` with 416 forever, so nothing is asked.
    if offset > 0 && kept.total == Some(offset) {
        progress(offset, kept.total);
        return conclude(store, kept, file, offset, hash).await;
    }

    let mut response = match fetch.get(url, range_header(offset).as_deref()).await {
        Ok(r) => r,
        Err(e) => return fail(format!("the download could not start ({e})"), offset),
    };
    match read_answer(response.status, response.content_range.as_deref(), response.content_length, offset) {
        Ok(Answer::Append { total }) => kept.total = total.or(kept.total),
        Ok(Answer::Restart { total }) => {
            store.drop_parts(url, &kept.parts).await;
            kept.parts.clear();
            hash = Checksum::default();
            offset = 0;
            kept.total = total;
            // The index stops naming the dropped parts now, not at the first new part: a
            // connection that breaks before one would leave it naming bytes that are gone.
            if let Err(e) = store.write_index(&kept).await {
                return fail(e, 0);
            }
        }
        Err(e) => return fail(e, offset),
    }
    let total = kept.total.or(file.bytes);
    let Some(mut body) = response.body.take() else { return fail("the answer has no body".into(), offset) };
    let mut buffer = PartBuffer::starting_at(offset);
    let mut received = offset;
    let mut reported = offset;
    progress(received, total);
    let mut broken: Option<String> = None;
    loop {
        let chunk = match fetch.next_chunk(&mut body).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => {
                broken = Some(format!("the connection broke after {received} bytes ({e})"));
                break;
            }
        };
        received += chunk.len() as u64;
        if let Some((part, data)) = buffer.push(&chunk) {
            if let Err(e) = keep_part(store, &mut kept, part, &data).await {
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
        if let Err(e) = keep_part(store, &mut kept, part, &data).await {
            return fail(e, kept.received());
        }
        hash.update(&data);
    }
    progress(received, total);
    if let Some(message) = broken {
        return fail(format!("{message}; {received} bytes are kept and the next download resumes there"), received);
    }
    kept.total = total;
    conclude(store, kept, file, received, hash).await
}

/// The verdict on a file whose bytes are all in: kept as complete, or removed when refused.
async fn conclude(
    store: &impl PartStore,
    mut kept: KeptFile,
    file: &FileSpec,
    received: u64,
    hash: Checksum,
) -> Result<(u64, bool), (String, u64)> {
    let url = file.url.as_str();
    match verdict(url, file.sha256.as_deref(), kept.total, received, &hash.hex()) {
        Verdict::Refused(message) => {
            let _ = store.remove_file(url).await;
            Err((message, 0))
        }
        v => {
            kept.complete = true;
            kept.total = Some(received);
            let name = url.rsplit('/').next().unwrap_or(url);
            store.write_index(&kept).await.map_err(|e| (format!("{name}: {e}"), received))?;
            Ok((received, v == Verdict::Matches))
        }
    }
}

/// Stores a full (or last) part, then the index that names it.
async fn keep_part(store: &impl PartStore, kept: &mut KeptFile, part: Part, data: &[u8]) -> Result<(), String> {
    store.put_part(&kept.url, part.offset, data).await?;
    kept.parts.push(part);
    store.write_index(kept).await
}
