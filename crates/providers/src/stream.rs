//! Streamed responses: Server-Sent-Events framing over bytes that arrive in arbitrary pieces,
//! then per-format event handling that assembles the same Completion a whole response gives.

use serde_json::Value;

use crate::error::{ErrorFields, ErrorKind, ProviderError, error_fields, inband_error};
use crate::presets::WireFormat;
use crate::response::{
    Assembly, Completion, apply_anthropic_usage, parse_response, read_gemini_into, read_openai_into, wire_name,
};
use crate::util::{shorten, str_field};

/// Longest line accepted: a stream that never breaks its lines is garbage, not a slow answer.
const MAX_LINE: usize = 16 << 20;
/// Bytes kept, before the first event, to read a body that is not SSE at all.
const MAX_RAW: usize = 4 << 20;

/// A piece of text for one choice, for a live transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamDelta {
    pub index: u32,
    pub text: String,
}

/// Incremental Server-Sent-Events parser for streamed responses of the three formats.
pub struct StreamParser {
    wire: WireFormat,
    /// Bytes of the line not yet ended (a UTF-8 character may be split here: lines are decoded
    /// only once whole).
    line: Vec<u8>,
    /// The event being read: its name and data lines.
    event: String,
    data: String,
    has_data: bool,
    /// Whether any event with data was seen; until then the raw bytes are kept, so a server that
    /// answered a stream request with a plain JSON body is still understood.
    seen_event: bool,
    raw: Vec<u8>,
    raw_overflow: bool,
    /// The format's terminator came ([DONE], message_stop, a finishReason).
    done: bool,
    asm: Assembly,
    error: Option<ProviderError>,
}

impl StreamParser {
    /// `choices`: how many the request asked for (informational: the texts are the choices the
    /// stream actually carried, ordered by index, as for a whole response).
    pub fn new(wire: WireFormat, choices: u32) -> Self {
        let _ = choices;
        StreamParser {
            wire,
            line: Vec::new(),
            event: String::new(),
            data: String::new(),
            has_data: false,
            seen_event: false,
            raw: Vec::new(),
            raw_overflow: false,
            done: false,
            asm: Assembly::default(),
            error: None,
        }
    }

    /// Feeds bytes as they arrive. Returns the text deltas seen, per choice index. An error
    /// event or object in the stream is an Err (and `finish` returns it again).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamDelta>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if !self.seen_event && !self.raw_overflow {
            if self.raw.len() + bytes.len() > MAX_RAW {
                self.raw_overflow = true;
                self.raw = Vec::new();
            } else {
                self.raw.extend_from_slice(bytes);
            }
        }
        let mut deltas = Vec::new();
        let mut rest = bytes;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, &mut deltas)?;
        }
        self.line.extend_from_slice(rest);
        if self.line.len() > MAX_LINE {
            return Err(self.fail(ProviderError::new(
                ErrorKind::Unreadable,
                None,
                format!("a stream line longer than {} MB", MAX_LINE >> 20),
            )));
        }
        Ok(deltas)
    }

    /// The stream ended: the assembled completion with usage. Err(StreamCut) if the terminator
    /// never came; Err(EmptyOutput) when no choice has text.
    pub fn finish(mut self) -> Result<Completion, ProviderError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        // A last line or event without its final line end still counts; if it does not parse,
        // the stream was cut inside it.
        let mut ignored = Vec::new();
        let partial = !self.line.is_empty();
        let line = std::mem::take(&mut self.line);
        let flushed = self.line_done(&line, &mut ignored).and_then(|()| self.dispatch(&mut ignored));
        if let Err(e) = flushed {
            if partial && e.kind == ErrorKind::Unreadable {
                return Err(ProviderError::new(
                    ErrorKind::StreamCut,
                    None,
                    format!("the stream ended inside an event ({})", e.message),
                ));
            }
            return Err(e);
        }

        if !self.seen_event {
            let raw = String::from_utf8_lossy(&self.raw);
            // Only comments (keep-alives) and blank lines: nothing came.
            let content = raw.lines().map(str::trim).any(|l| !l.is_empty() && !l.starts_with(':'));
            if content && !self.raw_overflow {
                // Not SSE: perhaps the whole answer (or error) as plain JSON.
                return match parse_response(self.wire, 200, &[], &raw) {
                    Err(e) if e.kind == ErrorKind::Unreadable => Err(ProviderError::new(
                        ErrorKind::Unreadable,
                        None,
                        format!("the stream is not Server-Sent Events: {}", shorten(&raw, 300)),
                    )),
                    other => other.map_err(|e| ProviderError { status: None, ..e }),
                };
            }
            if self.raw_overflow {
                return Err(ProviderError::new(
                    ErrorKind::Unreadable,
                    None,
                    format!("the stream is not Server-Sent Events ({} MB without an event)", MAX_RAW >> 20),
                ));
            }
            return Err(ProviderError::new(ErrorKind::StreamCut, None, "the stream ended before any data"));
        }
        if !self.done {
            let chars: usize = self.asm.choices.values().map(|c| c.text.chars().count()).sum();
            let marker = match self.wire {
                WireFormat::OpenAiChat => "data: [DONE]",
                WireFormat::Anthropic => "message_stop",
                WireFormat::Gemini => "a finishReason",
            };
            return Err(ProviderError::new(
                ErrorKind::StreamCut,
                None,
                format!("the stream ended without {marker}, after {chars} characters of text"),
            ));
        }
        self.asm.finish(None)
    }

    fn fail(&mut self, e: ProviderError) -> ProviderError {
        self.error = Some(e.clone());
        e
    }

    /// One whole line of the SSE framing ("\r\n" ends are trimmed here).
    fn line_done(&mut self, line: &[u8], deltas: &mut Vec<StreamDelta>) -> Result<(), ProviderError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return self.dispatch(deltas);
        }
        if line[0] == b':' {
            return Ok(()); // a comment: keep-alives, "OPENROUTER PROCESSING"
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.find(':') {
            Some(i) => (&line[..i], line[i + 1..].strip_prefix(' ').unwrap_or(&line[i + 1..])),
            None => (&line[..], ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = value.to_string(),
            _ => {} // id, retry, and anything unknown
        }
        Ok(())
    }

    /// A blank line: the event read so far is complete.
    fn dispatch(&mut self, deltas: &mut Vec<StreamDelta>) -> Result<(), ProviderError> {
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        let had_data = std::mem::replace(&mut self.has_data, false);
        if !had_data || event == "ping" {
            return Ok(());
        }
        if !self.seen_event {
            self.seen_event = true;
            self.raw = Vec::new();
        }
        let data = data.trim();
        if data.is_empty() {
            return Ok(());
        }
        if self.wire == WireFormat::OpenAiChat && data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let values: Vec<Value> = match serde_json::from_str::<Value>(data) {
            Ok(v) => vec![v],
            // Several data lines without blank lines between (lax servers): each its own JSON.
            Err(_) if data.contains('\n') => {
                let mut vs = Vec::new();
                for part in data.lines().map(str::trim).filter(|l| !l.is_empty() && *l != "[DONE]") {
                    match serde_json::from_str(part) {
                        Ok(v) => vs.push(v),
                        Err(_) => return Err(self.not_json(part, &event)),
                    }
                }
                if data.lines().any(|l| l.trim() == "[DONE]") && self.wire == WireFormat::OpenAiChat {
                    self.done = true;
                }
                vs
            }
            Err(_) => return Err(self.not_json(data, &event)),
        };
        for v in values {
            // Gemini may wrap chunks in an array; every format's chunk is an object.
            let items = match v {
                Value::Array(items) => items,
                other => vec![other],
            };
            for item in items {
                self.handle(&event, &item, deltas)?;
            }
        }
        Ok(())
    }

    fn not_json(&mut self, data: &str, event: &str) -> ProviderError {
        if event == "error" {
            // An error event whose data is plain text.
            let e = inband_error(
                ErrorFields { message: data.to_string(), ..Default::default() },
                data,
                ErrorKind::StreamError,
                None,
            );
            return self.fail(e);
        }
        self.fail(ProviderError::new(
            ErrorKind::Unreadable,
            None,
            format!("a stream event that is not JSON: {}", shorten(data, 200)),
        ))
    }

    fn handle(&mut self, event: &str, v: &Value, deltas: &mut Vec<StreamDelta>) -> Result<(), ProviderError> {
        if let Some(fields) = error_fields(v) {
            return Err(self.fail(inband_error(fields, &v.to_string(), ErrorKind::StreamError, None)));
        }
        if event == "error" {
            let e = inband_error(
                ErrorFields { message: v.to_string(), ..Default::default() },
                &v.to_string(),
                ErrorKind::StreamError,
                None,
            );
            return Err(self.fail(e));
        }
        let mut push_delta = |index: u32, text: &str| match deltas.last_mut() {
            Some(last) if last.index == index => last.text.push_str(text),
            _ => deltas.push(StreamDelta { index, text: text.to_string() }),
        };
        let understood = match self.wire {
            WireFormat::OpenAiChat => {
                read_openai_into(v, &mut self.asm, true, &mut push_delta) || v.get("usage").is_some()
            }
            WireFormat::Gemini => {
                let ok = read_gemini_into(v, &mut self.asm, &mut push_delta);
                if self.asm.blocked.is_some() || self.asm.choices.values().any(|c| c.finish.is_some()) {
                    self.done = true;
                }
                ok
            }
            WireFormat::Anthropic => self.anthropic_event(event, v, &mut push_delta),
        };
        // Objects of no known shape are skipped (servers add their own); a missing terminator
        // still shows a stream that was not this format.
        if understood || v.is_object() {
            Ok(())
        } else {
            Err(self.fail(ProviderError::new(
                ErrorKind::Unreadable,
                None,
                format!("a stream event that is not {}: {}", wire_name(self.wire), shorten(&v.to_string(), 200)),
            )))
        }
    }

    /// Anthropic's named events; the data's own "type" is authoritative, the event name a fallback.
    fn anthropic_event(&mut self, event: &str, v: &Value, push_delta: &mut impl FnMut(u32, &str)) -> bool {
        let kind = str_field(v, "type").unwrap_or(event);
        match kind {
            "message_start" => {
                if let Some(m) = v.get("message") {
                    if let Some(u) = m.get("usage") {
                        apply_anthropic_usage(u, &mut self.asm.usage);
                    }
                    self.asm.model = str_field(m, "model").map(str::to_string);
                }
                self.asm.choice(0);
            }
            "content_block_start" => {
                let block = v.get("content_block");
                if let Some(b) = block
                    && str_field(b, "type") == Some("text")
                    && let Some(t) = str_field(b, "text").filter(|t| !t.is_empty())
                {
                    self.asm.choice(0).text.push_str(t);
                    push_delta(0, t);
                }
            }
            "content_block_delta" => {
                if let Some(d) = v.get("delta")
                    && str_field(d, "type") == Some("text_delta")
                    && let Some(t) = str_field(d, "text").filter(|t| !t.is_empty())
                {
                    self.asm.choice(0).text.push_str(t);
                    push_delta(0, t);
                }
                // thinking_delta, signature_delta, input_json_delta: not the answer's text.
            }
            "message_delta" => {
                if let Some(r) = v.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                    self.asm.choice(0).finish = Some(r.to_string());
                }
                if let Some(u) = v.get("usage") {
                    apply_anthropic_usage(u, &mut self.asm.usage);
                }
            }
            "message_stop" => self.done = true,
            "content_block_stop" | "ping" => {}
            // New event types are ignored rather than failing the stream.
            _ => {}
        }
        true
    }
}
