use std::io::Cursor;

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::models::{quantized_llama, quantized_qwen2};

use crate::chat::ChatMessage;
use crate::error::{LocalModelError, context};
use crate::tokenizer::ModelTokenizer;

/// What the GGUF file says about the model, for the page's status line and the checks below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    pub architecture: String,
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub vocab: usize,
    pub context: u32,
    /// Token ids that end the assistant's turn (the file's eos and the ChatML end tokens).
    pub end_tokens: Vec<u32>,
    pub chat_template: Option<String>,
}

/// The architectures this crate runs, by their GGUF `general.architecture` name.
pub const ARCHITECTURES: [&str; 2] = ["qwen2", "llama"];

/// The weights and key/value cache of one of [`ARCHITECTURES`] (candle's quantized models).
enum Weights {
    Qwen2(quantized_qwen2::ModelWeights),
    Llama(quantized_llama::ModelWeights),
}

impl Weights {
    fn clear_kv_cache(&mut self) {
        match self {
            Weights::Qwen2(w) => w.clear_kv_cache(),
            Weights::Llama(w) => w.clear_kv_cache(),
        }
    }

    /// The logits after the last of `input`'s tokens, which start at `position`.
    fn forward(&mut self, input: &Tensor, position: usize) -> candle_core::Result<Tensor> {
        match self {
            Weights::Qwen2(w) => w.forward(input, position),
            Weights::Llama(w) => w.forward(input, position),
        }
    }
}

/// A loaded model with its tokenizer and the key/value cache of the sequence being decoded.
pub struct LocalModel {
    weights: Weights,
    tokenizer: ModelTokenizer,
    info: ModelInfo,
    /// How many positions the cache holds (the next token's position).
    position: usize,
}

impl LocalModel {
    /// Reads a GGUF file (qwen2 or llama) and the model's tokenizer.json, both as bytes (in the browser
    /// they come from Cache Storage or OPFS, natively from files). The tokenizer.json must number
    /// tokens as the GGUF file does.
    pub fn load(gguf: &[u8], tokenizer_json: &[u8]) -> Result<Self, LocalModelError> {
        Self::load_with(gguf, Some(tokenizer_json))
    }

    /// Reads a GGUF file (qwen2 or llama) alone: its tokenizer comes from its own metadata
    /// ([`ModelTokenizer::from_gguf`]).
    pub fn load_gguf(gguf: &[u8]) -> Result<Self, LocalModelError> {
        Self::load_with(gguf, None)
    }

    /// Reads a GGUF file (qwen2 or llama), with its tokenizer.json when given (it wins over the file's
    /// metadata).
    pub fn load_with(gguf: &[u8], tokenizer_json: Option<&[u8]>) -> Result<Self, LocalModelError> {
        let mut reader = Cursor::new(gguf);
        let content = gguf_file::Content::read(&mut reader).map_err(context("reading the GGUF file"))?;
        let md = &content.metadata;
        let number = |key: &str| -> Result<u32, LocalModelError> {
            md.get(key)
                .and_then(|v| v.to_u32().ok())
                .ok_or_else(|| LocalModelError(format!("the GGUF file has no number at key {key}")))
        };
        let architecture = md.get("general.architecture").and_then(|v| v.to_string().ok()).cloned().unwrap_or_default();
        if !ARCHITECTURES.contains(&architecture.as_str()) {
            return Err(LocalModelError(format!(
                "the GGUF file's general.architecture is {architecture:?}; only {} models run here",
                ARCHITECTURES.map(|a| format!("{a:?}")).join(" and ")
            )));
        }
        let prefix = architecture.clone();
        let number = |key: &str| number(&format!("{prefix}.{key}"));
        let tokenizer = ModelTokenizer::from_content(&content, tokenizer_json)?;
        let info = ModelInfo {
            architecture,
            layers: number("block_count")?,
            hidden: number("embedding_length")?,
            heads: number("attention.head_count")?,
            kv_heads: number("attention.head_count_kv")?,
            vocab: tokenizer.vocab(),
            // candle's llama computes rotary positions for at most MAX_SEQ_LEN of them.
            context: match prefix.as_str() {
                "llama" => number("context_length")?.min(quantized_llama::MAX_SEQ_LEN as u32),
                _ => number("context_length")?,
            },
            end_tokens: tokenizer.end_tokens().to_vec(),
            chat_template: tokenizer.chat_template().map(str::to_string),
        };
        let weights = match prefix.as_str() {
            "llama" => quantized_llama::ModelWeights::from_gguf(content, &mut reader, &Device::Cpu).map(Weights::Llama),
            _ => quantized_qwen2::ModelWeights::from_gguf(content, &mut reader, &Device::Cpu).map(Weights::Qwen2),
        }
        .map_err(context("loading the weights from the GGUF file"))?;
        Ok(LocalModel { weights, tokenizer, info, position: 0 })
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The tokenizer and chat template (where they came from: [`ModelTokenizer::source`]).
    pub fn tokenizer(&self) -> &ModelTokenizer {
        &self.tokenizer
    }

    /// The prompt text for these messages and the assistant's turn, from the file's template.
    pub fn render_chat(&self, messages: &[ChatMessage]) -> Result<String, LocalModelError> {
        self.tokenizer.render_chat(messages)
    }

    pub fn encode(&self, text: &str) -> Result<Vec<u32>, LocalModelError> {
        self.tokenizer.encode(text)
    }

    pub fn decode(&self, ids: &[u32]) -> Result<String, LocalModelError> {
        self.tokenizer.decode(ids)
    }

    /// Starts a new sequence: runs the whole prompt at once and returns the logits for the
    /// token after it.
    pub fn prefill(&mut self, ids: &[u32]) -> Result<Vec<f32>, LocalModelError> {
        if ids.is_empty() {
            return Err(LocalModelError("the prompt has no tokens".into()));
        }
        self.weights.clear_kv_cache();
        self.position = 0;
        self.run(ids)
    }

    /// Appends one token to the sequence and returns the logits for the token after it.
    pub fn step(&mut self, id: u32) -> Result<Vec<f32>, LocalModelError> {
        if self.position == 0 {
            return Err(LocalModelError("step before prefill: there is no sequence to extend".into()));
        }
        self.run(&[id])
    }

    /// Replaces the tokens that end generation (e.g. to add a provider-specific one).
    pub fn set_end_tokens(&mut self, ids: Vec<u32>) {
        self.tokenizer.set_end_tokens(ids.clone());
        self.info.end_tokens = ids;
    }

    /// Positions left before the model's context length.
    pub fn room(&self) -> usize {
        (self.info.context as usize).saturating_sub(self.position)
    }

    fn run(&mut self, ids: &[u32]) -> Result<Vec<f32>, LocalModelError> {
        if ids.len() > self.room() {
            return Err(LocalModelError(format!(
                "the sequence would reach {} tokens; the model's context is {}",
                self.position + ids.len(),
                self.info.context
            )));
        }
        if let Some(&bad) = ids.iter().find(|&&id| id as usize >= self.info.vocab) {
            return Err(LocalModelError(format!("token id {bad} is outside the vocabulary ({})", self.info.vocab)));
        }
        let input =
            Tensor::new(ids, &Device::Cpu).and_then(|t| t.unsqueeze(0)).map_err(context("building the input"))?;
        let logits = self
            .weights
            .forward(&input, self.position)
            .and_then(|l| l.squeeze(0))
            .and_then(|l| l.to_vec1::<f32>())
            .map_err(context("running the model"))?;
        self.position += ids.len();
        Ok(logits)
    }
}
