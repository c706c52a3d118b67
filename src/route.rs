//! Hash routing (`#/sample/sample_3`), so the built site works from any static server and any
//! sub-path without server rewrites.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The first screen: what execbench is and where to start. Only an empty hash (or `#/home`)
    /// leads here; anything unknown still falls back to the dataset list, as before.
    Home,
    Datasets,
    Sample(String),
    Playground,
    Verify,
    Perturb,
    Evaluate,
    Runs,
    Run(String),
}

impl Route {
    pub fn parse(hash: &str) -> Route {
        let path = hash.trim_start_matches('#').trim_start_matches('/');
        let mut parts = path.splitn(2, '/');
        match (parts.next().unwrap_or(""), parts.next()) {
            ("", _) | ("home", _) => Route::Home,
            ("sample", Some(id)) if !id.is_empty() => Route::Sample(decode(id)),
            ("playground", _) => Route::Playground,
            ("verify", _) => Route::Verify,
            ("perturb", _) => Route::Perturb,
            ("evaluate", _) => Route::Evaluate,
            ("runs", Some(id)) if !id.is_empty() => Route::Run(decode(id)),
            ("runs", _) => Route::Runs,
            _ => Route::Datasets,
        }
    }

    pub fn href(&self) -> String {
        match self {
            Route::Home => "#/".to_string(),
            Route::Datasets => "#/datasets".to_string(),
            Route::Sample(id) => format!("#/sample/{}", encode(id)),
            Route::Playground => "#/playground".to_string(),
            Route::Verify => "#/verify".to_string(),
            Route::Perturb => "#/perturb".to_string(),
            Route::Evaluate => "#/evaluate".to_string(),
            Route::Runs => "#/runs".to_string(),
            Route::Run(id) => format!("#/runs/{}", encode(id)),
        }
    }
}

fn encode(id: &str) -> String {
    js_sys::encode_uri_component(id).as_string().unwrap_or_else(|| id.to_string())
}

fn decode(id: &str) -> String {
    js_sys::decode_uri_component(id).ok().and_then(|s| s.as_string()).unwrap_or_else(|| id.to_string())
}

pub fn current() -> Route {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    Route::parse(&hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_address_is_the_home_screen() {
        for hash in ["", "#", "#/", "#/home"] {
            assert_eq!(Route::parse(hash), Route::Home, "{hash:?}");
        }
        assert_eq!(Route::parse(&Route::Home.href()), Route::Home);
    }

    #[test]
    fn the_dataset_list_keeps_its_address_and_stays_the_fallback() {
        assert_eq!(Route::parse("#/datasets"), Route::Datasets);
        assert_eq!(Route::parse("#/no-such-page"), Route::Datasets);
    }
}
