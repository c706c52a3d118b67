//! The local model's chat-completions request reader (`read_chat_request`) on generated bodies: a
//! request written as JSON (by serde_json, and by the providers' own request builder, as the run
//! engine sends it) reads back to its messages and options; one field of a wrong type or out of
//! range is refused with an error that starts with that field's name; any bytes at all give a
//! `BadRequest`, never a panic.

use execbench_localmodel::Sampling;
use execbench_localmodel::chat_api::{ANSWER_END, ChatError, DEFAULT_SEED, read_chat_request};
use execbench_proptest_cases::cases;
use execbench_providers::{Endpoint, GenerationParams, Message, build_request, preset};
use proptest::prelude::*;
use serde_json::{Value, json};

fn messages() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec(
        (prop::sample::select(vec!["system", "user", "assistant"]).prop_map(String::from), "\\PC{0,30}"),
        1..5,
    )
}

/// (max_tokens, temperature, top_p, seed, stop, stream), each possibly left out.
type Options = (Option<u64>, Option<f64>, Option<f64>, Option<i64>, Vec<String>, Option<bool>);

fn options() -> impl Strategy<Value = Options> {
    (
        proptest::option::of(1..100_000u64),
        proptest::option::of(prop_oneof![Just(0.0), 0.0..=2.0f64]),
        proptest::option::of(prop_oneof![Just(1.0), 0.0001..=1.0f64]),
        proptest::option::of(any::<i64>()),
        proptest::collection::vec("\\PC{1,8}", 0..3),
        proptest::option::of(any::<bool>()),
    )
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn a_written_request_reads_back(
        model in proptest::option::of("[a-z0-9.-]{1,20}"),
        messages in messages(),
        (max_tokens, temperature, top_p, seed, stop, stream) in options(),
        parts in any::<bool>(),
        max_field in prop::sample::select(vec!["max_tokens", "max_completion_tokens"]),
    ) {
        let content = |text: &str| if parts { json!([{"type": "text", "text": text}]) } else { json!(text) };
        let mut body = json!({
            "messages": messages.iter().map(|(role, text)| json!({"role": role, "content": content(text)})).collect::<Vec<_>>(),
            // Fields the reader does not know ride along.
            "user": "someone", "logprobs": null, "x_extra": {"a": [1]},
        });
        let object = body.as_object_mut().unwrap();
        for (key, value) in [
            ("model", model.clone().map(Value::from)),
            (max_field, max_tokens.map(Value::from)),
            ("temperature", temperature.map(Value::from)),
            ("top_p", top_p.map(Value::from)),
            ("seed", seed.map(Value::from)),
            ("stream", stream.map(Value::from)),
            ("stop", (!stop.is_empty()).then(|| json!(stop))),
        ] {
            if let Some(value) = value {
                object.insert(key.to_string(), value);
            }
        }
        let read = read_chat_request(body.to_string().as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(read.model, model);
        prop_assert_eq!(read.messages.iter().map(|m| (m.role.clone(), m.content.clone())).collect::<Vec<_>>(), messages);
        prop_assert_eq!(read.options.max_tokens, max_tokens.map_or(usize::MAX, |m| m as usize));
        prop_assert_eq!(read.stream, stream.unwrap_or(false));
        let expected_sampling = match temperature.unwrap_or(1.0) {
            0.0 => Sampling::Greedy,
            t => Sampling::Random { temperature: t, top_p: top_p.unwrap_or(1.0), seed: seed.map_or(DEFAULT_SEED, |s| s as u64) },
        };
        prop_assert_eq!(read.options.sampling, expected_sampling);
        // The answer's end is always a stop text, once.
        let mut expected_stop = stop.clone();
        if !expected_stop.iter().any(|s| s == ANSWER_END) {
            expected_stop.push(ANSWER_END.to_string());
        }
        prop_assert_eq!(read.options.stop_texts, expected_stop);
    }

    #[test]
    fn the_engines_request_reads_back(
        messages in messages(),
        max_tokens in 1..100_000u32,
        temperature in prop_oneof![Just(0.0), 0.0..=2.0f64],
        stream in any::<bool>(),
    ) {
        let endpoint = Endpoint { provider: "local".into(), base_url: preset("local").unwrap().base_url.into(), model: "m.gguf".into() };
        let params = GenerationParams { max_tokens, temperature: Some(temperature), stream, ..Default::default() };
        let sent: Vec<Message> = messages.iter().map(|(role, text)| Message { role: role.clone(), content: text.clone() }).collect();
        let body = build_request(&endpoint, None, &params, &sent, 1).map_err(|e| TestCaseError::fail(format!("{e:?}")))?.http.body;
        let read = read_chat_request(body.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e} in {body}")))?;
        prop_assert_eq!(read.messages.iter().map(|m| (m.role.clone(), m.content.clone())).collect::<Vec<_>>(), messages);
        prop_assert_eq!(read.options.max_tokens, max_tokens as usize);
        prop_assert_eq!(read.stream, stream);
        prop_assert_eq!(read.options.sampling == Sampling::Greedy, temperature == 0.0);
    }

    #[test]
    fn one_bad_field_is_named(
        messages in messages(),
        bad in prop::sample::select(vec![
            ("n", json!(2)), ("n", json!("one")),
            ("max_tokens", json!(0)), ("max_tokens", json!(-1)), ("max_completion_tokens", json!(1.5)),
            ("temperature", json!(2.5)), ("temperature", json!(-0.1)), ("temperature", json!("hot")),
            ("top_p", json!(0)), ("top_p", json!(1.01)), ("top_p", json!([1])),
            ("seed", json!(1.5)), ("seed", json!("7")),
            ("stream", json!("yes")), ("stream", json!(1)),
            ("stop", json!(3)), ("stop", json!(["a", 1])),
            ("messages", json!([])), ("messages", json!("hi")), ("messages", json!([{"role": 1, "content": "x"}])),
            ("messages", json!([{"role": "user", "content": [{"type": "image_url", "image_url": "u"}]}])),
            ("messages", json!([{"role": "user"}])),
        ]),
    ) {
        let mut body = json!({"messages": messages.iter().map(|(role, text)| json!({"role": role, "content": text})).collect::<Vec<_>>()});
        body.as_object_mut().unwrap().insert(bad.0.to_string(), bad.1.clone());
        match read_chat_request(body.to_string().as_bytes()) {
            Err(ChatError::BadRequest(message)) => prop_assert!(message.starts_with(bad.0), "{bad:?}: {message}"),
            other => prop_assert!(false, "{bad:?}: {other:?}"),
        }
    }

    #[test]
    fn any_bytes_are_a_bad_request_or_a_request(body in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        "\\{\"messages\": \\[\\{\"role\": \"user\", \"content\": \\PC{0,20}\\}\\]\\PC{0,40}".prop_map(String::into_bytes),
    ]) {
        match read_chat_request(&body) {
            Ok(request) => prop_assert!(!request.messages.is_empty()),
            Err(ChatError::BadRequest(message)) => prop_assert!(!message.is_empty()),
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }
}
