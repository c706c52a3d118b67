//! The mock server's wire parser (`wire::parse_openai`, `parse_anthropic`, `parse_gemini`) on
//! generated requests: a request written by the providers' own request builder, as the run engine
//! sends it, reads back to its texts (system first), token limit, sampling and streaming in each
//! of the three formats; one field of a wrong type or out of range is refused with an error that
//! starts with that field's path, as the real APIs answer 400; any JSON at all in one field is
//! read, or refused by that field's name, never a panic.

use execbench_mockserver::wire::{ChatRequest, Format, parse_anthropic, parse_gemini, parse_openai};
use execbench_proptest_cases::cases;
use execbench_providers::{Endpoint, GenerationParams, Message, build_request, preset};
use proptest::prelude::*;
use serde_json::{Value, json};

fn format() -> impl Strategy<Value = Format> {
    prop_oneof![Just(Format::OpenAi), Just(Format::Anthropic), Just(Format::Gemini)]
}

const MODEL: &str = "model-1";

fn read(format: Format, body: &Value, stream: bool) -> Result<ChatRequest, String> {
    match format {
        Format::OpenAi => parse_openai(body, None),
        Format::Anthropic => parse_anthropic(body),
        // Gemini says the model and the streaming in the URL.
        Format::Gemini => parse_gemini(body, MODEL, stream, true),
    }
}

/// A conversation as the engine sends one: an optional system text, then user and assistant
/// turns, ending with the user's.
fn conversation() -> impl Strategy<Value = (Option<String>, Vec<String>)> {
    (proptest::option::of("\\PC{1,20}"), proptest::collection::vec("\\PC{1,20}", 0..2).prop_map(|v| v.len()))
        .prop_flat_map(|(system, pairs)| (Just(system), proptest::collection::vec("\\PC{1,20}", 2 * pairs + 1)))
}

/// A JSON value of any shape, for the garbage property.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        // Small numbers, for the limits' edges (0, 1, out of range).
        (-1..10i64).prop_map(Value::from),
        (0.0..3.0f64).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map(
                prop::sample::select(vec![
                    "role",
                    "content",
                    "parts",
                    "text",
                    "candidateCount",
                    "maxOutputTokens",
                    "temperature",
                    "topP",
                    "include_usage",
                    "x"
                ])
                .prop_map(String::from),
                inner,
                0..4,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn the_engines_requests_read_back(
        format in format(),
        (system, turns) in conversation(),
        max_tokens in 1..100_000u32,
        temperature in proptest::option::of(0.0..=1.0f64),
        stream in any::<bool>(),
    ) {
        let provider = match format { Format::OpenAi => "openai", Format::Anthropic => "anthropic", Format::Gemini => "gemini" };
        let endpoint = Endpoint { provider: provider.into(), base_url: preset(provider).unwrap().base_url.into(), model: MODEL.into() };
        let params = GenerationParams { max_tokens, temperature, top_p: None, stream, ..Default::default() };
        let mut messages: Vec<Message> = system.iter().map(Message::system).collect();
        for (i, text) in turns.iter().enumerate() {
            messages.push(if i % 2 == 0 { Message::user(text) } else { Message::assistant(text) });
        }
        let built = build_request(&endpoint, Some("sk-test"), &params, &messages, 1).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let body: Value = serde_json::from_str(&built.http.body).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let request = read(format, &body, stream).map_err(|e| TestCaseError::fail(format!("{e} in {body}")))?;
        prop_assert_eq!(request.format, format);
        prop_assert_eq!(&request.model, MODEL);
        let texts: Vec<&String> = system.iter().chain(&turns).collect();
        prop_assert_eq!(request.prompt, texts.iter().map(|t| t.as_str()).collect::<Vec<_>>().join("\n\n"));
        prop_assert_eq!(request.n, 1);
        prop_assert_eq!(request.max_tokens, Some(u64::from(max_tokens)));
        // The builder may leave the temperature out (what a model does not take): the reader reads
        // what was written.
        let written = match format {
            Format::Gemini => body.pointer("/generationConfig/temperature"),
            _ => body.get("temperature"),
        };
        prop_assert_eq!(request.temperature, written.and_then(Value::as_f64), "{}", body);
        prop_assert!(written.is_none() || request.temperature == temperature, "{}", body);
        prop_assert_eq!(request.stream, stream);
    }

    #[test]
    fn one_bad_field_is_refused_by_its_path(
        format in format(),
        text in "\\PC{1,20}",
        bad in 0..5usize,
    ) {
        let mut body = match format {
            Format::OpenAi => json!({"model": MODEL, "messages": [{"role": "user", "content": text}]}),
            Format::Anthropic => json!({"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": text}]}),
            Format::Gemini => json!({"contents": [{"role": "user", "parts": [{"text": text}]}]}),
        };
        let anthropic = format == Format::Anthropic;
        let path = match (format, bad) {
            (Format::Gemini, 0) => { body["contents"] = json!([]); "contents" }
            (Format::Gemini, 1) => { body["generationConfig"] = json!({"candidateCount": 9}); "generationConfig.candidateCount" }
            (Format::Gemini, 2) => { body["generationConfig"] = json!({"maxOutputTokens": -3}); "generationConfig.maxOutputTokens" }
            (Format::Gemini, 3) => { body["generationConfig"] = json!({"temperature": 2.5}); "generationConfig.temperature" }
            (Format::Gemini, _) => { body["contents"][0]["parts"] = json!(7); "contents[0].parts" }
            (_, 0) => { body["messages"] = json!({"role": "user"}); "messages" }
            (_, 1) => { body["model"] = json!(42); "model" }
            (_, 2) => { body["max_tokens"] = json!(0); "max_tokens" }
            (_, 3) => { body["temperature"] = json!(if anthropic { 1.5 } else { 2.5 }); "temperature" }
            (_, _) => { body["messages"][0]["content"] = json!(true); "messages[0].content" }
        };
        let error = read(format, &body, false).err().unwrap_or_default();
        prop_assert!(error.starts_with(&format!("{path}:")), "{path} in {body}: {error:?}");
    }

    #[test]
    fn any_value_in_one_field_is_read_or_refused_by_that_field(
        format in format(),
        field in 0..8usize,
        value in any_json(),
    ) {
        let (mut body, fields): (Value, &[&str]) = match format {
            Format::OpenAi => (json!({"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}),
                &["model", "messages", "n", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stream"]),
            Format::Anthropic => (json!({"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}),
                &["model", "messages", "max_tokens", "system", "temperature", "top_p", "stream", "metadata"]),
            Format::Gemini => (json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
                &["contents", "systemInstruction", "generationConfig", "safetySettings"]),
        };
        let field = fields[field % fields.len()];
        body[field] = value;
        match read(format, &body, false) {
            Ok(request) => {
                prop_assert_eq!(request.format, format);
                prop_assert!(request.n >= 1 && request.max_tokens != Some(0));
            }
            // `max_completion_tokens` is the limit `max_tokens` names when it is 0.
            Err(error) => prop_assert!(
                error.starts_with(field) || (field == "max_completion_tokens" && error.starts_with("max_tokens: ")),
                "{field} in {body}: {error:?}"
            ),
        }
    }
}
