//! Whole responses of each format: one table of bodies with the completion (or error kind)
//! each must give.

use execbench_providers::*;
use serde_json::json;

fn done(
    texts: &[&str],
    finish: &[Option<&str>],
    usage: [u64; 4],
    model: Option<&str>,
) -> Result<Completion, ErrorKind> {
    Ok(Completion {
        texts: texts.iter().map(|s| s.to_string()).collect(),
        finish_reasons: finish.iter().map(|f| f.map(str::to_string)).collect(),
        usage: Usage {
            prompt_tokens: usage[0],
            completion_tokens: usage[1],
            reasoning_tokens: usage[2],
            cached_tokens: usage[3],
        },
        model: model.map(str::to_string),
    })
}

use WireFormat::*;

/// (what, wire, status, body, expected)
type Row = (&'static str, WireFormat, u16, String, Result<Completion, ErrorKind>);

fn cases() -> Vec<Row> {
    vec![
        (
            "openai: two choices out of order, full usage",
            OpenAiChat,
            200,
            json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
                "choices": [
                    {"index": 1, "message": {"role": "assistant", "content": "second"}, "finish_reason": "length"},
                    {"index": 0, "message": {"role": "assistant", "content": "first ✓"}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 30, "completion_tokens": 120, "total_tokens": 150,
                          "prompt_tokens_details": {"cached_tokens": 16},
                          "completion_tokens_details": {"reasoning_tokens": 64}}
            })
            .to_string(),
            done(&["first ✓", "second"], &[Some("stop"), Some("length")], [30, 120, 64, 16], Some("gpt-4o-mini-2024-07-18")),
        ),
        (
            "openai: null content next to a real one, no usage",
            OpenAiChat,
            200,
            json!({"choices": [
                {"index": 0, "message": {"role": "assistant", "content": null}, "finish_reason": "content_filter"},
                {"index": 1, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}
            ]})
            .to_string(),
            done(&["", "x"], &[Some("content_filter"), Some("stop")], [0, 0, 0, 0], None),
        ),
        (
            "openai-compatible: content as parts, 201, reasoning_content ignored",
            OpenAiChat,
            201,
            json!({"model": "local", "choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "reasoning_content": "hmm"}, "finish_reason": null}]})
                .to_string(),
            done(&["ab"], &[None], [0, 0, 0, 0], Some("local")),
        ),
        (
            "openai: length with empty content is empty output",
            OpenAiChat,
            200,
            json!({"choices": [{"index": 0, "message": {"content": ""}, "finish_reason": "length"}],
                   "usage": {"prompt_tokens": 10, "completion_tokens": 16, "completion_tokens_details": {"reasoning_tokens": 16}}})
            .to_string(),
            Err(ErrorKind::EmptyOutput),
        ),
        ("openai: no choices", OpenAiChat, 200, json!({"choices": []}).to_string(), Err(ErrorKind::EmptyOutput)),
        ("openai: an Anthropic body", OpenAiChat, 200, json!({"type": "message", "content": []}).to_string(), Err(ErrorKind::Unreadable)),
        ("openai: HTML", OpenAiChat, 200, "<html><body>Welcome</body></html>".into(), Err(ErrorKind::Unreadable)),
        ("openai: empty body", OpenAiChat, 200, "".into(), Err(ErrorKind::Unreadable)),
        ("openai: truncated JSON", OpenAiChat, 200, "{\"choices\":[{\"message\":{\"content\":\"hi".into(), Err(ErrorKind::Unreadable)),
        (
            "openai: error object in a 200",
            OpenAiChat,
            200,
            json!({"error": {"message": "Upstream overloaded", "code": 503}}).to_string(),
            Err(ErrorKind::Overloaded),
        ),
        ("openai: 429 goes through classify_error", OpenAiChat, 429, json!({"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}).to_string(), Err(ErrorKind::RateLimited)),
        (
            "anthropic: thinking block skipped, text blocks joined, cache counted in the prompt",
            Anthropic,
            200,
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "thinking", "thinking": "Add them.", "signature": "sig"},
                    {"type": "text", "text": "The answer "},
                    {"type": "text", "text": "is 4."}
                ],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 20, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 55}
            })
            .to_string(),
            done(&["The answer is 4."], &[Some("end_turn")], [125, 55, 0, 100], Some("claude-sonnet-4-5")),
        ),
        (
            "anthropic: only thinking, max_tokens: empty output",
            Anthropic,
            200,
            json!({"type": "message", "content": [{"type": "thinking", "thinking": "..."}], "stop_reason": "max_tokens", "usage": {"input_tokens": 1, "output_tokens": 16}}).to_string(),
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "anthropic: refusal with no content",
            Anthropic,
            200,
            json!({"type": "message", "content": [], "stop_reason": "refusal"}).to_string(),
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "anthropic: overloaded error body in a 200",
            Anthropic,
            200,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}).to_string(),
            Err(ErrorKind::Overloaded),
        ),
        ("anthropic: an OpenAI body", Anthropic, 200, json!({"choices": []}).to_string(), Err(ErrorKind::Unreadable)),
        (
            "gemini: two candidates, thoughts skipped and counted",
            Gemini,
            200,
            json!({
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": "plan", "thought": true}, {"text": "Eins"}, {"text": "+Drei"}]}, "finishReason": "STOP", "index": 0},
                    {"content": {"role": "model", "parts": [{"text": "四"}]}, "finishReason": "MAX_TOKENS", "index": 1}
                ],
                "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 8, "thoughtsTokenCount": 40, "cachedContentTokenCount": 3, "totalTokenCount": 60},
                "modelVersion": "gemini-2.5-flash"
            })
            .to_string(),
            done(&["Eins+Drei", "四"], &[Some("STOP"), Some("MAX_TOKENS")], [12, 48, 40, 3], Some("gemini-2.5-flash")),
        ),
        (
            "gemini: candidate without index or parts next to one with text",
            Gemini,
            200,
            json!({"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}, {"finishReason": "SAFETY"}]}).to_string(),
            done(&["ok", ""], &[Some("STOP"), Some("SAFETY")], [0, 0, 0, 0], None),
        ),
        (
            "gemini: safety stop with no text",
            Gemini,
            200,
            json!({"candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": []}], "usageMetadata": {"promptTokenCount": 5}}).to_string(),
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "gemini: prompt blocked, no candidates",
            Gemini,
            200,
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 5}}).to_string(),
            Err(ErrorKind::EmptyOutput),
        ),
        ("gemini: empty candidates", Gemini, 200, json!({"candidates": []}).to_string(), Err(ErrorKind::EmptyOutput)),
        ("gemini: something else", Gemini, 200, json!({"result": "x"}).to_string(), Err(ErrorKind::Unreadable)),
        ("gemini: a JSON string", Gemini, 200, "\"hello\"".into(), Err(ErrorKind::Unreadable)),
        (
            "gemini: huge and odd numbers are clamped",
            Gemini,
            200,
            r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"index":99999999999}],"usageMetadata":{"promptTokenCount":123456789012345678901234567890,"candidatesTokenCount":-5,"thoughtsTokenCount":2.5}}"#.into(),
            done(&["x"], &[None], [u64::MAX, 2, 2, 0], None),
        ),
    ]
}

#[test]
fn responses_table() {
    for (what, wire, status, body, want) in cases() {
        let got = parse_response(wire, status, &[], &body);
        match (&got, &want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w, "{what}"),
            (Err(g), Err(kind)) => {
                assert_eq!(g.kind, *kind, "{what}: {g}");
                assert!(!g.message.is_empty(), "{what}: an error says why");
            }
            _ => panic!("{what}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn empty_output_names_the_finish_reason() {
    let cases = [
        (
            OpenAiChat,
            json!({"choices": [{"message": {"content": ""}, "finish_reason": "length"}]}),
            "length",
            "max tokens",
        ),
        (Gemini, json!({"candidates": [{"finishReason": "SAFETY"}]}), "SAFETY", "withheld"),
        (Gemini, json!({"promptFeedback": {"blockReason": "OTHER"}}), "OTHER", "refused the prompt"),
        (Anthropic, json!({"content": [], "stop_reason": "end_turn"}), "end_turn", "no text"),
    ];
    for (wire, body, reason, words) in cases {
        let e = parse_response(wire, 200, &[], &body.to_string()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::EmptyOutput);
        assert_eq!(e.status, Some(200));
        assert!(e.message.contains(reason) && e.message.contains(words), "{e}");
    }
}

#[test]
fn usage_adds_and_totals() {
    let mut u = Usage { prompt_tokens: 10, completion_tokens: 5, reasoning_tokens: 2, cached_tokens: 1 };
    u.add(&Usage { prompt_tokens: 1, completion_tokens: 1, reasoning_tokens: 1, cached_tokens: 1 });
    assert_eq!(u, Usage { prompt_tokens: 11, completion_tokens: 6, reasoning_tokens: 3, cached_tokens: 2 });
    assert_eq!(u.total(), 17);
    u.add(&Usage { prompt_tokens: u64::MAX, ..Default::default() });
    assert_eq!(u.prompt_tokens, u64::MAX);
    assert_eq!(u.total(), u64::MAX);
}
