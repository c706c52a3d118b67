//! Runs that outlive the process or the tab. A [`RunStore`] keeps, per run, one [`RunEntry`] (the
//! manifest, the state, and a [`Tally`] that lets a list show progress, pass@1 and tokens without
//! reading a single record) and the latest [`SampleRecord`] of each sample. The page implements it
//! over IndexedDB, the command line over JSONL files, tests in memory ([`MemoryRunStore`]); every
//! implementation passes the same table of cases ([`conformance`]).
//!
//! Stores are dumb: the bookkeeping (which record replaces which, the tally, the state) is the
//! [`Recorder`]'s, which is also the engine's [`ResultStore`]. A record and its entry are written
//! together, so a list never disagrees with the records under it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;

use serde::{Deserialize, Serialize};

use crate::manifest::{Contribution, RequestCounts, RunEntry, RunState, Tally};
use crate::record::SampleRecord;

/// Why a store could not do what it was asked. `Quota`: the storage is full (the run pauses and
/// nothing already stored is lost); `Unavailable`: there is no storage here (a private window).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoreErrorKind {
    Quota,
    Unavailable,
    NotFound,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreError {
    pub kind: StoreErrorKind,
    pub message: String,
}

impl StoreError {
    pub fn new(kind: StoreErrorKind, message: impl Into<String>) -> StoreError {
        StoreError { kind, message: message.into() }
    }

    pub fn not_found(run_id: &str) -> StoreError {
        StoreError::new(StoreErrorKind::NotFound, format!("no run `{run_id}` is stored here"))
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            StoreErrorKind::Quota => write!(
                f,
                "the storage is full [{}]. Free some space (delete old runs) and press Resume: nothing stored so far is lost",
                self.message
            ),
            StoreErrorKind::Unavailable => write!(
                f,
                "no storage is available here [{}]: results are kept only while this page is open",
                self.message
            ),
            _ => f.write_str(&self.message),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Where finished samples go, one record at a time, as each finishes (in memory in the page for
/// now; appended to the run file on the command line). A failed write stops the run: results are
/// never silently lost.
pub trait ResultStore {
    fn put(&self, record: &SampleRecord) -> impl Future<Output = Result<(), String>>;
}

/// A store that keeps nothing (when the caller collects records from the outcome only).
pub struct NoStore;

impl ResultStore for NoStore {
    fn put(&self, _: &SampleRecord) -> impl Future<Output = Result<(), String>> {
        std::future::ready(Ok(()))
    }
}

/// Keeps runs. Every method is one atomic change: `put_record` writes the record and its entry
/// together or neither.
pub trait RunStore {
    /// Writes (creates or replaces) a run's entry.
    fn save_entry(&self, entry: &RunEntry) -> impl Future<Output = StoreResult<()>>;
    /// Writes a sample's record (replacing the sample's earlier one) and the run's entry.
    fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> impl Future<Output = StoreResult<()>>;
    /// Every run's entry, newest first.
    fn entries(&self) -> impl Future<Output = StoreResult<Vec<RunEntry>>>;
    fn entry(&self, run_id: &str) -> impl Future<Output = StoreResult<Option<RunEntry>>>;
    /// A run's records, one per sample, in dataset order.
    fn records(&self, run_id: &str) -> impl Future<Output = StoreResult<Vec<SampleRecord>>>;
    /// Removes a run and its records. Removing a run that is not there is not an error.
    fn delete(&self, run_id: &str) -> impl Future<Output = StoreResult<()>>;
    /// How many records a run has: the page compares it with the count its entry keeps
    /// (`crate::eviction`). Stores that can count without reading the records do.
    fn record_count(&self, run_id: &str) -> impl Future<Output = StoreResult<usize>> {
        async move { Ok(self.records(run_id).await?.len()) }
    }
}

/// Sorts entries newest first (by creation, then id), as every store returns them.
pub fn newest_first(entries: &mut [RunEntry]) {
    entries.sort_by(|a, b| {
        b.manifest.created.cmp(&a.manifest.created).then_with(|| b.manifest.run_id.cmp(&a.manifest.run_id))
    });
}

/// A run in memory: its entry and its records by sample id.
type StoredRun = (RunEntry, BTreeMap<String, SampleRecord>);

/// Keeps runs in memory (tests, and a page without IndexedDB).
#[derive(Default)]
pub struct MemoryRunStore {
    runs: RefCell<BTreeMap<String, StoredRun>>,
    /// Test hook: every write after this many fails with `Quota`.
    pub fail_after_writes: std::cell::Cell<Option<usize>>,
}

impl MemoryRunStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn write(&self) -> StoreResult<()> {
        match self.fail_after_writes.get() {
            Some(0) => Err(StoreError::new(StoreErrorKind::Quota, "QuotaExceededError (simulated)")),
            Some(n) => {
                self.fail_after_writes.set(Some(n - 1));
                Ok(())
            }
            None => Ok(()),
        }
    }
}

impl RunStore for MemoryRunStore {
    async fn save_entry(&self, entry: &RunEntry) -> StoreResult<()> {
        self.write()?;
        let mut runs = self.runs.borrow_mut();
        runs.entry(entry.id().to_string()).or_insert_with(|| (entry.clone(), BTreeMap::new())).0 = entry.clone();
        Ok(())
    }

    async fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> StoreResult<()> {
        self.write()?;
        let mut runs = self.runs.borrow_mut();
        let run = runs.entry(entry.id().to_string()).or_insert_with(|| (entry.clone(), BTreeMap::new()));
        run.0 = entry.clone();
        run.1.insert(record.sample_id.clone(), record.clone());
        Ok(())
    }

    async fn entries(&self) -> StoreResult<Vec<RunEntry>> {
        let mut all: Vec<RunEntry> = self.runs.borrow().values().map(|(e, _)| e.clone()).collect();
        newest_first(&mut all);
        Ok(all)
    }

    async fn entry(&self, run_id: &str) -> StoreResult<Option<RunEntry>> {
        Ok(self.runs.borrow().get(run_id).map(|(e, _)| e.clone()))
    }

    async fn records(&self, run_id: &str) -> StoreResult<Vec<SampleRecord>> {
        let runs = self.runs.borrow();
        let (_, records) = runs.get(run_id).ok_or_else(|| StoreError::not_found(run_id))?;
        let mut all: Vec<SampleRecord> = records.values().cloned().collect();
        all.sort_by_key(|r| r.index);
        Ok(all)
    }

    async fn delete(&self, run_id: &str) -> StoreResult<()> {
        self.runs.borrow_mut().remove(run_id);
        Ok(())
    }
}

/// Wall-clock time, ms since 1970.
pub type WallClock<'a> = Box<dyn Fn() -> f64 + 'a>;

/// The engine's [`ResultStore`] for one run: each finished record goes to the store together with
/// the run's updated entry. Created from the stored records when a run is resumed.
pub struct Recorder<'a, S: RunStore> {
    store: &'a S,
    entry: RefCell<RunEntry>,
    contributions: RefCell<BTreeMap<String, Contribution>>,
    /// `now_ms` at the last write, to add the running time to the entry.
    clock_ms: RefCell<(f64, WallClock<'a>)>,
}

impl<'a, S: RunStore> Recorder<'a, S> {
    /// A recorder over `entry` whose samples already have `records` (a resumed run; empty for a
    /// new one). `now_ms`: wall-clock time, ms since 1970.
    pub fn new(store: &'a S, entry: RunEntry, records: &[SampleRecord], now_ms: WallClock<'a>) -> Self {
        let contributions = records.iter().map(|r| (r.sample_id.clone(), Contribution::of(r))).collect();
        let started = now_ms();
        Recorder {
            store,
            entry: RefCell::new(entry),
            contributions: RefCell::new(contributions),
            clock_ms: RefCell::new((started, now_ms)),
        }
    }

    pub fn entry(&self) -> RunEntry {
        self.entry.borrow().clone()
    }

    fn touch(&self) {
        let mut clock = self.clock_ms.borrow_mut();
        let now = (clock.1)();
        let mut entry = self.entry.borrow_mut();
        entry.active_ms += (now - clock.0).max(0.0);
        entry.updated_ms = now;
        clock.0 = now;
    }

    /// The run's requests so far (every session's): kept with the next write.
    pub fn set_requests(&self, requests: RequestCounts) {
        self.entry.borrow_mut().requests = requests;
    }

    /// Writes the entry with a new state (and why).
    pub async fn set_state(&self, state: RunState, note: Option<String>) -> StoreResult<()> {
        self.touch();
        let entry = {
            let mut entry = self.entry.borrow_mut();
            entry.state = state;
            entry.note = note;
            entry.clone()
        };
        self.store.save_entry(&entry).await
    }

    /// Stores one record; on failure nothing changes (the caller keeps the record).
    pub async fn record(&self, record: &SampleRecord) -> StoreResult<()> {
        self.touch();
        let new = Contribution::of(record);
        let mut entry = self.entry.borrow().clone();
        entry.tally.replace(self.contributions.borrow().get(&record.sample_id), &new);
        if entry.state != RunState::Running {
            entry.state = RunState::Running;
            entry.note = None;
        }
        self.store.put_record(&entry, record).await?;
        self.contributions.borrow_mut().insert(record.sample_id.clone(), new);
        *self.entry.borrow_mut() = entry;
        Ok(())
    }
}

impl<S: RunStore> ResultStore for Recorder<'_, S> {
    async fn put(&self, record: &SampleRecord) -> Result<(), String> {
        self.record(record).await.map_err(|e| e.to_string())
    }
}

/// Gives run `run_id` the name `typed` (empty: back to the default) and stores it. Refused while
/// the run is running: its job keeps its own copy of the entry and would write the old name back.
pub async fn rename<S: RunStore>(store: &S, run_id: &str, typed: &str) -> Result<RunEntry, String> {
    let name = crate::naming::clean_name(typed)?;
    let mut entry =
        store.entry(run_id).await.map_err(|e| e.to_string())?.ok_or(format!("no run `{run_id}` is stored"))?;
    if entry.state == RunState::Running {
        return Err(format!("{run_id} is running: stop it before renaming it"));
    }
    entry.manifest.name = name;
    store.save_entry(&entry).await.map_err(|e| e.to_string())?;
    Ok(entry)
}

/// The table of cases every [`RunStore`] must pass (the in-memory one here, the JSONL files in the
/// command line, IndexedDB in the browser tests). Panics with the case that failed.
pub mod conformance {
    use super::*;

    pub use crate::manifest::fixtures::{manifest, record};

    /// Runs every case against a store that starts empty (awaited natively with a blocking
    /// executor, in the browser by wasm-bindgen-test).
    pub async fn check<S: RunStore>(store: &S) {
        {
            // An empty store lists nothing; a run it does not have has no entry and no records.
            assert_eq!(store.entries().await.unwrap(), Vec::new(), "empty store");
            assert_eq!(store.entry("nope").await.unwrap(), None, "unknown run's entry");
            assert!(
                store.records("nope").await.is_err_and(|e| e.kind == StoreErrorKind::NotFound),
                "unknown run's records"
            );

            // Two runs; the list is newest first.
            let clock = std::cell::Cell::new(1_000.0);
            let now: Box<dyn Fn() -> f64> = Box::new(|| {
                clock.set(clock.get() + 10.0);
                clock.get()
            });
            let older = RunEntry::new(manifest("run-a", 100), 0.0);
            store.save_entry(&older).await.unwrap();
            let recorder = Recorder::new(store, RunEntry::new(manifest("run-b", 200), 0.0), &[], now);
            recorder.set_state(RunState::Running, None).await.unwrap();
            let ids: Vec<String> = store.entries().await.unwrap().iter().map(|e| e.id().to_string()).collect();
            assert_eq!(ids, ["run-b", "run-a"], "newest first");

            // Records come back in dataset order; a later record of a sample replaces the earlier
            // one, in the records and in the tally.
            recorder.record(&record("s2", 2, Some(0.0), false)).await.unwrap();
            recorder.record(&record("s0", 0, None, true)).await.unwrap();
            recorder.record(&record("s1", 1, Some(1.0), false)).await.unwrap();
            recorder.record(&record("s0", 0, Some(1.0), false)).await.unwrap();
            let records = store.records("run-b").await.unwrap();
            assert_eq!(
                records.iter().map(|r| r.sample_id.as_str()).collect::<Vec<_>>(),
                ["s0", "s1", "s2"],
                "one record per sample, in order"
            );
            assert!(!records[0].is_error(), "the retried record replaced the error");
            let entry = store.entry("run-b").await.unwrap().expect("entry stored with the records");
            assert_eq!((entry.tally.scored, entry.tally.errors), (3, 0), "tally after a replaced error");
            assert_eq!(entry.tally.pass_at_1(0).map(|p| (p * 10.0).round()), Some(667.0), "2 of 3 right");
            assert_eq!(entry.tally.usage.prompt_tokens, 300, "the three records' tokens");
            assert_eq!(entry.missing(), 0);
            assert!(entry.active_ms > 0.0 && entry.updated_ms > 1_000.0, "times move: {entry:?}");
            assert_eq!(entry.tally, Tally::of(&records), "the stored tally is the records'");
            // The count the page compares with the entry's (`crate::eviction`).
            assert_eq!(store.record_count("run-b").await.unwrap(), 3, "records counted");
            assert_eq!(store.record_count("run-a").await.unwrap_or(0), 0, "a run without records");

            // State changes are stored with their note.
            recorder.set_state(RunState::Paused, Some("spend cap".into())).await.unwrap();
            let entry = store.entry("run-b").await.unwrap().unwrap();
            assert_eq!((entry.state, entry.note.as_deref()), (RunState::Paused, Some("spend cap")));

            // A rename is kept, and so is going back to the default name.
            let renamed = rename(store, "run-b", "second try").await.unwrap();
            assert_eq!(store.entry("run-b").await.unwrap().unwrap(), renamed, "the renamed entry is stored");
            assert_eq!(crate::naming::run_name(&renamed.manifest), "second try");
            rename(store, "run-b", " ").await.unwrap();
            assert_eq!(store.entry("run-b").await.unwrap().unwrap().manifest.name, None, "an empty name: the default");
            rename(store, "run-b", "second try").await.unwrap();
            assert_eq!(store.records("run-b").await.unwrap(), records, "a rename leaves the records");

            // Delete removes the entry and the records, and only that run's.
            store.delete("run-b").await.unwrap();
            assert_eq!(store.entry("run-b").await.unwrap(), None);
            assert!(store.records("run-b").await.is_err());
            assert_eq!(store.entries().await.unwrap().len(), 1);
            store.delete("run-b").await.unwrap();
            assert_eq!(store.records("run-a").await.unwrap(), Vec::new(), "the other run is intact");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_store_passes_the_table() {
        futures::executor::block_on(conformance::check(&MemoryRunStore::new()));
    }

    #[test]
    fn a_failed_write_leaves_entry_and_tally_unchanged() {
        let store = MemoryRunStore::new();
        let recorder = Recorder::new(&store, RunEntry::new(conformance::manifest("r", 1), 0.0), &[], Box::new(|| 0.0));
        futures::executor::block_on(async {
            recorder.record(&conformance::record("s0", 0, Some(1.0), false)).await.unwrap();
            store.fail_after_writes.set(Some(0));
            let err = recorder.record(&conformance::record("s1", 1, Some(1.0), false)).await.unwrap_err();
            assert_eq!(err.kind, StoreErrorKind::Quota);
            assert!(err.to_string().contains("nothing stored so far is lost"), "{err}");
            assert_eq!(recorder.entry().tally.scored, 1);
            assert_eq!(store.records("r").await.unwrap().len(), 1);
        });
    }

    #[test]
    fn a_tally_replaces_and_averages() {
        use conformance::record;
        // (records in order, expected scored, errors, pass@1 %)
        type Records<'a> = &'a [(&'a str, Option<f64>, bool)];
        let cases: &[(Records, usize, usize, Option<f64>)] = &[
            (&[], 0, 0, None),
            (&[("a", Some(1.0), false)], 1, 0, Some(100.0)),
            (&[("a", None, true)], 0, 1, None),
            (&[("a", None, true), ("a", Some(0.5), false)], 1, 0, Some(50.0)),
            (&[("a", Some(1.0), false), ("b", Some(0.0), false), ("c", None, false)], 3, 0, Some(50.0)),
            (&[("a", Some(1.0), false), ("a", None, true)], 0, 1, None),
        ];
        for (records, scored, errors, pass) in cases {
            let mut tally = Tally::default();
            let mut seen: BTreeMap<&str, Contribution> = BTreeMap::new();
            for (id, p, e) in records.iter() {
                let c = Contribution::of(&record(id, 0, *p, *e));
                tally.replace(seen.get(id), &c);
                seen.insert(id, c);
            }
            assert_eq!((tally.scored, tally.errors, tally.pass_at_1(0)), (*scored, *errors, *pass), "{records:?}");
            assert_eq!(tally.usage.prompt_tokens, 100 * seen.len() as u64, "one record's tokens per sample");
        }
    }

    #[test]
    fn a_rename_is_stored_and_an_empty_one_goes_back_to_the_default() {
        futures::executor::block_on(async {
            let store = MemoryRunStore::new();
            let mut entry = RunEntry::new(conformance::manifest("r1", 0), 1.0);
            entry.state = RunState::Finished;
            store.save_entry(&entry).await.unwrap();
            let renamed = rename(&store, "r1", " baseline ").await.unwrap();
            assert_eq!(renamed.manifest.name.as_deref(), Some("baseline"));
            let stored = store.entry("r1").await.unwrap().unwrap();
            assert_eq!(crate::naming::run_name(&stored.manifest), "baseline");
            assert!(rename(&store, "r1", "sk-abcdefghijklmnopqrstu").await.unwrap_err().contains("API key"));
            assert_eq!(
                store.entry("r1").await.unwrap().unwrap().manifest.name.as_deref(),
                Some("baseline"),
                "a refused name changes nothing"
            );
            rename(&store, "r1", "").await.unwrap();
            let stored = store.entry("r1").await.unwrap().unwrap();
            assert_eq!(
                (stored.manifest.name.clone(), crate::naming::run_name(&stored.manifest)),
                (None, crate::naming::default_name(&stored.manifest))
            );
            assert!(rename(&store, "nope", "x").await.unwrap_err().contains("no run `nope`"));
            entry.state = RunState::Running;
            store.save_entry(&entry).await.unwrap();
            assert!(rename(&store, "r1", "x").await.unwrap_err().contains("stop it"));
        });
    }
}
