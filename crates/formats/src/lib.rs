//! Dataset files people already have, read into `execbench_core::Sample`s with every bad row named
//! (file, row, field) and every good row kept: LiveCodeBench's execution set as Parquet, pages of
//! the Hugging Face dataset viewer's `rows` API, CodeCrash's perturbed JSON Lines, and the JSON
//! Lines shapes `execbench_core` reads. Also the shape of an imported dataset: its fields, counts
//! per category and invalid rows.
//!
//! Kept apart from `execbench-core` so that only what imports files pays for the Parquet reader.
//! No I/O: callers hand in bytes (the page fetches, the command line reads files).

pub mod categories;
pub mod codecrash;
pub mod datetime;
pub mod hf_rows;
pub mod livecodebench;
pub mod load;
pub mod parquet_file;

pub use categories::{CATEGORY_FIELDS, CategoryCount, DatasetShape, FieldSummary, dataset_shape};
pub use codecrash::{CodeCrashName, load_codecrash, parse_file_name as parse_codecrash_file_name};
pub use hf_rows::{PAGE_LENGTH, ROWS_API, RowsPages, load_rows_pages, page_offsets, rows_url, rows_url_at};
pub use load::{DatasetStream, Format, LoadedDataset, load_dataset, sniff_format};
pub use parquet_file::load_parquet;
