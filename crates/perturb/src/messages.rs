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
    pub const ALL: [Category; 7] =
        [Category::Function, Category::Return, Category::Loop, Category::Condition, Category::Assignment, Category::Arithmetic, Category::MethodCall];

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
    "append", "extend", "insert", "remove", "pop", "sort", "reverse", "update", "add", "split", "join", "replace", "lower", "upper",
    "capitalize", "swapcase",
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

/// A do-nothing value of the expected output's type, to name in a misleading message.
pub fn useless_value(expected_output: &str) -> &'static str {
    match OutputKind::of_literal(expected_output) {
        OutputKind::Str => "an empty string",
        OutputKind::Int => "zero",
        OutputKind::Float => "0.0",
        OutputKind::Bool if expected_output.trim() == "True" => "False",
        OutputKind::Bool => "True",
        OutputKind::None => "an empty list",
        OutputKind::List => "an empty list",
        OutputKind::Tuple => "an empty tuple",
        OutputKind::Dict => "an empty dictionary",
        OutputKind::Set => "an empty set",
        OutputKind::Bytes => "empty bytes",
        OutputKind::Other => "None",
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

    #[test]
    fn useless_values_follow_the_output_type() {
        let cases = [("'abc'", "an empty string"), ("3", "zero"), ("True", "False"), ("False", "True"), ("[1]", "an empty list"), ("{'a': 1}", "an empty dictionary"), ("(1,)", "an empty tuple")];
        for (output, phrase) in cases {
            assert_eq!(useless_value(output), phrase, "{output}");
        }
    }
}
