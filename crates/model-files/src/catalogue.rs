//! The models the page offers. A model is its GGUF file (weights, hyper-parameters, chat template
//! and tokenizer) and, when an entry gives one, the tokenizer.json of the same model, which is then
//! used instead of the GGUF's own tokenizer.
//!
//! Hashes are the published ones, pinned to a repository revision so that they stay true; where
//! none could be found the entry says so (`sha256: None`) and the page shows the file as
//! unchecked instead of inventing one.

use serde::{Deserialize, Serialize};

/// One file to download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSpec {
    pub url: String,
    /// Lowercase hex; `None`: no published hash is known (the file is kept unchecked).
    pub sha256: Option<String>,
    /// Known size in bytes (shown before the download); `None`: asked with a HEAD request.
    pub bytes: Option<u64>,
}

/// A model a user can pick: its weights and, optionally, its tokenizer.json.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Stable name used as the run's model name and the kept files' label.
    pub id: String,
    pub label: String,
    pub gguf: FileSpec,
    /// `None`: the GGUF file's own tokenizer (its metadata) is used. An entry kept before this was
    /// optional reads as `Some`.
    #[serde(default)]
    pub tokenizer: Option<FileSpec>,
    /// What the user should know before downloading (memory, unchecked files).
    pub note: Option<String>,
}

const HF: &str = "https://huggingface.co";

fn file(url: String, sha256: Option<&str>, bytes: Option<u64>) -> FileSpec {
    FileSpec { url, sha256: sha256.map(str::to_string), bytes }
}

/// The catalogue, in the order the page lists it.
pub fn catalogue() -> Vec<ModelSpec> {
    // Revision ebb20151 of Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF: 675 710 848 bytes, SHA-256
    // e1a77721…; two independent public manifests (a Nix flake and a Python fetch script) give
    // the same hash.
    let gguf_05 = format!(
        "{HF}/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/ebb2015119c907b064c512bf053e945850b5875f/qwen2.5-coder-0.5b-instruct-q8_0.gguf"
    );
    vec![
        ModelSpec {
            id: "qwen2.5-coder-0.5b-instruct-q8_0".into(),
            label: "Qwen2.5-Coder 0.5B Instruct, Q8_0".into(),
            gguf: file(
                gguf_05,
                Some("e1a77721fa97d412f121878223eec81fb4ae6f271e18f922d746711f67b344d1"),
                Some(675_710_848),
            ),
            tokenizer: Some(file(format!("{HF}/Qwen/Qwen2.5-Coder-0.5B-Instruct/resolve/main/tokenizer.json"), None, None)),
            note: Some("tokenizer.json has no published SHA-256 here: it is kept unchecked".into()),
        },
        ModelSpec {
            id: "qwen2.5-coder-1.5b-instruct-q8_0".into(),
            label: "Qwen2.5-Coder 1.5B Instruct, Q8_0".into(),
            gguf: file(
                format!("{HF}/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q8_0.gguf"),
                None,
                None,
            ),
            tokenizer: Some(file(format!("{HF}/Qwen/Qwen2.5-Coder-1.5B-Instruct/resolve/main/tokenizer.json"), None, None)),
            note: Some(
                "no published SHA-256 found: kept unchecked; about 1.9 GB, likely more than a page's 4 GB wasm memory holds once loaded"
                    .into(),
            ),
        },
    ]
}

/// A model from URLs the user typed. Hashes are required: a custom file is always checked. The
/// tokenizer.json is optional: with its URL and hash both empty, the GGUF file's own tokenizer is
/// used.
pub fn custom(
    gguf_url: &str,
    gguf_sha256: &str,
    tokenizer_url: &str,
    tokenizer_sha256: &str,
) -> Result<ModelSpec, String> {
    let url = |what: &str, u: &str| -> Result<String, String> {
        let u = u.trim();
        if u.starts_with("https://") || u.starts_with("http://") {
            Ok(u.to_string())
        } else {
            Err(format!("{what} URL: must start with https:// or http:// (got {u:?})"))
        }
    };
    let hash = |what: &str, h: &str| -> Result<String, String> {
        let h = h.trim().to_ascii_lowercase();
        if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(h)
        } else {
            Err(format!("{what} SHA-256: must be 64 hexadecimal digits (got {} characters)", h.len()))
        }
    };
    let gguf = FileSpec { url: url("GGUF", gguf_url)?, sha256: Some(hash("GGUF", gguf_sha256)?), bytes: None };
    let tokenizer = match (tokenizer_url.trim(), tokenizer_sha256.trim()) {
        ("", "") => None,
        ("", _) => {
            return Err(
                "tokenizer.json URL: empty, but a SHA-256 is given (leave both empty to use the GGUF's own tokenizer)"
                    .into(),
            );
        }
        (u, h) => {
            Some(FileSpec { url: url("tokenizer.json", u)?, sha256: Some(hash("tokenizer.json", h)?), bytes: None })
        }
    };
    let name = gguf.url.rsplit('/').next().unwrap_or("model.gguf").trim_end_matches(".gguf").to_string();
    Ok(ModelSpec { id: name.clone(), label: format!("Custom: {name}"), gguf, tokenizer, note: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_hashes_are_hex_and_files_are_https() {
        for model in catalogue() {
            for f in std::iter::once(&model.gguf).chain(&model.tokenizer) {
                assert!(f.url.starts_with("https://huggingface.co/"), "{}", f.url);
                if let Some(h) = &f.sha256 {
                    assert!(h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()), "{h}");
                }
            }
        }
    }

    /// Models kept in a browser before the tokenizer was optional read as they were written.
    #[test]
    fn a_kept_entry_with_or_without_a_tokenizer_reads_back() {
        let old = r#"{"id":"m","label":"Custom: m","gguf":{"url":"http://x/m.gguf","sha256":null,"bytes":null},
            "tokenizer":{"url":"http://x/t.json","sha256":null,"bytes":3},"note":null}"#;
        let spec: ModelSpec = serde_json::from_str(old).unwrap();
        assert_eq!(spec.tokenizer.map(|t| t.url).as_deref(), Some("http://x/t.json"));
        let alone = custom("http://x/m.gguf", &"ab".repeat(32), "", "").unwrap();
        let text = serde_json::to_string(&alone).unwrap();
        assert!(text.contains(r#""tokenizer":null"#), "{text}");
        assert_eq!(serde_json::from_str::<ModelSpec>(&text).unwrap(), alone);
        let missing =
            r#"{"id":"m","label":"m","gguf":{"url":"http://x/m.gguf","sha256":null,"bytes":null},"note":null}"#;
        assert_eq!(serde_json::from_str::<ModelSpec>(missing).unwrap().tokenizer, None);
    }

    #[test]
    fn custom_entries_are_checked_field_by_field() {
        let h = "ab".repeat(32);
        // (GGUF URL, its SHA-256, tokenizer URL, its SHA-256, the id or the error's start)
        type Case<'a> = (&'a str, &'a str, &'a str, &'a str, Result<&'a str, &'a str>);
        let cases: [Case; 7] = [
            ("http://127.0.0.1:1/m/tiny.gguf", &h, "http://127.0.0.1:1/m/tokenizer.json", &h, Ok("tiny")),
            // The GGUF file alone: its own tokenizer.
            ("http://127.0.0.1:1/m/tiny.gguf", &h, "", " ", Ok("tiny")),
            ("http://x/m.gguf", &h, "", &h, Err("tokenizer.json URL: empty, but a SHA-256 is given")),
            ("http://x/m.gguf", &h, "http://x/t.json", "", Err("tokenizer.json SHA-256: must be 64")),
            ("ftp://x/m.gguf", &h, "http://x/t.json", &h, Err("GGUF URL: must start with")),
            (
                "http://x/m.gguf",
                "abc",
                "http://x/t.json",
                &h,
                Err("GGUF SHA-256: must be 64 hexadecimal digits (got 3"),
            ),
            ("http://x/m.gguf", &h, "http://x/t.json", &"zz".repeat(32), Err("tokenizer.json SHA-256")),
        ];
        for (g, gh, t, th, want) in cases {
            match (custom(g, gh, t, th), want) {
                (Ok(m), Ok(id)) => {
                    assert_eq!(m.id, id);
                    assert_eq!(m.tokenizer.is_some(), !t.is_empty(), "{t:?}");
                }
                (Err(e), Err(start)) => assert!(e.starts_with(start), "{e}"),
                (got, want) => panic!("{g}: got {got:?}, want {want:?}"),
            }
        }
    }
}
