//! MHC's wrong answers from a model: the prompt that asks for one and the reading of the reply.
//! The asking itself (providers, retries, rate limits) is the run engine's; the proposals go
//! through [`crate::claims_file::FileWrongAnswers::from_claims`], so a proposal that execution
//! shows right falls back on the offline source exactly as a file's claim does.

use crate::Prediction;
use crate::distance::call_arguments;

/// The user message asking for a wrong but believable answer about `call` (which returns `output`).
/// The reply is asked for as an assertion between `[ANSWER]` tags, the form models already follow
/// for CRUXEval; input prediction shows `{function_name}(??)` for the call to invent.
pub fn wrong_answer_prompt(code: &str, function_name: &str, call: &str, output: &str, prediction: Prediction) -> String {
    let code = code.trim_end();
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
        (Prediction::Input, Some((left, _))) => call_arguments(left.trim()).filter(|_| left.trim().starts_with(function_name))?,
        (Prediction::Input, None) => call_arguments(statement).filter(|_| statement.starts_with(function_name))?,
    };
    (!claim.is_empty() || prediction == Prediction::Input).then_some(claim)
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
        let output = wrong_answer_prompt("def f(a):\n    return a\n", "f", "f(3)", "3", Prediction::Output);
        assert!(output.contains("[PYTHON]\ndef f(a):\n    return a\n[/PYTHON]") && output.contains("assert f(3) == <the wrong value"), "{output}");
        let input = wrong_answer_prompt("def f(a):\n    return a", "f", "f(3)", "3", Prediction::Input);
        assert!(input.contains("assert f(??) == 3") && input.contains("assert f(<the arguments>) == 3"), "{input}");
    }
}
