//! Generated streams of each wire format: cut into any pieces (inside UTF-8 characters and CRLF
//! pairs too), they give the same deltas and the same completion as fed whole, and the completion
//! holds exactly the text that was sent. Garbage and cut streams give a named error, never a panic.

use execbench_providers::{ErrorKind, StreamParser, WireFormat};
use proptest::prelude::*;

use execbench_proptest_cases::cases;
use serde_json::json;

/// What a server sends: pieces of text per choice, in order.
#[derive(Clone, Debug)]
struct Sent {
    wire: WireFormat,
    pieces: Vec<(u32, String)>,
    choices: u32,
    crlf: bool,
    keep_alives: bool,
}

impl Sent {
    fn expected_texts(&self) -> Vec<String> {
        (0..self.choices)
            .map(|i| self.pieces.iter().filter(|(c, _)| *c == i).map(|(_, t)| t.as_str()).collect())
            .collect()
    }

    fn body(&self) -> String {
        let mut events: Vec<String> = Vec::new();
        let data = |v: serde_json::Value| format!("data: {v}\n\n");
        match self.wire {
            WireFormat::OpenAiChat => {
                for (i, text) in &self.pieces {
                    events.push(data(json!({"choices":[{"index":i,"delta":{"content":text},"finish_reason":null}]})));
                }
                for i in 0..self.choices {
                    events.push(data(json!({"choices":[{"index":i,"delta":{},"finish_reason":"stop"}]})));
                }
                events.push("data: [DONE]\n\n".into());
            }
            WireFormat::Anthropic => {
                let named = |name: &str, v: serde_json::Value| format!("event: {name}\ndata: {v}\n\n");
                events.push(named("message_start", json!({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":1}}})));
                events.push(named(
                    "content_block_start",
                    json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
                ));
                for (_, text) in &self.pieces {
                    events.push(named(
                        "content_block_delta",
                        json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}}),
                    ));
                }
                events.push(named("content_block_stop", json!({"type":"content_block_stop","index":0})));
                events.push(named(
                    "message_delta",
                    json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}),
                ));
                events.push(named("message_stop", json!({"type":"message_stop"})));
            }
            WireFormat::Gemini => {
                for (i, text) in &self.pieces {
                    events.push(data(
                        json!({"candidates":[{"content":{"parts":[{"text":text}],"role":"model"},"index":i}]}),
                    ));
                }
                let done: Vec<_> = (0..self.choices)
                    .map(|i| json!({"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":i}))
                    .collect();
                events
                    .push(data(json!({"candidates":done,"usageMetadata":{"promptTokenCount":2,"totalTokenCount":4}})));
            }
        }
        let mut body = String::new();
        for event in events {
            if self.keep_alives {
                body.push_str(": keep-alive\n\n");
            }
            body.push_str(&event);
        }
        if self.crlf { body.replace('\n', "\r\n") } else { body }
    }
}

fn sent() -> impl Strategy<Value = Sent> {
    let wire = prop_oneof![Just(WireFormat::OpenAiChat), Just(WireFormat::Anthropic), Just(WireFormat::Gemini)];
    (wire, 1u32..4, any::<bool>(), any::<bool>()).prop_flat_map(|(wire, choices, crlf, keep_alives)| {
        // Anthropic streams carry one choice.
        let choices = if wire == WireFormat::Anthropic { 1 } else { choices };
        // Every choice gets a first piece that is not blank, then pieces of any text.
        let firsts: Vec<_> = (0..choices).map(|i| "[a-z0-9é🦀]{1,6}".prop_map(move |t| (i, t))).collect();
        let rest = proptest::collection::vec((0..choices, "\\PC{0,12}|[\\n\\r\"\\\\:]{1,4}"), 0..12);
        (firsts, rest).prop_map(move |(mut pieces, rest)| {
            pieces.extend(rest);
            Sent { wire, pieces, choices, crlf, keep_alives }
        })
    })
}

/// Feeds `body` cut at `cuts` (sorted, deduplicated byte offsets): the deltas joined per choice,
/// and the completion (or its error kind).
/// The deltas seen (choice, text), and the completion's texts or the error's kind.
type Fed = (Vec<(u32, String)>, Result<Vec<String>, ErrorKind>);

fn feed(wire: WireFormat, body: &[u8], cuts: &[usize]) -> Fed {
    let mut parser = StreamParser::new(wire, 1);
    let mut deltas = Vec::new();
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&body.len())) {
        match parser.push(&body[start..end]) {
            Ok(got) => deltas.extend(got.into_iter().map(|d| (d.index, d.text))),
            Err(e) => return (deltas, Err(e.kind)),
        }
        start = end;
    }
    (deltas, parser.finish().map(|c| c.texts).map_err(|e| e.kind))
}

fn joined(deltas: &[(u32, String)]) -> Vec<String> {
    let choices = deltas.iter().map(|(i, _)| i + 1).max().unwrap_or(0);
    (0..choices).map(|i| deltas.iter().filter(|(c, _)| *c == i).map(|(_, t)| t.as_str()).collect()).collect()
}

fn cuts(len: usize, offsets: Vec<usize>) -> Vec<usize> {
    let mut cuts: Vec<usize> = offsets.into_iter().map(|o| o % (len + 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn any_chunking_gives_the_text_that_was_sent(sent in sent(), offsets in proptest::collection::vec(any::<usize>(), 0..40)) {
        let body = sent.body();
        let (whole_deltas, whole) = feed(sent.wire, body.as_bytes(), &[]);
        prop_assert_eq!(whole.as_ref(), Ok(&sent.expected_texts()), "whole body:\n{}", body);
        prop_assert_eq!(joined(&whole_deltas), sent.expected_texts());
        let (deltas, completion) = feed(sent.wire, body.as_bytes(), &cuts(body.len(), offsets));
        prop_assert_eq!(joined(&deltas), joined(&whole_deltas));
        prop_assert_eq!(completion, whole);
    }

    #[test]
    fn a_stream_cut_short_is_an_error_not_a_shorter_answer(sent in sent(), at in any::<usize>()) {
        let body = sent.body();
        // Cut before the terminator's line ends: what came is not the whole answer.
        let terminator = body.trim_end().rfind('\n').map_or(0, |n| n + 1);
        let cut = at % terminator.max(1);
        let (_, completion) = feed(sent.wire, &body.as_bytes()[..cut], &[]);
        prop_assert!(completion.is_err(), "cut at {cut} of {}: {:?}\n{}", body.len(), completion, body);
    }

    #[test]
    fn garbage_gives_a_named_error(wire in prop_oneof![Just(WireFormat::OpenAiChat), Just(WireFormat::Anthropic), Just(WireFormat::Gemini)],
                                   bytes in proptest::collection::vec(any::<u8>(), 0..300),
                                   offsets in proptest::collection::vec(any::<usize>(), 0..8)) {
        let (_, whole) = feed(wire, &bytes, &[]);
        let (_, chunked) = feed(wire, &bytes, &cuts(bytes.len(), offsets));
        prop_assert_eq!(&chunked, &whole);
        // Random bytes are never a complete answer of these formats.
        prop_assert!(whole.is_err());
    }
}

/// A body a server might send: JSON of the formats' shapes with pieces missing or mistyped, or
/// any text.
fn body() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        Just(json!(null)),
        Just(json!("text")),
        Just(json!(3)),
        Just(json!([])),
        Just(json!({})),
        "\\PC{0,20}".prop_map(|s| json!(s)),
    ];
    prop_oneof![
        "\\PC{0,80}",
        (value.clone(), value.clone(), value).prop_map(|(a, b, c)| {
            json!({"choices": [{"index": 0, "message": {"content": a}}], "content": [{"type": "text", "text": b}],
                   "candidates": [{"content": {"parts": [{"text": c}]}}], "error": {"message": b, "type": a}})
            .to_string()
        }),
    ]
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn any_whole_response_is_a_completion_or_a_named_error(
        wire in prop_oneof![Just(WireFormat::OpenAiChat), Just(WireFormat::Anthropic), Just(WireFormat::Gemini)],
        status in prop_oneof![Just(200u16), Just(400u16), Just(401u16), Just(429u16), Just(500u16), 100u16..600],
        retry_after in proptest::option::of("[0-9a-zA-Z ,:]{0,12}"),
        body in body(),
    ) {
        let headers: Vec<(String, String)> = retry_after.into_iter().map(|v| ("retry-after".to_string(), v)).collect();
        match execbench_providers::parse_response(wire, status, &headers, &body) {
            Ok(completion) => {
                prop_assert!((200..300).contains(&status), "a completion from status {status}");
                prop_assert!(completion.texts.iter().any(|t| !t.is_empty()));
            }
            Err(e) => {
                // Named by its kind (and status); the provider's message when it gave one.
                prop_assert!(e.to_string().starts_with(e.kind.label()), "{e:?}");
                prop_assert!(!e.kind.label().is_empty());
                prop_assert!(e.kind != ErrorKind::StreamCut);
            }
        }
    }
}
