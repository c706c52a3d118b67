//! MHC's wrong answers from a model: the prompt that asks for one and the reading of the reply.
//! The asking itself (providers, retries, rate limits) is the run engine's; the proposals go
//! through [`crate::claims_file::FileWrongAnswers::from_claims`], so a proposal that execution
//! shows right falls back on the offline source exactly as a file's claim does.

use execbench_core::{Convention, Limits, Outcome, RunRequest, Sample};
use execbench_literal::parse_literal;

use crate::distance::call_arguments;
use crate::kinds::hint::hint_request;
use crate::{Prediction, Program};

/// A proposal the model made that cannot be the hint, and why: shown to the model when it is
/// asked again, so that it does not repeat itself.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rejected {
    /// The claim as the model wrote it (output: the value; input: the call), or its reply's first
    /// line when no claim could be read.
    pub claim: String,
    pub why: String,
}

/// The user message asking for a wrong but believable answer about `call` (which returns `output`).
/// The reply is asked for as an assertion between `[ANSWER]` tags, the form models already follow
/// for CRUXEval; input prediction shows `{function_name}(??)` for the call to invent.
/// `rejected`: the model's earlier proposals for this sample that execution ruled out, listed
/// after the request so the next proposal differs.
pub fn wrong_answer_prompt(
    code: &str,
    function_name: &str,
    call: &str,
    output: &str,
    prediction: Prediction,
    rejected: &[Rejected],
) -> String {
    let mut prompt = first_request(code.trim_end(), function_name, call, output, prediction);
    if !rejected.is_empty() {
        prompt.push_str("\n\nThese proposals were already tried and cannot be used; propose something different:");
        for r in rejected {
            prompt.push_str(&format!("\n- {} ({})", r.claim, r.why));
        }
    }
    prompt
}

fn first_request(code: &str, function_name: &str, call: &str, output: &str, prediction: Prediction) -> String {
    match prediction {
        Prediction::Output => format!(
            "We are writing a misleading hint for a code-reasoning test. Here is a Python function:\n\n[PYTHON]\n{code}\n[/PYTHON]\n\n\
             The call {call} returns {output}. Propose a different return value that a careful reader could still believe: \
             the same type and about the same size as the true one, as if one step of the code's logic had been followed wrongly \
             (a branch taken the other way, a loop stopping one pass early, an element left out). Not a one-character typo, and \
             never the true value. Reply with only:\n[ANSWER]\nassert {call} == <the wrong value as a Python literal>\n[/ANSWER]"
        ),
        Prediction::Input => format!(
            "We are writing a misleading hint for a code-reasoning test. Here is a Python function:\n\n[PYTHON]\n{code}\n[/PYTHON]\n\n\
             The call {call} returns {output}. Propose a different call, assert {function_name}(??) == {output}, that a careful \
             reader could believe gives this result but that does not: arguments of the same types and about the same sizes, \
             changed the way a plausible misreading of the code would suggest. Not a one-character change of the true arguments, \
             and never the true call. Reply with only:\n[ANSWER]\nassert {function_name}(<the arguments>) == {output}\n[/ANSWER]"
        ),
    }
}

/// The claim in a model's reply: the text of the last `[ANSWER]` block (or the whole reply), the
/// `assert` dropped; for output prediction what follows the first `==`, for input prediction the
/// call before it, as the argument text. `None` when nothing usable is there.
pub fn claim_from_reply(reply: &str, function_name: &str, prediction: Prediction) -> Option<String> {
    let block = match reply.rfind("[ANSWER]") {
        Some(start) => {
            let rest = &reply[start + "[ANSWER]".len()..];
            rest.find("[/ANSWER]").map_or(rest, |end| &rest[..end])
        }
        None => reply,
    };
    let line = block.lines().map(str::trim).find(|l| !l.is_empty())?;
    let statement = line.strip_prefix("assert ").unwrap_or(line).trim();
    let claim = match (prediction, statement.split_once("==")) {
        (Prediction::Output, Some((_, right))) => right.trim().to_string(),
        (Prediction::Output, None) => statement.to_string(),
        (Prediction::Input, Some((left, _))) => {
            call_arguments(left.trim()).filter(|_| left.trim().starts_with(function_name))?
        }
        (Prediction::Input, None) => call_arguments(statement).filter(|_| statement.starts_with(function_name))?,
    };
    (!claim.is_empty() || prediction == Prediction::Input).then_some(claim)
}

/// The run that tells whether `claim` is wrong for `sample`: the claimed value compared with the
/// true output (output prediction) or the function called with the claimed arguments (input
/// prediction, `claim` being the argument text). Read the outcome with [`claim_check`].
pub fn claim_check_request(sample: &Sample, prediction: Prediction, claim: &str, limits: Limits) -> RunRequest {
    let program =
        Program { code: sample.code.clone(), call: sample.call.clone(), function_name: sample.function_name.clone() };
    hint_request(&program, Convention::of(sample), &sample.output, prediction, claim, limits)
}

/// Whether a claim can be the hint, from its [`claim_check_request`] run: `Ok(())` when execution
/// shows it wrong (an output claim must also be a one-line Python literal, as a return value is
/// written), `Err(why)` otherwise, in words the model is shown when it is asked again.
pub fn claim_check(prediction: Prediction, claim: &str, outcome: &Outcome) -> Result<(), String> {
    if prediction == Prediction::Output && parse_literal(claim).is_err() {
        return Err("not a Python literal".to_string());
    }
    match outcome {
        Outcome::Value { matches: Some(false), .. } => Ok(()),
        Outcome::Value { matches: Some(true), .. } if prediction == Prediction::Output => {
            Err("that is the true return value".to_string())
        }
        Outcome::Value { matches: Some(true), .. } => Err("that call returns the same value".to_string()),
        Outcome::Value { matches: None, .. } => Err("it could not be compared with the true answer".to_string()),
        Outcome::Raised { kind, .. } if prediction == Prediction::Input => Err(format!("that call raises {kind}")),
        other => Err(other.summary()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_for_both_tasks() {
        let cases: &[(&str, Prediction, Option<&str>)] = &[
            ("[ANSWER]\nassert f([1, 2]) == [2, 1]\n[/ANSWER]", Prediction::Output, Some("[2, 1]")),
            ("Thinking...\n[ANSWER]assert f('a') == 'b'[/ANSWER]", Prediction::Output, Some("'b'")),
            ("[ANSWER]\n7\n[/ANSWER]", Prediction::Output, Some("7")),
            ("[ANSWER]\nassert f([3, 1], x='q') == 4\n[/ANSWER]", Prediction::Input, Some("[3, 1], x='q'")),
            ("[ANSWER]\nassert f() == 4\n[/ANSWER]", Prediction::Input, Some("")),
            ("[ANSWER]\nassert g(1) == 4\n[/ANSWER]", Prediction::Input, None),
            ("[ANSWER]\n\n[/ANSWER]", Prediction::Output, None),
        ];
        for (reply, prediction, expected) in cases {
            assert_eq!(claim_from_reply(reply, "f", *prediction).as_deref(), *expected, "{reply}");
        }
    }

    /// The prompt names the program and the true answer, and the reply form the reader expects;
    /// input prediction shows the call to invent as `f(??)`.
    #[test]
    fn prompts_carry_the_program_and_the_form() {
        let output = wrong_answer_prompt("def f(a):\n    return a\n", "f", "f(3)", "3", Prediction::Output, &[]);
        assert!(
            output.contains("[PYTHON]\ndef f(a):\n    return a\n[/PYTHON]")
                && output.contains("assert f(3) == <the wrong value"),
            "{output}"
        );
        let input = wrong_answer_prompt("def f(a):\n    return a", "f", "f(3)", "3", Prediction::Input, &[]);
        assert!(input.contains("assert f(??) == 3") && input.contains("assert f(<the arguments>) == 3"), "{input}");
        assert!(!output.contains("already tried") && !input.contains("already tried"));
    }

    /// Asked again, the model sees what it proposed before and why that cannot be the hint.
    #[test]
    fn rejected_proposals_are_listed_when_asking_again() {
        let rejected = [
            Rejected { claim: "3".into(), why: "that is the true return value".into() },
            Rejected { claim: "x".into(), why: "not a Python literal".into() },
        ];
        let prompt = wrong_answer_prompt("def f(a):\n    return a", "f", "f(3)", "3", Prediction::Output, &rejected);
        let tail = prompt.split("[/ANSWER]").last().unwrap();
        assert!(
            tail.contains("already tried")
                && tail.contains("\n- 3 (that is the true return value)\n- x (not a Python literal)"),
            "{prompt}"
        );
    }

    /// The verdict on a claim from its run's outcome, per task.
    #[test]
    fn claims_are_judged_from_their_run() {
        let value = |matches| Outcome::Value { repr: "r".into(), matches: Some(matches) };
        let raised = Outcome::Raised {
            kind: "TypeError".into(),
            message: "m".into(),
            phase: "expression".into(),
            traceback: String::new(),
        };
        let cases: &[(Prediction, &str, Outcome, Result<(), &str>)] = &[
            (Prediction::Output, "[1, 2]", value(false), Ok(())),
            (Prediction::Output, "[1, 2]", value(true), Err("that is the true return value")),
            (Prediction::Output, "sorted(x)", value(false), Err("not a Python literal")),
            (Prediction::Input, "1, 2", value(false), Ok(())),
            (Prediction::Input, "1, 2", value(true), Err("that call returns the same value")),
            (Prediction::Input, "", raised, Err("that call raises TypeError")),
        ];
        for (prediction, claim, outcome, expected) in cases {
            assert_eq!(claim_check(*prediction, claim, outcome), expected.map_err(str::to_string), "{claim}");
        }
    }

    /// The check runs the claim the way verification does: a value against the output, a call of
    /// the sample's function.
    #[test]
    fn the_check_runs_the_claim_as_verification_does() {
        let sample = execbench_core::load_jsonl(
            "d",
            r#"{"id": "s", "code": "def f(a):\n    return a - 1", "input": "2", "output": "1"}"#,
        )
        .samples
        .remove(0);
        let output = claim_check_request(&sample, Prediction::Output, "5", Limits::default());
        assert_eq!(
            (output.program.as_str(), output.expression.as_str(), output.expected.as_deref()),
            ("", "5", Some("1"))
        );
        let input = claim_check_request(&sample, Prediction::Input, "7", Limits::default());
        assert!(input.program.contains("return a - 1") && input.expression == "f(7)", "{input:?}");
    }
}
