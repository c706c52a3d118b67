//! Reading the runs chosen for a comparison from a run store (the page's IndexedDB, or memory).
//! Reading records is most of a comparison's time, so a run compared again is read again only
//! when its entry changed since (a resumed or extended run).

use std::collections::{BTreeMap, BTreeSet};

use execbench_runs::manifest::RunEntry;
use execbench_runs::store::RunStore;

use crate::run::RunInput;

/// Runs read so far, by run id, with the entry's last change when they were read.
#[derive(Clone, Debug, Default)]
pub struct ReadRuns {
    read: BTreeMap<String, (f64, RunInput)>,
}

impl ReadRuns {
    pub fn new() -> ReadRuns {
        ReadRuns::default()
    }

    /// The `chosen` runs among `entries`, in the entries' order (newest first, as stores list
    /// them), so the table does not depend on the order they were chosen in. A run unchanged
    /// since it was last read is not read again. The first run that cannot be read ends it,
    /// with why.
    pub async fn inputs<S: RunStore>(
        &mut self,
        store: &S,
        entries: &[RunEntry],
        chosen: &BTreeSet<String>,
    ) -> Result<Vec<RunInput>, String> {
        let mut inputs = Vec::new();
        for entry in entries.iter().filter(|e| chosen.contains(&e.manifest.run_id)) {
            let id = &entry.manifest.run_id;
            if let Some((_, run)) = self.read.get(id).filter(|(at, _)| *at == entry.updated_ms) {
                inputs.push(run.clone());
                continue;
            }
            let records = store.records(id).await.map_err(|e| format!("run `{id}` could not be read: {e}"))?;
            let run = RunInput::new(id.clone(), entry.manifest.clone(), records);
            self.read.insert(id.clone(), (entry.updated_ms, run.clone()));
            inputs.push(run);
        }
        Ok(inputs)
    }
}
