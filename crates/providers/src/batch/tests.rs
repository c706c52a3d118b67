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
            let all = BatchLimits { max_requests: usize::MAX, max_bytes: usize::MAX, file_bytes: None };
            batch_inputs_within(&ep, &lines(&ep, count, 50), all).unwrap()[0].payload.len()
        };
        let one = size(2) - size(1);
        let overhead = size(1) - one;
        for (count, max_requests, bytes_per_line, sizes) in cases {
            let max_bytes = overhead + (one as f64 * bytes_per_line) as usize;
            let limits = BatchLimits { max_requests, max_bytes, file_bytes: None };
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
        let big = batch_inputs_within(
            &ep,
            &lines(&ep, 1, 5000),
            BatchLimits { max_requests: 10, max_bytes: 1000, file_bytes: None },
        );
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
    let input = BatchInput { custom_ids: vec!["s0-a0".into()], payload: "{\"requests\":[]}".into(), file: true };
    let inline = BatchInput { file: false, ..input.clone() };
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
            create_request(&gemini, Some(KEY), &inline, None).unwrap(),
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
        (
            upload_request(&gemini, Some(KEY), &input).unwrap().unwrap(),
            "POST",
            "https://generativelanguage.googleapis.com/upload/v1beta/files",
        ),
        (
            create_request(&gemini, Some(KEY), &input, Some("files/in1")).unwrap(),
            "POST",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:batchGenerateContent",
        ),
        (
            results_requests(&gemini, Some(KEY), &status("batches/b1", &["files/out1"])).unwrap()[0].clone(),
            "GET",
            "https://generativelanguage.googleapis.com/download/v1beta/files/out1:download?alt=media",
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
    assert!(cases[5].0.headers.iter().any(|(k, v)| k == "anthropic-version" && v == crate::request::ANTHROPIC_VERSION));
    // Ids from a provider never steer a URL elsewhere.
    for bad in ["../files", "a/b", "batch 1", "", "batches/../x"] {
        assert!(status_request(&openai, None, bad).is_err(), "{bad}");
    }
    assert!(create_request(&openai, None, &input, None).is_err(), "OpenAI needs the uploaded file");
    // Gemini's file: the resumable start declares the bytes; the batch names the file.
    let start = &cases[13].0;
    let said = |name: &str| start.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    assert_eq!(said("x-goog-upload-protocol"), Some("resumable"));
    assert_eq!(said("x-goog-upload-command"), Some("start"));
    assert_eq!(said("x-goog-upload-header-content-length"), Some(input.payload.len().to_string().as_str()));
    assert_eq!(said("x-goog-upload-header-content-type"), Some("application/jsonl"));
    let create: Value = serde_json::from_str(&cases[14].0.body).unwrap();
    assert_eq!(create["batch"]["inputConfig"], json!({"fileName": "files/in1"}));
    assert!(create_request(&gemini, None, &input, None).is_err(), "a Gemini file needs its name");
    assert!(upload_request(&gemini, None, &inline).unwrap().is_none(), "inline: nothing to upload");
    assert!(upload_request(&anthropic, None, &inline).unwrap().is_none());
    // The Files API sits beside the version: a base URL without one cannot say where.
    let versionless = endpoint("gemini", "https://gemini.example.com", "m");
    assert!(upload_request(&versionless, None, &input).unwrap_err().contains("…/v1beta"));
    let proxied = endpoint("gemini", "https://proxy.example.com/google/v1beta/", "m");
    assert_eq!(
        upload_request(&proxied, None, &input).unwrap().unwrap().url,
        "https://proxy.example.com/google/upload/v1beta/files"
    );
    for bad in ["files/../x", "files/a/b", "batches/b1"] {
        assert!(results_requests(&gemini, None, &status("batches/b1", &[bad])).is_err(), "{bad}");
    }
}

/// Every provider's states and counts, read into one status.
#[test]
#[allow(clippy::type_complexity)] // a table of cases, one tuple a row
fn statuses_of_every_provider_read_alike() {
    use BatchPhase::*;
    // (wire, body, phase, total, succeeded, failed, result files)
    let cases: [(WireFormat, &str, BatchPhase, u64, u64, u64, &[&str]); 15] = [
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
        // A batch made from an input file names its responses file: in the operation's
        // response, or in the batch's output.
        (
            WireFormat::Gemini,
            r#"{"name":"batches/b1","metadata":{"state":"BATCH_STATE_SUCCEEDED","batchStats":{"requestCount":"3","successfulRequestCount":"3"}},"done":true,"response":{"@type":"x","responsesFile":"files/out1"}}"#,
            Completed,
            3,
            3,
            0,
            &["files/out1"],
        ),
        (
            WireFormat::Gemini,
            r#"{"name":"batches/b1","state":"BATCH_STATE_EXPIRED","output":{"responsesFile":"files/out2"},"batchStats":{"requestCount":"3","successfulRequestCount":"1"}}"#,
            Expired,
            3,
            1,
            0,
            &["files/out2"],
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

/// Gemini's lines go inline while they all fit in one inline batch, else as input files of
/// `{key, request}` lines, split only by the file limit; without a file limit (a client that
/// cannot upload), several inline batches.
#[test]
fn gemini_goes_as_a_file_beyond_its_inline_limit() {
    let [_, _, (_, ep)] = endpoints();
    let all = BatchLimits { max_requests: usize::MAX, max_bytes: usize::MAX, file_bytes: None };
    let inline_size = |count| batch_inputs_within(&ep, &lines(&ep, count, 50), all).unwrap()[0].payload.len();
    let file_size = |count| {
        let limits = BatchLimits { max_bytes: 0, file_bytes: Some(usize::MAX), ..all };
        batch_inputs_within(&ep, &lines(&ep, count, 50), limits).unwrap()[0].payload.len()
    };
    let inline_line = inline_size(2) - inline_size(1);
    let overhead = inline_size(1) - inline_line;
    let file_line = file_size(1);
    assert_eq!(file_size(3), 3 * file_line);
    // (lines, inline bytes in lines, file bytes in lines (None: no file), expected (file?, sizes))
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    let cases: [(usize, f64, Option<f64>, (bool, &[usize])); 6] = [
        (4, 4.5, Some(100.0), (false, &[4])),
        (4, 4.2, Some(100.0), (false, &[4])),
        (5, 4.5, Some(100.0), (true, &[5])),
        (7, 4.5, Some(3.0), (true, &[3, 3, 1])),
        (5, 4.5, None, (false, &[4, 1])),
        (1, 0.5, Some(2.0), (true, &[1])),
    ];
    for (count, inline, file, (as_file, sizes)) in cases {
        let limits = BatchLimits {
            max_requests: usize::MAX,
            max_bytes: overhead + (inline_line as f64 * inline) as usize,
            file_bytes: file.map(|f| (file_line as f64 * f) as usize),
        };
        let inputs = batch_inputs_within(&ep, &lines(&ep, count, 50), limits).unwrap();
        let got: Vec<usize> = inputs.iter().map(|i| i.custom_ids.len()).collect();
        assert_eq!(got, sizes, "{count} lines, {inline} inline, {file:?} file");
        assert!(inputs.iter().all(|i| i.file == as_file), "{count} lines, {inline} inline, {file:?} file");
        let ids: Vec<String> = inputs.iter().flat_map(|i| i.custom_ids.clone()).collect();
        assert_eq!(ids, (0..count).map(|i| custom_id(i, 0)).collect::<Vec<_>>());
        if as_file {
            let live: Value = serde_json::from_str(&lines(&ep, 1, 50)[0].1.http.body).unwrap();
            for input in &inputs {
                assert!(input.payload.ends_with('\n') && !input.payload.contains(KEY));
                for (line, id) in input.payload.lines().zip(&input.custom_ids) {
                    let v: Value = serde_json::from_str(line).unwrap();
                    assert_eq!((&v["key"], &v["request"]), (&json!(id), &live), "{line}");
                }
            }
        }
    }
    // Without a file, the same lines as inline batches (what a browser that cannot upload sends).
    let many = lines(&ep, 5, 50);
    assert!(inline_inputs(&ep, &many).unwrap().iter().all(|i| !i.file));
    // The documented limits, with their margins.
    let gemini = batch_limits(WireFormat::Gemini);
    assert_eq!((GEMINI_INLINE_LIMIT_20_MB, GEMINI_FILE_LIMIT_2_GB), (20_000_000, 2_000_000_000));
    assert!(gemini.max_bytes < GEMINI_INLINE_LIMIT_20_MB && gemini.file_bytes < Some(GEMINI_FILE_LIMIT_2_GB));
}

/// Gemini's resumable upload: the start's answer gives the address for the bytes, which must be
/// on the base URL's origin; the bytes go there without the key; the last answer is the file.
#[test]
fn gemini_uploads_in_two_calls_to_the_origin_the_user_confirmed() {
    let [_, _, (_, ep)] = endpoints();
    let input = BatchInput { custom_ids: vec!["s0-a0".into()], payload: "{\"key\":\"s0-a0\"}\n".into(), file: true };
    let here =
        "https://generativelanguage.googleapis.com/upload/v1beta/files?upload_id=AB-12&upload_protocol=resumable";
    let with = |url: &str| vec![("X-Goog-Upload-URL".to_string(), url.to_string())];
    enum Want {
        Next(&'static str),
        File(&'static str),
        Fails(ErrorKind, &'static str),
    }
    // (status, headers, body, what it leads to)
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    let cases: Vec<(u16, Vec<(String, String)>, &str, Want)> = vec![
        (200, with(here), "{}", Want::Next(here)),
        (
            200,
            with("https://upload.evil.example/upload?upload_id=1"),
            "",
            Want::Fails(ErrorKind::BadRequest, "refused"),
        ),
        (200, with("http://generativelanguage.googleapis.com/u"), "", Want::Fails(ErrorKind::BadRequest, "refused")),
        // A backslash ends the host: this is upload.evil.example to fetch and reqwest.
        (
            200,
            with("https://upload.evil.example\\@generativelanguage.googleapis.com/upload?upload_id=1"),
            "",
            Want::Fails(ErrorKind::BadRequest, "upload.evil.example"),
        ),
        (
            200,
            with("https://generativelanguage.googleapis.com:8443/u"),
            "",
            Want::Fails(ErrorKind::BadRequest, "refused"),
        ),
        (200, vec![], "{}", Want::Fails(ErrorKind::Blocked, "x-goog-upload-url")),
        (200, vec![], r#"{"file":{"name":"files/abc-1","state":"ACTIVE"}}"#, Want::File("files/abc-1")),
        (200, vec![], r#"{"file":{"name":"files/../x"}}"#, Want::Fails(ErrorKind::Unreadable, "files/ID")),
        (200, vec![], r#"{"file":{"name":"batches/x"}}"#, Want::Fails(ErrorKind::Unreadable, "files/ID")),
        (
            403,
            vec![],
            r#"{"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}}"#,
            Want::Fails(ErrorKind::Forbidden, "Permission denied"),
        ),
    ];
    for (status, headers, body, want) in cases {
        let got = parse_upload(&ep, &input, status, &headers, body);
        match (got, want) {
            (Ok(Uploaded::Next(request)), Want::Next(url)) => {
                assert_eq!((request.method.as_str(), request.url.as_str()), ("POST", url));
                assert_eq!(request.body, input.payload);
                let said = |name: &str| request.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
                assert_eq!(said("x-goog-upload-command").as_deref(), Some("upload, finalize"));
                assert_eq!(said("x-goog-upload-offset").as_deref(), Some("0"));
                assert!(said("x-goog-api-key").is_none(), "the bytes go without the key");
            }
            (Ok(Uploaded::File(name)), Want::File(want)) => assert_eq!(name, want),
            (Err(e), Want::Fails(kind, words)) => {
                assert_eq!(e.kind, kind, "{status} {body}: {e}");
                assert!(e.to_string().contains(words), "{status} {body}: {e}");
            }
            (got, _) => panic!("{status} {headers:?} {body}: got {got:?}"),
        }
    }
    // OpenAI's one upload answers with the file.
    let [(_, openai), ..] = endpoints();
    assert_eq!(parse_upload(&openai, &input, 200, &[], r#"{"id":"file-1"}"#).unwrap(), Uploaded::File("file-1".into()));
}

/// A responses file: one `{key, response | error}` line per request, in any order, matched by
/// key (by position only for a line without one).
#[test]
fn gemini_results_file_lines_by_key() {
    let ids: Vec<String> = (0..4).map(|i| custom_id(i, 0)).collect();
    let body = [
        r#"{"key":"s3-a0","response":{"candidates":[{"content":{"parts":[{"text":"three"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}}"#,
        "",
        r#"{"key":"s0-a0","error":{"code":500,"message":"Internal error","status":"INTERNAL"}}"#,
        r#"{"response":{"candidates":[{"content":{"parts":[{"text":"by place"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":6,"candidatesTokenCount":2}}}"#,
        r#"{"key":"s1-a0","error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}"#,
    ]
    .join("\n");
    check_results(
        WireFormat::Gemini,
        &body,
        &ids,
        &[
            ("s3-a0", Ok((&["three"], 5, 1))),
            ("s0-a0", Err((ErrorKind::ServerError, "Internal error"))),
            // The third line (of results): the third request.
            ("s2-a0", Ok((&["by place"], 6, 2))),
            ("s1-a0", Err((ErrorKind::BadRequest, "invalid argument"))),
        ],
    );
    let bad = parse_results(WireFormat::Gemini, "{\"key\":\"s0-a0\"}\n{broken\n", &ids);
    assert!(bad[0].as_ref().unwrap_err().contains("neither response nor error"), "{bad:?}");
    assert!(bad[1].as_ref().unwrap_err().starts_with("Gemini results file line 2: not JSON"), "{bad:?}");
}
