//! The filter's questions about a parse (`execbench-pysyntax` parses): the names a program binds.

use std::collections::BTreeSet;

use execbench_pysyntax::{Node, Tree};
pub use execbench_pysyntax::{first_error, text, walk};

/// Parses Python; `None` only if tree-sitter itself fails (never on bad code: that gives a tree
/// with error nodes).
pub fn parse(source: &str) -> Option<Tree> {
    execbench_pysyntax::parse(source, None).ok()
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
