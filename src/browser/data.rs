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

/// Reads a file the user picked and loads it in the format it is in (JSON Lines, LiveCodeBench's
/// Parquet, a CodeCrash file: `execbench_formats::load_dataset`; bad rows are reported, good rows
/// kept). The bytes come back too, for the dataset shelf.
pub async fn read_dataset_file(file: web_sys::File) -> Result<(Vec<u8>, LoadReport), String> {
    let name = file.name();
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await.map_err(|e| format!("could not read {name}: {e:?}"))?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    let report = execbench_formats::load_dataset(&name, &bytes).report;
    Ok((bytes, report))
}
