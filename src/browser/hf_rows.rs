//! A dataset split fetched by name from Hugging Face's dataset viewer (`rows` API, any origin
//! allowed, no key): page after page of at most 100 rows, read by `execbench_formats::RowsPages`
//! as they arrive. The pages are also put together as one page (every row, the first page's
//! features), which is the file the dataset shelf keeps: loading it again reads the same rows.

use execbench_core::LoadReport;
use execbench_formats::{PAGE_LENGTH, RowsPages, page_offsets, rows_url_at};
use serde_json::Value;

/// Which split, and where the API is (Hugging Face's, or a mirror's).
#[derive(Clone, Debug, PartialEq)]
pub struct SplitAddress {
    pub api: String,
    pub dataset: String,
    pub config: String,
    pub split: String,
}

impl SplitAddress {
    /// The name the split gets as a dataset: `livecodebench/execution-v2 (test)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.dataset, self.split)
    }
}

async fn get_text(url: &str) -> Result<String, String> {
    let response = gloo_net::http::Request::get(url).send().await.map_err(|e| format!("could not fetch {url}: {e}"))?;
    let text = response.text().await.map_err(|e| format!("could not read {url}: {e}"))?;
    if !response.ok() {
        // The API says why in JSON (`{"error": "..."}`); the reader names it.
        if text.trim_start().starts_with('{') {
            return Ok(text);
        }
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    Ok(text)
}

/// Fetches every page of the split; `progress(rows read, rows in all)` after each page. Returns
/// the report and the bytes to keep (one page holding every row).
pub async fn fetch_split(
    address: &SplitAddress,
    progress: impl Fn(usize, usize),
) -> Result<(Vec<u8>, LoadReport), String> {
    let source = address.label();
    let mut reader = RowsPages::new(&source);
    let url = |offset: usize| {
        rows_url_at(&address.api, &address.dataset, &address.config, &address.split, offset, PAGE_LENGTH)
    };
    let first = get_text(&url(0)).await?;
    let info = reader.add_page(0, &first);
    let mut combined: serde_json::Map<String, Value> = match serde_json::from_str(&first) {
        Ok(Value::Object(page)) => page,
        _ => serde_json::Map::new(),
    };
    let Some(info) = info else {
        // The first page could not be read: the report says why (an error page, not JSON, ...).
        return Ok((first.into_bytes(), reader.finish()));
    };
    let mut rows: Vec<Value> = match combined.remove("rows") {
        Some(Value::Array(rows)) => rows,
        _ => Vec::new(),
    };
    progress(rows.len(), info.num_rows_total);
    for offset in page_offsets(info.num_rows_total).into_iter().skip(1) {
        let text = get_text(&url(offset)).await?;
        reader.add_page(offset, &text);
        if let Ok(Value::Object(mut page)) = serde_json::from_str::<Value>(&text)
            && let Some(Value::Array(more)) = page.remove("rows")
        {
            rows.extend(more);
        }
        progress(rows.len(), info.num_rows_total);
    }
    combined.insert("rows".into(), Value::Array(rows));
    let bytes = serde_json::to_vec(&Value::Object(combined)).map_err(|e| e.to_string())?;
    Ok((bytes, reader.finish()))
}
