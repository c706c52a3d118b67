//! The page's stores: IndexedDB (`execbench_idbstore::IdbStore`, one database for runs, kept
//! datasets and generations), or the library's memory store where the browser keeps nothing. One
//! generic wrapper serves the three store interfaces; the jobs hold it.

use std::rc::Rc;

use execbench_idbstore::IdbStore;
use execbench_run::generation_store::{GenerationEntry, GenerationRow, GenerationStore};
use execbench_run::manifest::RunEntry;
use execbench_run::record::SampleRecord;
use execbench_run::shelf::{DatasetShelf, ShelfEntry};
use execbench_run::store::{RunStore, StoreResult};
use leptos::prelude::*;

use super::clock::BrowserClock;

/// The IndexedDB database the page keeps its runs, datasets and generations in.
pub const DATABASE: &str = "execbench";

/// IndexedDB, or `M` (a memory store) when the browser refuses it.
pub enum BrowserStore<M> {
    Idb(IdbStore),
    Memory(M),
}

impl<M> BrowserStore<M> {
    /// Opens [`DATABASE`]; where the browser refuses, a fresh memory store and why.
    pub async fn open(memory: impl FnOnce() -> M) -> (BrowserStore<M>, Option<String>) {
        match IdbStore::open(DATABASE).await {
            Ok(s) => (BrowserStore::Idb(s), None),
            Err(e) => (BrowserStore::Memory(memory()), Some(e.to_string())),
        }
    }
}

/// Both sides of a `BrowserStore` answer the same call.
macro_rules! either {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            BrowserStore::Idb($s) => $call,
            BrowserStore::Memory($s) => $call,
        }
    };
}

impl<M: RunStore> RunStore for BrowserStore<M> {
    async fn save_entry(&self, entry: &RunEntry) -> StoreResult<()> {
        either!(self, s => s.save_entry(entry).await)
    }

    async fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> StoreResult<()> {
        either!(self, s => s.put_record(entry, record).await)
    }

    async fn entries(&self) -> StoreResult<Vec<RunEntry>> {
        either!(self, s => s.entries().await)
    }

    async fn entry(&self, run_id: &str) -> StoreResult<Option<RunEntry>> {
        either!(self, s => s.entry(run_id).await)
    }

    async fn records(&self, run_id: &str) -> StoreResult<Vec<SampleRecord>> {
        either!(self, s => s.records(run_id).await)
    }

    async fn delete(&self, run_id: &str) -> StoreResult<()> {
        either!(self, s => s.delete(run_id).await)
    }

    async fn record_count(&self, run_id: &str) -> StoreResult<usize> {
        either!(self, s => s.record_count(run_id).await)
    }
}

impl<M: DatasetShelf> DatasetShelf for BrowserStore<M> {
    async fn put(&self, entry: &ShelfEntry, bytes: &[u8]) -> StoreResult<()> {
        either!(self, s => s.put(entry, bytes).await)
    }

    async fn touch(&self, entry: &ShelfEntry) -> StoreResult<()> {
        either!(self, s => s.touch(entry).await)
    }

    async fn list(&self) -> StoreResult<Vec<ShelfEntry>> {
        either!(self, s => s.list().await)
    }

    async fn bytes(&self, id: &str) -> StoreResult<Vec<u8>> {
        either!(self, s => s.bytes(id).await)
    }

    async fn remove(&self, id: &str) -> StoreResult<()> {
        either!(self, s => s.remove(id).await)
    }
}

impl<M: GenerationStore> GenerationStore for BrowserStore<M> {
    async fn save_generation(&self, entry: &GenerationEntry) -> StoreResult<()> {
        either!(self, s => s.save_generation(entry).await)
    }

    async fn put_generation_row(&self, entry: &GenerationEntry, row: &GenerationRow) -> StoreResult<()> {
        either!(self, s => s.put_generation_row(entry, row).await)
    }

    async fn generations(&self) -> StoreResult<Vec<GenerationEntry>> {
        either!(self, s => s.generations().await)
    }

    async fn generation_rows(&self, id: &str) -> StoreResult<Vec<GenerationRow>> {
        either!(self, s => s.generation_rows(id).await)
    }

    async fn delete_generation(&self, id: &str) -> StoreResult<()> {
        either!(self, s => s.delete_generation(id).await)
    }
}

/// A store opened in the background: a job keeps it from start-up, and whoever needs it first
/// waits for it to open.
pub struct Opening<S: 'static> {
    store: StoredValue<Option<Rc<S>>, LocalStorage>,
}

impl<S: 'static> Clone for Opening<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: 'static> Copy for Opening<S> {}

impl<S: 'static> Opening<S> {
    pub fn new() -> Opening<S> {
        Opening { store: StoredValue::new_local(None) }
    }

    pub fn opened(self, store: Rc<S>) {
        self.store.set_value(Some(store));
    }

    /// The store, once it is open.
    pub async fn get(self) -> Rc<S> {
        loop {
            if let Some(store) = self.store.get_value() {
                return store;
            }
            execbench_run::io::Clock::sleep(&BrowserClock, 20).await;
        }
    }
}

impl<S: 'static> Default for Opening<S> {
    fn default() -> Self {
        Self::new()
    }
}
