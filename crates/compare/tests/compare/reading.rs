//! The runs a comparison reads from a store: in the store's order, each read once until its entry
//! changes, and a run that cannot be read named.

use crate::common;

use std::cell::Cell;
use std::collections::BTreeSet;

use common::{manifest, record, result, verdicts};
use execbench_compare::ReadRuns;
use execbench_eval::Task;
use execbench_eval::score::Mode;
use execbench_runs::manifest::RunEntry;
use execbench_runs::record::SampleRecord;
use execbench_runs::store::{MemoryRunStore, RunStore, StoreResult};
use futures::executor::block_on;

/// A memory store that counts the record reads.
#[derive(Default)]
struct Counting {
    inner: MemoryRunStore,
    reads: Cell<usize>,
}

impl RunStore for Counting {
    async fn save_entry(&self, entry: &RunEntry) -> StoreResult<()> {
        self.inner.save_entry(entry).await
    }
    async fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> StoreResult<()> {
        self.inner.put_record(entry, record).await
    }
    async fn entries(&self) -> StoreResult<Vec<RunEntry>> {
        self.inner.entries().await
    }
    async fn entry(&self, run_id: &str) -> StoreResult<Option<RunEntry>> {
        self.inner.entry(run_id).await
    }
    async fn records(&self, run_id: &str) -> StoreResult<Vec<SampleRecord>> {
        self.reads.set(self.reads.get() + 1);
        self.inner.records(run_id).await
    }
    async fn delete(&self, run_id: &str) -> StoreResult<()> {
        self.inner.delete(run_id).await
    }
}

/// Stores run `id`, created at `created`, with one right answer per sample.
fn store_run(store: &Counting, id: &str, created: u64, samples: &[&str]) -> RunEntry {
    let mut m = manifest(id, "m", "d", None, Task::Output, &[Mode::Strict]);
    m.created = created;
    let entry = RunEntry::new(m, 1.0);
    block_on(store.save_entry(&entry)).unwrap();
    for (i, s) in samples.iter().enumerate() {
        block_on(store.put_record(&entry, &record(s, i, vec![result(s, Mode::Strict, verdicts(&[true]))]))).unwrap();
    }
    entry
}

fn ids_of(runs: &[execbench_compare::RunInput]) -> Vec<&str> {
    runs.iter().map(|r| r.manifest.run_id.as_str()).collect()
}

fn chosen(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn chosen_runs_come_in_the_stores_order_and_are_read_once_until_they_change() {
    let store = Counting::default();
    store_run(&store, "old", 1, &["a"]);
    store_run(&store, "new", 2, &["a", "b"]);
    store_run(&store, "other", 3, &["c"]);
    let mut entries = block_on(store.entries()).unwrap();
    let mut read = ReadRuns::new();

    let runs = block_on(read.inputs(&store, &entries, &chosen(&["old", "new"]))).unwrap();
    assert_eq!(ids_of(&runs), ["new", "old"]);
    assert_eq!(runs[0].records.len(), 2);
    assert_eq!(store.reads.get(), 2);

    // Compared again, unchanged: nothing is read.
    let again = block_on(read.inputs(&store, &entries, &chosen(&["new", "old"]))).unwrap();
    assert_eq!(ids_of(&again), ["new", "old"]);
    assert_eq!(store.reads.get(), 2);

    // A run that changed since (resumed, extended) is read again; the other is not.
    let new = entries.iter_mut().find(|e| e.manifest.run_id == "new").unwrap();
    new.updated_ms = 2.0;
    let b = record("c", 2, vec![result("c", Mode::Strict, verdicts(&[false]))]);
    block_on(store.put_record(new, &b)).unwrap();
    let changed = block_on(read.inputs(&store, &entries, &chosen(&["new", "old"]))).unwrap();
    assert_eq!(store.reads.get(), 3);
    assert_eq!(changed[0].records.len(), 3);
    assert_eq!(ids_of(&changed), ["new", "old"]);
    assert_eq!(changed[1].records.len(), 1);
}

#[test]
fn a_run_that_cannot_be_read_is_named() {
    let store = Counting::default();
    let entry = store_run(&store, "gone", 1, &["a"]);
    block_on(store.delete("gone")).unwrap();
    let err = block_on(ReadRuns::new().inputs(&store, &[entry], &chosen(&["gone"]))).unwrap_err();
    assert!(err.starts_with("run `gone` could not be read: "), "{err}");
}
