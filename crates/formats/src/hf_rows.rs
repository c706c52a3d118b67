//! The Hugging Face dataset viewer's `rows` API, read page by page: each page is
//! `{"features": [{"name", "type": {"dtype"}}...], "rows": [{"row_idx", "row", "truncated_cells"}],
//! "num_rows_total"}` and holds at most [`PAGE_LENGTH`] rows. The page fetches the pages (it allows
//! any origin); this module says which to fetch and turns their text into samples, with the same
//! row rules as a file. Row numbers in errors are `row_idx + 1`, as a JSON Lines export of the same
//! rows would number its lines.

use std::collections::BTreeSet;

use execbench_core::{LoadReport, RowLoader};
use serde_json::{Map, Value};

use crate::datetime::{TimeUnit, timestamp_text};
use crate::livecodebench;

/// The most rows the API returns at once.
pub const PAGE_LENGTH: usize = 100;

/// Hugging Face's dataset viewer `rows` endpoint.
pub const ROWS_API: &str = "https://datasets-server.huggingface.co/rows";

/// The address of one page of rows.
pub fn rows_url(dataset: &str, config: &str, split: &str, offset: usize, length: usize) -> String {
    rows_url_at(ROWS_API, dataset, config, split, offset, length)
}

/// The address of one page of rows at another `rows` endpoint (a mirror, a test's server).
pub fn rows_url_at(api: &str, dataset: &str, config: &str, split: &str, offset: usize, length: usize) -> String {
    format!(
        "{api}?dataset={}&config={}&split={}&offset={offset}&length={}",
        query_text(dataset),
        query_text(config),
        query_text(split),
        length.min(PAGE_LENGTH)
    )
}

/// Percent-encodes everything but unreserved characters and the `/` of `owner/name`.
fn query_text(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => out.push(byte as char),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// The offsets of the pages that together hold `num_rows_total` rows, first page included.
pub fn page_offsets(num_rows_total: usize) -> Vec<usize> {
    (0..num_rows_total).step_by(PAGE_LENGTH).collect()
}

/// What one page said about the whole split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageInfo {
    pub num_rows_total: usize,
    /// Rows on this page.
    pub rows: usize,
}

/// Pages of one split, added in any order, read into one [`LoadReport`].
pub struct RowsPages<'a> {
    loader: RowLoader<'a>,
    seen: BTreeSet<usize>,
    num_rows_total: Option<usize>,
}

impl<'a> RowsPages<'a> {
    /// `source` names the split in errors (`livecodebench/execution-v2 test`).
    pub fn new(source: &'a str) -> Self {
        RowsPages { loader: RowLoader::new(source), seen: BTreeSet::new(), num_rows_total: None }
    }

    /// Reads the page fetched at `offset`. A page that cannot be read is one error (its rows are
    /// then reported missing by [`RowsPages::finish`]); a bad row on a good page is that row's.
    pub fn add_page(&mut self, offset: usize, text: &str) -> Option<PageInfo> {
        let page_error = |loader: &mut RowLoader, field: Option<&str>, message: String| {
            loader.error(offset + 1, field, format!("the page at offset {offset}: {message}"))
        };
        let mut page = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(page)) => page,
            Ok(other) => {
                page_error(
                    &mut self.loader,
                    None,
                    format!("expected a JSON object, found {}", execbench_core::dataset::json_type(&other)),
                );
                return None;
            }
            Err(e) => {
                page_error(&mut self.loader, None, format!("not valid JSON: {e}"));
                return None;
            }
        };
        if let Some(Value::String(message)) = page.get("error") {
            page_error(&mut self.loader, None, format!("the API answered with an error: {message}"));
            return None;
        }
        let Some(total) = page.get("num_rows_total").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok())
        else {
            page_error(&mut self.loader, Some("num_rows_total"), "missing or not a count".to_string());
            return None;
        };
        let Some(Value::Array(rows)) = page.remove("rows") else {
            page_error(&mut self.loader, Some("rows"), "missing or not a list".to_string());
            return None;
        };
        self.num_rows_total = Some(self.num_rows_total.unwrap_or(0).max(total));
        let features = Features::of(page.get("features"));
        let count = rows.len();
        for (index, entry) in rows.into_iter().enumerate() {
            self.entry(offset, index, entry, &features);
        }
        Some(PageInfo { num_rows_total: total, rows: count })
    }

    fn entry(&mut self, offset: usize, index: usize, entry: Value, features: &Features) {
        let Value::Object(mut entry) = entry else {
            return self.loader.unreadable(
                offset + index + 1,
                None,
                format!("the page at offset {offset}, entry {index}: expected an object"),
            );
        };
        let Some(row_idx) = entry.get("row_idx").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()) else {
            return self.loader.unreadable(
                offset + index + 1,
                Some("row_idx"),
                format!("the page at offset {offset}, entry {index}: missing or not a count"),
            );
        };
        let number = row_idx + 1;
        if !self.seen.insert(row_idx) {
            return self.loader.error(
                number,
                Some("row_idx"),
                format!("row_idx {row_idx} is on two pages (kept once)"),
            );
        }
        let Some(Value::Object(row)) = entry.remove("row") else {
            return self.loader.unreadable(number, Some("row"), "missing or not an object".to_string());
        };
        if let Some(Value::Array(truncated)) = entry.get("truncated_cells")
            && let Some(Value::String(cell)) = truncated.first()
        {
            return self.loader.unreadable(
                number,
                Some(cell),
                "cut short by the rows API (the cell is too long): read the Parquet file instead".to_string(),
            );
        }
        let row = features.normalized(row);
        let converted =
            if features.lcb { livecodebench::sample_from_row(row) } else { execbench_core::sample_from_row(row) };
        self.loader.row(number, converted);
    }

    /// The rows of the pages added, and nothing about the rest of the split: for a page saved as
    /// a file, which is its rows and not the whole split.
    pub fn finish_pages_only(mut self) -> LoadReport {
        if self.loader.rows() == 0 && self.num_rows_total.is_none() {
            self.loader.error(1, None, "no page of rows was read".to_string());
        }
        self.loader.finish()
    }

    /// The report; rows the split has but no page held are errors, one per missing range.
    pub fn finish(mut self) -> LoadReport {
        let total = self.num_rows_total.unwrap_or(0);
        let mut row = 0;
        while row < total {
            if self.seen.contains(&row) {
                row += 1;
                continue;
            }
            let start = row;
            while row < total && !self.seen.contains(&row) {
                row += 1;
            }
            let message = format!(
                "rows {} to {} of {total} were not on any page (fetch offsets {start} to {})",
                start + 1,
                row,
                row - 1
            );
            self.loader.unreadable_rows(start + 1, row - start, None, message);
        }
        match self.num_rows_total {
            None if self.loader.rows() == 0 => self.loader.error(1, None, "no page of rows was read".to_string()),
            Some(0) if self.loader.rows() == 0 => self.loader.error(1, None, "the split has no rows".to_string()),
            _ => {}
        }
        self.loader.finish()
    }
}

/// Reads pages given as `(offset, text)`.
pub fn load_rows_pages(source: &str, pages: &[(usize, &str)]) -> LoadReport {
    let mut reader = RowsPages::new(source);
    for (offset, text) in pages {
        reader.add_page(*offset, text);
    }
    reader.finish()
}

/// What the page's `features` say about the columns.
struct Features {
    lcb: bool,
    /// Timestamp columns, with their unit, for values the API gives as numbers.
    timestamps: Vec<(String, TimeUnit)>,
}

impl Features {
    fn of(features: Option<&Value>) -> Features {
        let list = features.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        let names: Vec<&str> = list.iter().filter_map(|f| f.get("name")?.as_str()).collect();
        let timestamps = list
            .iter()
            .filter_map(|f| {
                let dtype = f.get("type")?.get("dtype")?.as_str()?;
                let unit = dtype.strip_prefix("timestamp[")?.split([',', ']']).next()?;
                Some((f.get("name")?.as_str()?.to_string(), TimeUnit::of_arrow(unit)?))
            })
            .collect();
        Features { lcb: livecodebench::is_lcb_schema(&names), timestamps }
    }

    /// The row as a Parquet file's twin would give it: numeric timestamps as ISO text.
    fn normalized(&self, mut row: Map<String, Value>) -> Map<String, Value> {
        for (name, unit) in &self.timestamps {
            if let Some(n) = row.get(name).and_then(Value::as_i64) {
                row.insert(name.clone(), Value::String(timestamp_text(n, *unit)));
            }
        }
        row
    }
}
