//! GBC: garbage code. Three additions that change nothing the call can observe:
//! 1. module-level assignments of small ints to about half of the tested function's parameter
//!    names (parameters shadow them, and nothing else reads those names);
//! 2. three dead statements behind always-false guards (`if`, `while`, `for _ in range(0)`, and a
//!    conditional expression whose false branch is a plain name), assigning `TempVar0..2`;
//! 3. two nested functions, never called, that would loop forever or recurse if they were.
//!
//! 2 and 3 go at statement positions inside function bodies: before any statement up to the first
//! `return`/`raise`/`break`/`continue` of a block, or after the block's last statement when that is
//! not one of those; never before a docstring; only in blocks whose statements each start a line.

use std::collections::BTreeSet;

use execbench_pysyntax::{Node, Tree};

use crate::edit::TextEdit;
use crate::kinds::rtf::Deletion;
use crate::rng::Rng;
use crate::scope::{Analysis, ScopeKind};
use crate::syntax::NodeKind;
use crate::syntax::{BUILTINS, deeper, indent_of_line_start, line_start, named_children, newline_of, preorder, text};
use crate::{PerturbError, Program};

pub const DEAD_VARIABLES: [&str; 3] = ["TempVar0", "TempVar1", "TempVar2"];
pub const DEAD_FUNCTIONS: [&str; 2] = ["TempFunc0", "TempFunc1"];

/// A place where a statement can go.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    pub(crate) at: usize,
    pub(crate) indent: String,
    /// No newline ends the file there: the insertion must start one.
    pub(crate) at_end_of_file: bool,
    /// The function scope the position is in.
    pub(crate) scope: usize,
}

/// GBC under execbench's profile (`gbc_codecrash.rs` has the `codecrash` profile's).
/// `tree` and `call_tree` are the syntax trees of the program's code and call.
pub fn garbage_code(
    program: &Program,
    tree: &Tree,
    call_tree: &Tree,
    rng: &mut Rng,
) -> Result<Vec<TextEdit>, PerturbError> {
    let code = &program.code;
    let root = tree.root_node();
    let analysis = Analysis::of(root, code);
    // One walk of the tree serves every question below.
    let all_nodes = preorder(root);
    let used: BTreeSet<&str> =
        all_nodes.iter().filter(|n| n.kind_name() == "identifier").map(|n| text(*n, code)).collect();
    if let Some(clash) = DEAD_VARIABLES.iter().chain(DEAD_FUNCTIONS.iter()).find(|n| used.contains(*n)) {
        return Err(PerturbError::Unsupported(format!("GBC: the code already uses the name `{clash}`")));
    }
    let newline = newline_of(code);
    let mut edits = module_assignments(program, root, call_tree, &analysis, rng, newline, (0, 10))?;

    let positions = statement_positions(&all_nodes, code, &analysis);
    let deletions = crate::kinds::rtf::deletions(&all_nodes, code);
    if positions.is_empty() {
        return Ok(edits);
    }
    let mut shapes = [Shape::If, Shape::While, Shape::For, Shape::Conditional];
    rng.shuffle(&mut shapes);
    for (variable, shape) in DEAD_VARIABLES.iter().zip(shapes) {
        let Some(position) = rng.pick(&positions).cloned() else { break };
        let statement = dead_statement(shape, variable, &position, &analysis, &deletions, rng);
        edits.push(TextEdit::insert(position.at, place(&statement, &position, newline)));
    }
    for name in DEAD_FUNCTIONS {
        let Some(position) = rng.pick(&positions).cloned() else { break };
        let (_, template) = *rng.pick(EXECBENCH_NEVER_ENDING).unwrap_or(&EXECBENCH_NEVER_ENDING[0]);
        let definition = template.replace("{name}", name);
        edits.push(TextEdit::insert(position.at, place(&definition, &position, newline)));
    }
    // Insertions at one offset can come from nested blocks (after the last statement of an inner
    // block is also before the next statement of the outer one): the deeper ones must come first.
    // tree-sitter accepts the wrong order, Python does not (IndentationError).
    edits.sort_by_key(|e| (e.start, std::cmp::Reverse(indent_width(&e.text))));
    Ok(edits)
}

/// Indents a statement written with 4-space levels and `\n` for `position`, in the file's line
/// breaks. At the end of a file without a final newline, the statement starts with one instead.
pub(crate) fn place(statement: &str, position: &Position, newline: &str) -> String {
    let lines: Vec<String> = statement
        .lines()
        .map(|line| {
            let depth = (line.len() - line.trim_start_matches(' ').len()) / 4;
            let indent = (0..depth).fold(position.indent.clone(), |indent, _| deeper(&indent));
            format!("{indent}{}", line.trim_start_matches(' '))
        })
        .collect();
    if position.at_end_of_file {
        format!("{newline}{}", lines.join(newline))
    } else {
        format!("{}{newline}", lines.join(newline))
    }
}

fn indent_width(inserted: &str) -> usize {
    let line = inserted.trim_start_matches(['\r', '\n']);
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Part 1: `x = 3` at module level for about half of the parameters that can take it.
/// `values`: the assigned ints are `values.0 + rng.below(values.1)`.
pub(crate) fn module_assignments(
    program: &Program,
    root: Node,
    call_tree: &Tree,
    analysis: &Analysis,
    rng: &mut Rng,
    newline: &str,
    values: (usize, usize),
) -> Result<Vec<TextEdit>, PerturbError> {
    let Some(function) = analysis.scopes.iter().find(|s| {
        s.kind == ScopeKind::Function
            && s.parent == Some(0)
            && s.def_name.as_deref() == Some(program.function_name.as_str())
    }) else {
        return Err(PerturbError::InvalidInput(format!(
            "the code defines no top-level function `{}`",
            program.function_name
        )));
    };
    let free = analysis.free_names();
    let call_names: BTreeSet<&str> = preorder(call_tree.root_node())
        .into_iter()
        .filter(|n| n.kind_name() == "identifier")
        .map(|n| text(n, &program.call))
        .collect();
    let module = &analysis.scopes[0];
    let mut candidates: Vec<String> = function
        .params
        .iter()
        .filter(|p| {
            !free.contains(*p)
                && !module.bound.contains_key(*p)
                && !BUILTINS.contains(&p.as_str())
                && !call_names.contains(p.as_str())
        })
        .filter(|p| !(p.starts_with("__") && p.ends_with("__")))
        .cloned()
        .collect();
    candidates.sort();
    candidates.dedup();
    rng.shuffle(&mut candidates);
    candidates.truncate(function.params.len().div_ceil(2));
    let positions = top_level_positions(root, program.code.as_str());
    let mut edits = Vec::new();
    for name in candidates {
        let value = values.0 + rng.below(values.1);
        let Some(&at) = rng.pick(&positions) else { break };
        edits.push(TextEdit::insert(at, format!("{name} = {value}{newline}")));
    }
    Ok(edits)
}

/// Line starts of top-level statements, after a module docstring and `from __future__` imports.
fn top_level_positions(root: Node, code: &str) -> Vec<usize> {
    let statements: Vec<Node> = named_children(root).into_iter().filter(|n| n.kind_name() != "comment").collect();
    let mut skip = 0;
    for (index, statement) in statements.iter().enumerate() {
        if statement.kind_name() == "future_import_statement" || (index == 0 && is_docstring(*statement)) {
            skip = index + 1;
        }
    }
    statements[skip..]
        .iter()
        .filter(|s| indent_of_line_start(code, **s).is_some_and(|i| i.is_empty()))
        .map(|s| s.start_byte())
        .collect()
}

pub(crate) fn is_docstring(statement: Node) -> bool {
    statement.kind_name() == "expression_statement"
        && named_children(statement).first().is_some_and(|e| e.kind_name() == "string")
}

fn ends_flow(statement: Node) -> bool {
    matches!(statement.kind_name(), "return_statement" | "raise_statement" | "break_statement" | "continue_statement")
}

/// Every valid statement position inside function bodies, in source order.
/// `nodes`: the whole tree in preorder.
pub(crate) fn statement_positions(nodes: &[Node], code: &str, analysis: &Analysis) -> Vec<Position> {
    let mut positions = Vec::new();
    for &block in nodes.iter().filter(|n| n.kind_name() == "block") {
        // The scope of the block's header: a block that begins with a nested `def` begins where
        // that def's own scope does, so its first byte would name the wrong scope.
        let scope = analysis.scope_at(block.parent().map_or(block.start_byte(), |p| p.start_byte()));
        if analysis.scopes[scope].kind != ScopeKind::Function {
            continue;
        }
        let statements: Vec<Node> = named_children(block).into_iter().filter(|n| n.kind_name() != "comment").collect();
        let Some(indent) = statements.first().and_then(|s| indent_of_line_start(code, *s)) else { continue };
        if statements.iter().any(|s| indent_of_line_start(code, *s).as_deref() != Some(indent.as_str())) {
            continue;
        }
        let is_function_body = block.parent().is_some_and(|p| p.kind_name() == "function_definition");
        for (index, statement) in statements.iter().enumerate() {
            if !(index == 0 && is_function_body && is_docstring(*statement)) {
                positions.push(Position {
                    at: line_start(code, statement.start_byte()),
                    indent: indent.clone(),
                    at_end_of_file: false,
                    scope,
                });
            }
            if ends_flow(*statement) {
                break;
            }
        }
        if let Some(last) = statements.last().filter(|s| !ends_flow(**s) && !statements.iter().any(|s| ends_flow(*s))) {
            let end = last.end_byte();
            let position = match code[end..].find('\n') {
                Some(offset) => Position { at: end + offset + 1, indent: indent.clone(), at_end_of_file: false, scope },
                None => Position { at: code.len(), indent: indent.clone(), at_end_of_file: true, scope },
            };
            positions.push(position);
        }
    }
    positions.sort_by_key(|p| p.at);
    positions
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    If,
    While,
    For,
    Conditional,
    /// codecrash only: a false guard around a `print` of a parameter (an `If` where no
    /// parameter can be read or the program binds `print`).
    Print,
}

/// Always-false guards; `{p}` is a parameter of the enclosing function.
const FALSE_CONSTANTS: &[&str] = &["False", "None", "0", "''"];
const FALSE_WITH_PARAMETER: &[&str] = &["{p} != {p}", "not {p} == {p}"];

pub(crate) fn dead_statement(
    shape: Shape,
    variable: &str,
    position: &Position,
    analysis: &Analysis,
    deletions: &[Deletion],
    rng: &mut Rng,
) -> String {
    let witnesses: Vec<String> = crate::kinds::rtf::bool_witnesses(analysis, position.scope, deletions)
        .into_iter()
        .filter(|w| w != "True" && w != "False")
        .collect();
    let parameter = rng.pick(&witnesses).cloned();
    let mut guards: Vec<&str> = FALSE_CONSTANTS.to_vec();
    if parameter.is_some() {
        guards.extend_from_slice(FALSE_WITH_PARAMETER);
    }
    let p = parameter.clone().unwrap_or_else(|| "None".to_string());
    let guard = rng.pick(&guards).copied().unwrap_or("False").replace("{p}", &p);
    let small = rng.below(10);
    let printed = parameter.clone().filter(|_| !analysis.bound_anywhere("print"));
    let value = parameter.unwrap_or_else(|| small.to_string());
    let scope = &analysis.scopes[position.scope];
    let underscore_is_safe = !analysis.mentions_within(position.scope, "_") || scope.bound.contains_key("_");
    let loop_variable = if underscore_is_safe { "_".to_string() } else { variable.to_string() };
    let iterable = if analysis.bound_anywhere("range") { "[]".to_string() } else { "range(0)".to_string() };
    match shape {
        Shape::If => format!("if {guard}:\n    {variable} = {value}"),
        Shape::While => format!("while {guard}:\n    {variable} = {value}"),
        Shape::For => format!("for {loop_variable} in {iterable}:\n    {variable} = {value}"),
        Shape::Conditional => format!("{variable} = {small} if {guard} else {value}"),
        Shape::Print => match printed {
            Some(p) => format!("if {guard}:\n    print({p})"),
            None => format!("if {guard}:\n    {variable} = {value}"),
        },
    }
}

/// Functions that never return if called, each with a label; written with `\n` and 4-space
/// levels, `{name}` being the function's name. Each is harmless to define: only a call would loop.
/// The first four are execbench's profile's, the other seven the shapes CodeCrash draws from.
pub const NEVER_ENDING: [(&str, &str); 11] = [
    ("recursion", "def {name}(i):\n    return {name}(i + 1)"),
    ("swap loop", "def {name}(i, j):\n    while i != j or i == j:\n        i, j = j, i\n    return i"),
    ("recursion behind n == n", "def {name}(n):\n    if n == n:\n        return {name}(n)\n    return n"),
    ("while True sum", "def {name}(x):\n    total = 0\n    while True:\n        total += x\n    return total"),
    (
        "mutual recursion",
        "def {name}(count):\n    return {name}_b(count + 1)\ndef {name}_b(count):\n    return {name}(count - 1)",
    ),
    (
        "nested recursive def",
        "def {name}(limit):\n    def {name}_step(k):\n        return {name}_step(k + limit)\n    return {name}_step(0)",
    ),
    ("while True", "def {name}(flag):\n    while True:\n        flag = not flag\n    return flag"),
    ("iter(int, 1)", "def {name}(acc):\n    for _ in iter(int, 1):\n        acc += 1\n    return acc"),
    (
        "recursion in try/except",
        "def {name}(depth):\n    try:\n        return {name}(depth + 1)\n    except RecursionError:\n        return {name}(depth + 2)",
    ),
    (
        "growing list",
        "def {name}(first):\n    seen = [first]\n    for item in seen:\n        seen.append(item)\n    return seen",
    ),
    (
        "iter(lambda: True, False)",
        "def {name}(total):\n    for _ in iter(lambda: True, False):\n        total = total\n    return total",
    ),
];

/// The dead functions execbench's profile draws from.
const EXECBENCH_NEVER_ENDING: &[(&str, &str)] = NEVER_ENDING.split_at(4).0;
/// The dead functions the `codecrash` profile draws from (CodeCrash's seven).
pub(crate) const CODECRASH_NEVER_ENDING: &[(&str, &str)] = NEVER_ENDING.split_at(4).1;

#[cfg(test)]
mod tests {
    use crate::{Kind, Options, PerturbError, perturb};

    fn gbc(code: &str, seed: u64) -> Result<String, PerturbError> {
        perturb(code, "f", "f(1, 2, 3)", "1", Kind::Gbc, &Options::with_seed(seed), "t").map(|p| p.code)
    }

    fn module_assigned(out: &str) -> Vec<String> {
        out.lines()
            .filter(|l| !l.starts_with(' ') && l.contains(" = "))
            .map(|l| l.split(" = ").next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn three_dead_statements_two_dead_functions_half_the_parameters() {
        let code = "def f(a, b, c):\n    total = a + b\n    for x in c:\n        total += x\n    return total";
        for seed in 0..50 {
            let out = gbc(code, seed).unwrap();
            for name in ["TempVar0 = ", "TempVar1 = ", "TempVar2 = ", "def TempFunc0(", "def TempFunc1("] {
                assert_eq!(out.matches(name).count(), 1, "{name} seed {seed}:\n{out}");
            }
            assert_eq!(module_assigned(&out).len(), 2, "seed {seed}:\n{out}");
        }
    }

    /// No inserted line follows a `return` at the same indentation.
    #[test]
    fn nothing_after_a_return_in_its_block() {
        let code =
            "def f(a, b, c):\n    if a:\n        return 1\n    elif b:\n        c = 2\n        return c\n    return 3";
        for seed in 0..50 {
            let out = gbc(code, seed).unwrap();
            let lines: Vec<&str> = out.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let indent = line.len() - line.trim_start().len();
                if line.trim_start().starts_with("return")
                    && !line.contains("TempFunc")
                    && let Some(next) = lines.get(i + 1)
                {
                    let next_indent = next.len() - next.trim_start().len();
                    // the recursion templates return inside their own (deeper) blocks
                    assert!(next_indent < indent || next.trim_start().starts_with("elif"), "seed {seed}:\n{out}");
                }
            }
        }
    }

    /// Parameters named like builtins, read as globals elsewhere, or already bound at module level
    /// never get a module-level assignment.
    #[test]
    fn module_assignments_only_where_harmless() {
        let code = "limit = 5\ndef g():\n    return y\ndef f(list, y, limit, x):\n    return x";
        for seed in 0..30 {
            let mut assigned = module_assigned(&gbc(code, seed).unwrap());
            assigned.sort();
            assert_eq!(assigned, vec!["limit".to_string(), "x".to_string()], "seed {seed}");
        }
    }

    #[test]
    fn docstrings_stay_first_one_liners_get_module_lines_only() {
        for seed in 0..20 {
            let out = gbc("def f(x):\n    \"\"\"doc\"\"\"\n    return x", seed).unwrap();
            assert!(out.contains("def f(x):\n    \"\"\"doc\"\"\"\n"), "{out}");
            let one_liner = gbc("def f(x): return x", seed).unwrap();
            let (first, rest) = one_liner.split_once('\n').unwrap();
            assert_eq!(rest, "def f(x): return x");
            assert!(first.starts_with("x = ") && first[4..].parse::<u8>().is_ok_and(|v| v < 10), "{one_liner}");
        }
    }

    #[test]
    fn line_breaks_and_missing_final_newline_are_respected() {
        for seed in 0..20 {
            let out = gbc("def f(a, b, c):\r\n    y = a\r\n    print(y)", seed).unwrap();
            assert_eq!(out.matches('\n').count(), out.matches("\r\n").count(), "{out:?}");
            assert!(!out.ends_with('\n'), "{out:?}");
        }
    }

    #[test]
    fn refuses_names_it_would_clobber() {
        let error = gbc("def f(a, b, c):\n    TempVar1 = a\n    return TempVar1", 0).unwrap_err();
        assert!(error.to_string().contains("TempVar1"), "{error}");
    }
}

#[cfg(test)]
mod nesting_tests {
    use crate::{Kind, Options, perturb};

    /// After the inner block's last statement and before the outer block's next statement is one
    /// offset: whatever lands there, the deeper lines must come first. Checked line by line: a
    /// line indented deeper than the previous line must follow a line ending in `:`.
    #[test]
    fn insertions_at_one_offset_nest_correctly() {
        let code = "def f(sample):\n    i = -1\n    while sample.find('/', i+1) != -1:\n        i = sample.find('/', i+1)\n    return i\ndef g(x):\n    return x";
        for seed in 0..200 {
            let out =
                perturb(code, "f", "f('a/b')", "1", Kind::Gbc, &Options::with_seed(seed), "sample_214").unwrap().code;
            let lines: Vec<&str> = out.lines().collect();
            for pair in lines.windows(2) {
                let width = |l: &str| l.len() - l.trim_start().len();
                if width(pair[1]) > width(pair[0]) {
                    assert!(pair[0].ends_with(':'), "seed {seed}:\n{out}");
                }
            }
        }
    }
}
