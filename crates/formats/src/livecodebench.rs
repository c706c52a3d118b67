//! LiveCodeBench's execution set (`livecodebench/execution-v2`): `question_id, contest_id,
//! contest_date, difficulty, function_name, code, input, output, id, problem_id, numsteps`.
//!
//! Its `input` is the whole call as written (`minimumCost(s = '0011')`): the sample's `call` is
//! that text and its `input` the text between the parentheses. Every column the sample does not
//! use (difficulty, contest date, question id, problem id, numsteps, contest id) stays in `meta`
//! under its own name; `question_id` marks the row as LeetCode's, so it runs with LeetCode's
//! prelude (`execbench_core::Convention`).

use execbench_core::{FieldError, Sample};
use serde_json::{Map, Value};

/// The columns that tell LiveCodeBench's rows from other tables.
const LCB_COLUMNS: [&str; 4] = ["question_id", "function_name", "input", "output"];

/// Whether a table with these column names is LiveCodeBench-shaped.
pub fn is_lcb_schema<S: AsRef<str>>(columns: &[S]) -> bool {
    LCB_COLUMNS.iter().all(|wanted| columns.iter().any(|c| c.as_ref() == *wanted))
}

/// A LiveCodeBench row as a sample: the shared row rules, `function_name` is required, and the
/// `input` must be the call of `function_name` (LiveCodeBench never stores bare arguments, so anything else is a broken row,
/// not a call to guess).
pub fn sample_from_row(row: Map<String, Value>) -> Result<Sample, FieldError> {
    // The call names the function, so LiveCodeBench's rows always say which it is.
    match row.get("function_name") {
        None => return Err(("function_name", "missing (required)".to_string())),
        Some(Value::Null) => return Err(("function_name", "null (required)".to_string())),
        Some(_) => {}
    }
    let (input, name) = (row.get("input").and_then(Value::as_str), row.get("function_name").and_then(Value::as_str));
    if let (Some(input), Some(name)) = (input, name)
        && !is_call_of(input.trim(), name)
    {
        return Err((
            "input",
            format!(
                "`{}` is not a call of `{name}`: LiveCodeBench rows hold the whole call, `{name}(...)`",
                short(input)
            ),
        ));
    }
    execbench_core::sample_from_row(row)
}

/// `name(...)` as a whole, brackets balanced.
fn is_call_of(text: &str, name: &str) -> bool {
    let Some(rest) = text.strip_prefix(name).map(str::trim_start) else { return false };
    match rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(arguments) => execbench_core::brackets::balanced(arguments),
        None => false,
    }
}

fn short(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_of_the_function() {
        let cases = [
            ("minimumCost(s = '0011')", true),
            ("minimumCost (s='0011')", true),
            ("minimumCost(s = ')')", true),
            ("s = '0011'", false),
            ("minimumCostX(s = '0011')", false),
            ("minimumCost(1)(2)", false),
            ("minimumCost(s = '0011'", false),
        ];
        for (text, expected) in cases {
            assert_eq!(is_call_of(text, "minimumCost"), expected, "{text}");
        }
    }
}
