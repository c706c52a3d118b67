//! The bundled dataset, fetched from the site's own `data/` folder (relative URL, so the site
//! works under any sub-path).

use execbench_core::{LoadReport, load_jsonl_bytes};

pub const CRUXEVAL_NAME: &str = "CRUXEval";
pub const CRUXEVAL_URL: &str = "data/cruxeval/cruxeval.jsonl";
pub const CRUXEVAL_LICENSE_URL: &str = "data/cruxeval/LICENSE";

pub async fn fetch_dataset(url: &str) -> Result<LoadReport, String> {
    let response = gloo_net::http::Request::get(url).send().await.map_err(|e| format!("could not fetch {url}: {e}"))?;
    if !response.ok() {
        return Err(format!("could not fetch {url}: HTTP {}", response.status()));
    }
    let bytes = response.binary().await.map_err(|e| format!("could not read {url}: {e}"))?;
    let name = url.rsplit('/').next().unwrap_or(url);
    Ok(load_jsonl_bytes(name, &bytes))
}

/// How far the reading of a picked file has got.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReadProgress {
    pub read: u64,
    pub total: u64,
    /// Rows loaded so far (JSON Lines load as they are read; Parquet at the end).
    pub rows: usize,
}

/// Bytes read at a time: between slices the page shows the progress and stays responsive, and
/// JSON Lines rows are loaded from each slice as it comes.
const SLICE: f64 = (1u32 << 20) as f64;

/// Reads a file the user picked, a slice at a time, and loads it in the format it is in (JSON
/// Lines, LiveCodeBench's Parquet, a CodeCrash file: `execbench_formats::DatasetStream`, which
/// gives `load_dataset`'s result, Parquet decoded by the loader worker; bad rows are reported, good rows kept). The bytes come back too,
/// for the dataset shelf.
pub async fn read_dataset_file(
    file: web_sys::File,
    progress: impl Fn(ReadProgress),
) -> Result<(Vec<u8>, LoadReport), String> {
    let name = file.name();
    let total = file.size();
    crate::browser::download::check_size(&name, total, crate::browser::download::MAX_DATASET_FILE_BYTES)?;
    let mut bytes = Vec::with_capacity(total as usize);
    let mut stream = execbench_formats::DatasetStream::new(&name);
    let mut at = 0.0;
    while at < total {
        let end = (at + SLICE).min(total);
        let slice = file.slice_with_f64_and_f64(at, end).map_err(|e| format!("could not read {name}: {e:?}"))?;
        let buffer = wasm_bindgen_futures::JsFuture::from(slice.array_buffer())
            .await
            .map_err(|e| format!("could not read {name}: {e:?}"))?;
        let chunk = js_sys::Uint8Array::new(&buffer).to_vec();
        stream.feed(&chunk);
        bytes.extend_from_slice(&chunk);
        at = end;
        progress(ReadProgress { read: at as u64, total: total as u64, rows: stream.rows() });
        if at < total {
            // A task boundary, so the progress is drawn and clicks are answered.
            crate::browser::clock::Sleep::new(0).await;
        }
    }
    // A whole file (Parquet, a rows page) is decoded in a worker: a damaged one cannot trap the
    // page, and the page's wasm does not carry the Parquet decoder (`finish_rows` never decodes).
    let report = match stream.finish_rows() {
        Ok(loaded) => loaded.report,
        Err(_) => crate::browser::loader::load_off_thread(&name, &bytes).await?,
    };
    Ok((bytes, report))
}

/// `12.0 of 48.0 MB read, 25000 rows`.
pub fn progress_words(name: &str, p: ReadProgress) -> String {
    let mb = |b: u64| b as f64 / 1_000_000.0;
    let rows = if p.rows > 0 { format!(", {} rows", p.rows) } else { String::new() };
    format!("Reading {name}: {:.1} of {:.1} MB{rows}", mb(p.read), mb(p.total))
}
