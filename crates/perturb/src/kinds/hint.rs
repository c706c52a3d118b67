//! MHC: a misleading hint comment claiming a wrong answer. Output prediction:
//! `# The return value is X` at the tested function's only return, or on its own line after the
//! function when it has none or several. Input prediction: `# The function call is f(X)` on the
//! definition line. X comes from a [`WrongAnswerSource`]: the first proposal that is not the true
//! value as a literal is placed, the rest are kept in [`Hint::alternatives`]. Perturbing runs no
//! Python; [`crate::verify::Verification`] checks the claim by execution and, when it turns out
//! right after all (or cannot be evaluated), re-places the hint with the next alternative.

use std::collections::BTreeSet;

use execbench_core::{Convention, Limits, Outcome, RunRequest};
use execbench_literal::parse_literal;
use execbench_pysyntax::{Node, Tree};

use crate::edit::{self, TextEdit};
use crate::rng::Rng;
use crate::syntax::NodeKind;
use crate::syntax::{self, comment_fits_at, line_end, named_children, newline_of, preorder, text};
use crate::wrong_answer_sources::{WrongAnswerRequest, WrongAnswerSource};
use crate::{Edit, Hint, Kind, Options, PerturbError, Prediction, Program};

/// The hint for the first usable candidate of `source`, with the other candidates as alternatives.
pub fn hint(
    sample_id: &str,
    program: &Program,
    tree: &Tree,
    expected_output: &str,
    options: &Options,
    rng: &mut Rng,
    source: &mut dyn WrongAnswerSource,
) -> Result<(Program, Vec<Edit>, Hint), PerturbError> {
    let mut candidates = candidates(sample_id, program, expected_output, options, rng, source)?.into_iter();
    let claimed =
        candidates.next().ok_or_else(|| PerturbError::Unsupported("MHC: no wrong answer proposed".to_string()))?;
    let (next, edits) = place_hint(program, tree, options.prediction, &claimed)?;
    let probes = match options.prediction {
        Prediction::Output => source
            .probes(&request(sample_id, program, expected_output, options), rng)
            .into_iter()
            .filter(|p| !p.contains('\n') && !p.contains('\r'))
            .collect(),
        Prediction::Input => Vec::new(),
    };
    Ok((
        next,
        edits,
        Hint { prediction: options.prediction, claimed, alternatives: candidates.collect(), probes, probed: None },
    ))
}

fn request<'a>(
    sample_id: &'a str,
    program: &'a Program,
    expected_output: &'a str,
    options: &Options,
) -> WrongAnswerRequest<'a> {
    WrongAnswerRequest {
        sample_id,
        code: &program.code,
        function_name: &program.function_name,
        call: &program.call,
        expected_output,
        prediction: options.prediction,
    }
}

/// The source's proposals in its order, without repeats, line breaks (a comment is one line) or,
/// for output prediction, values equal to the true one as literals (type-aware: `1` and `1.0`
/// differ; what only Python's `==` equates is left to the execution check).
fn candidates(
    sample_id: &str,
    program: &Program,
    expected_output: &str,
    options: &Options,
    rng: &mut Rng,
    source: &mut dyn WrongAnswerSource,
) -> Result<Vec<String>, PerturbError> {
    let proposed = source
        .candidates(&request(sample_id, program, expected_output, options), rng)
        .map_err(|e| PerturbError::Unsupported(format!("MHC: {e}")))?;
    let truth = match options.prediction {
        Prediction::Output => parse_literal(expected_output).ok(),
        Prediction::Input => None,
    };
    let mut seen = BTreeSet::new();
    let kept: Vec<String> = proposed
        .into_iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty() && !c.contains('\n') && !c.contains('\r'))
        .filter(|c| truth.as_ref().is_none_or(|t| parse_literal(c).ok().as_ref() != Some(t)))
        .filter(|c| seen.insert(c.clone()))
        .collect();
    if kept.is_empty() {
        return Err(PerturbError::Unsupported("MHC: every proposed answer equals the true one".to_string()));
    }
    Ok(kept)
}

/// The hint claiming `claimed`, placed on the unhinted program again: verification's fallback when
/// the first claim turned out not to be wrong. The output is re-parsed like any perturbation's.
pub fn replace_hint(
    original: &Program,
    prediction: Prediction,
    claimed: &str,
) -> Result<(Program, Vec<Edit>), PerturbError> {
    let tree = syntax::parse_valid(&original.code, "the code")?;
    let (next, edits) = place_hint(original, &tree, prediction, claimed)?;
    syntax::check_edited_output(&tree, &next.code, &edits, Kind::Mhc.name())?;
    Ok((next, edits))
}

/// The run that decides whether a claim is wrong: the claimed value compared with the expected
/// output (output prediction), or the function called with the claimed arguments (input prediction).
pub fn hint_request(
    program: &Program,
    convention: Convention,
    expected_output: &str,
    prediction: Prediction,
    claimed: &str,
    limits: Limits,
) -> RunRequest {
    let request = match prediction {
        Prediction::Output => RunRequest::new("", claimed),
        Prediction::Input => {
            convention.request(&program.code, &program.function_name, format!("{}({claimed})", program.function_name))
        }
    };
    request.expecting(expected_output).with_limits(limits)
}

/// From the outcome of [`hint_request`]: `Ok(true)` when the claim is wrong, `Ok(false)` when it is
/// the true answer, `Err` with the engine's reason when it could not be evaluated (it raised, it
/// timed out): a claim that crashes is no plausible hint either.
pub fn hint_verdict(outcome: Outcome) -> Result<bool, String> {
    match outcome {
        Outcome::Value { matches: Some(matches), .. } => Ok(!matches),
        other => Err(other.summary()),
    }
}

/// `tree` is the program's syntax tree.
fn place_hint(
    program: &Program,
    tree: &Tree,
    prediction: Prediction,
    claimed: &str,
) -> Result<(Program, Vec<Edit>), PerturbError> {
    let code = &program.code;
    let root = tree.root_node();
    let function = named_children(root)
        .into_iter()
        .map(
            |n| {
                if n.kind_name() == "decorated_definition" {
                    n.child_by_field_name("definition").unwrap_or(n)
                } else {
                    n
                }
            },
        )
        .find(|n| {
            n.kind_name() == "function_definition"
                && n.child_by_field_name("name").is_some_and(|name| text(name, code) == program.function_name)
        })
        .ok_or_else(|| {
            PerturbError::InvalidInput(format!("the code defines no top-level function `{}`", program.function_name))
        })?;
    let newline = newline_of(code);
    let edit = match prediction {
        Prediction::Input => {
            let comment = format!("  # The function call is {}({claimed})", program.function_name);
            let body = function.child_by_field_name("body").map_or(function.end_byte(), |b| b.start_byte());
            let colon = syntax::children(function).into_iter().rfind(|c| c.kind_name() == ":" && c.end_byte() <= body);
            let at = colon.map(|c| line_end(code, c.end_byte())).filter(|at| comment_fits_at(code, root, *at));
            let at = at.ok_or_else(|| {
                PerturbError::Unsupported("MHC: no room for a comment on the definition line".to_string())
            })?;
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
    Ok((Program { code: new_code, ..program.clone() }, edits))
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
            assert_ne!(
                hint.claimed,
                match prediction {
                    Prediction::Output => *output,
                    Prediction::Input => "1",
                }
            );
        }
    }
}
