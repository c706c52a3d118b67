//! `--dataset FILE`, for every subcommand: read through `execbench_formats::load_dataset`, so each
//! one takes every format the library reads (JSON Lines, CodeCrash JSON Lines, Parquet, a saved
//! rows-API page), told apart by content and name.

use execbench_core::LoadReport;
use execbench_formats::{Format, load_dataset};

/// The file's samples and problems; the problems and any format other than plain JSON Lines are
/// reported on stderr.
pub fn read_dataset(path: &str) -> Result<LoadReport, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let loaded = load_dataset(path, &bytes);
    if loaded.format != Format::Jsonl {
        eprintln!("{path}: read as {}", loaded.format.label());
    }
    for error in &loaded.report.errors {
        eprintln!("invalid row: {error}");
    }
    Ok(loaded.report)
}
