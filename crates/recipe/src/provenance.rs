//! What made a built benchmark, written next to it as pretty JSON: the app's version, the
//! generation (source, provider, model and its parameters, the prompt template and the few-shot
//! pool's hash, the methods, the seed), the filter's version, the funnel, the sampling and the
//! exported file's content hash. It never holds a key: `Generation` has no field for one, and
//! reading one refuses unknown fields.

use serde::{Deserialize, Serialize};

use crate::funnel::Funnel;
use crate::sample::SampleSpec;

/// Where the responses came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeneratorSource {
    /// A model behind an API.
    Model,
    /// The offline source bundled with execbench.
    Offline,
    /// Responses recorded earlier, read from a file.
    Replay,
}

/// The model and its parameters, as sent (never a key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    pub source: GeneratorSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Responses asked per prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The seed of the generation (the offline source's, or the few-shot draw's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// How the candidates were generated, as `build generate` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    pub generator: Generator,
    /// The methods prompted for, in prompting order.
    pub methods: Vec<String>,
    /// The prompt template's text.
    pub prompt_template: String,
    /// A hash of the few-shot pool the prompts drew from.
    pub few_shot_pool_hash: String,
    /// Responses received.
    pub responses: usize,
    /// Responses that gave no candidate.
    pub unparseable: usize,
}

/// Fields are written in this order; the bytes depend only on the inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildProvenance {
    /// execbench's version (`CARGO_PKG_VERSION` of the app or the command line).
    pub app_version: String,
    /// The methods prompted for (the generation's), else the methods the candidates name, sorted.
    pub methods: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<Generation>,
    /// `crate::FILTER_VERSION` of the filter that judged the candidates.
    pub filter_version: String,
    pub funnel: Funnel,
    /// Kept candidates dropped as duplicates of an earlier one.
    pub duplicates_dropped: usize,
    pub sample: SampleSpec,
    /// The exported rows.
    pub rows: usize,
    /// `execbench_core::dataset_hash` of the exported file as loaded.
    pub dataset_hash: String,
}

impl BuildProvenance {
    /// Pretty JSON ending with a newline.
    pub fn to_pretty_json(&self) -> String {
        // Plain structs of strings and numbers always serialize; an empty file would be the symptom.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// Reads a generation record (`build generate`'s), naming the file and the problem.
pub fn read_generation(file: &str, text: &str) -> Result<Generation, String> {
    serde_json::from_str(text).map_err(|e| format!("{file}:{}: {e}", e.line()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generation_reads_back_and_a_key_is_refused() {
        let generation = Generation {
            generator: Generator {
                source: GeneratorSource::Model,
                provider: Some("openai".into()),
                model: Some("gpt-4o".into()),
                temperature: Some(0.8),
                top_p: None,
                n: Some(5),
                max_tokens: Some(512),
                seed: Some(3),
            },
            methods: vec!["str.split".into(), "list.pop".into()],
            prompt_template: "Write a function f using {method}.".into(),
            few_shot_pool_hash: "0123456789abcdef".into(),
            responses: 10,
            unparseable: 1,
        };
        let text = serde_json::to_string_pretty(&generation).unwrap();
        assert!(!text.contains("top_p"), "unknown values are left out: {text}");
        assert_eq!(read_generation("g.json", &text), Ok(generation));
        // (text, the error's start)
        let cases: &[(&str, &str)] = &[
            (
                r#"{"generator": {"source": "model", "api_key": "sk-x"}, "methods": [], "prompt_template": "", "few_shot_pool_hash": "", "responses": 0, "unparseable": 0}"#,
                "g.json:1: unknown field `api_key`",
            ),
            (
                r#"{"generator": {"source": "human"}, "methods": [], "prompt_template": "", "few_shot_pool_hash": "", "responses": 0, "unparseable": 0}"#,
                "g.json:1: unknown variant `human`",
            ),
            ("{\n\"generator\": {\"source\": \"offline\"}\n}", "g.json:3: missing field `methods`"),
            ("x", "g.json:1: expected value"),
        ];
        for (text, error) in cases {
            let got = read_generation("g.json", text).unwrap_err();
            assert!(got.starts_with(error), "{got}");
        }
    }
}
