//! A stored or imported run's model settings, checked before it goes on. A run file is data from
//! anywhere: its manifest names the endpoint a key would go to and the settings that spend the
//! user's credit. Before any request, the page (and any front end) passes it through
//! [`review_continuation`]: the settings are clamped to the form's own limits, a spend cap typed
//! there replaces the file's (which is shown either way), and the key decision comes from the one rule of
//! [`execbench_providers::key_use`]. [`ContinuationReview::lines`] is what the user confirms.

use execbench_providers::{Address, KeyScope, KeyUse, TrustedEndpoints, key_use};

use crate::backoff::RetryPolicy;
use crate::manifest::{PriceUsed, RunManifest};
use crate::simulate;

/// The limits of the Evaluate form (and the command line's flags): what a person could have typed.
#[derive(Clone, Debug, PartialEq)]
pub struct FormLimits {
    pub max_concurrency: usize,
    pub max_n: usize,
    pub max_tokens: u32,
    pub max_timeout_ms: u64,
    /// Retries and waits at most the defaults (the form does not offer more).
    pub retry: RetryPolicy,
}

impl Default for FormLimits {
    fn default() -> Self {
        FormLimits {
            max_concurrency: 64,
            max_n: 100,
            max_tokens: 1_000_000,
            max_timeout_ms: 3_600_000,
            retry: RetryPolicy::default(),
        }
    }
}

/// What continuing a stored run would do, after clamping.
#[derive(Clone, Debug, PartialEq)]
pub struct ContinuationReview {
    /// The manifest with its settings clamped and the spend cap decided.
    pub manifest: RunManifest,
    /// What was lowered or added, in words (empty: the file was within the limits).
    pub changes: Vec<String>,
    /// For an API model: may the key go, must the user confirm the address first, or never.
    pub key: Option<KeyUse>,
}

impl ContinuationReview {
    /// The address the requests would go to, when they go to one.
    pub fn address(&self) -> Option<Address> {
        let api = self.manifest.api.as_ref()?;
        Address::parse(&api.endpoint.base_url).ok()
    }

    /// The price the run's answers asked live are costed at (a batch run's live price).
    pub fn live_price(&self) -> Option<&PriceUsed> {
        self.manifest.live_price.as_ref().or(self.manifest.price.as_ref())
    }

    /// The scope a key is bound to, when requests leave the page.
    pub fn scope(&self) -> Option<&KeyScope> {
        match self.key.as_ref()? {
            KeyUse::Allowed(scope) | KeyUse::Confirm { scope, .. } => Some(scope),
            KeyUse::Refused(_) => None,
        }
    }

    /// The endpoint and the settings, a line each, as a confirmation shows them.
    pub fn lines(&self) -> Vec<String> {
        let m = &self.manifest;
        let Some(api) = &m.api else { return vec![format!("model: {} (no request leaves this page)", m.model)] };
        let mut out = Vec::new();
        match self.address() {
            Some(a) => {
                out.push(format!("address: {a}"));
                out.push(format!("scheme {}, host {}, port {}, path {}", a.scheme, a.host, a.port, a.path));
            }
            None => out.push(format!("address: {}", execbench_providers::redact_base_url(&api.endpoint.base_url))),
        }
        out.push(format!("provider {}, model {}", api.endpoint.provider, api.endpoint.model));
        out.push(format!(
            "n {}, {} requests at once, max tokens {}, retries {}, time-out {} s",
            m.n,
            api.concurrency,
            api.params.max_tokens,
            api.retry.max_retries,
            api.timeout_ms / 1000
        ));
        out.push(match self.live_price() {
            Some(p) => format!(
                "price ${:.4} in, ${:.4} out per million tokens ({})",
                p.price.input * 1e6,
                p.price.output * 1e6,
                p.source
            ),
            None => "no price: costs are not counted, and a spend cap cannot pause the run".to_string(),
        });
        out.push(match m.spend_cap {
            Some(cap) => format!("spend cap ${cap}"),
            None => "no spend cap".to_string(),
        });
        out.extend(self.changes.iter().map(|c| format!("changed from the file: {c}")));
        out
    }
}

/// Clamps `manifest`'s settings to `limits`, puts in `typed_cap` (the spend cap the user typed
/// where the run is continued) when there is one, and decides about the key with the trusted
/// scopes. A simulated run sends nothing.
///
/// `known_price` is what this device knows the endpoint's model costs (the user's own price,
/// else the bundled table): it replaces the file's, which could be anything (a price of 0 would
/// skip the cost estimate and make every spend cap a no-op). Without one, the file's price is
/// kept and the lines say where it came from.
pub fn review_continuation(
    manifest: &RunManifest,
    limits: &FormLimits,
    typed_cap: Option<f64>,
    trusted: &TrustedEndpoints,
    known_price: Option<PriceUsed>,
) -> ContinuationReview {
    let mut m = manifest.clone();
    let mut changes = Vec::new();
    let simulation_missing = crate::session::simulation_missing(manifest);
    let mut lower = |name: &str, value: &mut u64, most: u64, least: u64| {
        let was = *value;
        *value = was.clamp(least, most);
        if *value != was {
            changes.push(format!("{name} {was} -> {}", *value));
        }
    };
    let mut n = m.n as u64;
    lower("n", &mut n, limits.max_n as u64, 1);
    m.n = n as usize;
    let key = m.api.as_mut().and_then(|api| {
        let mut c = api.concurrency as u64;
        lower("concurrency", &mut c, limits.max_concurrency as u64, 1);
        api.concurrency = c as usize;
        let mut t = api.params.max_tokens as u64;
        lower("max tokens", &mut t, limits.max_tokens as u64, 1);
        api.params.max_tokens = t as u32;
        lower("time-out (ms)", &mut api.timeout_ms, limits.max_timeout_ms, 1_000);
        let (r, most) = (&mut api.retry, &limits.retry);
        let mut retries = r.max_retries as u64;
        lower("retries", &mut retries, most.max_retries as u64, 0);
        r.max_retries = retries as u32;
        let mut waits = r.max_rate_limit_waits as u64;
        lower("rate-limit waits", &mut waits, most.max_rate_limit_waits as u64, 0);
        r.max_rate_limit_waits = waits as u32;
        lower("back-off (ms)", &mut r.base_ms, most.base_ms, 0);
        lower("longest back-off (ms)", &mut r.cap_ms, most.cap_ms, 0);
        lower("longest wait (ms)", &mut r.longest_wait_ms, most.longest_wait_ms, 0);
        let endpoint = &api.endpoint;
        if let Some(refusal) = simulation_missing {
            return Some(KeyUse::Refused(refusal));
        }
        // Neither the simulated model nor the in-process one (`local`) is reached over a network:
        // no key goes anywhere, their `.invalid` addresses are names only.
        (!matches!(endpoint.provider.as_str(), simulate::PROVIDER | "local"))
            .then(|| key_use(trusted, &endpoint.provider, &endpoint.base_url, false))
    });
    if m.api.is_some() && m.simulation.is_none() {
        use_known_price(&mut m, known_price, &mut changes);
    }
    // The cap typed where the run is continued is the user's own decision: it replaces the file's.
    if let Some(typed) = typed_cap.filter(|c| Some(*c) != m.spend_cap) {
        let was = m.spend_cap.map_or("none".to_string(), |c| format!("${c}"));
        changes.push(format!("spend cap {was} -> ${typed}"));
        m.spend_cap = Some(typed);
    }
    ContinuationReview { manifest: m, changes, key }
}

/// Puts `known` in as the run's live price (a batch run's batch price follows from it), noting
/// the change when the file said otherwise. The page's review and the command line's `--resume`
/// both price a run from a file here.
pub fn use_known_price(m: &mut RunManifest, known: Option<PriceUsed>, changes: &mut Vec<String>) {
    let batch = m.live_price.is_some();
    let file = if batch { m.live_price.clone() } else { m.price.clone() };
    let Some(known) = known else {
        if let Some(file) = file {
            changes
                .push(format!("the price is the file's own ({}): this device knows none for the model", file.source));
        }
        return;
    };
    if file.as_ref().map(|p| p.price) == Some(known.price) {
        return;
    }
    let per_million = |p: Option<&PriceUsed>| {
        p.map_or("none".to_string(), |p| format!("${:.4}/${:.4}", p.price.input * 1e6, p.price.output * 1e6))
    };
    changes.push(format!(
        "price {} -> {} per million tokens in/out ({})",
        per_million(file.as_ref()),
        per_million(Some(&known)),
        known.source
    ));
    if batch {
        m.price = crate::batch::batch_price_used(Some(known.clone()));
        m.live_price = Some(known);
    } else {
        m.price = Some(known);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiSettings;
    use crate::cost::Price;
    use crate::manifest::RunManifest;
    use execbench_providers::Endpoint;

    fn manifest(provider: &str, base_url: &str) -> RunManifest {
        let mut api =
            ApiSettings::new(Endpoint { provider: provider.into(), base_url: base_url.into(), model: "m".into() });
        api.concurrency = 4;
        RunManifest {
            model: "m".into(),
            api: Some(api),
            dataset: "d".into(),
            dataset_hash: "h".into(),
            modes: vec![],
            ..crate::manifest::fixtures::manifest("r", 0)
        }
    }

    fn trusted() -> TrustedEndpoints {
        let mut t = TrustedEndpoints::default();
        t.trust(KeyScope::of("openai", "https://api.openai.com/v1").unwrap());
        t
    }

    #[test]
    fn a_file_pointing_elsewhere_must_be_confirmed_and_a_trusted_one_goes_on() {
        // (provider, base url, the decision's kind)
        let cases = [
            ("openai", "https://api.openai.com/v1", "allowed"),
            ("openai", "https://elsewhere.example/v1", "confirm"),
            ("openai-compatible", "https://api.openai.com/v1", "confirm"),
            ("openai", "http://elsewhere.example/v1", "refused"),
            ("openai", "https://elsewhere.example\\@api.openai.com/v1", "confirm"),
            ("openai", "https://api.openai.com\\@elsewhere.example/v1", "allowed"),
            ("openai", "https://sk-x@api.openai.com/v1", "refused"),
            ("simulated", "https://elsewhere.example/v1", "refused"),
            ("local", "http://local-model.invalid/v1", "nothing sent"),
        ];
        for (provider, url, want) in cases {
            let mut m = manifest(provider, url);
            if provider == "simulated" {
                // A simulated run without its simulation would post its prompts to `url`.
                let review = review_continuation(&m, &FormLimits::default(), None, &trusted(), None);
                assert!(matches!(&review.key, Some(KeyUse::Refused(why)) if why.contains("carries no simulation")));
                m.simulation = Some(Default::default());
                let review = review_continuation(&m, &FormLimits::default(), None, &trusted(), None);
                assert_eq!(review.key, None, "with its simulation, nothing is sent");
                continue;
            }
            let review = review_continuation(&m, &FormLimits::default(), None, &trusted(), None);
            let got = match &review.key {
                Some(KeyUse::Allowed(_)) => "allowed",
                Some(KeyUse::Confirm { .. }) => "confirm",
                Some(KeyUse::Refused(_)) => "refused",
                None => "nothing sent",
            };
            assert_eq!(got, want, "{provider} {url}");
        }
    }

    #[test]
    fn settings_from_a_file_are_clamped_to_the_forms_limits() {
        let mut m = manifest("openai", "https://elsewhere.example:8443/v1/chat");
        m.n = 10_000;
        let api = m.api.as_mut().unwrap();
        api.concurrency = 5_000;
        api.params.max_tokens = u32::MAX;
        api.timeout_ms = u64::MAX;
        api.retry.max_retries = 1_000;
        api.retry.longest_wait_ms = u64::MAX;
        let review = review_continuation(&m, &FormLimits::default(), Some(2.5), &trusted(), None);
        let api = review.manifest.api.as_ref().unwrap();
        assert_eq!(
            (review.manifest.n, api.concurrency, api.params.max_tokens, api.timeout_ms, api.retry.max_retries),
            (100, 64, 1_000_000, 3_600_000, 5)
        );
        assert_eq!(review.manifest.spend_cap, Some(2.5), "the typed cap");
        assert_eq!(
            review.changes,
            [
                "n 10000 -> 100",
                "concurrency 5000 -> 64",
                "max tokens 4294967295 -> 1000000",
                "time-out (ms) 18446744073709551615 -> 3600000",
                "retries 1000 -> 5",
                "longest wait (ms) 18446744073709551615 -> 300000",
                "spend cap none -> $2.5",
            ]
        );
        let lines = review.lines();
        assert_eq!(lines[0], "address: https://elsewhere.example:8443/v1/chat");
        assert_eq!(lines[1], "scheme https, host elsewhere.example, port 8443, path /v1/chat");
        assert!(lines.contains(&"spend cap $2.5".to_string()), "{lines:?}");
    }

    #[test]
    fn a_spend_cap_typed_by_the_user_replaces_the_files() {
        // (the file's cap, the cap typed, the cap used)
        let cases = [
            (Some(1.0), Some(2.0), Some(2.0)),
            (Some(5.0), Some(2.0), Some(2.0)),
            (Some(5.0), None, Some(5.0)),
            (None, Some(3.0), Some(3.0)),
            (None, None, None),
        ];
        for (file, typed, want) in cases {
            let mut m = manifest("openai", "https://api.openai.com/v1");
            m.spend_cap = file;
            let review = review_continuation(&m, &FormLimits::default(), typed, &trusted(), None);
            assert_eq!(review.manifest.spend_cap, want, "{file:?} {typed:?}");
        }
    }

    #[test]
    fn a_file_within_the_limits_is_unchanged() {
        let m = manifest("openai", "https://api.openai.com/v1");
        let review = review_continuation(&m, &FormLimits::default(), None, &trusted(), None);
        assert_eq!(review.manifest, m);
        assert!(review.changes.is_empty());
    }

    /// The price comes from this device (the user's own, else the bundled table), never lower
    /// from the file: a file's price of 0 would skip the estimate and make a spend cap a no-op.
    /// (the file's live price, a batch run, the price known here, the live price used, the batch
    /// price used, a change noted)
    #[test]
    fn the_price_is_this_devices_not_the_files() {
        let priced = |input: f64, source: &str| PriceUsed {
            price: Price::per_million(input, input * 4.0),
            source: source.into(),
        };
        let cases = [
            (Some(priced(0.0, "file")), false, Some(priced(2.5, "table")), Some(2.5), None, true),
            (None, false, Some(priced(2.5, "table")), Some(2.5), None, true),
            (Some(priced(9.0, "file")), false, Some(priced(2.5, "table")), Some(2.5), None, true),
            (Some(priced(2.5, "table")), false, Some(priced(2.5, "table")), Some(2.5), None, false),
            (Some(priced(0.0, "file")), true, Some(priced(2.5, "table")), Some(2.5), Some(1.25), true),
            (Some(priced(0.0, "file")), false, None, Some(0.0), None, true),
            (None, false, None, None, None, false),
        ];
        for (file, batch, known, live, batch_price, noted) in cases {
            let mut m = manifest("openai", "https://api.openai.com/v1");
            if batch {
                m.live_price = file.clone();
                m.price = crate::batch::batch_price_used(file.clone());
            } else {
                m.price = file.clone();
            }
            let review = review_continuation(&m, &FormLimits::default(), Some(1.0), &trusted(), known.clone());
            let what = format!("{file:?} batch {batch} known {known:?}");
            let per_million = |p: Option<&PriceUsed>| p.map(|p| (p.price.input * 1e6 * 1e4).round() / 1e4);
            assert_eq!(per_million(review.live_price()), live, "{what}");
            if batch {
                assert_eq!(per_million(review.manifest.price.as_ref()), batch_price, "{what}");
            }
            assert_eq!(review.changes.iter().any(|c| c.contains("price")), noted, "{what}: {:?}", review.changes);
            let lines = review.lines().join("\n");
            assert!(lines.contains("price") && lines.contains("spend cap $1"), "{lines}");
        }
        // A simulated run's price is for show: kept as the file says.
        let mut m = manifest("simulated", "https://x.invalid/v1");
        m.simulation = Some(Default::default());
        m.price = Some(priced(0.0, "file"));
        let review = review_continuation(&m, &FormLimits::default(), None, &trusted(), Some(priced(2.5, "table")));
        assert_eq!(review.manifest.price, m.price);
    }
}
