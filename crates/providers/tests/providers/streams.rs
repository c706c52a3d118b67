//! Streams of each format fed in many chunkings (including splits inside UTF-8 characters and
//! CRLF line ends) must all give the same completion; cut streams and error events must fail
//! the attempt with the right kind.

use execbench_providers::*;

use WireFormat::*;

const OPENAI: &str = r#"data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":1,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

: keep-alive

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"The café "},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":1,"delta":{"content":"🦀 says"},"finish_reason":null}]}

: OPENROUTER PROCESSING

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"→ 4"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":1,"delta":{"content":" 4"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":1,"delta":{},"finish_reason":"length"}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":21,"completion_tokens":9,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":3}}}

data: [DONE]

"#;

const ANTHROPIC: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me add."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Résultat : "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"4 ✓"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":37}}

event: message_stop
data: {"type":"message_stop"}

"#;

const GEMINI: &str = r#"data: {"candidates":[{"content":{"parts":[{"text":"Adding the numbers","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"totalTokenCount":12},"modelVersion":"gemini-2.5-flash"}

data: {"candidates":[{"content":{"parts":[{"text":"Die Antwort "}],"role":"model"},"index":0},{"content":{"parts":[{"text":"答案"}],"role":"model"},"index":1}],"usageMetadata":{"promptTokenCount":12,"totalTokenCount":20},"modelVersion":"gemini-2.5-flash"}

data: {"candidates":[{"content":{"parts":[{"text":"ist 4."}],"role":"model"},"finishReason":"STOP","index":0},{"content":{"parts":[{"text":"是 4"}],"role":"model"},"finishReason":"STOP","index":1}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":9,"thoughtsTokenCount":30,"cachedContentTokenCount":4,"totalTokenCount":51},"modelVersion":"gemini-2.5-flash"}

"#;

fn completion(texts: &[&str], finish: &[&str], usage: [u64; 4], model: &str) -> Completion {
    Completion {
        texts: texts.iter().map(|s| s.to_string()).collect(),
        finish_reasons: finish.iter().map(|f| Some(f.to_string())).collect(),
        usage: Usage {
            prompt_tokens: usage[0],
            completion_tokens: usage[1],
            reasoning_tokens: usage[2],
            cached_tokens: usage[3],
        },
        model: Some(model.to_string()),
    }
}

fn streams() -> Vec<(&'static str, WireFormat, u32, &'static str, Completion)> {
    vec![
        (
            "openai",
            OpenAiChat,
            2,
            OPENAI,
            completion(&["The café → 4", "🦀 says 4"], &["stop", "length"], [21, 9, 3, 8], "gpt-4o-mini-2024-07-18"),
        ),
        (
            "anthropic",
            Anthropic,
            1,
            ANTHROPIC,
            completion(&["Résultat : 4 ✓"], &["end_turn"], [35, 37, 0, 10], "claude-sonnet-4-5"),
        ),
        (
            "gemini",
            Gemini,
            2,
            GEMINI,
            completion(&["Die Antwort ist 4.", "答案是 4"], &["STOP", "STOP"], [12, 39, 30, 4], "gemini-2.5-flash"),
        ),
    ]
}

/// Ways to cut `bytes` into pieces: whole, fixed sizes (1 byte splits every UTF-8 character),
/// and two pieces split at every position.
fn chunkings(bytes: &[u8]) -> Vec<Vec<&[u8]>> {
    let mut out: Vec<Vec<&[u8]>> = vec![vec![bytes]];
    for size in [1, 2, 3, 5, 7, 64, 1000] {
        out.push(bytes.chunks(size).collect());
    }
    for at in 0..=bytes.len() {
        out.push(vec![&bytes[..at], &bytes[at..]]);
    }
    out
}

/// Feeds the pieces; returns the completion and the text the deltas spelled per index.
fn run(wire: WireFormat, choices: u32, pieces: &[&[u8]]) -> (Result<Completion, ProviderError>, Vec<String>) {
    let mut p = StreamParser::new(wire, choices);
    let mut live: Vec<String> = vec![];
    for piece in pieces {
        match p.push(piece) {
            Ok(deltas) => {
                for d in deltas {
                    let i = d.index as usize;
                    if live.len() <= i {
                        live.resize(i + 1, String::new());
                    }
                    live[i].push_str(&d.text);
                }
            }
            Err(e) => return (Err(e), live),
        }
    }
    (p.finish(), live)
}

#[test]
fn every_chunking_gives_the_same_completion() {
    for (what, wire, choices, text, want) in streams() {
        let crlf = text.replace('\n', "\r\n");
        for variant in [text, crlf.as_str()] {
            for pieces in chunkings(variant.as_bytes()) {
                let (got, live) = run(wire, choices, &pieces);
                let sizes: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
                assert_eq!(got.as_ref(), Ok(&want), "{what}, pieces {sizes:?}");
                assert_eq!(live, want.texts, "{what}: the live deltas spell the texts");
            }
        }
    }
}

#[test]
fn last_event_without_final_blank_line_still_counts() {
    for (what, wire, choices, text, want) in streams() {
        let trimmed = text.trim_end();
        assert_eq!(run(wire, choices, &[trimmed.as_bytes()]).0, Ok(want), "{what}");
    }
}

#[test]
fn cut_streams() {
    for (what, wire, choices, text, _) in streams() {
        // Cut before the terminator: before "data: [DONE]", "event: message_stop", the last chunk.
        let marker = match wire {
            OpenAiChat => "data: [DONE]",
            Anthropic => "event: message_stop",
            Gemini => "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ist 4.",
        };
        let at = text.find(marker).unwrap();
        let (got, _) = run(wire, choices, &[&text.as_bytes()[..at]]);
        let e = got.unwrap_err();
        assert_eq!(e.kind, ErrorKind::StreamCut, "{what}: {e}");
        assert_eq!(e.kind.disposition(), Disposition::Retry);
        // Cut inside a JSON line.
        let (got, _) = run(wire, choices, &[&text.as_bytes()[..at + marker.len() - 3]]);
        assert_eq!(got.unwrap_err().kind, ErrorKind::StreamCut, "{what}: cut inside an event");
        // Nothing at all.
        let (got, _) = run(wire, choices, &[]);
        assert_eq!(got.unwrap_err().kind, ErrorKind::StreamCut, "{what}: empty");
        let (got, _) = run(wire, choices, &[b": keep-alive\n\n"]);
        assert_eq!(got.unwrap_err().kind, ErrorKind::StreamCut, "{what}: only a comment");
    }
}

#[test]
fn error_events() {
    let cases: Vec<(&str, WireFormat, String, ErrorKind, &str)> = vec![
        (
            "anthropic overloaded event mid-stream",
            Anthropic,
            format!("{}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n\n", &ANTHROPIC[..ANTHROPIC.find("event: content_block_stop").unwrap()]),
            ErrorKind::Overloaded,
            "Overloaded",
        ),
        (
            "anthropic api_error event",
            Anthropic,
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n\n".into(),
            ErrorKind::StreamError,
            "Internal server error",
        ),
        (
            "anthropic rate limit event",
            Anthropic,
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Rate limited\"}}\n\n".into(),
            ErrorKind::RateLimited,
            "Rate limited",
        ),
        (
            "openrouter error object mid-stream",
            OpenAiChat,
            format!("{}data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"error\":{{\"code\":\"server_error\",\"message\":\"Provider disconnected\"}},\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"\"}},\"finish_reason\":\"error\"}}]}}\n\n", &OPENAI[..OPENAI.find(": OPENROUTER").unwrap()]),
            ErrorKind::StreamError,
            "Provider disconnected",
        ),
        (
            "openrouter 429 in a 200 stream",
            OpenAiChat,
            "data: {\"error\":{\"code\":429,\"message\":\"Rate limit exceeded: free-models-per-min. Please try again in 2s\"}}\n\n".into(),
            ErrorKind::RateLimited,
            "free-models-per-min",
        ),
        (
            "vllm flat error object",
            OpenAiChat,
            "data: {\"object\":\"error\",\"message\":\"prompt too long\",\"type\":\"BadRequestError\",\"code\":400}\n\n".into(),
            ErrorKind::StreamError,
            "prompt too long",
        ),
        (
            "sglang nested error",
            OpenAiChat,
            "data: {\"error\":{\"object\":\"error\",\"message\":\"out of memory\",\"type\":\"InternalServerError\",\"code\":500}}\n\ndata: [DONE]\n\n".into(),
            ErrorKind::StreamError,
            "out of memory",
        ),
        (
            "an error event in plain text",
            OpenAiChat,
            "event: error\ndata: upstream closed the connection\n\n".into(),
            ErrorKind::StreamError,
            "upstream closed",
        ),
        (
            "gemini overloaded object mid-stream",
            Gemini,
            format!("{}data: {{\"error\":{{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}}}\n\n", &GEMINI[..GEMINI.find("\n\n").unwrap() + 2]),
            ErrorKind::Overloaded,
            "overloaded",
        ),
        (
            "a data line that is not JSON",
            OpenAiChat,
            "data: {\"choices\": [oops]}\n\n".into(),
            ErrorKind::Unreadable,
            "not JSON",
        ),
        (
            "a JSON number instead of a chunk",
            Gemini,
            "data: 42\n\n".into(),
            ErrorKind::Unreadable,
            "42",
        ),
    ];
    for (what, wire, text, kind, message) in cases {
        for pieces in [vec![text.as_bytes()], text.as_bytes().chunks(3).collect()] {
            let mut p = StreamParser::new(wire, 1);
            let mut err = None;
            for piece in &pieces {
                if let Err(e) = p.push(piece) {
                    err = Some(e);
                    break;
                }
            }
            let e = err.expect(what);
            assert_eq!(e.kind, kind, "{what}: {e}");
            assert!(e.message.contains(message), "{what}: {e}");
            assert_eq!(e.status, None);
            // The parser remembers: more bytes and finish give the same error.
            assert_eq!(p.push(b"data: [DONE]\n\n").as_ref(), Err(&e), "{what}");
            assert_eq!(p.finish(), Err(e), "{what}");
        }
    }
}

#[test]
fn lenient_framing() {
    type Row = (&'static str, WireFormat, &'static str, Result<Vec<&'static str>, ErrorKind>);
    let cases: Vec<Row> = vec![
        (
            "data without space after the colon",
            OpenAiChat,
            "data:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata:[DONE]\n\n",
            Ok(vec!["a"]),
        ),
        (
            "two data lines with no blank line between",
            OpenAiChat,
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\ndata: [DONE]\n\n",
            Ok(vec!["ab"]),
        ),
        (
            "id and retry fields ignored",
            OpenAiChat,
            "id: 1\nretry: 100\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
            Ok(vec!["a"]),
        ),
        (
            "unknown objects skipped",
            OpenAiChat,
            "data: {\"provider\":\"x\"}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
            Ok(vec!["a"]),
        ),
        (
            "a plain JSON body instead of a stream",
            OpenAiChat,
            "{\n  \"model\": \"m\",\n  \"choices\": [{\"index\": 0, \"message\": {\"content\": \"whole\"}, \"finish_reason\": \"stop\"}]\n}\n",
            Ok(vec!["whole"]),
        ),
        (
            "a plain JSON error body instead of a stream",
            Gemini,
            "[{\"error\": {\"code\": 429, \"message\": \"slow\", \"status\": \"RESOURCE_EXHAUSTED\"}}]",
            Err(ErrorKind::RateLimited),
        ),
        ("plain text instead of a stream", OpenAiChat, "Internal Server Error", Err(ErrorKind::Unreadable)),
        ("[DONE] with no text", OpenAiChat, "data: [DONE]\n\n", Err(ErrorKind::EmptyOutput)),
        (
            "openai length with no content",
            OpenAiChat,
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n",
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "gemini safety stop",
            Gemini,
            "data: {\"candidates\":[{\"finishReason\":\"SAFETY\",\"index\":0}]}\r\n\r\n",
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "gemini blocked prompt ends the stream",
            Gemini,
            "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"},\"usageMetadata\":{\"promptTokenCount\":3}}\n\n",
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "anthropic message_stop with only thinking",
            Anthropic,
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":16}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            Err(ErrorKind::EmptyOutput),
        ),
        (
            "anthropic text in content_block_start and unknown events",
            Anthropic,
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"Hi\"}}\n\nevent: future_event\ndata: {\"type\":\"future_event\"}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            Ok(vec!["Hi"]),
        ),
    ];
    for (what, wire, text, want) in cases {
        for pieces in [vec![text.as_bytes()], text.as_bytes().chunks(1).collect()] {
            let (got, _) = run(wire, 1, &pieces);
            match (&got, &want) {
                (Ok(c), Ok(texts)) => assert_eq!(&c.texts, texts, "{what}"),
                (Err(e), Err(kind)) => assert_eq!(e.kind, *kind, "{what}: {e}"),
                _ => panic!("{what}: got {got:?}, want {want:?}"),
            }
        }
    }
}

#[test]
fn usage_in_streams() {
    // Anthropic's newer message_delta repeats input and cache counts cumulatively.
    let text = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":7,\"output_tokens\":12}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let c = run(Anthropic, 1, &[text.as_bytes()]).0.unwrap();
    assert_eq!(c.usage, Usage { prompt_tokens: 12, completion_tokens: 12, reasoning_tokens: 0, cached_tokens: 7 });
    // A stream without the usage chunk has zero usage, not an error.
    let text = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let c = run(OpenAiChat, 1, &[text.as_bytes()]).0.unwrap();
    assert_eq!(c.usage, Usage::default());
    assert_eq!(c.model, None);
}
