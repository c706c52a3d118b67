//! The one entry point for a dataset file, whatever its format: the command line's `--dataset`
//! and the page's import both call [`load_dataset`]. The format is told from the content first
//! (Parquet's magic bytes, a rows-API page), then from the name (CodeCrash's pattern), then from
//! the first row's fields.

use execbench_core::{LoadReport, load_jsonl_bytes};
use serde_json::Value;

use crate::codecrash::{is_codecrash_row, load_codecrash, parse_file_name, row_converter};
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

/// The conversion of one JSON Lines row into a sample, for the format a stream was found to be.
pub(crate) type Convert<'a> =
    Box<dyn FnMut(serde_json::Map<String, Value>) -> Result<execbench_core::Sample, execbench_core::FieldError> + 'a>;

/// A dataset file read in chunks (a big file, sliced so the page can show progress between
/// slices): JSON Lines and CodeCrash files are loaded row by row as the chunks arrive; Parquet and
/// rows-API pages, which need the whole file, are kept and loaded at the end. Either way the
/// result is [`load_dataset`]'s on the whole file.
pub struct DatasetStream<'a> {
    file: &'a str,
    state: StreamState<'a>,
}

enum StreamState<'a> {
    /// Nothing decided yet: the bytes so far (at least the first line is needed).
    Undecided(Vec<u8>),
    Rows(Format, execbench_core::JsonlReader<'a, Convert<'a>>),
    Whole(Vec<u8>),
}

/// How far the format is looked for before the file is kept whole: a first line longer than this
/// is no JSON Lines row anyone writes by hand, and [`load_dataset`] reads it at the end.
const SNIFF_LIMIT: usize = 1 << 20;

impl<'a> DatasetStream<'a> {
    pub fn new(file: &'a str) -> Self {
        DatasetStream { file, state: StreamState::Undecided(Vec::new()) }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        match &mut self.state {
            StreamState::Rows(_, reader) => reader.feed(chunk),
            StreamState::Whole(bytes) => bytes.extend_from_slice(chunk),
            StreamState::Undecided(head) => {
                head.extend_from_slice(chunk);
                if let Some(decided) = decide(self.file, head) {
                    let head = std::mem::take(head);
                    self.state = match decided {
                        Some(format) => {
                            let mut reader = execbench_core::JsonlReader::new(self.file, converter(self.file, format));
                            reader.feed(&head);
                            StreamState::Rows(format, reader)
                        }
                        None => StreamState::Whole(head),
                    };
                }
            }
        }
    }

    /// Rows loaded so far (0 until the format allows loading before the end).
    pub fn rows(&self) -> usize {
        match &self.state {
            StreamState::Rows(_, reader) => reader.rows(),
            _ => 0,
        }
    }

    /// True when the rows were loaded as they came; false when `finish` decodes the whole file
    /// at the end (Parquet, a rows page, a file too short to tell), which a page does off its
    /// thread.
    pub fn loads_as_read(&self) -> bool {
        matches!(self.state, StreamState::Rows(..))
    }

    pub fn finish(self) -> LoadedDataset {
        let file = self.file;
        self.finish_rows().unwrap_or_else(|bytes| load_dataset(file, &bytes))
    }

    /// The rows loaded as they came, or, for a file that must be decoded whole (Parquet, a rows
    /// page, a file too short to tell), its bytes. Never decodes: the page calls this and hands
    /// whole files to its loader worker, so the page's wasm does not link `load_dataset` and with
    /// it the Parquet decoder (about 560 KB; docs/performance.md).
    pub fn finish_rows(self) -> Result<LoadedDataset, Vec<u8>> {
        match self.state {
            StreamState::Rows(format, reader) => Ok(LoadedDataset { format, report: reader.finish() }),
            StreamState::Undecided(bytes) | StreamState::Whole(bytes) => Err(bytes),
        }
    }
}

/// From the file's start: `Some(Some(format))` to load rows as they come, `Some(None)` to keep the
/// whole file, `None` to wait for more bytes. Agrees with [`sniff_format`]: whatever is not surely
/// JSON Lines or CodeCrash rows is kept whole, so [`load_dataset`] decides.
fn decide(file: &str, head: &[u8]) -> Option<Option<Format>> {
    if head.starts_with(b"PAR1") || file.to_ascii_lowercase().ends_with(".parquet") {
        return Some(None);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let Some(end) = text[start..].iter().position(|&b| b == b'\n') else {
        return (head.len() > SNIFF_LIMIT).then_some(None);
    };
    let first_line = &text[start..start + end];
    match serde_json::from_slice::<Value>(first_line) {
        // A rows-API page written on one line.
        Ok(Value::Object(row)) if row.contains_key("rows") && row.contains_key("num_rows_total") => Some(None),
        Ok(Value::Object(row)) if parse_file_name(file).is_some() || is_codecrash_row(&row) => {
            Some(Some(Format::CodeCrash))
        }
        Ok(Value::Object(_)) => Some(Some(Format::Jsonl)),
        // Not a row (a pretty-printed page, broken JSON): the whole file decides.
        _ => Some(None),
    }
}

fn converter<'a>(file: &'a str, format: Format) -> Convert<'a> {
    match format {
        Format::CodeCrash => Box::new(row_converter(file)),
        _ => Box::new(execbench_core::sample_from_row),
    }
}
