//! IdbStore in real headless Chromium: the store table every RunStore passes, a full disk
//! (a patched `IDBObjectStore.prototype.put`), a second connection reading what the first wrote,
//! no IndexedDB at all, and the storage estimate.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p execbench-idbstore --target wasm32-unknown-unknown --profile wasm-test`
#![cfg(target_arch = "wasm32")]

use execbench_idbstore::{IdbStore, storage_estimate};
use execbench_runs::manifest::RunEntry;
use execbench_runs::store::conformance::{manifest, record};
use execbench_runs::store::{Recorder, RunStore, StoreErrorKind};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// A database no other test uses.
fn fresh_name(label: &str) -> String {
    format!("execbench-test-{label}-{}-{}", js_sys::Date::now(), js_sys::Math::random())
}

async fn open(name: &str) -> IdbStore {
    match IdbStore::open(name).await {
        Ok(store) => store,
        Err(e) => panic!("opening `{name}`: {e}"),
    }
}

fn eval(js: &str) {
    if let Err(e) = js_sys::eval(js) {
        panic!("eval failed: {e:?}: {js}");
    }
}

#[wasm_bindgen_test]
async fn passes_the_store_table() {
    let store = open(&fresh_name("table")).await;
    execbench_runs::store::conformance::check(&store).await;
}

/// The page stores every way a session ends as the command line's run files do.
#[wasm_bindgen_test]
async fn stores_every_ending_as_the_command_line_does() {
    let store = open(&fresh_name("endings")).await;
    execbench_run::session::endings::check(&store).await;
}

#[wasm_bindgen_test]
async fn a_full_disk_is_quota_and_keeps_what_was_stored() {
    let store = open(&fresh_name("quota")).await;
    let recorder = Recorder::new(&store, RunEntry::new(manifest("r", 1), 0.0), &[], Box::new(js_sys::Date::now));
    recorder.record(&record("s0", 0, Some(1.0), false)).await.unwrap();

    // What the end-to-end tests do to simulate a full disk: every put throws at once.
    eval(
        "globalThis.__execbenchPut = IDBObjectStore.prototype.put;
         IDBObjectStore.prototype.put = function () { throw new DOMException('simulated', 'QuotaExceededError'); };",
    );
    let failed = recorder.record(&record("s1", 1, Some(0.0), false)).await;
    eval("IDBObjectStore.prototype.put = globalThis.__execbenchPut; delete globalThis.__execbenchPut;");

    let err = failed.expect_err("a put that throws QuotaExceededError fails the write");
    assert_eq!(err.kind, StoreErrorKind::Quota, "{err:?}");
    assert!(
        err.message.contains("QuotaExceededError") && err.message.contains("s1"),
        "the message says what happened: {}",
        err.message
    );
    let records = store.records("r").await.unwrap();
    assert_eq!(
        records.iter().map(|r| r.sample_id.as_str()).collect::<Vec<_>>(),
        ["s0"],
        "the earlier record is intact, the failed one absent"
    );
    let entry = store.entry("r").await.unwrap().expect("the entry is still there");
    assert_eq!(entry.tally.scored, 1, "the entry is the one written with s0");
    assert_eq!(recorder.entry().tally.scored, 1, "the recorder did not count the failed record");

    // The record's put succeeds and the entry's throws: the transaction is aborted, so the
    // record is not stored either (record and entry go together or not at all).
    eval(
        "globalThis.__execbenchPut = IDBObjectStore.prototype.put;
         IDBObjectStore.prototype.put = function (...args) {
           if (this.name === 'runs') throw new DOMException('simulated', 'QuotaExceededError');
           return globalThis.__execbenchPut.apply(this, args);
         };",
    );
    let failed = recorder.record(&record("s1", 1, Some(0.0), false)).await;
    eval("IDBObjectStore.prototype.put = globalThis.__execbenchPut; delete globalThis.__execbenchPut;");
    assert_eq!(failed.map_err(|e| e.kind), Err(StoreErrorKind::Quota));
    assert_eq!(
        store.records("r").await.unwrap().len(),
        1,
        "the record written before the entry's put threw was rolled back"
    );

    // With room again the same record goes in.
    recorder.record(&record("s1", 1, Some(0.0), false)).await.unwrap();
    assert_eq!(store.records("r").await.unwrap().len(), 2);
    assert_eq!(store.entry("r").await.unwrap().unwrap().tally.scored, 2);
}

#[wasm_bindgen_test]
async fn a_second_connection_reads_what_the_first_wrote() {
    let name = fresh_name("reopen");
    let (entry, records) = {
        let first = open(&name).await;
        let recorder = Recorder::new(&first, RunEntry::new(manifest("kept", 5), 0.0), &[], Box::new(js_sys::Date::now));
        recorder.record(&record("b", 1, Some(1.0), false)).await.unwrap();
        recorder.record(&record("a", 0, None, true)).await.unwrap();
        first.save_entry(&RunEntry::new(manifest("other", 9), 0.0)).await.unwrap();
        (recorder.entry(), vec![record("a", 0, None, true), record("b", 1, Some(1.0), false)])
    };
    let second = open(&name).await;
    assert_eq!(second.entry("kept").await.unwrap().as_ref(), Some(&entry));
    assert_eq!(second.records("kept").await.unwrap(), records);
    let ids: Vec<String> = second.entries().await.unwrap().iter().map(|e| e.id().to_string()).collect();
    assert_eq!(ids, ["other", "kept"]);
    assert_eq!(second.records("other").await.unwrap(), Vec::new(), "a run with no records yet");
}

#[wasm_bindgen_test]
async fn no_indexeddb_is_unavailable() {
    eval(
        "globalThis.__execbenchIdb = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
         Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true });",
    );
    let result = IdbStore::open(&fresh_name("none")).await;
    eval(
        "Object.defineProperty(globalThis, 'indexedDB', globalThis.__execbenchIdb); delete globalThis.__execbenchIdb;",
    );
    let err = result.expect_err("no indexedDB");
    assert_eq!(err.kind, StoreErrorKind::Unavailable, "{err:?}");
    assert!(err.message.contains("no IndexedDB"), "{}", err.message);
}

#[wasm_bindgen_test]
async fn the_storage_estimate_is_there() {
    let (usage, quota) = storage_estimate().await.expect("Chromium has navigator.storage.estimate");
    assert!(usage >= 0.0 && quota > 0.0, "{usage} of {quota}");
}

#[wasm_bindgen_test]
async fn passes_the_shelf_table() {
    let store = open(&fresh_name("shelf")).await;
    execbench_runs::shelf::conformance::check(&store).await;
}

#[wasm_bindgen_test]
async fn passes_the_generation_table() {
    let store = open(&fresh_name("generations")).await;
    execbench_runs::generation_store::conformance::check(&store).await;
}

/// A database left by the previous version of the page (version 1: runs and records only) is
/// upgraded in place: its runs stay, and the shelf and the generations work.
#[wasm_bindgen_test]
async fn a_version_1_database_keeps_its_runs_and_gains_a_shelf() {
    use wasm_bindgen::JsCast;
    let name = fresh_name("upgrade");
    let entry = RunEntry::new(manifest("before-upgrade", 3), 0.0);
    let value = serde_json::to_string(&serde_json::to_string(&entry).unwrap()).unwrap();
    let script = format!(
        "new Promise((resolve, reject) => {{
           const open = indexedDB.open({name:?}, 1);
           open.onupgradeneeded = () => {{ open.result.createObjectStore('runs'); open.result.createObjectStore('records'); }};
           open.onerror = () => reject(open.error);
           open.onsuccess = () => {{
             const db = open.result;
             const tx = db.transaction(['runs'], 'readwrite');
             tx.objectStore('runs').put({value}, 'before-upgrade');
             tx.oncomplete = () => {{ db.close(); resolve(); }};
             tx.onabort = () => reject(tx.error);
           }};
         }})"
    );
    let promise = js_sys::eval(&script).unwrap().dyn_into::<js_sys::Promise>().unwrap();
    wasm_bindgen_futures::JsFuture::from(promise).await.expect("a version 1 database is written");

    let store = open(&name).await;
    assert_eq!(
        store.entry("before-upgrade").await.unwrap(),
        Some(entry),
        "the run written by version 1 is still there"
    );
    execbench_runs::shelf::conformance::check(&store).await;
    execbench_runs::generation_store::conformance::check(&store).await;
}
