//! Perturbing whole datasets and writing the result as JSON Lines, in our layout and in the field
//! layout of the CodeCrash data. Fields are written in declaration order, so the bytes depend only
//! on the inputs.

use std::collections::BTreeMap;

use execbench_core::{Limits, Provenance, PythonEngine, Sample};
use serde::{Deserialize, Serialize};

use crate::wrong_answer_sources::{OfflineWrongAnswers, WrongAnswerSource};
use crate::{Hint, Kind, Options, Parsed, PerturbError, Perturbed, Prediction, Profile, perturb_parsed, verify};

/// The options that shaped a row (the seed has its own column).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowOptions {
    pub p: f64,
    pub once: bool,
    pub prediction: Prediction,
    /// Every row records whose conventions made it (rows written before profiles existed were
    /// execbench's).
    #[serde(default)]
    pub profile: Profile,
}

/// One perturbed sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportRow {
    pub id: String,
    pub dataset: String,
    pub kind: Kind,
    pub seed: u64,
    pub options: RowOptions,
    pub code: String,
    pub function_name: String,
    pub call: String,
    pub output: String,
    pub original_code: String,
    /// codecrash-profile MCC/MPS: a message names the output's "useless" value and the output is
    /// that value, so the "misleading" message happens to be true. Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub message_true: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The CodeCrash data's field layout, plus the perturbation and seed: CodeCrash keeps one kind
/// per file, so its rows need neither, but one file of several kinds and seeds would otherwise
/// repeat `task_id` with nothing to tell the rows apart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodeCrashRow {
    pub task_id: String,
    pub code: String,
    pub function_name: String,
    pub function_call: String,
    pub output: String,
    pub test: String,
    pub perturbation: Kind,
    pub seed: u64,
    /// As [`ExportRow::message_true`] (the profile itself is in each line's provenance).
    #[serde(default, skip_serializing_if = "is_false")]
    pub message_true: bool,
}

impl From<&ExportRow> for CodeCrashRow {
    fn from(row: &ExportRow) -> Self {
        CodeCrashRow {
            task_id: row.id.clone(),
            code: row.code.clone(),
            function_name: row.function_name.clone(),
            function_call: row.call.clone(),
            output: row.output.clone(),
            test: format!("assert {} == {}", row.call, row.output),
            perturbation: row.kind,
            seed: row.seed,
            message_true: row.message_true,
        }
    }
}

impl ExportRow {
    /// `dataset`'s provenance with this row's perturbation (kind, seed, options).
    pub fn provenance(&self, dataset: &Provenance) -> Provenance {
        let perturbation = serde_json::json!({ "kind": self.kind, "seed": self.seed, "options": self.options });
        Provenance { perturbation: Some(perturbation), ..dataset.clone() }
    }
}

/// A sample that was not exported, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub id: String,
    pub kind: Kind,
    pub seed: u64,
    pub stage: Stage,
    pub reason: String,
}

/// Where a sample was lost; written `perturb` / `verify` in exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The perturbation refused the program or failed.
    Perturb,
    /// Execution disagreed with the original.
    Verify,
}

/// The result of perturbing a dataset: rows in (kind, seed, sample) order and every failure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatasetRun {
    pub rows: Vec<ExportRow>,
    pub failures: Vec<Failure>,
    /// Per kind, how many of the rows are the original program as it was: the kind found nothing
    /// to change (RTF without conditions, MCC/MPS with `p < 1` picking no site). They are exported
    /// all the same, so a perturbed benchmark keeps every sample and accuracies compare.
    pub unchanged: BTreeMap<Kind, usize>,
    /// MHC rows: each exported row's hint, in row order.
    pub hints: Vec<HintRow>,
}

/// The hint of an exported MHC row, and how far it is from the truth in characters
/// ([`crate::distance`]; `None` when the call's arguments could not be read).
#[derive(Clone, Debug, PartialEq)]
pub struct HintRow {
    pub id: String,
    pub hint: Hint,
    pub distance: Option<usize>,
}

impl DatasetRun {
    pub fn unchanged_of(&self, kind: Kind) -> usize {
        self.unchanged.get(&kind).copied().unwrap_or(0)
    }

    /// The hint-to-truth distances of the MHC rows, in row order.
    pub fn hint_distances(&self) -> Vec<usize> {
        self.hints.iter().filter_map(|h| h.distance).collect()
    }
}

/// Whether `perturbed` is `sample`'s program and call exactly as they were.
pub fn unchanged(sample: &Sample, perturbed: &Perturbed) -> bool {
    perturbed.code == sample.code && perturbed.call == sample.call
}

/// Perturbs one sample into an export row (no verification).
pub fn perturb_row(sample: &Sample, dataset: &str, kind: Kind, options: &Options) -> Result<ExportRow, Failure> {
    let failure =
        |stage: Stage, reason: String| Failure { id: sample.id.clone(), kind, seed: options.seed, stage, reason };
    let perturbed = crate::perturb_sample(sample, kind, options).map_err(|e| failure(Stage::Perturb, e.to_string()))?;
    Ok(row_of(sample, dataset, kind, options, perturbed))
}

/// The export row of a perturbation already made (and verified by the caller, if wanted).
pub fn row_of(sample: &Sample, dataset: &str, kind: Kind, options: &Options, perturbed: crate::Perturbed) -> ExportRow {
    ExportRow {
        id: sample.id.clone(),
        dataset: dataset.to_string(),
        kind,
        seed: options.seed,
        options: RowOptions {
            p: options.p,
            once: options.once,
            prediction: options.prediction,
            profile: options.profile,
        },
        code: perturbed.code,
        function_name: perturbed.function_name,
        call: perturbed.call,
        output: sample.output.clone(),
        original_code: sample.code.clone(),
        message_true: crate::kinds::comments::message_true(sample, kind, options),
    }
}

/// Perturbs every sample with every kind and seed. With an engine, each result is verified and
/// only verified rows are kept; a failure is reported, never replaced by the unperturbed sample.
/// A program the kind left as it was is kept and counted in `unchanged`.
pub fn perturb_dataset(
    samples: &[Sample],
    dataset: &str,
    kinds: &[Kind],
    seeds: &[u64],
    options: &Options,
    verifier: Option<(&mut dyn PythonEngine, Limits)>,
) -> DatasetRun {
    perturb_dataset_with_source(samples, dataset, kinds, seeds, options, verifier, &mut OfflineWrongAnswers::default())
}

/// [`perturb_dataset`] with MHC's wrong answers from `source`.
pub fn perturb_dataset_with_source(
    samples: &[Sample],
    dataset: &str,
    kinds: &[Kind],
    seeds: &[u64],
    options: &Options,
    mut verifier: Option<(&mut dyn PythonEngine, Limits)>,
    source: &mut dyn WrongAnswerSource,
) -> DatasetRun {
    let mut run = DatasetRun::default();
    // Each sample is parsed once for every kind and seed.
    let mut parsed: Vec<Option<Result<Parsed, PerturbError>>> = samples.iter().map(|_| None).collect();
    for &kind in kinds {
        for &seed in kind.seeds_that_matter(seeds) {
            let options = Options { seed, ..*options };
            for (sample, parsed) in samples.iter().zip(parsed.iter_mut()) {
                let result = match parsed.get_or_insert_with(|| Parsed::new(sample)) {
                    Ok(trees) => perturb_parsed(sample, trees, kind, &options, &mut *source),
                    Err(e) => Err(e.clone()),
                };
                let perturbed = match result {
                    Ok(p) => p,
                    Err(e) => {
                        run.failures.push(Failure {
                            id: sample.id.clone(),
                            kind,
                            seed,
                            stage: Stage::Perturb,
                            reason: e.to_string(),
                        });
                        continue;
                    }
                };
                let perturbed = match verifier.as_mut() {
                    // Verification may change MHC's hint (the first claim was not wrong after all).
                    Some((engine, limits)) => match verify(&mut **engine, sample, &perturbed, *limits) {
                        Ok(verified) => verified,
                        Err(e) => {
                            run.failures.push(Failure {
                                id: sample.id.clone(),
                                kind,
                                seed,
                                stage: Stage::Verify,
                                reason: e.to_string(),
                            });
                            continue;
                        }
                    },
                    None => perturbed,
                };
                if unchanged(sample, &perturbed) {
                    *run.unchanged.entry(kind).or_default() += 1;
                }
                if let Some(hint) = &perturbed.hint {
                    run.hints.push(HintRow {
                        id: sample.id.clone(),
                        hint: hint.clone(),
                        distance: crate::distance::hint_distance(sample, hint),
                    });
                }
                run.rows.push(row_of(sample, dataset, kind, &options, perturbed));
            }
        }
    }
    run
}

/// Rows as JSON Lines, each with its provenance: `dataset` (the original dataset's name, hash and
/// the app's version) plus the row's perturbation.
fn jsonl<T: Serialize>(rows: &[ExportRow], dataset: &Provenance, layout: impl Fn(&ExportRow) -> T) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(&row.provenance(dataset).line(&layout(row)));
        out.push('\n');
    }
    out
}

/// Our layout, one row a line.
pub fn to_jsonl(rows: &[ExportRow], dataset: &Provenance) -> String {
    jsonl(rows, dataset, Clone::clone)
}

/// The CodeCrash layout, one row a line.
pub fn to_codecrash_jsonl(rows: &[ExportRow], dataset: &Provenance) -> String {
    jsonl(rows, dataset, |row| CodeCrashRow::from(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Sample {
        execbench_core::load_jsonl(
            "d",
            r#"{"id": "s1", "code": "def f(a):\n    return a + 1", "input": "1", "output": "2"}"#,
        )
        .samples
        .remove(0)
    }

    /// Exact bytes, written by hand from the field order and REN's documented naming.
    #[test]
    fn rows_serialize_byte_for_byte() {
        let row = perturb_row(&sample(), "cruxeval", Kind::Ren, &Options::default()).unwrap();
        let dataset = Provenance {
            app_version: "0.1.0".into(),
            dataset: "cruxeval".into(),
            dataset_hash: "00ff".into(),
            ..Provenance::default()
        };
        let provenance = r#""provenance":{"app_version":"0.1.0","dataset":"cruxeval","dataset_hash":"00ff","perturbation":{"kind":"REN","options":{"once":false,"p":1.0,"prediction":"output","profile":"execbench"},"seed":0}}"#;
        let expected = concat!(
            r#"{"id":"s1","dataset":"cruxeval","kind":"REN","seed":0,"options":{"p":1.0,"once":false,"prediction":"output","profile":"execbench"},"#,
            r#""code":"def f(Var_1):\n    return Var_1 + 1","function_name":"f","call":"f(1)","output":"2","original_code":"def f(a):\n    return a + 1","#,
        );
        assert_eq!(to_jsonl(std::slice::from_ref(&row), &dataset), format!("{expected}{provenance}}}\n"));
        let codecrash = concat!(
            r#"{"task_id":"s1","code":"def f(Var_1):\n    return Var_1 + 1","function_name":"f","function_call":"f(1)","output":"2","test":"assert f(1) == 2","#,
            r#""perturbation":"REN","seed":0,"#,
        );
        assert_eq!(to_codecrash_jsonl(&[row], &dataset), format!("{codecrash}{provenance}}}\n"));
    }

    /// The profile is in every row and its provenance; `message_true` only in rows where a
    /// codecrash message states the output (`False` here), in both layouts.
    #[test]
    fn rows_record_their_profile_and_true_messages() {
        let text = r#"{"id": "s1", "code": "def f(a):\n    return a > 1", "input": "1", "output": "False"}"#;
        let sample = execbench_core::load_jsonl("d", text).samples.remove(0);
        let dataset = Provenance::default();
        let cases = [
            (Kind::Mcc, Profile::Codecrash, true),
            (Kind::Mps, Profile::Codecrash, true),
            (Kind::Mcc, Profile::Execbench, false),
            (Kind::Gbc, Profile::Codecrash, false),
        ];
        for (kind, profile, flagged) in cases {
            let row = perturb_row(&sample, "d", kind, &Options { profile, ..Options::default() }).unwrap();
            assert_eq!((row.options.profile, row.message_true), (profile, flagged), "{kind} {profile}");
            for line in [
                to_jsonl(std::slice::from_ref(&row), &dataset),
                to_codecrash_jsonl(std::slice::from_ref(&row), &dataset),
            ] {
                assert_eq!(line.contains(r#""message_true":true"#), flagged, "{line}");
                assert!(line.contains(&format!(r#""profile":"{profile}""#)), "{line}");
            }
        }
    }

    #[test]
    fn dataset_run_orders_rows_and_reports_failures() {
        let mut bad = sample();
        bad.id = "s2".to_string();
        bad.code = "def f(a):\n    return locals()".to_string();
        let run = perturb_dataset(&[sample(), bad], "d", &[Kind::Ren, Kind::Rtf], &[0, 1], &Options::default(), None);
        let order: Vec<(String, Kind, u64)> = run.rows.iter().map(|r| (r.id.clone(), r.kind, r.seed)).collect();
        let expected: Vec<(String, Kind, u64)> = vec![
            // REN takes no seed: seed 0 alone.
            ("s1".into(), Kind::Ren, 0),
            ("s1".into(), Kind::Rtf, 0),
            ("s2".into(), Kind::Rtf, 0),
            ("s1".into(), Kind::Rtf, 1),
            ("s2".into(), Kind::Rtf, 1),
        ];
        assert_eq!(order, expected);
        assert_eq!(run.failures.len(), 1);
        assert!(run.failures.iter().all(|f| f.id == "s2" && f.kind == Kind::Ren && f.reason.contains("locals")));
        // Neither program has a condition: RTF exports both as they were, and says so.
        assert_eq!((run.unchanged_of(Kind::Rtf), run.unchanged_of(Kind::Ren)), (4, 0));
    }

    /// What `uses_seed` claims: REN gives the same program under every seed; each other kind
    /// gives some program a different form under some seed.
    #[test]
    fn the_seed_matters_to_every_kind_but_ren() {
        let code = "def f(text, n):\n    out = []\n    for i in range(n):\n        if i % 2 == 0:\n            out.append(text[i])\n        elif len(out) > 3:\n            out.pop()\n    while len(out) > n:\n        out.pop()\n    return ''.join(out)";
        let row = format!(
            r#"{{"id": "s1", "code": {}, "input": "'abcdef', 4", "output": "'ac'"}}"#,
            serde_json::to_string(code).unwrap()
        );
        let sample = execbench_core::load_jsonl("d", &row).samples.remove(0);
        for kind in Kind::DETERMINISTIC {
            let programs: std::collections::BTreeSet<String> = (0..8)
                .map(|seed| crate::perturb_sample(&sample, kind, &Options::with_seed(seed)).unwrap().code)
                .collect();
            assert_eq!(
                programs.len() > 1,
                kind.uses_seed(),
                "{kind}: {} distinct programs over 8 seeds",
                programs.len()
            );
        }
        assert_eq!(Kind::Ren.seeds_that_matter(&[3, 4, 5]), &[3]);
        assert_eq!(Kind::Rtf.seeds_that_matter(&[3, 4, 5]), &[3, 4, 5]);
        assert!(Kind::Ren.seeds_that_matter(&[]).is_empty());
    }
}
