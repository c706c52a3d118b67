//! The page ↔ model worker messages, as JSON text (like the other workers'). One worker at a
//! time; it downloads files into Cache Storage, lists and removes them, loads a model from them
//! and answers chat-completions bodies with it.

use serde::{Deserialize, Serialize};

use crate::catalogue::FileSpec;
use crate::download::KeptFile;

/// Page to worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToWorker {
    /// The file's size, by a HEAD request (for a file the catalogue gives none for).
    Size {
        url: String,
    },
    /// Downloads (or resumes) a file; answered by `Progress`… then `Downloaded` or `DownloadFailed`.
    Download {
        file: FileSpec,
    },
    List,
    Remove {
        url: String,
    },
    /// Loads a model from kept, complete files (nothing is downloaded): the GGUF file with
    /// tokenizer.json when given, else with the GGUF's own tokenizer.
    Load {
        gguf: String,
        #[serde(default)]
        tokenizer: Option<String>,
    },
    /// A chat-completions request body; answered by `Reply` with the same id.
    Chat {
        id: u64,
        body: String,
    },
    /// For the tests' check against the NumPy reference: the loaded model's logits after
    /// `prompt` and after each of `forced` (teacher-forced), and its greedy tokens (as many).
    Logits {
        prompt: Vec<u32>,
        forced: Vec<u32>,
    },
    /// For the benchmark: `prompt` prefilled, then `steps` greedy decode steps, timed in the
    /// worker (as crates/bench times the native engine on the same ids).
    Time {
        prompt: Vec<u32>,
        steps: u32,
    },
}

/// Worker to page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromWorker {
    /// Listening: the page may send messages.
    Ready,
    Size {
        url: String,
        bytes: Option<u64>,
        error: Option<String>,
    },
    Progress {
        url: String,
        received: u64,
        total: Option<u64>,
    },
    /// Every byte in; `checked`: the published SHA-256 matched (false: there was none to check).
    Downloaded {
        url: String,
        bytes: u64,
        checked: bool,
    },
    /// Stopped before the end; `kept` bytes stay for a resume (0 after a checksum refusal).
    DownloadFailed {
        url: String,
        error: String,
        kept: u64,
    },
    Listing {
        files: Vec<KeptFile>,
    },
    Removed {
        url: String,
    },
    /// `memory_bytes`: the worker's wasm memory once loaded, which is also its peak so far (a
    /// wasm memory grows and never shrinks).
    Loaded {
        summary: String,
        load_ms: f64,
        #[serde(default)]
        memory_bytes: u64,
    },
    LoadFailed {
        error: String,
    },
    /// `speed`: how long this answer's prefill and decode took (none for an error).
    Reply {
        id: u64,
        status: u16,
        content_type: String,
        body: String,
        speed: Option<Speed>,
    },
    Logits {
        rows: Vec<Vec<f32>>,
        greedy: Vec<u32>,
        error: Option<String>,
    },
    Timed {
        prefill_ms: f64,
        decode_ms: f64,
        first_tokens: Vec<u32>,
        error: Option<String>,
    },
    /// The worker panicked and is about to die.
    Panic {
        message: String,
    },
    BadMessage {
        error: String,
    },
}

/// Prefill and decode of one or more answers, for the status line (tokens per second).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// Prompt tokens run; those taken from the key/value cache are `reused_tokens`.
    pub prefill_tokens: u64,
    #[serde(default)]
    pub reused_tokens: u64,
    pub prefill_ms: f64,
    pub decode_tokens: u64,
    pub decode_ms: f64,
}

impl Speed {
    pub fn add(&mut self, other: &Speed) {
        self.prefill_tokens += other.prefill_tokens;
        self.reused_tokens += other.reused_tokens;
        self.prefill_ms += other.prefill_ms;
        self.decode_tokens += other.decode_tokens;
        self.decode_ms += other.decode_ms;
    }

    /// "prefill 120 tokens/s, decode 18.5 tokens/s" (a phase with no time yet is left out).
    pub fn describe(&self) -> String {
        let rate = |tokens: u64, ms: f64| (tokens > 0 && ms > 0.0).then(|| tokens as f64 * 1000.0 / ms);
        let mut parts = Vec::new();
        if let Some(r) = rate(self.prefill_tokens, self.prefill_ms) {
            parts.push(format!("prefill {r:.1} tokens/s"));
        }
        if let Some(r) = rate(self.decode_tokens, self.decode_ms) {
            parts.push(format!("decode {r:.1} tokens/s"));
        }
        let prompt = self.prefill_tokens + self.reused_tokens;
        if self.reused_tokens > 0 {
            parts.push(format!(
                "{:.0}% of prompt tokens reused from the cache",
                100.0 * self.reused_tokens as f64 / prompt as f64
            ));
        }
        if parts.is_empty() { "no tokens timed yet".to_string() } else { parts.join(", ") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_add_and_read_as_rates() {
        let mut total = Speed::default();
        assert_eq!(total.describe(), "no tokens timed yet");
        total.add(&Speed {
            prefill_tokens: 100,
            prefill_ms: 500.0,
            decode_tokens: 10,
            decode_ms: 1000.0,
            reused_tokens: 0,
        });
        total.add(&Speed { prefill_tokens: 50, prefill_ms: 250.0, decode_tokens: 0, decode_ms: 0.0, reused_tokens: 0 });
        assert_eq!(total.describe(), "prefill 200.0 tokens/s, decode 10.0 tokens/s");
        total.add(&Speed { prefill_tokens: 50, prefill_ms: 250.0, reused_tokens: 800, ..Speed::default() });
        assert_eq!(
            total.describe(),
            "prefill 200.0 tokens/s, decode 10.0 tokens/s, 80% of prompt tokens reused from the cache"
        );
    }

    /// Both sides read what the other writes; the tags are the ones the page matches on.
    #[test]
    fn messages_round_trip() {
        let to = [
            ToWorker::Download { file: FileSpec { url: "http://x/a.gguf".into(), sha256: None, bytes: Some(3) } },
            ToWorker::Chat { id: 7, body: "{}".into() },
            ToWorker::Load { gguf: "g".into(), tokenizer: Some("t".into()) },
            ToWorker::Load { gguf: "g".into(), tokenizer: None },
        ];
        for m in to {
            let text = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<ToWorker>(&text).unwrap(), m);
        }
        // The GGUF file alone: a page that leaves `tokenizer` out is read as such.
        assert_eq!(
            serde_json::from_str::<ToWorker>(r#"{"kind":"load","gguf":"g"}"#).unwrap(),
            ToWorker::Load { gguf: "g".into(), tokenizer: None }
        );
        let from = FromWorker::Progress { url: "u".into(), received: 1, total: None };
        let text = serde_json::to_string(&from).unwrap();
        assert_eq!(text, r#"{"kind":"progress","url":"u","received":1,"total":null}"#);
        assert_eq!(serde_json::from_str::<FromWorker>(&text).unwrap(), from);
        // The bootstrap's fallback for an unwritable message.
        assert!(matches!(
            serde_json::from_str::<FromWorker>(r#"{"kind":"bad_message","error":"e"}"#).unwrap(),
            FromWorker::BadMessage { .. }
        ));
    }
}
