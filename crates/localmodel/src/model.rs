use std::io::Cursor;

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::models::quantized_qwen2::ModelWeights;
use tokenizers::Tokenizer;

use crate::chat::{self, ChatMessage};
use crate::error::{LocalModelError, context};

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

/// A loaded model with its tokenizer and the key/value cache of the sequence being decoded.
pub struct LocalModel {
    weights: ModelWeights,
    tokenizer: Tokenizer,
    info: ModelInfo,
    /// How many positions the cache holds (the next token's position).
    position: usize,
}

/// Tokens that end a turn in the ChatML format Qwen models use, when the tokenizer has them.
const CHATML_END_TOKENS: [&str; 2] = ["<|im_end|>", "<|endoftext|>"];

impl LocalModel {
    /// Reads a qwen2 GGUF file and the model's tokenizer.json, both as bytes (in the browser
    /// they come from Cache Storage or OPFS, natively from files).
    pub fn load(gguf: &[u8], tokenizer_json: &[u8]) -> Result<Self, LocalModelError> {
        let mut reader = Cursor::new(gguf);
        let content = gguf_file::Content::read(&mut reader).map_err(context("reading the GGUF file"))?;
        let md = &content.metadata;
        let text = |key: &str| md.get(key).and_then(|v| v.to_string().ok()).cloned();
        let number = |key: &str| -> Result<u32, LocalModelError> {
            md.get(key)
                .and_then(|v| v.to_u32().ok())
                .ok_or_else(|| LocalModelError(format!("the GGUF file has no number at key {key}")))
        };
        let architecture = text("general.architecture").unwrap_or_default();
        if architecture != "qwen2" {
            return Err(LocalModelError(format!(
                "the GGUF file's general.architecture is {architecture:?}; only \"qwen2\" models run here"
            )));
        }
        let gguf_tokens: Vec<String> = match md.get("tokenizer.ggml.tokens").map(|v| v.to_vec()) {
            Some(Ok(list)) => list.iter().filter_map(|v| v.to_string().ok().cloned()).collect(),
            _ => return Err(LocalModelError("the GGUF file has no list at key tokenizer.ggml.tokens".into())),
        };
        let tokenizer = Tokenizer::from_bytes(tokenizer_json).map_err(context("reading tokenizer.json"))?;
        check_same_vocabulary(&tokenizer, &gguf_tokens)?;

        let mut end_tokens: Vec<u32> = Vec::new();
        if let Ok(eos) = number("tokenizer.ggml.eos_token_id") {
            end_tokens.push(eos);
        }
        for name in CHATML_END_TOKENS {
            if let Some(id) = tokenizer.token_to_id(name).filter(|id| !end_tokens.contains(id)) {
                end_tokens.push(id);
            }
        }
        let info = ModelInfo {
            architecture,
            layers: number("qwen2.block_count")?,
            hidden: number("qwen2.embedding_length")?,
            heads: number("qwen2.attention.head_count")?,
            kv_heads: number("qwen2.attention.head_count_kv")?,
            vocab: gguf_tokens.len(),
            context: number("qwen2.context_length")?,
            end_tokens,
            chat_template: text("tokenizer.chat_template"),
        };
        let weights = ModelWeights::from_gguf(content, &mut reader, &Device::Cpu)
            .map_err(context("loading the weights from the GGUF file"))?;
        Ok(LocalModel { weights, tokenizer, info, position: 0 })
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The prompt text for these messages and the assistant's turn, from the file's template.
    pub fn render_chat(&self, messages: &[ChatMessage]) -> Result<String, LocalModelError> {
        let template = self.info.chat_template.as_deref().ok_or_else(|| {
            LocalModelError("the GGUF file has no chat template (key tokenizer.chat_template)".into())
        })?;
        let eos = self.info.end_tokens.first().and_then(|&id| self.tokenizer.id_to_token(id));
        // Qwen2 files add no beginning-of-sequence token, so templates get an empty one.
        chat::render(template, messages, "", &eos.unwrap_or_default())
    }

    pub fn encode(&self, text: &str) -> Result<Vec<u32>, LocalModelError> {
        // Special tokens in the text (<|im_start|>…) are the template's and must stay single ids.
        let encoding = self.tokenizer.encode(text, false).map_err(context("tokenizing the prompt"))?;
        Ok(encoding.get_ids().to_vec())
    }

    pub fn decode(&self, ids: &[u32]) -> Result<String, LocalModelError> {
        self.tokenizer.decode(ids, false).map_err(context("turning tokens into text"))
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

/// The GGUF file and tokenizer.json must number tokens alike, or the model reads other words.
fn check_same_vocabulary(tokenizer: &Tokenizer, gguf_tokens: &[String]) -> Result<(), LocalModelError> {
    let vocab = tokenizer.get_vocab(true);
    if vocab.len() > gguf_tokens.len() {
        return Err(LocalModelError(format!(
            "tokenizer.json has {} tokens but the GGUF file only {}: they are not the same model's",
            vocab.len(),
            gguf_tokens.len()
        )));
    }
    for (token, &id) in &vocab {
        if gguf_tokens.get(id as usize) != Some(token) {
            return Err(LocalModelError(format!(
                "token {id} is {token:?} in tokenizer.json but {:?} in the GGUF file: they are not the same model's",
                gguf_tokens.get(id as usize)
            )));
        }
    }
    Ok(())
}
