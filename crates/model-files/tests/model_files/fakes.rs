//! What the download loop runs over in the tests: an in-memory part store, a scripted server
//! and an executor for futures that never wait.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use execbench_model_files::download::{KeptFile, Part};
use execbench_model_files::download_loop::{PartStore, RangedFetch, RangedResponse};

/// Runs a future of the fakes to its end: none of them waits, so one poll is enough.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut context = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut context) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a fake waited: nothing would wake it"),
    }
}

/// A file's bytes, without a period a part boundary could hide a misplaced part in.
pub fn file_bytes(len: usize) -> Vec<u8> {
    (0..len as u64).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()
}

/// What the store refuses with once its room is used up.
pub const STORE_FULL: &str = "the store is full";

/// The part store, in memory: indexes by url, parts by (url, offset).
#[derive(Default)]
pub struct MemoryStore {
    indexes: RefCell<HashMap<String, KeptFile>>,
    parts: RefCell<BTreeMap<(String, u64), Vec<u8>>>,
    /// Parts it still accepts (`None`: no limit), as a browser's quota would end.
    room_for_parts: Cell<Option<usize>>,
}

impl MemoryStore {
    /// Keeps `kept` as the index and, for each of its parts, those bytes of `file`, as an
    /// earlier download would have.
    pub fn keep(&self, kept: KeptFile, file: &[u8]) {
        for part in &kept.parts {
            let bytes = file[part.offset as usize..(part.offset + part.len) as usize].to_vec();
            self.parts.borrow_mut().insert((kept.url.clone(), part.offset), bytes);
        }
        self.indexes.borrow_mut().insert(kept.url.clone(), kept);
    }

    pub fn index(&self, url: &str) -> Option<KeptFile> {
        self.indexes.borrow().get(url).cloned()
    }

    /// The offsets of every part stored for `url`, named by its index or not.
    pub fn stored_offsets(&self, url: &str) -> Vec<u64> {
        self.parts.borrow().keys().filter(|(u, _)| u == url).map(|&(_, offset)| offset).collect()
    }

    /// The bytes of the parts `url`'s index names, in its order.
    pub fn indexed_bytes(&self, url: &str) -> Vec<u8> {
        let parts = self.parts.borrow();
        let index = self.index(url).expect("an index");
        index.parts.iter().flat_map(|p| parts[&(url.to_string(), p.offset)].clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.indexes.borrow().is_empty() && self.parts.borrow().is_empty()
    }

    pub fn set_room_for_parts(&self, parts: Option<usize>) {
        self.room_for_parts.set(parts);
    }
}

impl PartStore for MemoryStore {
    async fn read_index(&self, url: &str) -> Result<Option<KeptFile>, String> {
        Ok(self.index(url))
    }

    async fn write_index(&self, kept: &KeptFile) -> Result<(), String> {
        self.indexes.borrow_mut().insert(kept.url.clone(), kept.clone());
        Ok(())
    }

    async fn put_part(&self, url: &str, offset: u64, bytes: &[u8]) -> Result<(), String> {
        match self.room_for_parts.get() {
            Some(0) => return Err(STORE_FULL.into()),
            Some(room) => self.room_for_parts.set(Some(room - 1)),
            None => {}
        }
        self.parts.borrow_mut().insert((url.to_string(), offset), bytes.to_vec());
        Ok(())
    }

    async fn read_part(&self, url: &str, offset: u64) -> Result<Vec<u8>, String> {
        self.parts.borrow().get(&(url.to_string(), offset)).cloned().ok_or_else(|| format!("no part at {offset}"))
    }

    async fn drop_parts(&self, url: &str, parts: &[Part]) {
        for part in parts {
            self.parts.borrow_mut().remove(&(url.to_string(), part.offset));
        }
    }

    async fn remove_file(&self, url: &str) -> Result<(), String> {
        self.parts.borrow_mut().retain(|(u, _), _| u != url);
        self.indexes.borrow_mut().remove(url);
        Ok(())
    }
}

/// How the scripted server answers one request.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// The file from the asked `Range` (206 with `Content-Range`; 416 past its end) or, asked
    /// without one, whole (200); the connection breaks after `breaks_after` body bytes if given.
    Serve { breaks_after: Option<usize> },
    /// 200 and the whole file, whatever `Range` asked.
    IgnoreRange,
    /// As [`Reply::IgnoreRange`], but the connection breaks after this many body bytes.
    IgnoreRangeAndBreak(usize),
    /// 200 announcing the whole file's length, but the body ends, cleanly, after this many bytes.
    EndsEarly(usize),
    /// 206 whose `Content-Range` starts at 0, whatever `Range` asked.
    ResumesAtZero,
    /// 200 without a body.
    NoBody,
    /// This status, with an empty body.
    Status(u16),
    /// No answer at all (the network is down).
    Unreachable,
}

pub const SERVE: Reply = Reply::Serve { breaks_after: None };

pub fn breaks_after(bytes: usize) -> Reply {
    Reply::Serve { breaks_after: Some(bytes) }
}

/// What a broken connection reports.
pub const CONNECTION_RESET: &str = "connection reset by the scripted server";
/// What an unreachable server reports.
pub const UNREACHABLE: &str = "TypeError: Failed to fetch";

/// A server of one file: it answers each request with the next scripted reply ([`SERVE`] once
/// the script is used up) and records the `Range` header of each.
pub struct ScriptedServer {
    url: String,
    file: Vec<u8>,
    /// The sizes of the chunks a body arrives in, used in turn.
    chunk_sizes: Vec<usize>,
    script: RefCell<VecDeque<Reply>>,
    ranges_asked: RefCell<Vec<Option<String>>>,
}

/// A body being sent: `bytes[at..]` is still to come, in chunks, unless the connection breaks
/// at `breaks_at`.
pub struct ScriptedBody {
    bytes: Vec<u8>,
    at: usize,
    breaks_at: Option<usize>,
    chunk_sizes: Vec<usize>,
    chunks_sent: usize,
}

impl ScriptedServer {
    pub fn new(url: &str, file: &[u8], chunk_sizes: &[usize]) -> ScriptedServer {
        assert!(chunk_sizes.iter().all(|&s| s > 0));
        ScriptedServer {
            url: url.to_string(),
            file: file.to_vec(),
            chunk_sizes: chunk_sizes.to_vec(),
            script: RefCell::new(VecDeque::new()),
            ranges_asked: RefCell::new(Vec::new()),
        }
    }

    /// Queues the replies to the next requests.
    pub fn script(&self, replies: &[Reply]) {
        self.script.borrow_mut().extend(replies);
    }

    /// The `Range` header of every request so far, in order.
    pub fn ranges_asked(&self) -> Vec<Option<String>> {
        self.ranges_asked.borrow().clone()
    }

    fn body(&self, bytes: &[u8], breaks_at: Option<usize>) -> Option<ScriptedBody> {
        let chunk_sizes = self.chunk_sizes.clone();
        Some(ScriptedBody { bytes: bytes.to_vec(), at: 0, breaks_at, chunk_sizes, chunks_sent: 0 })
    }

    fn answer(
        &self,
        status: u16,
        content_range: Option<String>,
        content_length: usize,
        body: Option<ScriptedBody>,
    ) -> RangedResponse<ScriptedBody> {
        RangedResponse { status, content_range, content_length: Some(content_length as u64), body }
    }
}

/// The start of a `Range: bytes=N-` header (the only form the loop asks).
fn range_start(range: &str) -> usize {
    let start = range.strip_prefix("bytes=").and_then(|r| r.strip_suffix('-')).expect("a Range of the form bytes=N-");
    start.parse().expect("a number in Range")
}

impl RangedFetch for ScriptedServer {
    type Body = ScriptedBody;

    async fn get(&self, url: &str, range: Option<&str>) -> Result<RangedResponse<ScriptedBody>, String> {
        assert_eq!(url, self.url, "the loop asked another file");
        self.ranges_asked.borrow_mut().push(range.map(str::to_string));
        let reply = self.script.borrow_mut().pop_front().unwrap_or(SERVE);
        let size = self.file.len();
        Ok(match reply {
            Reply::Serve { breaks_after } => match range.map(range_start) {
                None => self.answer(200, None, size, self.body(&self.file, breaks_after)),
                Some(start) if start >= size => {
                    self.answer(416, Some(format!("bytes */{size}")), 0, self.body(&[], None))
                }
                Some(start) => {
                    let content_range = format!("bytes {start}-{}/{size}", size - 1);
                    self.answer(206, Some(content_range), size - start, self.body(&self.file[start..], breaks_after))
                }
            },
            Reply::IgnoreRange => self.answer(200, None, size, self.body(&self.file, None)),
            Reply::IgnoreRangeAndBreak(bytes) => self.answer(200, None, size, self.body(&self.file, Some(bytes))),
            Reply::EndsEarly(bytes) => self.answer(200, None, size, self.body(&self.file[..bytes], None)),
            Reply::ResumesAtZero => {
                let content_range = format!("bytes 0-{}/{size}", size - 1);
                self.answer(206, Some(content_range), size, self.body(&self.file, None))
            }
            Reply::NoBody => self.answer(200, None, size, None),
            Reply::Status(status) => self.answer(status, None, 0, self.body(&[], None)),
            Reply::Unreachable => return Err(UNREACHABLE.into()),
        })
    }

    async fn next_chunk(&self, body: &mut ScriptedBody) -> Result<Option<Vec<u8>>, String> {
        if body.breaks_at == Some(body.at) {
            return Err(CONNECTION_RESET.into());
        }
        if body.at == body.bytes.len() {
            return Ok(None);
        }
        let size = body.chunk_sizes[body.chunks_sent % body.chunk_sizes.len()];
        let end = (body.at + size).min(body.bytes.len()).min(body.breaks_at.unwrap_or(usize::MAX));
        let chunk = body.bytes[body.at..end].to_vec();
        body.at = end;
        body.chunks_sent += 1;
        Ok(Some(chunk))
    }
}
