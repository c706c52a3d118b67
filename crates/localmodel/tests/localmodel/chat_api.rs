//! The chat-completions seam: request bodies read into generation options, answers in the shape
//! the providers' parsers read, end to end from the providers' own request builder to their
//! parsers on the tiny fixture model.

use crate::common;

use common::*;
use execbench_localmodel::chat_api::{
    ANSWER_END, ChatError, DEFAULT_SEED, answer_chat, read_chat_request, read_timings,
};
use execbench_localmodel::{GenerateOptions, Sampling};
use execbench_providers::{
    Disposition, Endpoint, ErrorKind, GenerationParams, Message, StreamParser, WireFormat, build_request,
    classify_error, parse_response, preset,
};
use serde_json::{Value, json};

fn body(extra: Value) -> Vec<u8> {
    let mut b = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    for (k, v) in extra.as_object().unwrap() {
        b[k] = v.clone();
    }
    b.to_string().into_bytes()
}

fn options(max_tokens: usize, sampling: Sampling, stops: &[&str]) -> GenerateOptions {
    GenerateOptions { max_tokens, sampling, stop_texts: stops.iter().map(|s| s.to_string()).collect() }
}

#[test]
fn request_fields_become_generation_options() {
    let random = |temperature, top_p, seed| Sampling::Random { temperature, top_p, seed };
    let cases: Vec<(&str, Value, GenerateOptions, bool, &[&str])> = vec![
        (
            "OpenAI's defaults",
            json!({}),
            options(usize::MAX, random(1.0, 1.0, DEFAULT_SEED), &[ANSWER_END]),
            false,
            &[],
        ),
        (
            "temperature 0 is greedy",
            json!({"temperature": 0, "top_p": 0.5, "seed": 9}),
            options(usize::MAX, Sampling::Greedy, &[ANSWER_END]),
            false,
            &[],
        ),
        (
            "the run's settings",
            json!({"max_tokens": 2000, "temperature": 0.2, "top_p": 0.95, "stream": true, "stream_options": {"include_usage": true}}),
            options(2000, random(0.2, 0.95, DEFAULT_SEED), &[ANSWER_END]),
            true,
            &[],
        ),
        (
            "the request's seed",
            json!({"seed": 7, "temperature": 0.8}),
            options(usize::MAX, random(0.8, 1.0, 7), &[ANSWER_END]),
            false,
            &[],
        ),
        (
            "a negative seed keeps its bits",
            json!({"seed": -1, "temperature": 0.8}),
            options(usize::MAX, random(0.8, 1.0, u64::MAX), &[ANSWER_END]),
            false,
            &[],
        ),
        (
            "max_completion_tokens wins",
            json!({"max_completion_tokens": 5, "max_tokens": 9}),
            options(5, random(1.0, 1.0, DEFAULT_SEED), &[ANSWER_END]),
            false,
            &[],
        ),
        (
            "one stop text",
            json!({"stop": "END"}),
            options(usize::MAX, random(1.0, 1.0, DEFAULT_SEED), &["END", ANSWER_END]),
            false,
            &["END"],
        ),
        (
            "stop texts, empty ones dropped, [/ANSWER] once",
            json!({"stop": ["", "[/ANSWER]", "x"], "stream": null}),
            options(usize::MAX, random(1.0, 1.0, DEFAULT_SEED), &[ANSWER_END, "x"]),
            false,
            &[ANSWER_END, "x"],
        ),
    ];
    for (what, extra, want, stream, asked) in cases {
        let got = read_chat_request(&body(extra)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!((got.options, got.stream), (want, stream), "{what}");
        assert_eq!(got.stop_asked, asked, "{what}: the stop texts asked for, left out of the text");
        assert_eq!(got.model.as_deref(), Some("m"), "{what}");
    }
}

#[test]
fn bad_request_bodies_are_refused_naming_the_field() {
    let cases: Vec<(&[u8], &str)> = vec![
        (b"{not json", "the request body is not JSON"),
        (b"[1]", "the request body is not a JSON object"),
        (br#"{"model": "m"}"#, "messages: missing"),
        (br#"{"messages": []}"#, "messages: the list is empty"),
        (br#"{"messages": "hi"}"#, "messages: must be a list"),
        (br#"{"messages": [{"content": "hi"}]}"#, "messages[0].role"),
        (br#"{"messages": [{"role": "user"}]}"#, "messages[0].content: missing"),
        (br#"{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}"#, "messages[0].content[0]"),
    ];
    let with = |extra: Value| body(extra);
    let field_cases = [
        (with(json!({"temperature": "hot"})), "temperature: must be a number"),
        (with(json!({"temperature": -0.5})), "temperature: must be between 0 and 2"),
        (with(json!({"top_p": 0})), "top_p: must be above 0"),
        (with(json!({"max_tokens": 0})), "max_tokens: must be at least 1"),
        (with(json!({"max_tokens": -3})), "max_tokens: must be a whole number"),
        (with(json!({"seed": 1.5})), "seed: must be an integer"),
        (with(json!({"stop": 3})), "stop: must be a text or a list of texts"),
        (with(json!({"stop": ["a", 1]})), "stop: must be a text or a list of texts"),
        (with(json!({"n": 2})), "n: this model answers one choice per request"),
        (with(json!({"stream": "yes"})), "stream: must be true or false"),
    ];
    let all = cases.into_iter().map(|(b, w)| (b.to_vec(), w)).chain(field_cases);
    for (bytes, want) in all {
        match read_chat_request(&bytes) {
            Err(ChatError::BadRequest(m)) => assert!(m.starts_with(want), "want {want:?}, got {m:?}"),
            other => panic!("{}: {other:?}", String::from_utf8_lossy(&bytes)),
        }
    }
}

#[test]
fn list_of_parts_content_is_read_as_its_text() {
    let b = br#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"text": "b"}]}]}"#;
    assert_eq!(read_chat_request(b).unwrap().messages[0].content, "ab");
}

/// The request exactly as the run engine builds it for the `local` preset.
fn engine_request(stream: bool, temperature: f64, max_tokens: u32) -> Vec<u8> {
    let r = reference();
    let endpoint = Endpoint {
        provider: "local".into(),
        base_url: preset("local").unwrap().base_url.into(),
        model: "tiny-q8_0.gguf".into(),
    };
    let params = GenerationParams { max_tokens, temperature: Some(temperature), stream, ..Default::default() };
    let messages = [Message::system(r["system"].as_str().unwrap()), Message::user(r["user"].as_str().unwrap())];
    build_request(&endpoint, None, &params, &messages, 1).unwrap().http.body.into_bytes()
}

#[test]
fn answers_read_back_by_the_providers_parsers_with_real_token_counts() {
    let r = reference();
    let name = MODELS[0];
    let want_text = r["models"][name]["greedy_text"].as_str().unwrap();
    let want_prompt = ids(&r["prompt_ids"]).len() as u64;
    let mut model = load(name);
    let mut clock = 0.0;
    // A clock that advances 2 ms per reading: prefill is one interval, decode the rest.
    let mut tick = || {
        clock += 2.0;
        clock
    };
    // (stream, how the body is read)
    for stream in [false, true] {
        let reply = answer_chat(&mut model, &engine_request(stream, 0.0, 8), &mut tick, || true).unwrap();
        let completion = if stream {
            assert_eq!(reply.content_type, "text/event-stream");
            let mut parser = StreamParser::new(WireFormat::OpenAiChat, 1);
            parser.push(&reply.body).unwrap();
            parser.finish().unwrap()
        } else {
            assert_eq!(reply.content_type, "application/json");
            parse_response(WireFormat::OpenAiChat, 200, &[], std::str::from_utf8(&reply.body).unwrap()).unwrap()
        };
        assert_eq!(completion.texts, vec![want_text.to_string()], "stream {stream}");
        assert_eq!(completion.finish_reasons, vec![Some("length".to_string())], "stream {stream}");
        assert_eq!((completion.usage.prompt_tokens, completion.usage.completion_tokens), (want_prompt, 8));
        assert_eq!(completion.model.as_deref(), Some("tiny-q8_0.gguf"));
        let timings = read_timings(&reply.body).expect("timings in the body");
        assert_eq!(timings, reply.timings);
        // 8 tokens: the first from prefill's logits, 7 steps. The second request asks the same:
        // all but the prompt's last token come from the cache.
        let (run, reused) = if stream { (1, want_prompt as usize - 1) } else { (want_prompt as usize, 0) };
        assert_eq!((timings.prefill_tokens, timings.reused_tokens, timings.decode_tokens), (run, reused, 7));
        assert!(timings.prefill_ms > 0.0 && timings.decode_ms > 0.0, "{timings:?}");
        assert!(timings.decode_tokens_per_second().unwrap() > 0.0);
    }
}

#[test]
fn the_whole_body_has_the_chat_completion_shape() {
    let mut model = load(MODELS[0]);
    let reply = answer_chat(&mut model, &engine_request(false, 0.0, 3), || 0.0, || true).unwrap();
    let v: Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    assert_eq!(v["choices"][0]["index"], 0);
    let u = &v["usage"];
    assert_eq!(u["total_tokens"].as_u64(), Some(u["prompt_tokens"].as_u64().unwrap() + 3));
    for field in [
        "prefill_tokens",
        "prefill_ms",
        "prefill_tokens_per_second",
        "decode_tokens",
        "decode_ms",
        "decode_tokens_per_second",
    ] {
        assert!(v["timings"].get(field).is_some(), "timings.{field}");
    }
    // No clock (always 0): no rate rather than a division by zero.
    assert!(v["timings"]["decode_tokens_per_second"].is_null());
}

#[test]
fn stop_texts_asked_for_end_the_answer_and_are_left_out_of_its_text() {
    let r = reference();
    let greedy = r["models"][MODELS[0]]["greedy_text"].as_str().unwrap();
    // The greedy text's third token onwards ("q in…"): stop where "erq" ends.
    let stop_at = "erq";
    let start = greedy.find(stop_at).unwrap();
    let mut model = load(MODELS[0]);
    // (the stop texts asked for, streamed or not, the text sent back)
    let cases: Vec<(Value, bool, &str)> = vec![
        (json!([stop_at]), false, &greedy[..start]),
        (json!([stop_at]), true, &greedy[..start]),
        // Two that end at the same token: the answer ends where the earlier-starting one begins.
        (json!(["rq", stop_at]), false, &greedy[..start]),
        // Not asked for: our own [/ANSWER] would stay, an end that is no stop text changes nothing.
        (json!(["never in the text"]), false, &greedy[..start + stop_at.len()]),
    ];
    for (i, (stop, stream, want)) in cases.into_iter().enumerate() {
        let mut request: Value = serde_json::from_slice(&engine_request(stream, 0.0, 50)).unwrap();
        request["stop"] = stop.clone();
        if i == 3 {
            // The stop text is not asked for: the answer runs on past it, up to max_tokens.
            request["max_tokens"] = json!(model.encode(&greedy[..start + stop_at.len()]).unwrap().len());
        }
        let reply = answer_chat(&mut model, request.to_string().as_bytes(), || 0.0, || true).unwrap();
        let completion = if stream {
            let mut parser = StreamParser::new(WireFormat::OpenAiChat, 1);
            parser.push(&reply.body).unwrap();
            parser.finish().unwrap()
        } else {
            parse_response(WireFormat::OpenAiChat, 200, &[], std::str::from_utf8(&reply.body).unwrap()).unwrap()
        };
        assert_eq!(completion.texts, vec![want.to_string()], "case {i}: stop {stop}");
        let finish = if i == 3 { "length" } else { "stop" };
        assert_eq!(completion.finish_reasons, vec![Some(finish.to_string())], "case {i}");
    }
}

#[test]
fn sampled_answers_repeat_for_a_seed_and_differ_between_seeds() {
    let mut model = load(MODELS[1]);
    let mut text = |seed: Option<u64>| {
        let mut request: Value = serde_json::from_slice(&engine_request(false, 1.0, 12)).unwrap();
        if let Some(s) = seed {
            request["seed"] = json!(s);
        }
        let reply = answer_chat(&mut model, request.to_string().as_bytes(), || 0.0, || true).unwrap();
        reply.generation.tokens
    };
    assert_eq!(text(None), text(None), "no seed: the default one, so it repeats");
    assert_eq!(text(Some(DEFAULT_SEED)), text(None));
    assert_eq!(text(Some(1)), text(Some(1)));
    assert_ne!(text(Some(1)), text(Some(2)));
}

#[test]
fn stop_and_errors_are_answers_the_providers_classify() {
    let mut model = load(MODELS[0]);
    let mut asked = 0;
    let stopped = answer_chat(
        &mut model,
        &engine_request(false, 0.0, 8),
        || 0.0,
        || {
            asked += 1;
            asked < 3
        },
    );
    assert_eq!(stopped, Err(ChatError::Stopped));
    assert_eq!(asked, 3, "asked after each token until it said stop");

    // A prompt longer than the model's context (4096 tokens) is the request's fault.
    let long = json!({"messages": [{"role": "user", "content": "x ".repeat(5000)}]}).to_string();
    let cases: [(&[u8], ErrorKind, &str); 2] = [
        (b"{\"messages\": 3}", ErrorKind::BadRequest, "messages: must be a list"),
        (long.as_bytes(), ErrorKind::BadRequest, "this model's context holds 4096"),
    ];
    for (request, kind, want) in cases {
        let error = answer_chat(&mut model, request, || 0.0, || true).unwrap_err();
        assert!(error.message().contains(want), "{error}");
        let classified =
            classify_error(WireFormat::OpenAiChat, error.status(), &[], std::str::from_utf8(&error.body()).unwrap());
        assert_eq!(classified.kind, kind, "{classified:?}");
        assert!(classified.message.contains(want), "{classified:?}");
    }

    // A model that fails while answering fails the same way when asked again: the engine fails
    // the attempt once rather than retrying it as a server's passing fault.
    let failed = ChatError::Model("the chat template (GGUF key tokenizer.chat_template): unknown filter".into());
    let classified =
        classify_error(WireFormat::OpenAiChat, failed.status(), &[], std::str::from_utf8(&failed.body()).unwrap());
    assert_eq!(classified.kind.disposition(), Disposition::FailAttempt, "{classified:?}");
    assert!(classified.message.contains("unknown filter"), "{classified:?}");
}
