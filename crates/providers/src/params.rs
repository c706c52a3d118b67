//! What the caller chooses: the endpoint (provider, URL, model), the generation settings and
//! the conversation.

use serde::{Deserialize, Serialize};

use crate::presets::{Preset, WireFormat, preset};

/// Where and how to call: no key inside (keys are passed separately and never serialized).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    /// A preset id; an unknown id is treated as an OpenAI-compatible server.
    pub provider: String,
    /// Serialized without credentials, fragment or query parameters other than `api-version`
    /// ([`crate::redact_base_url`]): every manifest, entry and export that keeps an endpoint keeps
    /// it so. In memory it stays as typed, for the requests.
    #[serde(serialize_with = "crate::address::serialize_redacted_base_url")]
    pub base_url: String,
    pub model: String,
}

/// The base URL redacted, as when serialized: a debug print lands in logs and messages.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("base_url", &crate::redact_base_url(&self.base_url))
            .field("model", &self.model)
            .finish()
    }
}

impl Endpoint {
    pub fn preset(&self) -> Option<&'static Preset> {
        preset(&self.provider)
    }

    /// The preset's wire format, OpenAiChat when the id is unknown.
    pub fn wire(&self) -> WireFormat {
        self.preset().map_or(WireFormat::OpenAiChat, |p| p.wire)
    }

    /// The host of base_url with its port when not the scheme's default ("api.openai.com",
    /// "127.0.0.1:8000"), as the URL standard reads it: where a key would be sent, for messages.
    /// Text that is not an address comes back redacted.
    pub fn host(&self) -> String {
        crate::Address::parse(&self.base_url)
            .map_or_else(|_| crate::redact_base_url(&self.base_url), |a| a.host_and_port())
    }
}

/// Which body field carries the output-token limit on OpenAI-style servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_completion_tokens` for the "openai" and "azure" presets (reasoning models refuse
    /// `max_tokens`), `max_tokens` for other compatible servers (many ignore the newer name).
    #[default]
    Auto,
    MaxTokens,
    MaxCompletionTokens,
}

/// Generation settings (CodeCrash's defaults: max tokens 2000, temperature 0.2, top-p 0.95).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationParams {
    pub max_tokens: u32,
    /// None: not sent.
    pub temperature: Option<f64>,
    /// None: not sent.
    pub top_p: Option<f64>,
    pub stream: bool,
    /// OpenAI-style "low"/"medium"/"high"; sent as `reasoning_effort` (OpenAI chat only).
    pub reasoning_effort: Option<String>,
    /// Anthropic `thinking {type:"enabled", budget_tokens}`; Gemini
    /// `generationConfig.thinkingConfig.thinkingBudget`.
    pub thinking_budget: Option<u32>,
    pub max_tokens_field: MaxTokensField,
    /// OpenAI `stop` (at most 4 sent), Anthropic `stop_sequences`, Gemini `stopSequences` (at most
    /// 5 sent); empty: not sent.
    pub stop: Vec<String>,
}

impl Default for GenerationParams {
    fn default() -> Self {
        GenerationParams {
            max_tokens: 2000,
            temperature: Some(0.2),
            top_p: Some(0.95),
            stream: false,
            reasoning_effort: None,
            thinking_budget: None,
            max_tokens_field: MaxTokensField::Auto,
            stop: vec![],
        }
    }
}

/// One turn of the conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// "system" | "user" | "assistant"
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: "system".into(), content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: "user".into(), content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Message {
        Message { role: "assistant".into(), content: content.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(provider: &str, base_url: &str) -> Endpoint {
        Endpoint { provider: provider.into(), base_url: base_url.into(), model: "m".into() }
    }

    #[test]
    fn hosts() {
        let cases = [
            ("https://api.openai.com/v1", "api.openai.com"),
            ("http://127.0.0.1:8000/v1", "127.0.0.1:8000"),
            ("  HTTPS://API.Example.com  ", "api.example.com"),
            ("https://user:pw@h.example:9/x?y#z", "https://h.example:9/x"),
            ("http://[::1]:11434/v1", "[::1]:11434"),
            ("https://evil.example\\@api.openai.com/v1", "evil.example"),
            ("http://0x7f.1:80/", "127.0.0.1"),
            ("localhost:8080/v1", "localhost:8080/v1"),
            ("", ""),
        ];
        for (url, want) in cases {
            assert_eq!(ep("openai", url).host(), want, "{url}");
        }
    }

    #[test]
    fn unknown_provider_is_openai_compatible_without_n() {
        let e = ep("my-proxy", "http://x/v1");
        assert_eq!(e.wire(), WireFormat::OpenAiChat);
        assert!(!e.supports_n());
        assert!(e.preset().is_none());
        assert_eq!(ep("gemini", "").wire(), WireFormat::Gemini);
        assert!(ep("vllm", "").supports_n());
        assert!(!ep("anthropic", "").supports_n());
    }

    /// An endpoint is kept (manifests, generation entries) by serializing it: its base URL loses
    /// credentials, fragment and every query parameter but `api-version`, and so does its debug
    /// print. (typed base URL, as kept)
    #[test]
    fn endpoints_are_kept_without_secrets_in_the_base_url() {
        let cases = [
            (
                "https://generativelanguage.googleapis.com/v1beta?key=SECRET",
                "https://generativelanguage.googleapis.com/v1beta",
            ),
            ("https://user:SECRET@proxy.example/v1", "https://proxy.example/v1"),
            (
                "https://x.openai.azure.com/openai?api-version=2024-10-21&sig=SECRET",
                "https://x.openai.azure.com/openai?api-version=2024-10-21",
            ),
            ("https://proxy.example/v1#SECRET", "https://proxy.example/v1"),
            ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ];
        for (typed, kept) in cases {
            let endpoint = ep("gemini", typed);
            let json = serde_json::to_string(&endpoint).unwrap();
            let debug = format!("{endpoint:?}");
            for text in [&json, &debug] {
                assert!(!text.contains("SECRET"), "{typed}: {text}");
            }
            let back: Endpoint = serde_json::from_str(&json).unwrap();
            assert_eq!(back.base_url, kept, "{typed}");
            assert!(debug.contains(kept), "{debug}");
            assert_eq!(endpoint.base_url, typed, "in memory the URL stays as typed, for the requests");
        }
    }

    #[test]
    fn defaults_are_codecrash() {
        let p = GenerationParams::default();
        assert_eq!((p.max_tokens, p.temperature, p.top_p, p.stream), (2000, Some(0.2), Some(0.95), false));
        assert_eq!(p.max_tokens_field, MaxTokensField::Auto);
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["max_tokens_field"], "auto");
        let back: GenerationParams = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
    }
}
