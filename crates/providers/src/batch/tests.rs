//! The batch wire formats, one table per concern.

use super::*;
use crate::params::{GenerationParams, Message};
use crate::request::build_request;

const KEY: &str = "sk-batch-SECRET-1234";

fn endpoint(provider: &str, base: &str, model: &str) -> Endpoint {
    Endpoint { provider: provider.into(), base_url: base.into(), model: model.into() }
}

fn endpoints() -> [(WireFormat, Endpoint); 3] {
    [
        (WireFormat::OpenAiChat, endpoint("openai", "https://api.openai.com/v1", "gpt-4o-mini")),
        (WireFormat::Anthropic, endpoint("anthropic", "https://api.anthropic.com/v1", "claude-haiku-4-5")),
        (
            WireFormat::Gemini,
            endpoint("gemini", "https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-flash"),
        ),
    ]
}

fn lines(endpoint: &Endpoint, count: usize, prompt_len: usize) -> Vec<(String, BuiltRequest)> {
    let messages = [Message::system("Be brief."), Message::user("x".repeat(prompt_len))];
    (0..count)
        .map(|i| {
            let built = build_request(endpoint, Some(KEY), &GenerationParams::default(), &messages, 1).unwrap();
            (custom_id(i, 0), built)
        })
        .collect()
}

#[test]
fn custom_ids_round_trip_and_nothing_else_parses() {
    for (sample, answer) in [(0, 0), (7, 3), (799, 4), (123_456, 0)] {
        let id = custom_id(sample, answer);
        assert!(id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{id}");
        assert_eq!(parse_custom_id(&id), Some((sample, answer)), "{id}");
    }
    for bad in ["", "s-a1", "s1-a", "x1-a0", "s1_a0", "s1-a0x", "s+1-a0", "s1-a-1", "s99999999999999999999999-a0"] {
        assert_eq!(parse_custom_id(bad), None, "{bad}");
    }
}

/// Each provider's input holds the very body a live run sends, in its own envelope, and no key.
#[test]
fn inputs_carry_the_live_bodies_in_each_providers_shape() {
    for (wire, ep) in endpoints() {
        let lines = lines(&ep, 3, 10);
        let inputs = batch_inputs(&ep, &lines).unwrap();
        assert_eq!(inputs.len(), 1, "{wire:?}");
        let input = &inputs[0];
        assert_eq!(input.custom_ids, ["s0-a0", "s1-a0", "s2-a0"], "{wire:?}");
        assert!(!input.payload.contains(KEY), "{wire:?}");
        let live: Value = serde_json::from_str(&lines[1].1.http.body).unwrap();
        let item: Value = match wire {
            WireFormat::OpenAiChat => {
                let rows: Vec<Value> = input.payload.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                assert_eq!(rows.len(), 3);
                assert_eq!(
                    (rows[1]["method"].as_str(), rows[1]["url"].as_str()),
                    (Some("POST"), Some("/v1/chat/completions"))
                );
                assert_eq!(rows[1]["custom_id"], "s1-a0");
                rows[1]["body"].clone()
            }
            WireFormat::Anthropic => {
                let v: Value = serde_json::from_str(&input.payload).unwrap();
                assert_eq!(v["requests"][1]["custom_id"], "s1-a0");
                v["requests"][1]["params"].clone()
            }
            WireFormat::Gemini => {
                let v: Value = serde_json::from_str(&input.payload).unwrap();
                let item = &v["batch"]["inputConfig"]["requests"]["requests"][1];
                assert_eq!(item["metadata"]["key"], "s1-a0");
                assert_eq!(v["batch"]["displayName"], "execbench gemini-2.5-flash");
                item["request"].clone()
            }
        };
        assert_eq!(item, live, "{wire:?}");
    }
}

/// Split by requests and by bytes; one line larger than a batch, or an id twice, is an error.
#[test]
fn inputs_are_split_by_each_limit() {
    // (requests, max_requests, max_bytes as a multiple of one line, expected sizes)
    let cases: [(usize, usize, f64, &[usize]); 5] = [
        (5, 100, 100.0, &[5]),
        (5, 2, 100.0, &[2, 2, 1]),
        (6, 100, 2.5, &[2, 2, 2]),
        (7, 3, 2.5, &[2, 2, 2, 1]),
        (0, 3, 2.5, &[]),
    ];
    for (wire, ep) in endpoints() {
        // A line's bytes, and the envelope's, measured on inputs of one and two lines.
        let size = |count| {
            let all = BatchLimits { max_requests: usize::MAX, max_bytes: usize::MAX };
            batch_inputs_within(&ep, &lines(&ep, count, 50), all).unwrap()[0].payload.len()
        };
        let one = size(2) - size(1);
        let overhead = size(1) - one;
        for (count, max_requests, bytes_per_line, sizes) in cases {
            let limits = BatchLimits { max_requests, max_bytes: overhead + (one as f64 * bytes_per_line) as usize };
            let inputs = batch_inputs_within(&ep, &lines(&ep, count, 50), limits).unwrap();
            let got: Vec<usize> = inputs.iter().map(|i| i.custom_ids.len()).collect();
            assert_eq!(got, sizes, "{wire:?} {count} lines, at most {max_requests}, {bytes_per_line} lines of bytes");
            assert!(inputs.iter().all(|i| i.payload.len() <= limits.max_bytes), "{wire:?}");
            let all: Vec<String> = inputs.iter().flat_map(|i| i.custom_ids.clone()).collect();
            assert_eq!(
                all,
                (0..count).map(|i| custom_id(i, 0)).collect::<Vec<_>>(),
                "{wire:?}: every line once, in order"
            );
        }
        let big = batch_inputs_within(&ep, &lines(&ep, 1, 5000), BatchLimits { max_requests: 10, max_bytes: 1000 });
        assert!(big.unwrap_err().contains("s0-a0 alone is"), "{wire:?}");
        let mut twice = lines(&ep, 2, 5);
        twice[1].0 = twice[0].0.clone();
        assert_eq!(batch_inputs(&ep, &twice).unwrap_err(), "batch: custom id s0-a0 appears twice");
    }
    let azure = endpoint("azure", "https://r.openai.azure.com/openai/deployments/d", "d");
    assert!(batch_inputs(&azure, &[]).unwrap_err().contains("Azure"));
}

/// The calls: method, URL, the key in its header only.
#[test]
fn calls_go_to_each_providers_batch_routes() {
    let status = |id: &str, files: &[&str]| BatchStatus {
        id: id.into(),
        phase: BatchPhase::Completed,
        provider_state: "x".into(),
        total: 1,
        succeeded: 1,
        failed: 0,
        result_files: files.iter().map(|f| f.to_string()).collect(),
        reason: None,
    };
    let input = BatchInput { custom_ids: vec!["s0-a0".into()], payload: "{\"requests\":[]}".into() };
    let [(_, openai), (_, anthropic), (_, gemini)] = endpoints();
    let cases: Vec<(HttpRequest, &str, &str)> = vec![
        (upload_request(&openai, Some(KEY), &input).unwrap().unwrap(), "POST", "https://api.openai.com/v1/files"),
        (
            create_request(&openai, Some(KEY), &input, Some("file-abc")).unwrap(),
            "POST",
            "https://api.openai.com/v1/batches",
        ),
        (status_request(&openai, Some(KEY), "batch_1").unwrap(), "GET", "https://api.openai.com/v1/batches/batch_1"),
        (
            cancel_request(&openai, Some(KEY), "batch_1").unwrap(),
            "POST",
            "https://api.openai.com/v1/batches/batch_1/cancel",
        ),
        (
            results_requests(&openai, Some(KEY), &status("batch_1", &["file-o", "file-e"])).unwrap()[1].clone(),
            "GET",
            "https://api.openai.com/v1/files/file-e/content",
        ),
        (
            create_request(&anthropic, Some(KEY), &input, None).unwrap(),
            "POST",
            "https://api.anthropic.com/v1/messages/batches",
        ),
        (
            status_request(&anthropic, Some(KEY), "msgbatch_1").unwrap(),
            "GET",
            "https://api.anthropic.com/v1/messages/batches/msgbatch_1",
        ),
        (
            cancel_request(&anthropic, Some(KEY), "msgbatch_1").unwrap(),
            "POST",
            "https://api.anthropic.com/v1/messages/batches/msgbatch_1/cancel",
        ),
        (
            results_requests(&anthropic, Some(KEY), &status("msgbatch_1", &[])).unwrap()[0].clone(),
            "GET",
            "https://api.anthropic.com/v1/messages/batches/msgbatch_1/results",
        ),
        (
            create_request(&gemini, Some(KEY), &input, None).unwrap(),
            "POST",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:batchGenerateContent",
        ),
        (
            status_request(&gemini, Some(KEY), "batches/b1").unwrap(),
            "GET",
            "https://generativelanguage.googleapis.com/v1beta/batches/b1",
        ),
        (
            cancel_request(&gemini, Some(KEY), "batches/b1").unwrap(),
            "POST",
            "https://generativelanguage.googleapis.com/v1beta/batches/b1:cancel",
        ),
        (
            results_requests(&gemini, Some(KEY), &status("batches/b1", &[])).unwrap()[0].clone(),
            "GET",
            "https://generativelanguage.googleapis.com/v1beta/batches/b1",
        ),
    ];
    for (request, method, url) in &cases {
        assert_eq!((request.method.as_str(), request.url.as_str()), (*method, *url));
        assert!(!request.url.contains(KEY) && !request.body.contains(KEY), "{url}");
        assert_eq!(
            request.headers.iter().filter(|(_, v)| v.contains(KEY)).count(),
            1,
            "{url}: the key once, in a header"
        );
    }
    let upload = &cases[0].0;
    assert!(upload.headers[0].1.starts_with("multipart/form-data; boundary="));
    assert!(upload.body.contains("name=\"purpose\"\r\n\r\nbatch\r\n") && upload.body.contains("{\"requests\":[]}"));
    let create: Value = serde_json::from_str(&cases[1].0.body).unwrap();
    assert_eq!(
        create,
        json!({"input_file_id": "file-abc", "endpoint": "/v1/chat/completions", "completion_window": "24h"})
    );
    assert!(cases[5].0.headers.iter().any(|(k, v)| k == "anthropic-version" && v == "2023-06-01"));
    // Ids from a provider never steer a URL elsewhere.
    for bad in ["../files", "a/b", "batch 1", "", "batches/../x"] {
        assert!(status_request(&openai, None, bad).is_err(), "{bad}");
    }
    assert!(create_request(&openai, None, &input, None).is_err(), "OpenAI needs the uploaded file");
}

/// Every provider's states and counts, read into one status.
#[test]
#[allow(clippy::type_complexity)] // a table of cases, one tuple a row
fn statuses_of_every_provider_read_alike() {
    use BatchPhase::*;
    // (wire, body, phase, total, succeeded, failed, result files)
    let cases: [(WireFormat, &str, BatchPhase, u64, u64, u64, &[&str]); 13] = [
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"validating","request_counts":{"total":0,"completed":0,"failed":0}}"#,
            Validating,
            0,
            0,
            0,
            &[],
        ),
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"in_progress","request_counts":{"total":10,"completed":4,"failed":1}}"#,
            InProgress,
            10,
            4,
            1,
            &[],
        ),
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"finalizing","request_counts":{"total":10,"completed":9,"failed":1}}"#,
            Finalizing,
            10,
            9,
            1,
            &[],
        ),
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"completed","output_file_id":"file-o","error_file_id":"file-e","request_counts":{"total":10,"completed":9,"failed":1}}"#,
            Completed,
            10,
            9,
            1,
            &["file-o", "file-e"],
        ),
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"expired","output_file_id":"file-o","error_file_id":null,"request_counts":{"total":10,"completed":6,"failed":0}}"#,
            Expired,
            10,
            6,
            0,
            &["file-o"],
        ),
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"failed","errors":{"data":[{"code":"invalid_json_line","message":"line 3 is not JSON"}]},"request_counts":{"total":0,"completed":0,"failed":0}}"#,
            Failed,
            0,
            0,
            0,
            &[],
        ),
        (
            WireFormat::OpenAiChat,
            r#"{"id":"batch_1","status":"cancelling","request_counts":{"total":3,"completed":1,"failed":0}}"#,
            Cancelling,
            3,
            1,
            0,
            &[],
        ),
        (
            WireFormat::Anthropic,
            r#"{"id":"msgbatch_1","processing_status":"in_progress","request_counts":{"processing":7,"succeeded":3,"errored":0,"canceled":0,"expired":0}}"#,
            InProgress,
            10,
            3,
            0,
            &[],
        ),
        (
            WireFormat::Anthropic,
            r#"{"id":"msgbatch_1","processing_status":"ended","request_counts":{"processing":0,"succeeded":8,"errored":2,"canceled":0,"expired":0}}"#,
            Completed,
            10,
            8,
            2,
            &[],
        ),
        (
            WireFormat::Anthropic,
            r#"{"id":"msgbatch_1","processing_status":"ended","request_counts":{"processing":0,"succeeded":8,"errored":0,"canceled":0,"expired":2}}"#,
            Expired,
            10,
            8,
            2,
            &[],
        ),
        (
            WireFormat::Anthropic,
            r#"{"id":"msgbatch_1","processing_status":"ended","request_counts":{"processing":0,"succeeded":1,"errored":0,"canceled":9,"expired":0}}"#,
            Cancelled,
            10,
            1,
            9,
            &[],
        ),
        (
            WireFormat::Gemini,
            r#"{"name":"batches/b1","metadata":{"@type":"x","state":"BATCH_STATE_RUNNING","batchStats":{"requestCount":"10","pendingRequestCount":"6","successfulRequestCount":"4"}},"done":false}"#,
            InProgress,
            10,
            4,
            0,
            &[],
        ),
        (
            WireFormat::Gemini,
            r#"{"name":"batches/b1","state":"JOB_STATE_SUCCEEDED","batchStats":{"requestCount":"10","successfulRequestCount":"9","failedRequestCount":"1"}}"#,
            Completed,
            10,
            9,
            1,
            &[],
        ),
    ];
    for (wire, body, phase, total, succeeded, failed, files) in cases {
        let s = parse_status(wire, 200, &[], body).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!((s.phase, s.total, s.succeeded, s.failed), (phase, total, succeeded, failed), "{body}");
        assert_eq!(s.result_files, files, "{body}");
        assert_eq!(s.pending(), total - succeeded - failed);
    }
    let failed = parse_status(WireFormat::OpenAiChat, 200, &[], cases[5].1).unwrap();
    assert_eq!(failed.reason.as_deref(), Some("line 3 is not JSON"));
    // A polite poll: the provider's 429 and its Retry-After come back as an error to wait on.
    let limited = parse_status(
        WireFormat::OpenAiChat,
        429,
        &[("retry-after".into(), "30".into())],
        r#"{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}"#,
    )
    .unwrap_err();
    assert_eq!((limited.kind, limited.retry_after_ms), (ErrorKind::RateLimited, Some(30_000)));
    for (wire, body) in [
        (WireFormat::OpenAiChat, r#"{"id":"b","status":"sleeping"}"#),
        (WireFormat::Anthropic, r#"{"id":"b","processing_status":"ended"}"#),
        (WireFormat::Gemini, r#"{"name":"batches/b"}"#),
        (WireFormat::OpenAiChat, r#"{"id":"../x","status":"completed"}"#),
        (WireFormat::Gemini, "not json"),
    ] {
        assert_eq!(parse_status(wire, 200, &[], body).unwrap_err().kind, ErrorKind::Unreadable, "{body}");
    }
}

/// What one result line becomes: (custom id, texts or the error kind and words of the reason).
type Expected<'a> = (&'a str, Result<(&'a [&'a str], u64, u64), (ErrorKind, &'a str)>);

fn check_results(wire: WireFormat, body: &str, ids: &[String], expected: &[Expected]) {
    let got = parse_results(wire, body, ids);
    assert_eq!(got.len(), expected.len(), "{wire:?}: {got:?}");
    for (result, (id, want)) in got.iter().zip(expected) {
        let result = result.as_ref().unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        assert_eq!(result.custom_id, *id, "{wire:?}");
        match (&result.outcome, want) {
            (Ok(c), Ok((texts, prompt, completion))) => {
                assert_eq!(c.texts, *texts, "{wire:?} {id}");
                assert_eq!((c.usage.prompt_tokens, c.usage.completion_tokens), (*prompt, *completion), "{wire:?} {id}");
            }
            (Err(e), Err((kind, words))) => {
                assert_eq!(e.kind, *kind, "{wire:?} {id}: {e}");
                assert!(e.to_string().contains(words), "{wire:?} {id}: {e}");
            }
            (got, want) => panic!("{wire:?} {id}: got {got:?}, wanted {want:?}"),
        }
    }
}

#[test]
fn openai_results_in_any_order_with_errors_and_expired_lines() {
    let body = [
        r#"{"id":"r2","custom_id":"s2-a0","response":{"status_code":200,"body":{"choices":[{"index":0,"message":{"content":"B"},"finish_reason":"stop"},{"index":1,"message":{"content":"B2"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":3}}},"error":null}"#,
        r#"{"id":"r0","custom_id":"s0-a0","response":{"status_code":200,"body":{"choices":[{"index":0,"message":{"content":"A"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1}}},"error":null}"#,
        r#"{"id":"r1","custom_id":"s1-a0","response":{"status_code":400,"body":{"error":{"message":"max_tokens is too large","type":"invalid_request_error","code":null}}},"error":null}"#,
        "",
        r#"{"id":"r3","custom_id":"s3-a0","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#,
        r#"{"id":"r4","custom_id":"s4-a0","response":null,"error":{"code":"batch_cancelled","message":"cancelled"}}"#,
    ]
    .join("\n");
    check_results(
        WireFormat::OpenAiChat,
        &body,
        &[],
        &[
            ("s2-a0", Ok((&["B", "B2"], 11, 3))),
            ("s0-a0", Ok((&["A"], 10, 1))),
            ("s1-a0", Err((ErrorKind::BadRequest, "max_tokens is too large"))),
            ("s3-a0", Err((ErrorKind::Timeout, "expired"))),
            ("s4-a0", Err((ErrorKind::Timeout, "cancelled"))),
        ],
    );
    let bad = parse_results(WireFormat::OpenAiChat, "{\"custom_id\":\"s0-a0\"}\nnot json\n", &[]);
    assert_eq!(bad[0].as_ref().unwrap_err(), "results line 1: not a batch result: {\"custom_id\":\"s0-a0\"}");
    assert!(bad[1].as_ref().unwrap_err().starts_with("results line 2: not JSON"));
}

#[test]
fn anthropic_results_of_every_type() {
    let body = [
        r#"{"custom_id":"s1-a0","result":{"type":"succeeded","message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"[ANSWER]"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":5}}}}"#,
        r#"{"custom_id":"s0-a0","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}}}"#,
        r#"{"custom_id":"s2-a0","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}}"#,
        r#"{"custom_id":"s3-a0","result":{"type":"canceled"}}"#,
        r#"{"custom_id":"s4-a0","result":{"type":"expired"}}"#,
    ]
    .join("\n");
    check_results(
        WireFormat::Anthropic,
        &body,
        &[],
        &[
            ("s1-a0", Ok((&["[ANSWER]"], 20, 5))),
            ("s0-a0", Err((ErrorKind::BadRequest, "prompt is too long"))),
            ("s2-a0", Err((ErrorKind::Overloaded, "Overloaded"))),
            ("s3-a0", Err((ErrorKind::Timeout, "cancelled"))),
            ("s4-a0", Err((ErrorKind::Timeout, "expired"))),
        ],
    );
}

#[test]
fn gemini_inline_results_by_key_or_by_position() {
    let ids: Vec<String> = (0..3).map(|i| custom_id(i, 0)).collect();
    let body = r#"{"name":"batches/b1","metadata":{"state":"BATCH_STATE_SUCCEEDED"},"done":true,"response":{"@type":"x","inlinedResponses":{"inlinedResponses":[
        {"response":{"candidates":[{"content":{"parts":[{"text":"one"}]},"finishReason":"STOP","index":0},{"content":{"parts":[{"text":"two"}]},"finishReason":"STOP","index":1}],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":4}},"metadata":{"key":"s2-a0"}},
        {"response":{"candidates":[{"content":{"parts":[{"text":"zero"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":6,"candidatesTokenCount":2}}},
        {"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"},"metadata":{"key":"s0-a0"}}
    ]}}}"#;
    check_results(
        WireFormat::Gemini,
        body,
        &ids,
        &[
            ("s2-a0", Ok((&["one", "two"], 7, 4))),
            ("s1-a0", Ok((&["zero"], 6, 2))),
            ("s0-a0", Err((ErrorKind::RateLimited, "Resource exhausted"))),
        ],
    );
    assert!(parse_results(WireFormat::Gemini, r#"{"name":"batches/b1"}"#, &ids)[0].is_err());
}
