//! The dataset shelf over IndexedDB (wasm32 only): entries in `datasets` as JSON strings, the
//! files' bytes in `dataset_bytes` as `Uint8Array`s, written together in one transaction.

use execbench_runs::shelf::{DatasetShelf, ShelfEntry, not_kept, recent_first};
use execbench_runs::store::{StoreError, StoreResult};
use idb::{Query, TransactionMode};
use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};

use crate::idb_store::{IdbStore, describe, from_json, kind_of, to_json};
use crate::{DATASET_BYTES, DATASETS};

fn read_error(what: &str, e: &idb::Error) -> StoreError {
    StoreError::new(kind_of(e), format!("could not read {what} from IndexedDB: {}", describe(e)))
}

impl DatasetShelf for IdbStore {
    async fn put(&self, entry: &ShelfEntry, bytes: &[u8]) -> StoreResult<()> {
        let value = to_json(entry, "the dataset entry")?;
        let data: JsValue = Uint8Array::from(bytes).into();
        let key = JsValue::from_str(&entry.id);
        self.write_pair(
            [DATASETS, DATASET_BYTES],
            &format!("could not keep dataset `{}`", entry.name),
            |entries, files| {
                files.put(&data, Some(&key))?;
                entries.put(&value, Some(&key))?;
                Ok(())
            },
        )
        .await
    }

    async fn touch(&self, entry: &ShelfEntry) -> StoreResult<()> {
        let tx = self.transaction(&[DATASETS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error("the kept datasets", &e);
        let entries = tx.object_store(DATASETS).map_err(err)?;
        let kept = entries.count(Some(Query::Key(JsValue::from_str(&entry.id)))).map_err(err)?.await.map_err(err)?;
        if kept == 0 {
            return Err(not_kept(&entry.id));
        }
        let value = to_json(entry, "the dataset entry")?;
        let key = JsValue::from_str(&entry.id);
        self.write_pair(
            [DATASETS, DATASET_BYTES],
            &format!("could not update dataset `{}`", entry.name),
            |entries, _| entries.put(&value, Some(&key)).map(|_| ()),
        )
        .await
    }

    async fn list(&self) -> StoreResult<Vec<ShelfEntry>> {
        let tx = self.transaction(&[DATASETS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error("the kept datasets", &e);
        let values = tx.object_store(DATASETS).map_err(err)?.get_all(None, None).map_err(err)?.await.map_err(err)?;
        let mut all = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            all.push(from_json::<ShelfEntry>(v, &|| format!("dataset entry #{i}"))?);
        }
        recent_first(&mut all);
        Ok(all)
    }

    async fn bytes(&self, id: &str) -> StoreResult<Vec<u8>> {
        let tx = self.transaction(&[DATASET_BYTES], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error(&format!("dataset `{id}`"), &e);
        let value = tx
            .object_store(DATASET_BYTES)
            .map_err(err)?
            .get(Query::Key(JsValue::from_str(id)))
            .map_err(err)?
            .await
            .map_err(err)?;
        match value {
            Some(v) if !v.is_undefined() => match v.dyn_into::<Uint8Array>() {
                Ok(array) => Ok(array.to_vec()),
                Err(_) => Err(StoreError::new(
                    execbench_runs::store::StoreErrorKind::Other,
                    format!("dataset `{id}` in IndexedDB is not a byte array"),
                )),
            },
            _ => Err(not_kept(id)),
        }
    }

    async fn remove(&self, id: &str) -> StoreResult<()> {
        let key = JsValue::from_str(id);
        self.write_pair([DATASETS, DATASET_BYTES], &format!("could not remove dataset `{id}`"), |entries, files| {
            files.delete(Query::Key(key.clone()))?;
            entries.delete(Query::Key(key))?;
            Ok(())
        })
        .await
    }
}
