use crate::error::LocalModelError;
use crate::model::LocalModel;
use crate::sampling::{Sampler, Sampling};

/// What one generation may do.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    pub max_tokens: usize,
    pub sampling: Sampling,
    /// Texts that end the answer once generated (e.g. `[/ANSWER]`); the text keeps them.
    pub stop_texts: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The model produced one of its end tokens (not part of the text).
    EndToken,
    /// The text reached one of the stop texts.
    StopText,
    MaxTokens,
    /// The model's context length was reached.
    Context,
    /// The caller's callback asked to stop (the page's Stop button).
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// Generated tokens, without the end token.
    pub tokens: Vec<u32>,
    pub text: String,
    pub stop: StopReason,
    pub prompt_tokens: usize,
}

/// How long the two phases of one generation took, by the caller's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// The prompt's tokens that were run, at once (those the cache did not hold).
    pub prefill_tokens: usize,
    /// The prompt's first tokens taken from the key/value cache, as the sequence before had them
    /// (llama.cpp's server calls them `cache_n`).
    pub reused_tokens: usize,
    pub prefill_ms: f64,
    /// Tokens run one at a time after the prompt (each generated token but the last, whose
    /// successor was never needed).
    pub decode_tokens: usize,
    /// From the end of prefill to the end of generation (sampling and detokenizing included).
    pub decode_ms: f64,
}

impl Timings {
    pub fn prefill_tokens_per_second(&self) -> Option<f64> {
        per_second(self.prefill_tokens, self.prefill_ms)
    }

    pub fn decode_tokens_per_second(&self) -> Option<f64> {
        per_second(self.decode_tokens, self.decode_ms)
    }

    /// Sums the timings of several generations (a run's status line).
    pub fn add(&mut self, other: &Timings) {
        self.prefill_tokens += other.prefill_tokens;
        self.reused_tokens += other.reused_tokens;
        self.prefill_ms += other.prefill_ms;
        self.decode_tokens += other.decode_tokens;
        self.decode_ms += other.decode_ms;
    }
}

fn per_second(tokens: usize, ms: f64) -> Option<f64> {
    (tokens > 0 && ms > 0.0).then(|| tokens as f64 * 1000.0 / ms)
}

/// Prefills `prompt` and decodes until an end token, a stop text, `max_tokens` or the context
/// length. `on_token` sees each new token and the text so far; returning false stops.
pub fn generate(
    model: &mut LocalModel,
    prompt: &[u32],
    options: &GenerateOptions,
    on_token: impl FnMut(u32, &str) -> bool,
) -> Result<Generation, LocalModelError> {
    generate_timed(model, prompt, options, || 0.0, on_token).map(|(generation, _)| generation)
}

/// [`generate`], timing prefill and decode with `now_ms` (milliseconds from any fixed point: the
/// crate reads no clock, `Instant` panics in wasm32).
pub fn generate_timed(
    model: &mut LocalModel,
    prompt: &[u32],
    options: &GenerateOptions,
    mut now_ms: impl FnMut() -> f64,
    mut on_token: impl FnMut(u32, &str) -> bool,
) -> Result<(Generation, Timings), LocalModelError> {
    let mut sampler = Sampler::new(options.sampling);
    let mut tokens = Vec::new();
    let mut text = String::new();
    let mut timings = Timings::default();
    if options.max_tokens == 0 {
        let generation = Generation { tokens, text, stop: StopReason::MaxTokens, prompt_tokens: prompt.len() };
        return Ok((generation, timings));
    }
    let start = now_ms();
    let mut logits = model.prefill(prompt)?;
    let prefilled = now_ms();
    timings.reused_tokens = model.reused();
    timings.prefill_tokens = prompt.len() - timings.reused_tokens;
    timings.prefill_ms = prefilled - start;
    let stop = loop {
        let next = sampler.next_token(&logits);
        if model.info().end_tokens.contains(&next) {
            break StopReason::EndToken;
        }
        tokens.push(next);
        // Decoding the whole answer each time keeps multi-byte characters split over tokens whole.
        text = model.decode(&tokens)?;
        if let Some(end) = options.stop_texts.iter().filter_map(|s| text.find(s.as_str()).map(|at| at + s.len())).min()
        {
            text.truncate(end);
            break StopReason::StopText;
        }
        if !on_token(next, &text) {
            break StopReason::Cancelled;
        }
        if tokens.len() >= options.max_tokens {
            break StopReason::MaxTokens;
        }
        if model.room() == 0 {
            break StopReason::Context;
        }
        logits = model.step(next)?;
        timings.decode_tokens += 1;
    };
    timings.decode_ms = now_ms() - prefilled;
    Ok((Generation { tokens, text, stop, prompt_tokens: prompt.len() }, timings))
}
