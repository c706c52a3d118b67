//! tree-sitter plumbing for the filter: one parser per thread, and the names a program binds.

use std::cell::RefCell;
use std::collections::BTreeSet;

use tree_sitter::{Node, Parser, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses Python; `None` only if tree-sitter itself fails (never on bad code: that gives a tree
/// with error nodes).
pub fn parse(source: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let tree = parser.parse(source, None);
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

pub fn text<'a>(node: Node, source: &'a str) -> &'a str {
    &source[node.byte_range()]
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

/// The first error or missing node: where the code stops being Python.
pub fn first_error(root: Node) -> Option<Node> {
    let mut found = None;
    walk(root, &mut |node| {
        if found.is_none() && (node.is_error() || node.is_missing()) {
            found = Some(node);
        }
    });
    found
}

/// Names the program binds itself: parameters, assignment and loop targets, function and class
/// names, `as` aliases, comprehension variables. A forbidden builtin's name bound here is the
/// program's own variable, not the builtin.
pub fn bound_names(root: Node, source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    walk(root, &mut |node| {
        let target = match node.kind() {
            "parameters" | "lambda_parameters" => Some(node),
            "function_definition" | "class_definition" => node.child_by_field_name("name"),
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                node.child_by_field_name("left")
            }
            "named_expression" => node.child_by_field_name("name"),
            "as_pattern" => node.child_by_field_name("alias"),
            "global_statement" | "nonlocal_statement" => Some(node),
            _ => None,
        };
        if let Some(target) = target {
            collect_identifiers(target, source, &mut names);
        }
    });
    names
}

fn collect_identifiers(node: Node, source: &str, names: &mut BTreeSet<String>) {
    walk(node, &mut |n| {
        if n.kind() == "identifier" {
            // A default value's names are uses, not bindings: `def f(x=len)`.
            let in_default = n.parent().is_some_and(|p| {
                matches!(p.kind(), "default_parameter" | "typed_default_parameter")
                    && p.child_by_field_name("value") == Some(n)
            });
            if !in_default {
                names.insert(text(n, source).to_string());
            }
        }
    });
}
