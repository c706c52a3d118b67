//! Request building: one table row per preset (URL, exact headers, exact body), then tables for
//! the parameter variants and the refusals.

use execbench_providers::request::ANTHROPIC_VERSION;
use execbench_providers::*;
use serde_json::{Value, json};

fn ep(provider: &str, model: &str) -> Endpoint {
    let base = preset(provider).map_or("http://127.0.0.1:9/v1", |p| p.base_url);
    Endpoint { provider: provider.into(), base_url: base.into(), model: model.into() }
}

fn conversation() -> Vec<Message> {
    vec![Message::system("You are terse."), Message::user("What is 2+2?")]
}

fn openai_messages() -> Value {
    json!([{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is 2+2?"}])
}

struct Case {
    provider: &'static str,
    model: &'static str,
    key: Option<&'static str>,
    stream: bool,
    n: u32,
    url: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Value,
    choices: u32,
}

const JSON: (&str, &str) = ("content-type", "application/json");
const BEARER: (&str, &str) = ("authorization", "Bearer sk-test");

fn openai_body(model: &str, max_field: &str, extra: Value) -> Value {
    let mut b =
        json!({"model": model, "messages": openai_messages(), max_field: 2000, "temperature": 0.2, "top_p": 0.95});
    for (k, v) in extra.as_object().unwrap() {
        b[k] = v.clone();
    }
    b
}

fn stream_fields() -> Value {
    json!({"stream": true, "stream_options": {"include_usage": true}})
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            provider: "openai",
            model: "gpt-4o-mini",
            key: Some("sk-test"),
            stream: true,
            n: 5,
            url: "https://api.openai.com/v1/chat/completions",
            headers: &[JSON, BEARER],
            body: openai_body(
                "gpt-4o-mini",
                "max_completion_tokens",
                json!({"n": 5, "stream": true, "stream_options": {"include_usage": true}}),
            ),
            choices: 5,
        },
        Case {
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            key: Some("sk-test"),
            stream: true,
            n: 3,
            url: "https://api.anthropic.com/v1/messages",
            headers: &[
                JSON,
                ("x-api-key", "sk-test"),
                ("anthropic-version", ANTHROPIC_VERSION),
                ("anthropic-dangerous-direct-browser-access", "true"),
            ],
            body: json!({
                "model": "claude-sonnet-4-5", "max_tokens": 2000, "system": "You are terse.",
                "messages": [{"role": "user", "content": "What is 2+2?"}],
                "stream": true
            }),
            choices: 1,
        },
        Case {
            provider: "gemini",
            model: "gemini-2.5-flash",
            key: Some("sk-test"),
            stream: true,
            n: 2,
            url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            headers: &[JSON, ("x-goog-api-key", "sk-test")],
            body: json!({
                "contents": [{"role": "user", "parts": [{"text": "What is 2+2?"}]}],
                "systemInstruction": {"parts": [{"text": "You are terse."}]},
                "generationConfig": {"maxOutputTokens": 2000, "temperature": 0.2, "topP": 0.95, "candidateCount": 2}
            }),
            choices: 2,
        },
        Case {
            provider: "gemini",
            model: "models/gemini-2.5-pro",
            key: Some("sk-test"),
            stream: false,
            n: 1,
            url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
            headers: &[JSON, ("x-goog-api-key", "sk-test")],
            body: json!({
                "contents": [{"role": "user", "parts": [{"text": "What is 2+2?"}]}],
                "systemInstruction": {"parts": [{"text": "You are terse."}]},
                "generationConfig": {"maxOutputTokens": 2000, "temperature": 0.2, "topP": 0.95}
            }),
            choices: 1,
        },
        Case {
            provider: "openrouter",
            model: "meta-llama/llama-3.3-70b-instruct",
            key: Some("sk-test"),
            stream: true,
            n: 5,
            url: "https://openrouter.ai/api/v1/chat/completions",
            headers: &[JSON, BEARER],
            body: openai_body("meta-llama/llama-3.3-70b-instruct", "max_tokens", stream_fields()),
            choices: 1,
        },
        Case {
            provider: "deepseek",
            model: "deepseek-chat",
            key: Some("sk-test"),
            stream: false,
            n: 1,
            url: "https://api.deepseek.com/chat/completions",
            headers: &[JSON, BEARER],
            body: openai_body("deepseek-chat", "max_tokens", json!({})),
            choices: 1,
        },
        Case {
            provider: "deepinfra",
            model: "Qwen/Qwen2.5-Coder-32B-Instruct",
            key: Some("sk-test"),
            stream: false,
            n: 4,
            url: "https://api.deepinfra.com/v1/openai/chat/completions",
            headers: &[JSON, BEARER],
            body: openai_body("Qwen/Qwen2.5-Coder-32B-Instruct", "max_tokens", json!({})),
            choices: 1,
        },
        Case {
            provider: "together",
            model: "Qwen/Qwen2.5-Coder-32B-Instruct",
            key: Some("sk-test"),
            stream: false,
            n: 1,
            url: "https://api.together.xyz/v1/chat/completions",
            headers: &[JSON, BEARER],
            body: openai_body("Qwen/Qwen2.5-Coder-32B-Instruct", "max_tokens", json!({})),
            choices: 1,
        },
        Case {
            provider: "qwen",
            model: "qwen-plus",
            key: Some("sk-test"),
            stream: false,
            n: 1,
            url: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1/chat/completions",
            headers: &[JSON, BEARER],
            body: openai_body("qwen-plus", "max_tokens", json!({})),
            choices: 1,
        },
        Case {
            provider: "azure",
            model: "gpt-4o",
            key: Some("sk-test"),
            stream: false,
            n: 2,
            url: "https://resource.openai.azure.com/openai/deployments/DEPLOYMENT/chat/completions?api-version=2024-10-21",
            headers: &[JSON, ("api-key", "sk-test")],
            body: openai_body("gpt-4o", "max_completion_tokens", json!({"n": 2})),
            choices: 2,
        },
        Case {
            provider: "vllm",
            model: "Qwen/Qwen2.5-Coder-7B-Instruct",
            key: None,
            stream: true,
            n: 4,
            url: "http://localhost:8000/v1/chat/completions",
            headers: &[JSON],
            body: openai_body(
                "Qwen/Qwen2.5-Coder-7B-Instruct",
                "max_tokens",
                json!({"n": 4, "stream": true, "stream_options": {"include_usage": true}}),
            ),
            choices: 4,
        },
        Case {
            provider: "sglang",
            model: "default",
            key: Some("local-token"),
            stream: false,
            n: 3,
            url: "http://localhost:30000/v1/chat/completions",
            headers: &[JSON, ("authorization", "Bearer local-token")],
            body: openai_body("default", "max_tokens", json!({"n": 3})),
            choices: 3,
        },
        Case {
            provider: "ollama",
            model: "qwen2.5-coder:7b",
            key: None,
            stream: true,
            n: 3,
            url: "http://localhost:11434/v1/chat/completions",
            headers: &[JSON],
            body: openai_body("qwen2.5-coder:7b", "max_tokens", stream_fields()),
            choices: 1,
        },
        Case {
            provider: "llamacpp",
            model: "local",
            key: Some("   "),
            stream: false,
            n: 2,
            url: "http://localhost:8080/v1/chat/completions",
            headers: &[JSON],
            body: openai_body("local", "max_tokens", json!({})),
            choices: 1,
        },
        Case {
            provider: "openai-compatible",
            model: "my-model",
            key: None,
            stream: false,
            n: 2,
            url: "http://127.0.0.1:8000/v1/chat/completions",
            headers: &[JSON],
            body: openai_body("my-model", "max_tokens", json!({"n": 2})),
            choices: 2,
        },
        // Answered in the page by execbench_run::simulate; the request is an ordinary one.
        Case {
            provider: "simulated",
            model: "simulated",
            key: None,
            stream: false,
            n: 2,
            url: "http://simulated.invalid/v1/chat/completions",
            headers: &[JSON],
            body: openai_body("simulated", "max_tokens", json!({"n": 2})),
            choices: 2,
        },
        // Answered in-process by execbench_localmodel::chat_api: one choice per request.
        Case {
            provider: "local",
            model: "qwen2.5-coder-0.5b-instruct-q8_0.gguf",
            key: None,
            stream: true,
            n: 2,
            url: "http://local-model.invalid/v1/chat/completions",
            headers: &[JSON],
            body: openai_body("qwen2.5-coder-0.5b-instruct-q8_0.gguf", "max_tokens", stream_fields()),
            choices: 1,
        },
    ]
}

#[test]
fn every_preset_builds_its_request() {
    let mut seen: Vec<&str> = vec![];
    for c in cases() {
        let endpoint = ep(c.provider, c.model);
        let params = GenerationParams { stream: c.stream, ..Default::default() };
        let built = build_request(&endpoint, c.key, &params, &conversation(), c.n).unwrap();
        let what = format!("{} {}", c.provider, c.model);
        assert_eq!(built.http.method, "POST", "{what}");
        assert_eq!(built.http.url, c.url, "{what}");
        let headers: Vec<(&str, &str)> = built.http.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(headers, c.headers, "{what}");
        let body: Value = serde_json::from_str(&built.http.body).unwrap();
        assert_eq!(body, c.body, "{what}");
        assert_eq!(built.choices, c.choices, "{what}");
        // "sent" is the body without the conversation (Gemini: plus model and stream).
        let mut want_sent = c.body.clone();
        let obj = want_sent.as_object_mut().unwrap();
        for k in ["messages", "system", "contents", "systemInstruction"] {
            obj.remove(k);
        }
        if endpoint.wire() == WireFormat::Gemini {
            obj.insert("model".into(), json!(c.model.trim_start_matches("models/")));
            if c.stream {
                obj.insert("stream".into(), json!(true));
            }
        }
        assert_eq!(built.sent, want_sent, "{what}");
        assert!(!built.sent.to_string().contains("sk-test"), "{what}: no key in sent");
        seen.push(c.provider);
    }
    for p in presets() {
        assert!(seen.contains(&p.id), "no request case for preset {}", p.id);
    }
}

#[test]
fn redacted_requests_hold_no_key() {
    for p in presets() {
        let built =
            build_request(&ep(p.id, "m"), Some("sk-SECRET-123"), &GenerationParams::default(), &conversation(), 1)
                .unwrap();
        assert!(format!("{:?}", built.http).contains("sk-SECRET-123"), "{}", p.id);
        let r = built.http.redacted();
        assert!(!format!("{r:?}").contains("SECRET"), "{}: {r:?}", p.id);
        assert_eq!(r.body, built.http.body);
    }
}

/// Parameter variants: (provider, params, n, body fields expected (JSON pointer, value; null
/// = absent)).
#[test]
fn parameter_variants() {
    type Tweak = fn(&mut GenerationParams);
    type Row = (&'static str, Tweak, Vec<(&'static str, Value)>);
    let cases: Vec<Row> = vec![
        ("openai", |p| p.reasoning_effort = Some("high".into()), vec![("/reasoning_effort", json!("high"))]),
        ("anthropic", |p| p.reasoning_effort = Some("high".into()), vec![("/reasoning_effort", Value::Null)]),
        (
            "openai",
            |p| {
                p.temperature = None;
                p.top_p = None
            },
            vec![("/temperature", Value::Null), ("/top_p", Value::Null), ("/max_completion_tokens", json!(2000))],
        ),
        (
            "openai",
            |p| p.max_tokens_field = MaxTokensField::MaxTokens,
            vec![("/max_tokens", json!(2000)), ("/max_completion_tokens", Value::Null)],
        ),
        (
            "vllm",
            |p| p.max_tokens_field = MaxTokensField::MaxCompletionTokens,
            vec![("/max_completion_tokens", json!(2000)), ("/max_tokens", Value::Null)],
        ),
        ("my-gateway", |_| {}, vec![("/max_tokens", json!(2000)), ("/n", Value::Null)]),
        (
            "openai",
            |p| p.stop = ["a", "", "b", "c", "d", "e"].map(String::from).to_vec(),
            vec![("/stop", json!(["a", "b", "c", "d"]))],
        ),
        ("openai", |p| p.stop = vec![], vec![("/stop", Value::Null)]),
        ("anthropic", |p| p.stop = vec!["\n\n".into()], vec![("/stop_sequences", json!(["\n\n"]))]),
        (
            "gemini",
            |p| p.stop = ["1", "2", "3", "4", "5", "6"].map(String::from).to_vec(),
            vec![("/generationConfig/stopSequences", json!(["1", "2", "3", "4", "5"]))],
        ),
        (
            "anthropic",
            |p| {
                p.thinking_budget = Some(1024);
                p.temperature = None
            },
            vec![("/thinking", json!({"type": "enabled", "budget_tokens": 1024})), ("/temperature", Value::Null)],
        ),
        (
            "gemini",
            |p| p.thinking_budget = Some(0),
            vec![("/generationConfig/thinkingConfig", json!({"thinkingBudget": 0}))],
        ),
        ("openai", |p| p.thinking_budget = Some(2048), vec![("/thinking", Value::Null)]),
        ("openai", |p| p.stream = false, vec![("/stream", Value::Null), ("/stream_options", Value::Null)]),
        ("anthropic", |p| p.stream = false, vec![("/stream", Value::Null)]),
        ("gemini", |p| p.max_tokens = 7, vec![("/generationConfig/maxOutputTokens", json!(7))]),
    ];
    for (provider, tweak, fields) in cases {
        let mut params = GenerationParams::default();
        tweak(&mut params);
        let built = build_request(&ep(provider, "m"), Some("k"), &params, &conversation(), 1).unwrap();
        let body: Value = serde_json::from_str(&built.http.body).unwrap();
        for (pointer, want) in &fields {
            let got = body.pointer(pointer).cloned().unwrap_or(Value::Null);
            assert_eq!(&got, want, "{provider} {pointer} in {body}");
        }
    }
}

#[test]
fn conversation_roles_per_format() {
    let msgs = vec![
        Message::system("S1"),
        Message::system("S2"),
        Message::user("Q"),
        Message::assistant("A"),
        Message::user("Q2"),
    ];
    let p = GenerationParams::default();
    let body = |provider: &str| -> Value {
        serde_json::from_str(&build_request(&ep(provider, "m"), None, &p, &msgs, 1).unwrap().http.body).unwrap()
    };
    let a = body("anthropic");
    assert_eq!(a["system"], "S1\n\nS2");
    assert_eq!(
        a["messages"],
        json!([{"role":"user","content":"Q"},{"role":"assistant","content":"A"},{"role":"user","content":"Q2"}])
    );
    let g = body("gemini");
    assert_eq!(g["systemInstruction"], json!({"parts":[{"text":"S1\n\nS2"}]}));
    assert_eq!(
        g["contents"],
        json!([{"role":"user","parts":[{"text":"Q"}]},{"role":"model","parts":[{"text":"A"}]},{"role":"user","parts":[{"text":"Q2"}]}])
    );
    let o = body("openai");
    assert_eq!(o["messages"].as_array().unwrap().len(), 5);
    assert_eq!(o["messages"][0], json!({"role":"system","content":"S1"}));
    let only_user = build_request(&ep("anthropic", "m"), None, &p, &[Message::user("Q")], 1).unwrap();
    assert!(!only_user.http.body.contains("\"system\""));
}

#[test]
fn base_url_forms() {
    let cases = [
        ("openai-compatible", "http://h:1/v1/", "http://h:1/v1/chat/completions"),
        ("openai-compatible", "  http://h:1/v1/chat/completions ", "http://h:1/v1/chat/completions"),
        // The request goes to the canonical URL that the key check read, never to the text.
        ("openai-compatible", "HTTPS://H/v1", "https://h/v1/chat/completions"),
        (
            "openai",
            "https://evil.example\\@api.openai.com/v1",
            "https://evil.example/@api.openai.com/v1/chat/completions",
        ),
        ("openai-compatible", "http://0x7f.1:8000/v1#frag", "http://127.0.0.1:8000/v1/chat/completions"),
        (
            "azure",
            "https://r.openai.azure.com/openai/deployments/d?api-version=2025-01-01",
            "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2025-01-01",
        ),
        (
            "azure",
            "https://r.openai.azure.com/openai/deployments/d/",
            "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
        ),
        ("anthropic", "https://proxy.example/v1/", "https://proxy.example/v1/messages"),
        ("gemini", "https://g.example/v1beta/", "https://g.example/v1beta/models/m:generateContent"),
    ];
    for (provider, base, url) in cases {
        let e = Endpoint { provider: provider.into(), base_url: base.into(), model: "m".into() };
        let built = build_request(&e, None, &GenerationParams::default(), &conversation(), 1).unwrap();
        assert_eq!(built.http.url, url, "{provider} {base}");
    }
}

#[test]
fn refusals_name_the_field() {
    let good = ep("openai", "gpt-4o-mini");
    let p = GenerationParams::default();
    let cases: Vec<(Endpoint, Option<&str>, GenerationParams, u32, &str)> = vec![
        (Endpoint { model: "  ".into(), ..good.clone() }, None, p.clone(), 1, "model"),
        (Endpoint { base_url: "api.openai.com/v1".into(), ..good.clone() }, None, p.clone(), 1, "base URL"),
        (Endpoint { base_url: "ftp://x".into(), ..good.clone() }, None, p.clone(), 1, "base URL"),
        (Endpoint { base_url: "".into(), ..good.clone() }, None, p.clone(), 1, "base URL"),
        (
            Endpoint { base_url: "https://sk-key@api.openai.com/v1".into(), ..good.clone() },
            None,
            p.clone(),
            1,
            "base URL",
        ),
        (Endpoint { base_url: "https://api.openai.com/v1\n".into(), ..good.clone() }, None, p.clone(), 1, "base URL"),
        (good.clone(), None, p.clone(), 0, "n"),
        (good.clone(), None, GenerationParams { max_tokens: 0, ..p.clone() }, 1, "max tokens"),
        (good.clone(), None, GenerationParams { temperature: Some(f64::NAN), ..p.clone() }, 1, "temperature"),
        (good.clone(), None, GenerationParams { top_p: Some(f64::INFINITY), ..p.clone() }, 1, "top_p"),
        (good.clone(), Some("sk-abc def"), p.clone(), 1, "API key"),
        (good.clone(), Some("sk-ключ"), p.clone(), 1, "API key"),
        // Anthropic's thinking budget: at least 1024 tokens, and fewer than max tokens.
        (
            ep("anthropic", "claude-sonnet-4-5"),
            None,
            GenerationParams { thinking_budget: Some(1000), max_tokens: 4000, ..p.clone() },
            1,
            "thinking budget",
        ),
        (
            ep("anthropic", "claude-sonnet-4-5"),
            None,
            GenerationParams { thinking_budget: Some(2000), ..p.clone() },
            1,
            "thinking budget",
        ),
    ];
    for (e, key, params, n, field) in cases {
        let err = build_request(&e, key, &params, &conversation(), n).unwrap_err();
        assert!(err.starts_with(field), "{field}: {err}");
    }
}

#[test]
fn connection_test_requests() {
    // (provider, token field, no sampling parameters)
    for p in presets() {
        let built = connection_test_request(&ep(p.id, "some-model"), Some("k")).unwrap();
        let body: Value = serde_json::from_str(&built.http.body).unwrap();
        let text = built.http.body.as_str();
        assert!(text.contains("Reply with the word OK."), "{}", p.id);
        assert!(!text.contains("temperature") && !text.contains("top_p") && !text.contains("topP"), "{}: {text}", p.id);
        assert!(!text.contains("\"stream\"") && !built.http.url.contains("stream"), "{}", p.id);
        assert_eq!(built.choices, 1);
        let tokens = match p.id {
            "openai" | "azure" => body["max_completion_tokens"].clone(),
            "gemini" => body["generationConfig"]["maxOutputTokens"].clone(),
            _ => body["max_tokens"].clone(),
        };
        assert_eq!(tokens, json!(16), "{}: {text}", p.id);
    }
}

#[test]
fn endpoints_serialize_without_keys() {
    let e = ep("openai", "gpt-4o-mini");
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json, json!({"provider": "openai", "base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini"}));
    assert_eq!(serde_json::to_value(WireFormat::OpenAiChat).unwrap(), json!("open_ai_chat"));
    assert_eq!(e.host(), "api.openai.com");
}
