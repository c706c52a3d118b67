use execbench_literal::{PyValue, parse_literal};
use serde::{Deserialize, Serialize};

/// One benchmark problem, whatever dataset it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub id: String,
    /// The program: one or more top-level definitions.
    pub code: String,
    /// The function under test.
    pub function_name: String,
    /// The argument text that goes inside the call's parentheses (`[1, 2], 3` or `s='0011'`).
    pub input: String,
    /// The full call expression, `f([1, 2], 3)` or `minimumCost(s='0011')`.
    pub call: String,
    /// The expected return value as a Python literal (its `repr`).
    pub output: String,
    /// Every other field of the source row, kept as it was.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub meta: serde_json::Map<String, serde_json::Value>,
}

impl Sample {
    /// A sample that calls `function_name` with `input` as its arguments, with no other fields:
    /// what a CRUXEval row reads as, and the one way tests write a sample by hand.
    pub fn new(id: &str, code: &str, function_name: &str, input: &str, output: &str) -> Sample {
        Sample {
            id: id.into(),
            code: code.into(),
            function_name: function_name.into(),
            input: input.into(),
            call: format!("{function_name}({input})"),
            output: output.into(),
            meta: Default::default(),
        }
    }

    /// The first non-blank line of the code, for lists.
    pub fn headline(&self) -> &str {
        self.code.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
    }

    /// The type of the expected output (`Other` when it is not a Python literal).
    pub fn output_kind(&self) -> OutputKind {
        OutputKind::of_literal(&self.output)
    }
}

/// The output types the dataset browser filters by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OutputKind {
    Str,
    Int,
    Float,
    Bool,
    None,
    List,
    Tuple,
    Dict,
    Set,
    Bytes,
    Other,
}

impl OutputKind {
    pub const ALL: [OutputKind; 11] = [
        OutputKind::Str,
        OutputKind::Int,
        OutputKind::Float,
        OutputKind::Bool,
        OutputKind::None,
        OutputKind::List,
        OutputKind::Tuple,
        OutputKind::Dict,
        OutputKind::Set,
        OutputKind::Bytes,
        OutputKind::Other,
    ];

    pub fn label(self) -> &'static str {
        match self {
            OutputKind::Str => "str",
            OutputKind::Int => "int",
            OutputKind::Float => "float",
            OutputKind::Bool => "bool",
            OutputKind::None => "None",
            OutputKind::List => "list",
            OutputKind::Tuple => "tuple",
            OutputKind::Dict => "dict",
            OutputKind::Set => "set",
            OutputKind::Bytes => "bytes",
            OutputKind::Other => "other",
        }
    }

    pub fn from_label(label: &str) -> Option<OutputKind> {
        OutputKind::ALL.into_iter().find(|k| k.label() == label)
    }

    /// The type of a Python literal, read with the real parser (`execbench_literal`). Text that
    /// is not a literal (`<object at 0x1>`, a call, an expression) is `Other`.
    pub fn of_literal(literal: &str) -> OutputKind {
        parse_literal(literal).map_or(OutputKind::Other, |value| OutputKind::of_value(&value))
    }

    /// The kind of a parsed value; types the browser has no filter for (frozenset, complex,
    /// `...`) are `Other`.
    pub fn of_value(value: &PyValue) -> OutputKind {
        match value {
            PyValue::Str(_) => OutputKind::Str,
            PyValue::Int(_) => OutputKind::Int,
            PyValue::Float(_) => OutputKind::Float,
            PyValue::Bool(_) => OutputKind::Bool,
            PyValue::None => OutputKind::None,
            PyValue::List(_) => OutputKind::List,
            PyValue::Tuple(_) => OutputKind::Tuple,
            PyValue::Dict(_) => OutputKind::Dict,
            PyValue::Set(_) => OutputKind::Set,
            PyValue::Bytes(_) => OutputKind::Bytes,
            PyValue::FrozenSet(_) | PyValue::Complex { .. } | PyValue::Ellipsis => OutputKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_kinds_of_literals() {
        let cases = [
            ("'abc'", OutputKind::Str),
            ("\"a:b\"", OutputKind::Str),
            ("42", OutputKind::Int),
            ("-7", OutputKind::Int),
            ("123456789012345678901234567890123456789012", OutputKind::Int),
            ("3.5", OutputKind::Float),
            ("-1e-05", OutputKind::Float),
            ("True", OutputKind::Bool),
            ("None", OutputKind::None),
            ("[1, 2]", OutputKind::List),
            ("(1,)", OutputKind::Tuple),
            ("{}", OutputKind::Dict),
            ("{'a': 1}", OutputKind::Dict),
            ("{'a:b', 'c'}", OutputKind::Set),
            ("{(1, 2): {3}}", OutputKind::Dict),
            ("set()", OutputKind::Set),
            ("b'xy'", OutputKind::Bytes),
            ("inf", OutputKind::Float),
            ("<object at 0x1>", OutputKind::Other),
            // Read by the parser, not by the look of the first character.
            ("(1)", OutputKind::Int),
            ("(1+2j)", OutputKind::Other),
            ("frozenset({1})", OutputKind::Other),
            ("0xff", OutputKind::Int),
            ("rb'x'", OutputKind::Bytes),
            ("'a' 'b'", OutputKind::Str),
            ("  -inf ", OutputKind::Float),
            ("[<A object at 0x1>]", OutputKind::Other),
            ("{Point(1, 2)}", OutputKind::Other),
            ("(1, 2", OutputKind::Other),
        ];
        for (literal, kind) in cases {
            assert_eq!(OutputKind::of_literal(literal), kind, "{literal}");
        }
    }

    #[test]
    fn labels_round_trip() {
        for kind in OutputKind::ALL {
            assert_eq!(OutputKind::from_label(kind.label()), Some(kind));
        }
    }
}
