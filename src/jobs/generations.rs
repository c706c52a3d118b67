//! Benchmark generations kept for a reload: the Build page's store (IndexedDB, or memory where the
//! browser keeps nothing), the list it shows with Resume and Discard, and the writes of a running
//! generation, done one after another in the order they were asked for (a row, then the next,
//! then the entry that says how it ended).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use execbench_run::generation_store::{
    GenerationEntry, GenerationRow, GenerationStore, MemoryGenerationStore, newest_first,
};
use leptos::prelude::*;

use crate::browser::stores::{BrowserStore, Opening};

/// IndexedDB, or memory when the browser refuses it.
pub type GenerationStoreOfPage = BrowserStore<MemoryGenerationStore>;

/// A write waiting its turn.
enum Write {
    Entry(GenerationEntry),
    Row(GenerationEntry, GenerationRow),
    /// Forgets a generation: queued too, so a write asked for before cannot bring it back.
    Discard(String),
}

#[derive(Default)]
struct Queue {
    writes: RefCell<VecDeque<Write>>,
    draining: Cell<bool>,
}

/// The kept generations, in signals.
#[derive(Clone, Copy)]
pub struct KeptGenerations {
    /// Every kept generation, newest first.
    pub entries: RwSignal<Vec<GenerationEntry>>,
    /// A storage problem to show (no IndexedDB here, a write refused).
    pub problem: RwSignal<Option<String>>,
    store: Opening<GenerationStoreOfPage>,
    queue: StoredValue<Rc<Queue>, LocalStorage>,
}

impl KeptGenerations {
    /// Opens the store and reads the list. A generation still marked running was cut off by a
    /// reload or a closed tab (no job of this fresh page runs it): it becomes interrupted.
    pub fn start() -> KeptGenerations {
        let kept = KeptGenerations {
            entries: RwSignal::new(Vec::new()),
            problem: RwSignal::new(None),
            store: Opening::new(),
            queue: StoredValue::new_local(Rc::new(Queue::default())),
        };
        leptos::task::spawn_local(async move {
            let (store, refused) = GenerationStoreOfPage::open(MemoryGenerationStore::new).await;
            if let Some(e) = refused {
                kept.problem.set(Some(format!("generations are kept in this tab only: {e}")));
            }
            let store = Rc::new(store);
            kept.store.opened(store.clone());
            match execbench_run::generation_store::open_generations(&*store).await {
                Ok((entries, problems)) => {
                    if let Some(e) = problems.first() {
                        kept.problem.set(Some(e.to_string()));
                    }
                    kept.entries.set(entries);
                }
                Err(e) => kept.problem.set(Some(format!("the kept generations could not be read: {e}"))),
            }
        });
        kept
    }

    /// The store, once it is open.
    pub async fn store(self) -> Rc<GenerationStoreOfPage> {
        self.store.get().await
    }

    /// Keeps `entry` (after every write asked for before).
    pub fn save(self, entry: GenerationEntry) {
        self.show(&entry);
        self.enqueue(Write::Entry(entry));
    }

    /// Keeps a request's row with its entry (after every write asked for before).
    pub fn put_row(self, entry: GenerationEntry, row: GenerationRow) {
        self.show(&entry);
        self.enqueue(Write::Row(entry, row));
    }

    /// Forgets a generation and its rows (after every write asked for before).
    pub fn discard(self, id: &str) {
        self.entries.update(|entries| entries.retain(|e| e.id != id));
        self.enqueue(Write::Discard(id.to_string()));
    }

    fn show(self, entry: &GenerationEntry) {
        self.entries.update(|entries| {
            match entries.iter_mut().find(|e| e.id == entry.id) {
                Some(kept) => *kept = entry.clone(),
                None => entries.push(entry.clone()),
            }
            newest_first(entries);
        });
    }

    fn enqueue(self, write: Write) {
        let queue = self.queue.get_value();
        queue.writes.borrow_mut().push_back(write);
        if queue.draining.replace(true) {
            return;
        }
        leptos::task::spawn_local(async move {
            let store = self.store().await;
            loop {
                let next = queue.writes.borrow_mut().pop_front();
                let Some(write) = next else { break };
                let written = match &write {
                    Write::Entry(entry) => store.save_generation(entry).await,
                    Write::Row(entry, row) => store.put_generation_row(entry, row).await,
                    Write::Discard(id) => store.delete_generation(id).await,
                };
                if let Err(e) = written {
                    let what = match &write {
                        Write::Entry(entry) => format!("generation `{}`", entry.id),
                        Write::Row(entry, row) => format!("the response to `{}` of generation `{}`", row.id, entry.id),
                        Write::Discard(id) => {
                            self.problem.set(Some(format!("generation `{id}` could not be removed: {e}")));
                            continue;
                        }
                    };
                    self.problem.set(Some(format!("{what} could not be kept for a reload (the generation goes on; a reload would ask it again): {e}")));
                }
            }
            queue.draining.set(false);
        });
    }
}
