//! GBC under the `codecrash` profile: the same three additions as [`crate::kinds::gbc`], placed
//! the way CodeCrash places them.
//!
//! - Module-level ints for about half of the parameters take values 1..=100 (execbench: 0..=9).
//! - The three dead statements draw from five shapes: execbench's four plus a false guard around a
//!   `print` of a parameter.
//! - The two dead functions are two different shapes of seven that never end if called: mutual
//!   recursion, a nested recursive `def`, `while True`, `iter(int, 1)`, recursion inside
//!   `try`/`except`, a list that grows while it is iterated, `iter(lambda: True, False)`.
//! - The five are inserted one at a time in a random order, and the insertion points are found
//!   again in the program as it is after each insertion: statement positions as execbench finds
//!   them (now also inside garbage inserted before, so garbage nests), plus the missing `else`
//!   of every `if`, `for` and `while` in a function, which becomes a new `else:` clause holding the
//!   garbage. A loop's `else` runs when the loop ends without `break` and an `if`'s when its
//!   conditions fail, so what goes there must be harmless to run: every dead statement is (its
//!   body is guarded or it assigns an unused name), and a `def` only binds a name.
//!
//! The insertions are reported as edits of the original text: an insertion inside an earlier one
//! becomes part of that one's text.

use execbench_pysyntax::{Node, Tree};

use crate::edit::TextEdit;
use crate::kinds::gbc::{
    CODECRASH_NEVER_ENDING, DEAD_FUNCTIONS, DEAD_VARIABLES, Position, Shape, dead_statement, module_assignments, place,
    statement_positions,
};
use crate::rng::Rng;
use crate::scope::{Analysis, ScopeKind};
use crate::syntax::{self, NodeKind, indent_of_line_start, newline_of, preorder, text};
use crate::{PerturbError, Program};

/// The names the garbage brings; a program that already uses a name with one of these prefixes
/// is refused (the dead functions also bind `TempFunc0_b`-style helpers).
const OWN_PREFIXES: [&str; 2] = ["TempVar", "TempFunc"];

/// Where one piece of garbage can go: a statement position, or a new `else:` clause.
#[derive(Clone, Debug)]
struct Slot {
    position: Position,
    /// The garbage opens an `else:` at `position.indent` and goes one level deeper.
    new_else: bool,
}

/// What is inserted, in the order drawn.
#[derive(Clone, Copy, Debug)]
enum Garbage {
    Statement(&'static str, Shape),
    Function(&'static str, usize),
}

pub fn garbage_code(
    program: &Program,
    tree: &Tree,
    call_tree: &Tree,
    rng: &mut Rng,
) -> Result<Vec<TextEdit>, PerturbError> {
    let code = &program.code;
    let root = tree.root_node();
    let nodes = preorder(root);
    if let Some(clash) = nodes
        .iter()
        .filter(|n| n.kind_name() == "identifier")
        .map(|n| text(*n, code))
        .find(|t| OWN_PREFIXES.iter().any(|p| t.starts_with(p)))
    {
        return Err(PerturbError::Unsupported(format!("GBC: the code already uses the name `{clash}`")));
    }
    let newline = newline_of(code);
    let analysis = Analysis::of(root, code);
    let mut insertions = Insertions::default();
    for edit in module_assignments(program, root, call_tree, &analysis, rng, newline, (1, 100))? {
        insertions.insert_into(edit.start, &edit.text);
    }

    let mut shapes = [Shape::If, Shape::While, Shape::For, Shape::Conditional, Shape::Print];
    rng.shuffle(&mut shapes);
    let mut functions: Vec<usize> = (0..CODECRASH_NEVER_ENDING.len()).collect();
    rng.shuffle(&mut functions);
    let mut garbage: Vec<Garbage> = DEAD_VARIABLES.iter().zip(shapes).map(|(v, s)| Garbage::Statement(v, s)).collect();
    garbage.extend(DEAD_FUNCTIONS.iter().zip(functions).map(|(name, f)| Garbage::Function(name, f)));
    rng.shuffle(&mut garbage);

    let mut current = insertions.apply(code);
    for piece in garbage {
        let tree = syntax::check_output(&current, "GBC")?;
        let nodes = preorder(tree.root_node());
        let analysis = Analysis::of(tree.root_node(), &current);
        let slots = slots(&nodes, &current, &analysis);
        let Some(slot) = rng.pick(&slots).cloned() else { break };
        let statement = match piece {
            Garbage::Statement(variable, shape) => {
                let deletions = crate::kinds::rtf::deletions(&nodes, &current);
                dead_statement(shape, variable, &slot.position, &analysis, &deletions, rng)
            }
            Garbage::Function(name, index) => CODECRASH_NEVER_ENDING[index].1.replace("{name}", name),
        };
        let statement = if slot.new_else {
            format!("else:\n{}", statement.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n"))
        } else {
            statement
        };
        let inserted = place(&statement, &slot.position, newline);
        let offset = insertions.original_offset_or_inside(slot.position.at);
        insertions.insert_into(offset, &inserted);
        current = insertions.apply(code);
    }
    Ok(insertions.into_edits())
}

/// Statement positions inside functions, and the missing `else` of each `if`, `for` and `while`
/// in a function that starts its own line, in source order.
fn slots(nodes: &[Node], code: &str, analysis: &Analysis) -> Vec<Slot> {
    let mut slots: Vec<Slot> = statement_positions(nodes, code, analysis)
        .into_iter()
        .map(|position| Slot { position, new_else: false })
        .collect();
    for &node in nodes.iter().filter(|n| matches!(n.kind_name(), "if_statement" | "for_statement" | "while_statement"))
    {
        let has_else = syntax::named_children(node).iter().any(|c| c.kind_name() == "else_clause");
        let scope = analysis.scope_at(node.start_byte());
        if has_else || analysis.scopes[scope].kind != ScopeKind::Function {
            continue;
        }
        let Some(indent) = indent_of_line_start(code, node) else { continue };
        let end = node.end_byte();
        let position = match code[end..].find('\n') {
            Some(offset) => Position { at: end + offset + 1, indent, at_end_of_file: false, scope },
            None => Position { at: code.len(), indent, at_end_of_file: true, scope },
        };
        slots.push(Slot { position, new_else: true });
    }
    // Stable: at one offset, statement positions stay before `else` slots.
    slots.sort_by_key(|s| s.position.at);
    slots
}

/// Insertions into the original text, kept in the order they apply: sorted by offset, and at one
/// offset in the order they were made.
#[derive(Default)]
struct Insertions {
    list: Vec<(usize, String)>,
    /// Where the next insertion goes inside an existing one: (index, byte in its text).
    pending_inside: Option<(usize, usize)>,
}

impl Insertions {
    fn apply(&self, original: &str) -> String {
        let mut out = String::with_capacity(original.len() + self.list.iter().map(|(_, t)| t.len()).sum::<usize>());
        let mut cursor = 0;
        for (at, inserted) in &self.list {
            out.push_str(&original[cursor..*at]);
            out.push_str(inserted);
            cursor = *at;
        }
        out.push_str(&original[cursor..]);
        out
    }

    /// The original offset of `at`, a position in the current text. A position strictly inside
    /// an earlier insertion (or at its end) is remembered, and the next [`Insertions::insert_into`]
    /// splices there.
    fn original_offset_or_inside(&mut self, at: usize) -> usize {
        let mut shift = 0;
        for (index, (original, inserted)) in self.list.iter().enumerate() {
            let start = original + shift;
            if at <= start {
                break;
            }
            if at <= start + inserted.len() {
                self.pending_inside = Some((index, at - start));
                return *original;
            }
            shift += inserted.len();
        }
        at - shift
    }

    /// Inserts `text` at original offset `at` (or where [`Insertions::original_offset_or_inside`]
    /// found the position inside an earlier insertion).
    fn insert_into(&mut self, at: usize, text: &str) {
        if let Some((index, byte)) = self.pending_inside.take() {
            self.list[index].1.insert_str(byte, text);
            return;
        }
        // A position at an earlier insertion's offset that is not inside it is before it in the
        // current text: the new text goes before every insertion at `at`.
        let index = self.list.iter().position(|(o, _)| *o >= at).unwrap_or(self.list.len());
        self.list.insert(index, (at, text.to_string()));
    }

    fn into_edits(self) -> Vec<TextEdit> {
        self.list.into_iter().map(|(at, text)| TextEdit::insert(at, text)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Options, Profile, perturb};

    fn gbc(code: &str, call: &str, seed: u64) -> String {
        let options = Options { profile: Profile::Codecrash, ..Options::with_seed(seed) };
        perturb(code, "f", call, "1", Kind::Gbc, &options, "t")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{code}"))
            .code
    }

    /// Offsets map back to the original text whether they fall before, between, at the edge of
    /// or inside earlier insertions; the result is the text edited in place.
    #[test]
    fn insertions_map_positions_to_the_original() {
        let original = "abcdef";
        // (position in the current text, inserted text, current text afterwards)
        let steps: &[(usize, &str, &str)] = &[
            (2, "XY", "abXYcdef"),
            (3, "1", "abX1Ycdef"),
            (0, "<", "<abX1Ycdef"),
            (10, ">", "<abX1Ycdef>"),
            (7, "-", "<abX1Yc-def>"),
            (3, "[", "<ab[X1Yc-def>"),
        ];
        let mut insertions = Insertions::default();
        let mut current = original.to_string();
        for (at, text, expected) in steps {
            let offset = insertions.original_offset_or_inside(*at);
            insertions.insert_into(offset, text);
            current.insert_str(*at, text);
            assert_eq!(current, *expected);
            assert_eq!(insertions.apply(original), current, "after inserting {text:?} at {at}");
        }
        let (edited, _) = crate::edit::apply(original, Kind::Gbc, insertions.into_edits()).unwrap();
        assert_eq!(edited, current);
    }

    /// Awkward layouts: an `if` on one line at the end of a file without a final newline, CRLF
    /// line breaks, tab indentation, a body that begins with a nested `def`. Every seed gives code
    /// that parses and indents as Python wants (checked by `perturb`), keeps the line breaks and
    /// indentation style, and never reads the nested def's parameter outside it.
    #[test]
    fn awkward_layouts_stay_valid() {
        let cases: &[(&str, &str)] = &[
            ("def f(a):\n    while a > 0: a -= 1\n    if a: return 1", "f(2)"),
            ("def f(a):\r\n    for x in a:\r\n        a = a + [x]\r\n    return a\r\n", "f([1])"),
            ("def f(a):\n\tif a:\n\t\ta = 2\n\treturn a", "f(1)"),
            ("def f(a):\n    def g(inner):\n        return inner\n    return g(a)", "f(1)"),
        ];
        for (code, call) in cases {
            for seed in 0..40 {
                let out = gbc(code, call, seed);
                if code.contains('\r') {
                    assert_eq!(out.matches('\n').count(), out.matches("\r\n").count(), "{out:?}");
                }
                if code.contains('\t') {
                    assert!(
                        out.lines().filter(|l| l.starts_with(' ')).all(|l| !l.starts_with("    ")),
                        "spaces in a tab file: {out:?}"
                    );
                }
                if code.contains("def g(inner)") {
                    let outside: Vec<&str> = out
                        .lines()
                        .filter(|l| l.starts_with("    ") && !l.starts_with("        ") && l.contains("inner"))
                        .collect();
                    assert!(outside.iter().all(|l| l.contains("def g(")), "reads `inner` outside g: {out}");
                }
            }
        }
    }

    /// Every seed: three `TempVar`/print statements and two dead functions of different shapes
    /// appear, module-level values are 1..=100, and over the seeds some garbage goes into a new
    /// `else:` and some into earlier garbage.
    #[test]
    fn five_pieces_new_else_clauses_and_nesting() {
        let code = "def f(a, b, c):\n    total = a + b\n    for x in c:\n        if x:\n            total += x\n    return total";
        let call = "f(1, 2, [3])";
        let (mut new_else, mut nested) = (0, 0);
        for seed in 0..60 {
            let out = gbc(code, call, seed);
            let statements = DEAD_VARIABLES.iter().filter(|v| out.contains(&format!("{v} ="))).count()
                + out.matches("print(").count();
            assert_eq!(statements, 3, "seed {seed}:\n{out}");
            assert!(out.contains("def TempFunc0(") && out.contains("def TempFunc1("), "seed {seed}:\n{out}");
            for line in out.lines().filter(|l| !l.starts_with(' ') && l.contains(" = ")) {
                let value: usize = line.split(" = ").nth(1).unwrap().parse().unwrap();
                assert!((1..=100).contains(&value), "{line}");
            }
            new_else += out.matches("else:").count();
            // Garbage inside garbage: a TempVar or TempFunc line indented under a dead function
            // or a dead guard.
            let lines: Vec<&str> = out.lines().collect();
            let width = |l: &str| l.len() - l.trim_start().len();
            nested += lines
                .iter()
                .enumerate()
                .filter(|(i, l)| {
                    (l.contains("TempVar") || l.contains("def TempFunc") || l.contains("print("))
                        && lines[..*i].iter().rev().find(|p| width(p) < width(l)).is_some_and(|p| {
                            p.contains("TempFunc")
                                || p.contains("if ") && !code.contains(p.trim())
                                || p.contains("while ")
                                || p.contains("for _")
                        })
                })
                .count();
        }
        assert!(new_else > 10, "{new_else} new else clauses over 60 seeds");
        assert!(nested > 5, "{nested} nested pieces over 60 seeds");
    }
}
