//! tree-sitter plumbing: parsing, validity, and small questions about nodes and lines.

use tree_sitter::{Node, Parser, Tree};

use crate::PerturbError;

/// Parses Python; `what` names the text in the error ("the code", "the call").
pub fn parse(source: &str) -> Result<Tree, PerturbError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| PerturbError::Internal(format!("tree-sitter-python does not load: {e}")))?;
    parser.parse(source, None).ok_or_else(|| PerturbError::Internal("tree-sitter gave no tree".to_string()))
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
    let tree = parse(source)?;
    match first_error(tree.root_node()) {
        None => Ok(tree),
        Some(at) => Err(PerturbError::Internal(format!("{stage} produced code that does not parse (byte {at})"))),
    }
}

/// The start byte of the first ERROR or MISSING node, if any.
pub fn first_error(root: Node) -> Option<usize> {
    if !root.has_error() {
        return None;
    }
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            return Some(node.start_byte());
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    Some(root.start_byte())
}

pub fn text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// Every node of the tree in source order (pre-order).
pub fn preorder(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

pub fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

pub fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

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
        if matches!(node.kind(), "string" | "concatenated_string") && node.start_byte() < at && at < node.end_byte() {
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
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "classmethod", "compile",
    "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "filter", "float", "format",
    "frozenset", "getattr", "globals", "hasattr", "hash", "hex", "id", "input", "int", "isinstance", "issubclass",
    "iter", "len", "list", "locals", "map", "max", "min", "next", "object", "oct", "open", "ord", "pow", "print",
    "property", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str",
    "sum", "super", "tuple", "type", "vars", "zip", "True", "False", "None",
];
