//! The model's text side: its tokenizer, end tokens and chat template. The tokenizer is built
//! from the GGUF file's own metadata (`tokenizer.ggml.*`, as llama.cpp reads it), so the one
//! file is enough; a tokenizer.json given beside it wins. Only metadata is read here, never a
//! tensor: a page or a test gets token ids without loading the weights.
//!
//! A GGUF "gpt2" tokenizer is byte-level BPE: text is cut by the pre-tokenizer's split pattern
//! (named by `tokenizer.ggml.pre`), each piece's UTF-8 bytes become the 256 byte-level
//! characters, and the ranked merges join them into the tokens of `tokenizer.ggml.tokens`.
//! Tokens typed CONTROL or USER_DEFINED in `tokenizer.ggml.token_type` (`<|im_start|>`,
//! `<tool_call>`) are matched whole in the text first, as llama.cpp's tokenizer does when asked
//! to parse special tokens. No Unicode normalization is applied: llama.cpp applies none.

use std::io::Cursor;

use candle_core::quantized::gguf_file::{self, Value};
use tokenizers::models::bpe::{BPE, Vocab};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, PreTokenizerWrapper, SplitDelimiterBehavior, Tokenizer};

use crate::chat::{self, ChatMessage};
use crate::error::{LocalModelError, context};

/// Tokens that end a turn in the ChatML format Qwen models use, when the vocabulary has them.
const CHATML_END_TOKENS: [&str; 2] = ["<|im_end|>", "<|endoftext|>"];

/// Token texts llama.cpp takes for the end of a turn and so as control tokens, whatever their
/// type in the file: matched whole in text and ending generation. Qwen2.5's vocabulary has "</s>"
/// as a plain token (128247); llama.cpp says so when it loads the file ("control-looking token:
/// 128247 '</s>' was not control-type ... its type will be overridden") and tokenizes "</s>" as
/// that one id (the recorded fixture of tests/localmodel/gguf_tokenizer.rs).
const CONTROL_BY_NAME: [&str; 1] = ["</s>"];

/// `tokenizer.ggml.token_type` values (llama.cpp's numbering).
const TYPE_CONTROL: i64 = 3;
const TYPE_USER_DEFINED: i64 = 4;

/// Split patterns of the pre-tokenizers this crate knows, by their `tokenizer.ggml.pre` name,
/// applied one after the other (each cuts the pieces the previous one left). A name missing here
/// is refused rather than guessed: another model's split would give other ids, silently.
///
/// qwen2: English contractions (either case), a letter run with at most one non-letter,
/// non-digit, non-newline character before it, one digit at a time, punctuation runs with an
/// optional leading space and the newlines after them, newline runs with the spaces before them,
/// spaces not followed by a non-space, and any other spaces.
///
/// smollm (SmolLM2): digits one by one, then GPT-2's split (below).
const PRE_TOKENIZERS: &[(&str, &[&str])] = &[
    (
        "qwen2",
        &[concat!(
            r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])",
            r"|[^\r\n\p{L}\p{N}]?\p{L}+",
            r"|\p{N}",
            r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
            r"|\s*[\r\n]+",
            r"|\s+(?!\S)",
            r"|\s+",
        )],
    ),
    (
        "smollm",
        &[
            // Every digit is a piece of its own, before anything else is cut.
            r"\p{N}",
            // Then GPT-2's rule on what is left: lowercase English contractions, a letter run, a
            // digit run or a run of other non-space characters, each with an optional leading
            // space; spaces not followed by a non-space; any other spaces.
            concat!(
                r"'s|'t|'re|'ve|'m|'ll|'d",
                r"| ?\p{L}+",
                r"| ?\p{N}+",
                r"| ?[^\s\p{L}\p{N}]+",
                r"|\s+(?!\S)",
                r"|\s+",
            ),
        ],
    ),
];

/// The names of the pre-tokenizers [`ModelTokenizer::from_gguf`] can build.
pub fn known_pre_tokenizers() -> Vec<&'static str> {
    PRE_TOKENIZERS.iter().map(|(name, _)| *name).collect()
}

/// Where the tokenizer came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenizerSource {
    /// The GGUF file's metadata; `pre` is its `tokenizer.ggml.pre`.
    Gguf { pre: String },
    /// A tokenizer.json given beside the GGUF file.
    Json,
}

/// A model's tokenizer and chat template, read from its GGUF file (and a tokenizer.json when
/// one is given).
pub struct ModelTokenizer {
    tokenizer: Tokenizer,
    source: TokenizerSource,
    /// Tokens in the GGUF file's vocabulary (`tokenizer.ggml.tokens`).
    vocab: usize,
    /// Token ids that end the assistant's turn (the file's eos, the ChatML end tokens and, read
    /// from the GGUF, those of `CONTROL_BY_NAME`).
    end_tokens: Vec<u32>,
    chat_template: Option<String>,
    /// `tokenizer.ggml.add_bos_token`: whether llama.cpp starts a prompt with the bos token.
    add_bos: bool,
    bos: Option<u32>,
}

impl ModelTokenizer {
    /// The tokenizer of a GGUF file, from its metadata alone (tensors are not read).
    pub fn from_gguf(gguf: &[u8]) -> Result<Self, LocalModelError> {
        Self::from_gguf_with(gguf, None)
    }

    /// The tokenizer of a GGUF file: `tokenizer_json` when given (checked to number tokens as
    /// the GGUF file does), else the file's own metadata.
    pub fn from_gguf_with(gguf: &[u8], tokenizer_json: Option<&[u8]>) -> Result<Self, LocalModelError> {
        let content = gguf_file::Content::read(&mut Cursor::new(gguf)).map_err(context("reading the GGUF file"))?;
        Self::from_content(&content, tokenizer_json)
    }

    pub(crate) fn from_content(
        content: &gguf_file::Content,
        tokenizer_json: Option<&[u8]>,
    ) -> Result<Self, LocalModelError> {
        let md = &content.metadata;
        let tokens = string_list(md.get("tokenizer.ggml.tokens"), "tokenizer.ggml.tokens")?;
        let (tokenizer, source) = match tokenizer_json {
            Some(json) => {
                let tokenizer = Tokenizer::from_bytes(json).map_err(context("reading tokenizer.json"))?;
                check_same_vocabulary(&tokenizer, &tokens)?;
                (tokenizer, TokenizerSource::Json)
            }
            None => {
                let (tokenizer, pre) = tokenizer_from_metadata(md, tokens.clone())?;
                (tokenizer, TokenizerSource::Gguf { pre })
            }
        };
        let id = |key: &str| md.get(key).and_then(integer).and_then(|v| u32::try_from(v).ok());
        let mut end_tokens: Vec<u32> = Vec::new();
        if let Some(eos) = id("tokenizer.ggml.eos_token_id") {
            end_tokens.push(eos);
        }
        let by_name: &[&str] = match source {
            TokenizerSource::Gguf { .. } => &CONTROL_BY_NAME,
            TokenizerSource::Json => &[],
        };
        for name in CHATML_END_TOKENS.iter().chain(by_name) {
            if let Some(id) = tokenizer.token_to_id(name).filter(|id| !end_tokens.contains(id)) {
                end_tokens.push(id);
            }
        }
        let chat_template = md.get("tokenizer.chat_template").and_then(|v| v.to_string().ok()).cloned();
        let add_bos = md.get("tokenizer.ggml.add_bos_token").and_then(|v| v.to_bool().ok()).unwrap_or(false);
        let bos = id("tokenizer.ggml.bos_token_id");
        Ok(ModelTokenizer { tokenizer, source, vocab: tokens.len(), end_tokens, chat_template, add_bos, bos })
    }

    pub fn source(&self) -> &TokenizerSource {
        &self.source
    }

    /// Tokens in the GGUF file's vocabulary.
    pub fn vocab(&self) -> usize {
        self.vocab
    }

    /// Token ids that end the assistant's turn.
    pub fn end_tokens(&self) -> &[u32] {
        &self.end_tokens
    }

    pub(crate) fn set_end_tokens(&mut self, ids: Vec<u32>) {
        self.end_tokens = ids;
    }

    pub fn chat_template(&self) -> Option<&str> {
        self.chat_template.as_deref()
    }

    /// `tokenizer.ggml.add_bos_token` and `bos_token_id`: the bos token llama.cpp puts before a
    /// prompt, if any. [`ModelTokenizer::encode`] never adds it (templates that want it write it).
    pub fn bos_added_by_llama_cpp(&self) -> Option<u32> {
        self.bos.filter(|_| self.add_bos)
    }

    /// The prompt text for these messages and the assistant's turn, from the file's template.
    pub fn render_chat(&self, messages: &[ChatMessage]) -> Result<String, LocalModelError> {
        let template = self.chat_template.as_deref().ok_or_else(|| {
            LocalModelError("the GGUF file has no chat template (key tokenizer.chat_template)".into())
        })?;
        let eos = self.end_tokens.first().and_then(|&id| self.tokenizer.id_to_token(id));
        // Qwen2 files add no beginning-of-sequence token, so templates get an empty one.
        chat::render(template, messages, "", &eos.unwrap_or_default())
    }

    /// Token ids of `text`. Special tokens written in it (`<|im_start|>`…) are the template's and
    /// stay single ids; nothing is added before or after.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, LocalModelError> {
        let encoding = self.tokenizer.encode(text, false).map_err(context("tokenizing the prompt"))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// The prompt's token ids for these messages: the template rendered, then tokenized, as the
    /// model is asked.
    pub fn chat_ids(&self, messages: &[ChatMessage]) -> Result<Vec<u32>, LocalModelError> {
        self.encode(&self.render_chat(messages)?)
    }

    pub fn decode(&self, ids: &[u32]) -> Result<String, LocalModelError> {
        self.tokenizer.decode(ids, false).map_err(context("turning tokens into text"))
    }

    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.tokenizer.id_to_token(id)
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.token_to_id(token)
    }
}

type Metadata = std::collections::HashMap<String, Value>;

/// Any integer value, as a signed number (files differ in the width they store ids with).
fn integer(v: &Value) -> Option<i64> {
    match *v {
        Value::U8(x) => Some(x.into()),
        Value::I8(x) => Some(x.into()),
        Value::U16(x) => Some(x.into()),
        Value::I16(x) => Some(x.into()),
        Value::U32(x) => Some(x.into()),
        Value::I32(x) => Some(x.into()),
        Value::U64(x) => i64::try_from(x).ok(),
        Value::I64(x) => Some(x),
        _ => None,
    }
}

fn string_list(value: Option<&Value>, key: &str) -> Result<Vec<String>, LocalModelError> {
    let missing = || LocalModelError(format!("the GGUF file has no list of texts at key {key}"));
    let list = value.ok_or_else(missing)?.to_vec().map_err(|_| missing())?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            v.to_string().cloned().map_err(|_| LocalModelError(format!("the GGUF file's {key}[{i}] is not a text")))
        })
        .collect()
}

/// Builds the byte-level BPE tokenizer the metadata describes; also returns the pre-tokenizer's
/// name.
fn tokenizer_from_metadata(md: &Metadata, tokens: Vec<String>) -> Result<(Tokenizer, String), LocalModelError> {
    let text = |key: &str| md.get(key).and_then(|v| v.to_string().ok()).cloned();
    let model = text("tokenizer.ggml.model").ok_or_else(|| {
        LocalModelError("the GGUF file names no tokenizer (key tokenizer.ggml.model); pass its tokenizer.json".into())
    })?;
    if model != "gpt2" {
        return Err(LocalModelError(format!(
            "the GGUF file's tokenizer is {model:?} (tokenizer.ggml.model); only \"gpt2\" (byte-level BPE) is read \
             from GGUF metadata here: pass the model's tokenizer.json"
        )));
    }
    let pre = text("tokenizer.ggml.pre").unwrap_or_else(|| "default".to_string());
    let patterns = PRE_TOKENIZERS.iter().find(|(name, _)| *name == pre).map(|(_, p)| *p).ok_or_else(|| {
        LocalModelError(format!(
            "the GGUF file's pre-tokenizer {pre:?} (tokenizer.ggml.pre) is not one this build knows (known: {}); \
             pass the model's tokenizer.json",
            known_pre_tokenizers().join(", ")
        ))
    })?;
    let types: Vec<i64> = match md.get("tokenizer.ggml.token_type") {
        None => vec![1; tokens.len()],
        Some(v) => {
            let bad = || LocalModelError("the GGUF file's tokenizer.ggml.token_type is not a list of numbers".into());
            v.to_vec().map_err(|_| bad())?.iter().map(|t| integer(t).ok_or_else(bad)).collect::<Result<_, _>>()?
        }
    };
    if types.len() != tokens.len() {
        return Err(LocalModelError(format!(
            "the GGUF file has {} tokens but {} token types: it is damaged",
            tokens.len(),
            types.len()
        )));
    }
    let merges = string_list(md.get("tokenizer.ggml.merges"), "tokenizer.ggml.merges")?
        .into_iter()
        .enumerate()
        .map(|(i, merge)| {
            // Byte-level tokens never hold a space, so the first space after the first character
            // separates the pair.
            let cut = merge.char_indices().skip(1).find(|&(_, c)| c == ' ').map(|(at, _)| at);
            match cut {
                Some(at) => Ok((merge[..at].to_string(), merge[at + 1..].to_string())),
                None => Err(LocalModelError(format!("the GGUF file's merge {i} ({merge:?}) is not two tokens"))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;

    let vocab: Vocab = tokens.iter().enumerate().map(|(id, token)| (token.clone(), id as u32)).collect();
    // A byte-level vocabulary has a token for every printable ASCII byte. Some files lack a few
    // other bytes' tokens (SmolLM2's: 21, mostly bytes UTF-8 never uses, and 0x04, 0x06, 0x13,
    // 0x14, 0x16, 0x1d): llama.cpp then drops such a byte from the text, and so does the BPE
    // model here (it has no unknown token), so those files are read as llama.cpp reads them.
    if let Some(byte) = (b'!'..=b'~').find(|&b| !vocab.contains_key(&byte_level_char(b).to_string())) {
        return Err(LocalModelError(format!(
            "the GGUF file's vocabulary has no token for the byte 0x{byte:02x} ({:?}): it is not a byte-level BPE vocabulary",
            byte_level_char(byte)
        )));
    }
    let isolate_missing = missing_bytes_pattern(&vocab);
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(context("building the tokenizer from the GGUF file's tokens and merges"))?;
    let mut pre_tokenizers: Vec<PreTokenizerWrapper> = Vec::with_capacity(patterns.len() + 2);
    for pattern in patterns.iter().copied().chain(isolate_missing.as_deref()) {
        let split = Split::new(SplitPattern::Regex(pattern.to_string()), SplitDelimiterBehavior::Isolated, false)
            .map_err(context("the pre-tokenizer's split pattern"))?;
        pre_tokenizers.push(split.into());
    }
    pre_tokenizers.push(ByteLevel::new(false, false, false).into());

    let mut tokenizer = Tokenizer::new(bpe);
    tokenizer.with_pre_tokenizer(Some(Sequence::new(pre_tokenizers)));
    tokenizer.with_decoder(Some(ByteLevel::new(false, false, false)));
    // Control tokens are special (skipped by a decode that skips specials); user-defined ones are
    // plain text the model knows as one token. Both are matched whole before the split.
    let added: Vec<AddedToken> = tokens
        .iter()
        .zip(&types)
        .map(|(token, &t)| (token, if CONTROL_BY_NAME.contains(&token.as_str()) { TYPE_CONTROL } else { t }))
        .filter(|&(_, t)| t == TYPE_CONTROL || t == TYPE_USER_DEFINED)
        .map(|(token, t)| AddedToken::from(token.clone(), t == TYPE_CONTROL).normalized(false))
        .collect();
    let (special, plain): (Vec<AddedToken>, Vec<AddedToken>) = added.into_iter().partition(|t| t.special);
    tokenizer.add_special_tokens(special).map_err(context("the GGUF file's control tokens"))?;
    tokenizer.add_tokens(plain).map_err(context("the GGUF file's user-defined tokens"))?;
    Ok((tokenizer, pre))
}

/// A pattern matching the characters whose UTF-8 holds a byte the vocabulary has no token for,
/// if there are any. llama.cpp keeps such a character in its piece while merging (so nothing
/// merges across it) and then drops the missing bytes; the BPE model here would drop the
/// character before merging and join its neighbours. Cut out as pieces of their own, they stop
/// merges as in llama.cpp and are dropped. Covered: missing ASCII bytes and lead bytes (all of
/// SmolLM2's); a missing continuation byte is not cut out (no vocabulary seen here lacks one).
fn missing_bytes_pattern(vocab: &Vocab) -> Option<String> {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for byte in (0..=255u8).filter(|&b| !vocab.contains_key(&byte_level_char(b).to_string())) {
        let b = u32::from(byte);
        let range = match byte {
            0x00..=0x7f => Some((b, b)),
            0xc2..=0xdf => Some(((b - 0xc0) << 6, ((b - 0xc0) << 6) | 0x3f)),
            // 0xed's range holds the surrogates, which no text holds: up to U+D7FF.
            0xed => Some((0xd000, 0xd7ff)),
            0xe0..=0xef => Some(((b - 0xe0) << 12, ((b - 0xe0) << 12) | 0xfff)),
            0xf0..=0xf4 => Some(((b - 0xf0) << 18, (((b - 0xf0) << 18) | 0x3ffff).min(0x10ffff))),
            // Continuation bytes; and 0xc0, 0xc1, 0xf5.. which UTF-8 never uses.
            _ => None,
        };
        ranges.extend(range);
    }
    if ranges.is_empty() {
        return None;
    }
    let class: String = ranges.iter().map(|(from, to)| format!("\\x{{{from:x}}}-\\x{{{to:x}}}")).collect();
    Some(format!("[{class}]"))
}

/// The character byte-level BPE writes for a byte: printable Latin-1 characters (other than the
/// space and soft hyphen) stand for themselves; the other 68 bytes, in order, for U+0100 onwards.
fn byte_level_char(byte: u8) -> char {
    let shown = |b: u8| matches!(b, b'!'..=b'~' | 0xa1..=0xac | 0xae..=0xff);
    if shown(byte) {
        return char::from(byte);
    }
    let rank = (0..byte).filter(|&b| !shown(b)).count() as u32;
    char::from_u32(0x100 + rank).unwrap_or(char::REPLACEMENT_CHARACTER)
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
