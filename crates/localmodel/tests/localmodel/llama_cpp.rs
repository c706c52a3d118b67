//! What the comparisons with llama.cpp share: the real model files (fetched when missing, never
//! skipped), the CRUXEval prompts in the order the recorder asked them, and the walk over a
//! recorded tokenizer fixture (`scripts/llama_server/record_tokenizer.py`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
use execbench_localmodel::{ChatMessage, ModelTokenizer};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The path a fetch script under `scripts/llama_server/` prints last, running it when its
/// `--check` fails. A fetch that fails fails the test: the comparison is never skipped.
pub fn fetched_model(script: &str, what: &str) -> PathBuf {
    let fetch = root().join("scripts/llama_server").join(script);
    let run = |args: &[&str]| {
        Command::new("bash").arg(&fetch).args(args).stderr(Stdio::inherit()).output().expect("run the fetch script")
    };
    let mut output = run(&["--check"]);
    if !output.status.success() {
        eprintln!("\n*** {what} is not on this machine: fetching it with scripts/llama_server/{script} ***\n");
        output = run(&[]);
        assert!(output.status.success(), "{what} is absent and {script} could not fetch it");
    }
    let stdout = String::from_utf8(output.stdout).unwrap();
    let model = PathBuf::from(stdout.lines().last().unwrap_or_default());
    assert!(Path::new(&model).is_file(), "{script} named {model:?}, which is not a file");
    model
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The fixture's hash of an id list: SHA-256 of the ids in decimal, joined by commas.
pub fn ids_sha256(ids: &[u32]) -> String {
    sha256_hex(ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",").as_bytes())
}

pub fn messages_of(value: &Value) -> Vec<ChatMessage> {
    value
        .as_array()
        .expect("a list of messages")
        .iter()
        .map(|m| ChatMessage::new(m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect()
}

/// One CRUXEval prompt as the run engine builds it with a built-in direct template.
pub struct Prompt {
    pub task: &'static str,
    pub template: String,
    pub sample: String,
    pub messages: Vec<ChatMessage>,
}

impl Prompt {
    pub fn key(&self) -> String {
        format!("{}/{}", self.task, self.sample)
    }
}

/// Every CRUXEval prompt of both tasks, output first: the order the recorder asked llama.cpp in.
pub fn cruxeval_prompts() -> Vec<Prompt> {
    let path = root().join("public/data/cruxeval/cruxeval.jsonl");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let samples = execbench_core::load_jsonl_bytes("cruxeval.jsonl", &bytes).samples;
    assert_eq!(samples.len(), 800, "the bundled CRUXEval");
    let mut out = Vec::new();
    for (task, name) in [(Task::Output, "output"), (Task::Input, "input")] {
        let template = default_template(task, Style::Direct);
        for sample in &samples {
            let prompt = template.render(sample);
            let messages = prompt.messages.iter().map(|m| ChatMessage::new(&m.role, &m.content)).collect();
            out.push(Prompt { task: name, template: template.id.clone(), sample: sample.id.clone(), messages });
        }
    }
    out
}

/// Every difference between our tokenizer and llama.cpp's recorded fixture: its chats rendered in
/// full, its edge-case texts, and every CRUXEval prompt by the SHA-256 of its rendering and of its
/// ids (some prompts also id by id, which shows where they part). Prints what agreed.
pub fn differences_from_llama_cpp(tok: &ModelTokenizer, fixture: &Value, model: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let chats = fixture["chats"].as_array().expect("chats");
    assert!(chats.len() >= 3, "the fixture keeps at least three chats");
    for chat in chats {
        let ours = tok.render_chat(&messages_of(&chat["messages"])).unwrap();
        if ours != chat["text"].as_str().unwrap() {
            failures.push(format!("chat {}: we render {ours:?}, llama.cpp {}", chat["name"], chat["text"]));
        }
        let ids = tok.encode(&ours).unwrap();
        if ids != common::ids(&chat["ids"]) {
            failures.push(format!("chat {}: ids ours {ids:?}, llama.cpp {}", chat["name"], chat["ids"]));
        }
    }
    for text in fixture["texts"].as_array().expect("texts") {
        let ids = tok.encode(text["text"].as_str().unwrap()).unwrap();
        if ids != common::ids(&text["ids"]) {
            failures.push(format!("the text {}: ours {ids:?}, llama.cpp {}", text["text"], text["ids"]));
        }
    }

    let recorded = fixture["prompts"].as_array().expect("prompts");
    let full = fixture["full"].as_object().expect("full");
    assert!(full.len() >= 20, "the fixture keeps the full ids of at least 20 prompts");
    let prompts = cruxeval_prompts();
    assert_eq!(recorded.len(), prompts.len(), "the fixture holds every prompt (re-record it if the dataset moved)");
    let (mut same_text, mut same_ids, mut tokens) = (0, 0, 0);
    let started = Instant::now();
    for (prompt, want) in prompts.iter().zip(recorded) {
        let key = prompt.key();
        assert_eq!(want["key"].as_str(), Some(key.as_str()), "the fixture's prompts are in the test's order");
        assert_eq!(want["template"].as_str(), Some(prompt.template.as_str()), "{key}");
        let text = tok.render_chat(&prompt.messages).unwrap();
        let ids = tok.encode(&text).unwrap();
        tokens += ids.len();
        if sha256_hex(text.as_bytes()) == want["text_sha256"].as_str().unwrap() {
            same_text += 1;
        } else {
            failures.push(format!("{key}: the rendered prompt is not llama.cpp's"));
        }
        if ids_sha256(&ids) == want["ids_sha256"].as_str().unwrap() {
            same_ids += 1;
        } else {
            failures.push(format!(
                "{key}: token ids are not llama.cpp's ({} tokens here, {} there)",
                ids.len(),
                want["tokens"]
            ));
        }
        if let Some(theirs) = full.get(&key).map(common::ids).filter(|theirs| *theirs != ids) {
            let at = ids.iter().zip(&theirs).position(|(a, b)| a != b).unwrap_or(ids.len().min(theirs.len()));
            failures.push(format!(
                "{key}: in full, the ids part at token {at}: ours {:?}, llama.cpp {:?}",
                &ids[at..(at + 5).min(ids.len())],
                &theirs[at..(at + 5).min(theirs.len())]
            ));
        }
    }
    eprintln!(
        "{model}: {} prompts ({tokens} tokens) rendered and tokenized in {:.1} s: {same_text} renderings and \
         {same_ids} id lists identical to llama.cpp's; {} prompts also compared id by id",
        prompts.len(),
        started.elapsed().as_secs_f64(),
        full.len()
    );
    failures
}
