//! The models a server offers: `GET {base}/models` in each wire format, for the model picker.
//! OpenAI and every compatible server (vLLM, llama.cpp, Ollama) answer `{data: [{id}]}`,
//! Anthropic the same shape, Gemini `{models: [{name: "models/…", supportedGenerationMethods}]}`.

use serde_json::Value;

use crate::address::Address;
use crate::http::HttpRequest;
use crate::params::Endpoint;
use crate::presets::WireFormat;
use crate::request::auth_headers;

/// The request that lists `endpoint`'s models (its key goes where every request of it goes).
/// Azure names deployments, not models, and has no such list at the deployment's address.
pub fn models_request(endpoint: &Endpoint, key: Option<&str>) -> Result<HttpRequest, String> {
    if endpoint.provider == "azure" {
        return Err("Azure OpenAI has no model list at a deployment's address: its portal lists the deployments".into());
    }
    let address = Address::parse(&endpoint.base_url).map_err(|e| format!("base URL: {e}"))?;
    // The canonical URL that was checked; a pasted full endpoint ("…/v1/chat/completions",
    // "…/v1/messages") lists from its base.
    let root = address.root();
    let base = root.strip_suffix("/chat/completions").or_else(|| root.strip_suffix("/messages")).unwrap_or(&root);
    let url = format!("{base}/models");
    Ok(HttpRequest { method: "GET".into(), url, headers: auth_headers(endpoint, key)?, body: String::new() })
}

/// The model names in a list's body, sorted and without repeats; Gemini's without their
/// "models/" prefix, and only those that generate content. Errors name what is missing.
pub fn parse_models(wire: WireFormat, body: &str) -> Result<Vec<String>, String> {
    let value: Value = serde_json::from_str(body).map_err(|e| format!("the model list is not JSON: {e}"))?;
    let mut names: Vec<String> = match wire {
        WireFormat::Gemini => value
            .get("models")
            .and_then(Value::as_array)
            .ok_or("the model list has no `models` array")?
            .iter()
            .filter(|m| {
                m.get("supportedGenerationMethods")
                    .and_then(Value::as_array)
                    .is_none_or(|methods| methods.iter().any(|x| x == "generateContent"))
            })
            .filter_map(|m| m.get("name").and_then(Value::as_str))
            .map(|n| n.strip_prefix("models/").unwrap_or(n).to_string())
            .collect(),
        WireFormat::OpenAiChat | WireFormat::Anthropic => value
            .get("data")
            .and_then(Value::as_array)
            .ok_or("the model list has no `data` array")?
            .iter()
            .filter_map(|m| m.get("id").and_then(Value::as_str))
            .map(str::to_string)
            .collect(),
    };
    names.retain(|n| !n.trim().is_empty());
    names.sort();
    names.dedup();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(provider: &str, base_url: &str) -> Endpoint {
        Endpoint { provider: provider.into(), base_url: base_url.into(), model: String::new() }
    }

    /// (provider, base URL as typed, where the list is asked for)
    #[test]
    fn where_each_list_is() {
        let cases = [
            ("openai", "https://api.openai.com/v1", "https://api.openai.com/v1/models"),
            ("llamacpp", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/models"),
            ("vllm", "http://localhost:8000/v1/chat/completions", "http://localhost:8000/v1/models"),
            ("anthropic", "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/models"),
            (
                "gemini",
                "https://generativelanguage.googleapis.com/v1beta",
                "https://generativelanguage.googleapis.com/v1beta/models",
            ),
        ];
        for (provider, base, want) in cases {
            let request = models_request(&ep(provider, base), Some("k")).unwrap();
            assert_eq!((request.method.as_str(), request.url.as_str()), ("GET", want), "{provider}");
            assert!(request.headers.iter().any(|(_, v)| v.contains('k')), "{provider}: with its key");
        }
        assert!(models_request(&ep("azure", "https://r.openai.azure.com/openai/deployments/d"), None).is_err());
    }

    #[test]
    fn lists_are_read() {
        let openai = r#"{"object":"list","data":[{"id":"b","object":"model"},{"id":"a"},{"id":"b"}]}"#;
        assert_eq!(parse_models(WireFormat::OpenAiChat, openai).unwrap(), ["a", "b"]);
        let gemini = r#"{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent","countTokens"]},{"name":"models/embedding-001","supportedGenerationMethods":["embedContent"]}]}"#;
        assert_eq!(parse_models(WireFormat::Gemini, gemini).unwrap(), ["gemini-2.5-flash"]);
        assert!(parse_models(WireFormat::Anthropic, r#"{"models":[]}"#).unwrap_err().contains("`data`"));
        assert!(parse_models(WireFormat::OpenAiChat, "<html>").unwrap_err().contains("not JSON"));
    }
}
