//! A resumable download's bookkeeping. The model worker fetches a file in one request, keeps
//! what arrives in parts (each stored as soon as it is full, or when the connection ends), and
//! after a reload or a dropped connection asks for the rest with `Range: bytes=N-`. The file is
//! hashed part by part; its verdict is given once the last byte is in.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A part is stored when it reaches this size (or when the stream ends): a dropped connection
/// loses at most what had not reached a part yet, and no part needs much memory.
pub const PART_BYTES: usize = 8 << 20;

/// One stored piece of a file: bytes `offset..offset + len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub offset: u64,
    pub len: u64,
}

/// What is kept of one file, as the worker stores it beside the parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptFile {
    pub url: String,
    /// The published hash the file is checked against (`None`: kept unchecked).
    pub sha256: Option<String>,
    /// The whole file's size once known (from the server's answer).
    pub total: Option<u64>,
    /// Stored parts, in order.
    pub parts: Vec<Part>,
    /// All bytes in and the checksum verdict given (matched, or no hash to check).
    pub complete: bool,
}

impl KeptFile {
    pub fn new(url: &str, sha256: Option<&str>) -> KeptFile {
        KeptFile {
            url: url.to_string(),
            sha256: sha256.map(str::to_string),
            total: None,
            parts: Vec::new(),
            complete: false,
        }
    }

    /// Bytes kept (the parts are contiguous from 0: see [`resume_point`]).
    pub fn received(&self) -> u64 {
        self.parts.iter().map(|p| p.len).sum()
    }
}

/// The contiguous parts from offset 0 and where to resume after them; parts after a gap or
/// overlapping (a write that was interrupted) are returned to be dropped.
pub fn resume_point(parts: &[Part]) -> (u64, Vec<Part>, Vec<Part>) {
    let mut sorted = parts.to_vec();
    sorted.sort_by_key(|p| p.offset);
    let (mut next, mut keep, mut drop) = (0u64, Vec::new(), Vec::new());
    for part in sorted {
        if part.offset == next && part.len > 0 && drop.is_empty() {
            next += part.len;
            keep.push(part);
        } else {
            drop.push(part);
        }
    }
    (next, keep, drop)
}

/// The `Range` header for a request that resumes at `offset` (none from the start).
pub fn range_header(offset: u64) -> Option<String> {
    (offset > 0).then(|| format!("bytes={offset}-"))
}

/// A `Content-Range: bytes START-END/TOTAL` header (`TOTAL` may be `*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentRange {
    pub start: u64,
    pub end_inclusive: u64,
    pub total: Option<u64>,
}

pub fn parse_content_range(text: &str) -> Result<ContentRange, String> {
    let bad = || format!("Content-Range: expected \"bytes START-END/TOTAL\", got {text:?}");
    let rest = text.trim().strip_prefix("bytes ").ok_or_else(bad)?;
    let (span, total) = rest.split_once('/').ok_or_else(bad)?;
    let (start, end) = span.split_once('-').ok_or_else(bad)?;
    let number = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
    let total = if total.trim() == "*" { None } else { Some(number(total)?) };
    let (start, end_inclusive) = (number(start)?, number(end)?);
    if end_inclusive < start || total.is_some_and(|t| end_inclusive >= t) {
        return Err(bad());
    }
    Ok(ContentRange { start, end_inclusive, total })
}

/// What to do with the server's answer to a request from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The body continues the kept bytes; the file's total size if the server said.
    Append { total: Option<u64> },
    /// The server sent the whole file (it ignored `Range`): drop the kept parts first.
    Restart { total: Option<u64> },
}

/// Reads the status and headers of the answer to a request from `offset`.
pub fn read_answer(
    status: u16,
    content_range: Option<&str>,
    content_length: Option<u64>,
    offset: u64,
) -> Result<Answer, String> {
    match status {
        200 if offset == 0 => Ok(Answer::Append { total: content_length }),
        200 => Ok(Answer::Restart { total: content_length }),
        206 => {
            let range = parse_content_range(content_range.ok_or("HTTP 206 without a Content-Range header")?)?;
            if range.start != offset {
                return Err(format!("the server resumed at byte {} but {offset} bytes are kept", range.start));
            }
            Ok(Answer::Append { total: range.total })
        }
        416 => {
            Err(format!("the server has no bytes after the {offset} kept (HTTP 416): the file changed or was complete"))
        }
        _ => Err(format!("HTTP {status}")),
    }
}

/// Collects a response's chunks into parts of [`PART_BYTES`].
#[derive(Debug)]
pub struct PartBuffer {
    offset: u64,
    data: Vec<u8>,
}

impl PartBuffer {
    pub fn starting_at(offset: u64) -> PartBuffer {
        PartBuffer { offset, data: Vec::new() }
    }

    /// Adds a chunk; a full part comes back to be stored.
    pub fn push(&mut self, chunk: &[u8]) -> Option<(Part, Vec<u8>)> {
        self.data.extend_from_slice(chunk);
        (self.data.len() >= PART_BYTES).then(|| self.take()).flatten()
    }

    /// What is left (the stream ended or broke), if anything.
    pub fn take(&mut self) -> Option<(Part, Vec<u8>)> {
        if self.data.is_empty() {
            return None;
        }
        let data = std::mem::take(&mut self.data);
        let part = Part { offset: self.offset, len: data.len() as u64 };
        self.offset += part.len;
        Some((part, data))
    }
}

/// SHA-256 fed part by part.
#[derive(Default)]
pub struct Checksum(Sha256);

impl Checksum {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn hex(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn of(bytes: &[u8]) -> String {
        let mut c = Checksum::default();
        c.update(bytes);
        c.hex()
    }
}

/// The file's verdict once every byte is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Matches,
    /// No published hash: kept, and shown as unchecked.
    Unchecked,
    /// Refused: the message names both hashes (the parts are dropped).
    Refused(String),
}

pub fn verdict(url: &str, expected: Option<&str>, total: Option<u64>, received: u64, actual_hex: &str) -> Verdict {
    let name = url.rsplit('/').next().unwrap_or(url);
    if let Some(total) = total.filter(|&t| t != received) {
        return Verdict::Refused(format!("{name}: {received} bytes received but the server announced {total}"));
    }
    match expected {
        None => Verdict::Unchecked,
        Some(e) if e.eq_ignore_ascii_case(actual_hex) => Verdict::Matches,
        Some(e) => Verdict::Refused(format!(
            "{name}: checksum mismatch, SHA-256 {actual_hex} but {e} was expected; the download was discarded"
        )),
    }
}

/// "12.3 MB" / "532 KB" / "900 B": sizes as the page shows them.
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{:.2} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.0} KB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

/// The progress line: "1.2 MB of 675.7 MB (0%)", or without a total when none is known.
pub fn progress_text(received: u64, total: Option<u64>) -> String {
    match total.filter(|&t| t > 0) {
        Some(t) => format!("{} of {} ({}%)", human_bytes(received), human_bytes(t), received * 100 / t),
        None => human_bytes(received),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(offset: u64, len: u64) -> Part {
        Part { offset, len }
    }

    #[test]
    fn resume_points() {
        let cases: [(&[Part], u64, usize, usize); 5] = [
            (&[], 0, 0, 0),
            (&[p(0, 10), p(10, 5)], 15, 2, 0),
            (&[p(10, 5), p(0, 10)], 15, 2, 0),
            (&[p(0, 10), p(20, 5)], 10, 1, 1),
            (&[p(5, 5)], 0, 0, 1),
        ];
        for (parts, offset, kept, dropped) in cases {
            let (at, keep, drop) = resume_point(parts);
            assert_eq!((at, keep.len(), drop.len()), (offset, kept, dropped), "{parts:?}");
        }
        assert_eq!(range_header(0), None);
        assert_eq!(range_header(15).as_deref(), Some("bytes=15-"));
    }

    #[test]
    fn answers() {
        // (status, Content-Range, Content-Length, bytes kept, the answer or the error's start)
        type Case<'a> = (u16, Option<&'a str>, Option<u64>, u64, Result<Answer, &'a str>);
        let cases: [Case; 8] = [
            (200, None, Some(100), 0, Ok(Answer::Append { total: Some(100) })),
            (200, None, Some(100), 40, Ok(Answer::Restart { total: Some(100) })),
            (206, Some("bytes 40-99/100"), Some(60), 40, Ok(Answer::Append { total: Some(100) })),
            (206, Some("bytes 40-99/*"), None, 40, Ok(Answer::Append { total: None })),
            (206, Some("bytes 0-99/100"), None, 40, Err("the server resumed at byte 0 but 40")),
            (206, None, None, 40, Err("HTTP 206 without")),
            (416, None, None, 100, Err("the server has no bytes after the 100")),
            (404, None, None, 0, Err("HTTP 404")),
        ];
        for (status, range, length, offset, want) in cases {
            match (read_answer(status, range, length, offset), want) {
                (Ok(a), Ok(w)) => assert_eq!(a, w),
                (Err(e), Err(w)) => assert!(e.starts_with(w), "{e}"),
                (got, want) => panic!("{status} {range:?}: got {got:?}, want {want:?}"),
            }
        }
        for bad in ["bytes 9-3/10", "bytes 0-10/10", "items 0-1/2", "bytes x-1/2"] {
            assert!(parse_content_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parts_and_checksums_add_up() {
        let file: Vec<u8> = (0..(PART_BYTES * 2 + 123)).map(|i| (i * 7 % 251) as u8).collect();
        let whole = Checksum::of(&file);
        // Chunks of an odd size, as a network delivers them.
        let mut buffer = PartBuffer::starting_at(0);
        let (mut parts, mut hash) = (Vec::new(), Checksum::default());
        for chunk in file.chunks(65_537) {
            if let Some((part, data)) = buffer.push(chunk) {
                hash.update(&data);
                parts.push(part);
            }
        }
        let (last, data) = buffer.take().unwrap();
        hash.update(&data);
        parts.push(last);
        // Full parts first (a part is stored once it holds PART_BYTES, with the chunk that filled it).
        assert!(parts.len() >= 2 && parts[..parts.len() - 1].iter().all(|p| p.len >= PART_BYTES as u64), "{parts:?}");
        assert_eq!(resume_point(&parts).0, file.len() as u64);
        assert_eq!(hash.hex(), whole);
        // SHA-256 of "abc", the standard's own test vector.
        assert_eq!(Checksum::of(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn verdicts() {
        let h = Checksum::of(b"abc");
        let url = "http://x/m/tiny.gguf";
        assert_eq!(verdict(url, Some(&h.to_uppercase()), Some(3), 3, &h), Verdict::Matches);
        assert_eq!(verdict(url, None, None, 3, &h), Verdict::Unchecked);
        let Verdict::Refused(m) = verdict(url, Some(&"0".repeat(64)), Some(3), 3, &h) else { panic!() };
        assert!(m.starts_with("tiny.gguf: checksum mismatch, SHA-256 ba7816bf") && m.contains(&"0".repeat(64)), "{m}");
        let Verdict::Refused(m) = verdict(url, Some(&h), Some(4), 3, &h) else { panic!() };
        assert_eq!(m, "tiny.gguf: 3 bytes received but the server announced 4");
        assert_eq!(progress_text(1_200_000, Some(675_710_848)), "1.2 MB of 675.7 MB (0%)");
        assert_eq!(progress_text(532_000, None), "532 KB");
    }
}
