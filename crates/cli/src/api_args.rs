//! The model-API flags every command that calls a provider shares (`execbench run`,
//! `execbench build generate`): provider and model, generation parameters, concurrency, time-out,
//! where the key comes from, the price. One parser, so the commands take the same options.

use execbench_providers::{Endpoint, MaxTokensField, preset, presets};
use execbench_run::api::ApiSettings;
use execbench_run::cost::Price;
use execbench_run::cost::prices::{PriceOverrides, PriceTable};
use execbench_run::runfile::PriceUsed;

use crate::args::Args;

/// The flags [`api_options`] reads (commands add their own to their list of known flags).
pub const API_FLAGS: &[&str] = &[
    "provider",
    "model",
    "base-url",
    "concurrency",
    "temperature",
    "top-p",
    "max-tokens",
    "max-tokens-field",
    "reasoning-effort",
    "thinking-budget",
    "stream",
    "delay-ms",
    "timeout",
    "key-env",
    "price",
    "spend-cap",
];

/// A provider's settings as the flags give them. No key: that comes from [`api_key`].
#[derive(Debug)]
pub struct ApiOptions {
    pub api: ApiSettings,
    /// Where the key comes from (an environment variable), when the provider takes one.
    pub key_env: Option<String>,
    pub key_required: bool,
    /// The price costs are computed with: `--price`, else the bundled table's.
    pub price: Option<PriceUsed>,
    /// `--spend-cap`: dollars.
    pub spend_cap: Option<f64>,
}

/// Reads the provider flags for `provider`. `offline` names the command's own non-API choices,
/// for the message about an unknown provider.
pub fn api_options(args: &Args, provider: &str, offline: &[&str]) -> Result<ApiOptions, String> {
    let preset = preset(provider).ok_or(format!(
        "unknown --provider `{provider}` (known: {}, and offline: {})",
        presets().iter().map(|p| p.id).collect::<Vec<_>>().join(", "),
        offline.join(", ")
    ))?;
    let model = args.required("model")?.to_string();
    let base_url = args.optional("base-url").unwrap_or(preset.base_url).trim_end_matches('/').to_string();
    let mut api = ApiSettings::new(Endpoint { provider: preset.id.to_string(), base_url, model });
    api.concurrency = args.number("concurrency", 4usize)?;
    if !(1..=64).contains(&api.concurrency) {
        return Err(format!("--concurrency must be between 1 and 64, got {}", api.concurrency));
    }
    // `none`: not sent (reasoning models refuse a temperature other than 1).
    api.params.temperature =
        if args.optional("temperature") == Some("none") { None } else { Some(args.number("temperature", 0.2f64)?) };
    api.params.top_p = if args.optional("top-p") == Some("none") { None } else { Some(args.number("top-p", 0.95f64)?) };
    api.params.max_tokens = args.number("max-tokens", 2000u32)?;
    api.params.max_tokens_field = match args.optional("max-tokens-field") {
        None | Some("auto") => MaxTokensField::Auto,
        Some("max_tokens") => MaxTokensField::MaxTokens,
        Some("max_completion_tokens") => MaxTokensField::MaxCompletionTokens,
        Some(other) => {
            return Err(format!(
                "unknown --max-tokens-field `{other}` (known: auto, max_tokens, max_completion_tokens)"
            ));
        }
    };
    // Reasoning models: OpenAI's effort, or a thinking budget (Anthropic, Gemini). Temperature and
    // top-p are still sent as given; a model that refuses them stops the run with its message.
    api.params.reasoning_effort = args.optional("reasoning-effort").map(str::to_string);
    if args.optional("thinking-budget").is_some() {
        api.params.thinking_budget = Some(args.number("thinking-budget", 0u32)?);
    }

    api.params.stream = args.switch("stream");
    api.delay_ms = args.number("delay-ms", 0u64)?;
    let timeout_s: f64 = args.number("timeout", 300.0)?;
    if !(timeout_s > 0.0 && timeout_s <= 3600.0) {
        return Err(format!("--timeout must be between 0 and 3600 seconds, got {timeout_s}"));
    }
    api.timeout_ms = (timeout_s * 1000.0) as u64;
    let key_env = args.optional("key-env").map(str::to_string).or(preset.key_env.map(str::to_string));
    let price = match args.optional("price") {
        Some(text) => {
            let parsed = text
                .split_once(',')
                .and_then(|(i, o)| Some((i.trim().parse::<f64>().ok()?, o.trim().parse::<f64>().ok()?)))
                .filter(|(i, o)| *i >= 0.0 && *o >= 0.0);
            let (input, output) = parsed.ok_or(format!(
                "--price `{text}`: expected INPUT,OUTPUT in dollars per million tokens, e.g. 0.15,0.6"
            ))?;
            Some(PriceUsed {
                price: Price::per_million(input, output),
                source: format!("--price {input},{output} ($ per 1M tokens)"),
            })
        }
        None => PriceOverrides::default()
            .resolve(PriceTable::bundled(), &api.endpoint.provider, &api.endpoint.model)
            .map(|(price, source)| PriceUsed { price, source }),
    };
    let spend_cap = match args.optional("spend-cap") {
        None => None,
        Some(text) => Some(
            text.parse::<f64>()
                .ok()
                .filter(|c| *c > 0.0 && c.is_finite())
                .ok_or(format!("--spend-cap `{text}`: expected an amount in dollars"))?,
        ),
    };
    if spend_cap.is_some() && price.is_none() {
        return Err(format!(
            "--spend-cap needs a price: none is known for `{}` ({}); pass --price INPUT,OUTPUT",
            api.endpoint.model, api.endpoint.provider
        ));
    }
    Ok(ApiOptions { api, key_env, key_required: preset.key_required, price, spend_cap })
}

/// The key from the environment; never from a flag (flags end up in shell histories and process lists).
pub fn api_key(key_env: Option<&str>, required: bool) -> Result<Option<String>, String> {
    let Some(var) = key_env else { return Ok(None) };
    match std::env::var(var) {
        Ok(k) if !k.trim().is_empty() => Ok(Some(k.trim().to_string())),
        _ if required => {
            Err(format!("no API key: set the environment variable {var} (or name another with --key-env)"))
        }
        _ => Ok(None),
    }
}
