//! The MCC/MPS message pools (our own texts, in `messages/misleading.txt`) and how a message is
//! filled in.

use std::sync::OnceLock;

use execbench_core::sample::OutputKind;

/// Where a misleading message goes; each has its own pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    Function,
    Return,
    Loop,
    Condition,
    Assignment,
    Arithmetic,
    MethodCall,
}

impl Category {
    pub const ALL: [Category; 7] = [
        Category::Function,
        Category::Return,
        Category::Loop,
        Category::Condition,
        Category::Assignment,
        Category::Arithmetic,
        Category::MethodCall,
    ];

    pub fn header(self) -> &'static str {
        match self {
            Category::Function => "function",
            Category::Return => "return",
            Category::Loop => "loop",
            Category::Condition => "condition",
            Category::Assignment => "assignment",
            Category::Arithmetic => "arithmetic",
            Category::MethodCall => "method_call",
        }
    }

    /// The placeholders a message of this category may use.
    pub fn placeholders(self) -> &'static [&'static str] {
        match self {
            Category::Function | Category::Return => &["{func}", "{useless}"],
            Category::Loop | Category::Condition => &["{useless}"],
            Category::Assignment | Category::Arithmetic => &["{var}", "{useless}"],
            Category::MethodCall => &["{receiver}", "{method}", "{useless}"],
        }
    }
}

/// The methods whose calls are MCC/MPS sites.
pub const METHODS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "sort",
    "reverse",
    "update",
    "add",
    "split",
    "join",
    "replace",
    "lower",
    "upper",
    "capitalize",
    "swapcase",
];

const SOURCE: &str = include_str!("../messages/misleading.txt");

/// The pools, parsed once. Each `Vec` is indexed like `Category::ALL`.
pub fn pools() -> &'static [Vec<String>; 7] {
    static POOLS: OnceLock<[Vec<String>; 7]> = OnceLock::new();
    POOLS.get_or_init(|| parse(SOURCE))
}

pub fn pool(category: Category) -> &'static [String] {
    let index = Category::ALL.iter().position(|c| *c == category).unwrap_or(0);
    &pools()[index]
}

fn parse(source: &str) -> [Vec<String>; 7] {
    let mut pools: [Vec<String>; 7] = Default::default();
    let mut current: Option<usize> = None;
    for line in source.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = Category::ALL.iter().position(|c| c.header() == header);
            continue;
        }
        if let Some(index) = current {
            pools[index].push(line.to_string());
        }
    }
    pools
}

/// A do-nothing value of the expected output's type, to name in a misleading message ("always
/// returns {useless}"). Usually the type's empty or zero value; when the output is that value the
/// phrase names another one, so a message never states the right answer by accident.
pub fn useless_value(expected_output: &str) -> &'static str {
    use execbench_literal::PyValue;
    // By value (`0x0`, `""` and `( )` are empty too); an output that is not a literal is `Other`.
    let value = execbench_literal::parse_literal(expected_output).ok();
    let empty = match &value {
        Some(PyValue::Int(digits)) => digits == "0",
        Some(PyValue::Float(f)) => *f == 0.0,
        Some(PyValue::Str(s)) => s.is_empty(),
        Some(PyValue::Bytes(b)) => b.is_empty(),
        Some(PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) | PyValue::FrozenSet(items)) => {
            items.is_empty()
        }
        Some(PyValue::Dict(items)) => items.is_empty(),
        _ => false,
    };
    match (value.as_ref().map_or(OutputKind::Other, OutputKind::of_value), empty) {
        (OutputKind::Str, false) => "an empty string",
        (OutputKind::Str, true) => "a single space",
        (OutputKind::Int, false) => "zero",
        (OutputKind::Int, true) => "one",
        (OutputKind::Float, false) => "0.0",
        (OutputKind::Float, true) => "1.0",
        (OutputKind::Bool, _) if expected_output.trim() == "True" => "False",
        (OutputKind::Bool, _) => "True",
        (OutputKind::None, _) => "an empty list",
        (OutputKind::List, false) => "an empty list",
        (OutputKind::List, true) => "a list with one element",
        (OutputKind::Tuple, false) => "an empty tuple",
        (OutputKind::Tuple, true) => "a tuple with one element",
        (OutputKind::Dict, false) => "an empty dictionary",
        (OutputKind::Dict, true) => "a dictionary with one entry",
        (OutputKind::Set, false) => "an empty set",
        (OutputKind::Set, true) => "a set with one element",
        (OutputKind::Bytes, false) => "empty bytes",
        (OutputKind::Bytes, true) => "a single byte",
        (OutputKind::Other, _) => "None",
    }
}

/// The codecrash profile's phrase: always the type's do-nothing value, as CodeCrash names it,
/// and whether that phrase describes `expected_output` itself (the message is then true).
pub fn codecrash_useless_value(expected_output: &str) -> (&'static str, bool) {
    use execbench_literal::PyValue;
    let value = execbench_literal::parse_literal(expected_output).ok();
    let is_empty = match &value {
        Some(PyValue::Int(digits)) => digits == "0",
        Some(PyValue::Float(f)) => *f == 0.0,
        Some(PyValue::Str(s)) => s.is_empty(),
        Some(PyValue::Bytes(b)) => b.is_empty(),
        Some(PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items)) => items.is_empty(),
        Some(PyValue::Dict(items)) => items.is_empty(),
        _ => false,
    };
    let trimmed = expected_output.trim();
    match value.as_ref().map_or(OutputKind::Other, OutputKind::of_value) {
        OutputKind::Str => ("an empty string", is_empty),
        OutputKind::Int => ("zero", is_empty),
        OutputKind::Float => ("0.0", is_empty),
        OutputKind::Bool => ("False", trimmed == "False"),
        OutputKind::None => ("None", true),
        OutputKind::List => ("an empty list", is_empty),
        OutputKind::Tuple => ("an empty tuple", is_empty),
        OutputKind::Dict => ("an empty dictionary", is_empty),
        OutputKind::Set => ("an empty set", is_empty),
        OutputKind::Bytes => ("empty bytes", is_empty),
        OutputKind::Other => ("None", trimmed == "None"),
    }
}

/// The values for a message's placeholders.
#[derive(Clone, Debug, Default)]
pub struct Fill {
    pub func: String,
    pub var: String,
    pub receiver: String,
    pub method: String,
    pub useless: String,
}

pub fn render(template: &str, fill: &Fill) -> String {
    template
        .replace("{func}", &fill.func)
        .replace("{var}", &fill.var)
        .replace("{receiver}", &fill.receiver)
        .replace("{method}", &fill.method)
        .replace("{useless}", &fill.useless)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_large_single_line_and_use_only_their_placeholders() {
        let all_placeholders = ["{func}", "{var}", "{receiver}", "{method}", "{useless}"];
        for category in Category::ALL {
            let pool = pool(category);
            assert!(pool.len() >= 12, "{category:?} has {} messages", pool.len());
            let mut unique = pool.to_vec();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), pool.len(), "{category:?} repeats a message");
            for message in pool {
                for placeholder in all_placeholders {
                    if message.contains(placeholder) {
                        assert!(category.placeholders().contains(&placeholder), "{category:?}: {message}");
                    }
                }
                let stripped = all_placeholders.iter().fold(message.clone(), |m, p| m.replace(p, ""));
                assert!(!stripped.contains('{') && !stripped.contains('}'), "unknown placeholder: {message}");
            }
        }
    }

    /// (output, phrase): the phrase names a value of the output's type that the output is not.
    #[test]
    fn useless_values_never_describe_the_output() {
        let cases: &[(&str, &str)] = &[
            ("'abc'", "an empty string"),
            ("''", "a single space"),
            ("\"\"", "a single space"),
            ("' '", "an empty string"),
            ("3", "zero"),
            ("-2", "zero"),
            ("0", "one"),
            ("-0", "one"),
            ("2.5", "0.0"),
            ("0.0", "1.0"),
            ("-0.0", "1.0"),
            ("True", "False"),
            ("False", "True"),
            ("None", "an empty list"),
            ("[1]", "an empty list"),
            ("[]", "a list with one element"),
            ("[[]]", "an empty list"),
            ("(1,)", "an empty tuple"),
            ("()", "a tuple with one element"),
            ("{'a': 1}", "an empty dictionary"),
            ("{}", "a dictionary with one entry"),
            ("{1, 2}", "an empty set"),
            ("set()", "a set with one element"),
            ("b'x'", "empty bytes"),
            ("b''", "a single byte"),
            ("frozenset()", "None"),
        ];
        for (output, phrase) in cases {
            assert_eq!(useless_value(output), *phrase, "{output}");
        }
    }

    /// (output, phrase, whether the phrase is the output): the codecrash phrase depends on the
    /// type alone, so it is sometimes the truth.
    #[test]
    fn codecrash_values_depend_on_the_type_alone() {
        let cases: &[(&str, &str, bool)] = &[
            ("'abc'", "an empty string", false),
            ("''", "an empty string", true),
            ("3", "zero", false),
            ("0", "zero", true),
            ("0.0", "0.0", true),
            ("2.5", "0.0", false),
            ("True", "False", false),
            ("False", "False", true),
            ("None", "None", true),
            ("[1]", "an empty list", false),
            ("[]", "an empty list", true),
            ("()", "an empty tuple", true),
            ("{}", "an empty dictionary", true),
            ("{'a': 1}", "an empty dictionary", false),
            ("set()", "an empty set", true),
            ("b''", "empty bytes", true),
        ];
        for (output, phrase, true_of_output) in cases {
            assert_eq!(codecrash_useless_value(output), (*phrase, *true_of_output), "{output}");
        }
    }
}
