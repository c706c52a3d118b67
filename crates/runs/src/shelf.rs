//! The dataset shelf: files the user imported, kept so that a reload (or a visit next week) finds
//! them. A file is kept as the bytes the user gave, not as parsed samples: loading it again runs
//! the same loader with the same per-row report, and a later, better loader reads the original.
//!
//! The page keeps its shelf in IndexedDB (`execbench-idbstore`), tests in memory; every shelf
//! passes [`conformance::check`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use execbench_core::LoadReport;
use execbench_core::provenance::fnv1a_hex;
use serde::{Deserialize, Serialize};

use crate::store::{StoreError, StoreErrorKind, StoreResult};

/// What the shelf says about a kept file, without its bytes (listing reads only these).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShelfEntry {
    /// `ds-` and a hash of the bytes: importing the same file twice keeps one copy.
    pub id: String,
    /// The file's name as the user picked it.
    pub name: String,
    pub bytes: usize,
    /// Rows read, samples kept and rows refused by the loader when the file was imported.
    pub rows: usize,
    pub samples: usize,
    pub errors: usize,
    /// When it was imported, and last chosen (ms since the epoch).
    pub added_ms: f64,
    pub used_ms: f64,
}

impl ShelfEntry {
    /// The entry of a file just loaded.
    pub fn of_import(name: &str, bytes: &[u8], report: &LoadReport, now_ms: f64) -> ShelfEntry {
        ShelfEntry {
            id: shelf_id(bytes),
            name: name.to_string(),
            bytes: bytes.len(),
            rows: report.rows,
            samples: report.samples.len(),
            errors: report.errors.len(),
            added_ms: now_ms,
            used_ms: now_ms,
        }
    }

    /// One line for a switcher: the name, its samples and its size.
    pub fn label(&self) -> String {
        let refused = match self.errors {
            0 => String::new(),
            1 => ", 1 row refused".to_string(),
            n => format!(", {n} rows refused"),
        };
        format!("{} ({} samples{refused}, {})", self.name, self.samples, human_bytes(self.bytes))
    }
}

/// The id a file's bytes get on the shelf.
pub fn shelf_id(bytes: &[u8]) -> String {
    // The hash reads text; bytes that are not UTF-8 are hashed by their lossy form plus the length,
    // which still tells two different files apart in practice and never panics.
    let text = String::from_utf8_lossy(bytes);
    format!("ds-{}", fnv1a_hex(&[&text, &bytes.len().to_string()]))
}

/// `1.2 MB`, `640 kB`, `12 B`.
pub fn human_bytes(bytes: usize) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.0} kB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

/// Most recently used first (then by name, so the order is total).
pub fn recent_first(entries: &mut [ShelfEntry]) {
    entries.sort_by(|a, b| {
        b.used_ms.total_cmp(&a.used_ms).then_with(|| a.name.cmp(&b.name)).then_with(|| a.id.cmp(&b.id))
    });
}

/// Where imported datasets are kept.
pub trait DatasetShelf {
    /// Keeps a file (replacing the entry and bytes of the same id).
    fn put(&self, entry: &ShelfEntry, bytes: &[u8]) -> impl Future<Output = StoreResult<()>>;
    /// Updates an entry (its name or when it was last used); `NotFound` when the file is not kept.
    fn touch(&self, entry: &ShelfEntry) -> impl Future<Output = StoreResult<()>>;
    /// Every kept file's entry, most recently used first.
    fn list(&self) -> impl Future<Output = StoreResult<Vec<ShelfEntry>>>;
    /// A kept file's bytes; `NotFound` when it is not kept.
    fn bytes(&self, id: &str) -> impl Future<Output = StoreResult<Vec<u8>>>;
    /// Removes a file. Removing one that is not there is not an error.
    fn remove(&self, id: &str) -> impl Future<Output = StoreResult<()>>;
}

pub fn not_kept(id: &str) -> StoreError {
    StoreError::new(StoreErrorKind::NotFound, format!("no dataset `{id}` is kept here"))
}

/// A shelf in memory (tests, and a page whose browser keeps no IndexedDB).
#[derive(Default)]
pub struct MemoryShelf {
    files: RefCell<BTreeMap<String, (ShelfEntry, Vec<u8>)>>,
}

impl MemoryShelf {
    pub fn new() -> Self {
        Self::default()
    }
}

impl DatasetShelf for MemoryShelf {
    async fn put(&self, entry: &ShelfEntry, bytes: &[u8]) -> StoreResult<()> {
        self.files.borrow_mut().insert(entry.id.clone(), (entry.clone(), bytes.to_vec()));
        Ok(())
    }

    async fn touch(&self, entry: &ShelfEntry) -> StoreResult<()> {
        match self.files.borrow_mut().get_mut(&entry.id) {
            Some((kept, _)) => {
                *kept = entry.clone();
                Ok(())
            }
            None => Err(not_kept(&entry.id)),
        }
    }

    async fn list(&self) -> StoreResult<Vec<ShelfEntry>> {
        let mut all: Vec<ShelfEntry> = self.files.borrow().values().map(|(e, _)| e.clone()).collect();
        recent_first(&mut all);
        Ok(all)
    }

    async fn bytes(&self, id: &str) -> StoreResult<Vec<u8>> {
        self.files.borrow().get(id).map(|(_, b)| b.clone()).ok_or_else(|| not_kept(id))
    }

    async fn remove(&self, id: &str) -> StoreResult<()> {
        self.files.borrow_mut().remove(id);
        Ok(())
    }
}

/// The table every shelf passes (natively over memory, in Chromium over IndexedDB).
pub mod conformance {
    use super::*;

    fn entry(name: &str, bytes: &[u8], used_ms: f64) -> ShelfEntry {
        let report = execbench_core::load_jsonl_bytes(name, bytes);
        ShelfEntry { used_ms, ..ShelfEntry::of_import(name, bytes, &report, used_ms) }
    }

    pub async fn check(shelf: &impl DatasetShelf) {
        let a = br#"{"id": "a0", "code": "def f(x):\n    return x", "input": "1", "output": "1"}"#;
        // Not UTF-8 on its second line: kept byte for byte, so its report is the same next time.
        let b: &[u8] =
            b"{\"id\": \"b0\", \"code\": \"def f():\\n    return 2\", \"input\": \"\", \"output\": \"2\"}\n\xff\xfe\n";
        assert!(shelf.list().await.unwrap().is_empty(), "a new shelf is empty");

        let (ea, eb) = (entry("a.jsonl", a, 10.0), entry("b.jsonl", b, 20.0));
        shelf.put(&ea, a).await.unwrap();
        shelf.put(&eb, b).await.unwrap();
        let listed = shelf.list().await.unwrap();
        assert_eq!(listed, vec![eb.clone(), ea.clone()], "most recently used first");
        assert_eq!(shelf.bytes(&eb.id).await.unwrap(), b, "bytes come back exactly");
        assert_eq!((eb.samples, eb.errors), (1, 1), "the entry carries the import's counts");

        // Choosing a file again moves it up; importing the same bytes again keeps one copy.
        let chosen = ShelfEntry { used_ms: 30.0, ..ea.clone() };
        shelf.touch(&chosen).await.unwrap();
        let again = ShelfEntry { name: "a-renamed.jsonl".into(), used_ms: 40.0, ..ea.clone() };
        shelf.put(&again, a).await.unwrap();
        let listed = shelf.list().await.unwrap();
        assert_eq!(listed.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["a-renamed.jsonl", "b.jsonl"]);

        let gone = ShelfEntry { id: "ds-missing".into(), ..ea.clone() };
        assert_eq!(shelf.touch(&gone).await.unwrap_err().kind, StoreErrorKind::NotFound);
        assert_eq!(shelf.bytes("ds-missing").await.unwrap_err().kind, StoreErrorKind::NotFound);

        shelf.remove(&ea.id).await.unwrap();
        shelf.remove(&ea.id).await.unwrap();
        assert_eq!(shelf.list().await.unwrap(), vec![eb.clone()]);
        assert_eq!(shelf.bytes(&ea.id).await.unwrap_err().kind, StoreErrorKind::NotFound, "its bytes went with it");
        shelf.remove(&eb.id).await.unwrap();
        assert!(shelf.list().await.unwrap().is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_shelf_passes_the_table() {
        futures::executor::block_on(conformance::check(&MemoryShelf::new()));
    }

    #[test]
    fn ids_follow_the_bytes_not_the_name() {
        let cases: [(&[u8], &[u8], bool); 4] = [
            (b"same", b"same", true),
            (b"one", b"two", false),
            (b"", b"\n", false),
            // Two invalid sequences of the same length read the same lossily: the id is still
            // stable for each, and never panics.
            (b"\xff", b"\xff", true),
        ];
        for (x, y, same) in cases {
            assert_eq!(shelf_id(x) == shelf_id(y), same, "{x:?} vs {y:?}");
            assert!(shelf_id(x).starts_with("ds-") && shelf_id(x).len() == 19);
        }
    }

    #[test]
    fn labels_and_sizes() {
        let cases = [(12, "12 B"), (999, "999 B"), (1_000, "1 kB"), (640_400, "640 kB"), (1_234_567, "1.2 MB")];
        for (bytes, text) in cases {
            assert_eq!(human_bytes(bytes), text);
        }
        let e = ShelfEntry {
            id: "ds-x".into(),
            name: "lc.jsonl".into(),
            bytes: 2_500,
            rows: 12,
            samples: 10,
            errors: 2,
            added_ms: 0.0,
            used_ms: 0.0,
        };
        assert_eq!(e.label(), "lc.jsonl (10 samples, 2 rows refused, 2 kB)");
        assert_eq!(ShelfEntry { errors: 0, ..e.clone() }.label(), "lc.jsonl (10 samples, 2 kB)");
        assert_eq!(ShelfEntry { errors: 1, ..e }.label(), "lc.jsonl (10 samples, 1 row refused, 2 kB)");
    }
}
