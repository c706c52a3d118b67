//! Generated batch answers (results files, status and upload bodies) of each provider, written as
//! the providers write them: each reads back to the ids, texts, states and counts put in, with
//! unknown fields ignored. One damaged line of a results file is named by its number and costs
//! only its own result; garbage gives a named error, never a panic.

use execbench_proptest_cases::cases;
use execbench_providers::batch::{custom_id, parse_custom_id, parse_file_id, parse_results, parse_status};
use execbench_providers::{BatchPhase, ErrorKind, WireFormat};
use proptest::prelude::*;
use serde_json::{Value, json};

/// One line's answer: a completion's text, or an error.
#[derive(Clone, Debug)]
struct Line {
    sample: usize,
    answer: u32,
    text: Option<String>,
    /// An unknown field the provider might add one day: it must not matter.
    extra: Option<(String, Value)>,
}

fn extra() -> impl Strategy<Value = Option<(String, Value)>> {
    proptest::option::of((
        "x_[a-z]{1,8}",
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            "\\PC{0,10}".prop_map(Value::from),
            Just(json!({"nested": [1, {"a": "b"}]})),
        ],
    ))
}

fn lines() -> impl Strategy<Value = Vec<Line>> {
    proptest::collection::vec(
        (0..100_000usize, 0..8u32, proptest::option::weighted(0.8, "\\PC{0,39}[a-zA-Z0-9]"), extra())
            .prop_map(|(sample, answer, text, extra)| Line { sample, answer, text, extra }),
        1..8,
    )
}

fn with_extra(mut v: Value, extra: &Option<(String, Value)>) -> Value {
    if let Some((k, x)) = extra {
        v.as_object_mut().unwrap().insert(k.clone(), x.clone());
    }
    v
}

/// A results line as OpenAI's output/error files and Anthropic's results hold it.
fn result_line(wire: WireFormat, line: &Line) -> String {
    let id = custom_id(line.sample, line.answer);
    let v = match (wire, &line.text) {
        (WireFormat::Gemini, _) => gemini_item(line, json!({"key": id})),
        (WireFormat::Anthropic, Some(text)) => json!({"custom_id": id, "result": {"type": "succeeded", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 3, "output_tokens": 2}}}}),
        (WireFormat::Anthropic, None) => json!({"custom_id": id, "result": {"type": "errored", "error": {
            "type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}}}),
        (_, Some(text)) => json!({"id": "batch_req_1", "custom_id": id, "error": null, "response": {
            "status_code": 200, "request_id": "r", "body": {"id": "c", "object": "chat.completion", "model": "gpt",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}}}),
        (_, None) => json!({"id": "batch_req_1", "custom_id": id, "response": null,
            "error": {"code": "server_error", "message": "bad"}}),
    };
    with_extra(v, &line.extra).to_string()
}

/// One Gemini result as its responses file and its inline responses hold it: `response` (a
/// `generateContent` answer) or `error` (a `google.rpc.Status`), beside where its key goes.
fn gemini_item(line: &Line, mut keyed: Value) -> Value {
    let outcome = match &line.text {
        Some(text) => json!({"response": {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2,
            "totalTokenCount": 5}, "modelVersion": "gemini"}}),
        None => json!({"error": {"code": 500, "message": "bad", "status": "INTERNAL"}}),
    };
    keyed.as_object_mut().unwrap().extend(outcome.as_object().unwrap().clone());
    keyed
}

/// A Gemini batch whose answers came back inline: the operation `batches.get` returns, the batch
/// in its `metadata`, each result keyed in its own `metadata`.
fn gemini_inline_batch(lines: &[Line], in_response: bool) -> String {
    let responses: Vec<Value> = lines
        .iter()
        .map(|l| with_extra(gemini_item(l, json!({"metadata": {"key": custom_id(l.sample, l.answer)}})), &l.extra))
        .collect();
    let output = json!({"inlinedResponses": {"inlinedResponses": responses}});
    // Both places an operation carries the output: the batch's own, and the operation's response.
    if in_response {
        json!({"name": "batches/b1", "done": true, "metadata": {"state": "BATCH_STATE_SUCCEEDED"}, "response": output})
    } else {
        json!({"name": "batches/b1", "done": true, "metadata": {"state": "BATCH_STATE_SUCCEEDED", "output": output}})
    }
    .to_string()
}

fn wire() -> impl Strategy<Value = WireFormat> {
    prop_oneof![Just(WireFormat::OpenAiChat), Just(WireFormat::Anthropic), Just(WireFormat::Gemini)]
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn custom_ids_round_trip(sample in any::<usize>(), answer in any::<u32>()) {
        prop_assert_eq!(parse_custom_id(&custom_id(sample, answer)), Some((sample, answer)));
    }

    #[test]
    fn a_parsed_custom_id_is_one_custom_id_would_write(id in "s?[0-9]{0,4}(-a)?[0-9]{0,4}|\\PC{0,12}") {
        // A leading zero is the only spelling two texts share; without it, the text is the id.
        if let Some((sample, answer)) = parse_custom_id(&id)
            && !id.contains("s0") && !id.contains("-a0")
        {
            prop_assert_eq!(custom_id(sample, answer), id);
        }
    }

    #[test]
    fn results_read_back_line_by_line(
        wire in wire(),
        lines in lines(),
        crlf in any::<bool>(),
        inline in proptest::option::of(any::<bool>()),
    ) {
        let body = if let (WireFormat::Gemini, Some(in_response)) = (wire, inline) {
            gemini_inline_batch(&lines, in_response)
        } else {
            lines.iter().map(|l| result_line(wire, l)).collect::<Vec<_>>().join(if crlf { "\r\n" } else { "\n" })
        };
        let read = parse_results(wire, &body, &[]);
        prop_assert_eq!(read.len(), lines.len());
        for (line, result) in lines.iter().zip(&read) {
            let result = result.as_ref().map_err(|e| TestCaseError::fail(e.clone()))?;
            prop_assert_eq!(&result.custom_id, &custom_id(line.sample, line.answer));
            match (&line.text, &result.outcome) {
                (Some(text), Ok(completion)) => prop_assert_eq!(&completion.texts, &vec![text.clone()]),
                (None, Err(_)) => {}
                (want, got) => prop_assert!(false, "{want:?} read as {got:?}"),
            }
        }
    }

    #[test]
    fn a_damaged_results_line_is_named_and_costs_only_itself(
        wire in wire(),
        lines in lines(),
        damaged in any::<prop::sample::Index>(),
        damage in prop_oneof![Just(0usize), Just(1), Just(2)],
    ) {
        let mut texts: Vec<String> = lines.iter().map(|l| result_line(wire, l)).collect();
        let at = damaged.index(texts.len());
        texts[at] = match damage {
            0 => texts[at].chars().take(texts[at].chars().count() / 2).collect(),
            1 => json!({"custom_id": 7, "result": "x"}).to_string(),
            _ => "[1, 2]".to_string(),
        };
        let read = parse_results(wire, &texts.join("\n"), &[]);
        prop_assert_eq!(read.len(), lines.len());
        for (i, result) in read.iter().enumerate() {
            if i == at {
                let error = result.as_ref().err().cloned().unwrap_or_default();
                // Gemini's file is read by its own reader, which names "results file line N".
                let named = match wire {
                    WireFormat::Gemini => [":", " "].iter().any(|end| error.contains(&format!("results file line {}{end}", at + 1))),
                    _ => error.starts_with(&format!("results line {}: ", at + 1)),
                };
                prop_assert!(named, "{error:?}");
            } else {
                prop_assert!(result.is_ok(), "line {}: {result:?}", i + 1);
            }
        }
    }

    #[test]
    fn garbage_results_are_named_errors(wire in prop_oneof![wire(), Just(WireFormat::Gemini)], body in "\\PC{0,200}") {
        let lines = body.lines().count();
        for result in parse_results(wire, &body, &["s0-a0".to_string()]) {
            if let Err(e) = result {
                // A line's number, within the body; Gemini's whole-batch errors name the batch.
                let prefix = if wire == WireFormat::Gemini { "Gemini results file line " } else { "results line " };
                let line = e.strip_prefix(prefix).and_then(|rest| rest.split_once(':')).and_then(|(n, _)| n.parse::<usize>().ok());
                prop_assert!(line.is_some_and(|n| (1..=lines).contains(&n)) || e.starts_with("Gemini batch results: "), "{e:?}");
            }
        }
    }

    #[test]
    fn statuses_read_back(
        id in "batch_[A-Za-z0-9]{1,20}",
        state in prop::sample::select(vec![
            ("validating", BatchPhase::Validating), ("in_progress", BatchPhase::InProgress),
            ("finalizing", BatchPhase::Finalizing), ("cancelling", BatchPhase::Cancelling),
            ("completed", BatchPhase::Completed), ("failed", BatchPhase::Failed),
            ("expired", BatchPhase::Expired), ("cancelled", BatchPhase::Cancelled),
        ]),
        counts in (0..1_000_000u64, 0..1_000_000u64, 0..1_000_000u64),
        output in proptest::option::of("file-[A-Za-z0-9]{1,12}"),
        extra in extra(),
    ) {
        let (total, completed, failed) = counts;
        let body = with_extra(json!({"id": id, "object": "batch", "status": state.0, "output_file_id": output,
            "request_counts": {"total": total, "completed": completed, "failed": failed}}), &extra).to_string();
        let status = parse_status(WireFormat::OpenAiChat, 200, &[], &body).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(&status.id, &id);
        prop_assert_eq!(status.phase, state.1);
        prop_assert_eq!(status.provider_state.as_str(), state.0);
        prop_assert_eq!((status.total, status.succeeded, status.failed), counts);
        prop_assert_eq!(status.result_files, output.into_iter().collect::<Vec<_>>());
    }

    #[test]
    fn anthropic_statuses_count_every_line(
        id in "msgbatch_[A-Za-z0-9]{1,20}",
        counts in proptest::collection::vec(0..100_000u64, 5),
        ended in any::<bool>(),
    ) {
        let body = json!({"id": id, "type": "message_batch", "processing_status": if ended { "ended" } else { "in_progress" },
            "request_counts": {"processing": counts[0], "succeeded": counts[1], "errored": counts[2],
                "canceled": counts[3], "expired": counts[4]}}).to_string();
        let status = parse_status(WireFormat::Anthropic, 200, &[], &body).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(status.total, counts.iter().sum::<u64>());
        prop_assert_eq!(status.succeeded, counts[1]);
        prop_assert_eq!(status.failed, counts[2] + counts[3] + counts[4]);
        prop_assert_eq!(status.pending(), counts[0]);
        prop_assert_eq!(status.phase.ended(), ended);
    }

    #[test]
    fn garbage_statuses_and_uploads_are_unreadable_not_panics(
        wire in prop_oneof![wire(), Just(WireFormat::Gemini)],
        body in prop_oneof!["\\PC{0,120}", Just("{\"id\": \"x y\", \"status\": \"completed\"}".to_string()), Just("{}".to_string())],
    ) {
        if let Err(e) = parse_status(wire, 200, &[], &body) {
            prop_assert_eq!(e.kind, ErrorKind::Unreadable);
            prop_assert!(e.message.contains("batch status") || e.message.contains("not a plain id"), "{}", e.message);
        }
        if let Err(e) = parse_file_id(200, &[], &body) {
            prop_assert_eq!(e.kind, ErrorKind::Unreadable);
            prop_assert!(e.message.contains("file id"), "{}", e.message);
        }
    }

    #[test]
    fn uploaded_file_ids_read_back(id in "file-[A-Za-z0-9_.-]{1,40}", extra in extra()) {
        let body = with_extra(json!({"id": id, "object": "file", "bytes": 10, "purpose": "batch"}), &extra).to_string();
        prop_assert_eq!(parse_file_id(200, &[], &body).map_err(|e| TestCaseError::fail(format!("{e:?}")))?, id);
    }
}
