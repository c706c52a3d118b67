//! What actually runs for a sample: its code as the dataset gives it (what prompts show), made
//! runnable the way the dataset's own harness runs it. CRUXEval code runs as is. LeetCode-contest
//! code runs as LeetCode runs it: after the names LeetCode's Python environment imports for every
//! solution, and with a `class Solution` method called on an instance.
//!
//! Every request built from a sample (verification, the sample page's Run, scoring by execution,
//! perturbation checks, re-scoring reproductions) goes through [`Convention::request`].

use serde_json::{Map, Value};

use crate::engine::RunRequest;
use crate::sample::Sample;

/// Executed before a LeetCode-shaped program, in its globals: the names LeetCode's Python 3
/// environment makes available without an import (typing's `List`, `Optional`, …; collections'
/// `defaultdict`, `Counter`, `deque`, …; heapq, bisect, itertools and functools functions; math's
/// functions and `inf`; string's constants) and those modules themselves. Every module named here
/// is in the engine's frozen stdlib (`crates/pyengine/stdlib.txt`) or built into RustPython
/// (`math`, `itertools`). Not provided: `sortedcontainers` (not stdlib) and LeetCode's `ListNode` /
/// `TreeNode` classes (problems with them take no literal inputs).
pub const LEETCODE_PRELUDE: &str = "\
from typing import *
from collections import *
from heapq import *
from bisect import *
from itertools import *
from functools import *
from math import *
from string import *
import bisect, collections, copy, functools, heapq, itertools, math, operator, random, re, string, typing
# math's pow takes no modulus: the builtin one stays.
del pow
";

/// How a sample's code is run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Convention {
    /// As is (CRUXEval and any other plain function).
    #[default]
    Plain,
    /// After [`LEETCODE_PRELUDE`], with `class Solution` methods callable by name.
    LeetCode,
}

/// Fields only LeetCode-contest rows carry.
const LEETCODE_FIELDS: [&str; 3] = ["question_id", "correct_condition", "contest_id"];

impl Convention {
    /// LeetCode when the code defines a top-level `class Solution` or the row has a field only
    /// LeetCode-contest datasets have; plain otherwise.
    pub fn of(sample: &Sample) -> Convention {
        Convention::of_parts(&sample.code, &sample.meta)
    }

    pub fn of_parts(code: &str, meta: &Map<String, Value>) -> Convention {
        // CodeCrash's LiveCodeBench records carry none of those fields, only `"dataset": "lcb"`;
        // their code still uses `List[int]` and friends without importing them.
        let codecrash_lcb = meta.get("dataset").and_then(Value::as_str) == Some("lcb");
        if defines_solution_class(code) || codecrash_lcb || LEETCODE_FIELDS.iter().any(|f| meta.contains_key(*f)) {
            Convention::LeetCode
        } else {
            Convention::Plain
        }
    }

    /// The request that runs `code` (the sample's, a perturbed copy or a model's) and then
    /// evaluates `expression` (a call of `function_name`, an assertion's `None`, …).
    pub fn request(self, code: &str, function_name: &str, expression: impl Into<String>) -> RunRequest {
        let mut request = RunRequest::new(runnable_code(code, function_name), expression);
        if self == Convention::LeetCode {
            request.prelude = LEETCODE_PRELUDE.to_string();
        }
        request
    }
}

impl Sample {
    /// The request that runs this sample's code and evaluates `expression`.
    pub fn request(&self, expression: impl Into<String>) -> RunRequest {
        Convention::of(self).request(&self.code, &self.function_name, expression)
    }
}

/// `code`, plus, when `function_name` is not defined at top level but is a method of a top-level
/// `class Solution`, a function of that name that calls the method on a new instance, so that
/// `countSeniors(details=[...])` runs as `Solution().countSeniors(details=[...])`. Appended after
/// the code, so the code's line numbers in tracebacks stay as they are.
pub fn runnable_code(code: &str, function_name: &str) -> String {
    if defines_top_level(code, function_name) || !solution_method(code, function_name) {
        return code.to_string();
    }
    let separator = if code.ends_with('\n') { "\n" } else { "\n\n" };
    format!(
        "{code}{separator}def {function_name}(*args, **kwargs):\n    return Solution().{function_name}(*args, **kwargs)\n"
    )
}

fn defines_top_level(code: &str, name: &str) -> bool {
    code.lines().any(|line| def_name(line) == Some(name))
}

/// `name` from `def name(` / `async def name(` at the start of `line`.
fn def_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("def ").or_else(|| line.strip_prefix("async def "))?;
    Some(rest.split('(').next()?.trim())
}

fn is_solution_header(line: &str) -> bool {
    line.strip_prefix("class Solution").is_some_and(|rest| rest.trim_start().starts_with([':', '(']))
}

fn defines_solution_class(code: &str) -> bool {
    code.lines().any(is_solution_header)
}

/// Whether the body of the top-level `class Solution` defines `name`.
fn solution_method(code: &str, name: &str) -> bool {
    let mut in_class = false;
    for line in code.lines() {
        let indented = line.starts_with([' ', '\t']);
        let blank = line.trim().is_empty() || line.trim_start().starts_with('#');
        if !indented && !blank {
            in_class = is_solution_header(line);
        } else if in_class && indented && def_name(line.trim_start()) == Some(name) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str =
        "class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n        return 1\n";

    #[test]
    fn class_solution_methods_get_a_top_level_caller() {
        let shim = "def countSeniors(*args, **kwargs):\n    return Solution().countSeniors(*args, **kwargs)\n";
        // (code, function name, program expected)
        let cases: Vec<(&str, &str, String)> = vec![
            (SOLUTION, "countSeniors", format!("{SOLUTION}\n{shim}")),
            (SOLUTION.trim_end(), "countSeniors", format!("{}\n\n{shim}", SOLUTION.trim_end())),
            // A top-level function of that name is called as it is.
            ("class Solution:\n    def g(self): pass\ndef g():\n    return 2", "g", "class Solution:\n    def g(self): pass\ndef g():\n    return 2".into()),
            ("def f(x):\n    return x", "f", "def f(x):\n    return x".into()),
            // Another class's method is not Solution's.
            ("class Other:\n    def countSeniors(self): pass", "countSeniors", "class Other:\n    def countSeniors(self): pass".into()),
            // The method must be in Solution's body, not after it.
            ("class Solution:\n    pass\nx = 1\n    \ndef h(): pass", "h", "class Solution:\n    pass\nx = 1\n    \ndef h(): pass".into()),
            ("class Solution(object):\n\n    # note\n    def h(self):\n        return 3", "h", "class Solution(object):\n\n    # note\n    def h(self):\n        return 3\n\ndef h(*args, **kwargs):\n    return Solution().h(*args, **kwargs)\n".into()),
        ];
        for (code, name, expected) in cases {
            assert_eq!(runnable_code(code, name), expected, "{code}");
        }
    }

    #[test]
    fn conventions() {
        let meta = |field: &str| {
            let mut m = Map::new();
            m.insert(field.to_string(), Value::from(1));
            m
        };
        let dataset = |name: &str| {
            let mut m = Map::new();
            m.insert("dataset".to_string(), Value::from(name));
            m
        };
        let cases = [
            (SOLUTION, Map::new(), Convention::LeetCode),
            ("def f(x):\n    return x", Map::new(), Convention::Plain),
            ("def f(x):\n    return x", meta("question_id"), Convention::LeetCode),
            ("def f(x):\n    return x", meta("correct_condition"), Convention::LeetCode),
            ("def f(x):\n    return x", meta("difficulty"), Convention::Plain),
            ("def f(x):\n    return x", dataset("lcb"), Convention::LeetCode),
            ("def f(x):\n    return x", dataset("crux"), Convention::Plain),
            ("class SolutionX:\n    pass", Map::new(), Convention::Plain),
        ];
        for (code, meta, convention) in cases {
            assert_eq!(Convention::of_parts(code, &meta), convention, "{code} {meta:?}");
        }
    }

    #[test]
    fn only_leetcode_requests_carry_the_prelude() {
        let plain = Convention::Plain.request("def f(): return 1", "f", "f()");
        assert_eq!(
            (plain.program.as_str(), plain.prelude.as_str(), plain.expression.as_str()),
            ("def f(): return 1", "", "f()")
        );
        let leetcode = Convention::LeetCode.request(SOLUTION, "countSeniors", "countSeniors(details=[])");
        assert_eq!(leetcode.prelude, LEETCODE_PRELUDE);
        assert!(leetcode.program.starts_with(SOLUTION) && leetcode.program.contains("Solution().countSeniors"));
        assert_eq!(leetcode.expression, "countSeniors(details=[])");
    }
}
