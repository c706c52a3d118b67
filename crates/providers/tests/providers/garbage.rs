//! No input may panic: random bytes and mutated valid inputs go through every entry point. And
//! what comes out keeps its promises: a finish reason per choice, no text from input with no
//! `data:` line and no JSON, and a
//! request built from garbage carries no line break or control character in its URL or headers
//! (where it would split the request).

use execbench_providers::*;

/// xorshift64*: deterministic, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const WIRES: [WireFormat; 3] = [WireFormat::OpenAiChat, WireFormat::Anthropic, WireFormat::Gemini];

/// Valid inputs of every kind, to be mutated.
const SEEDS: &[&str] = &[
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\u{e9}llo \u{1F980}\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n",
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\u{2713}\"}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\u{7b54}\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":1}}\r\n\r\n",
    "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1e2}}",
    "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Please try again in 1.5s\"}}",
    "[{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"retryDelay\":\"38s\",\"violations\":[{\"quotaId\":\"PerDay\"}]}]}}]",
    "{\"object\":\"error\",\"message\":\"retry after 45 seconds\",\"code\":18446744073709551616}",
    "event: error\ndata: oops\n\n",
];

const NASTY: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b":",
    b"data: ",
    b"event: error\n",
    b"{",
    b"}",
    b"[",
    b"\"",
    b"\\",
    b"\xff",
    b"\xe2\x82",
    b"\xf0\x9f",
    b"\0",
    b"1e999",
    b"-1",
    b"99999999999999999999999",
    b"[DONE]",
    b"\n\n",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..=rng.below(6) {
        let at = rng.below(v.len() + 1);
        match rng.below(4) {
            0 if !v.is_empty() => {
                let end = (at + rng.below(20)).min(v.len());
                v.drain(at.min(end)..end);
            }
            1 => {
                let piece = NASTY[rng.below(NASTY.len())];
                v.splice(at..at, piece.iter().copied());
            }
            2 if at < v.len() => v[at] = rng.next() as u8,
            _ => v.truncate(at),
        }
    }
    v
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(400);
    (0..len)
        .map(|_| match rng.below(10) {
            0 => b'\n',
            1 => b':',
            2 => b'{',
            _ => rng.next() as u8,
        })
        .collect()
}

fn exercise(rng: &mut Rng, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let headers = vec![("retry-after".to_string(), text.chars().take(30).collect::<String>())];
    for wire in WIRES {
        // Streams, in random pieces.
        let mut p = StreamParser::new(wire, rng.below(5) as u32);
        let mut rest = bytes;
        let mut failed = false;
        while !rest.is_empty() {
            let n = 1 + rng.below(rest.len());
            if p.push(&rest[..n]).is_err() {
                failed = true;
                break;
            }
            rest = &rest[n..];
        }
        let result = p.finish();
        assert!(!(failed && result.is_ok()), "an error in push is not forgotten");
        if let Ok(done) = &result {
            assert_eq!(done.texts.len(), done.finish_reasons.len(), "{wire:?}: a finish reason per choice");
            // Text comes from a `data:` line, or from a whole JSON body (a server that ignored
            // `stream`): without either, none.
            if !bytes.windows(4).any(|w| w == b"data") && !bytes.contains(&b'{') {
                assert!(done.texts.iter().all(String::is_empty), "{wire:?}: text from nothing: {:?}", done.texts);
            }
        }
        if let Err(e) = &result {
            let _ = e.to_string();
        }
        // Whole bodies and errors, at a few statuses.
        for status in [0, 200, 299, 400, 401, 429, 503, 529, u16::MAX] {
            let _ = parse_response(wire, status, &headers, &text);
        }
        let e = classify_error(wire, 429, &headers, &text);
        let _ = (e.to_string(), e.kind.disposition(), e.kind.label());
        let ep = Endpoint {
            provider: "ollama".into(),
            base_url: text.chars().take(40).collect(),
            model: text.chars().take(20).collect(),
        };
        let _ = connection_verdict(&ep, Ok((200, headers.clone(), text.to_string())), 1, &text).describe();
        let _ = ep.host();
        if let Ok(built) =
            build_request(&ep, Some(&text), &GenerationParams::default(), &[Message::user(text.to_string())], 1)
        {
            let request = &built.http;
            assert!(request.url.starts_with("http://") || request.url.starts_with("https://"), "{}", request.url);
            assert!(!request.url.chars().any(|c| c.is_control() || c.is_whitespace()), "{:?}", request.url);
            for (name, value) in &request.headers {
                assert!(!value.chars().any(char::is_control), "{name}: {value:?}");
            }
        }
    }
    let _ = retry_after_ms(&headers, &text);
    let _ = cors_advice(&text, &text);
}

#[test]
fn garbage_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..300 {
        let bytes = random_bytes(&mut rng);
        exercise(&mut rng, &bytes);
    }
    for seed in SEEDS {
        for _ in 0..150 {
            let bytes = mutate(&mut rng, seed.as_bytes());
            exercise(&mut rng, &bytes);
        }
    }
}

#[test]
fn extreme_inputs() {
    let deep = format!("data: {}{}\n\n", "[".repeat(10_000), "]".repeat(10_000));
    let long_line = format!("data: \"{}", "a".repeat(1 << 20));
    let many_choices = format!(
        "data: {{\"choices\":[{}]}}\n\ndata: [DONE]\n\n",
        (0..2000)
            .map(|i| format!("{{\"index\":{},\"delta\":{{\"content\":\"x\"}}}}", 4_000_000_000u64 - i))
            .collect::<Vec<_>>()
            .join(",")
    );
    let inputs: Vec<Vec<u8>> = vec![
        deep.into_bytes(),
        long_line.into_bytes(),
        many_choices.into_bytes(),
        vec![0xff; 10_000],
        b"\r\r\r\n\n\n::::data\ndata\n\n".to_vec(),
        b"data: {\"candidates\":[{\"index\":-1,\"content\":{\"parts\":[{\"text\":5},{\"thought\":\"yes\",\"text\":\"t\"}]},\"finishReason\":7}]}\n\n".to_vec(),
    ];
    let mut rng = Rng(7);
    for bytes in inputs {
        exercise(&mut rng, &bytes);
    }
    // Ten thousand choices parse (each its own text) without huge allocations.
    let mut p = StreamParser::new(WireFormat::OpenAiChat, 1);
    let body = format!(
        "data: {{\"choices\":[{}]}}\n\ndata: [DONE]\n\n",
        (0..10_000u32)
            .map(|i| format!("{{\"index\":{},\"delta\":{{\"content\":\"x\"}}}}", u32::MAX - i))
            .collect::<Vec<_>>()
            .join(",")
    );
    p.push(body.as_bytes()).unwrap();
    assert_eq!(p.finish().unwrap().texts.len(), 10_000);
}
