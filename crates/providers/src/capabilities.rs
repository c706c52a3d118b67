//! What a model takes. Providers have stopped taking some settings on some models: Anthropic's
//! API version 2026-10-21 takes no sampling parameters at all, OpenAI's reasoning models refuse a
//! temperature, top-p and `stop`, Gemini 3 takes a thinking level and no budget. A request that
//! carries one is refused (400) or, worse, answered with the setting silently ignored, and a
//! report would then claim a temperature the model never used. So before a request is built its
//! settings are fitted to the model ([`fit`]): what the model does not take is left out and said
//! ([`NotSent`]), and the run keeps the fitted settings as the ones it used.
//!
//! Sources, per row of [`capabilities`] (`docs/providers.md` has the details and dates): the
//! `anthropic` SDK 2.15.0 (`MessageCreateParams` has no `temperature`/`top_p`/`top_k`; its
//! `anthropic-version` is 2026-10-21; `ThinkingConfigParam`), the `openai` SDK 3.57.0
//! (`max_tokens` "not compatible with o-series models", `stop` "not supported with latest
//! reasoning models"), the `google-genai` SDK 3.6.1 (`ThinkingConfig.thinking_level`), LiteLLM's
//! model map 1.110.2 (`supports_sampling_params`, `default_reasoning_effort`,
//! `supports_none_reasoning_effort`) and the providers' model pages. A model no row knows gets the
//! provider's current default: every setting sent as given, except on Anthropic, whose API
//! version takes no sampling parameters for any model.

use serde::{Deserialize, Serialize};

use crate::params::{Endpoint, GenerationParams, MaxTokensField};
use crate::presets::WireFormat;

impl Endpoint {
    /// Whether one request may ask for several choices: the provider documents it (false when the
    /// id is unknown) and the model takes it (Gemini 3 does not). Here, beside the table, so that
    /// `params` needs nothing of this module.
    pub fn supports_n(&self) -> bool {
        self.preset().is_some_and(|p| p.supports_n) && capabilities(self).n
    }
}

/// Whether a model takes a sampling parameter (temperature, top-p).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    Taken,
    /// Refused with an error: never sent.
    Refused,
    /// Accepted and ignored: never sent, so no record claims it was used.
    Ignored,
    /// Taken only when the reasoning effort is "none" (OpenAI's gpt-5.1 and later);
    /// `default_none`: no effort given means "none" too.
    WhenEffortNone {
        default_none: bool,
    },
}

/// What one family of models takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The family, in words, for messages ("OpenAI o-series").
    pub family: &'static str,
    pub sampling: Sampling,
    /// `stop` / `stop_sequences` / `stopSequences`.
    pub stop: bool,
    /// Several choices in one request (`n`, `candidateCount`); with false the run sends n requests.
    pub n: bool,
    /// OpenAI-style: the model refuses `max_tokens` and takes only `max_completion_tokens`.
    pub max_completion_tokens_only: bool,
    /// OpenAI's `reasoning_effort`.
    pub reasoning_effort: bool,
    /// Anthropic `thinking {type: "enabled", budget_tokens}`; Gemini `thinkingConfig.thinkingBudget`.
    pub thinking_budget: bool,
    /// Why the family is read so, in a few words, with its source.
    pub why: &'static str,
}

const ALL: Capabilities = Capabilities {
    family: "",
    sampling: Sampling::Taken,
    stop: true,
    n: true,
    max_completion_tokens_only: false,
    reasoning_effort: true,
    thinking_budget: true,
    why: "",
};

/// A setting the run asked for that its model does not take, so it is not sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotSent {
    /// "temperature", "top_p", "stop", "n", "max_tokens", "reasoning_effort", "thinking_budget".
    pub setting: String,
    /// The value asked for, as text ("0.2").
    pub wanted: String,
    /// Why, naming the model: "claude-opus-5-5 takes none (Anthropic API 2026-10-21)".
    pub why: String,
}

impl std::fmt::Display for NotSent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let instead = match self.setting.as_str() {
            "n" => "one request per answer instead",
            "max_tokens" => "sent as max_completion_tokens",
            "stop" => "answers are cut at the stop text after they arrive",
            _ => "the provider's default applies",
        };
        write!(f, "{} {}: not sent, {instead} ({})", self.setting, self.wanted, self.why)
    }
}

/// The settings a request to `endpoint` may carry, and what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    pub params: GenerationParams,
    pub not_sent: Vec<NotSent>,
    /// Several choices may be asked for in one request.
    pub n: bool,
}

/// The model's name without the prefixes routers and lists put before it, lowercase:
/// "models/gemini-2.5-flash" and "openai/o3" become "gemini-2.5-flash" and "o3".
fn bare_name(model: &str) -> String {
    let model = model.trim().to_ascii_lowercase();
    let last = model.rsplit('/').next().unwrap_or(&model);
    last.to_string()
}

/// The numbers in a model name after `prefix` (dates of 6 or more digits skipped):
/// "claude-opus-4-5-20251101" after "claude-" gives [4, 5]; "gemini-2.5-flash" [2, 5].
fn version_after(name: &str, prefix: &str) -> Vec<u32> {
    let Some(rest) = name.strip_prefix(prefix) else { return Vec::new() };
    rest.split(['-', '.'])
        .filter(|part| !part.is_empty() && part.len() < 6 && part.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|part| part.parse().ok())
        .collect()
}

fn at_least(version: &[u32], major: u32, minor: u32) -> bool {
    match version {
        [] => false,
        [m] => *m > major || (*m == major && minor == 0),
        [m, n, ..] => (*m, *n) >= (major, minor),
    }
}

/// What `endpoint`'s model takes.
pub fn capabilities(endpoint: &Endpoint) -> Capabilities {
    let name = bare_name(&endpoint.model);
    match endpoint.wire() {
        WireFormat::Anthropic => anthropic(&name),
        WireFormat::Gemini => gemini(&name),
        WireFormat::OpenAiChat => openai(&name, endpoint.provider.as_str()),
    }
}

fn anthropic(name: &str) -> Capabilities {
    // Claude's version after the family word: "claude-opus-4-7", "claude-3-7-sonnet-…".
    let version = version_after(name, "claude-");
    let adaptive_only = name.contains("fable") || name.contains("mythos") || at_least(&version, 4, 7);
    Capabilities {
        family: "Anthropic Messages, API version 2026-10-21",
        sampling: Sampling::Refused,
        n: false,
        reasoning_effort: false,
        thinking_budget: !adaptive_only,
        why: if adaptive_only {
            "takes adaptive thinking only and no sampling parameters (Anthropic API 2026-10-21)"
        } else {
            "takes no sampling parameters (Anthropic API 2026-10-21)"
        },
        ..ALL
    }
}

fn gemini(name: &str) -> Capabilities {
    let version = version_after(name, "gemini-");
    if !at_least(&version, 3, 0) {
        return Capabilities { family: "Gemini 2 and earlier", reasoning_effort: false, ..ALL };
    }
    // 3.6 and later, and 3.5 Flash-Lite, ignore custom sampling values (Google's model pages).
    let ignores_sampling = at_least(&version, 3, 6) || (at_least(&version, 3, 5) && name.contains("lite"));
    Capabilities {
        family: "Gemini 3",
        sampling: if ignores_sampling { Sampling::Ignored } else { Sampling::Taken },
        n: false,
        reasoning_effort: false,
        thinking_budget: false,
        why: if ignores_sampling {
            "ignores sampling values, and takes a thinking level, not a budget, and one candidate a request (Gemini 3.6 and later)"
        } else {
            "takes a thinking level, not a budget, and one candidate a request (Gemini 3)"
        },
        ..ALL
    }
}

fn openai(name: &str, provider: &str) -> Capabilities {
    let o_series = name.len() >= 2 && name.starts_with('o') && name.as_bytes()[1].is_ascii_digit();
    let gpt = version_after(name, "gpt-");
    let gpt_reasoning = at_least(&gpt, 5, 0) && !name.contains("chat-latest");
    // A date after the major version ("gpt-5-2025-08-07") is no minor version.
    let minor = gpt.get(1).copied().filter(|m| *m < 100);
    if o_series || (gpt_reasoning && minor.is_none()) {
        // o1, o3, o4-mini; gpt-5, gpt-5-mini, gpt-5-2025-08-07 (a date is no minor version).
        return Capabilities {
            family: "OpenAI reasoning models (o-series, gpt-5)",
            sampling: Sampling::Refused,
            stop: false,
            max_completion_tokens_only: true,
            thinking_budget: false,
            why: "is an OpenAI reasoning model: temperature and top-p only at their defaults, no stop (OpenAI SDK 3.57.0)",
            ..ALL
        };
    }
    if gpt_reasoning {
        // gpt-5.1 to gpt-5.4 reason at "none" unless asked; later ones only when asked for "none".
        let default_none = gpt[0] == 5 && minor.is_some_and(|m| m <= 4);
        return Capabilities {
            family: "OpenAI gpt-5.1 and later",
            sampling: Sampling::WhenEffortNone { default_none },
            stop: !default_none,
            max_completion_tokens_only: true,
            thinking_budget: false,
            why: if default_none {
                "takes temperature and top-p only with reasoning effort none (its default), and no stop (LiteLLM model map 1.110.2)"
            } else {
                "takes temperature and top-p only with reasoning effort none (LiteLLM model map 1.110.2)"
            },
            ..ALL
        };
    }
    if name.starts_with("deepseek-reasoner") {
        return Capabilities {
            family: "DeepSeek reasoner",
            sampling: Sampling::Ignored,
            thinking_budget: false,
            why: "accepts temperature and top-p and ignores them (DeepSeek's thinking mode, api-docs.deepseek.com)",
            ..ALL
        };
    }
    // OpenAI's own chat models refuse a reasoning effort; other servers decide for themselves.
    let openai_chat =
        matches!(provider, "openai" | "azure") && (name.starts_with("gpt-") || name.starts_with("chatgpt"));
    Capabilities {
        family: "chat models",
        reasoning_effort: !openai_chat,
        thinking_budget: false,
        why: if openai_chat { "is an OpenAI chat model, which takes no reasoning effort" } else { "" },
        ..ALL
    }
}

/// `params` fitted to `endpoint`'s model: what it does not take is left out and listed. `n` > 1
/// in one request only where both the provider and the model allow it.
pub fn fit(endpoint: &Endpoint, params: &GenerationParams) -> Fitted {
    let caps = capabilities(endpoint);
    let model = endpoint.model.trim();
    let mut out = params.clone();
    let mut not_sent = Vec::new();
    let mut leave_out = |setting: &str, wanted: String, why: &str| {
        not_sent.push(NotSent { setting: setting.into(), wanted, why: format!("{model} {why}") });
    };
    let effort_none = |default_none: bool| match params.reasoning_effort.as_deref() {
        None => default_none,
        Some(e) => e == "none",
    };
    let sampling_taken = match caps.sampling {
        Sampling::Taken => true,
        Sampling::Refused | Sampling::Ignored => false,
        Sampling::WhenEffortNone { default_none } => effort_none(default_none),
    };
    if !sampling_taken {
        if let Some(t) = out.temperature.take() {
            leave_out("temperature", t.to_string(), caps.why);
        }
        if let Some(p) = out.top_p.take() {
            leave_out("top_p", p.to_string(), caps.why);
        }
    }
    if !caps.stop && !out.stop.is_empty() {
        leave_out("stop", format!("{:?}", out.stop), caps.why);
        out.stop.clear();
    }
    if caps.max_completion_tokens_only && out.max_tokens_field == MaxTokensField::MaxTokens {
        leave_out("max_tokens", out.max_tokens.to_string(), caps.why);
        out.max_tokens_field = MaxTokensField::MaxCompletionTokens;
    }
    let wire = endpoint.wire();
    if let Some(effort) = out.reasoning_effort.take() {
        if wire != WireFormat::OpenAiChat {
            leave_out(
                "reasoning_effort",
                effort,
                "is not called over OpenAI's API: its reasoning is set by a thinking budget",
            );
        } else if !caps.reasoning_effort {
            leave_out("reasoning_effort", effort, caps.why);
        } else {
            out.reasoning_effort = Some(effort);
        }
    }
    if let Some(budget) = out.thinking_budget.take() {
        if wire == WireFormat::OpenAiChat {
            leave_out(
                "thinking_budget",
                budget.to_string(),
                "is called over OpenAI's API, which has no thinking budget (a reasoning effort instead)",
            );
        } else if !caps.thinking_budget {
            leave_out("thinking_budget", budget.to_string(), caps.why);
        } else {
            out.thinking_budget = Some(budget);
        }
    }
    Fitted { params: out, not_sent, n: endpoint.supports_n() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(provider: &str, model: &str) -> Endpoint {
        Endpoint { provider: provider.into(), base_url: "https://example.test/v1".into(), model: model.into() }
    }

    fn asked() -> GenerationParams {
        GenerationParams {
            stop: vec!["[/ANSWER]".into()],
            reasoning_effort: None,
            thinking_budget: None,
            ..GenerationParams::default()
        }
    }

    /// (provider, model, extra settings, settings left out, one request may hold n choices)
    #[test]
    fn what_each_model_takes() {
        type Setup = fn(&mut GenerationParams);
        let none: Setup = |_| {};
        let effort_low: Setup = |p| p.reasoning_effort = Some("low".into());
        let effort_none: Setup = |p| p.reasoning_effort = Some("none".into());
        let budget: Setup = |p| p.thinking_budget = Some(2048);
        let max_tokens: Setup = |p| p.max_tokens_field = MaxTokensField::MaxTokens;
        let cases: [(&str, &str, Setup, &[&str], bool); 22] = [
            ("openai", "gpt-4.1-mini", none, &[], true),
            ("openai", "gpt-4o", effort_low, &["reasoning_effort"], true),
            ("openai", "o3", none, &["temperature", "top_p", "stop"], true),
            ("openai", "o4-mini", max_tokens, &["temperature", "top_p", "stop", "max_tokens"], true),
            ("openai", "gpt-5", effort_low, &["temperature", "top_p", "stop"], true),
            ("openai", "gpt-5-mini-2025-08-07", none, &["temperature", "top_p", "stop"], true),
            ("openai", "gpt-5.1", none, &["stop"], true),
            ("openai", "gpt-5.2", effort_low, &["temperature", "top_p", "stop"], true),
            ("openai", "gpt-5.5", none, &["temperature", "top_p"], true),
            ("openai", "gpt-5.5", effort_none, &[], true),
            ("openai", "gpt-5.2-chat-latest", none, &[], true),
            ("openrouter", "openai/o3", none, &["temperature", "top_p", "stop"], false),
            ("deepseek", "deepseek-reasoner", none, &["temperature", "top_p"], false),
            ("vllm", "qwen3-8b", effort_low, &[], true),
            ("vllm", "qwen3-8b", budget, &["thinking_budget"], true),
            ("anthropic", "claude-3-7-sonnet-20250219", budget, &["temperature", "top_p"], false),
            ("anthropic", "claude-opus-4-5-20251101", effort_low, &["temperature", "top_p", "reasoning_effort"], false),
            ("anthropic", "claude-opus-5-5", budget, &["temperature", "top_p", "thinking_budget"], false),
            ("anthropic", "claude-fable-5-2", none, &["temperature", "top_p"], false),
            ("gemini", "gemini-2.5-flash", budget, &[], true),
            ("gemini", "models/gemini-3-pro-preview", budget, &["thinking_budget"], false),
            ("gemini", "gemini-3.6-flash", none, &["temperature", "top_p"], false),
        ];
        for (provider, model, setup, left_out, n) in cases {
            let mut params = asked();
            setup(&mut params);
            let fitted = fit(&ep(provider, model), &params);
            let got: Vec<&str> = fitted.not_sent.iter().map(|s| s.setting.as_str()).collect();
            assert_eq!(got, left_out, "{provider} {model}");
            assert_eq!(fitted.n, n, "{provider} {model}: n in one request");
            for gone in &fitted.not_sent {
                assert!(gone.why.starts_with(model.trim()), "the reason names the model: {gone}");
            }
            // What is left out is gone from the settings; the rest is as asked.
            assert_eq!(fitted.params.temperature.is_some(), !got.contains(&"temperature"), "{model}");
            assert_eq!(fitted.params.top_p.is_some(), !got.contains(&"top_p"), "{model}");
            assert_eq!(fitted.params.stop.is_empty(), got.contains(&"stop"), "{model}");
            assert_eq!(fitted.params.max_tokens, params.max_tokens);
        }
    }

    #[test]
    fn a_setting_left_out_is_said_in_words() {
        let fitted = fit(&ep("anthropic", "claude-opus-5-5"), &GenerationParams::default());
        let said: Vec<String> = fitted.not_sent.iter().map(ToString::to_string).collect();
        assert_eq!(
            said[0],
            "temperature 0.2: not sent, the provider's default applies (claude-opus-5-5 takes adaptive thinking only and no sampling parameters (Anthropic API 2026-10-21))"
        );
        let fitted = fit(&ep("openai", "o3"), &GenerationParams { stop: vec!["x".into()], ..Default::default() });
        assert!(fitted.not_sent.iter().any(|s| s.to_string().starts_with("stop [\"x\"]: not sent, answers are cut")));
        // A model no row knows, on a server that is not OpenAI: everything as asked.
        let fitted = fit(&ep("openai-compatible", "my-finetune"), &asked());
        assert!(fitted.not_sent.is_empty());
        assert_eq!(fitted.params, asked());
    }

    #[test]
    fn versions_in_model_names() {
        let cases = [
            ("claude-opus-4-5-20251101", "claude-", vec![4, 5]),
            ("claude-3-7-sonnet-20250219", "claude-", vec![3, 7]),
            ("claude-opus-5", "claude-", vec![5]),
            ("gemini-2.5-flash-lite", "gemini-", vec![2, 5]),
            ("gpt-5-mini-2025-08-07", "gpt-", vec![5, 2025, 8, 7]),
            ("gpt-4o", "gpt-", vec![]),
        ];
        for (name, prefix, want) in cases {
            assert_eq!(version_after(name, prefix), want, "{name}");
        }
    }
}
