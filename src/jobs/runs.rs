//! Runs that survive the tab: the page's `RunStore` (`crate::browser::stores`: IndexedDB, or memory
//! where the browser keeps nothing), the list of stored runs the Runs page shows, and storage figures. Every evaluation
//! writes its records here as they finish (through `execbench_run::store::Recorder`), so a reload
//! or a closed tab loses at most the requests in flight.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use execbench_run::manifest::{RunEntry, RunState};
use execbench_run::record::SampleRecord;
use execbench_run::runfile::read_run_file;
use execbench_run::store::{MemoryRunStore, RunStore};
use leptos::prelude::*;

use crate::browser::stores::{BrowserStore, Opening};

/// IndexedDB, or memory when the browser refuses it (the page says so).
pub type PageStore = BrowserStore<MemoryRunStore>;

/// The stored runs, in signals.
#[derive(Clone, Copy)]
pub struct Runs {
    /// Every stored run, newest first (entries only: records are read when a run is opened).
    pub entries: RwSignal<Vec<RunEntry>>,
    /// The list has been read once.
    pub loaded: RwSignal<bool>,
    /// When it was (`performance.now()`, ms since the page began loading): the benchmark's
    /// "time to a usable list".
    pub loaded_at_ms: RwSignal<f64>,
    /// (bytes used, quota) by this origin, where the browser says.
    pub storage: RwSignal<Option<(f64, f64)>>,
    /// A storage problem to show (no IndexedDB here, a failed read or write).
    pub problem: RwSignal<Option<String>>,
    /// Runs a job in this page is running now.
    pub active: RwSignal<BTreeSet<String>>,
    /// The batch runs the Runs page may poll (their key given in this page session).
    pub polling: super::batch::BatchPolling,
    store: Opening<PageStore>,
    /// Records the store refused (a full disk), by run: written first when the run resumes.
    unsaved: StoredValue<BTreeMap<String, Vec<SampleRecord>>, LocalStorage>,
}

impl Runs {
    /// Opens the store and reads the list. A run still marked running was cut off by a reload or
    /// a closed tab (no job of this fresh page runs it): it becomes interrupted.
    pub fn start() -> Runs {
        let runs = Runs {
            entries: RwSignal::new(Vec::new()),
            loaded: RwSignal::new(false),
            loaded_at_ms: RwSignal::new(0.0),
            storage: RwSignal::new(None),
            problem: RwSignal::new(None),
            active: RwSignal::new(BTreeSet::new()),
            polling: super::batch::BatchPolling::new(),
            store: Opening::new(),
            unsaved: StoredValue::new_local(BTreeMap::new()),
        };
        leptos::task::spawn_local(async move {
            let (store, refused) = PageStore::open(MemoryRunStore::new).await;
            if let Some(e) = refused {
                runs.problem.set(Some(e));
            }
            let store = Rc::new(store);
            runs.store.opened(store.clone());
            match execbench_run::session::open_runs(&*store).await {
                Ok((entries, problems)) => {
                    if let Some(e) = problems.first() {
                        runs.problem.set(Some(e.to_string()));
                    }
                    runs.entries.set(entries);
                }
                Err(e) => runs.problem.set(Some(format!("the stored runs could not be read: {e}"))),
            }
            runs.loaded_at_ms.set(crate::browser::clock::now_ms());
            runs.loaded.set(true);
            runs.refresh_storage();
        });
        runs
    }

    /// The store, once it is open.
    pub async fn store(self) -> Rc<PageStore> {
        self.store.get().await
    }

    pub fn refresh_storage(self) {
        leptos::task::spawn_local(async move {
            self.storage.set(execbench_idbstore::storage_estimate().await);
        });
    }

    /// Puts `entry` in the list (replacing the run's earlier entry), keeping newest first.
    /// Gives a stored run the name `typed` (empty: its default name) and shows it.
    pub async fn rename(self, id: &str, typed: &str) -> Result<(), String> {
        let store = self.store().await;
        let entry = execbench_run::naming::rename(&*store, id, typed).await?;
        self.show(entry);
        Ok(())
    }

    pub fn show(self, entry: RunEntry) {
        self.entries.update(|entries| match entries.iter_mut().find(|e| e.id() == entry.id()) {
            Some(e) => *e = entry,
            None => {
                entries.push(entry);
                execbench_run::store::newest_first(entries);
            }
        });
    }

    pub fn entry(self, run_id: &str) -> Option<RunEntry> {
        self.entries.with_untracked(|entries| entries.iter().find(|e| e.id() == run_id).cloned())
    }

    pub fn keep_unsaved(self, run_id: &str, records: Vec<SampleRecord>) {
        if !records.is_empty() {
            self.unsaved.update_value(|u| u.entry(run_id.to_string()).or_default().extend(records));
        }
    }

    pub fn take_unsaved(self, run_id: &str) -> Vec<SampleRecord> {
        let mut taken = Vec::new();
        self.unsaved.update_value(|u| taken = u.remove(run_id).unwrap_or_default());
        taken
    }

    pub fn has_unsaved(self, run_id: &str) -> usize {
        self.unsaved.with_value(|u| u.get(run_id).map_or(0, Vec::len))
    }

    pub fn delete(self, run_id: String) {
        leptos::task::spawn_local(async move {
            let store = self.store().await;
            match store.delete(&run_id).await {
                Ok(()) => {
                    self.entries.update(|entries| entries.retain(|e| e.id() != run_id));
                    self.unsaved.update_value(|u| {
                        u.remove(&run_id);
                    });
                }
                Err(e) => self.problem.set(Some(format!("{run_id} could not be deleted: {e}"))),
            }
            self.refresh_storage();
        });
    }

    /// Imports a run file (the command line's, or a run exported from a page). A run with the id
    /// of one already here gets a new id. Returns what happened, in words.
    pub async fn import(self, name: &str, text: &str) -> Result<String, String> {
        let file = read_run_file(name, text).map_err(|e| match answers_file_hint(name, text) {
            Some(hint) => hint,
            None => e,
        })?;
        let store = self.store().await;
        let mut manifest = file.manifest;
        // Asked of the store, not the list (which may not have been read yet).
        let taken = async |id: &str| !matches!(store.entry(id).await, Ok(None));
        if taken(&manifest.run_id).await {
            let base = manifest.run_id.clone();
            let mut k = 2;
            while taken(&format!("{base}-imported-{k}")).await {
                k += 1;
            }
            manifest.run_id = format!("{base}-imported-{k}");
        }
        let mut records: Vec<SampleRecord> = file.records.into_values().collect();
        records.sort_by_key(|r| r.index);
        let mut entry = RunEntry::new(manifest, js_sys::Date::now());
        entry.imported = true;
        if let Some(state) = &file.state {
            entry.active_ms = state.active_ms;
            entry.requests = state.requests;
            entry.note = state.note.clone();
        }
        // A run that was running where it came from is interrupted here.
        let final_state = match file.state.map(|s| s.state) {
            Some(RunState::Running) | None => RunState::Interrupted,
            Some(state) => state,
        };
        // Interrupted while its records go in: a tab closed mid-import leaves a run to resume,
        // never one that says finished without its records.
        entry.state = RunState::Interrupted;
        store.save_entry(&entry).await.map_err(|e| e.to_string())?;
        for record in &records {
            entry.tally.replace(None, &execbench_run::manifest::Contribution::of(record));
            store.put_record(&entry, record).await.map_err(|e| e.to_string())?;
        }
        entry.state = final_state;
        store.save_entry(&entry).await.map_err(|e| e.to_string())?;
        let id = entry.id().to_string();
        self.show(entry);
        self.refresh_storage();
        let cut = if file.truncated_tail { "; its last line was cut short and is ignored" } else { "" };
        Ok(format!("imported {name} as {id}: {} records{cut}", records.len()))
    }
}

/// When a file that is not a run file is a file of answers that the Evaluate page re-scores (a
/// CRUXEval generations or evaluation file, LiveCodeBench's results, CodeCrash's), says so and
/// where to take it, instead of the run file reader's complaint.
fn answers_file_hint(name: &str, text: &str) -> Option<String> {
    let generations = execbench_eval::generations::import_generations(name, text);
    if generations.entries.is_empty() {
        return None;
    }
    let verdicts = if generations.stored.is_some() { ", with its own verdicts" } else { "" };
    Some(format!(
        "{name} is a file of answers ({} samples{verdicts}), not a run file: re-score it on the Evaluate page (\"Generations file…\"), which stores it as a run{}",
        generations.entries.len(),
        if generations.stored.is_some() { " and shows its verdicts beside execbench's" } else { "" }
    ))
}
