//! Imported datasets that survive the tab: the page's dataset shelf (IndexedDB, or memory where the
//! browser keeps nothing), the list the dataset switcher shows, and which dataset was open last
//! (in `localStorage`), so that a reload comes back to it.

use std::rc::Rc;

use execbench_run::shelf::{DatasetShelf, MemoryShelf, ShelfEntry};
use leptos::prelude::*;

use crate::browser::storage;
use crate::browser::stores::{BrowserStore, Opening};

/// `localStorage` key of the dataset open last: a shelf id, absent for the bundled CRUXEval.
const CURRENT_KEY: &str = "execbench.dataset";

/// IndexedDB, or memory when the browser refuses it.
pub type ShelfStore = BrowserStore<MemoryShelf>;

/// The kept datasets, in signals.
#[derive(Clone, Copy)]
pub struct Shelf {
    /// Every kept dataset, most recently used first.
    pub entries: RwSignal<Vec<ShelfEntry>>,
    /// The shelf id of the dataset open now; `None` for the bundled CRUXEval.
    pub current: RwSignal<Option<String>>,
    /// A problem to show (no IndexedDB here, a file that could not be kept, one no longer kept).
    pub problem: RwSignal<Option<String>>,
    store: Opening<ShelfStore>,
}

impl Shelf {
    pub fn start() -> Shelf {
        let shelf = Shelf {
            entries: RwSignal::new(Vec::new()),
            current: RwSignal::new(None),
            problem: RwSignal::new(None),
            store: Opening::new(),
        };
        leptos::task::spawn_local(async move {
            let (store, refused) = ShelfStore::open(MemoryShelf::new).await;
            if let Some(e) = refused {
                shelf.problem.set(Some(format!("imported datasets are kept in this tab only: {e}")));
            }
            shelf.store.opened(Rc::new(store));
            shelf.refresh().await;
        });
        shelf
    }

    /// The store, once it is open.
    pub async fn store(self) -> Rc<ShelfStore> {
        self.store.get().await
    }

    async fn refresh(self) {
        match self.store().await.list().await {
            Ok(entries) => self.entries.set(entries),
            Err(e) => self.problem.set(Some(format!("the kept datasets could not be read: {e}"))),
        }
    }

    /// The shelf id of the dataset open when the page was last used, if it was an imported one.
    pub fn remembered() -> Option<String> {
        storage::get(CURRENT_KEY).filter(|id| !id.is_empty())
    }

    /// Records which dataset is open (None: the bundled one), for the next visit.
    pub fn set_current(self, id: Option<String>) {
        match &id {
            Some(id) => {
                let _ = storage::set(CURRENT_KEY, id);
            }
            None => storage::remove(CURRENT_KEY),
        }
        self.current.set(id);
    }

    /// Keeps a file just imported and makes it the current dataset.
    pub async fn keep(self, entry: ShelfEntry, bytes: &[u8]) {
        let id = entry.id.clone();
        let name = entry.name.clone();
        if let Err(e) = self.store().await.put(&entry, bytes).await {
            self.problem.set(Some(format!("{name} is open, but could not be kept for the next visit: {e}")));
        }
        self.set_current(Some(id));
        self.refresh().await;
    }

    /// A kept file's entry and bytes, marking it used now.
    pub async fn open(self, id: &str) -> Result<(ShelfEntry, Vec<u8>), String> {
        let store = self.store().await;
        let entry = self.entries.with_untracked(|entries| entries.iter().find(|e| e.id == id).cloned());
        let entry = match entry {
            Some(e) => e,
            None => store
                .list()
                .await
                .map_err(|e| e.to_string())?
                .into_iter()
                .find(|e| e.id == id)
                .ok_or_else(|| format!("dataset `{id}` is no longer kept in this browser"))?,
        };
        let bytes = store.bytes(id).await.map_err(|e| e.to_string())?;
        let used = ShelfEntry { used_ms: js_sys::Date::now(), ..entry };
        // Being moved up the list is a nicety: a failure here does not stop the dataset opening.
        let _ = store.touch(&used).await;
        self.refresh().await;
        Ok((used, bytes))
    }

    /// Forgets a kept file (the open dataset is not changed by this).
    pub async fn forget(self, id: &str) {
        if let Err(e) = self.store().await.remove(id).await {
            self.problem.set(Some(format!("dataset `{id}` could not be removed: {e}")));
        }
        self.refresh().await;
    }
}
