//! Benchmark generations over IndexedDB (wasm32 only): entries in `generations` as JSON strings
//! (key: the generation id), rows in `generation_rows` (key: `[generation id, request id]`), a
//! row written with its entry in one transaction.

use execbench_runs::generation_store::{GenerationEntry, GenerationRow, GenerationStore, newest_first, not_kept};
use execbench_runs::store::{StoreError, StoreResult};
use idb::{Query, TransactionMode};
use wasm_bindgen::JsValue;

use crate::idb_store::{IdbStore, describe, from_json, kind_of, pair_key, pairs_of, to_json};
use crate::{GENERATION_ROWS, GENERATIONS};

fn read_error(what: &str, e: &idb::Error) -> StoreError {
    StoreError::new(kind_of(e), format!("could not read {what} from IndexedDB: {}", describe(e)))
}

impl GenerationStore for IdbStore {
    async fn save_generation(&self, entry: &GenerationEntry) -> StoreResult<()> {
        let value = to_json(entry, "the generation entry")?;
        let key = JsValue::from_str(&entry.id);
        self.write_pair(
            [GENERATIONS, GENERATION_ROWS],
            &format!("could not keep generation `{}`", entry.id),
            |entries, _| entries.put(&value, Some(&key)).map(|_| ()),
        )
        .await
    }

    async fn put_generation_row(&self, entry: &GenerationEntry, row: &GenerationRow) -> StoreResult<()> {
        let row_value = to_json(row, "the generation row")?;
        let entry_value = to_json(entry, "the generation entry")?;
        let (row_key, entry_key) = (pair_key(&entry.id, &row.id), JsValue::from_str(&entry.id));
        self.write_pair(
            [GENERATIONS, GENERATION_ROWS],
            &format!("could not keep the response to `{}` of generation `{}`", row.id, entry.id),
            |entries, rows| {
                rows.put(&row_value, Some(&row_key))?;
                entries.put(&entry_value, Some(&entry_key))?;
                Ok(())
            },
        )
        .await
    }

    async fn generations(&self) -> StoreResult<Vec<GenerationEntry>> {
        let tx = self.transaction(&[GENERATIONS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error("the kept generations", &e);
        let values = tx.object_store(GENERATIONS).map_err(err)?.get_all(None, None).map_err(err)?.await.map_err(err)?;
        let mut all = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            all.push(from_json::<GenerationEntry>(v, &|| format!("generation entry #{i}"))?);
        }
        newest_first(&mut all);
        Ok(all)
    }

    async fn generation_rows(&self, id: &str) -> StoreResult<Vec<GenerationRow>> {
        let tx = self.transaction(&[GENERATIONS, GENERATION_ROWS], TransactionMode::ReadOnly)?;
        let err = |e: idb::Error| read_error(&format!("generation `{id}`"), &e);
        let entries = tx.object_store(GENERATIONS).map_err(err)?;
        let rows = tx.object_store(GENERATION_ROWS).map_err(err)?;
        // Both requests are issued before either is awaited, and both are awaited.
        let exists = entries.count(Some(Query::Key(JsValue::from_str(id)))).map_err(err)?;
        let values = rows.get_all(Some(pairs_of(id).map_err(err)?), None).map_err(err)?;
        let (exists, values) = futures::join!(exists.into_future(), values.into_future());
        if exists.map_err(err)? == 0 {
            return Err(not_kept(id));
        }
        let values = values.map_err(err)?;
        let mut all = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            all.push(from_json::<GenerationRow>(v, &|| format!("row #{i} of generation `{id}`"))?);
        }
        Ok(all)
    }

    async fn delete_generation(&self, id: &str) -> StoreResult<()> {
        let key = JsValue::from_str(id);
        self.write_pair(
            [GENERATIONS, GENERATION_ROWS],
            &format!("could not delete generation `{id}`"),
            |entries, rows| {
                rows.delete(pairs_of(id)?)?;
                entries.delete(Query::Key(key))?;
                Ok(())
            },
        )
        .await
    }
}
