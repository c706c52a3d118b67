//! The IndexedDB implementation (wasm32 only). See the crate documentation for the layout.

use execbench_runs::manifest::RunEntry;
use execbench_runs::record::SampleRecord;
use execbench_runs::store::{RunStore, StoreError, StoreErrorKind, StoreResult, newest_first};
use idb::{Database, Factory, KeyRange, ObjectStore, ObjectStoreParams, Query, TransactionMode};
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{DomException, IdbDatabase, IdbTransaction};

use crate::{DATASET_BYTES, DATASETS, DB_VERSION, GENERATION_ROWS, GENERATIONS, RECORDS, RUNS};

/// One IndexedDB database holding runs, imported datasets and generations: a [`RunStore`], and
/// the shelf and generation stores (`idb_shelf`, `idb_generations`).
pub struct IdbStore {
    db: Database,
    name: String,
}

impl std::fmt::Debug for IdbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdbStore").field("name", &self.name).finish()
    }
}

impl IdbStore {
    /// Opens (creating or upgrading to version [`DB_VERSION`]) the database `db_name`.
    /// `Unavailable` when the browser has no IndexedDB or refuses to open it (a private window,
    /// storage blocked for the site, a newer schema left by a newer version of the page).
    pub async fn open(db_name: &str) -> Result<IdbStore, StoreError> {
        let unavailable = |what: &str, e: &idb::Error| {
            StoreError::new(StoreErrorKind::Unavailable, format!("{what}: {}", describe(e)))
        };
        let factory = Factory::new().map_err(|e| unavailable("this browser has no IndexedDB", &e))?;
        let mut request = factory
            .open(db_name, Some(DB_VERSION))
            .map_err(|e| unavailable(&format!("IndexedDB refused to open database `{db_name}`"), &e))?;
        request.on_upgrade_needed(|event| {
            // A store that cannot be created is reported after the open (below).
            let Ok(db) = idb::DatabaseEvent::database(&event) else { return };
            let names = db.store_names();
            for store in [RUNS, RECORDS, DATASETS, DATASET_BYTES, GENERATIONS, GENERATION_ROWS] {
                if !names.iter().any(|n| n == store) {
                    let _ = db.create_object_store(store, ObjectStoreParams::new());
                }
            }
        });
        let mut db =
            request.await.map_err(|e| unavailable(&format!("could not open IndexedDB database `{db_name}`"), &e))?;
        let names = db.store_names();
        if let Some(missing) = [RUNS, RECORDS, DATASETS, DATASET_BYTES, GENERATIONS, GENERATION_ROWS]
            .into_iter()
            .find(|s| !names.iter().any(|n| n == s))
        {
            db.close();
            return Err(StoreError::new(
                StoreErrorKind::Unavailable,
                format!("IndexedDB database `{db_name}` has no object store `{missing}`"),
            ));
        }
        // Another tab that deletes or upgrades the database waits until this connection closes.
        db.on_version_change(|event| {
            if let Some(db) = event.target().and_then(|t| t.dyn_into::<IdbDatabase>().ok()) {
                db.close();
            }
        });
        Ok(IdbStore { db, name: db_name.to_string() })
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn transaction(&self, stores: &[&str], mode: TransactionMode) -> StoreResult<idb::Transaction> {
        self.db.transaction(stores, mode).map_err(|e| {
            let (name, _) = error_name(&e);
            // InvalidStateError: the connection was closed (another tab deleted or upgraded it).
            let kind =
                if name.as_deref() == Some("InvalidStateError") { StoreErrorKind::Unavailable } else { kind_of(&e) };
            StoreError::new(
                kind,
                format!("could not start an IndexedDB transaction on `{}`: {}", self.name, describe(&e)),
            )
        })
    }

    /// Runs `requests` in one readwrite transaction over both stores and waits until it
    /// commits. A request that throws aborts the transaction (nothing of it is written).
    async fn write(
        &self,
        what: &str,
        requests: impl FnOnce(&ObjectStore, &ObjectStore) -> Result<(), idb::Error>,
    ) -> StoreResult<()> {
        self.write_pair([RUNS, RECORDS], what, requests).await
    }

    /// Runs `requests` in one readwrite transaction over the two `stores` and waits until it
    /// commits (the runs' pair, or the dataset shelf's).
    pub(crate) async fn write_pair(
        &self,
        stores: [&str; 2],
        what: &str,
        requests: impl FnOnce(&ObjectStore, &ObjectStore) -> Result<(), idb::Error>,
    ) -> StoreResult<()> {
        let tx = self.transaction(&stores, TransactionMode::ReadWrite)?;
        let fail = |e: &idb::Error| StoreError::new(kind_of(e), format!("{what}: {}", describe(e)));
        let runs = tx.object_store(stores[0]).map_err(|e| fail(&e))?;
        let records = tx.object_store(stores[1]).map_err(|e| fail(&e))?;
        let tx: IdbTransaction = tx.into();
        let done = completion(&tx);
        let issued = requests(&runs, &records);
        if let Err(e) = issued {
            // Already aborted or finished: either way nothing more is written.
            let _ = tx.abort();
            let _ = JsFuture::from(done).await;
            return Err(fail(&e));
        }
        match JsFuture::from(done).await {
            Ok(_) => Ok(()),
            Err(_) => Err(match tx.error() {
                Some(e) => {
                    let kind =
                        if e.name() == "QuotaExceededError" { StoreErrorKind::Quota } else { StoreErrorKind::Other };
                    StoreError::new(kind, format!("{what}: the transaction was aborted: {}: {}", e.name(), e.message()))
                }
                None => StoreError::new(StoreErrorKind::Other, format!("{what}: the transaction was aborted")),
            }),
        }
    }
}

/// A promise that resolves on the transaction's `complete` and rejects on its `abort` (its
/// `error` then says why). The resolve/reject functions are the handlers themselves, so no
/// closure outlives the transaction.
fn completion(tx: &IdbTransaction) -> Promise {
    Promise::new(&mut |resolve: Function, reject: Function| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&reject));
    })
}

fn run_key(run_id: &str) -> JsValue {
    JsValue::from_str(run_id)
}

/// The key `[owner, item]` of a record (`[run_id, sample_id]`) or a generation row.
pub(crate) fn pair_key(owner: &str, item: &str) -> JsValue {
    Array::of2(&JsValue::from_str(owner), &JsValue::from_str(item)).into()
}

/// Every key `[owner, item]` of one owner: from `[owner]` to `[owner, []]`.
pub(crate) fn pairs_of(owner: &str) -> Result<Query, idb::Error> {
    let lower = Array::of1(&JsValue::from_str(owner));
    let upper = Array::of2(&JsValue::from_str(owner), &Array::new());
    Ok(Query::KeyRange(KeyRange::bound(&lower, &upper, Some(false), Some(false))?))
}

pub(crate) fn to_json<T: serde::Serialize>(value: &T, what: &str) -> StoreResult<JsValue> {
    serde_json::to_string(value)
        .map(|s| JsValue::from_str(&s))
        .map_err(|e| StoreError::new(StoreErrorKind::Other, format!("could not serialize {what}: {e}")))
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(value: &JsValue, what: &dyn Fn() -> String) -> StoreResult<T> {
    let text = value.as_string().ok_or_else(|| {
        StoreError::new(StoreErrorKind::Other, format!("{} in IndexedDB is not a JSON string", what()))
    })?;
    serde_json::from_str(&text)
        .map_err(|e| StoreError::new(StoreErrorKind::Other, format!("{} in IndexedDB is not readable: {e}", what())))
}

/// The JS error's `name` and `message` inside an idb error, where there is one.
fn error_name(e: &idb::Error) -> (Option<String>, Option<String>) {
    use idb::Error as E;
    let value: &JsValue = match e {
        E::DomException(d) => return (Some(d.name()), Some(d.message())),
        E::AddFailed(v)
        | E::UpdateFailed(v)
        | E::DeleteFailed(v)
        | E::ClearFailed(v)
        | E::GetFailed(v)
        | E::GetAllFailed(v)
        | E::GetAllKeysFailed(v)
        | E::CountFailed(v)
        | E::OpenCursorFailed(v)
        | E::IndexedDbNotFound(v)
        | E::IndexedDbOpenFailed(v)
        | E::ObjectStoreNotFound(v)
        | E::ObjectStoreCreateFailed(v)
        | E::KeyRangeCreateFailed(v)
        | E::TransactionOpenFailed(v)
        | E::TransactionAbortError(v)
        | E::RequestResultNotFound(v)
        | E::RequestErrorNotFound(v)
        | E::UnexpectedJsType(_, v) => v,
        _ => return (None, None),
    };
    if let Some(d) = value.dyn_ref::<DomException>() {
        return (Some(d.name()), Some(d.message()));
    }
    let field = |k: &str| Reflect::get(value, &JsValue::from_str(k)).ok().and_then(|v| v.as_string());
    if value.is_object() { (field("name"), field("message")) } else { (None, value.as_string()) }
}

pub(crate) fn kind_of(e: &idb::Error) -> StoreErrorKind {
    match error_name(e).0.as_deref() {
        Some("QuotaExceededError") => StoreErrorKind::Quota,
        _ => StoreErrorKind::Other,
    }
}

/// Words for an idb error: the JS error's name and message when there is one.
pub(crate) fn describe(e: &idb::Error) -> String {
    match error_name(e) {
        (Some(name), Some(message)) if !message.is_empty() => format!("{name}: {message}"),
        (Some(name), _) => name,
        (None, Some(message)) => message,
        (None, None) => e.to_string(),
    }
}

fn read_error(run_id: Option<&str>, e: &idb::Error) -> StoreError {
    let what = match run_id {
        Some(id) => format!("could not read run `{id}` from IndexedDB"),
        None => "could not read the list of runs from IndexedDB".to_string(),
    };
    StoreError::new(kind_of(e), format!("{what}: {}", describe(e)))
}

impl RunStore for IdbStore {
    async fn save_entry(&self, entry: &RunEntry) -> StoreResult<()> {
        let value = to_json(entry, "the run entry")?;
        let key = run_key(entry.id());
        self.write(&format!("could not store run `{}`", entry.id()), |runs, _| runs.put(&value, Some(&key)).map(|_| ()))
            .await
    }

    async fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> StoreResult<()> {
        let record_value = to_json(record, "the sample record")?;
        let entry_value = to_json(entry, "the run entry")?;
        let (record_key, entry_key) = (pair_key(entry.id(), &record.sample_id), run_key(entry.id()));
        self.write(
            &format!("could not store the record of sample `{}` of run `{}`", record.sample_id, entry.id()),
            |runs, records| {
                records.put(&record_value, Some(&record_key))?;
                runs.put(&entry_value, Some(&entry_key))?;
                Ok(())
            },
        )
        .await
    }

    async fn entries(&self) -> StoreResult<Vec<RunEntry>> {
        let tx = self.transaction(&[RUNS], TransactionMode::ReadOnly)?;
        let runs = tx.object_store(RUNS).map_err(|e| read_error(None, &e))?;
        let values =
            runs.get_all(None, None).map_err(|e| read_error(None, &e))?.await.map_err(|e| read_error(None, &e))?;
        let mut all = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            all.push(from_json::<RunEntry>(v, &|| format!("run entry #{i}"))?);
        }
        newest_first(&mut all);
        Ok(all)
    }

    async fn entry(&self, run_id: &str) -> StoreResult<Option<RunEntry>> {
        let tx = self.transaction(&[RUNS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error(Some(run_id), &e);
        let runs = tx.object_store(RUNS).map_err(err)?;
        let value = runs.get(Query::Key(run_key(run_id))).map_err(err)?.await.map_err(err)?;
        match value {
            Some(v) if !v.is_undefined() => from_json(&v, &|| format!("the entry of run `{run_id}`")).map(Some),
            _ => Ok(None),
        }
    }

    async fn records(&self, run_id: &str) -> StoreResult<Vec<SampleRecord>> {
        let tx = self.transaction(&[RUNS, RECORDS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error(Some(run_id), &e);
        let runs = tx.object_store(RUNS).map_err(err)?;
        let records = tx.object_store(RECORDS).map_err(err)?;
        // Both requests are issued before either is awaited, and both are awaited (a dropped
        // request future would leave a dead callback behind).
        let exists = runs.count(Some(Query::Key(run_key(run_id)))).map_err(err)?;
        let values = records.get_all(Some(pairs_of(run_id).map_err(err)?), None).map_err(err)?;
        let (exists, values) = futures::join!(exists.into_future(), values.into_future());
        if exists.map_err(err)? == 0 {
            return Err(StoreError::not_found(run_id));
        }
        let values = values.map_err(err)?;
        let mut all = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            all.push(from_json::<SampleRecord>(v, &|| format!("record #{i} of run `{run_id}`"))?);
        }
        all.sort_by_key(|r| r.index);
        Ok(all)
    }

    async fn record_count(&self, run_id: &str) -> StoreResult<usize> {
        let tx = self.transaction(&[RECORDS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error(Some(run_id), &e);
        let records = tx.object_store(RECORDS).map_err(err)?;
        let count = records.count(Some(pairs_of(run_id).map_err(err)?)).map_err(err)?.await.map_err(err)?;
        Ok(count as usize)
    }

    async fn delete(&self, run_id: &str) -> StoreResult<()> {
        let key = run_key(run_id);
        self.write(&format!("could not delete run `{run_id}`"), |runs, records| {
            records.delete(pairs_of(run_id)?)?;
            runs.delete(Query::Key(key))?;
            Ok(())
        })
        .await
    }
}

/// `navigator.storage.estimate()`: (bytes used, bytes the origin may use), or `None` where the
/// browser does not say (no Storage API, an insecure context, a refusal).
pub async fn storage_estimate() -> Option<(f64, f64)> {
    let get = |target: &JsValue, key: &str| {
        Reflect::get(target, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
    };
    let navigator = get(&js_sys::global(), "navigator")?;
    let storage = get(&navigator, "storage")?;
    let estimate = get(&storage, "estimate")?.dyn_into::<Function>().ok()?;
    let promise = estimate.call0(&storage).ok()?.dyn_into::<Promise>().ok()?;
    let result = JsFuture::from(promise).await.ok()?;
    Some((get(&result, "usage")?.as_f64()?, get(&result, "quota")?.as_f64()?))
}

/// Whether the browser keeps this origin's storage until the user clears it (not evicted under
/// storage pressure): `navigator.storage.persisted()`, or with `ask`, `navigator.storage.persist()`
/// (Chromium grants or refuses it by itself; Firefox asks the user). `None` where the browser has
/// no Storage API or refuses to say.
pub async fn storage_persisted(ask: bool) -> Option<bool> {
    let get = |target: &JsValue, key: &str| {
        Reflect::get(target, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
    };
    let navigator = get(&js_sys::global(), "navigator")?;
    let storage = get(&navigator, "storage")?;
    let call = get(&storage, if ask { "persist" } else { "persisted" })?.dyn_into::<Function>().ok()?;
    let promise = call.call0(&storage).ok()?.dyn_into::<Promise>().ok()?;
    JsFuture::from(promise).await.ok()?.as_bool()
}
