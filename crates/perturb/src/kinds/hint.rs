//! MHC: a misleading hint comment claiming a wrong answer. Output prediction:
//! `# The return value is X` at the tested function's only return, or on its own line after the
//! function when it has none or several. Input prediction: `# The function call is f(X)` on the
//! definition line. X comes from a [`WrongAnswerSource`]; with an engine, candidates that
//! execution shows are not wrong are skipped.

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest};
use tree_sitter::{Node, Tree};

use crate::syntax::NodeKind;
use crate::edit::{self, TextEdit};
use crate::rng::Rng;
use crate::syntax::{self, comment_fits_at, line_end, named_children, newline_of, preorder, text};
use crate::wrong_answer::{WrongAnswerRequest, WrongAnswerSource};
use crate::{Edit, Hint, Kind, Options, PerturbError, Perturbed, Prediction, Program};

/// The hint for the first candidate of `source` (no execution check here; [`crate::verify`] checks).
pub fn first_hint(
    program: &Program,
    tree: &Tree,
    expected_output: &str,
    options: &Options,
    rng: &mut Rng,
    source: &mut dyn WrongAnswerSource,
) -> Result<(Program, Vec<Edit>, Hint), PerturbError> {
    let candidates = candidates(program, expected_output, options, rng, source)?;
    let claimed = candidates.into_iter().next().ok_or_else(|| PerturbError::Unsupported("MHC: no wrong answer proposed".to_string()))?;
    place_hint(program, tree, options.prediction, &claimed)
}

fn candidates(program: &Program, expected_output: &str, options: &Options, rng: &mut Rng, source: &mut dyn WrongAnswerSource) -> Result<Vec<String>, PerturbError> {
    let request = WrongAnswerRequest {
        code: &program.code,
        function_name: &program.function_name,
        call: &program.call,
        expected_output,
        prediction: options.prediction,
    };
    let candidates = source.candidates(&request, rng).map_err(|e| PerturbError::Unsupported(format!("MHC: {e}")))?;
    Ok(candidates.into_iter().filter(|c| !c.contains('\n') && !c.contains('\r')).collect())
}

/// MHC with any source, checking each candidate by execution until one is really wrong.
pub fn perturb_with_source(
    program: &Program,
    expected_output: &str,
    options: &Options,
    sample_id: &str,
    source: &mut dyn WrongAnswerSource,
    engine: &mut dyn PythonEngine,
    limits: Limits,
) -> Result<Perturbed, PerturbError> {
    let mut rng = Rng::for_sample(sample_id, Kind::Mhc.name(), options.seed);
    for claimed in candidates(program, expected_output, options, &mut rng, source)? {
        let hint = Hint { prediction: options.prediction, claimed: claimed.clone() };
        if hint_is_wrong(engine, program, expected_output, &hint, limits) == Ok(true) {
            let tree = syntax::parse_valid(&program.code, "the code")?;
            let (next, edits, hint) = place_hint(program, &tree, options.prediction, &claimed)?;
            syntax::check_output(&next.code, "MHC")?;
            return Ok(Perturbed { code: next.code, call: next.call, function_name: next.function_name, edits, hint: Some(hint) });
        }
    }
    Err(PerturbError::Unsupported("MHC: no proposed answer was shown wrong by execution".to_string()))
}

/// Whether the claim really is wrong: `Ok(true)` when the claimed value differs from the expected
/// output (output prediction) or the claimed call returns something else (input prediction);
/// `Err` with the engine's reason when the claim could not be evaluated.
pub fn hint_is_wrong(engine: &mut dyn PythonEngine, program: &Program, expected_output: &str, hint: &Hint, limits: Limits) -> Result<bool, String> {
    hint_verdict(engine.run(&hint_request(program, expected_output, hint, limits)).outcome)
}

/// The run that decides [`hint_is_wrong`], for callers that run Python elsewhere (the page's worker).
pub fn hint_request(program: &Program, expected_output: &str, hint: &Hint, limits: Limits) -> RunRequest {
    let request = match hint.prediction {
        Prediction::Output => RunRequest::new("", hint.claimed.clone()),
        Prediction::Input => RunRequest::new(program.code.clone(), format!("{}({})", program.function_name, hint.claimed)),
    };
    request.expecting(expected_output).with_limits(limits)
}

/// [`hint_is_wrong`]'s answer from the outcome of [`hint_request`].
pub fn hint_verdict(outcome: Outcome) -> Result<bool, String> {
    match outcome {
        Outcome::Value { matches: Some(matches), .. } => Ok(!matches),
        other => Err(other.summary()),
    }
}

/// `tree` is the program's syntax tree.
fn place_hint(program: &Program, tree: &Tree, prediction: Prediction, claimed: &str) -> Result<(Program, Vec<Edit>, Hint), PerturbError> {
    let code = &program.code;
    let root = tree.root_node();
    let function = named_children(root)
        .into_iter()
        .map(|n| if n.kind_name() == "decorated_definition" { n.child_by_field_name("definition").unwrap_or(n) } else { n })
        .find(|n| n.kind_name() == "function_definition" && n.child_by_field_name("name").is_some_and(|name| text(name, code) == program.function_name))
        .ok_or_else(|| PerturbError::InvalidInput(format!("the code defines no top-level function `{}`", program.function_name)))?;
    let newline = newline_of(code);
    let edit = match prediction {
        Prediction::Input => {
            let comment = format!("  # The function call is {}({claimed})", program.function_name);
            let body = function.child_by_field_name("body").map_or(function.end_byte(), |b| b.start_byte());
            let colon = syntax::children(function).into_iter().filter(|c| c.kind_name() == ":" && c.end_byte() <= body).last();
            let at = colon.map(|c| line_end(code, c.end_byte())).filter(|at| comment_fits_at(code, root, *at));
            let at = at.ok_or_else(|| PerturbError::Unsupported("MHC: no room for a comment on the definition line".to_string()))?;
            TextEdit::insert(at, comment)
        }
        Prediction::Output => {
            let comment = format!("# The return value is {claimed}");
            let returns = own_returns(function);
            let single = match returns.as_slice() {
                [only] => Some(line_end(code, only.end_byte())).filter(|at| comment_fits_at(code, root, *at)),
                _ => None,
            };
            match single {
                Some(at) => TextEdit::insert(at, format!("  {comment}")),
                None => match code[function.end_byte()..].find('\n') {
                    Some(offset) => TextEdit::insert(function.end_byte() + offset + 1, format!("{comment}{newline}")),
                    None => TextEdit::insert(code.len(), format!("{newline}{comment}")),
                },
            }
        }
    };
    let (new_code, edits) = edit::apply(code, Kind::Mhc, vec![edit])?;
    let hint = Hint { prediction, claimed: claimed.to_string() };
    Ok((Program { code: new_code, ..program.clone() }, edits, hint))
}

/// The function's own `return`s (not those of nested functions, lambdas or classes).
fn own_returns(function: Node) -> Vec<Node> {
    let Some(body) = function.child_by_field_name("body") else { return Vec::new() };
    preorder(body)
        .into_iter()
        .filter(|n| n.kind_name() == "return_statement")
        .filter(|r| {
            let mut node = r.parent();
            while let Some(n) = node {
                if n.id() == function.id() {
                    return true;
                }
                if matches!(n.kind_name(), "function_definition" | "lambda" | "class_definition") {
                    return false;
                }
                node = n.parent();
            }
            false
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::{Kind, Options, Prediction, perturb};

    /// (code, call, output, prediction, expected text around the hint), with the offline source.
    #[test]
    fn hints_go_where_documented() {
        let one_return = "def f(x):\n    y = x + 1\n    return y";
        let two_returns = "def f(x):\n    if x:\n        return 1\n    return 2\nprint('after')";
        let cases: &[(&str, &str, &str, Prediction, &str)] = &[
            (one_return, "f(1)", "2", Prediction::Output, "    return y  # The return value is "),
            (two_returns, "f(1)", "1", Prediction::Output, "    return 2\n# The return value is "),
            (one_return, "f(1)", "2", Prediction::Input, "def f(x):  # The function call is f("),
        ];
        for (code, call, output, prediction, needle) in cases {
            let options = Options { prediction: *prediction, ..Options::default() };
            let out = perturb(code, "f", call, output, Kind::Mhc, &options, "t").unwrap();
            assert!(out.code.contains(needle), "{}", out.code);
            let hint = out.hint.unwrap();
            assert!(out.code.contains(&hint.claimed), "{}", out.code);
            assert_ne!(hint.claimed, match prediction { Prediction::Output => *output, Prediction::Input => "1" });
        }
    }
}
