use crate::error::LocalModelError;
use crate::model::LocalModel;
use crate::sampling::{Sampler, Sampling};

/// What one generation may do.
#[derive(Debug, Clone)]
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

/// Prefills `prompt` and decodes until an end token, a stop text, `max_tokens` or the context
/// length. `on_token` sees each new token and the text so far; returning false stops.
pub fn generate(
    model: &mut LocalModel,
    prompt: &[u32],
    options: &GenerateOptions,
    mut on_token: impl FnMut(u32, &str) -> bool,
) -> Result<Generation, LocalModelError> {
    let mut sampler = Sampler::new(options.sampling);
    let mut tokens = Vec::new();
    let mut text = String::new();
    let finish = |tokens, text, stop| Ok(Generation { tokens, text, stop, prompt_tokens: prompt.len() });
    if options.max_tokens == 0 {
        return finish(tokens, text, StopReason::MaxTokens);
    }
    let mut logits = model.prefill(prompt)?;
    loop {
        let next = sampler.next_token(&logits);
        if model.info().end_tokens.contains(&next) {
            return finish(tokens, text, StopReason::EndToken);
        }
        tokens.push(next);
        // Decoding the whole answer each time keeps multi-byte characters split over tokens whole.
        text = model.decode(&tokens)?;
        if let Some(end) = options.stop_texts.iter().filter_map(|s| text.find(s.as_str()).map(|at| at + s.len())).min()
        {
            text.truncate(end);
            return finish(tokens, text, StopReason::StopText);
        }
        if !on_token(next, &text) {
            return finish(tokens, text, StopReason::Cancelled);
        }
        if tokens.len() >= options.max_tokens {
            return finish(tokens, text, StopReason::MaxTokens);
        }
        if model.room() == 0 {
            return finish(tokens, text, StopReason::Context);
        }
        logits = model.step(next)?;
    }
}
