//! Runs as JSON Lines files: the command line's `RunStore`. A run is one file: its manifest line,
//! then one record per finished sample, appended and flushed as each finishes, and a state line
//! whenever its state changes (`{"state": {...}}`, the latest counts). A later record of a sample
//! replaces an earlier one when the file is read back. The page exports and imports the same files.
//!
//! Runs live in a directory as `<run_id>.jsonl`, or at a path of the caller's choosing
//! ([`JsonlRunStore::bind`], for `execbench run --out FILE`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use execbench_run::manifest::{RunEntry, RunState, Tally};
use execbench_run::record::SampleRecord;
use execbench_run::runfile::{StateLine, manifest_line, read_run_file, record_line, state_line};
use execbench_run::store::{RunStore, StoreError, StoreErrorKind, StoreResult, newest_first};

pub struct JsonlRunStore {
    dir: PathBuf,
    /// Runs kept outside `dir`, by id.
    bound: RefCell<BTreeMap<String, PathBuf>>,
}

fn io_error(path: &Path, e: std::io::Error) -> StoreError {
    let kind = if e.kind() == std::io::ErrorKind::StorageFull { StoreErrorKind::Quota } else { StoreErrorKind::Other };
    StoreError::new(kind, format!("{}: {e}", path.display()))
}

impl JsonlRunStore {
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        JsonlRunStore { dir: dir.into(), bound: RefCell::new(BTreeMap::new()) }
    }

    /// Keeps run `run_id` at `path` instead of the directory.
    pub fn bind(&self, run_id: &str, path: impl Into<PathBuf>) {
        self.bound.borrow_mut().insert(run_id.to_string(), path.into());
    }

    fn path(&self, run_id: &str) -> PathBuf {
        self.bound.borrow().get(run_id).cloned().unwrap_or_else(|| self.dir.join(format!("{run_id}.jsonl")))
    }

    fn append(&self, path: &Path, lines: &[String]) -> StoreResult<()> {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).map_err(|e| io_error(path, e))?;
        let mut text = lines.join("\n");
        text.push('\n');
        file.write_all(text.as_bytes()).and_then(|_| file.flush()).map_err(|e| io_error(path, e))
    }

    /// Starts the file with the manifest line when it does not exist yet.
    fn ensure(&self, entry: &RunEntry) -> StoreResult<PathBuf> {
        let path = self.path(entry.id());
        if !path.exists() {
            std::fs::write(&path, format!("{}\n", manifest_line(&entry.manifest))).map_err(|e| io_error(&path, e))?;
        }
        Ok(path)
    }

    fn read(&self, path: &Path) -> StoreResult<Option<(RunEntry, Vec<SampleRecord>)>> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(path, e)),
        };
        let file =
            read_run_file(&path.display().to_string(), &text).map_err(|e| StoreError::new(StoreErrorKind::Other, e))?;
        let mut records: Vec<SampleRecord> = file.records.into_values().collect();
        records.sort_by_key(|r| r.index);
        // A file without a state line was left by a process that never said it ended.
        let state = file.state.unwrap_or(StateLine {
            state: RunState::Interrupted,
            note: None,
            updated_ms: file.manifest.created as f64 * 1000.0,
            active_ms: 0.0,
            requests: Default::default(),
            name: file.manifest.name.clone(),
            batches: Vec::new(),
        });
        let entry = RunEntry {
            tally: Tally::of(&records),
            manifest: file.manifest,
            state: state.state,
            note: state.note,
            updated_ms: state.updated_ms,
            active_ms: state.active_ms,
            requests: state.requests,
            imported: false,
            reviewed: false,
            batches: state.batches,
        };
        Ok(Some((entry, records)))
    }

    fn all_paths(&self) -> StoreResult<Vec<PathBuf>> {
        let mut paths: Vec<PathBuf> = self.bound.borrow().values().cloned().collect();
        match std::fs::read_dir(&self.dir) {
            Ok(dir) => paths.extend(
                dir.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "jsonl")),
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&self.dir, e)),
        }
        paths.sort();
        paths.dedup();
        Ok(paths)
    }
}

impl RunStore for JsonlRunStore {
    async fn save_entry(&self, entry: &RunEntry) -> StoreResult<()> {
        let path = self.ensure(entry)?;
        self.append(&path, &[state_line(&StateLine::of(entry))])
    }

    /// The record line is the write that counts: the entry is derived from the records when the
    /// file is read, so one append is atomic enough (a kill mid-line leaves a cut last line, which
    /// reading ignores).
    async fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> StoreResult<()> {
        let path = self.ensure(entry)?;
        self.append(&path, &[record_line(record)])
    }

    async fn entries(&self) -> StoreResult<Vec<RunEntry>> {
        let mut entries = Vec::new();
        for path in self.all_paths()? {
            // Other JSON Lines in the directory (datasets, exports) are not runs.
            let is_run = std::fs::read_to_string(&path).is_ok_and(|t| execbench_run::runfile::RunFile::sniff(&t));
            if is_run && let Some((entry, _)) = self.read(&path)? {
                entries.push(entry);
            }
        }
        newest_first(&mut entries);
        Ok(entries)
    }

    async fn entry(&self, run_id: &str) -> StoreResult<Option<RunEntry>> {
        Ok(self.read(&self.path(run_id))?.map(|(entry, _)| entry))
    }

    async fn records(&self, run_id: &str) -> StoreResult<Vec<SampleRecord>> {
        self.read(&self.path(run_id))?.map(|(_, records)| records).ok_or_else(|| StoreError::not_found(run_id))
    }

    async fn delete(&self, run_id: &str) -> StoreResult<()> {
        let path = self.path(run_id);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&path, e)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_files_pass_the_store_table() {
        let dir = std::env::temp_dir().join(format!("execbench-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("dataset.jsonl"), "{\"id\": \"sample_0\"}\n").unwrap();
        let store = JsonlRunStore::in_dir(&dir);
        futures_lite_block_on(execbench_run::store::conformance::check(&store));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A run file stores every way a session ends as the page's stores do (the same table runs
    /// over memory here and over IndexedDB in the browser tests).
    #[test]
    fn jsonl_files_store_every_ending_as_the_page_does() {
        let dir = std::env::temp_dir().join(format!("execbench-store-endings-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = JsonlRunStore::in_dir(&dir);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(execbench_run::session::endings::check(&store));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bound_run_lives_at_its_path() {
        let dir = std::env::temp_dir().join(format!("execbench-store-bound-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = JsonlRunStore::in_dir(dir.join("runs"));
        let out = dir.join("my-run.jsonl");
        store.bind("r1", &out);
        let entry = RunEntry::new(execbench_run::store::conformance::manifest("r1", 5), 0.0);
        futures_lite_block_on(async {
            store
                .put_record(&entry, &execbench_run::store::conformance::record("s0", 0, Some(1.0), false))
                .await
                .unwrap();
            let read = store.entry("r1").await.unwrap().unwrap();
            assert_eq!(read.state, RunState::Interrupted, "no state line: the process never said it ended");
            assert_eq!(read.tally.scored, 1);
            assert_eq!(store.entries().await.unwrap().len(), 1);
        });
        assert!(out.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The store's futures never wait on anything: poll once with a no-op waker.
    fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let waker = std::task::Waker::noop();
        match future.as_mut().poll(&mut std::task::Context::from_waker(waker)) {
            std::task::Poll::Ready(out) => out,
            std::task::Poll::Pending => panic!("a JSONL store future waited"),
        }
    }
}
