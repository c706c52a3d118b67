//! The three wire formats: reading a request into one shape, and writing answers, streams and
//! errors in each format's shape.

use serde_json::{Value, json};

use crate::answer::token_count;

/// Which API a request came in on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
        }
    }
}

/// A model request, whatever its format.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    pub format: Format,
    pub model: String,
    /// Every text of the request (system first), joined with a blank line.
    pub prompt: String,
    /// Choices asked for (1 for Anthropic).
    pub n: u32,
    pub stream: bool,
    /// OpenAI `stream_options.include_usage`.
    pub include_usage: bool,
    /// Gemini `:streamGenerateContent` without `alt=sse`: a streamed JSON array.
    pub json_array_stream: bool,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
}

/// An error response, with what each format needs to write it.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSpec {
    pub status: u16,
    pub message: String,
    /// OpenAI `error.type`.
    pub openai_type: &'static str,
    /// OpenAI `error.code`.
    pub openai_code: Option<&'static str>,
    /// Anthropic `error.type`.
    pub anthropic_type: &'static str,
    /// Gemini `error.status`.
    pub gemini_status: &'static str,
    /// Gemini `error.details`.
    pub gemini_details: Vec<Value>,
    /// Extra response headers.
    pub headers: Vec<(&'static str, String)>,
}

impl ErrorSpec {
    pub fn new(
        status: u16,
        message: impl Into<String>,
        openai_type: &'static str,
        anthropic_type: &'static str,
        gemini_status: &'static str,
    ) -> ErrorSpec {
        ErrorSpec {
            status,
            message: message.into(),
            openai_type,
            openai_code: None,
            anthropic_type,
            gemini_status,
            gemini_details: Vec::new(),
            headers: Vec::new(),
        }
    }

    pub fn code(mut self, code: &'static str) -> ErrorSpec {
        self.openai_code = Some(code);
        self
    }

    pub fn detail(mut self, detail: Value) -> ErrorSpec {
        self.gemini_details.push(detail);
        self
    }

    pub fn header(mut self, name: &'static str, value: String) -> ErrorSpec {
        self.headers.push((name, value));
        self
    }

    /// 400 for a request the format does not accept.
    pub fn bad_request(message: impl Into<String>) -> ErrorSpec {
        ErrorSpec::new(400, message, "invalid_request_error", "invalid_request_error", "INVALID_ARGUMENT")
    }

    /// The body in `format`'s shape.
    pub fn body(&self, format: Format, request_id: &str) -> Value {
        match format {
            Format::OpenAi => {
                json!({"error": {"message": self.message, "type": self.openai_type, "param": null, "code": self.openai_code}})
            }
            Format::Anthropic => {
                json!({"type": "error", "error": {"type": self.anthropic_type, "message": self.message}, "request_id": request_id})
            }
            Format::Gemini => {
                let mut error = json!({"code": self.status, "message": self.message, "status": self.gemini_status});
                if !self.gemini_details.is_empty() {
                    error["details"] = Value::Array(self.gemini_details.clone());
                }
                json!({ "error": error })
            }
        }
    }
}

fn number(body: &Value, field: &str) -> Result<Option<f64>, String> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| format!("{field}: expected a number")),
    }
}

fn unsigned(body: &Value, field: &str) -> Result<Option<u64>, String> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| format!("{field}: expected a non-negative integer")),
    }
}

fn in_range(field: &str, value: Option<f64>, low: f64, high: f64) -> Result<Option<f64>, String> {
    match value {
        Some(v) if !(low..=high).contains(&v) => Err(format!("{field}: {v} is out of range, expected {low} to {high}")),
        _ => Ok(value),
    }
}

/// The texts of a content value: a string, or an array of parts with `text`.
fn content_texts(content: &Value, field: &str, out: &mut Vec<String>) -> Result<(), String> {
    match content {
        Value::String(s) => out.push(s.clone()),
        Value::Array(parts) => {
            for part in parts {
                match part {
                    Value::String(s) => out.push(s.clone()),
                    Value::Object(o) => {
                        if let Some(text) = o.get("text").and_then(Value::as_str) {
                            out.push(text.to_string());
                        }
                    }
                    _ => return Err(format!("{field}: expected text parts")),
                }
            }
        }
        Value::Null => {}
        _ => return Err(format!("{field}: expected a string or an array of parts")),
    }
    Ok(())
}

fn messages_texts(body: &Value, field: &str, out: &mut Vec<String>) -> Result<(), String> {
    let Some(messages) = body.get(field).and_then(Value::as_array).filter(|m| !m.is_empty()) else {
        return Err(format!("{field}: a non-empty array is required"));
    };
    for (i, message) in messages.iter().enumerate() {
        let content = message.get("content").unwrap_or(&Value::Null);
        content_texts(content, &format!("{field}[{i}].content"), out)?;
    }
    Ok(())
}

fn model_of(body: &Value) -> Result<String, String> {
    match body.get("model") {
        Some(Value::String(m)) => Ok(m.clone()),
        None | Some(Value::Null) => Err("model: this field is required".to_string()),
        Some(_) => Err("model: expected a string".to_string()),
    }
}

/// Reads an OpenAI Chat Completions body (an error: why the API answers 400). `deployment` (Azure) stands in for the model.
pub fn parse_openai(body: &Value, deployment: Option<&str>) -> Result<ChatRequest, String> {
    let model = match deployment {
        Some(d) => d.to_string(),
        None => model_of(body)?,
    };
    let mut texts = Vec::new();
    messages_texts(body, "messages", &mut texts)?;
    let n = unsigned(body, "n")?.unwrap_or(1);
    if !(1..=128).contains(&n) {
        return Err(format!("n: {n} is out of range, expected 1 to 128"));
    }
    let max_tokens = match unsigned(body, "max_completion_tokens")? {
        Some(m) => Some(m),
        None => unsigned(body, "max_tokens")?,
    };
    if max_tokens == Some(0) {
        return Err("max_tokens: must be at least 1".to_string());
    }
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let include_usage = body.pointer("/stream_options/include_usage").and_then(Value::as_bool).unwrap_or(false);
    Ok(ChatRequest {
        format: Format::OpenAi,
        model,
        prompt: texts.join("\n\n"),
        n: n as u32,
        stream,
        include_usage,
        json_array_stream: false,
        max_tokens,
        temperature: in_range("temperature", number(body, "temperature")?, 0.0, 2.0)?,
        top_p: in_range("top_p", number(body, "top_p")?, 0.0, 1.0)?,
    })
}

/// Reads an Anthropic Messages body (`max_tokens` is required, as in the real API).
pub fn parse_anthropic(body: &Value) -> Result<ChatRequest, String> {
    let model = model_of(body)?;
    let max_tokens = unsigned(body, "max_tokens")?.ok_or_else(|| "max_tokens: Field required".to_string())?;
    if max_tokens == 0 {
        return Err("max_tokens: must be at least 1".to_string());
    }
    let mut texts = Vec::new();
    content_texts(body.get("system").unwrap_or(&Value::Null), "system", &mut texts)?;
    messages_texts(body, "messages", &mut texts)?;
    Ok(ChatRequest {
        format: Format::Anthropic,
        model,
        prompt: texts.join("\n\n"),
        n: 1,
        stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
        include_usage: false,
        json_array_stream: false,
        max_tokens: Some(max_tokens),
        temperature: in_range("temperature", number(body, "temperature")?, 0.0, 1.0)?,
        top_p: in_range("top_p", number(body, "top_p")?, 0.0, 1.0)?,
    })
}

/// Reads a Gemini generateContent body; the model and the streaming come from the URL.
pub fn parse_gemini(body: &Value, model: &str, stream: bool, sse: bool) -> Result<ChatRequest, String> {
    let mut texts = Vec::new();
    if let Some(system) = body.get("systemInstruction").or_else(|| body.get("system_instruction")) {
        content_texts(system.get("parts").unwrap_or(&Value::Null), "systemInstruction.parts", &mut texts)?;
    }
    let Some(contents) = body.get("contents").and_then(Value::as_array).filter(|c| !c.is_empty()) else {
        return Err("contents: a non-empty array is required".to_string());
    };
    for (i, content) in contents.iter().enumerate() {
        content_texts(content.get("parts").unwrap_or(&Value::Null), &format!("contents[{i}].parts"), &mut texts)?;
    }
    let config = body.get("generationConfig").or_else(|| body.get("generation_config")).cloned().unwrap_or(Value::Null);
    // The errors name the field by its path, as the range errors below do.
    let in_config = |e: String| format!("generationConfig.{e}");
    let n = unsigned(&config, "candidateCount").map_err(in_config)?.unwrap_or(1);
    if !(1..=8).contains(&n) {
        return Err(format!("generationConfig.candidateCount: {n} is out of range, expected 1 to 8"));
    }
    let max_tokens = unsigned(&config, "maxOutputTokens").map_err(in_config)?;
    if max_tokens == Some(0) {
        return Err("generationConfig.maxOutputTokens: must be at least 1".to_string());
    }
    Ok(ChatRequest {
        format: Format::Gemini,
        model: model.to_string(),
        prompt: texts.join("\n\n"),
        n: n as u32,
        stream,
        include_usage: false,
        json_array_stream: stream && !sse,
        max_tokens,
        temperature: in_range(
            "generationConfig.temperature",
            number(&config, "temperature").map_err(in_config)?,
            0.0,
            2.0,
        )?,
        top_p: in_range("generationConfig.topP", number(&config, "topP").map_err(in_config)?, 0.0, 1.0)?,
    })
}

/// Why generation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    Stop,
    Length,
}

impl Finish {
    fn openai(self) -> &'static str {
        match self {
            Finish::Stop => "stop",
            Finish::Length => "length",
        }
    }

    fn anthropic(self) -> &'static str {
        match self {
            Finish::Stop => "end_turn",
            Finish::Length => "max_tokens",
        }
    }

    fn gemini(self) -> &'static str {
        match self {
            Finish::Stop => "STOP",
            Finish::Length => "MAX_TOKENS",
        }
    }
}

/// What to answer: the same text for every choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub text: String,
    pub finish: Finish,
    pub prompt_tokens: u64,
    /// Per choice.
    pub completion_tokens: u64,
    /// Tokens spent without text (the [`crate::Fault::EmptyLength`] case), per choice; already
    /// included in `completion_tokens` for OpenAI and Anthropic, reported as Gemini's
    /// `thoughtsTokenCount`.
    pub hidden_tokens: u64,
}

impl Reply {
    /// `text`, cut to `max_tokens` (then stopped for length) when it is longer.
    pub fn new(text: &str, prompt: &str, max_tokens: Option<u64>) -> Reply {
        let (text, finish) = match max_tokens {
            Some(m) if token_count(text) > m => (text.chars().take((m * 4) as usize).collect(), Finish::Length),
            _ => (text.to_string(), Finish::Stop),
        };
        Reply {
            completion_tokens: token_count(&text),
            text,
            finish,
            prompt_tokens: token_count(prompt),
            hidden_tokens: 0,
        }
    }

    /// No text, the whole budget (`max_tokens`, 0 without one) spent: stopped for length.
    pub fn empty_length(prompt: &str, max_tokens: Option<u64>) -> Reply {
        let spent = max_tokens.unwrap_or(0);
        Reply {
            text: String::new(),
            finish: Finish::Length,
            prompt_tokens: token_count(prompt),
            completion_tokens: spent,
            hidden_tokens: spent,
        }
    }

    fn total_completion(&self, n: u32) -> u64 {
        self.completion_tokens * n as u64
    }
}

/// Identifies one response (`id` fields and Anthropic's `request_id`).
#[derive(Clone, Debug)]
pub struct Ids {
    pub number: u64,
    pub created: u64,
}

impl Ids {
    pub fn openai(&self) -> String {
        format!("chatcmpl-mock-{}", self.number)
    }

    pub fn anthropic(&self) -> String {
        format!("msg_mock_{}", self.number)
    }

    pub fn request(&self) -> String {
        format!("req_mock_{}", self.number)
    }

    pub fn gemini(&self) -> String {
        format!("mock-{}", self.number)
    }
}

fn openai_usage(reply: &Reply, n: u32) -> Value {
    let completion = reply.total_completion(n);
    let mut usage = json!({"prompt_tokens": reply.prompt_tokens, "completion_tokens": completion, "total_tokens": reply.prompt_tokens + completion});
    if reply.hidden_tokens > 0 {
        usage["completion_tokens_details"] = json!({"reasoning_tokens": reply.hidden_tokens * n as u64});
    }
    usage
}

fn gemini_usage(reply: &Reply, n: u32) -> Value {
    let candidates = (reply.completion_tokens - reply.hidden_tokens) * n as u64;
    let thoughts = reply.hidden_tokens * n as u64;
    let mut usage = json!({"promptTokenCount": reply.prompt_tokens, "candidatesTokenCount": candidates, "totalTokenCount": reply.prompt_tokens + candidates + thoughts});
    if thoughts > 0 {
        usage["thoughtsTokenCount"] = json!(thoughts);
    }
    usage
}

fn gemini_content(text: &str) -> Value {
    if text.is_empty() { json!({"role": "model"}) } else { json!({"role": "model", "parts": [{"text": text}]}) }
}

/// The whole (not streamed) response body.
pub fn full_body(request: &ChatRequest, reply: &Reply, ids: &Ids) -> Value {
    let n = request.n;
    match request.format {
        Format::OpenAi => {
            let choices: Vec<Value> = (0..n)
                .map(|i| json!({"index": i, "message": {"role": "assistant", "content": reply.text, "refusal": null}, "logprobs": null, "finish_reason": reply.finish.openai()}))
                .collect();
            json!({"id": ids.openai(), "object": "chat.completion", "created": ids.created, "model": request.model, "choices": choices, "usage": openai_usage(reply, n)})
        }
        Format::Anthropic => {
            let content = if reply.text.is_empty() { json!([]) } else { json!([{"type": "text", "text": reply.text}]) };
            json!({
                "id": ids.anthropic(), "type": "message", "role": "assistant", "model": request.model, "content": content,
                "stop_reason": reply.finish.anthropic(), "stop_sequence": null,
                "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
            })
        }
        Format::Gemini => {
            let candidates: Vec<Value> = (0..n).map(|i| json!({"index": i, "content": gemini_content(&reply.text), "finishReason": reply.finish.gemini()})).collect();
            json!({"candidates": candidates, "usageMetadata": gemini_usage(reply, n), "modelVersion": request.model, "responseId": ids.gemini()})
        }
    }
}

/// `text` in up to four pieces of (nearly) equal length in characters; none for the empty text.
pub fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(4);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// One server-sent event as it goes on the wire.
fn data_event(format: Format, value: &Value) -> String {
    match format {
        Format::Gemini => format!("data: {value}\r\n\r\n"),
        _ => format!("data: {value}\n\n"),
    }
}

fn named_event(name: &str, value: &Value) -> String {
    format!("event: {name}\ndata: {value}\n\n")
}

/// The events of a streamed answer, the terminator last (OpenAI `[DONE]`, Anthropic
/// `message_stop`, Gemini the chunk with `finishReason`). `error_after_first_piece`: the stream
/// carries the format's error after the first piece of text instead and ends there.
pub fn stream_events(
    request: &ChatRequest,
    reply: &Reply,
    ids: &Ids,
    error_after_first_piece: Option<&ErrorSpec>,
) -> Vec<String> {
    let parts = pieces(&reply.text);
    let n = request.n;
    let mut events = Vec::new();
    match request.format {
        Format::OpenAi => {
            let usage_null = request.include_usage;
            let chunk = |choices: Value| {
                let mut c = json!({"id": ids.openai(), "object": "chat.completion.chunk", "created": ids.created, "model": request.model, "choices": choices});
                if usage_null {
                    c["usage"] = Value::Null;
                }
                c
            };
            for i in 0..n {
                events.push(data_event(Format::OpenAi, &chunk(json!([{"index": i, "delta": {"role": "assistant", "content": ""}, "logprobs": null, "finish_reason": null}]))));
            }
            for (k, piece) in parts.iter().enumerate() {
                for i in 0..n {
                    events.push(data_event(
                        Format::OpenAi,
                        &chunk(
                            json!([{"index": i, "delta": {"content": piece}, "logprobs": null, "finish_reason": null}]),
                        ),
                    ));
                }
                if k == 0
                    && let Some(error) = error_after_first_piece
                {
                    events.push(data_event(Format::OpenAi, &error.body(Format::OpenAi, &ids.request())));
                    return events;
                }
            }
            for i in 0..n {
                events.push(data_event(
                    Format::OpenAi,
                    &chunk(
                        json!([{"index": i, "delta": {}, "logprobs": null, "finish_reason": reply.finish.openai()}]),
                    ),
                ));
            }
            if request.include_usage {
                let mut c = chunk(json!([]));
                c["usage"] = openai_usage(reply, n);
                events.push(data_event(Format::OpenAi, &c));
            }
            events.push("data: [DONE]\n\n".to_string());
        }
        Format::Anthropic => {
            let start = json!({"type": "message_start", "message": {
                "id": ids.anthropic(), "type": "message", "role": "assistant", "model": request.model, "content": [],
                "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": 0},
            }});
            events.push(named_event("message_start", &start));
            if !parts.is_empty() {
                events.push(named_event(
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ));
                for (k, piece) in parts.iter().enumerate() {
                    events.push(named_event("content_block_delta", &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})));
                    if k == 0 {
                        if let Some(error) = error_after_first_piece {
                            events.push(named_event("error", &json!({"type": "error", "error": {"type": error.anthropic_type, "message": error.message}})));
                            return events;
                        }
                        events.push(named_event("ping", &json!({"type": "ping"})));
                    }
                }
                events.push(named_event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})));
            } else {
                events.push(named_event("ping", &json!({"type": "ping"})));
            }
            events.push(named_event(
                "message_delta",
                &json!({"type": "message_delta", "delta": {"stop_reason": reply.finish.anthropic(), "stop_sequence": null}, "usage": {"output_tokens": reply.completion_tokens}}),
            ));
            events.push(named_event("message_stop", &json!({"type": "message_stop"})));
        }
        Format::Gemini => {
            let count = parts.len().max(1);
            for k in 0..count {
                let piece = parts.get(k).map(String::as_str).unwrap_or("");
                let last = k + 1 == count;
                let candidates: Vec<Value> = (0..n)
                    .map(|i| {
                        let mut c = json!({"index": i, "content": gemini_content(piece)});
                        if last {
                            c["finishReason"] = json!(reply.finish.gemini());
                        }
                        c
                    })
                    .collect();
                let mut chunk =
                    json!({"candidates": candidates, "modelVersion": request.model, "responseId": ids.gemini()});
                if last {
                    chunk["usageMetadata"] = gemini_usage(reply, n);
                }
                events.push(data_event(Format::Gemini, &chunk));
                if k == 0
                    && let Some(error) = error_after_first_piece
                {
                    events.push(data_event(Format::Gemini, &error.body(Format::Gemini, &ids.request())));
                    return events;
                }
            }
        }
    }
    events
}

/// The model list of `GET /v1/models` (OpenAI or, with `anthropic-version`, Anthropic shape) and
/// `GET /v1beta/models` (Gemini shape).
pub fn models_body(format: Format, models: &[String]) -> Value {
    match format {
        Format::OpenAi => {
            json!({"object": "list", "data": models.iter().map(|m| json!({"id": m, "object": "model", "created": 0, "owned_by": "execbench-mock"})).collect::<Vec<_>>()})
        }
        Format::Anthropic => json!({
            "data": models.iter().map(|m| json!({"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"})).collect::<Vec<_>>(),
            "has_more": false, "first_id": models.first(), "last_id": models.last(),
        }),
        Format::Gemini => json!({"models": models.iter().map(|m| json!({
            "name": format!("models/{m}"), "displayName": m, "supportedGenerationMethods": ["generateContent", "countTokens"],
        })).collect::<Vec<_>>()}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_evenly() {
        let cases: [(&str, &[&str]); 4] = [
            ("", &[]),
            ("ab", &["a", "b"]),
            ("abcdefgh", &["ab", "cd", "ef", "gh"]),
            ("abcdefghi", &["abc", "def", "ghi"]),
        ];
        for (text, want) in cases {
            assert_eq!(pieces(text), want, "{text:?}");
        }
    }

    #[test]
    fn reply_honours_max_tokens() {
        let r = Reply::new("abcdefghij", "xyz", Some(2));
        assert_eq!(
            (r.text.as_str(), r.finish, r.completion_tokens, r.prompt_tokens),
            ("abcdefgh", Finish::Length, 2, 1)
        );
        let r = Reply::new("abcdefghij", "", Some(3));
        assert_eq!((r.text.as_str(), r.finish, r.completion_tokens), ("abcdefghij", Finish::Stop, 3));
    }

    #[test]
    fn parses_each_format() {
        let openai = json!({"model": "m", "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": [{"type": "text", "text": "U"}]}], "n": 2, "stream": true, "stream_options": {"include_usage": true}, "max_completion_tokens": 7, "temperature": 0.2, "top_p": 0.95});
        let r = parse_openai(&openai, None).unwrap();
        assert_eq!(
            (r.model.as_str(), r.prompt.as_str(), r.n, r.stream, r.include_usage, r.max_tokens, r.temperature, r.top_p),
            ("m", "S\n\nU", 2, true, true, Some(7), Some(0.2), Some(0.95))
        );
        assert_eq!(
            parse_openai(&json!({"messages": [{"role": "user", "content": "x"}]}), Some("dep")).unwrap().model,
            "dep"
        );
        let anthropic =
            json!({"model": "c", "max_tokens": 9, "system": "S", "messages": [{"role": "user", "content": "U"}]});
        let r = parse_anthropic(&anthropic).unwrap();
        assert_eq!((r.prompt.as_str(), r.n, r.max_tokens), ("S\n\nU", 1, Some(9)));
        let gemini = json!({"systemInstruction": {"parts": [{"text": "S"}]}, "contents": [{"role": "user", "parts": [{"text": "U"}]}], "generationConfig": {"candidateCount": 3, "maxOutputTokens": 5, "temperature": 1.0, "topP": 0.5}});
        let r = parse_gemini(&gemini, "g", true, true).unwrap();
        assert_eq!(
            (r.prompt.as_str(), r.n, r.max_tokens, r.temperature, r.top_p, r.json_array_stream),
            ("S\n\nU", 3, Some(5), Some(1.0), Some(0.5), false)
        );
    }

    /// (body, format, message fragment)
    #[test]
    fn refuses_bad_bodies() {
        let cases = [
            (json!({"model": "m", "messages": []}), Format::OpenAi, "messages"),
            (json!({"messages": [{"role": "user", "content": "x"}]}), Format::OpenAi, "model"),
            (json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "n": 0}), Format::OpenAi, "n: 0"),
            (
                json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 3}),
                Format::OpenAi,
                "temperature",
            ),
            (json!({"model": "m", "messages": [{"role": "user", "content": "x"}]}), Format::Anthropic, "max_tokens"),
            (
                json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}], "temperature": 1.5}),
                Format::Anthropic,
                "temperature",
            ),
            (json!({"contents": []}), Format::Gemini, "contents"),
            (
                json!({"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"candidateCount": 9}}),
                Format::Gemini,
                "candidateCount",
            ),
        ];
        for (body, format, fragment) in cases {
            let result = match format {
                Format::OpenAi => parse_openai(&body, None),
                Format::Anthropic => parse_anthropic(&body),
                Format::Gemini => parse_gemini(&body, "g", false, false),
            };
            let message = result.unwrap_err();
            assert!(message.contains(fragment), "{body}: {message}");
        }
    }
}
