//! CodeCrash's baseline: every program normalised by Python's `ast.unparse(ast.parse(code))`
//! before anything else (comments dropped, quotes, spacing and parentheses made canonical). The
//! `codecrash` profile perturbs the normalised programs, and the normalised dataset is the vanilla
//! baseline its drops are measured against. Python does the normalising, so this module only says
//! what to run and reads the result back; the caller runs it in its engine, then verifies the
//! normalised program like any perturbation (`normalised_as_perturbed` and `verify`).

use execbench_core::{Limits, Outcome, Provenance, PythonEngine, RunRequest, Sample};
use execbench_literal::{PyValue, parse_literal};
use serde_json::{Map, Value};

use crate::kinds::comments::python_string;
use crate::{Perturbed, verify};

/// Where a normalised row says how it was made (`meta`), so a baseline file explains itself.
pub const NORMALISED_FIELD: &str = "normalised";

/// What that field says.
pub const NORMALISED_BY: &str = "ast.unparse";

/// The run that normalises `sample`'s program: its value is the normalised text.
pub fn unparse_request(sample: &Sample, limits: Limits) -> RunRequest {
    let program = format!("import ast\nsource = {}\n", python_string(&sample.code));
    RunRequest::new(&program, "ast.unparse(ast.parse(source))").with_limits(limits)
}

/// `sample` with the program [`unparse_request`]'s run returned, marked as normalised; an error
/// names why the run gave no program (the code does not parse, the engine failed).
pub fn normalised_sample(sample: &Sample, outcome: &Outcome) -> Result<Sample, String> {
    let text = match outcome {
        Outcome::Value { repr, .. } => match parse_literal(repr) {
            Ok(PyValue::Str(text)) => text,
            _ => return Err(format!("ast.unparse returned {repr}, not a string")),
        },
        other => return Err(format!("ast.unparse failed: {}", other.summary())),
    };
    let mut normalised = sample.clone();
    // `ast.unparse` ends without a newline; a program file has one.
    normalised.code = format!("{}\n", text.trim_end());
    normalised.meta.insert(NORMALISED_FIELD.to_string(), NORMALISED_BY.into());
    Ok(normalised)
}

/// The normalised program as a perturbation of the original (no edits to show), for
/// verification: run with the original's call, it must give the original's output.
pub fn normalised_as_perturbed(normalised: &Sample) -> Perturbed {
    Perturbed {
        code: normalised.code.clone(),
        call: normalised.call.clone(),
        function_name: normalised.function_name.clone(),
        edits: Vec::new(),
        hint: None,
    }
}

/// Normalises `sample` in `engine` and, with `verify_limits`, checks the result by execution. A
/// sample normalised already is returned as it is.
pub fn normalise(
    engine: &mut dyn PythonEngine,
    sample: &Sample,
    verify_limits: Option<Limits>,
) -> Result<Sample, String> {
    if is_normalised(sample) {
        return Ok(sample.clone());
    }
    let run = engine.run(&unparse_request(sample, Limits::default()));
    let normalised = normalised_sample(sample, &run.outcome)?;
    if let Some(limits) = verify_limits {
        verify(engine, sample, &normalised_as_perturbed(&normalised), limits)
            .map_err(|e| format!("the normalised program fails verification: {e}"))?;
    }
    Ok(normalised)
}

/// Samples as dataset rows (`id, code, function_name, input, output`, then the row's other
/// fields, then the provenance): the file `load_dataset` reads back as the same samples.
pub fn dataset_jsonl(samples: &[Sample], provenance: &Provenance) -> String {
    provenance.jsonl(samples.iter().map(|s| {
        let mut row = Map::new();
        row.insert("id".into(), Value::from(s.id.as_str()));
        row.insert("code".into(), Value::from(s.code.as_str()));
        row.insert("function_name".into(), Value::from(s.function_name.as_str()));
        row.insert("input".into(), Value::from(s.input.as_str()));
        row.insert("output".into(), Value::from(s.output.as_str()));
        for (field, value) in &s.meta {
            row.entry(field.clone()).or_insert_with(|| value.clone());
        }
        row
    }))
}

/// Whether a sample was normalised already (normalising twice changes nothing, but costs a run).
pub fn is_normalised(sample: &Sample) -> bool {
    sample.meta.get(NORMALISED_FIELD).and_then(|v| v.as_str()) == Some(NORMALISED_BY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(code: &str) -> Sample {
        let row = serde_json::json!({"id": "s", "code": code, "input": "1", "output": "2"});
        execbench_core::load_jsonl("d", &row.to_string()).samples.remove(0)
    }

    /// The request carries the program as a Python string, whatever it holds.
    #[test]
    fn the_program_travels_as_a_string_literal() {
        let code = "def f(a):\n    # say \"hi\" \\ there\n    return a + 1\r\n";
        let request = unparse_request(&sample(code), Limits::default());
        assert_eq!(request.expression, "ast.unparse(ast.parse(source))");
        let literal = request.program.strip_prefix("import ast\nsource = ").unwrap().trim_end();
        assert_eq!(parse_literal(literal), Ok(PyValue::Str(code.to_string())));
    }

    /// The run's value becomes the program; anything else is an error that says what happened.
    #[test]
    fn results_are_read_back() {
        let original = sample("def f(a):\n    return (a+1)  # one more\n");
        let value = |repr: &str| Outcome::Value { repr: repr.to_string(), matches: None };
        let normalised = normalised_sample(&original, &value("'def f(a):\\n    return a + 1'")).unwrap();
        assert_eq!(normalised.code, "def f(a):\n    return a + 1\n");
        assert_eq!(
            (normalised.call.as_str(), normalised.output.as_str()),
            (original.call.as_str(), original.output.as_str())
        );
        assert!(is_normalised(&normalised) && !is_normalised(&original));
        let cases: &[(Outcome, &str)] = &[
            (value("3"), "ast.unparse returned 3, not a string"),
            (
                Outcome::Raised {
                    kind: "SyntaxError".into(),
                    message: "invalid syntax".into(),
                    traceback: String::new(),
                    phase: "expression".into(),
                },
                "ast.unparse failed: SyntaxError: invalid syntax",
            ),
        ];
        for (outcome, error) in cases {
            assert_eq!(normalised_sample(&original, outcome).unwrap_err(), *error);
        }
        let perturbed = normalised_as_perturbed(&normalised);
        assert!(perturbed.edits.is_empty() && perturbed.hint.is_none() && perturbed.code == normalised.code);
    }

    /// A normalised dataset written and read back gives the same samples.
    #[test]
    fn a_written_dataset_reads_back() {
        let mut samples = execbench_core::load_jsonl("d", "{\"id\": \"a\", \"code\": \"def f(a):\\n    return a\", \"input\": \"[1]\", \"output\": \"[1]\", \"difficulty\": \"easy\"}").samples;
        samples[0].meta.insert(NORMALISED_FIELD.into(), NORMALISED_BY.into());
        let text = dataset_jsonl(&samples, &Provenance::of_dataset("0", "d", &samples));
        let mut read = execbench_core::load_jsonl("d2", &text).samples;
        read[0].meta.remove("provenance");
        assert_eq!(read, samples);
        assert!(is_normalised(&read[0]));
    }
}
