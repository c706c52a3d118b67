//! The model behind an OpenAI chat-completions body: the run engine builds its usual request
//! (crates/providers, `WireFormat::OpenAiChat`), an `HttpClient` hands the body here instead of
//! sending it, and the answer is the body a server would have sent back. So the page and the CLI
//! use the in-process model through the same seam, wire format and parser as any provider.
//!
//! Read from the request: `messages`, `temperature` (0: greedy), `top_p`, `max_tokens` or
//! `max_completion_tokens`, `seed`, `stop`, `stream`. Everything else (`model`, `n` = 1,
//! `stream_options`, `reasoning_effort`) is accepted and has no effect, except that `model` is
//! echoed back. The answer carries `usage` from the real token counts and `timings` (prefill and
//! decode milliseconds and tokens per second), which parsers ignore and a status line reads with
//! [`read_timings`].

use serde_json::{Map, Value, json};

use crate::chat::ChatMessage;
use crate::error::LocalModelError;
use crate::generate::{GenerateOptions, Generation, StopReason, Timings, generate_timed};
use crate::model::LocalModel;
use crate::sampling::Sampling;

/// Ends every answer: the benchmark's prompts ask for the assertion between `[ANSWER]` and
/// `[/ANSWER]`, and nothing after it is read. A request that did not ask for it gets it in the
/// text (it says where the answer was cut); the stop texts a request asks for are left out of the
/// text, as OpenAI defines `stop` and llama.cpp's server does.
pub const ANSWER_END: &str = "[/ANSWER]";

/// The seed of a sampled request that names none, so that a run without one still repeats.
pub const DEFAULT_SEED: u64 = 20_261_128;

/// OpenAI's defaults when the request leaves them out.
const DEFAULT_TEMPERATURE: f64 = 1.0;
const DEFAULT_TOP_P: f64 = 1.0;

/// What the request asks of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// Echoed in the answer, as servers do.
    pub model: Option<String>,
    pub messages: Vec<ChatMessage>,
    pub options: GenerateOptions,
    /// Answer as Server-Sent Events (one text chunk, then the finish, the usage, `[DONE]`).
    pub stream: bool,
    /// The stop texts the request named (`options.stop_texts` adds [`ANSWER_END`]): the one that
    /// ends the answer is left out of the text sent back.
    pub stop_asked: Vec<String>,
}

/// Why no answer came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatError {
    /// The body is not a request this model can answer; the message names the field.
    BadRequest(String),
    /// The model failed while running (a damaged file, a template it cannot render).
    Model(String),
    /// The keep-going callback said stop before the answer was complete.
    Stopped,
}

impl ChatError {
    /// The HTTP status a server would answer with (499: the client went away). A model error is
    /// 422, not 500: it fails the same way every time it is asked, so the engine must not retry it
    /// as it retries a server's passing fault (a 4xx fails the attempt, once).
    pub fn status(&self) -> u16 {
        match self {
            ChatError::BadRequest(_) => 400,
            ChatError::Model(_) => 422,
            ChatError::Stopped => 499,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            ChatError::BadRequest(m) | ChatError::Model(m) => m,
            ChatError::Stopped => "stopped before the answer was complete",
        }
    }

    /// An OpenAI-style error body, which the providers' error classifier reads.
    pub fn body(&self) -> Vec<u8> {
        let kind = match self {
            ChatError::BadRequest(_) => "invalid_request_error",
            ChatError::Model(_) => "model_error",
            ChatError::Stopped => "stopped",
        };
        json!({"error": {"message": self.message(), "type": kind}}).to_string().into_bytes()
    }
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ChatError {}

impl From<LocalModelError> for ChatError {
    fn from(e: LocalModelError) -> Self {
        ChatError::Model(e.0)
    }
}

/// One answer: the response body and what it reports, for callers that want them without
/// reading the body again.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatReply {
    pub body: Vec<u8>,
    /// `application/json`, or `text/event-stream` when the request asked to stream.
    pub content_type: &'static str,
    pub generation: Generation,
    pub timings: Timings,
}

/// Reads a chat-completions request body. Errors name the field and what was wrong.
pub fn read_chat_request(body: &[u8]) -> Result<ChatRequest, ChatError> {
    let bad = |m: String| ChatError::BadRequest(m);
    let value: Value = serde_json::from_slice(body).map_err(|e| bad(format!("the request body is not JSON: {e}")))?;
    let Value::Object(fields) = value else {
        return Err(bad("the request body is not a JSON object".into()));
    };
    let messages = read_messages(&fields)?;
    let model = fields.get("model").and_then(Value::as_str).map(str::to_string);

    let n = optional_u64(&fields, "n")?.unwrap_or(1);
    if n != 1 {
        return Err(bad(format!("n: this model answers one choice per request (got {n})")));
    }
    let max_tokens = match (optional_u64(&fields, "max_completion_tokens")?, optional_u64(&fields, "max_tokens")?) {
        (Some(m), _) | (None, Some(m)) => Some(m),
        (None, None) => None,
    };
    if max_tokens == Some(0) {
        return Err(bad("max_tokens: must be at least 1".into()));
    }
    let temperature = optional_f64(&fields, "temperature")?.unwrap_or(DEFAULT_TEMPERATURE);
    if !(0.0..=2.0).contains(&temperature) {
        return Err(bad(format!("temperature: must be between 0 and 2 (got {temperature})")));
    }
    let top_p = optional_f64(&fields, "top_p")?.unwrap_or(DEFAULT_TOP_P);
    if !(top_p > 0.0 && top_p <= 1.0) {
        return Err(bad(format!("top_p: must be above 0 and at most 1 (got {top_p})")));
    }
    let seed = match fields.get("seed") {
        None | Some(Value::Null) => DEFAULT_SEED,
        // Any integer, as OpenAI takes; a negative one keeps its bits.
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_i64().map(|i| i as u64))
            .ok_or_else(|| bad(format!("seed: must be an integer (got {v})")))?,
    };
    let sampling = if temperature == 0.0 { Sampling::Greedy } else { Sampling::Random { temperature, top_p, seed } };
    let stop_asked = read_stop(&fields)?;
    let mut stop_texts = stop_asked.clone();
    if !stop_texts.iter().any(|s| s == ANSWER_END) {
        stop_texts.push(ANSWER_END.to_string());
    }
    let stream = match fields.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(bad(format!("stream: must be true or false (got {v})"))),
    };
    // No limit: the model's context ends the answer.
    let max_tokens = max_tokens.map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
    Ok(ChatRequest {
        model,
        messages,
        options: GenerateOptions { max_tokens, sampling, stop_texts },
        stream,
        stop_asked,
    })
}

fn read_messages(fields: &Map<String, Value>) -> Result<Vec<ChatMessage>, ChatError> {
    let bad = |m: String| ChatError::BadRequest(m);
    let list = fields.get("messages").ok_or_else(|| bad("messages: missing".into()))?;
    let list = list.as_array().ok_or_else(|| bad("messages: must be a list".into()))?;
    if list.is_empty() {
        return Err(bad("messages: the list is empty".into()));
    }
    list.iter()
        .enumerate()
        .map(|(i, m)| {
            let role = m
                .get("role")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(format!("messages[{i}].role: missing or not text")))?;
            let content = match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                // The list-of-parts form: its text parts, in order.
                Some(Value::Array(parts)) => parts
                    .iter()
                    .enumerate()
                    .map(|(j, p)| {
                        match (p.get("type").and_then(Value::as_str), p.get("text").and_then(Value::as_str)) {
                            (Some("text") | None, Some(t)) => Ok(t),
                            _ => Err(bad(format!("messages[{i}].content[{j}]: only text parts can be read"))),
                        }
                    })
                    .collect::<Result<String, _>>()?,
                _ => return Err(bad(format!("messages[{i}].content: missing or not text"))),
            };
            Ok(ChatMessage::new(role, &content))
        })
        .collect()
}

/// The answer's text as the wire carries it: without the stop text the request asked for, when
/// one ended it (the generation's text ends with the one that did).
fn sent_text<'a>(generation: &'a Generation, stop_asked: &[String]) -> &'a str {
    let text = generation.text.as_str();
    if generation.stop != StopReason::StopText {
        return text;
    }
    // Two asked texts can end at the same token ("R]" and "[/ANSWER]"): the answer ends where the
    // earlier-starting one begins, as llama.cpp's server cuts it.
    stop_asked.iter().filter_map(|s| text.strip_suffix(s.as_str())).min_by_key(|kept| kept.len()).unwrap_or(text)
}

fn read_stop(fields: &Map<String, Value>) -> Result<Vec<String>, ChatError> {
    let bad = || ChatError::BadRequest("stop: must be a text or a list of texts".into());
    let texts = match fields.get("stop") {
        None | Some(Value::Null) => vec![],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(list)) => {
            list.iter().map(|v| v.as_str().map(str::to_string).ok_or_else(bad)).collect::<Result<_, _>>()?
        }
        Some(_) => return Err(bad()),
    };
    Ok(texts.into_iter().filter(|s| !s.is_empty()).collect())
}

fn optional_u64(fields: &Map<String, Value>, key: &str) -> Result<Option<u64>, ChatError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| ChatError::BadRequest(format!("{key}: must be a whole number of at least 0 (got {v})"))),
    }
}

fn optional_f64(fields: &Map<String, Value>, key: &str) -> Result<Option<f64>, ChatError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            v.as_f64().map(Some).ok_or_else(|| ChatError::BadRequest(format!("{key}: must be a number (got {v})")))
        }
    }
}

/// Answers one chat-completions request body with `model`. `now_ms` times prefill and decode
/// (the crate reads no clock); `keep_going` is asked after each token and returning false ends
/// with [`ChatError::Stopped`] (the page's Stop, a dropped request).
pub fn answer_chat(
    model: &mut LocalModel,
    body: &[u8],
    now_ms: impl FnMut() -> f64,
    mut keep_going: impl FnMut() -> bool,
) -> Result<ChatReply, ChatError> {
    let request = read_chat_request(body)?;
    let prompt_text = model.render_chat(&request.messages)?;
    let prompt = model.encode(&prompt_text)?;
    if prompt.is_empty() {
        return Err(ChatError::BadRequest("messages: the prompt has no tokens".into()));
    }
    if prompt.len() >= model.info().context as usize {
        return Err(ChatError::BadRequest(format!(
            "messages: the prompt has {} tokens; this model's context holds {} in all, with the answer",
            prompt.len(),
            model.info().context
        )));
    }
    let (generation, timings) = generate_timed(model, &prompt, &request.options, now_ms, |_, _| keep_going())?;
    let finish = match generation.stop {
        StopReason::EndToken | StopReason::StopText => "stop",
        StopReason::MaxTokens | StopReason::Context => "length",
        StopReason::Cancelled => return Err(ChatError::Stopped),
    };
    let content = sent_text(&generation, &request.stop_asked);
    let model_name = request.model.map_or(Value::Null, Value::String);
    let usage = json!({
        "prompt_tokens": generation.prompt_tokens,
        "completion_tokens": generation.tokens.len(),
        "total_tokens": generation.prompt_tokens + generation.tokens.len(),
    });
    let timing_fields = timings_json(&timings);
    let (body, content_type) = if request.stream {
        let chunk = |choices: Value, extra: Option<(&str, Value)>| {
            let mut c =
                json!({"id": "local", "object": "chat.completion.chunk", "model": model_name, "choices": choices});
            if let Some((k, v)) = extra {
                c[k] = v;
            }
            format!("data: {c}\n\n")
        };
        let mut events = String::new();
        events.push_str(&chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": null}]),
            None,
        ));
        events.push_str(&chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}]), None));
        let mut last = json!({"id": "local", "object": "chat.completion.chunk", "model": model_name, "choices": [], "usage": usage});
        last["timings"] = timing_fields;
        events.push_str(&format!("data: {last}\n\ndata: [DONE]\n\n"));
        (events.into_bytes(), "text/event-stream")
    } else {
        let whole = json!({
            "id": "local",
            "object": "chat.completion",
            "model": model_name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": usage,
            "timings": timing_fields,
        });
        (whole.to_string().into_bytes(), "application/json")
    };
    Ok(ChatReply { body, content_type, generation, timings })
}

fn timings_json(t: &Timings) -> Value {
    json!({
        "prefill_tokens": t.prefill_tokens,
        "reused_tokens": t.reused_tokens,
        "prefill_ms": t.prefill_ms,
        "prefill_tokens_per_second": t.prefill_tokens_per_second(),
        "decode_tokens": t.decode_tokens,
        "decode_ms": t.decode_ms,
        "decode_tokens_per_second": t.decode_tokens_per_second(),
    })
}

/// The `timings` an answer of [`answer_chat`] carries, from a whole body or the last event of a
/// stream; `None` when there are none (another server's answer).
pub fn read_timings(body: &[u8]) -> Option<Timings> {
    let text = std::str::from_utf8(body).ok()?;
    let object: Value = if text.trim_start().starts_with("data:") {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .rfind(|v| v.get("timings").is_some())?
    } else {
        serde_json::from_str(text).ok()?
    };
    let t = object.get("timings")?;
    let count = |k: &str| t.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let ms = |k: &str| t.get(k).and_then(Value::as_f64);
    Some(Timings {
        prefill_tokens: count("prefill_tokens")?,
        // Absent from answers of before the cache kept prefixes.
        reused_tokens: count("reused_tokens").unwrap_or(0),
        prefill_ms: ms("prefill_ms")?,
        decode_tokens: count("decode_tokens")?,
        decode_ms: ms("decode_ms")?,
    })
}
