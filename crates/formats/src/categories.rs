//! A dataset's shape after import: which fields its rows carry (and of which JSON types), how many
//! samples fall in each category, and every row that could not be used.
//!
//! The category field is the caller's choice, or the first of [`CATEGORY_FIELDS`] that some
//! sample has: `category` (datasets that name it so), `difficulty` (LiveCodeBench), `perturbation`
//! (CodeCrash) and `method` (benchmarks built by execbench).

use std::collections::BTreeMap;

use execbench_core::{LoadReport, RowError};
use serde_json::Value;

/// Fields used as the category when the caller names none, in order of preference.
pub const CATEGORY_FIELDS: [&str; 4] = ["category", "difficulty", "perturbation", "method"];

/// The fields every sample has outside `meta`.
const SAMPLE_FIELDS: [&str; 6] = ["id", "code", "function_name", "input", "call", "output"];

/// How one `meta` field appears across the samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSummary {
    pub name: String,
    /// Samples that have it (null included).
    pub present: usize,
    /// Samples per JSON type (`string`, `number`, `boolean`, `null`, `list`, `object`).
    pub types: BTreeMap<&'static str, usize>,
}

/// One category and how many samples are in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryCount {
    pub value: String,
    pub samples: usize,
}

/// The shape of an imported dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetShape {
    /// Rows read, good and bad.
    pub rows: usize,
    pub samples: usize,
    /// The fields of `Sample` itself, always there for every good row.
    pub sample_fields: Vec<&'static str>,
    /// The other fields, by name.
    pub meta_fields: Vec<FieldSummary>,
    /// The field the categories come from; `None` when none was asked for and none is known.
    pub category_field: Option<String>,
    /// Categories by their value's text, most samples first (then by name).
    pub categories: Vec<CategoryCount>,
    /// Ids of the samples without a value in the category field (missing or null).
    pub uncategorized: Vec<String>,
    /// Every row that could not be used, as the loader named it.
    pub invalid: Vec<RowError>,
}

impl DatasetShape {
    /// Fields whose presence or type varies between samples, in words: where a schema is not
    /// what the rows assume (`difficulty: a string in 470 samples, a number in 9`).
    pub fn inconsistencies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for field in &self.meta_fields {
            let mut parts: Vec<String> = field.types.iter().map(|(kind, n)| format!("{kind} in {n}")).collect();
            if field.present < self.samples {
                parts.push(format!("missing in {}", self.samples - field.present));
            }
            if parts.len() > 1 {
                out.push(format!("{}: {}", field.name, parts.join(", ")));
            }
        }
        out
    }
}

/// The shape of `report`'s dataset, categorised by `category_field` (or the first known one).
pub fn dataset_shape(report: &LoadReport, category_field: Option<&str>) -> DatasetShape {
    let mut fields: BTreeMap<&str, FieldSummary> = BTreeMap::new();
    for sample in &report.samples {
        for (name, value) in &sample.meta {
            let summary = fields.entry(name).or_insert_with(|| FieldSummary {
                name: name.clone(),
                present: 0,
                types: BTreeMap::new(),
            });
            summary.present += 1;
            *summary.types.entry(type_name(value)).or_insert(0) += 1;
        }
    }
    let category_field = match category_field {
        Some(field) => Some(field.to_string()),
        None => CATEGORY_FIELDS.iter().find(|f| fields.contains_key(**f)).map(|f| f.to_string()),
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut uncategorized = Vec::new();
    if let Some(field) = &category_field {
        for sample in &report.samples {
            match category_value(sample, field) {
                Some(value) => *counts.entry(value).or_insert(0) += 1,
                None => uncategorized.push(sample.id.clone()),
            }
        }
    }
    let mut categories: Vec<CategoryCount> =
        counts.into_iter().map(|(value, samples)| CategoryCount { value, samples }).collect();
    categories.sort_by(|a, b| b.samples.cmp(&a.samples).then_with(|| a.value.cmp(&b.value)));
    DatasetShape {
        rows: report.rows,
        samples: report.samples.len(),
        sample_fields: SAMPLE_FIELDS.to_vec(),
        meta_fields: fields.into_values().collect(),
        category_field,
        categories,
        uncategorized,
        invalid: report.errors.clone(),
    }
}

/// A sample's category under `field`: a meta value's text, or one of the sample's own fields.
pub fn category_value(sample: &execbench_core::Sample, field: &str) -> Option<String> {
    let own = match field {
        "id" => Some(&sample.id),
        "function_name" => Some(&sample.function_name),
        "output" => Some(&sample.output),
        _ => None,
    };
    if let Some(text) = own {
        return Some(text.clone());
    }
    match sample.meta.get(field)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}
