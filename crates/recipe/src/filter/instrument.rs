//! The rewrite that makes a candidate measurable: every binary operator becomes a call of the
//! harness's `__ebop__`, every augmented assignment an assignment of `__ebiop__`, and every call of
//! the builtins `pow` and `divmod` goes through `__ebcall__`. Each names its site, an index into
//! `Instrumented::sites`, so a broken rule comes back with the operator's span in the original code.
//! Line numbers are kept: every newline of the original stays on its line.

use std::collections::BTreeSet;

use execbench_pysyntax::Node;

use super::syntax::{bound_names, parse, text};

/// The operators the harness knows, in the order of its `symbols` tuple.
const SYMBOLS: [&str; 13] = ["+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"];

/// One instrumented operation: its operator and its byte range in the original code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub operator: String,
    pub start: usize,
    pub end: usize,
}

/// The rewritten program and the table of its sites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instrumented {
    pub program: String,
    pub sites: Vec<Site>,
}

/// Rewrites `code`; `None` when it does not parse (the static rules reject it first).
pub fn instrument(code: &str) -> Option<Instrumented> {
    let tree = parse(code)?;
    let root = tree.root_node();
    let mut rewriter = Rewriter { source: code, sites: Vec::new(), bound: bound_names(root, code) };
    let mut program = String::with_capacity(code.len() * 2);
    rewriter.emit(root, &mut program);
    Some(Instrumented { program, sites: rewriter.sites })
}

struct Rewriter<'s> {
    source: &'s str,
    sites: Vec<Site>,
    bound: BTreeSet<String>,
}

impl Rewriter<'_> {
    fn site(&mut self, operator: &str, node: Node) -> usize {
        self.sites.push(Site { operator: operator.to_string(), start: node.start_byte(), end: node.end_byte() });
        self.sites.len() - 1
    }

    fn emit(&mut self, node: Node, out: &mut String) {
        match node.kind() {
            "binary_operator" => {
                if let (Some(left), Some(operator), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("operator"),
                    node.child_by_field_name("right"),
                ) && let Some(k) = symbol_index(text(operator, self.source))
                {
                    let site = self.site(SYMBOLS[k], node);
                    out.push_str(&format!("__ebop__({site}, {k}, "));
                    self.emit(left, out);
                    out.push_str(", ");
                    self.keep_newlines(left.end_byte(), right.start_byte(), out);
                    self.emit(right, out);
                    out.push(')');
                    return;
                }
            }
            "augmented_assignment" => {
                if let (Some(left), Some(operator), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("operator"),
                    node.child_by_field_name("right"),
                ) && let Some(k) = text(operator, self.source).strip_suffix('=').and_then(symbol_index)
                {
                    // `a[i] += x` evaluates `a[i]` twice here; a target with side effects is rare
                    // enough in generated snippets to accept.
                    let site = self.site(SYMBOLS[k], node);
                    let mut target = String::new();
                    self.emit(left, &mut target);
                    out.push_str(&format!("{target} = __ebiop__({site}, {k}, {target}, "));
                    self.keep_newlines(left.end_byte(), right.start_byte(), out);
                    self.emit(right, out);
                    out.push(')');
                    return;
                }
            }
            "call" => {
                if let (Some(function), Some(arguments)) =
                    (node.child_by_field_name("function"), node.child_by_field_name("arguments"))
                    && function.kind() == "identifier"
                {
                    let name = text(function, self.source);
                    let symbol = match name {
                        "pow" => Some("**"),
                        "divmod" => Some("//"),
                        _ => None,
                    };
                    if let Some(symbol) = symbol.filter(|_| !self.bound.contains(name)) {
                        let k = symbol_index(symbol).unwrap_or(0);
                        let site = self.site(symbol, node);
                        out.push_str(&format!("__ebcall__({site}, {k}, {name})"));
                        self.emit(arguments, out);
                        return;
                    }
                }
            }
            _ => {}
        }
        self.copy(node, out);
    }

    /// The node's own text with its children emitted in place.
    fn copy(&mut self, node: Node, out: &mut String) {
        let mut position = node.start_byte();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            out.push_str(&self.source[position..child.start_byte()]);
            self.emit(child, out);
            position = child.end_byte();
        }
        out.push_str(&self.source[position..node.end_byte()]);
    }

    /// The newlines between two parts of a rewritten operator (an operator split over lines), so
    /// that later lines keep their numbers; inside the call's parentheses a bare newline is fine.
    fn keep_newlines(&self, from: usize, to: usize, out: &mut String) {
        let gap = &self.source[from..to.max(from)];
        for _ in gap.matches('\n') {
            out.push('\n');
        }
    }
}

fn symbol_index(symbol: &str) -> Option<usize> {
    SYMBOLS.iter().position(|s| *s == symbol)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_become_calls_and_lines_stay() {
        let cases: [(&str, &str); 7] = [
            ("x = a + b * c", "x = __ebop__(0, 0, a, __ebop__(1, 2, b, c))"),
            ("n += 1", "n = __ebiop__(0, 0, n, 1)"),
            ("d[k] -= 2", "d[k] = __ebiop__(0, 1, d[k], 2)"),
            ("y = pow(a, 2)", "y = __ebcall__(0, 7, pow)(a, 2)"),
            ("y = (a +\n     b)\nz = 1", "y = (__ebop__(0, 0, a, \nb))\nz = 1"),
            ("s = f'{a % 2}'", "s = f'{__ebop__(0, 6, a, 2)}'"),
            ("def f(pow):\n    return pow(2, 3) // 2", "def f(pow):\n    return __ebop__(0, 5, pow(2, 3), 2)"),
        ];
        for (code, expected) in cases {
            let got = instrument(code).unwrap();
            assert_eq!(got.program, expected, "{code}");
            assert_eq!(got.program.matches('\n').count(), code.matches('\n').count(), "{code}");
        }
        let sites = instrument("x = a + b * c").unwrap().sites;
        assert_eq!(
            sites,
            [Site { operator: "+".into(), start: 4, end: 13 }, Site { operator: "*".into(), start: 8, end: 13 }]
        );
    }
}
