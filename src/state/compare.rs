//! The Compare page's state, kept while the app runs: the runs chosen, the last comparison, what
//! of it is shown, and the runs read so far (`execbench_compare::ReadRuns`).

use std::collections::BTreeSet;
use std::sync::Arc;

use execbench_compare::{Comparison, ReadRuns, RunInput};
use execbench_eval::score::Mode;
use leptos::prelude::*;

/// A comparison and the runs it was made of (the flips read their records).
pub struct Compared {
    pub runs: Vec<RunInput>,
    pub comparison: Comparison,
    /// The day it was made (UTC), the Markdown section's heading.
    pub date: String,
    /// Counts the comparisons made, shown on the table (`data-made`): a test or the benchmark
    /// tells a new comparison from the last one, whose table is updated in place.
    pub made: u32,
}

/// The page's state, kept while the app runs.
#[derive(Clone, Copy)]
pub struct CompareState {
    pub chosen: RwSignal<BTreeSet<String>>,
    pub compared: RwSignal<Option<Arc<Compared>>>,
    pub mode: RwSignal<Mode>,
    /// The pair (index in the comparison's pairs) whose flips are listed, and the flip opened.
    pub pair: RwSignal<Option<usize>>,
    pub flip: RwSignal<Option<String>>,
    pub busy: RwSignal<bool>,
    pub error: RwSignal<Option<String>>,
    /// The open dataset's field the per-category figures come from, as the user chose it
    /// (`Some("")`: none); `None` until they choose, which means the dataset's usual one.
    pub category_field: RwSignal<Option<String>>,
    /// Runs read from the store: a run compared again is not read again unless it changed.
    pub read: StoredValue<ReadRuns, LocalStorage>,
}

thread_local! {
    static PAGE: std::cell::OnceCell<CompareState> = const { std::cell::OnceCell::new() };
}

pub fn compare_state() -> CompareState {
    PAGE.with(|cell| {
        *cell.get_or_init(|| {
            super::under_root_owner(|| CompareState {
                chosen: RwSignal::new(BTreeSet::new()),
                compared: RwSignal::new(None),
                mode: RwSignal::new(Mode::Strict),
                pair: RwSignal::new(None),
                flip: RwSignal::new(None),
                busy: RwSignal::new(false),
                error: RwSignal::new(None),
                category_field: RwSignal::new(None),
                read: StoredValue::new_local(ReadRuns::new()),
            })
        })
    })
}
