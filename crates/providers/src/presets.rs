//! The providers the app knows by name: where they live, how they authenticate, what they
//! accept, and what to tell the user when the browser blocks a call to them.

use serde::{Deserialize, Serialize};

/// The three request/response formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireFormat {
    OpenAiChat,
    Anthropic,
    Gemini,
}

/// How the key travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// `authorization: Bearer KEY`
    Bearer,
    /// `api-key: KEY` (Azure OpenAI)
    AzureApiKey,
    /// `x-api-key: KEY` (Anthropic)
    AnthropicKey,
    /// `x-goog-api-key: KEY` (Gemini; never `?key=` in the URL, where logs would keep it)
    GoogApiKey,
}

/// A known provider.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    /// Shown in a `<select>`.
    pub label: &'static str,
    pub wire: WireFormat,
    pub base_url: &'static str,
    /// The environment variable the CLI reads the key from.
    pub key_env: Option<&'static str>,
    pub key_required: bool,
    /// One request may ask for several choices (`n`, Gemini `candidateCount`). True only where
    /// the provider documents it; elsewhere the caller sends one request per sample.
    pub supports_n: bool,
    pub auth: Auth,
    /// A server on the user's machine.
    pub local: bool,
}

const fn remote(
    id: &'static str,
    label: &'static str,
    wire: WireFormat,
    base_url: &'static str,
    key_env: &'static str,
    supports_n: bool,
    auth: Auth,
) -> Preset {
    Preset { id, label, wire, base_url, key_env: Some(key_env), key_required: true, supports_n, auth, local: false }
}

const fn local(id: &'static str, label: &'static str, base_url: &'static str, supports_n: bool) -> Preset {
    Preset {
        id,
        label,
        wire: WireFormat::OpenAiChat,
        base_url,
        key_env: None,
        key_required: false,
        supports_n,
        auth: Auth::Bearer,
        local: true,
    }
}

use Auth::*;
use WireFormat::*;

static PRESETS: [Preset; 16] = [
    remote("openai", "OpenAI", OpenAiChat, "https://api.openai.com/v1", "OPENAI_API_KEY", true, Bearer),
    remote(
        "anthropic",
        "Anthropic",
        Anthropic,
        "https://api.anthropic.com/v1",
        "ANTHROPIC_API_KEY",
        false,
        AnthropicKey,
    ),
    remote(
        "gemini",
        "Google Gemini",
        Gemini,
        "https://generativelanguage.googleapis.com/v1beta",
        "GEMINI_API_KEY",
        true,
        GoogApiKey,
    ),
    remote("openrouter", "OpenRouter", OpenAiChat, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", false, Bearer),
    remote("deepseek", "DeepSeek", OpenAiChat, "https://api.deepseek.com", "DEEPSEEK_API_KEY", false, Bearer),
    remote(
        "deepinfra",
        "DeepInfra",
        OpenAiChat,
        "https://api.deepinfra.com/v1/openai",
        "DEEPINFRA_API_KEY",
        false,
        Bearer,
    ),
    remote("together", "Together AI", OpenAiChat, "https://api.together.xyz/v1", "TOGETHER_API_KEY", false, Bearer),
    remote(
        "qwen",
        "Qwen (Alibaba Cloud DashScope)",
        OpenAiChat,
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        "DASHSCOPE_API_KEY",
        false,
        Bearer,
    ),
    remote(
        "azure",
        "Azure OpenAI",
        OpenAiChat,
        "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT",
        "AZURE_OPENAI_API_KEY",
        true,
        AzureApiKey,
    ),
    local("vllm", "vLLM (local)", "http://localhost:8000/v1", true),
    local("sglang", "SGLang (local)", "http://localhost:30000/v1", true),
    local("ollama", "Ollama (local)", "http://localhost:11434/v1", false),
    local("llamacpp", "llama.cpp server (local)", "http://localhost:8080/v1", false),
    // Any URL: a key is optional and is sent only when given; n is tried (most such servers are
    // vLLM or SGLang underneath).
    Preset {
        id: "openai-compatible",
        label: "OpenAI-compatible (any URL)",
        wire: OpenAiChat,
        base_url: "http://127.0.0.1:8000/v1",
        key_env: Some("OPENAI_API_KEY"),
        key_required: false,
        supports_n: true,
        auth: Bearer,
        local: false,
    },
    // Not a server (`.invalid` never resolves): execbench_run::simulate answers in the page (no
    // key, no network, no cost),
    // so a whole run can be tried before paying for one.
    local("simulated", "Simulated model (no key, no network)", "http://simulated.invalid/v1", true),
    // Not a server either: a GGUF model run in-process by crates/localmodel (`chat_api` answers
    // the request body), in a worker of the page or by `execbench run --provider local`. One
    // choice per request: each is a whole generation.
    local("local", "In this browser (no key)", "http://local-model.invalid/v1", false),
];

/// Every preset, in the order a `<select>` shows them.
pub fn presets() -> &'static [Preset] {
    &PRESETS
}

/// The preset with this id (exact, else ASCII case ignored).
pub fn preset(id: &str) -> Option<&'static Preset> {
    let id = id.trim();
    PRESETS.iter().find(|p| p.id == id).or_else(|| PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id)))
}

/// What to tell the user when the browser blocked a request to this provider (a CORS refusal
/// shows in `fetch` only as a network error without status).
pub fn cors_advice(provider_id: &str, page_origin: &str) -> String {
    let origin = page_origin.trim().trim_end_matches('/');
    let o = if origin.is_empty() { "this page's origin" } else { origin };
    let p = preset(provider_id);
    let id = p.map_or("openai-compatible", |p| p.id);
    let label = p.map_or("the server", |p| p.label);
    let cli = format!("`execbench run --provider {id} ...`");
    let mut advice = match id {
        "ollama" => format!(
            "Ollama answers only pages it trusts. Quit Ollama and start it again with OLLAMA_ORIGINS \
             set to {o}, e.g. `OLLAMA_ORIGINS={o} ollama serve` (or OLLAMA_ORIGINS=\"*\" to allow any \
             page), and check that it listens at the base URL."
        ),
        "vllm" => format!(
            "Check that vLLM is running at the base URL. If it is, it refused this page: start it with \
             --allowed-origins '[\"{o}\"]' (or '[\"*\"]'), e.g. `vllm serve MODEL --allowed-origins \
             '[\"{o}\"]'`."
        ),
        "sglang" => format!(
            "SGLang accepts any page by default, so most likely it is not running at the base URL (port \
             30000 unless changed), or a proxy in front of it does not send Access-Control-Allow-Origin \
             for {o}."
        ),
        "llamacpp" => format!(
            "Check that llama-server is running at the base URL (port 8080 unless changed). A proxy in \
             front of it must send Access-Control-Allow-Origin for {o} and allow the Authorization and \
             Content-Type headers."
        ),
        "azure" => "Azure OpenAI does not reliably accept calls from a web page (its preflight and \
             headers are not set up for browsers). Use the command line instead: `execbench run \
             --provider azure ...` with AZURE_OPENAI_API_KEY set."
            .to_string(),
        "anthropic" => "The app already sends the anthropic-dangerous-direct-browser-access header \
             that Anthropic requires for calls from a page, so a block usually means the base URL is \
             not https://api.anthropic.com/v1, or a browser extension, proxy or firewall stopped the \
             request. The command line avoids the browser: `execbench run --provider anthropic ...`."
            .to_string(),
        "openai" | "gemini" | "openrouter" | "together" => {
            let base = p.map_or("", |p| p.base_url);
            format!(
                "{label} accepts calls from web pages, so a block usually means a wrong base URL (normally \
                 {base}) or a browser extension, proxy or firewall stopping the request. The command line \
                 avoids the browser: {cli}."
            )
        }
        "deepseek" | "deepinfra" | "qwen" => {
            let env = p.and_then(|p| p.key_env).unwrap_or("the key variable");
            format!(
                "It is not known whether {label} accepts calls from web pages, and this one was refused. Use \
                 the command line instead: {cli} with {env} set."
            )
        }
        _ => format!(
            "The server must allow this page: its answers, including the OPTIONS preflight, must carry \
             Access-Control-Allow-Origin: {o} (or *), and Access-Control-Allow-Headers must include \
             Authorization and Content-Type. Also check that it is running at the base URL."
        ),
    };
    // Local Network Access: a public https page reaching loopback or the LAN needs permission.
    let may_be_local = p.is_none_or(|p| p.local || p.id == "openai-compatible");
    if may_be_local && util_is_https_public(origin) {
        advice.push_str(
            " This page is served from the internet: Chrome asks for permission before it may reach a \
             server on this computer or network (allow it when asked), and Safari refuses; opening the \
             app from http://127.0.0.1 avoids both.",
        );
    }
    advice
}

/// An https origin that is not loopback (the pages that need Local Network Access permission).
fn util_is_https_public(origin: &str) -> bool {
    let Some(host) = origin.strip_prefix("https://") else {
        return false;
    };
    let host = host.split(['/', '?', '#']).next().unwrap_or("");
    !is_loopback_host(host)
}

/// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
pub fn is_loopback_host(host: &str) -> bool {
    let h = host.trim().to_ascii_lowercase();
    let name = if h.starts_with('[') {
        h.split(']').next().unwrap_or("").trim_start_matches('[').to_string()
    } else {
        h.split(':').next().unwrap_or("").to_string()
    };
    name == "localhost" || name.ends_with(".localhost") || name.starts_with("127.") || name == "::1"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_found() {
        for p in presets() {
            assert_eq!(preset(p.id).map(|q| q.id), Some(p.id));
            assert!(p.base_url.starts_with("http"), "{}", p.id);
            assert!(p.base_url.starts_with("http"), "{}", p.id);
            assert_eq!(p.local, p.key_env.is_none(), "{}", p.id);
        }
        assert_eq!(preset("OpenAI").map(|p| p.id), Some("openai"));
        assert!(preset("nope").is_none());
    }

    #[test]
    fn loopback_hosts() {
        for (h, want) in [
            ("localhost:11434", true),
            ("127.0.0.1", true),
            ("[::1]:8000", true),
            ("app.localhost", true),
            ("example.com", false),
            ("10.0.0.2:8000", false),
        ] {
            assert_eq!(is_loopback_host(h), want, "{h}");
        }
    }
}
