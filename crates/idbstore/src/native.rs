//! Outside the browser there is no IndexedDB: the same API, where `open` always fails with
//! `Unavailable`, so no `IdbStore` can exist and its methods are never reached.

use execbench_runs::generation_store::{GenerationEntry, GenerationRow, GenerationStore};
use execbench_runs::manifest::RunEntry;
use execbench_runs::record::SampleRecord;
use execbench_runs::shelf::{DatasetShelf, ShelfEntry};
use execbench_runs::store::{RunStore, StoreError, StoreErrorKind, StoreResult};

/// A [`RunStore`] over IndexedDB; natively it cannot be opened.
#[derive(Debug)]
pub struct IdbStore {
    never: std::convert::Infallible,
}

impl IdbStore {
    /// Natively always `Unavailable`.
    pub async fn open(db_name: &str) -> Result<IdbStore, StoreError> {
        Err(StoreError::new(
            StoreErrorKind::Unavailable,
            format!("IndexedDB (database `{db_name}`) exists only in a browser"),
        ))
    }

    pub fn name(&self) -> &str {
        match self.never {}
    }
}

impl RunStore for IdbStore {
    async fn save_entry(&self, _: &RunEntry) -> StoreResult<()> {
        match self.never {}
    }
    async fn put_record(&self, _: &RunEntry, _: &SampleRecord) -> StoreResult<()> {
        match self.never {}
    }
    async fn entries(&self) -> StoreResult<Vec<RunEntry>> {
        match self.never {}
    }
    async fn entry(&self, _: &str) -> StoreResult<Option<RunEntry>> {
        match self.never {}
    }
    async fn records(&self, _: &str) -> StoreResult<Vec<SampleRecord>> {
        match self.never {}
    }
    async fn delete(&self, _: &str) -> StoreResult<()> {
        match self.never {}
    }
}

impl DatasetShelf for IdbStore {
    async fn put(&self, _: &ShelfEntry, _: &[u8]) -> StoreResult<()> {
        match self.never {}
    }
    async fn touch(&self, _: &ShelfEntry) -> StoreResult<()> {
        match self.never {}
    }
    async fn list(&self) -> StoreResult<Vec<ShelfEntry>> {
        match self.never {}
    }
    async fn bytes(&self, _: &str) -> StoreResult<Vec<u8>> {
        match self.never {}
    }
    async fn remove(&self, _: &str) -> StoreResult<()> {
        match self.never {}
    }
}

impl GenerationStore for IdbStore {
    async fn save_generation(&self, _: &GenerationEntry) -> StoreResult<()> {
        match self.never {}
    }
    async fn put_generation_row(&self, _: &GenerationEntry, _: &GenerationRow) -> StoreResult<()> {
        match self.never {}
    }
    async fn generations(&self) -> StoreResult<Vec<GenerationEntry>> {
        match self.never {}
    }
    async fn generation_rows(&self, _: &str) -> StoreResult<Vec<GenerationRow>> {
        match self.never {}
    }
    async fn delete_generation(&self, _: &str) -> StoreResult<()> {
        match self.never {}
    }
}

/// Natively there is no storage estimate.
pub async fn storage_estimate() -> Option<(f64, f64)> {
    None
}

/// Natively nothing is persisted by a browser.
pub async fn storage_persisted(_ask: bool) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn natively_there_is_no_indexeddb() {
        let err = futures::executor::block_on(super::IdbStore::open("execbench")).expect_err("no IndexedDB natively");
        assert_eq!(err.kind, execbench_runs::store::StoreErrorKind::Unavailable);
        assert_eq!(futures::executor::block_on(super::storage_estimate()), None);
        assert_eq!(futures::executor::block_on(super::storage_persisted(true)), None);
    }
}
