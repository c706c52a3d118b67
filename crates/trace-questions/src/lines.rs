//! What the program's text says about its lines, read with tree-sitter: which lines start a
//! statement inside a function (the lines a question may name), how far each statement reaches,
//! and which plain names an assignment on a line binds.

use execbench_pysyntax::{Node, named_children, parse, text, walk};

/// A statement of a function's body that a line event can stand for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// Its first line, from 1.
    pub first: u32,
    /// Its last line: the statement's own for a simple one, the header's (up to the `:`) for
    /// `if`, `elif`, `while` and `for`.
    pub last: u32,
    /// The plain names it assigns (`x = ...`, `a, b = ...`, `x += ...`), in order; empty for
    /// any other statement.
    pub assigns: Vec<String>,
}

impl Statement {
    pub fn one_line(&self) -> bool {
        self.first == self.last
    }

    pub fn spans(&self, line: u32) -> bool {
        (self.first..=self.last).contains(&line)
    }
}

/// The statements of the program's functions, in source order.
#[derive(Clone, Debug, Default)]
pub struct ProgramLines {
    pub statements: Vec<Statement>,
    /// The program's lines, for quoting a line in a prompt.
    pub text_lines: Vec<String>,
}

const SIMPLE: &[&str] = &[
    "expression_statement",
    "return_statement",
    "pass_statement",
    "break_statement",
    "continue_statement",
    "raise_statement",
    "assert_statement",
    "delete_statement",
    "global_statement",
    "nonlocal_statement",
    "import_statement",
    "import_from_statement",
];

/// Headers that evaluate something when reached, with the field whose end closes the header.
const HEADERS: &[(&str, &str)] = &[
    ("if_statement", "condition"),
    ("elif_clause", "condition"),
    ("while_statement", "condition"),
    ("for_statement", "right"),
];

impl ProgramLines {
    /// `None` when tree-sitter cannot parse the program.
    pub fn read(program: &str) -> Option<ProgramLines> {
        let tree = parse(program, None).ok()?;
        let mut statements = Vec::new();
        walk(tree.root_node(), &mut |node: Node| {
            if !inside_function(node) {
                return;
            }
            let kind = node.kind();
            let first = node.start_position().row as u32 + 1;
            if SIMPLE.contains(&kind) {
                let last = node.end_position().row as u32 + 1;
                statements.push(Statement { first, last, assigns: assigned_names(node, program) });
            } else if let Some((_, field)) = HEADERS.iter().find(|(k, _)| *k == kind)
                && let Some(end) = node.child_by_field_name(field)
            {
                let last = end.end_position().row as u32 + 1;
                statements.push(Statement { first, last, assigns: Vec::new() });
            }
        });
        statements.sort_by_key(|s| s.first);
        statements.dedup_by_key(|s| s.first);
        Some(ProgramLines { statements, text_lines: program.lines().map(str::to_owned).collect() })
    }

    /// The statement that starts on `line`.
    pub fn starting_at(&self, line: u32) -> Option<&Statement> {
        self.statements.iter().find(|s| s.first == line)
    }

    /// The text of `line` (from 1), trimmed.
    pub fn text_of(&self, line: u32) -> &str {
        self.text_lines.get(line.saturating_sub(1) as usize).map(|l| l.trim()).unwrap_or("")
    }
}

fn inside_function(node: Node) -> bool {
    let mut at = node.parent();
    while let Some(parent) = at {
        if parent.kind() == "function_definition" {
            return true;
        }
        at = parent.parent();
    }
    false
}

/// `x = ...`, `x = y = ...`, `a, b = ...`, `(a, b) = ...`, `x: int = ...`, `x += ...`: the plain
/// names bound; attributes and subscripts are not variables a question can name.
fn assigned_names(statement: Node, source: &str) -> Vec<String> {
    let mut names = Vec::new();
    if statement.kind() != "expression_statement" {
        return names;
    }
    let Some(mut expr) = statement.named_child(0) else { return names };
    while let "assignment" | "augmented_assignment" = expr.kind() {
        if let Some(left) = expr.child_by_field_name("left") {
            names_in_target(left, source, &mut names);
        }
        // `x = y = 1` nests the second assignment on the right.
        match expr.child_by_field_name("right") {
            Some(right) if right.kind() == "assignment" => expr = right,
            _ => break,
        }
    }
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

fn names_in_target(target: Node, source: &str, names: &mut Vec<String>) {
    match target.kind() {
        "identifier" => names.push(text(target, source).to_owned()),
        "pattern_list" | "tuple_pattern" | "list_pattern" | "parenthesized_expression" => {
            for child in named_children(target) {
                names_in_target(child, source, names);
            }
        }
        _ => {}
    }
}
