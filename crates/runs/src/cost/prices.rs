//! The bundled price table: a dated snapshot of LiteLLM's `model_prices_and_context_window.json`
//! (MIT License), chat models only, of the providers execbench reaches (`crates/runs/data/prices.json`,
//! written by `scripts/prices.sh`), and the user's own prices ([`PriceOverrides`]), which win.
//!
//! Lookups go from an execbench provider preset id and the model name the user typed to a table
//! key: the exact key, then LiteLLM's `provider/model` form, then the name without a vendor
//! prefix, each first as written then with ASCII case ignored, and only among the entries of the
//! LiteLLM providers the preset stands for (Azure's prices are never taken for OpenAI's, nor the
//! reverse). OpenRouter has no entries of its own in LiteLLM: its `vendor/model` ids are looked up
//! in the vendor's first-party table (OpenRouter passes on the provider's list price; `:free`
//! variants are free). Local servers are free. Tiered prices (DashScope's, by prompt length) are
//! stored as their first tier, the one for the shortest prompts.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::Price;

const BUNDLED: &str = include_str!("../../data/prices.json");

/// One model's prices, as the bundled file holds them (dollars per token).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PricedModel {
    /// LiteLLM's key, e.g. `gpt-4o-mini`, `gemini/gemini-2.5-flash`, `together_ai/Qwen/...`.
    pub model: String,
    /// LiteLLM's `litellm_provider`.
    pub provider: String,
    /// `input`, `output`, `cached_input`, `reasoning` in the file.
    #[serde(flatten)]
    pub price: Price,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output: Option<u64>,
}

impl PricedModel {
    pub fn price(&self) -> Price {
        self.price
    }
}

/// What a lookup found.
#[derive(Clone, Debug, PartialEq)]
pub struct Lookup {
    pub price: Price,
    /// The table key used, or [`LOCAL_SERVER`].
    pub matched: String,
    /// The model's output limit, where the table knows it.
    pub max_output: Option<u64>,
}

/// `Lookup::matched` for a local server's (free) price.
pub const LOCAL_SERVER: &str = "local server: free";

#[derive(Deserialize)]
struct File {
    source: String,
    date: String,
    models: Vec<PricedModel>,
}

/// The price table.
#[derive(Clone, Debug, PartialEq)]
pub struct PriceTable {
    /// Where the prices come from (and their license).
    pub source: String,
    /// When the snapshot was taken, `YYYY-MM-DD`.
    pub date: String,
    models: Vec<PricedModel>,
    /// Why the table is empty, when its file did not parse.
    pub error: Option<String>,
}

/// The LiteLLM providers and key prefix a preset stands for; `None`: any provider.
fn preset_tables(preset: &str) -> Option<(&'static [&'static str], &'static str)> {
    Some(match preset {
        "openai" => (&["openai"], "openai/"),
        "anthropic" => (&["anthropic"], "anthropic/"),
        "gemini" => (&["gemini"], "gemini/"),
        "deepseek" => (&["deepseek"], "deepseek/"),
        "deepinfra" => (&["deepinfra"], "deepinfra/"),
        "together" => (&["together_ai"], "together_ai/"),
        "qwen" => (&["dashscope"], "dashscope/"),
        "azure" => (&["azure"], "azure/"),
        // OpenRouter's vendors.
        "xai" => (&["xai"], "xai/"),
        "mistral" => (&["mistral"], "mistral/"),
        "moonshot" => (&["moonshot"], "moonshot/"),
        "zai" => (&["zai"], "zai/"),
        "minimax" => (&["minimax"], "minimax/"),
        _ => return None,
    })
}

/// OpenRouter's vendor prefix → the table (as a preset-like id) that holds that vendor's prices.
fn openrouter_vendor(vendor: &str) -> Option<&'static str> {
    Some(match vendor.to_ascii_lowercase().as_str() {
        "openai" => "openai",
        "anthropic" => "anthropic",
        "google" => "gemini",
        "deepseek" => "deepseek",
        "qwen" => "qwen",
        "x-ai" => "xai",
        "mistralai" => "mistral",
        "moonshotai" => "moonshot",
        "z-ai" => "zai",
        "minimax" => "minimax",
        _ => return None,
    })
}

fn is_local(preset: &str) -> bool {
    // `local`: the model runs in this process or page (crates/localmodel).
    matches!(preset, "vllm" | "sglang" | "ollama" | "llamacpp" | "local")
}

impl PriceTable {
    /// The table in `text` (the bundled file's format).
    pub fn parse(text: &str) -> Result<PriceTable, String> {
        let file: File = serde_json::from_str(text).map_err(|e| format!("price table: {e}"))?;
        Ok(PriceTable { source: file.source, date: file.date, models: file.models, error: None })
    }

    /// The table in `text`, or an empty one that says why (never a panic).
    pub fn parse_or_empty(text: &str) -> PriceTable {
        PriceTable::parse(text).unwrap_or_else(|error| PriceTable {
            source: String::new(),
            date: String::new(),
            models: Vec::new(),
            error: Some(error),
        })
    }

    /// The bundled snapshot, parsed once.
    pub fn bundled() -> &'static PriceTable {
        static TABLE: OnceLock<PriceTable> = OnceLock::new();
        TABLE.get_or_init(|| PriceTable::parse_or_empty(BUNDLED))
    }

    /// Every model, sorted by provider then key.
    pub fn models(&self) -> &[PricedModel] {
        &self.models
    }

    /// The entry with this key among `providers`' entries (`None`: any), exact first, then with
    /// ASCII case ignored.
    fn find(&self, key: &str, providers: Option<&[&str]>) -> Option<&PricedModel> {
        let allowed = |m: &&PricedModel| providers.is_none_or(|p| p.contains(&m.provider.as_str()));
        self.models
            .iter()
            .filter(allowed)
            .find(|m| m.model == key)
            .or_else(|| self.models.iter().filter(allowed).find(|m| m.model.eq_ignore_ascii_case(key)))
    }

    /// The price of `model` at the provider preset `provider_preset` (execbench's preset ids).
    /// `None`: the table does not know it (the page asks the user for a price).
    pub fn price_for(&self, provider_preset: &str, model: &str) -> Option<Lookup> {
        let preset = provider_preset.trim();
        let model = model.trim();
        if is_local(preset) {
            return Some(Lookup { price: Price::FREE, matched: LOCAL_SERVER.to_string(), max_output: None });
        }
        if model.is_empty() {
            return None;
        }
        let found = match preset {
            "openrouter" => return self.openrouter(model),
            "openai-compatible" => self.find(model, None),
            "gemini" => self.lookup_in(preset, model.strip_prefix("models/").unwrap_or(model)),
            _ => self.lookup_in(preset, model),
        }?;
        Some(Lookup { price: found.price(), matched: found.model.clone(), max_output: found.max_output })
    }

    /// Exact key, then `prefix/model`, then the same without the provider's own prefix where the
    /// user wrote one (`openai/gpt-4o` at OpenAI), among the preset's providers; each as written,
    /// then with case ignored.
    fn lookup_in(&self, preset: &str, model: &str) -> Option<&PricedModel> {
        let (providers, prefix) = preset_tables(preset)?;
        let mut keys = vec![model.to_string(), format!("{prefix}{model}")];
        let own = format!("{preset}/");
        for strip in [prefix, own.as_str()] {
            if let Some(bare) = model.strip_prefix(strip).filter(|bare| !bare.is_empty()) {
                keys.push(bare.to_string());
                keys.push(format!("{prefix}{bare}"));
            }
        }
        keys.iter()
            .find_map(|key| self.models.iter().find(|m| providers.contains(&m.provider.as_str()) && m.model == *key))
            .or_else(|| keys.iter().find_map(|key| self.find(key, Some(providers))))
    }

    /// OpenRouter ids are `vendor/model[:variant]`.
    fn openrouter(&self, model: &str) -> Option<Lookup> {
        let (base, variant) = match model.rsplit_once(':') {
            Some((base, variant)) if !variant.contains('/') => (base, Some(variant)),
            _ => (model, None),
        };
        if variant.is_some_and(|v| v.eq_ignore_ascii_case("free")) {
            return Some(Lookup {
                price: Price::FREE,
                matched: format!("openrouter: {model} (a free variant)"),
                max_output: None,
            });
        }
        let (vendor, name) = base.split_once('/')?;
        let table = openrouter_vendor(vendor)?;
        // OpenRouter writes Anthropic's versions with dots (`claude-sonnet-4.5`), Anthropic dashes.
        let name = if table == "anthropic" { name.replace('.', "-") } else { name.to_string() };
        let found = self.lookup_in(table, &name)?;
        Some(Lookup { price: found.price(), matched: found.model.clone(), max_output: found.max_output })
    }
}

/// The user's own prices, keyed by `provider/model` (the preset id, a slash, the model as typed,
/// trimmed). The page keeps them in local storage; they win over the table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceOverrides(pub BTreeMap<String, Price>);

impl PriceOverrides {
    pub fn key(provider: &str, model: &str) -> String {
        format!("{}/{}", provider.trim(), model.trim())
    }

    pub fn set(&mut self, provider: &str, model: &str, price: Price) {
        self.0.insert(PriceOverrides::key(provider, model), price);
    }

    pub fn remove(&mut self, provider: &str, model: &str) -> Option<Price> {
        self.0.remove(&PriceOverrides::key(provider, model))
    }

    pub fn get(&self, provider: &str, model: &str) -> Option<Price> {
        self.0.get(&PriceOverrides::key(provider, model)).copied()
    }

    /// The price to use and where it came from: `"override"`, `"local server"`, or
    /// `"LiteLLM <date>: <key>"`. `None`: nobody knows; ask the user.
    pub fn resolve(&self, table: &PriceTable, provider: &str, model: &str) -> Option<(Price, String)> {
        if let Some(price) = self.get(provider, model) {
            return Some((price, "override".to_string()));
        }
        let found = table.price_for(provider, model)?;
        let from = if found.matched == LOCAL_SERVER {
            "local server".to_string()
        } else {
            format!("LiteLLM {}: {}", table.date, found.matched)
        };
        Some((found.price, from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled file's own entry for `key`, read with serde_json (not through `PriceTable`).
    fn raw(key: &str) -> serde_json::Value {
        let file: serde_json::Value = serde_json::from_str(BUNDLED).unwrap();
        file["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["model"] == key)
            .unwrap_or_else(|| panic!("{key} is not in the bundled file"))
            .clone()
    }

    fn raw_price(key: &str) -> Price {
        let m = raw(key);
        Price {
            input: m["input"].as_f64().unwrap(),
            output: m["output"].as_f64().unwrap(),
            cached_input: m["cached_input"].as_f64(),
            reasoning: m["reasoning"].as_f64(),
        }
    }

    #[test]
    fn the_bundled_file_parses_and_is_sorted() {
        let table = PriceTable::bundled();
        assert_eq!(table.error, None);
        assert!(table.models().len() > 300, "{} models", table.models().len());
        assert!(table.source.contains("LiteLLM") && table.source.contains("MIT"), "{}", table.source);
        let date = table.date.as_bytes();
        assert!(date.len() == 10 && date[4] == b'-' && date[7] == b'-', "{}", table.date);
        for pair in table.models().windows(2) {
            assert!(
                (&pair[0].provider, &pair[0].model) < (&pair[1].provider, &pair[1].model),
                "{:?} then {:?}",
                pair[0].model,
                pair[1].model
            );
        }
        for m in table.models() {
            assert!(
                m.price.input >= 0.0
                    && m.price.output >= 0.0
                    && m.price.input.is_finite()
                    && m.price.output.is_finite(),
                "{m:?}"
            );
        }
    }

    #[test]
    fn a_broken_file_gives_an_empty_table_that_says_why() {
        let table = PriceTable::parse_or_empty("{\"source\": 1");
        assert!(table.models().is_empty());
        assert!(table.error.as_deref().unwrap().starts_with("price table: "), "{:?}", table.error);
        assert_eq!(table.price_for("openai", "gpt-4o-mini"), None);
        assert_eq!(table.price_for("ollama", "llama3").unwrap().price, Price::FREE);
    }

    #[test]
    fn lookups_over_the_bundled_table() {
        let table = PriceTable::bundled();
        // (preset, model typed, key expected), keys checked to exist in the snapshot.
        let hits = [
            ("openai", "gpt-4o-mini", "gpt-4o-mini"),
            ("openai", " gpt-4o-mini ", "gpt-4o-mini"),
            ("openai", "openai/gpt-4o-mini", "gpt-4o-mini"),
            ("openai", "GPT-4o-mini", "gpt-4o-mini"),
            ("openai", "o3", "o3"),
            ("anthropic", "claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001"),
            ("anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5"),
            ("gemini", "gemini-2.5-flash", "gemini/gemini-2.5-flash"),
            ("gemini", "models/gemini-2.5-flash", "gemini/gemini-2.5-flash"),
            ("gemini", "gemini/gemini-2.5-pro", "gemini/gemini-2.5-pro"),
            ("deepseek", "deepseek-chat", "deepseek-chat"),
            ("deepseek", "deepseek-reasoner", "deepseek-reasoner"),
            ("deepinfra", "meta-llama/Meta-Llama-3.1-8B-Instruct", "deepinfra/meta-llama/Meta-Llama-3.1-8B-Instruct"),
            (
                "together",
                "meta-llama/Llama-3.3-70B-Instruct-Turbo",
                "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
            ),
            ("qwen", "qwen-plus", "dashscope/qwen-plus"),
            ("qwen", "qwen3-max", "dashscope/qwen3-max"),
            ("azure", "gpt-4o-mini", "azure/gpt-4o-mini"),
            ("openrouter", "openai/gpt-4o-mini", "gpt-4o-mini"),
            ("openrouter", "anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
            ("openrouter", "google/gemini-2.5-flash", "gemini/gemini-2.5-flash"),
            ("openrouter", "deepseek/deepseek-chat", "deepseek-chat"),
            ("openrouter", "qwen/qwen-plus", "dashscope/qwen-plus"),
            ("openai-compatible", "gpt-4o-mini", "gpt-4o-mini"),
            ("openai-compatible", "deepseek/deepseek-chat", "deepseek/deepseek-chat"),
        ];
        for (preset, model, key) in hits {
            let found = table.price_for(preset, model).unwrap_or_else(|| panic!("{preset} {model}: no price"));
            assert_eq!(found.matched, key, "{preset} {model}");
            assert_eq!(found.price, raw_price(key), "{preset} {model}");
            assert_eq!(found.max_output, raw(key)["max_output"].as_u64(), "{preset} {model}");
        }
        // The prices themselves, read from the file: gpt-4o-mini's input is cheaper than its output.
        let mini = raw_price("gpt-4o-mini");
        assert!(mini.input > 0.0 && mini.input < mini.output);

        let local = ["vllm", "sglang", "ollama", "llamacpp"];
        for preset in local {
            let found = table.price_for(preset, "Qwen/Qwen2.5-7B-Instruct").unwrap();
            assert_eq!((found.price, found.matched.as_str()), (Price::FREE, LOCAL_SERVER), "{preset}");
        }
        let free = table.price_for("openrouter", "meta-llama/llama-3.3-70b-instruct:free").unwrap();
        assert_eq!(free.price, Price::FREE);

        let misses = [
            ("openai", "no-such-model"),
            ("openai", ""),
            ("openai-compatible", "my-finetune"),
            ("openai-compatible", "Qwen/Qwen2.5-7B-Instruct"),
            // Azure's table is not OpenAI's, nor the reverse.
            ("openai", "azure/gpt-4o-mini"),
            ("anthropic", "gpt-4o-mini"),
            ("azure", "claude-sonnet-4-5"),
            ("openrouter", "meta-llama/llama-3.3-70b-instruct"),
            ("openrouter", "gpt-4o-mini"),
            ("no-such-preset", "gpt-4o-mini"),
        ];
        for (preset, model) in misses {
            assert_eq!(table.price_for(preset, model), None, "{preset} {model}");
        }
    }

    #[test]
    fn overrides_win_and_say_where_a_price_came_from() {
        let table = PriceTable::bundled();
        let mut overrides = PriceOverrides::default();
        let mine = Price::per_million(1.0, 2.0);
        overrides.set("openai", " gpt-4o-mini", mine);
        overrides.set("openai-compatible", "my-finetune", Price::per_million(0.5, 0.5));
        let cases = [
            ("openai", "gpt-4o-mini", Some((mine, "override".to_string()))),
            ("openai", "o3", Some((raw_price("o3"), format!("LiteLLM {}: o3", table.date)))),
            ("openai-compatible", "my-finetune", Some((Price::per_million(0.5, 0.5), "override".to_string()))),
            ("ollama", "llama3", Some((Price::FREE, "local server".to_string()))),
            ("local", "qwen2.5-coder-0.5b-instruct-q8_0.gguf", Some((Price::FREE, "local server".to_string()))),
            ("openai-compatible", "other", None),
        ];
        for (provider, model, expected) in cases {
            assert_eq!(overrides.resolve(table, provider, model), expected, "{provider} {model}");
        }
        // Saved and read back the way the page keeps them.
        let json = serde_json::to_string(&overrides).unwrap();
        assert!(json.starts_with("{\"openai-compatible/my-finetune\":"), "{json}");
        assert_eq!(serde_json::from_str::<PriceOverrides>(&json).unwrap(), overrides);
        assert_eq!(overrides.remove("openai", "gpt-4o-mini"), Some(mine));
        assert_eq!(
            overrides.resolve(table, "openai", "gpt-4o-mini").unwrap().1,
            format!("LiteLLM {}: gpt-4o-mini", table.date)
        );
    }
}
