//! tree-sitter plumbing: parsing, validity, and small questions about nodes and lines.

use std::sync::OnceLock;

use execbench_pysyntax::{InputEdit, Node, ParseFailure, Point, Tree};

use crate::PerturbError;
use crate::edit::Edit;

thread_local! {
    /// How many tree-sitter parses this thread has run (fresh and incremental), for the timing example.
    static PARSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many tree-sitter parses (fresh or incremental) this thread has run so far.
pub fn parse_count() -> u64 {
    PARSES.with(|count| count.get())
}

/// Parses Python with this thread's parser.
pub fn parse(source: &str) -> Result<Tree, PerturbError> {
    parse_reusing(source, None)
}

/// `old_tree`, already edited to match `source`, lets tree-sitter reuse every subtree outside the
/// edited ranges; the result is the tree a fresh parse gives.
fn parse_reusing(source: &str, old_tree: Option<&Tree>) -> Result<Tree, PerturbError> {
    PARSES.with(|count| count.set(count.get() + 1));
    execbench_pysyntax::parse(source, old_tree).map_err(|failure| match failure {
        ParseFailure::GrammarDidNotLoad(e) => PerturbError::Internal(format!("tree-sitter-python does not load: {e}")),
        ParseFailure::NoTree => PerturbError::Internal("tree-sitter gave no tree".to_string()),
    })
}

/// Above this many edits, a fresh parse is faster than reusing the old tree.
const MAX_EDITS_FOR_REUSE: usize = 4;

/// Parses `new_source`, which is `old_tree`'s text with `edits` (as [`crate::edit::apply`]
/// reported them, in order) applied. With few edits, only the edited regions are parsed again.
pub fn reparse(old_tree: &Tree, new_source: &str, edits: &[Edit]) -> Result<Tree, PerturbError> {
    // Measured on CRUXEval: reuse pays off for a few edits (RTF, MHC: about twice as fast) and
    // costs more than a fresh parse for many (REN, GBC, MCC, MPS: 8-40% slower).
    if edits.len() > MAX_EDITS_FOR_REUSE {
        return parse(new_source);
    }
    let mut tree = old_tree.clone();
    // Positions advance through the new text: each edit starts where `apply` put its text, and
    // everything before it is already the new text.
    let mut scanned = 0;
    let mut at = Point { row: 0, column: 0 };
    // Edits of the call are in another text.
    for edit in edits.iter().filter(|e| e.target.is_code()) {
        let start_byte = edit.after_start_byte;
        let gap = new_source
            .get(scanned..start_byte)
            .ok_or_else(|| PerturbError::Internal("an edit report does not match its output".to_string()))?;
        at = advance(at, gap);
        scanned = start_byte;
        tree.edit(&InputEdit {
            start_byte,
            old_end_byte: start_byte + edit.before.len(),
            new_end_byte: start_byte + edit.after.len(),
            start_position: at,
            old_end_position: advance(at, &edit.before),
            new_end_position: advance(at, &edit.after),
        });
    }
    parse_reusing(new_source, Some(&tree))
}

/// The position after `text` when it starts at `from` (columns count bytes, as tree-sitter's do).
fn advance(from: Point, text: &str) -> Point {
    match text.rfind('\n') {
        Some(last) => Point { row: from.row + text.matches('\n').count(), column: text.len() - last - 1 },
        None => Point { row: from.row, column: from.column + text.len() },
    }
}

/// Parses the input and refuses code with syntax errors.
pub fn parse_valid(source: &str, what: &str) -> Result<Tree, PerturbError> {
    let tree = parse(source)?;
    match first_error(tree.root_node()) {
        None => Ok(tree),
        Some(at) => Err(PerturbError::InvalidInput(format!("{what} does not parse (syntax error at byte {at})"))),
    }
}

/// Re-parses a perturbation's output: an error there is a bug in the perturbation, never shipped.
pub fn check_output(source: &str, stage: &str) -> Result<Tree, PerturbError> {
    refuse_errors(parse(source)?, source, stage)
}

/// [`check_output`] for a text made from `old_tree`'s text by `edits` (see [`reparse`]).
pub fn check_edited_output(old_tree: &Tree, source: &str, edits: &[Edit], stage: &str) -> Result<Tree, PerturbError> {
    refuse_errors(reparse(old_tree, source, edits)?, source, stage)
}

fn refuse_errors(tree: Tree, source: &str, stage: &str) -> Result<Tree, PerturbError> {
    if let Some(at) = first_error(tree.root_node()) {
        return Err(PerturbError::Internal(format!("{stage} produced code that does not parse (byte {at})")));
    }
    if let Some(at) = misindented(tree.root_node(), source) {
        return Err(PerturbError::Internal(format!(
            "{stage} produced code with an indentation Python rejects (byte {at})"
        )));
    }
    Ok(tree)
}

/// An indentation as Python compares them: the width with tabs to multiples of 8 and with tabs
/// counted as 1. Python calls two indentations equal only when both widths agree (else TabError).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Indent {
    tabs_to_8: usize,
    tabs_as_1: usize,
}

impl Indent {
    fn of(whitespace: &str) -> Indent {
        let tabs_to_8 = whitespace.chars().fold(0, |width, c| if c == '\t' { (width / 8 + 1) * 8 } else { width + 1 });
        Indent { tabs_to_8, tabs_as_1: whitespace.chars().count() }
    }

    fn deeper_than(self, other: Indent) -> bool {
        self.tabs_to_8 > other.tabs_to_8 && self.tabs_as_1 > other.tabs_as_1
    }
}

/// The indentation of the logical line that `node` starts, when it starts one: only whitespace
/// before it on its line, and the line before does not continue onto it with a backslash.
fn line_indent(source: &str, node: Node) -> Option<Indent> {
    let start = line_start(source, node.start_byte());
    let prefix = &source[start..node.start_byte()];
    if !prefix.chars().all(|c| c == ' ' || c == '\t' || c == '\x0c') {
        return None;
    }
    let previous_line = source[..start].trim_end_matches(['\n', '\r']);
    if start > 0 && previous_line.ends_with('\\') {
        return None;
    }
    Some(Indent::of(&prefix.replace('\x0c', "")))
}

/// The first statement whose indentation Python would reject although tree-sitter built a tree
/// without errors (tree-sitter's scanner tolerates, for example, a line indented deeper than its
/// block after a dedent). Checked: module-level statements that start a line are not indented;
/// within a block, those statements share one indentation, deeper than the block's header line.
pub fn misindented(root: Node, source: &str) -> Option<usize> {
    let node = root;
    let problem = match node.kind_name() {
        "module" => statements_misindented(node, source, None),
        "block" => {
            // The header's line, where the block's parent (`if`, `def`, `else`, ...) starts.
            let header_line = &source[line_start(source, node.parent().unwrap_or(node).start_byte())..];
            let header = header_line.trim_start_matches([' ', '\t', '\x0c']);
            let header_indent = &header_line[..header_line.len() - header.len()];
            statements_misindented(node, source, Some(Indent::of(&header_indent.replace('\x0c', ""))))
        }
        _ => None,
    };
    if problem.is_some() {
        return problem;
    }
    // Blocks hold statements, and only statements, clauses and definitions hold blocks: the
    // expressions (most of the tree) need no visit.
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let kind = child.kind_name();
        let may_hold_blocks = kind == "block"
            || kind.ends_with("_statement")
            || kind.ends_with("_clause")
            || kind.ends_with("_definition");
        if may_hold_blocks && let Some(at) = misindented(child, source) {
            return Some(at);
        }
    }
    None
}

/// `header`: the indentation of the line that opens the block; `None` for the module.
fn statements_misindented(container: Node, source: &str, header: Option<Indent>) -> Option<usize> {
    let mut cursor = container.walk();
    let mut first: Option<Indent> = None;
    for statement in container.named_children(&mut cursor).filter(|n| !n.is_extra()) {
        let Some(indent) = line_indent(source, statement) else { continue };
        let fits = match (header, first) {
            (None, _) => indent == Indent { tabs_to_8: 0, tabs_as_1: 0 },
            (Some(_), Some(expected)) => indent == expected,
            (Some(outer), None) => indent.deeper_than(outer),
        };
        if !fits {
            return Some(statement.start_byte());
        }
        first.get_or_insert(indent);
    }
    None
}

/// Node kinds by id, looked up once: tree-sitter's `Node::kind` measures and UTF-8-checks the
/// C string on every call, and the perturbations ask for kinds millions of times.
fn kind_names() -> &'static [Box<str>] {
    static NAMES: OnceLock<Vec<Box<str>>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let language = execbench_pysyntax::language();
        let name_of = |id: usize| u16::try_from(id).ok().and_then(|id| language.node_kind_for_id(id)).unwrap_or("");
        (0..language.node_kind_count()).map(|id| Box::from(name_of(id))).collect()
    })
}

pub trait NodeKind<'tree> {
    /// The same text as [`Node::kind`], from a table.
    fn kind_name(&self) -> &'tree str;
}

impl<'tree> NodeKind<'tree> for Node<'tree> {
    fn kind_name(&self) -> &'tree str {
        match kind_names().get(usize::from(self.kind_id())) {
            Some(name) if !name.is_empty() => name,
            // ERROR nodes and anything else outside the table.
            _ => self.kind(),
        }
    }
}

/// The start byte of the first ERROR or MISSING node, if any.
pub fn first_error(root: Node) -> Option<usize> {
    execbench_pysyntax::first_error(root).map(|node| node.start_byte())
}

pub use execbench_pysyntax::{children, named_children, preorder, text};

/// Byte offset where the line holding `byte` starts.
pub fn line_start(source: &str, byte: usize) -> usize {
    source[..byte.min(source.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// Byte offset of the end of the line holding `byte` (before `\n`, and before a `\r` of CRLF).
pub fn line_end(source: &str, byte: usize) -> usize {
    let end = source[byte.min(source.len())..].find('\n').map_or(source.len(), |i| byte + i);
    if end > 0 && source.as_bytes()[end - 1] == b'\r' { end - 1 } else { end }
}

/// The whitespace before a statement when the statement starts its line, else `None` (as in
/// `x = 1; y = 2` or `if a: b`, where no new line can go before the statement).
pub fn indent_of_line_start(source: &str, node: Node) -> Option<String> {
    let start = line_start(source, node.start_byte());
    let prefix = &source[start..node.start_byte()];
    prefix.chars().all(|c| c == ' ' || c == '\t').then(|| prefix.to_string())
}

/// One indentation level deeper than `indent`, in the same style.
pub fn deeper(indent: &str) -> String {
    if indent.ends_with('\t') { format!("{indent}\t") } else { format!("{indent}    ") }
}

/// The line break the source uses.
pub fn newline_of(source: &str) -> &'static str {
    if source.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Whether a comment may be appended at the end of the line ending at `at`: not inside a string
/// that spans lines, not after a backslash continuation.
pub fn comment_fits_at(source: &str, root: Node, at: usize) -> bool {
    if at > 0 && source.as_bytes()[at - 1] == b'\\' {
        return false;
    }
    let mut node = root.descendant_for_byte_range(at.saturating_sub(1), at).unwrap_or(root);
    loop {
        if matches!(node.kind_name(), "string" | "concatenated_string")
            && node.start_byte() < at
            && at < node.end_byte()
        {
            return false;
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => return true,
        }
    }
}

/// Python's builtin names that programs commonly call; a perturbation must not shadow these.
pub const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    "True",
    "False",
    "None",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// (code, whether Python accepts its indentation); each parses without errors in tree-sitter.
    #[test]
    fn indentation_python_rejects_is_found() {
        let cases: &[(&str, bool)] = &[
            ("def f(x):\n    if x:\n        return 1\n    return 2\n", true),
            ("def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2", true),
            ("if x: a = 1\nelse: a = 2\n", true),
            ("def f(x):\n# a comment anywhere\n    return x\n", true),
            ("def f(x):\n    y = 1; \\\n  z = 2\n    return y\n", true),
            ("class A:\n    @staticmethod\n    def g():\n        pass\n", true),
            // GBC's old bug: an inner block's insertion placed after the outer one's.
            ("def f(x):\n    if x:\n        a = 1\n    b = 2\n        c = 3\n    return x\n", false),
            ("def f(x):\n    a = 1\n  b = 2\n", false),
            ("def f(x):\n    a = 1\n\tb = 2\n", false),
        ];
        for (code, accepted) in cases {
            let tree = parse(code).unwrap();
            let found = first_error(tree.root_node()).or_else(|| misindented(tree.root_node(), code));
            assert_eq!(found.is_none(), *accepted, "{code:?}: {found:?}");
        }
        // At least one rejected case gets past tree-sitter's own error check: the check adds something.
        let tolerated = "def f(x):\n    if x:\n        a = 1\n    b = 2\n        c = 3\n    return x\n";
        let tree = parse(tolerated).unwrap();
        assert_eq!(
            (first_error(tree.root_node()), misindented(tree.root_node(), tolerated)),
            (None, Some(tolerated.find("c = 3").unwrap()))
        );
    }

    /// Re-parsing after edits gives the same tree as parsing from scratch, with few edits (the
    /// tree is reused) and with many (a fresh parse).
    #[test]
    fn reparse_matches_a_fresh_parse() {
        let code = "def f(a, b):\n    if a < b:\n        return a\n    while b:\n        b -= 1\n    return b\n";
        let few = vec![
            crate::edit::TextEdit::replace(20, 25, "not not (a < b)"),
            crate::edit::TextEdit::insert(code.len(), "x = 1\n"),
        ];
        let many: Vec<_> =
            code.match_indices('b').map(|(i, _)| crate::edit::TextEdit::replace(i, i + 1, "Var_2")).collect();
        for edits in [few, many] {
            let (new_code, report) = crate::edit::apply(code, crate::Kind::Rtf, edits).unwrap();
            let old = parse(code).unwrap();
            let reparsed = reparse(&old, &new_code, &report).unwrap();
            let fresh = parse(&new_code).unwrap();
            assert_eq!(reparsed.root_node().to_sexp(), fresh.root_node().to_sexp(), "{new_code}");
            let ranges = |t: &Tree| {
                preorder(t.root_node())
                    .iter()
                    .map(|n| (n.byte_range(), n.start_position(), n.end_position()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(ranges(&reparsed), ranges(&fresh), "{new_code}");
        }
    }
}
