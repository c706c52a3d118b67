//! The model-API flags every command that calls a provider shares (`execbench run`,
//! `execbench build generate`): provider and model, generation parameters, concurrency, time-out,
//! where the key comes from and where it may go, the price. One parser, so the commands take the
//! same options.
//!
//! A key goes only where its owner sent it: a preset's own variable (`OPENAI_API_KEY`, ...) is
//! read only for that preset's own address; any other server (`openai-compatible`, the local
//! servers, `--base-url` elsewhere) gets a key only from the variable `--key-env` names. A key
//! never travels over plain http to another machine without `--allow-http`, and never comes from
//! the URL (`user:password@`, `?key=`).

use execbench_providers::{
    Address, Endpoint, MaxTokensField, Preset, plain_http_refusal, preset, presets, redact_base_url,
};
use execbench_run::api::ApiSettings;
use execbench_run::cost::Price;
use execbench_run::cost::prices::{PriceOverrides, PriceTable};
use execbench_run::manifest::PriceUsed;

/// The provider flags `run`, `perturb --wrong-answers model` and `build generate --source api`
/// share. `--provider` is each command's own (required by some, a choice among offline models in
/// `run`). No flag takes a key: keys come only from environment variables.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Model API")]
pub struct ApiFlags {
    /// The model's name at the provider
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// The provider's address, when not its own (e.g. a local server)
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Requests in flight at once (1 to 64) [default: 4]
    #[arg(long, value_name = "C")]
    pub concurrency: Option<usize>,
    /// Sampling temperature, or `none` to send none [default: 0.2]
    #[arg(long, value_name = "T|none")]
    pub temperature: Option<String>,
    /// Nucleus sampling, or `none` to send none [default: 0.95]
    #[arg(long, value_name = "P|none")]
    pub top_p: Option<String>,
    /// Longest answer, in tokens [default: 2000]
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// The request field the token limit goes in [default: auto]
    #[arg(long, value_name = "auto|max_tokens|max_completion_tokens")]
    pub max_tokens_field: Option<String>,
    /// OpenAI reasoning models' effort (low, medium, high)
    #[arg(long, value_name = "low|medium|high")]
    pub reasoning_effort: Option<String>,
    /// Anthropic's and Gemini's thinking budget, in tokens
    #[arg(long, value_name = "N")]
    pub thinking_budget: Option<u32>,
    /// Stream the answers
    #[arg(long)]
    pub stream: bool,
    /// Pause between requests, in milliseconds [default: 0]
    #[arg(long, value_name = "MS")]
    pub delay_ms: Option<u64>,
    /// A request's time-out, in seconds (at most 3600) [default: 300]
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// The environment variable that holds the key (a provider's own variable is read only for
    /// its own address)
    #[arg(long, value_name = "NAME")]
    pub key_env: Option<String>,
    /// Let a key travel over plain http to another machine
    #[arg(long)]
    pub allow_http: bool,
    /// Dollars per million tokens, input and output (else the bundled price table's)
    #[arg(long, value_name = "IN,OUT")]
    pub price: Option<String>,
    /// Stop once the run has cost this many dollars
    #[arg(long, value_name = "USD")]
    pub spend_cap: Option<String>,
}

impl ApiFlags {
    /// The provider flags given on the command line, by name (for "goes with --source api").
    pub fn given(&self) -> Vec<&'static str> {
        let flags = [
            ("model", self.model.is_some()),
            ("base-url", self.base_url.is_some()),
            ("concurrency", self.concurrency.is_some()),
            ("temperature", self.temperature.is_some()),
            ("top-p", self.top_p.is_some()),
            ("max-tokens", self.max_tokens.is_some()),
            ("max-tokens-field", self.max_tokens_field.is_some()),
            ("reasoning-effort", self.reasoning_effort.is_some()),
            ("thinking-budget", self.thinking_budget.is_some()),
            ("stream", self.stream),
            ("delay-ms", self.delay_ms.is_some()),
            ("timeout", self.timeout.is_some()),
            ("key-env", self.key_env.is_some()),
            ("allow-http", self.allow_http),
            ("price", self.price.is_some()),
            ("spend-cap", self.spend_cap.is_some()),
        ];
        flags.iter().filter(|(_, given)| *given).map(|(name, _)| *name).collect()
    }
}

/// `--temperature`/`--top-p`: a number, or `none` (not sent: reasoning models refuse a
/// temperature other than 1).
fn number_or_none(flag: &str, value: Option<&str>, default: f64) -> Result<Option<f64>, String> {
    match value {
        None => Ok(Some(default)),
        Some("none") => Ok(None),
        Some(text) => text.parse().map(Some).map_err(|_| format!("--{flag} expects a number or none, got `{text}`")),
    }
}

/// A provider's settings as the flags give them. No key: that comes from [`api_key`].
#[derive(Debug)]
pub struct ApiOptions {
    pub api: ApiSettings,
    /// Where the key comes from and where it may go.
    pub key: KeySource,
    /// The price costs are computed with: `--price`, else the bundled table's.
    pub price: Option<PriceUsed>,
    /// `--spend-cap`: dollars.
    pub spend_cap: Option<f64>,
}

/// Reads the provider flags for `provider`. `offline` names the command's own non-API choices,
/// for the message about an unknown provider.
pub fn api_options(flags: &ApiFlags, provider: &str, offline: &[&str]) -> Result<ApiOptions, String> {
    let preset = preset(provider).ok_or(format!(
        "unknown --provider `{provider}` (known: {}, and offline: {})",
        presets().iter().map(|p| p.id).collect::<Vec<_>>().join(", "),
        offline.join(", ")
    ))?;
    if preset.id == LOCAL {
        return Err("--provider local (a GGUF model run in this process) is for `execbench run --model-file F.gguf`"
            .to_string());
    }
    read_api_options(flags, preset)
}

/// The preset of a model run in this process (`execbench run --provider local`).
pub const LOCAL: &str = "local";

/// The provider flags for `--provider local`: generation settings only. Nothing is sent anywhere
/// and no key is read, so the address, key and price flags are refused rather than ignored.
/// `model` is the run's name for it when `--model` gives none.
pub fn local_api_options(flags: &ApiFlags, model: &str) -> Result<ApiOptions, String> {
    let refused = [
        ("--base-url", flags.base_url.is_some()),
        ("--key-env", flags.key_env.is_some()),
        ("--allow-http", flags.allow_http),
        ("--price", flags.price.is_some()),
        ("--spend-cap", flags.spend_cap.is_some()),
    ];
    let given: Vec<&str> = refused.iter().filter(|(_, given)| *given).map(|(flag, _)| *flag).collect();
    if !given.is_empty() {
        return Err(format!(
            "{} {} for model APIs: --provider local runs the model in this process (no address, no key, no cost)",
            given.join(", "),
            if given.len() == 1 { "is" } else { "are" }
        ));
    }
    let preset = preset(LOCAL).ok_or("the local preset is missing")?;
    let flags = ApiFlags {
        model: flags.model.clone().or(Some(model.to_string())),
        // One answer at a time: a second request would only wait for the model.
        concurrency: flags.concurrency.or(Some(1)),
        ..flags.clone()
    };
    read_api_options(&flags, preset)
}

fn read_api_options(flags: &ApiFlags, preset: &'static Preset) -> Result<ApiOptions, String> {
    let model = flags.model.clone().ok_or("--model is required")?;
    let base_url = flags.base_url.as_deref().unwrap_or(preset.base_url).trim().trim_end_matches('/').to_string();
    let address = Address::parse(&base_url).map_err(|e| format!("--base-url: {e}"))?;
    // A credential in the URL would be sent, kept in the run file and shown in messages (the
    // parse has refused `user:password@`; a fragment or another query parameter is left).
    let cleaned = redact_base_url(&base_url);
    let cleaned_query = Address::parse(&cleaned).ok().and_then(|a| a.query().map(str::to_string));
    if base_url.contains('#') || cleaned_query.as_deref() != address.query() {
        return Err(format!(
            "--base-url {} carries what looks like a credential (user:password@, or a query parameter or fragment other than api-version): a key is never taken from the URL; put it in an environment variable and name it with --key-env NAME",
            redact_base_url(&base_url)
        ));
    }
    let key = key_source(preset, &address, flags.key_env.as_deref(), flags.allow_http)?;
    // Kept and sent as the standard writes it: the run file holds what the requests used.
    let mut api = ApiSettings::new(Endpoint { provider: preset.id.to_string(), base_url: cleaned, model });
    api.concurrency = flags.concurrency.unwrap_or(4);
    if !(1..=64).contains(&api.concurrency) {
        return Err(format!("--concurrency must be between 1 and 64, got {}", api.concurrency));
    }
    api.params.temperature = number_or_none("temperature", flags.temperature.as_deref(), 0.2)?;
    api.params.top_p = number_or_none("top-p", flags.top_p.as_deref(), 0.95)?;
    api.params.max_tokens = flags.max_tokens.unwrap_or(2000);
    api.params.max_tokens_field = match flags.max_tokens_field.as_deref() {
        None | Some("auto") => MaxTokensField::Auto,
        Some("max_tokens") => MaxTokensField::MaxTokens,
        Some("max_completion_tokens") => MaxTokensField::MaxCompletionTokens,
        Some(other) => {
            return Err(format!(
                "unknown --max-tokens-field `{other}` (known: auto, max_tokens, max_completion_tokens)"
            ));
        }
    };
    // Reasoning models: OpenAI's effort, or a thinking budget (Anthropic, Gemini). What the model
    // does not take is left out below, and said.
    api.params.reasoning_effort = flags.reasoning_effort.clone();
    api.params.thinking_budget = flags.thinking_budget;

    api.params.stream = flags.stream;
    api.delay_ms = flags.delay_ms.unwrap_or(0);
    let timeout_s = flags.timeout.unwrap_or(300.0);
    if !(timeout_s > 0.0 && timeout_s <= 3600.0) {
        return Err(format!("--timeout must be between 0 and 3600 seconds, got {timeout_s}"));
    }
    api.timeout_ms = (timeout_s * 1000.0) as u64;
    let price = match flags.price.as_deref() {
        Some(text) => {
            let (input, output) = parse_price_flag(text)?;
            Some(PriceUsed {
                price: Price::per_million(input, output),
                source: format!("--price {input},{output} ($ per 1M tokens)"),
            })
        }
        None => PriceOverrides::default()
            .resolve(PriceTable::bundled(), &api.endpoint.provider, &api.endpoint.model)
            .map(|(price, source)| PriceUsed { price, source }),
    };
    let spend_cap = match flags.spend_cap.as_deref() {
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
    // What the model does not take is left out now, so the run file says what was sent.
    api.fit_to_model();
    Ok(ApiOptions { api, key, price, spend_cap })
}

/// Where a key comes from (an environment variable, never a flag: flags end up in shell
/// histories and process lists) and where it is going.
#[derive(Clone, Debug)]
pub struct KeySource {
    /// The variable read, when any: `--key-env`, else the preset's own for its own address.
    pub env: Option<String>,
    pub required: bool,
    /// Where requests go (the key with them).
    pub address: Address,
    /// `--allow-http`: a key may travel over plain http to another machine.
    pub allow_http: bool,
}

/// The preset's own variable, for the preset's own address only. None for servers that are
/// anyone's (`openai-compatible`, the local presets): their key is named on purpose.
fn default_key_env(preset: &Preset, address: &Address) -> Option<&'static str> {
    if preset.local || preset.id == "openai-compatible" {
        return None;
    }
    let own = Address::parse(preset.base_url).ok()?;
    let same_host = match own.host.strip_prefix("resource.") {
        // Azure's address names the user's resource (`RESOURCE.openai.azure.com`): any one
        // resource under Azure's domain is Azure's own.
        Some(domain) if preset.base_url.contains("RESOURCE") => address
            .host
            .strip_suffix(domain)
            .and_then(|h| h.strip_suffix('.'))
            .is_some_and(|label| !label.is_empty() && !label.contains('.')),
        _ => address.host == own.host,
    };
    (same_host && address.scheme == own.scheme && address.port == own.port).then_some(preset.key_env?)
}

/// Where the key comes from for `preset` at `address`. A provider that needs a key at an address
/// that is not its own says to name the variable.
fn key_source(
    preset: &Preset,
    address: &Address,
    key_env: Option<&str>,
    allow_http: bool,
) -> Result<KeySource, String> {
    let env = key_env.map(str::to_string).or(default_key_env(preset, address).map(str::to_string));
    if env.is_none() && preset.key_required {
        let own = preset
            .key_env
            .map_or(String::new(), |var| format!(" ({var} is read only for {})", redact_base_url(preset.base_url)));
        return Err(format!(
            "--provider {} at {} needs a key: name the environment variable that holds it with --key-env NAME{own}",
            preset.id,
            address.origin()
        ));
    }
    Ok(KeySource { env, required: preset.key_required, address: address.clone(), allow_http })
}

/// The key from the environment, checked against where it would go.
pub fn api_key(source: &KeySource) -> Result<Option<String>, String> {
    key_from(source, |var| std::env::var(var).ok())
}

/// [`api_key`] over any environment (the tests' tables).
fn key_from(source: &KeySource, env: impl Fn(&str) -> Option<String>) -> Result<Option<String>, String> {
    let Some(var) = source.env.as_deref() else { return Ok(None) };
    let key = env(var).map(|k| k.trim().to_string()).filter(|k| !k.is_empty());
    match key {
        None if source.required => {
            Err(format!("no API key: set the environment variable {var} (or name another with --key-env)"))
        }
        None => Ok(None),
        Some(key) => match plain_http_refusal(&source.address, source.allow_http) {
            // No key, no refusal: a local server without auth over http is fine.
            Some(refusal) => Err(format!("{refusal} (--allow-http); the key is in {var}")),
            None => Ok(Some(key)),
        },
    }
}

/// `--price INPUT,OUTPUT`: two finite, non-negative dollar amounts per million tokens (`inf` and
/// `NaN` parse as numbers, so they are refused here, not met as a cost later).
pub fn parse_price_flag(text: &str) -> Result<(f64, f64), String> {
    // `+ 0.0` turns `-0` into `0`, so the source line never shows a minus sign.
    let amount = |part: &str| part.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).map(|v| v + 0.0);
    text.split_once(',')
        .and_then(|(input, output)| Some((amount(input)?, amount(output)?)))
        .ok_or_else(|| format!("--price `{text}`: expected INPUT,OUTPUT in dollars per million tokens, e.g. 0.15,0.6"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_flags() {
        let refused = |text: &str| {
            Err(format!("--price `{text}`: expected INPUT,OUTPUT in dollars per million tokens, e.g. 0.15,0.6"))
        };
        type Case = (&'static str, Result<(f64, f64), String>);
        let cases: &[Case] = &[
            ("0.15,0.6", Ok((0.15, 0.6))),
            (" 3 , 15 ", Ok((3.0, 15.0))),
            ("0,0", Ok((0.0, 0.0))),
            ("-0,1e2", Ok((0.0, 100.0))),
            ("1.5", refused("1.5")),
            ("1,2,3", refused("1,2,3")),
            ("-1,2", refused("-1,2")),
            ("1,inf", refused("1,inf")),
            ("NaN,1", refused("NaN,1")),
            ("$1,$2", refused("$1,$2")),
            ("", refused("")),
        ];
        for (text, expected) in cases {
            assert_eq!(&parse_price_flag(text), expected, "{text:?}");
        }
        assert_eq!(parse_price_flag("-0,1").map(|(i, _)| i.is_sign_negative()), Ok(false));
    }

    proptest::proptest! {
        #![proptest_config(execbench_proptest_cases::cases(256))]

        /// Two amounts written as a user would (any spacing, Rust's shortest float text) read back
        /// exactly.
        #[test]
        fn written_prices_read_back(input in 0.0f64..1e6, output in 0.0f64..1e6, pad in "[ ]{0,2}") {
            let text = format!("{pad}{input}{pad},{pad}{output}{pad}");
            proptest::prop_assert_eq!(parse_price_flag(&text), Ok((input, output)));
        }

        /// Any text: a price of finite, non-negative amounts, or the refusal naming the text.
        #[test]
        fn any_text_is_a_valid_price_or_refused_by_name(text in "[0-9eE.,+\\- infaNI]{0,12}|\\PC{0,12}") {
            match parse_price_flag(&text) {
                Ok((input, output)) => {
                    proptest::prop_assert!(input.is_finite() && output.is_finite() && input >= 0.0 && output >= 0.0);
                    proptest::prop_assert!(!input.is_sign_negative() && !output.is_sign_negative());
                }
                Err(message) => proptest::prop_assert!(message.contains(&format!("`{text}`")), "{}", message),
            }
        }
    }

    /// The provider flags alone, parsed as every command that has them parses them.
    #[derive(clap::Parser)]
    struct ProviderFlags {
        #[arg(long)]
        provider: String,
        #[command(flatten)]
        api: ApiFlags,
    }

    /// The variable whose key would be sent for these flags and environment (`None`: no key is
    /// sent), or the start of the error.
    fn key_variable(flags: &[&str], env: &[(&str, &str)]) -> Result<Option<String>, String> {
        use clap::Parser;
        let argv = [&["test", "--model", "m"][..], flags].concat();
        let parsed = ProviderFlags::try_parse_from(argv).map_err(|e| e.to_string())?;
        let options = api_options(&parsed.api, &parsed.provider, &[])?;
        let lookup = |var: &str| env.iter().find(|(name, _)| *name == var).map(|(_, value)| value.to_string());
        Ok(key_from(&options.key, lookup)?.map(|_| options.key.env.clone().unwrap_or_default()))
    }

    #[test]
    fn a_key_comes_only_from_the_variable_meant_for_that_address() {
        let openai_key = [("OPENAI_API_KEY", "sk-openai")];
        let both = [("OPENAI_API_KEY", "sk-openai"), ("MY_KEY", "sk-mine")];
        let all = [
            ("OPENAI_API_KEY", "sk-openai"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("AZURE_OPENAI_API_KEY", "az"),
            ("DEEPSEEK_API_KEY", "ds"),
        ];
        type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], Result<Option<&'a str>, &'a str>);
        let cases: &[Case] = &[
            // A preset's own variable at its own address (any path, the port spelled out or not).
            (&["--provider", "openai"], &openai_key, Ok(Some("OPENAI_API_KEY"))),
            (
                &["--provider", "openai", "--base-url", "https://API.openai.com:443/v1/"],
                &openai_key,
                Ok(Some("OPENAI_API_KEY")),
            ),
            (&["--provider", "deepseek"], &all, Ok(Some("DEEPSEEK_API_KEY"))),
            (&["--provider", "openai"], &[], Err("no API key: set the environment variable OPENAI_API_KEY")),
            // Azure: any one resource under Azure's domain is Azure's own; nothing else is.
            (
                &[
                    "--provider",
                    "azure",
                    "--base-url",
                    "https://myres.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
                ],
                &all,
                Ok(Some("AZURE_OPENAI_API_KEY")),
            ),
            (
                &["--provider", "azure", "--base-url", "https://myres.openai.azure.com.evil.example/openai"],
                &all,
                Err(
                    "--provider azure at https://myres.openai.azure.com.evil.example:443 needs a key: name the environment variable that holds it with --key-env NAME",
                ),
            ),
            (
                &["--provider", "azure", "--base-url", "https://a.b.openai.azure.com/x"],
                &all,
                Err("--provider azure at https://a.b.openai.azure.com:443 needs a key"),
            ),
            // Another address: the preset's variable is not read; the user names one on purpose.
            (
                &["--provider", "openai", "--base-url", "https://evil.example/v1"],
                &openai_key,
                Err(
                    "--provider openai at https://evil.example:443 needs a key: name the environment variable that holds it with --key-env NAME (OPENAI_API_KEY is read only for https://api.openai.com/v1)",
                ),
            ),
            (
                &["--provider", "openai", "--base-url", "https://evil.example/v1", "--key-env", "MY_KEY"],
                &both,
                Ok(Some("MY_KEY")),
            ),
            (
                &["--provider", "openai", "--base-url", "https://api.openai.com:8443/v1"],
                &openai_key,
                Err("--provider openai at https://api.openai.com:8443 needs a key"),
            ),
            (
                &["--provider", "anthropic", "--base-url", "http://api.anthropic.com/v1"],
                &all,
                Err("--provider anthropic at http://api.anthropic.com:80 needs a key"),
            ),
            // openai-compatible and the local servers have no variable of their own.
            (&["--provider", "openai-compatible", "--base-url", "https://llm.example/v1"], &openai_key, Ok(None)),
            (&["--provider", "openai-compatible"], &openai_key, Ok(None)),
            (
                &["--provider", "openai-compatible", "--base-url", "https://llm.example/v1", "--key-env", "MY_KEY"],
                &both,
                Ok(Some("MY_KEY")),
            ),
            (
                &["--provider", "openai-compatible", "--base-url", "https://llm.example/v1", "--key-env", "MY_KEY"],
                &[("MY_KEY", "  ")],
                Ok(None),
            ),
            (&["--provider", "vllm"], &all, Ok(None)),
            (&["--provider", "vllm", "--key-env", "MY_KEY"], &both, Ok(Some("MY_KEY"))),
            (&["--provider", "ollama", "--base-url", "http://gpu-box.lan:11434/v1"], &all, Ok(None)),
            // Plain http to another machine: refused with a key, fine without one or on purpose.
            (
                &["--provider", "openai-compatible", "--base-url", "http://10.0.0.5:8000/v1", "--key-env", "MY_KEY"],
                &both,
                Err("a key would travel unencrypted to http://10.0.0.5:8000"),
            ),
            (
                &[
                    "--provider",
                    "openai-compatible",
                    "--base-url",
                    "http://10.0.0.5:8000/v1",
                    "--key-env",
                    "MY_KEY",
                    "--allow-http",
                ],
                &both,
                Ok(Some("MY_KEY")),
            ),
            (
                &["--provider", "ollama", "--base-url", "http://gpu-box.lan:11434/v1", "--key-env", "MY_KEY"],
                &both,
                Err("a key would travel unencrypted to http://gpu-box.lan:11434"),
            ),
            (
                &[
                    "--provider",
                    "anthropic",
                    "--base-url",
                    "http://api.anthropic.com/v1",
                    "--key-env",
                    "ANTHROPIC_API_KEY",
                ],
                &all,
                Err("a key would travel unencrypted"),
            ),
            (
                &["--provider", "openai-compatible", "--base-url", "http://127.0.0.1:8000/v1", "--key-env", "MY_KEY"],
                &both,
                Ok(Some("MY_KEY")),
            ),
            (
                &["--provider", "openai-compatible", "--base-url", "http://localhost:8000/v1", "--key-env", "MY_KEY"],
                &both,
                Ok(Some("MY_KEY")),
            ),
            // A credential in the URL: refused, the message without it.
            (
                &[
                    "--provider",
                    "gemini",
                    "--base-url",
                    "https://generativelanguage.googleapis.com/v1beta?key=AIzaSECRET",
                ],
                &all,
                Err(
                    "--base-url https://generativelanguage.googleapis.com/v1beta carries what looks like a credential (user:password@, or a query parameter or fragment other than api-version): a key is never taken from the URL; put it in an environment variable and name it with --key-env NAME",
                ),
            ),
            (
                &["--provider", "openai-compatible", "--base-url", "https://user:pw@llm.example/v1"],
                &all,
                Err("--base-url: `https://llm.example/v1` carries a user name or password"),
            ),
            (
                &["--provider", "openai-compatible", "--base-url", "https://llm.example/v1?token=t&api-version=1"],
                &all,
                Err("--base-url https://llm.example/v1?api-version=1 carries"),
            ),
            (
                &["--provider", "openai", "--base-url", "ftp://api.openai.com/v1"],
                &all,
                Err("--base-url: the scheme `ftp`"),
            ),
        ];
        for (flags, env, want) in cases {
            let got = key_variable(flags, env);
            let ok = match (&got, want) {
                (Ok(var), Ok(w)) => var.as_deref() == *w,
                (Err(e), Err(start)) => e.starts_with(start),
                _ => false,
            };
            assert!(ok, "{flags:?}: got {got:?}, want {want:?}");
            // No message ever carries a key or a secret query parameter.
            if let Err(e) = &got {
                for secret in ["sk-", "AIzaSECRET", "pw@", "token=t"] {
                    assert!(!e.contains(secret), "{flags:?}: {e}");
                }
            }
        }
    }

    #[test]
    fn every_command_with_provider_flags_takes_them_and_never_a_key() {
        let provider_flags = ["--stream", "--allow-http", "--key-env", "MY_KEY", "--model", "m"];
        let commands: [&[&str]; 3] = [
            &["run", "--dataset", "d", "--task", "output", "--out", "o", "--provider", "openai"],
            &[
                "perturb",
                "--dataset",
                "d",
                "--kind",
                "MHC",
                "--out",
                "o",
                "--wrong-answers",
                "model",
                "--provider",
                "openai",
            ],
            &["build", "generate", "--out", "o", "--candidates", "c", "--source", "api", "--provider", "openai"],
        ];
        for command in commands {
            let argv = [&["execbench"][..], command, &provider_flags].concat();
            let cli = crate::cli::parse_from(argv.clone()).unwrap_or_else(|e| panic!("{command:?}: {e}"));
            let api = cli.command.api_flags().unwrap_or_else(|| panic!("{command:?} has no provider flags"));
            assert!(api.stream && api.allow_http, "{command:?}");
            assert_eq!((api.key_env.as_deref(), api.model.as_deref()), (Some("MY_KEY"), Some("m")), "{command:?}");
            // A key never comes from a flag.
            let refused = crate::cli::parse_from([&argv[..], &["--api-key", "sk-secret"]].concat())
                .err()
                .unwrap_or_else(|| panic!("{command:?} took --api-key"));
            assert_eq!(refused.kind(), clap::error::ErrorKind::UnknownArgument);
            assert!(refused.to_string().contains("--api-key"), "{refused}");
        }
    }
}
