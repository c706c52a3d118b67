//! Runs that survive the tab: the page's `RunStore` (`crate::browser::stores`: IndexedDB, or memory
//! where the browser keeps nothing), the list of stored runs the Runs page shows, and storage figures. Every evaluation
//! writes its records here as they finish (through `execbench_run::store::Recorder`), so a reload
//! or a closed tab loses at most the requests in flight.
//!
//! Two tabs share one store: a tab drives a run only while it holds the run's lock
//! (`crate::browser::locks`); a run another tab drives is listed with the progress the store has,
//! read about once a second, and taken over when that tab lets go mid-run (the rules are
//! `execbench_run::tabs`'). Tabs tell each other when a run starts, ends, is imported or deleted
//! (`crate::browser::notices`), so every tab's list follows at once and a tab that never looked
//! at Runs still watches a run started elsewhere.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use execbench_run::eviction::RecordsCheck;
use execbench_run::io::Clock;
use execbench_run::manifest::{RunEntry, RunState};
use execbench_run::record::SampleRecord;
use execbench_run::runfile::read_run_file;
use execbench_run::store::{MemoryRunStore, RunStore};
use execbench_run::tabs::{self, Heard, Notice, Seen};
use leptos::prelude::*;

use crate::browser::clock::BrowserClock;
use crate::browser::locks::{self, Held};
use crate::browser::notices::Notices;
use crate::browser::stores::{BrowserStore, Opening};

/// How often a run another tab drives is read again from the store.
const ELSEWHERE_POLL_MS: u64 = 1000;
/// How long a run's lock is waited for before the run is taken to be driven by another tab
/// (`Runs::drive`).
const LOCK_WAIT_MS: u32 = 5000;

/// What this tab does with a run another tab let go of mid-run (it closed): given the stored
/// entry and the run's lock, now held here. Set by the state layer (it resumes the run as Resume
/// would, or leaves it interrupted).
pub type TakeOverHandler = Rc<dyn Fn(RunEntry, Held)>;

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
    /// Runs another tab drives now: listed with the store's progress, never driven here.
    pub elsewhere: RwSignal<BTreeSet<String>>,
    /// Runs whose entry counts more records than the store holds (the browser cleared them).
    pub missing: RwSignal<BTreeMap<String, RecordsCheck>>,
    /// Whether the browser keeps this site's storage until the user clears it, where it says.
    pub persisted: RwSignal<Option<bool>>,
    /// The locks of the runs this tab drives.
    held: StoredValue<BTreeMap<String, Held>, LocalStorage>,
    take_over: StoredValue<Option<TakeOverHandler>, LocalStorage>,
    /// The channel on which tabs tell each other of runs started, ended, imported, deleted.
    notices: StoredValue<Option<Notices>, LocalStorage>,
    /// Whether this tab re-reads the progress of the runs another tab drives.
    watching: StoredValue<bool>,
    /// Runs whose last state this tab could not store (a full disk): the list keeps what this
    /// tab knows rather than the store's stale "running".
    unstored_state: StoredValue<BTreeSet<String>>,
    asked_persistence: StoredValue<bool>,
    /// The batch runs the Runs page may poll (their key given in this page session).
    pub polling: super::batch::BatchPolling,
    store: Opening<PageStore>,
    /// Records the store refused (a full disk), by run: written first when the run resumes.
    unsaved: StoredValue<BTreeMap<String, Vec<SampleRecord>>, LocalStorage>,
}

impl Runs {
    /// Opens the store and reads the list ([`Runs::sync`]).
    pub fn start() -> Runs {
        let runs = Runs {
            entries: RwSignal::new(Vec::new()),
            loaded: RwSignal::new(false),
            loaded_at_ms: RwSignal::new(0.0),
            storage: RwSignal::new(None),
            problem: RwSignal::new(None),
            active: RwSignal::new(BTreeSet::new()),
            elsewhere: RwSignal::new(BTreeSet::new()),
            missing: RwSignal::new(BTreeMap::new()),
            persisted: RwSignal::new(None),
            held: StoredValue::new_local(BTreeMap::new()),
            take_over: StoredValue::new_local(None),
            notices: StoredValue::new_local(None),
            watching: StoredValue::new(false),
            unstored_state: StoredValue::new(BTreeSet::new()),
            asked_persistence: StoredValue::new(false),
            polling: super::batch::BatchPolling::new(),
            store: Opening::new(),
            unsaved: StoredValue::new_local(BTreeMap::new()),
        };
        runs.notices.set_value(Notices::open(tabs::NOTICE_CHANNEL, move |message| runs.hear(&message)));
        leptos::task::spawn_local(async move {
            let (store, refused) = PageStore::open(MemoryRunStore::new).await;
            if let Some(e) = refused {
                runs.problem.set(Some(e));
            }
            runs.store.opened(Rc::new(store));
            runs.sync().await;
            runs.loaded_at_ms.set(crate::browser::clock::now_ms());
            runs.loaded.set(true);
            runs.refresh_storage();
            runs.check_records().await;
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
            self.persisted.set(execbench_idbstore::storage_persisted(false).await);
        });
    }

    /// Asks the browser to keep this site's storage (`navigator.storage.persist()`), once a page:
    /// when the user first starts a run or imports one, the moment there is something of theirs
    /// to keep (asked at page load, Firefox would prompt someone who has stored nothing).
    pub fn ask_persistence(self) {
        if self.asked_persistence.get_value() {
            return;
        }
        self.asked_persistence.set_value(true);
        leptos::task::spawn_local(async move {
            if execbench_idbstore::storage_persisted(false).await == Some(false) {
                execbench_idbstore::storage_persisted(true).await;
            }
            self.refresh_storage();
        });
    }

    /// Reads the list again from the store, as another tab may have changed it. A run still
    /// marked running is either driven by another tab (its lock is held: it is watched, see
    /// [`Runs::watch`]) or was cut off by a reload or a closed tab (it becomes interrupted).
    pub async fn sync(self) {
        let store = self.store().await;
        let mut entries = match store.entries().await {
            Ok(entries) => entries,
            Err(e) => return self.problem.set(Some(format!("the stored runs could not be read: {e}"))),
        };
        for entry in entries.iter_mut() {
            self.settle(&store, entry).await;
            self.keep_review(entry);
        }
        self.entries.set(entries);
    }

    /// An imported run's settings confirmed in this page (`reviewed`) are stored only when its
    /// next session starts: a copy read from the store before then must not take the yes back
    /// (Resume would ask again).
    fn keep_review(self, entry: &mut RunEntry) {
        if entry.imported && !entry.reviewed && self.entry(entry.id()).is_some_and(|known| known.reviewed) {
            entry.reviewed = true;
        }
    }

    /// A stored entry as this tab lists it: one marked running is driven here, driven by another
    /// tab (then watched, see [`Runs::watch`]), or was cut off (then stored as interrupted).
    async fn settle(self, store: &PageStore, entry: &mut RunEntry) {
        if entry.state != RunState::Running {
            return;
        }
        let id = entry.id().to_string();
        if self.unstored_state.with_value(|u| u.contains(&id)) {
            if let Some(known) = self.entry(&id) {
                *entry = known;
            }
            return;
        }
        let here = self.held.with_value(|h| h.contains_key(&id));
        if here || self.elsewhere.with_untracked(|e| e.contains(&id)) {
            return;
        }
        let lock = locks::try_hold(&tabs::lock_name(&id)).await;
        match tabs::seen(entry.state, here, lock.is_some()) {
            Seen::AsStored => {}
            Seen::DrivenElsewhere => self.watch(id),
            Seen::CutOff => {
                // Read again under the lock: the tab that ran it may have ended it since.
                if let Ok(Some(fresh)) = store.entry(&id).await {
                    *entry = fresh;
                }
                if entry.state == RunState::Running {
                    entry.state = RunState::Interrupted;
                    entry.note = Some(execbench_run::session::INTERRUPTED.to_string());
                    if let Err(e) = store.save_entry(entry).await {
                        self.problem.set(Some(e.to_string()));
                    }
                }
            }
        }
    }

    /// Tells the other tabs (after the change is stored: they read the store on hearing it).
    pub fn announce(self, notice: Notice) {
        self.notices.with_value(|n| {
            if let Some(n) = n {
                n.post(&notice.to_message());
            }
        });
    }

    /// What another tab said about a run.
    fn hear(self, message: &str) {
        let Some(notice) = Notice::from_message(message) else { return };
        let id = match &notice {
            Notice::Started(id) | Notice::Ended(id) | Notice::Imported(id) | Notice::Deleted(id) => id.clone(),
        };
        let here = self.held.with_value(|h| h.contains_key(&id));
        let watched = self.elsewhere.with_untracked(|e| e.contains(&id));
        match tabs::heard(&notice, here, watched) {
            Heard::Nothing => {}
            Heard::Forget(id) => self.forget(&id),
            Heard::ReadAgain(id) => leptos::task::spawn_local(async move {
                let store = self.store().await;
                match store.entry(&id).await {
                    Ok(Some(mut entry)) => {
                        self.settle(&store, &mut entry).await;
                        self.show(entry);
                        self.refresh_storage();
                    }
                    Ok(None) => self.forget(&id),
                    Err(e) => self.problem.set(Some(format!("the stored runs could not be read: {e}"))),
                }
            }),
        }
    }

    /// Drops a run no longer stored from the list.
    fn forget(self, run_id: &str) {
        self.entries.update(|entries| entries.retain(|e| e.id() != run_id));
        self.missing.update(|m| {
            m.remove(run_id);
        });
    }

    /// Counts every run's records: a run whose entry counts more than the store holds lost them
    /// (`execbench_run::eviction`), and the page says so instead of its figures.
    pub async fn check_records(self) {
        let store = self.store().await;
        let mut missing = BTreeMap::new();
        for entry in self.entries.get_untracked() {
            if let Ok(found) = store.record_count(entry.id()).await {
                let check = RecordsCheck::of(entry.tally.recorded(), found);
                if !check.is_whole() {
                    missing.insert(entry.id().to_string(), check);
                }
            }
        }
        if self.missing.with_untracked(|m| *m != missing) {
            self.missing.set(missing);
        }
    }

    /// Whether the state a session of `run_id` ended with was stored.
    pub fn state_stored(self, run_id: &str, stored: bool) {
        self.unstored_state.update_value(|u| {
            if stored {
                u.remove(run_id);
            } else {
                u.insert(run_id.to_string());
            }
        });
    }

    /// What to do when a run another tab drove is let go mid-run.
    pub fn on_take_over(self, handler: TakeOverHandler) {
        self.take_over.set_value(Some(handler));
    }

    /// Lists `run_id` as driven by another tab, reads its progress from the store while it is,
    /// and waits for its lock: once granted, the other tab let go (it ended the run, or closed).
    pub fn watch(self, run_id: String) {
        if self.elsewhere.with_untracked(|e| e.contains(&run_id)) {
            return;
        }
        self.elsewhere.update(|e| {
            e.insert(run_id.clone());
        });
        self.poll_elsewhere();
        leptos::task::spawn_local(async move {
            let lock = locks::hold(&tabs::lock_name(&run_id)).await;
            let store = self.store().await;
            let stored = store.entry(&run_id).await.ok().flatten();
            self.elsewhere.update(|e| {
                e.remove(&run_id);
            });
            match stored {
                None => self.entries.update(|entries| entries.retain(|e| e.id() != run_id)),
                Some(entry) if entry.state == RunState::Running => match self.take_over.get_value() {
                    Some(take_over) => take_over(entry, lock),
                    None => self.leave_interrupted(entry, "the tab that ran it was closed".into()).await,
                },
                Some(entry) => self.show(entry),
            }
        });
    }

    /// Stores a run cut off in another tab as interrupted, with why it was not resumed here.
    pub async fn leave_interrupted(self, mut entry: RunEntry, note: String) {
        entry.state = RunState::Interrupted;
        entry.note = Some(note);
        let store = self.store().await;
        if let Err(e) = store.save_entry(&entry).await {
            self.problem.set(Some(e.to_string()));
        }
        self.show(entry);
    }

    /// While any run is driven by another tab: its entry read again about once a second.
    fn poll_elsewhere(self) {
        if self.watching.get_value() {
            return;
        }
        self.watching.set_value(true);
        leptos::task::spawn_local(async move {
            loop {
                BrowserClock.sleep(ELSEWHERE_POLL_MS).await;
                let watched = self.elsewhere.get_untracked();
                if watched.is_empty() {
                    break;
                }
                let store = self.store().await;
                for id in watched {
                    if let Ok(Some(entry)) = store.entry(&id).await
                        && self.elsewhere.with_untracked(|e| e.contains(&id))
                    {
                        self.show(entry);
                    }
                }
            }
            self.watching.set_value(false);
        });
    }

    /// Takes the lock of a run this tab is about to drive (Resume, Retry errors, Extend, a new
    /// run). Refused, and the run watched, while another tab drives it.
    pub async fn drive(self, run_id: &str) -> Result<(), String> {
        if self.held.with_value(|h| h.contains_key(run_id)) {
            return Ok(());
        }
        // A lock let go a moment ago (by this tab's own watcher, which holds it while it reads the
        // entry, or by the page before a reload) is released asynchronously: a click that comes in
        // between would take the run for another tab's and leave it interrupted, so the lock is
        // waited for (in the browser's queue) a little while before that conclusion.
        if let Some(lock) = locks::hold_within(&tabs::lock_name(run_id), LOCK_WAIT_MS).await {
            self.held.update_value(|h| {
                h.insert(run_id.to_string(), lock);
            });
            return Ok(());
        }
        self.watch(run_id.to_string());
        Err(format!("{run_id} is running in another tab: it goes on there, and this tab shows its progress"))
    }

    /// Drives a run whose lock this tab was granted (a take-over).
    pub fn adopt(self, run_id: &str, lock: Held) {
        self.held.update_value(|h| {
            h.insert(run_id.to_string(), lock);
        });
    }

    /// This tab no longer drives the run: its lock goes (a waiting tab may take it), and the
    /// other tabs hear that it ended.
    pub fn let_go(self, run_id: &str) {
        let held = self.held.try_update_value(|h| h.remove(run_id).is_some()).unwrap_or(false);
        if held {
            self.announce(Notice::Ended(run_id.to_string()));
        }
    }

    /// Puts `entry` in the list (replacing the run's earlier entry), keeping newest first.
    /// Gives a stored run the name `typed` (empty: its default name) and shows it.
    pub async fn rename(self, id: &str, typed: &str) -> Result<(), String> {
        let _lock = self.while_not_driven(id).await?;
        let store = self.store().await;
        let entry = execbench_run::store::rename(&*store, id, typed).await?;
        self.show(entry);
        Ok(())
    }

    pub fn show(self, mut entry: RunEntry) {
        self.keep_review(&mut entry);
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

    /// The run's lock for a short change (rename, delete), unless another tab drives the run.
    async fn while_not_driven(self, run_id: &str) -> Result<Option<Held>, String> {
        self.hold_unless_driven_elsewhere(run_id)
            .await
            .map_err(|_| format!("{run_id} is running in another tab: it cannot be changed here now"))
    }

    /// The run's lock for one piece of work on it (a batch run's Check now, Stop or Retry errors
    /// as a batch), held as a driving tab holds it until the returned guard drops; `None` when
    /// this tab already drives the run. Refused, and the run watched, while another tab holds it.
    pub async fn hold_unless_driven_elsewhere(self, run_id: &str) -> Result<Option<Held>, String> {
        if self.held.with_value(|h| h.contains_key(run_id)) {
            return Ok(None);
        }
        match locks::try_hold(&tabs::lock_name(run_id)).await {
            Some(lock) => Ok(Some(lock)),
            None => {
                self.watch(run_id.to_string());
                Err(format!("{run_id} is being worked on in another tab: it goes on there"))
            }
        }
    }

    pub fn delete(self, run_id: String) {
        leptos::task::spawn_local(async move {
            let _lock = match self.while_not_driven(&run_id).await {
                Ok(lock) => lock,
                Err(e) => return self.problem.set(Some(e)),
            };
            let store = self.store().await;
            match store.delete(&run_id).await {
                Ok(()) => {
                    // Its key goes nowhere more, even if a run of the same id comes back.
                    self.polling.disarm(&run_id);
                    self.forget(&run_id);
                    self.announce(Notice::Deleted(run_id.clone()));
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
        self.ask_persistence();
        // One import at a time across tabs: two tabs importing the same file must not both pick
        // the same free id.
        let _import = locks::hold(tabs::IMPORT_LOCK).await;
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
        self.announce(Notice::Imported(id.clone()));
        self.refresh_storage();
        let cut = if file.truncated_tail { "; its last line was cut short and is ignored" } else { "" };
        let cleaned = file.address_cleaned.map_or(String::new(), |c| format!("; {c}"));
        Ok(format!("imported {name} as {id}: {} records{cut}{cleaned}", records.len()))
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
