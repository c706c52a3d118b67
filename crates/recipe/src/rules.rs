//! The filter's rules, one name each, and a rejection: the rule a candidate broke, what exactly
//! broke it, and where in its code. Every stage of the pipeline speaks in these.

use serde::{Deserialize, Serialize};

/// Where in the pipeline a rule is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// A model's response could not be read as a function and inputs.
    Parse,
    /// Read off the code without running it.
    Static,
    /// Measured while running the candidate (instrumented execution).
    Runtime,
}

/// One rule of the filter. `id()` is the stable name used in files and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    // Parse
    /// The response held no function `f` with test inputs that could be read.
    Unparseable,
    // Static
    /// The code is not valid Python.
    Syntax,
    /// There is no top-level `def f(...)`.
    NoFunctionF,
    /// An argument of `f` is never used in its body.
    UnusedArgument,
    /// The code with `assert f(<input>) == ??` is shorter than 75 or longer than 300 characters.
    CodeLength,
    /// `assert f(<input>) == <output>` does not parse as that, or the input is not literals.
    BadInput,
    /// The code imports a module.
    Import,
    /// The code names something that reaches outside or is nondeterministic (`open`, `random`, ...).
    ForbiddenName,
    // Runtime
    /// A floating-point value took part in an operation.
    Float,
    /// `/` (true division).
    TrueDivision,
    /// `**` or `pow`.
    Power,
    /// An integer operation whose operands both have absolute value above 3.
    LargeIntegers,
    /// A string or list operation whose sized arguments all have length above 3.
    LongSequences,
    /// Over the 2 s budget.
    TimedOut,
    /// Over the 100,000-step budget.
    StepLimit,
    /// The call raised an exception it did not catch.
    Raised,
    /// Two runs gave different outputs.
    Nondeterministic,
    /// The output's `repr` does not read back as an equal literal.
    OutputNotLiteral,
    /// The engine failed (not the candidate's fault, but it cannot be kept).
    EngineFailure,
}

impl Rule {
    /// Every rule, in pipeline order.
    pub const ALL: [Rule; 19] = [
        Rule::Unparseable,
        Rule::Syntax,
        Rule::NoFunctionF,
        Rule::UnusedArgument,
        Rule::CodeLength,
        Rule::BadInput,
        Rule::Import,
        Rule::ForbiddenName,
        Rule::Float,
        Rule::TrueDivision,
        Rule::Power,
        Rule::LargeIntegers,
        Rule::LongSequences,
        Rule::TimedOut,
        Rule::StepLimit,
        Rule::Raised,
        Rule::Nondeterministic,
        Rule::OutputNotLiteral,
        Rule::EngineFailure,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::Unparseable => "unparseable",
            Rule::Syntax => "syntax",
            Rule::NoFunctionF => "no_function_f",
            Rule::UnusedArgument => "unused_argument",
            Rule::CodeLength => "code_length",
            Rule::BadInput => "bad_input",
            Rule::Import => "import",
            Rule::ForbiddenName => "forbidden_name",
            Rule::Float => "float",
            Rule::TrueDivision => "true_division",
            Rule::Power => "power",
            Rule::LargeIntegers => "large_integers",
            Rule::LongSequences => "long_sequences",
            Rule::TimedOut => "timed_out",
            Rule::StepLimit => "step_limit",
            Rule::Raised => "raised",
            Rule::Nondeterministic => "nondeterministic",
            Rule::OutputNotLiteral => "output_not_literal",
            Rule::EngineFailure => "engine_failure",
        }
    }

    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    pub fn stage(self) -> Stage {
        match self {
            Rule::Unparseable => Stage::Parse,
            Rule::Syntax
            | Rule::NoFunctionF
            | Rule::UnusedArgument
            | Rule::CodeLength
            | Rule::BadInput
            | Rule::Import
            | Rule::ForbiddenName => Stage::Static,
            _ => Stage::Runtime,
        }
    }

    /// One sentence for a person: what the rule asks.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Unparseable => "the response must hold a function f and test inputs",
            Rule::Syntax => "the code must be valid Python",
            Rule::NoFunctionF => "the code must define a top-level function f",
            Rule::UnusedArgument => "every argument of f must be used",
            Rule::CodeLength => "the code and `assert f(input) == ??` must be 75 to 300 characters long",
            Rule::BadInput => "the input must be literal arguments that make `assert f(input) == output` parse",
            Rule::Import => "no imports",
            Rule::ForbiddenName => "no names that reach outside the function or are nondeterministic",
            Rule::Float => "no floating-point operations",
            Rule::TrueDivision => "no true division (/)",
            Rule::Power => "no ** or pow",
            Rule::LargeIntegers => "every integer operation needs an operand with absolute value at most 3",
            Rule::LongSequences => "every string or list operation needs an argument of length at most 3",
            Rule::TimedOut => "must finish within 2 s",
            Rule::StepLimit => "must finish within 100,000 steps",
            Rule::Raised => "must not raise an uncaught exception",
            Rule::Nondeterministic => "two runs must give the same output",
            Rule::OutputNotLiteral => "the output must read back as an equal Python literal",
            Rule::EngineFailure => "the Python engine must finish the run",
        }
    }
}

/// Why a candidate was rejected: the rule, what broke it in words, and where in the code (a byte
/// range of `Candidate::code`) when one place is to blame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    pub rule: Rule,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<(usize, usize)>,
}

impl Rejection {
    pub fn new(rule: Rule, detail: impl Into<String>) -> Self {
        Rejection { rule, detail: detail.into(), at: None }
    }

    pub fn at(mut self, start: usize, end: usize) -> Self {
        self.at = Some((start, end));
        self
    }

    /// The 1-based line of `code` where the blamed range starts.
    pub fn line(&self, code: &str) -> Option<usize> {
        let (start, _) = self.at?;
        let start = start.min(code.len());
        Some(code.as_bytes()[..start].iter().filter(|&&b| b == b'\n').count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_read_back() {
        for rule in Rule::ALL {
            assert_eq!(Rule::from_id(rule.id()), Some(rule));
            assert_eq!(serde_json::to_value(rule).unwrap(), serde_json::Value::String(rule.id().to_string()));
        }
    }

    #[test]
    fn a_rejection_names_its_line() {
        let code = "def f(x):\n    return x / 2\n";
        let r = Rejection::new(Rule::TrueDivision, "x / 2").at(21, 26);
        assert_eq!(&code[21..26], "x / 2");
        assert_eq!(r.line(code), Some(2));
        assert_eq!(Rejection::new(Rule::Raised, "").line(code), None);
    }
}
