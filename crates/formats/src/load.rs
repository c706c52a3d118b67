//! The one entry point for a dataset file, whatever its format: the command line's `--dataset`
//! and the page's import both call [`load_dataset`]. The format is told from the content first
//! (Parquet's magic bytes, a rows-API page), then from the name (CodeCrash's pattern), then from
//! the first row's fields.

use execbench_core::{LoadReport, load_jsonl_bytes};
use serde_json::Value;

use crate::codecrash::{is_codecrash_row, load_codecrash, parse_file_name};
use crate::hf_rows::RowsPages;
use crate::parquet_file::load_parquet;

/// The formats [`load_dataset`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON Lines in one of the shapes `execbench_core::dataset` accepts (CRUXEval, LiveCodeBench,
    /// LeetCode contests, execbench's exports).
    Jsonl,
    /// CodeCrash's perturbed datasets (JSON Lines with CodeCrash's records).
    CodeCrash,
    /// A Parquet table (LiveCodeBench's execution set on Hugging Face).
    Parquet,
    /// One page of the Hugging Face dataset viewer's `rows` API, saved as a file.
    HfRowsPage,
}

impl Format {
    pub fn label(self) -> &'static str {
        match self {
            Format::Jsonl => "JSON Lines",
            Format::CodeCrash => "CodeCrash JSON Lines",
            Format::Parquet => "Parquet",
            Format::HfRowsPage => "Hugging Face rows API page",
        }
    }
}

/// A dataset file read, and how it was read.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedDataset {
    pub format: Format,
    pub report: LoadReport,
}

/// The format of `bytes` named `file`.
pub fn sniff_format(file: &str, bytes: &[u8]) -> Format {
    if bytes.starts_with(b"PAR1") || file.to_ascii_lowercase().ends_with(".parquet") {
        return Format::Parquet;
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    // A rows-API page is one JSON object over one or many lines, with `rows` and a total.
    if text[start..].starts_with(b"{")
        && let Ok(Value::Object(page)) = serde_json::from_slice::<Value>(text)
        && page.contains_key("rows")
        && page.contains_key("num_rows_total")
    {
        return Format::HfRowsPage;
    }
    if parse_file_name(file).is_some() {
        return Format::CodeCrash;
    }
    let first_line = text[start..].split(|&b| b == b'\n').next().unwrap_or(&[]);
    match serde_json::from_slice::<Value>(first_line) {
        Ok(Value::Object(row)) if is_codecrash_row(&row) => Format::CodeCrash,
        _ => Format::Jsonl,
    }
}

/// Reads a dataset file in any format execbench knows, naming every bad row.
pub fn load_dataset(file: &str, bytes: &[u8]) -> LoadedDataset {
    let format = sniff_format(file, bytes);
    let report = match format {
        Format::Parquet => load_parquet(file, bytes),
        Format::CodeCrash => load_codecrash(file, bytes),
        Format::HfRowsPage => {
            let text = String::from_utf8_lossy(bytes);
            let offset = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|page| page.get("rows")?.get(0)?.get("row_idx")?.as_u64())
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0);
            let mut pages = RowsPages::new(file);
            pages.add_page(offset, &text);
            pages.finish_pages_only()
        }
        Format::Jsonl => load_jsonl_bytes(file, bytes),
    };
    LoadedDataset { format, report }
}
