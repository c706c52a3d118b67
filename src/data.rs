//! The bundled dataset, fetched from the site's own `data/` folder (relative URL, so the site
//! works under any sub-path).

use execbench_core::{LoadReport, load_jsonl_bytes};

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
