//! Whole (non-streamed) responses: the text of each choice, why it stopped, and the token
//! counts, for each wire format. The per-format readers are shared with the stream parser.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ErrorKind, ProviderError, classify_error, error_fields, inband_error};
use crate::presets::WireFormat;
use crate::util::{count, shorten, str_field};

/// Token counts, the same meaning for every format: `prompt_tokens` includes cached input
/// (Anthropic's cache reads and writes are added to its `input_tokens` to match),
/// `completion_tokens` includes reasoning/thinking (Gemini: candidates + thoughts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub reasoning_tokens: u64,
    pub cached_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(other.cached_tokens);
    }

    pub fn total(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// What one request produced: a text per choice (ordered by choice index).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub texts: Vec<String>,
    pub finish_reasons: Vec<Option<String>>,
    pub usage: Usage,
    /// The model the provider says answered (may differ from the one asked for).
    pub model: Option<String>,
}

/// One choice being read (whole or assembled from a stream).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChoiceText {
    pub text: String,
    pub finish: Option<String>,
}

/// Choices by index, plus what a response says around them.
#[derive(Debug, Default)]
pub(crate) struct Assembly {
    pub choices: BTreeMap<u32, ChoiceText>,
    pub usage: Usage,
    pub model: Option<String>,
    /// Gemini's promptFeedback.blockReason: the prompt itself was refused.
    pub blocked: Option<String>,
}

impl Assembly {
    pub fn choice(&mut self, index: u32) -> &mut ChoiceText {
        self.choices.entry(index).or_default()
    }

    /// The completion, or EmptyOutput when no choice has any text.
    pub fn finish(self, status: Option<u16>) -> Result<Completion, ProviderError> {
        if self.choices.values().all(|c| c.text.is_empty()) {
            return Err(ProviderError::new(ErrorKind::EmptyOutput, status, self.empty_reason()));
        }
        let (texts, finish_reasons) = self.choices.into_values().map(|c| (c.text, c.finish)).unzip();
        Ok(Completion { texts, finish_reasons, usage: self.usage, model: self.model })
    }

    fn empty_reason(&self) -> String {
        if let Some(b) = &self.blocked {
            return format!("the provider refused the prompt (block reason {b})");
        }
        if self.choices.is_empty() {
            return "the answer holds no choices".into();
        }
        let mut reasons: Vec<&str> = self.choices.values().filter_map(|c| c.finish.as_deref()).collect();
        reasons.sort_unstable();
        reasons.dedup();
        if reasons.is_empty() {
            return "no text in the answer (no finish reason given)".into();
        }
        let list = reasons.join(", ");
        let lc = list.to_ascii_lowercase();
        if lc.contains("length") || lc.contains("max_tokens") {
            format!(
                "no text in the answer (finish reason {list}): the token limit ran out before any answer \
                 text; reasoning models spend tokens thinking first, so raise max tokens"
            )
        } else if ["safety", "content_filter", "refusal", "recitation", "prohibited", "blocklist", "spii"]
            .iter()
            .any(|w| lc.contains(w))
        {
            format!("no text in the answer: the provider withheld it (finish reason {list})")
        } else {
            format!("no text in the answer (finish reason {list})")
        }
    }
}

/// Parses a whole (non-streamed) response. Non-2xx: Err(classify_error(..)). 2xx: the
/// completion; Err(EmptyOutput) when every choice has empty text, Err(Unreadable) when the
/// JSON is not the format's.
pub fn parse_response(
    wire: WireFormat,
    status: u16,
    headers: &[(String, String)],
    body: &str,
) -> Result<Completion, ProviderError> {
    if !(200..300).contains(&status) {
        return Err(classify_error(wire, status, headers, body));
    }
    let unreadable = |why: &str| {
        ProviderError::new(
            ErrorKind::Unreadable,
            Some(status),
            format!("{why}: {}", if body.trim().is_empty() { "(empty body)".to_string() } else { shorten(body, 300) }),
        )
    };
    let v: Value = serde_json::from_str(body).map_err(|_| unreadable("not JSON"))?;
    // Some servers answer 200 with an error object.
    if let Some(fields) = error_fields(&v) {
        return Err(inband_error(fields, body, ErrorKind::ServerError, Some(status)));
    }
    let mut asm = Assembly::default();
    let ok = match wire {
        WireFormat::OpenAiChat => read_openai(&v, &mut asm, false),
        WireFormat::Anthropic => read_anthropic_message(&v, &mut asm),
        WireFormat::Gemini => read_gemini_chunk(&v, &mut asm),
    };
    if !ok {
        return Err(unreadable(&format!("not a {} response", wire_name(wire))));
    }
    asm.finish(Some(status))
}

pub(crate) fn wire_name(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAiChat => "chat completions",
        WireFormat::Anthropic => "Anthropic messages",
        WireFormat::Gemini => "Gemini",
    }
}

/// A choice index: integers only, anything else is choice 0.
fn index_of(v: &Value, key: &str, default: u32) -> u32 {
    v.get(key).and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok()).unwrap_or(default)
}

/// `content` as a string, null, or an array of text parts (some compatible servers).
fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| str_field(p, "type").is_none_or(|t| t == "text"))
            .filter_map(|p| str_field(p, "text"))
            .collect(),
        _ => String::new(),
    }
}

/// OpenAI chat: a whole response (`message`) or a stream chunk (`delta`, text appended).
/// Returns false when `v` is not of this format. `deltas` receives stream text as it comes.
pub(crate) fn read_openai_into(v: &Value, asm: &mut Assembly, stream: bool, mut deltas: impl FnMut(u32, &str)) -> bool {
    let Some(choices) = v.get("choices").and_then(Value::as_array) else {
        return false;
    };
    for (pos, c) in choices.iter().enumerate() {
        let index = index_of(c, "index", u32::try_from(pos).unwrap_or(u32::MAX));
        let text = content_text(c.get(if stream { "delta" } else { "message" }).and_then(|m| m.get("content")));
        let choice = asm.choice(index);
        if !text.is_empty() {
            choice.text.push_str(&text);
            deltas(index, &text);
        }
        if let Some(f) = str_field(c, "finish_reason") {
            choice.finish = Some(f.to_string());
        }
    }
    if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
        asm.usage = openai_usage(u);
    }
    if asm.model.is_none() {
        asm.model = str_field(v, "model").map(str::to_string);
    }
    true
}

fn read_openai(v: &Value, asm: &mut Assembly, stream: bool) -> bool {
    read_openai_into(v, asm, stream, |_, _| {})
}

fn openai_usage(u: &Value) -> Usage {
    Usage {
        prompt_tokens: count(u.get("prompt_tokens")),
        completion_tokens: count(u.get("completion_tokens")),
        reasoning_tokens: count(u.get("completion_tokens_details").and_then(|d| d.get("reasoning_tokens"))),
        cached_tokens: count(u.get("prompt_tokens_details").and_then(|d| d.get("cached_tokens"))),
    }
}

/// Anthropic's whole message: text blocks concatenated (thinking blocks are not the answer).
fn read_anthropic_message(v: &Value, asm: &mut Assembly) -> bool {
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        return false;
    };
    let text: String =
        blocks.iter().filter(|b| str_field(b, "type") == Some("text")).filter_map(|b| str_field(b, "text")).collect();
    let choice = asm.choice(0);
    choice.text = text;
    choice.finish = str_field(v, "stop_reason").map(str::to_string);
    if let Some(u) = v.get("usage") {
        apply_anthropic_usage(u, &mut asm.usage);
    }
    asm.model = str_field(v, "model").map(str::to_string);
    true
}

/// Anthropic usage: the fields present replace the ones kept (stream events repeat them
/// cumulatively). The prompt count adds cache reads and writes, which `input_tokens` leaves out.
pub(crate) fn apply_anthropic_usage(u: &Value, usage: &mut Usage) {
    if ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"].iter().any(|k| u.get(k).is_some()) {
        let cached = count(u.get("cache_read_input_tokens"));
        usage.prompt_tokens = count(u.get("input_tokens"))
            .saturating_add(cached)
            .saturating_add(count(u.get("cache_creation_input_tokens")));
        usage.cached_tokens = cached;
    }
    if u.get("output_tokens").is_some() {
        usage.completion_tokens = count(u.get("output_tokens"));
    }
}

/// A Gemini GenerateContentResponse, whole or one stream chunk (text appended per candidate).
pub(crate) fn read_gemini_into(v: &Value, asm: &mut Assembly, mut deltas: impl FnMut(u32, &str)) -> bool {
    let candidates = v.get("candidates").and_then(Value::as_array);
    let usage = v.get("usageMetadata").filter(|u| u.is_object());
    let feedback = v.get("promptFeedback");
    if candidates.is_none() && usage.is_none() && feedback.is_none() {
        return false;
    }
    for (pos, c) in candidates.into_iter().flatten().enumerate() {
        let index = index_of(c, "index", u32::try_from(pos).unwrap_or(u32::MAX));
        let text: String = c
            .get("content")
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
            .filter_map(|p| str_field(p, "text"))
            .collect();
        let choice = asm.choice(index);
        if !text.is_empty() {
            choice.text.push_str(&text);
            deltas(index, &text);
        }
        if let Some(f) = str_field(c, "finishReason") {
            choice.finish = Some(f.to_string());
        }
    }
    if let Some(u) = usage {
        let thoughts = count(u.get("thoughtsTokenCount"));
        asm.usage = Usage {
            prompt_tokens: count(u.get("promptTokenCount")),
            completion_tokens: count(u.get("candidatesTokenCount")).saturating_add(thoughts),
            reasoning_tokens: thoughts,
            cached_tokens: count(u.get("cachedContentTokenCount")),
        };
    }
    if let Some(b) = feedback.and_then(|f| str_field(f, "blockReason")) {
        asm.blocked = Some(b.to_string());
    }
    if let Some(m) = str_field(v, "modelVersion") {
        asm.model = Some(m.to_string());
    }
    true
}

fn read_gemini_chunk(v: &Value, asm: &mut Assembly) -> bool {
    read_gemini_into(v, asm, |_, _| {})
}
