//! The rules read off the code without running it, in the order they are checked. The first one
//! broken rejects, and names the offending place.

use execbench_pysyntax::Node;

use super::syntax::{bound_names, first_error, parse, text, walk};
use crate::candidate::Candidate;
use crate::rules::{Rejection, Rule};

/// Builtins that reach outside the function, expose the interpreter, or are nondeterministic
/// across runs (`hash` and `id` of objects, and `set` whose iteration order over strings changes
/// with CPython's hash seed, which RustPython cannot vary). Flagged only when the program does
/// not bind the name itself.
pub const FORBIDDEN_NAMES: [&str; 20] = [
    "input",
    "open",
    "__builtins__",
    "__import__",
    "random",
    "hash",
    "id",
    "globals",
    "locals",
    "vars",
    "exec",
    "eval",
    "compile",
    "breakpoint",
    "exit",
    "quit",
    "help",
    "memoryview",
    "set",
    "frozenset",
];

/// Attributes that lead from any object to the interpreter's internals.
pub const FORBIDDEN_ATTRIBUTES: [&str; 7] =
    ["__globals__", "__builtins__", "__subclasses__", "__code__", "__closure__", "__import__", "__loader__"];

/// The static rules, in the order of `Rule::ALL`.
pub fn check(candidate: &Candidate) -> Option<Rejection> {
    let code = candidate.code.as_str();
    let Some(tree) = parse(code) else {
        return Some(Rejection::new(Rule::Syntax, "the parser gave up on this code"));
    };
    let root = tree.root_node();
    if let Some(error) = first_error(root) {
        let what = if error.is_missing() {
            format!("missing `{}`", error.kind())
        } else {
            "not valid Python here".to_string()
        };
        let (start, end) = (error.start_byte(), error.end_byte().max(error.start_byte() + 1).min(code.len()));
        return Some(
            Rejection::new(Rule::Syntax, format!("line {}: {what}", error.start_position().row + 1))
                .at(start.min(end), end),
        );
    }
    let Some(function) = function_f(root, code) else {
        return Some(Rejection::new(Rule::NoFunctionF, "no top-level `def f(...)`"));
    };
    if let Some(rejection) = unused_argument(function, code) {
        return Some(rejection);
    }
    if let Some(rejection) = code_length(candidate) {
        return Some(rejection);
    }
    if let Some(rejection) = bad_input(&candidate.input) {
        return Some(rejection);
    }
    // Imports and names are checked in the code and in the call: the input is run too.
    if let Some(rejection) = reaches_outside(root, code) {
        return Some(rejection);
    }
    let call = format!("f({})", candidate.input);
    let tree = parse(&call)?;
    // A place in the call is not a place in the code: the detail says where instead.
    reaches_outside(tree.root_node(), &call).map(|r| Rejection::new(r.rule, format!("{} (in the input)", r.detail)))
}

/// The code-length rule: the function and its test line as the recipe generated it, before the
/// output was known (`assert f(input) == ??`). That measure keeps 796 of CRUXEval's 800 released
/// programs (78 to 303 characters); the code alone (30 to 278) or with the true output would not.
pub fn code_length(candidate: &Candidate) -> Option<Rejection> {
    let length = test_snippet(candidate).chars().count();
    if (75..=300).contains(&length) {
        return None;
    }
    let side = if length < 75 { "shorter than 75" } else { "longer than 300" };
    Some(Rejection::new(
        Rule::CodeLength,
        format!("the function and `assert f(<input>) == ??` are {length} characters, {side}"),
    ))
}

/// The snippet the recipe judged: the code, then `assert f(input) == ??` on its own line.
pub fn test_snippet(candidate: &Candidate) -> String {
    format!("{}\nassert f({}) == ??", candidate.code.trim_end(), candidate.input)
}

fn function_f<'t>(root: Node<'t>, code: &str) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor).find_map(|statement| {
        let definition = match statement.kind() {
            "function_definition" => statement,
            "decorated_definition" => statement.child_by_field_name("definition")?,
            _ => return None,
        };
        let name = definition.child_by_field_name("name")?;
        (definition.kind() == "function_definition" && text(name, code) == "f").then_some(definition)
    })
}

fn unused_argument(function: Node, code: &str) -> Option<Rejection> {
    let parameters = function.child_by_field_name("parameters")?;
    let body = function.child_by_field_name("body")?;
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let name_node = match parameter.kind() {
            "identifier" => Some(parameter),
            "default_parameter" | "typed_default_parameter" => parameter.child_by_field_name("name"),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                let mut c = parameter.walk();
                parameter.named_children(&mut c).find(|n| n.kind() == "identifier")
            }
            _ => None,
        };
        let Some(name_node) = name_node else { continue };
        let name = text(name_node, code);
        let mut used = false;
        walk(body, &mut |n| used |= n.kind() == "identifier" && text(n, code) == name);
        if !used {
            return Some(
                Rejection::new(Rule::UnusedArgument, format!("argument `{name}` is never used"))
                    .at(name_node.start_byte(), name_node.end_byte()),
            );
        }
    }
    None
}

/// The input must be exactly the arguments of one call: `f(<input>)` parses as a call to `f`
/// whose argument list is the input, whole.
fn bad_input(input: &str) -> Option<Rejection> {
    let call = format!("f({input})");
    let tree = parse(&call)?;
    let root = tree.root_node();
    let whole_call = (|| {
        if first_error(root).is_some() || root.named_child_count() != 1 {
            return None;
        }
        let statement = root.named_child(0)?;
        let expression = (statement.kind() == "expression_statement" && statement.named_child_count() == 1)
            .then(|| statement.named_child(0))??;
        let arguments = (expression.kind() == "call").then(|| expression.child_by_field_name("arguments"))??;
        (expression.byte_range() == (0..call.len()) && arguments.byte_range() == (1..call.len())).then_some(())
    })();
    match whole_call {
        Some(()) => None,
        None => {
            Some(Rejection::new(Rule::BadInput, format!("`assert f({input}) == ...` does not parse as one call of f")))
        }
    }
}

fn reaches_outside(root: Node, source: &str) -> Option<Rejection> {
    let bound = bound_names(root, source);
    let mut found = None;
    walk(root, &mut |node| {
        if found.is_some() {
            return;
        }
        let at = |r: Rejection| r.at(node.start_byte(), node.end_byte());
        match node.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                found = Some(at(Rejection::new(Rule::Import, format!("`{}`", first_line(text(node, source))))));
            }
            "identifier" => {
                let name = text(node, source);
                let is_attribute_name = node
                    .parent()
                    .is_some_and(|p| p.kind() == "attribute" && p.child_by_field_name("attribute") == Some(node));
                let is_keyword_name = node
                    .parent()
                    .is_some_and(|p| p.kind() == "keyword_argument" && p.child_by_field_name("name") == Some(node));
                if is_attribute_name {
                    if FORBIDDEN_ATTRIBUTES.contains(&name) {
                        found = Some(at(Rejection::new(
                            Rule::ForbiddenName,
                            format!("attribute `{name}` reaches the interpreter"),
                        )));
                    }
                } else if !is_keyword_name && FORBIDDEN_NAMES.contains(&name) && !bound.contains(name) {
                    found = Some(at(Rejection::new(
                        Rule::ForbiddenName,
                        format!("`{name}` reaches outside the function or is nondeterministic"),
                    )));
                }
            }
            _ => {}
        }
    });
    found
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length counts the code, a newline and `assert f(<input>) == ??`: 20 characters beside
    /// the code for a three-character input. (snippet length, verdict) at both edges.
    #[test]
    fn code_length_measures_the_assertion_before_the_output_is_known() {
        let cases = [(74, Some("shorter than 75")), (75, None), (300, None), (301, Some("longer than 300"))];
        for (snippet_length, expected) in cases {
            let head = "def f(s):\n    return s + '";
            let code = format!("{head}{}'", "a".repeat(snippet_length - 20 - head.len() - 1));
            let candidate = Candidate { id: "c".into(), method: None, code, input: "'x'".into() };
            assert_eq!(test_snippet(&candidate).chars().count(), snippet_length);
            let got = code_length(&candidate).map(|r| r.detail);
            match expected {
                None => assert_eq!(got, None, "{snippet_length}"),
                Some(side) => {
                    let detail = got.unwrap_or_else(|| panic!("{snippet_length} passed"));
                    assert!(detail.ends_with(&format!("are {snippet_length} characters, {side}")), "{detail}");
                }
            }
        }
    }
}
