//! The model API form's state (the Evaluate, Build and Perturb pages' "Model API" settings):
//! provider, URL, model, key, generation settings, prices and the spend cap, and Test connection.
//! The key stays in memory unless "remember on this device" is ticked; it is never put in a URL,
//! an export or a stored record. The form itself is `crate::components::evaluation::model_settings`.

use execbench_providers::{
    Address, ConnectionVerdict, Endpoint, GenerationParams, KeyScope, MaxTokensField, plain_http_refusal, preset,
    redact_base_url,
};
use execbench_run::api::{ApiModel, ApiSettings};
use execbench_run::cost::Price;
use execbench_run::cost::prices::{PriceOverrides, PriceTable};
use execbench_run::manifest::PriceUsed;
use execbench_run::simulate::{self, Simulation};
use leptos::prelude::*;

use crate::browser::{clock::BrowserClock, fetch::FetchHttp, key_scopes, storage};

const SETTINGS_KEY: &str = "execbench.api-settings";
/// The user's own prices, by `provider/model` (`PriceOverrides`).
const PRICES_KEY: &str = "execbench.prices";
/// What a simulated run is priced as, to show the arithmetic (nothing is paid).
const SIMULATED_PRICED_AS: (&str, &str) = ("openai", "gpt-4o-mini");

/// The form's fields, as typed.
#[derive(Clone, Copy)]
pub struct ApiForm {
    pub provider: RwSignal<String>,
    pub base_url: RwSignal<String>,
    pub model: RwSignal<String>,
    pub key: RwSignal<String>,
    pub remember_key: RwSignal<bool>,
    /// The scope whose remembered key fills the key field (None: typed by the user). When the
    /// provider or the address moves to another scope, that key is taken out of the field.
    pub key_filled_for: RwSignal<Option<KeyScope>>,
    pub max_tokens: RwSignal<String>,
    pub temperature: RwSignal<String>,
    pub top_p: RwSignal<String>,
    pub stream: RwSignal<bool>,
    pub concurrency: RwSignal<String>,
    pub delay_ms: RwSignal<String>,
    pub timeout_s: RwSignal<String>,
    /// Reasoning models: OpenAI's effort (`low`, `medium`, `high`; empty: not sent) and a
    /// thinking budget in tokens (Anthropic, Gemini; empty: not sent).
    pub reasoning_effort: RwSignal<String>,
    pub thinking_budget: RwSignal<String>,
    pub testing: RwSignal<bool>,
    pub verdict: RwSignal<Option<ConnectionVerdict>>,
    /// The server's models ("List models"): `None` before a list is asked for; an error in words.
    pub models: RwSignal<Option<Result<Vec<String>, String>>>,
    /// Dollars per million tokens; empty: the bundled table's (or the user's saved) price.
    pub price_in: RwSignal<String>,
    pub price_out: RwSignal<String>,
    /// Dollars for the whole run; empty: no cap.
    pub spend_cap: RwSignal<String>,
    /// The simulated model: latency (ms) and every k-th sample wrong (empty: never).
    pub sim_latency_ms: RwSignal<String>,
    pub sim_wrong_every: RwSignal<String>,
}

/// What is kept between visits (never the key: that has its own opt-in entry).
#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Kept {
    provider: String,
    base_url: String,
    model: String,
}

impl ApiForm {
    pub fn new() -> Self {
        let kept: Kept = storage::get(SETTINGS_KEY).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
        let provider = if preset(&kept.provider).is_some() { kept.provider } else { "openai-compatible".to_string() };
        let base_url = if kept.base_url.is_empty() {
            preset(&provider).map(|p| p.base_url.to_string()).unwrap_or_default()
        } else {
            kept.base_url
        };
        let defaults = GenerationParams::default();
        let form = ApiForm {
            provider: RwSignal::new(provider),
            base_url: RwSignal::new(base_url),
            model: RwSignal::new(kept.model),
            remember_key: RwSignal::new(false),
            key_filled_for: RwSignal::new(None),
            key: RwSignal::new(String::new()),
            max_tokens: RwSignal::new(defaults.max_tokens.to_string()),
            temperature: RwSignal::new(defaults.temperature.map(|t| t.to_string()).unwrap_or_default()),
            top_p: RwSignal::new(defaults.top_p.map(|t| t.to_string()).unwrap_or_default()),
            stream: RwSignal::new(true),
            concurrency: RwSignal::new("4".to_string()),
            delay_ms: RwSignal::new("0".to_string()),
            timeout_s: RwSignal::new("300".to_string()),
            reasoning_effort: RwSignal::new(String::new()),
            thinking_budget: RwSignal::new(String::new()),
            testing: RwSignal::new(false),
            verdict: RwSignal::new(None),
            models: RwSignal::new(None),
            price_in: RwSignal::new(String::new()),
            price_out: RwSignal::new(String::new()),
            spend_cap: RwSignal::new(String::new()),
            sim_latency_ms: RwSignal::new("400".to_string()),
            sim_wrong_every: RwSignal::new("4".to_string()),
        };
        form.fill_remembered_key();
        form
    }

    pub fn is_simulated(self) -> bool {
        self.provider.get() == simulate::PROVIDER
    }

    /// Whether this page answers the requests itself (the simulated or the in-browser model), so
    /// that the form has no address, key or reasoning settings to ask for.
    pub fn is_answered_here(self) -> bool {
        self.is_simulated() || self.is_in_browser()
    }

    /// The model that runs in this page's own worker (`local`).
    pub fn is_in_browser(self) -> bool {
        self.provider.get() == crate::browser::local_http::PROVIDER
    }

    /// The simulated model's behaviour, when the provider is the simulated one.
    pub fn simulation(self) -> Result<Option<Simulation>, String> {
        if self.provider.get_untracked() != simulate::PROVIDER {
            return Ok(None);
        }
        let latency = self.sim_latency_ms.get_untracked();
        let latency_ms = latency
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("simulated latency: `{latency}` is not a whole number of ms"))?;
        let wrong = self.sim_wrong_every.get_untracked();
        let wrong_every = match wrong.trim() {
            "" | "0" => None,
            t => Some(t.parse::<usize>().map_err(|_| format!("wrong every: `{t}` is not a whole number"))?),
        };
        Ok(Some(Simulation { latency_ms, wrong_every, reasoning_tokens: 0 }))
    }

    /// The price a run's costs use, and where it comes from: the fields (then saved as the user's
    /// price for this model), the user's saved price, the bundled table, a local server's zero.
    pub fn price(self) -> Result<Option<PriceUsed>, String> {
        let (provider, model) = (self.provider.get_untracked(), self.model.get_untracked().trim().to_string());
        let field = |signal: RwSignal<String>, name: &str| -> Result<Option<f64>, String> {
            match signal.get_untracked().trim() {
                "" => Ok(None),
                t => t
                    .parse::<f64>()
                    .ok()
                    .filter(|v| *v >= 0.0 && v.is_finite())
                    .map(Some)
                    .ok_or(format!("{name}: `{t}` is not a price in dollars")),
            }
        };
        let mut overrides = saved_prices();
        match (field(self.price_in, "input price")?, field(self.price_out, "output price")?) {
            (Some(input), Some(output)) => {
                let price = Price::per_million(input, output);
                overrides.set(&provider, &model, price);
                let _ = storage::set(PRICES_KEY, &serde_json::to_string(&overrides).unwrap_or_default());
                return Ok(Some(PriceUsed { price, source: format!("entered: ${input} / ${output} per 1M tokens") }));
            }
            (None, None) => {}
            _ => {
                return Err(
                    "price: enter both the input and the output price (dollars per 1M tokens), or neither".to_string()
                );
            }
        }
        Ok(self.known_price(&overrides).map(|(price, source)| PriceUsed { price, source }))
    }

    /// The saved or bundled price of the chosen model (the fields' placeholders).
    pub fn known_price(self, overrides: &PriceOverrides) -> Option<(Price, String)> {
        let (provider, model) = (self.provider.get(), self.model.get());
        let table = PriceTable::bundled();
        if provider == simulate::PROVIDER {
            let (p, m) = SIMULATED_PRICED_AS;
            return table.price_for(p, m).map(|l| {
                (l.price, format!("priced as {m} (LiteLLM, {}) to show the arithmetic: nothing is paid", table.date))
            });
        }
        overrides.resolve(table, &provider, model.trim())
    }

    /// The spend cap in dollars, if one is set.
    pub fn spend_cap(self) -> Result<Option<f64>, String> {
        match self.spend_cap.get_untracked().trim() {
            "" => Ok(None),
            t => t
                .parse::<f64>()
                .ok()
                .filter(|v| *v > 0.0 && v.is_finite())
                .map(Some)
                .ok_or(format!("spend cap: `{t}` is not an amount in dollars")),
        }
    }

    pub fn endpoint(self) -> Result<Endpoint, String> {
        let model = self.model.get_untracked().trim().to_string();
        if model.is_empty() {
            return Err(
                "model: enter the model's name (e.g. gpt-4o-mini, or the name your local server serves)".to_string()
            );
        }
        let base_url = self.base_url.get_untracked().trim().trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(format!("base URL: `{base_url}` must start with http:// or https://"));
        }
        Ok(Endpoint { provider: self.provider.get_untracked(), base_url, model })
    }

    pub fn key(self) -> Option<String> {
        Some(self.key.get_untracked().trim().to_string()).filter(|k| !k.is_empty())
    }

    /// The model to run, checked; the key goes only into this value, in memory.
    pub fn model(self) -> Result<ApiModel, String> {
        let endpoint = self.endpoint()?;
        let key = self.key();
        if key.is_none() && endpoint.preset().is_some_and(|p| p.key_required) {
            return Err(format!(
                "API key: {} needs a key",
                endpoint.preset().map(|p| p.label).unwrap_or("this provider")
            ));
        }
        let number = |signal: RwSignal<String>, name: &str| -> Result<Option<f64>, String> {
            let text = signal.get_untracked();
            match text.trim() {
                "" => Ok(None),
                t => t.parse::<f64>().map(Some).map_err(|_| format!("{name}: `{t}` is not a number")),
            }
        };
        let mut settings = ApiSettings::new(endpoint);
        settings.params.max_tokens = number(self.max_tokens, "max tokens")?
            .filter(|m| *m >= 1.0 && *m <= 1e6)
            .ok_or("max tokens: a whole number from 1 is needed")? as u32;
        settings.params.temperature = number(self.temperature, "temperature")?;
        settings.params.top_p = number(self.top_p, "top-p")?;
        settings.params.stream = self.stream.get_untracked();
        settings.params.max_tokens_field = MaxTokensField::Auto;
        settings.concurrency = number(self.concurrency, "concurrency")?
            .filter(|c| (1.0..=64.0).contains(c))
            .ok_or("concurrency: between 1 and 64")? as usize;
        settings.delay_ms = number(self.delay_ms, "delay")?.unwrap_or(0.0).max(0.0) as u64;
        settings.params.reasoning_effort = Some(self.reasoning_effort.get_untracked()).filter(|e| !e.is_empty());
        settings.params.thinking_budget = number(self.thinking_budget, "thinking budget")?.map(|b| b.max(0.0) as u32);
        settings.timeout_ms =
            (number(self.timeout_s, "time-out")?.filter(|t| *t > 0.0).ok_or("time-out: more than 0 seconds")? * 1000.0)
                as u64;
        // The in-browser model's run records which files answered it (their addresses and hashes).
        if self.is_in_browser() {
            settings.local_model = crate::browser::local_http::run_files(&settings.endpoint.model);
        }
        // What the model does not take is left out now, so the run keeps what was sent.
        settings.fit_to_model();
        self.keep();
        Ok(ApiModel { settings, key })
    }

    /// What the typed settings ask for that the chosen model does not take, in words (tracked:
    /// shown under the settings as they are typed, before the run starts).
    pub fn left_out(self) -> Vec<String> {
        let endpoint = Endpoint {
            provider: self.provider.get(),
            base_url: self.base_url.get(),
            model: self.model.get().trim().to_string(),
        };
        if endpoint.model.is_empty() || self.is_answered_here() {
            return Vec::new();
        }
        let number = |signal: RwSignal<String>| signal.get().trim().parse::<f64>().ok();
        let params = GenerationParams {
            temperature: number(self.temperature),
            top_p: number(self.top_p),
            reasoning_effort: Some(self.reasoning_effort.get()).filter(|e| !e.is_empty()),
            thinking_budget: number(self.thinking_budget).map(|b| b.max(0.0) as u32),
            ..GenerationParams::default()
        };
        execbench_providers::fit(&endpoint, &params).not_sent.iter().map(ToString::to_string).collect()
    }

    /// Keeps provider, URL and model for the next visit, and the key only when asked to.
    pub fn keep(self) {
        let kept = Kept {
            provider: self.provider.get_untracked(),
            // Kept without `user:password@` or a `?key=`: those are keys, and stay in memory only.
            base_url: redact_base_url(&self.base_url.get_untracked()),
            model: self.model.get_untracked(),
        };
        let _ = storage::set(SETTINGS_KEY, &serde_json::to_string(&kept).unwrap_or_default());
        let Ok(scope) = KeyScope::of(&kept.provider, &kept.base_url) else { return };
        match (self.remember_key.get_untracked(), self.key()) {
            (true, Some(key)) => key_scopes::remember_key(&scope, &key),
            _ => key_scopes::forget_key(&scope),
        }
        // Typed here by the user (with a key or not, as for a local server): a stored run at this
        // provider and origin may go on without asking again whether the address is meant.
        key_scopes::trust(scope);
    }

    /// The scope of the provider and address in the form, when the address reads as one.
    pub fn scope(self) -> Option<KeyScope> {
        KeyScope::of(&self.provider.get_untracked(), &self.base_url.get_untracked()).ok()
    }

    /// After the provider or the address changed: a remembered key leaves the field unless it
    /// was remembered for the new scope, and the new scope's remembered key comes in. A key the
    /// user typed stays.
    pub fn refill_key(self) {
        let typed = self.key_filled_for.get_untracked().is_none() && !self.key.get_untracked().is_empty();
        if !typed && self.key_filled_for.get_untracked() != self.scope() {
            self.fill_remembered_key();
        }
    }

    /// The key field and "remember" as kept for the form's scope (empty when nothing is).
    pub fn fill_remembered_key(self) {
        let scope = self.scope();
        let remembered = scope.as_ref().and_then(key_scopes::remembered_key);
        self.remember_key.set(remembered.is_some());
        self.key_filled_for.set(scope.filter(|_| remembered.is_some()));
        self.key.set(remembered.unwrap_or_default());
    }

    /// Why the key would be exposed on the way (plain http to another machine), for a warning.
    pub fn http_warning(self) -> Option<String> {
        if self.key.get().trim().is_empty() {
            return None;
        }
        Address::parse(&self.base_url.get()).ok().and_then(|a| plain_http_refusal(&a, false))
    }

    pub fn pick_provider(self, id: String) {
        if let Some(p) = preset(&id) {
            self.base_url.set(p.base_url.to_string());
        }
        // One model in one worker answers one request at a time: more in flight would only wait
        // there, and their time-outs would run while they wait.
        if id == crate::browser::local_http::PROVIDER {
            self.concurrency.set("1".to_string());
        }
        self.provider.set(id);
        // A key typed for one provider does not follow the user to another.
        self.fill_remembered_key();
        self.verdict.set(None);
        self.models.set(None);
    }

    pub fn test_connection(self) {
        let endpoint = match self.endpoint() {
            Ok(e) => e,
            Err(e) => return self.verdict.set(Some(ConnectionVerdict::Failed(e))),
        };
        if endpoint.provider == crate::browser::local_http::PROVIDER {
            return self.test_in_browser(endpoint.model);
        }
        if endpoint.provider == simulate::PROVIDER {
            // Nothing to reach: the simulated model answers in this page.
            return self.verdict.set(Some(ConnectionVerdict::Ok {
                model: format!("{} (simulated in this page)", endpoint.model),
                latency_ms: 0,
            }));
        }
        if let Err(e) = crate::browser::offline::refuse_when_offline() {
            return self.verdict.set(Some(ConnectionVerdict::Failed(e)));
        }
        self.keep();
        let key = self.key();
        self.testing.set(true);
        self.verdict.set(None);
        leptos::task::spawn_local(async move {
            let origin = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
            let verdict = execbench_run::connection::test_connection(
                &FetchHttp,
                &BrowserClock,
                &endpoint,
                key.as_deref(),
                30_000,
                &origin,
            )
            .await;
            self.verdict.set(Some(verdict));
            self.testing.set(false);
        });
    }
}

impl ApiForm {
    /// Asks the server which models it offers, for the model field's suggestions. The key goes
    /// where a run's requests would go (the address typed here).
    pub fn list_models(self) {
        let endpoint = match self.endpoint_for_list() {
            Ok(e) => e,
            Err(e) => return self.models.set(Some(Err(e))),
        };
        if let Err(e) = crate::browser::offline::refuse_when_offline() {
            return self.models.set(Some(Err(e)));
        }
        let key = self.key();
        self.models.set(None);
        leptos::task::spawn_local(async move {
            let listed =
                execbench_run::connection::list_models(&FetchHttp, &BrowserClock, &endpoint, key.as_deref(), 30_000)
                    .await;
            let _ = self.models.try_set(Some(listed));
        });
    }

    /// The endpoint without a model name (a list is asked for before one is chosen).
    fn endpoint_for_list(self) -> Result<Endpoint, String> {
        let base_url = self.base_url.get_untracked().trim().trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(format!("base URL: `{base_url}` must start with http:// or https://"));
        }
        Ok(Endpoint { provider: self.provider.get_untracked(), base_url, model: String::new() })
    }

    /// Test connection for the in-browser model: its kept files load.
    fn test_in_browser(self, model: String) {
        self.testing.set(true);
        self.verdict.set(None);
        leptos::task::spawn_local(async move {
            let started = js_sys::Date::now();
            let verdict = match crate::browser::local_http::load(&model, None).await {
                Ok(summary) => ConnectionVerdict::Ok {
                    model: format!("{model} in this browser: {summary}"),
                    latency_ms: (js_sys::Date::now() - started) as u64,
                },
                Err(e) => ConnectionVerdict::Failed(e),
            };
            let _ = self.verdict.try_set(Some(verdict));
            let _ = self.testing.try_set(false);
        });
    }
}

/// What this device knows a stored run's model costs: the user's own price, else the bundled
/// table's. It replaces whatever price a run file carries (`review_continuation`).
pub fn known_price_of(manifest: &execbench_run::manifest::RunManifest) -> Option<PriceUsed> {
    let endpoint = &manifest.api.as_ref()?.endpoint;
    saved_prices()
        .resolve(PriceTable::bundled(), &endpoint.provider, endpoint.model.trim())
        .map(|(price, source)| PriceUsed { price, source })
}

/// The user's own prices, kept in this browser.
pub fn saved_prices() -> PriceOverrides {
    storage::get(PRICES_KEY).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}
