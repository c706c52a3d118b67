//! What made an exported row. Every file execbench writes (results, perturbed datasets, the
//! CodeCrash layout, verification) carries one of these in each row, so rows of different runs,
//! models, templates, datasets or perturbations never look alike, and a row says how to make it
//! again. It never holds a key: it is built from manifests and settings that have none.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Sample;

/// Fields are written in this order, `None`s left out, so the bytes depend only on the inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// execbench's version (`CARGO_PKG_VERSION` of the app or the command line).
    pub app_version: String,
    /// The dataset's name as loaded (`cruxeval`, a file name).
    pub dataset: String,
    /// [`dataset_hash`] of the samples the row came from.
    pub dataset_hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The model as shown (`gpt-4o-mini (openai)`, `oracle`, `replay: answers.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider preset and the model id sent, for API models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_id: Option<String>,
    /// A hash of the template's text (system, user, stop sequences, task): two templates with one
    /// id but edited text differ here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_hash: Option<String>,
    /// `output` or `input` prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// Responses asked per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<usize>,
    /// The perturbation that made the program, when it is one: kind, seed and options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturbation: Option<Value>,
}

impl Provenance {
    /// A dataset's provenance: where rows that name no run came from.
    pub fn of_dataset(app_version: &str, dataset: &str, samples: &[Sample]) -> Self {
        Provenance {
            app_version: app_version.to_string(),
            dataset: dataset.to_string(),
            dataset_hash: dataset_hash(samples),
            ..Provenance::default()
        }
    }

    /// `row` (a JSON object) as one line of JSON with a `provenance` field added after the row's
    /// own fields, which keep their order. A row that is not an object is wrapped as
    /// `{"row": …, "provenance": …}`.
    pub fn line<T: Serialize>(&self, row: &T) -> String {
        // Serializing plain structs and maps cannot fail; an empty field would be the symptom.
        let provenance = serde_json::to_string(self).unwrap_or_default();
        let row = serde_json::to_string(row).unwrap_or_else(|e| Value::String(e.to_string()).to_string());
        match row.strip_suffix('}') {
            Some(fields) if row.starts_with('{') && fields.len() > 1 => {
                format!("{fields},\"provenance\":{provenance}}}")
            }
            Some(_) if row == "{}" => format!("{{\"provenance\":{provenance}}}"),
            _ => format!("{{\"row\":{row},\"provenance\":{provenance}}}"),
        }
    }

    /// Rows as JSON Lines, each with this provenance.
    pub fn jsonl<T: Serialize>(&self, rows: impl IntoIterator<Item = T>) -> String {
        let mut out = String::new();
        for row in rows {
            out.push_str(&self.line(&row));
            out.push('\n');
        }
        out
    }
}

/// The perturbation a dataset was made with, read from its rows: a perturbed export's rows say
/// it in their `provenance`, or (older files, the CodeCrash layout) in `kind`/`perturbation`,
/// `seed` and `options`. One perturbation for every row gives it; several give
/// `{"mixed": [...]}` (each once, in first-seen order); none gives `None`. A questions file's
/// `kind` is the kind of question (`crate::question`), never a perturbation.
pub fn perturbation_of(samples: &[Sample]) -> Option<Value> {
    let mut seen: Vec<Value> = Vec::new();
    for sample in samples {
        let meta = &sample.meta;
        let is_question = crate::question::is_question(sample);
        let found = match meta.get("provenance").and_then(|p| p.get("perturbation")) {
            Some(p) => Some(p.clone()),
            None if is_question => None,
            None => meta.get("kind").or_else(|| meta.get("perturbation")).filter(|k| k.is_string()).map(|kind| {
                let mut p = serde_json::Map::new();
                p.insert("kind".to_string(), kind.clone());
                for field in ["options", "seed"] {
                    if let Some(v) = meta.get(field) {
                        p.insert(field.to_string(), v.clone());
                    }
                }
                Value::Object(p)
            }),
        };
        if let Some(p) = found.filter(|p| !seen.contains(p)) {
            seen.push(p);
        }
    }
    match seen.len() {
        0 => None,
        1 => seen.pop(),
        _ => Some(serde_json::json!({ "mixed": seen })),
    }
}

/// 64-bit FNV-1a over the parts (each ended by a NUL), as hex: stable on every platform.
pub fn fnv1a_hex(parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0u8)) {
            hash ^= byte as u64;
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// A hash of what the samples say (id, code, call, output), whatever the file's formatting.
pub fn dataset_hash(samples: &[Sample]) -> String {
    let parts: Vec<&str> =
        samples.iter().flat_map(|s| [s.id.as_str(), s.code.as_str(), s.call.as_str(), s.output.as_str()]).collect();
    fnv1a_hex(&parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(id: &str, output: &str) -> Sample {
        Sample::new(id, "def f(x):\n    return x", "f", "1", output)
    }

    #[test]
    fn attaches_after_the_rows_own_fields_and_leaves_out_what_is_unknown() {
        let p = Provenance {
            run_id: Some("run-1".into()),
            task: Some("output".into()),
            ..Provenance::of_dataset("0.1.0", "cruxeval", &[sample("a", "1")])
        };
        #[derive(Serialize)]
        struct Row {
            z: u8,
            a: &'static str,
        }
        let provenance = format!(
            r#"{{"app_version":"0.1.0","dataset":"cruxeval","dataset_hash":"{}","run_id":"run-1","task":"output"}}"#,
            p.dataset_hash
        );
        let cases: Vec<(String, String)> = vec![
            // A struct's fields keep their order.
            (p.line(&Row { z: 1, a: "}" }), format!(r#"{{"z":1,"a":"}}","provenance":{provenance}}}"#)),
            (p.line(&json!({})), format!(r#"{{"provenance":{provenance}}}"#)),
            (p.line(&json!([1, 2])), format!(r#"{{"row":[1,2],"provenance":{provenance}}}"#)),
            (p.line(&"x"), format!(r#"{{"row":"x","provenance":{provenance}}}"#)),
        ];
        for (got, expected) in cases {
            assert_eq!(got, expected);
            serde_json::from_str::<Value>(&got).expect("valid JSON");
        }
        assert_eq!(p.jsonl([json!({"id": "a"}), json!({"id": "b"})]).lines().count(), 2);
    }

    #[test]
    fn perturbation_is_read_from_the_rows() {
        let with = |fields: Value| {
            let mut s = sample("a", "1");
            s.meta = fields.as_object().cloned().unwrap_or_default();
            s
        };
        let ren0 = json!({"kind": "REN", "seed": 0});
        let cases: Vec<(Vec<Sample>, Option<Value>)> = vec![
            (vec![sample("a", "1")], None),
            (
                vec![with(json!({"kind": "REN", "seed": 0})), with(json!({"kind": "REN", "seed": 0}))],
                Some(ren0.clone()),
            ),
            (vec![with(json!({"perturbation": "REN", "seed": 0}))], Some(ren0.clone())),
            (
                vec![with(json!({"provenance": {"perturbation": {"kind": "RTF", "seed": 3}}}))],
                Some(json!({"kind": "RTF", "seed": 3})),
            ),
            (
                vec![
                    with(json!({"kind": "REN", "seed": 0})),
                    with(json!({"kind": "REN", "seed": 1})),
                    sample("b", "2"),
                ],
                Some(json!({"mixed": [ren0, {"kind": "REN", "seed": 1}]})),
            ),
            // A `kind` that is not a name (a LeetCode row's own field, say) is not a perturbation.
            (vec![with(json!({"kind": 3}))], None),
            // Nor is a question's kind.
            (vec![with(json!({"kind": "state", "truth": {"is": "value", "repr": "1", "type": "int"}}))], None),
        ];
        for (samples, expected) in cases {
            assert_eq!(
                perturbation_of(&samples),
                expected,
                "{:?}",
                samples.iter().map(|s| &s.meta).collect::<Vec<_>>()
            );
        }
    }

    /// The hash follows what the samples say, in order; the same samples always give the same hash.
    #[test]
    fn dataset_hash_tells_datasets_apart() {
        let base = dataset_hash(&[sample("a", "1"), sample("b", "2")]);
        assert_eq!(base, dataset_hash(&[sample("a", "1"), sample("b", "2")]));
        for other in
            [vec![sample("a", "1")], vec![sample("b", "2"), sample("a", "1")], vec![sample("a", "1"), sample("b", "3")]]
        {
            assert_ne!(base, dataset_hash(&other));
        }
        // Parts are separated, so moving a character between fields changes the hash.
        assert_ne!(fnv1a_hex(&["ab", "c"]), fnv1a_hex(&["a", "bc"]));
    }
}
