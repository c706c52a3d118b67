//! pass@1 per category of the original samples (a dataset's `category` field, LiveCodeBench's
//! difficulty, CRUXEval's method...): the caller reads the map from the dataset and hands it in.

use std::collections::BTreeMap;

use execbench_eval::score::Mode;
use serde::Serialize;

use crate::CompareOptions;
use crate::identity::original_id;
use crate::run::RunInput;
use crate::stats::{Interval, bootstrap_interval, mean, rng_for};

/// The category of samples the map does not name.
pub const NO_CATEGORY: &str = "(none)";

/// Percentages, over the category's scored samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CategoryScore {
    pub category: String,
    pub samples: usize,
    pub pass_at_1: Option<f64>,
    pub interval: Option<Interval>,
}

/// One score per category (by name), `categories` mapping original sample ids to categories.
pub fn category_scores(
    run: &RunInput,
    mode: Mode,
    categories: &BTreeMap<String, String>,
    options: &CompareOptions,
) -> Vec<CategoryScore> {
    let mut by_category: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (id, outcome) in run.outcomes(mode) {
        let category = categories.get(original_id(id)).map_or(NO_CATEGORY, String::as_str);
        by_category.entry(category).or_default().push(outcome.pass_at_1);
    }
    by_category
        .into_iter()
        .map(|(category, values)| {
            let mut rng = rng_for(options.seed, &[&run.manifest.run_id, mode.label(), category]);
            CategoryScore {
                category: category.to_string(),
                samples: values.len(),
                pass_at_1: mean(&values).map(|m| m * 100.0),
                interval: bootstrap_interval(&values, options.bootstrap, &mut rng).map(|i| i.scaled(100.0)),
            }
        })
        .collect()
}
