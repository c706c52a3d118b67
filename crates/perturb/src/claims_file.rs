//! MHC's wrong answers taken from a file: CodeCrash's published `crux_MHC_{input,output}.jsonl`
//! (the claim read back from the hint comment inside each row's `code`) or execbench's own JSONL
//! of `{"id": ..., "claim": ...}` rows. The file's claims for a sample come first; the offline
//! source's proposals follow, so that a claim execution shows right (the programs differ) or a
//! sample the file lacks still gets a hint. Which samples fell back is recorded, to be reported.
//! No I/O here: the caller reads the file.

use std::collections::{BTreeMap, BTreeSet};

use execbench_literal::parse_literal;
use serde_json::Value;

use crate::Prediction;
use crate::distance::call_arguments;
use crate::rng::Rng;
use crate::syntax::{self, NodeKind, preorder, text};
use crate::wrong_answer_sources::{OfflineWrongAnswers, WrongAnswerRequest, WrongAnswerSource};

/// The claims of one file, by sample and task.
#[derive(Clone, Debug, Default)]
pub struct FileWrongAnswers {
    /// (normalised sample id, task) -> claims in file order. A row of our own layout without a
    /// `prediction` gives its claims to both tasks.
    claims: BTreeMap<(String, bool), Vec<String>>,
    /// Rows read, and rows in which no claim could be found (with why).
    pub rows: usize,
    pub skipped: Vec<String>,
    pub fallback: OfflineWrongAnswers,
    /// Samples asked about that have no claim in the file: they got offline proposals only.
    pub missing: BTreeSet<String>,
    /// The file's claims proposed for each sample asked about, in the hint's form.
    proposed: BTreeMap<String, Vec<String>>,
}

/// Where the exported hints' claims came from, for a file source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileReport {
    /// Hints that claim what the file says.
    pub from_file: usize,
    /// Samples the file has no claim for: offline proposals.
    pub missing: Vec<String>,
    /// Samples whose file claims were all shown right (or could not be evaluated or placed) by
    /// execution: offline proposals too.
    pub not_wrong: Vec<String>,
}

impl FileReport {
    pub fn fell_back(&self) -> usize {
        self.missing.len() + self.not_wrong.len()
    }
}

/// What a CodeCrash id or an execbench id names: `sample_12`, `crux_12` and `12` are all sample 12
/// (the trailing number after a `_`, or the whole id when it is a number); any other id as it is.
pub fn normalise_id(id: &str) -> String {
    let id = id.trim();
    let digits = id.rsplit('_').next().unwrap_or(id);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let number = digits.trim_start_matches('0');
        return if number.is_empty() { "0".to_string() } else { number.to_string() };
    }
    id.to_string()
}

/// The map key of a sample and task (`true` for input prediction).
fn key(sample_id: &str, prediction: Prediction) -> (String, bool) {
    (normalise_id(sample_id), prediction == Prediction::Input)
}

impl FileWrongAnswers {
    /// Reads JSON Lines of either layout (even mixed); blank lines are skipped. A line that is not
    /// JSON is an error (the file is not what the user meant); a row without a readable claim is
    /// only counted in `skipped`.
    pub fn parse(text: &str) -> Result<FileWrongAnswers, String> {
        let mut file = FileWrongAnswers::default();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: Value = serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", number + 1))?;
            file.rows += 1;
            match claims_of_row(&row) {
                Ok((id, found)) => {
                    for (prediction, claim) in found {
                        file.claims.entry(key(&id, prediction)).or_default().push(claim);
                    }
                }
                Err(why) => file.skipped.push(format!("line {}: {why}", number + 1)),
            }
        }
        Ok(file)
    }

    /// Claims given directly, (sample id, task, claim) in order: a model's proposals.
    pub fn from_claims(claims: impl IntoIterator<Item = (String, Prediction, String)>) -> FileWrongAnswers {
        let mut table = FileWrongAnswers::default();
        for (id, prediction, claim) in claims {
            table.rows += 1;
            table.claims.entry(key(&id, prediction)).or_default().push(claim);
        }
        table
    }

    /// The file's claims for a sample and task, in file order.
    pub fn claims_for(&self, sample_id: &str, prediction: Prediction) -> &[String] {
        self.claims.get(&key(sample_id, prediction)).map_or(&[], Vec::as_slice)
    }

    /// Sorts the exported hints by where their claim came from.
    pub fn report(&self, hints: &[crate::HintRow]) -> FileReport {
        let mut report = FileReport::default();
        for row in hints {
            match self.proposed.get(&row.id) {
                Some(claims) if claims.contains(&row.hint.claimed) => report.from_file += 1,
                Some(claims) if !claims.is_empty() => report.not_wrong.push(row.id.clone()),
                _ => report.missing.push(row.id.clone()),
            }
        }
        report
    }

    /// How many (sample, task) pairs have claims.
    pub fn samples_with_claims(&self) -> usize {
        self.claims.len()
    }
}

impl WrongAnswerSource for FileWrongAnswers {
    fn candidates(&mut self, request: &WrongAnswerRequest, rng: &mut Rng) -> Result<Vec<String>, String> {
        let mut out: Vec<String> = self
            .claims_for(request.sample_id, request.prediction)
            .iter()
            .filter_map(|c| as_claim(c, request))
            .collect();
        if out.is_empty() {
            self.missing.insert(request.sample_id.to_string());
        }
        self.proposed.insert(request.sample_id.to_string(), out.clone());
        out.extend(self.fallback.candidates(request, rng)?);
        Ok(out)
    }

    /// Only for samples the file has nothing for: a probe's value is claimed before the
    /// candidates, which would put it before the file's own claim.
    fn probes(&mut self, request: &WrongAnswerRequest, rng: &mut Rng) -> Vec<String> {
        if self.claims_for(request.sample_id, request.prediction).is_empty() {
            self.fallback.probes(request, rng)
        } else {
            Vec::new()
        }
    }
}

/// A file's claim in the form the hint takes: output prediction, the literal; input prediction,
/// the argument text (`f(1, 2)` becomes `1, 2` when `f` is the tested function).
fn as_claim(claim: &str, request: &WrongAnswerRequest) -> Option<String> {
    let claim = claim.trim();
    if claim.is_empty() || claim.contains('\n') {
        return None;
    }
    match request.prediction {
        Prediction::Output => Some(claim.to_string()),
        Prediction::Input => {
            let called =
                claim.strip_prefix(request.function_name).is_some_and(|rest| rest.trim_start().starts_with('('));
            match called.then(|| call_arguments(claim)).flatten() {
                Some(arguments) => Some(arguments),
                None => Some(claim.to_string()),
            }
        }
    }
}

/// The sample id and the claims of one row, of either layout.
fn claims_of_row(row: &Value) -> Result<(String, Vec<(Prediction, String)>), String> {
    let id_of = |field: &str| match row.get(field) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    if let Some(id) = id_of("task_id") {
        let code = row.get("code").and_then(Value::as_str).ok_or("a CodeCrash row without `code`")?;
        let function_name = row.get("function_name").and_then(Value::as_str).unwrap_or("f");
        let found =
            claim_in_hint_comment(code, function_name).ok_or("no hint comment with a value or a call in `code`")?;
        return Ok((id, vec![found]));
    }
    let id = id_of("id").ok_or("neither `task_id` (CodeCrash) nor `id`")?;
    let claims: Vec<String> = match row.get("claim").or_else(|| row.get("claims")) {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => return Err("no `claim` text (or list of texts)".to_string()),
    };
    let predictions = match row.get("prediction").and_then(Value::as_str) {
        None => vec![Prediction::Output, Prediction::Input],
        Some("output") => vec![Prediction::Output],
        Some("input") => vec![Prediction::Input],
        Some(other) => return Err(format!("unknown `prediction` `{other}` (known: output, input)")),
    };
    Ok((id, predictions.into_iter().flat_map(|p| claims.iter().map(move |c| (p, c.clone()))).collect()))
}

/// The claim of a hint comment in `code`, and which task it lies about. A comment on the line of
/// `def function_name` holding a call of it claims the input (its argument text); otherwise the
/// last comment that ends in a Python literal claims the output (the hint goes on the return line
/// or after the function, so it is the last comment). Comments are found with the parser, so a
/// `#` inside a string is no comment.
pub fn claim_in_hint_comment(code: &str, function_name: &str) -> Option<(Prediction, String)> {
    let tree = syntax::parse(code).ok()?;
    let comments: Vec<execbench_pysyntax::Node> =
        preorder(tree.root_node()).into_iter().filter(|n| n.kind_name() == "comment").collect();
    let def_rows: Vec<usize> = preorder(tree.root_node())
        .into_iter()
        .filter(|n| n.kind_name() == "function_definition")
        .filter(|n| n.child_by_field_name("name").is_some_and(|name| text(name, code) == function_name))
        .map(|n| n.start_position().row)
        .collect();
    for comment in &comments {
        if def_rows.contains(&comment.start_position().row)
            && let Some(arguments) = call_in(text(*comment, code), function_name)
        {
            return Some((Prediction::Input, arguments));
        }
    }
    comments
        .iter()
        .rev()
        .find_map(|comment| literal_at_end(text(*comment, code)))
        .map(|literal| (Prediction::Output, literal))
}

/// The argument text of the first call of `function_name` in a comment (`# The call is f(1, [2])`
/// gives `1, [2]`), its closing parenthesis found by the parser.
fn call_in(comment: &str, function_name: &str) -> Option<String> {
    let body = comment.trim_start_matches('#');
    let mut from = 0;
    while let Some(offset) = body[from..].find(function_name) {
        let start = from + offset;
        from = start + function_name.len();
        // The name alone, not the end of a longer one (`elf(` for `f`).
        if body[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_')
            || !body[from..].starts_with('(')
        {
            continue;
        }
        // The longest prefix of what follows that is one call: a trailing period or words after it are dropped.
        for end in (from + 1..=body.len()).rev().filter(|e| body.is_char_boundary(*e) && body[..*e].ends_with(')')) {
            if let Some(arguments) = call_arguments(&body[start..end]) {
                return Some(arguments);
            }
        }
    }
    None
}

/// The longest tail of a comment, starting at a word, that is a Python literal (`# The return value
/// is [1, 2]` gives `[1, 2]`; a final period is allowed).
fn literal_at_end(comment: &str) -> Option<String> {
    let body = comment.trim_start_matches('#').trim();
    let starts =
        std::iter::once(0).chain(body.char_indices().filter(|(_, c)| c.is_whitespace()).map(|(i, c)| i + c.len_utf8()));
    for start in starts {
        let tail = body[start..].trim();
        for candidate in [tail, tail.strip_suffix('.').unwrap_or(tail).trim_end()] {
            if !candidate.is_empty() && parse_literal(candidate).is_ok() {
                return Some(candidate.to_string());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_across_layouts() {
        let cases: &[(&str, &str)] = &[
            ("sample_12", "12"),
            ("12", "12"),
            ("crux_012", "12"),
            ("sample_0", "0"),
            ("HumanEval/3", "HumanEval/3"),
            ("abc", "abc"),
        ];
        for (id, normal) in cases {
            assert_eq!(normalise_id(id), *normal, "{id}");
        }
    }

    /// (code, what the hint comment claims): CodeCrash's two placements and a few variants a
    /// tolerant reader must take.
    #[test]
    fn claims_are_read_from_hint_comments() {
        let cases: &[(&str, Option<(Prediction, &str)>)] = &[
            ("def f(x):\n    return x + 1  # The return value is 7", Some((Prediction::Output, "7"))),
            (
                "def f(x):\n    if x:\n        return 1\n    return 2\n# The return value is [1, 'a #b'].",
                Some((Prediction::Output, "[1, 'a #b']")),
            ),
            (
                "def f(x):  # The function call is f('ab', [1, 2])\n    return x",
                Some((Prediction::Input, "'ab', [1, 2]")),
            ),
            ("def f(x):  # the call f(3) gives it.\n    return x", Some((Prediction::Input, "3"))),
            ("def f(x):\n    s = '# 5'\n    return s", None),
            ("def f(x):\n    # no value here\n    return x", None),
            (
                "def f(x):\n    return x  # The return value is {'a': (1, None)}",
                Some((Prediction::Output, "{'a': (1, None)}")),
            ),
        ];
        for (code, expected) in cases {
            let got = claim_in_hint_comment(code, "f");
            assert_eq!(got.as_ref().map(|(p, c)| (*p, c.as_str())), *expected, "{code}");
        }
    }

    #[test]
    fn rows_of_both_layouts_are_read() {
        let text = concat!(
            r#"{"task_id": "sample_3", "dataset": "crux", "code": "def f(a):\n    return a  # The return value is 'zz'", "function_name": "f", "function_call": "f('a')", "output": "'a'", "test": "assert f('a') == 'a'"}"#,
            "\n\n",
            r#"{"id": "sample_4", "claim": "f(9)", "prediction": "input"}"#,
            "\n",
            r#"{"id": 5, "claims": ["1", "2"]}"#,
            "\n",
            r#"{"id": "sample_6"}"#,
            "\n",
        );
        let file = FileWrongAnswers::parse(text).unwrap();
        assert_eq!((file.rows, file.skipped.len(), file.samples_with_claims()), (4, 1, 4));
        assert_eq!(file.claims_for("3", Prediction::Output), ["'zz'"]);
        assert!(file.claims_for("sample_3", Prediction::Input).is_empty());
        assert_eq!(file.claims_for("sample_4", Prediction::Input), ["f(9)"]);
        assert_eq!(file.claims_for("sample_5", Prediction::Input), ["1", "2"]);
        assert_eq!(file.claims_for("sample_5", Prediction::Output), ["1", "2"]);
        assert!(FileWrongAnswers::parse("{not json").unwrap_err().starts_with("line 1: not JSON"));
    }

    #[test]
    fn file_claims_come_first_then_offline_proposals() {
        let mut file =
            FileWrongAnswers::parse(r#"{"id": "sample_1", "claim": "f(9, 'q')", "prediction": "input"}"#).unwrap();
        let request = WrongAnswerRequest {
            sample_id: "sample_1",
            code: "",
            function_name: "f",
            call: "f(1, 'a')",
            expected_output: "0",
            prediction: Prediction::Input,
        };
        let got = file.candidates(&request, &mut Rng::new(1)).unwrap();
        assert_eq!(got[0], "9, 'q'");
        assert!(got.len() > 1, "offline proposals follow: {got:?}");
        assert!(
            !file
                .probes(&WrongAnswerRequest { prediction: Prediction::Output, ..request.clone() }, &mut Rng::new(1))
                .is_empty(),
            "nothing for output in the file: offline probes"
        );
        assert!(file.missing.is_empty());
        let other = WrongAnswerRequest { sample_id: "sample_2", ..request.clone() };
        assert_eq!(
            file.candidates(&other, &mut Rng::new(1)).unwrap(),
            OfflineWrongAnswers::default().candidates(&other, &mut Rng::new(1)).unwrap()
        );
        assert_eq!(file.missing.iter().collect::<Vec<_>>(), ["sample_2"]);
        // Sample 1 exported with the file's claim, sample 2 with an offline one.
        let row = |id: &str, claimed: &str| crate::HintRow {
            id: id.to_string(),
            hint: crate::Hint {
                prediction: Prediction::Input,
                claimed: claimed.to_string(),
                alternatives: Vec::new(),
                probes: Vec::new(),
                probed: None,
            },
            distance: None,
        };
        let report = file.report(&[row("sample_1", "9, 'q'"), row("sample_2", "3, 'a'")]);
        assert_eq!(report, FileReport { from_file: 1, missing: vec!["sample_2".to_string()], not_wrong: Vec::new() });
        let report = file.report(&[row("sample_1", "7, 'a'")]);
        assert_eq!((report.from_file, report.fell_back(), report.not_wrong), (0, 1, vec!["sample_1".to_string()]));
    }
}
