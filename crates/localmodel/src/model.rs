use std::io::{Cursor, Read, Seek};

use candle_core::quantized::gguf_file;

use crate::attention::KvCache;
use crate::chat::ChatMessage;
use crate::error::{LocalModelError, context};
use crate::tokenizer::ModelTokenizer;
use crate::transformer::{Shape, Transformer};

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

/// A loaded model with its tokenizer and the key/value cache of the sequence being decoded.
pub struct LocalModel {
    transformer: Transformer,
    cache: KvCache,
    /// The tokens whose keys and values `cache` holds, in order: a prompt that starts with some
    /// of them runs only the rest ([`LocalModel::prefill`]).
    sequence: Vec<u32>,
    /// How many of the last prefilled prompt's tokens came from the cache.
    reused: usize,
    tokenizer: ModelTokenizer,
    info: ModelInfo,
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
        Self::read_with(&mut Cursor::new(gguf), tokenizer_json)
    }

    /// As [`LocalModel::load_with`], from a reader: the header first, then each tensor at its
    /// offset, so the whole file need never be in memory at once (the page's worker reads a Blob
    /// of the kept parts; natively a file).
    pub fn read_with<R: Read + Seek>(reader: &mut R, tokenizer_json: Option<&[u8]>) -> Result<Self, LocalModelError> {
        let content = gguf_file::Content::read(reader).map_err(context("reading the GGUF file"))?;
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
        let float = |key: &str| md.get(&format!("{prefix}.{key}")).and_then(|v| v.to_f32().ok());
        let (hidden, heads) = (number("embedding_length")? as usize, number("attention.head_count")? as usize);
        if heads == 0 || hidden % heads != 0 {
            return Err(LocalModelError(format!(
                "the GGUF file's {prefix}.embedding_length ({hidden}) is not a whole number of heads ({heads})"
            )));
        }
        let head_dim = hidden / heads;
        let kv_heads = number("attention.head_count_kv")? as usize;
        if kv_heads == 0 || heads % kv_heads != 0 {
            return Err(LocalModelError(format!(
                "the GGUF file's {prefix}.attention.head_count_kv ({kv_heads}) does not divide the {heads} heads"
            )));
        }
        let rotary = md.get(&format!("{prefix}.rope.dimension_count")).and_then(|v| v.to_u32().ok());
        if let Some(rotary) = rotary.filter(|&r| r as usize != head_dim) {
            return Err(LocalModelError(format!(
                "the GGUF file rotates {rotary} of each head's {head_dim} dimensions ({prefix}.rope.dimension_count); only whole heads are supported"
            )));
        }
        let shape = Shape {
            layers: number("block_count")? as usize,
            hidden,
            heads,
            kv_heads,
            head_dim,
            context: number("context_length")? as usize,
            rms_eps: float("attention.layer_norm_rms_epsilon").ok_or_else(|| {
                LocalModelError(format!("the GGUF file has no number at key {prefix}.attention.layer_norm_rms_epsilon"))
            })? as f64,
            rope_base: float("rope.freq_base").unwrap_or(10_000.0),
            neox_rope: prefix == "qwen2",
        };
        let info = ModelInfo {
            architecture,
            layers: shape.layers as u32,
            hidden: hidden as u32,
            heads: heads as u32,
            kv_heads: kv_heads as u32,
            vocab: tokenizer.vocab(),
            context: shape.context as u32,
            end_tokens: tokenizer.end_tokens().to_vec(),
            chat_template: tokenizer.chat_template().map(str::to_string),
        };
        // qwen2 adds a bias to the query, key and value projections; llama does not.
        let biased = prefix == "qwen2";
        let transformer = Transformer::from_gguf(&content, reader, shape, biased)
            .map_err(context("loading the weights from the GGUF file"))?;
        let cache = transformer.new_cache();
        Ok(LocalModel { transformer, cache, sequence: Vec::new(), reused: 0, tokenizer, info })
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

    /// Starts a new sequence and returns the logits for the token after the prompt. The cache
    /// keeps the longest start the prompt shares with the sequence before it (as llama.cpp's
    /// server does), so only the rest is run: [`LocalModel::reused`] says how many were kept.
    pub fn prefill(&mut self, ids: &[u32]) -> Result<Vec<f32>, LocalModelError> {
        if ids.is_empty() {
            return Err(LocalModelError("the prompt has no tokens".into()));
        }
        // The last token always runs: its logits are the answer's first.
        let shared = self.sequence.iter().zip(ids).take_while(|(a, b)| a == b).count().min(ids.len() - 1);
        self.forget_after(shared)?;
        self.reused = shared;
        self.run(&ids[shared..])
    }

    /// How many tokens of the last prompt [`LocalModel::prefill`] took from the cache.
    pub fn reused(&self) -> usize {
        self.reused
    }

    /// Empties the key/value cache: the next prompt runs whole.
    pub fn clear_cache(&mut self) {
        let _ = self.forget_after(0);
    }

    /// Appends one token to the sequence and returns the logits for the token after it.
    pub fn step(&mut self, id: u32) -> Result<Vec<f32>, LocalModelError> {
        if self.sequence.is_empty() {
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
        (self.info.context as usize).saturating_sub(self.sequence.len())
    }

    fn forget_after(&mut self, len: usize) -> Result<(), LocalModelError> {
        self.sequence.truncate(len);
        self.cache.truncate(len);
        Ok(())
    }

    fn run(&mut self, ids: &[u32]) -> Result<Vec<f32>, LocalModelError> {
        if ids.len() > self.room() {
            return Err(LocalModelError(format!(
                "the sequence would reach {} tokens; the model's context is {}",
                self.sequence.len() + ids.len(),
                self.info.context
            )));
        }
        if let Some(&bad) = ids.iter().find(|&&id| id as usize >= self.info.vocab) {
            return Err(LocalModelError(format!("token id {bad} is outside the vocabulary ({})", self.info.vocab)));
        }
        match self.transformer.forward(ids, &mut self.cache) {
            Ok(logits) => {
                self.sequence.extend_from_slice(ids);
                Ok(logits)
            }
            Err(e) => {
                // A pass that failed part way leaves some layers longer than others.
                self.cache = self.transformer.new_cache();
                self.sequence.clear();
                Err(context("running the model")(e))
            }
        }
    }
}
