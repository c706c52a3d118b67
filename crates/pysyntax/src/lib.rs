//! Python parsed by tree-sitter, the one way every crate does it: a parser per thread, made once
//! and reused (a new parser and grammar load per parse was pure overhead), and the questions
//! about nodes that the perturbations, the CRUXEval filter and the highlighter all ask.

use std::cell::RefCell;

use tree_sitter::Parser;
pub use tree_sitter::{InputEdit, Language, Node, Point, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Why there is no tree. Code with syntax errors is not one: it gives a tree with error nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseFailure {
    /// tree-sitter-python's grammar did not load into the parser (a version mismatch).
    GrammarDidNotLoad(String),
    /// tree-sitter gave up and returned no tree.
    NoTree,
}

/// tree-sitter-python's grammar (its node kinds by id, for tables made once).
pub fn language() -> Language {
    tree_sitter_python::LANGUAGE.into()
}

fn new_parser() -> Result<Parser, ParseFailure> {
    let mut parser = Parser::new();
    parser.set_language(&language()).map_err(|e| ParseFailure::GrammarDidNotLoad(e.to_string()))?;
    Ok(parser)
}

fn parse_with(parser: &mut Parser, source: &str, old_tree: Option<&Tree>) -> Result<Tree, ParseFailure> {
    let tree = parser.parse(source, old_tree);
    if tree.is_none() {
        // A parse that gave up leaves state behind that the next parse would resume.
        parser.reset();
    }
    tree.ok_or(ParseFailure::NoTree)
}

/// Parses `source` with this thread's parser. `old_tree`, already edited to match `source`
/// (`Tree::edit`), lets tree-sitter reuse every subtree outside the edited ranges; the result is
/// the tree a fresh parse gives.
pub fn parse(source: &str, old_tree: Option<&Tree>) -> Result<Tree, ParseFailure> {
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let parser = match slot.as_mut() {
                Some(parser) => parser,
                None => slot.insert(new_parser()?),
            };
            parse_with(parser, source, old_tree)
        }
        // Only reachable if a parse were started from inside a parse; stay correct anyway.
        Err(_) => parse_with(&mut new_parser()?, source, old_tree),
    })
}

/// The node's source text ("" if the range is not `source`'s).
pub fn text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// Every node of the tree, depth first, in source order.
pub fn walk<'t>(root: Node<'t>, visit: &mut dyn FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Every node of the tree in source order (pre-order), as a list.
pub fn preorder(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    walk(root, &mut |node| out.push(node));
    out
}

pub fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

pub fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// The first ERROR or MISSING node in source order: where the code stops being Python. Only
/// subtrees that hold an error are searched.
pub fn first_error(root: Node) -> Option<Node> {
    if !root.has_error() {
        return None;
    }
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        if node.has_error() {
            stack.extend(children(node).into_iter().rev());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_is_where_the_code_stops_being_python() {
        // (source, the first error's start byte)
        let cases: &[(&str, Option<usize>)] = &[
            ("def f(x):\n    return x\n", None),
            // tree-sitter marks the whole statement that holds the unclosed bracket.
            ("def f(x):\n    return (x\n", Some(14)),
            ("x = 1\ny = = 2\n", Some(10)),
            ("", None),
        ];
        for (source, expected) in cases {
            let tree = parse(source, None).unwrap();
            assert_eq!(first_error(tree.root_node()).map(|n| n.start_byte()), *expected, "{source:?}");
        }
    }

    #[test]
    fn the_walk_visits_every_node_in_source_order_and_reparsing_gives_the_fresh_tree() {
        let source = "def f(a):\n    return a + 1\n";
        let tree = parse(source, None).unwrap();
        let nodes = preorder(tree.root_node());
        assert_eq!(nodes[0].kind(), "module");
        let identifiers: Vec<&str> =
            nodes.iter().filter(|n| n.kind() == "identifier").map(|n| text(*n, source)).collect();
        assert_eq!(identifiers, ["f", "a", "a"]);
        assert!(nodes.windows(2).all(|w| w[0].start_byte() <= w[1].start_byte()));
        // One edit: `1` becomes `22`, then the old tree is reused.
        let edited = "def f(a):\n    return a + 22\n";
        let mut old = tree.clone();
        old.edit(&InputEdit {
            start_byte: 25,
            old_end_byte: 26,
            new_end_byte: 27,
            start_position: Point { row: 1, column: 15 },
            old_end_position: Point { row: 1, column: 16 },
            new_end_position: Point { row: 1, column: 17 },
        });
        let reused = parse(edited, Some(&old)).unwrap();
        let fresh = parse(edited, None).unwrap();
        assert_eq!(reused.root_node().to_sexp(), fresh.root_node().to_sexp());
        assert_eq!(text(reused.root_node(), "short"), "", "a range outside the text reads as empty");
    }
}
