//! MCC and MPS: a message that contradicts the code, as an end-of-line comment (MCC) or as a
//! `print("...")` line (MPS), at these sites: function definitions, returns, loops, conditionals
//! (`if`/`elif`), assignments, arithmetic (binary-operation and augmented assignments), and calls
//! of common list/str/dict methods. A statement is one site; method calls win over arithmetic,
//! which wins over plain assignment.
//!
//! MCC puts the comment at the end of the statement's last line (for compound statements: of the
//! header line), never inside a multi-line string or after a backslash; one comment per line.
//! MPS puts the print before the statement at its indentation; for `def` and `elif` it becomes the
//! first statement of the body (after a docstring), since nothing may go between `elif` and `if`.
//!
//! Under the `codecrash` profile, as CodeCrash does it: only the return messages name a value, and
//! that value is the type's "useless" one (`False`, zero, an empty list, ...) even when it is the
//! true output (such rows are flagged, see [`message_true`]); the other categories use messages
//! that name no value. `once` takes, per category, the first site in source order that passes the
//! coin flip. MPS prints for an `if` as the first line of its body.

use execbench_pysyntax::{Node, Tree};

use crate::edit::TextEdit;
use crate::messages::{Category, Fill, METHODS, codecrash_useless_value, pool, render, useless_value};
use crate::rng::Rng;
use crate::scope::Analysis;
use crate::syntax::NodeKind;
use crate::syntax::{
    self, comment_fits_at, indent_of_line_start, line_end, line_start, named_children, newline_of, preorder, text,
};
use crate::{Kind, Options, PerturbError, Profile, Program};

#[derive(Clone, Debug)]
struct Site {
    category: Category,
    /// MCC: where the comment goes (a line end), when it can go there.
    comment_at: Option<usize>,
    /// MPS: where the print line goes (a line start) and its indentation.
    print_at: Option<(usize, String)>,
    fill: Fill,
}

/// `tree` is the program's syntax tree.
pub fn misleading(
    program: &Program,
    tree: &Tree,
    expected_output: &str,
    kind: Kind,
    options: &Options,
    rng: &mut Rng,
) -> Result<Vec<TextEdit>, PerturbError> {
    misleading_counted(program, tree, expected_output, kind, options, rng).map(|(edits, _)| edits)
}

/// How many of the messages `kind` places in `sample` name a value (the same draws as
/// [`crate::perturb_sample`], so the same messages).
pub fn value_claims(sample: &execbench_core::Sample, kind: Kind, options: &Options) -> Result<usize, PerturbError> {
    if !matches!(kind, Kind::Mcc | Kind::Mps) {
        return Ok(0);
    }
    let tree = syntax::parse_valid(&sample.code, "the code")?;
    let program =
        Program { code: sample.code.clone(), call: sample.call.clone(), function_name: sample.function_name.clone() };
    let mut rng = Rng::new(crate::rng::derive_seed(&sample.id, kind.name(), options.seed));
    misleading_counted(&program, &tree, &sample.output, kind, options, &mut rng).map(|(_, claims)| claims)
}

/// Whether a codecrash-profile MCC/MPS row states the right answer: some message names the
/// output's "useless" value and the output is that value (`False` for a function that returns
/// `False`). Never true under the execbench profile, whose phrase avoids the output.
pub fn message_true(sample: &execbench_core::Sample, kind: Kind, options: &Options) -> bool {
    options.profile == Profile::Codecrash
        && matches!(kind, Kind::Mcc | Kind::Mps)
        && codecrash_useless_value(&sample.output).1
        && value_claims(sample, kind, options).is_ok_and(|claims| claims > 0)
}

/// [`misleading`] and how many of its messages name a value.
fn misleading_counted(
    program: &Program,
    tree: &Tree,
    expected_output: &str,
    kind: Kind,
    options: &Options,
    rng: &mut Rng,
) -> Result<(Vec<TextEdit>, usize), PerturbError> {
    if !(0.0..=1.0).contains(&options.p) {
        return Err(PerturbError::InvalidInput(format!("p must be between 0 and 1, got {}", options.p)));
    }
    let code = &program.code;
    let root = tree.root_node();
    // Only code that mentions `print` can bind it: skip the analysis for all the rest.
    if kind == Kind::Mps && code.contains("print") && Analysis::of(root, code).bound_anywhere("print") {
        return Err(PerturbError::Unsupported("MPS: the code defines its own `print`".to_string()));
    }
    let codecrash = options.profile == Profile::Codecrash;
    let useless =
        if codecrash { codecrash_useless_value(expected_output).0 } else { useless_value(expected_output) }.to_string();
    let mut sites = find_sites(root, code, &useless, options.profile);
    // Keep only sites this kind can use, one comment per line.
    sites.retain(|s| if kind == Kind::Mcc { s.comment_at.is_some() } else { s.print_at.is_some() });
    if kind == Kind::Mcc {
        let mut seen = std::collections::BTreeSet::new();
        sites.retain(|s| seen.insert(s.comment_at));
    }
    let chosen: Vec<&Site> = if options.once && codecrash {
        // In source order, each category's first site that passes the coin flip.
        let mut done = std::collections::BTreeSet::new();
        sites
            .iter()
            .filter(|s| !done.contains(&s.category) && rng.chance(options.p) && done.insert(s.category))
            .collect()
    } else if options.once {
        Category::ALL
            .iter()
            .filter_map(|category| {
                let of_category: Vec<&Site> = sites.iter().filter(|s| s.category == *category).collect();
                let site = rng.pick(&of_category).copied();
                site.filter(|_| rng.chance(options.p))
            })
            .collect()
    } else {
        sites.iter().filter(|_| rng.chance(options.p)).collect()
    };
    let newline = newline_of(code);
    let mut edits = Vec::new();
    let mut claims = 0;
    for site in chosen {
        let full = pool(site.category);
        // codecrash: return messages always name the value, the others never do.
        let names_value = |t: &&String| t.contains("{useless}") == (site.category == Category::Return);
        let templates: Vec<&String> =
            if codecrash { full.iter().filter(names_value).collect() } else { full.iter().collect() };
        let template = rng.pick(&templates).map(|t| t.to_string()).unwrap_or_default();
        let message = render(&template, &site.fill);
        let placed = match kind {
            Kind::Mcc => site.comment_at.map(|at| TextEdit::insert(at, format!("  # {message}"))),
            _ => site.print_at.as_ref().map(|(at, indent)| {
                TextEdit::insert(*at, format!("{indent}print({}){newline}", python_string(&message)))
            }),
        };
        if let Some(edit) = placed {
            claims += usize::from(template.contains("{useless}"));
            edits.push(edit);
        }
    }
    Ok((edits, claims))
}

/// A double-quoted Python string literal with exactly `text` as its value.
pub fn python_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text short enough and on one line to quote in a message; otherwise a description.
fn quotable(node: Node, code: &str, otherwise: &str) -> String {
    let t = text(node, code);
    if t.len() <= 40 && !t.contains('\n') && !t.contains('\r') { t.to_string() } else { otherwise.to_string() }
}

/// The `:` that ends a compound statement's header (the last one before the body).
fn header_colon<'t>(node: Node<'t>, body_field: &str) -> Option<Node<'t>> {
    let body = node.child_by_field_name(body_field)?;
    syntax::children(node).into_iter().rfind(|c| c.kind_name() == ":" && c.end_byte() <= body.start_byte())
}

fn comment_position(code: &str, root: Node, byte: usize) -> Option<usize> {
    let at = line_end(code, byte);
    comment_fits_at(code, root, at).then_some(at)
}

/// A print before `statement`, when it starts its line.
fn print_before(code: &str, statement: Node) -> Option<(usize, String)> {
    indent_of_line_start(code, statement).map(|indent| (line_start(code, statement.start_byte()), indent))
}

/// A print as the first statement of `block` (after a docstring when `skip_docstring`).
fn print_inside(code: &str, block: Node, skip_docstring: bool) -> Option<(usize, String)> {
    let statements: Vec<Node> = named_children(block).into_iter().filter(|n| n.kind_name() != "comment").collect();
    let is_docstring = |s: &Node| {
        s.kind_name() == "expression_statement"
            && named_children(*s).first().is_some_and(|e| matches!(e.kind_name(), "string" | "concatenated_string"))
    };
    let first = if skip_docstring && statements.first().is_some_and(is_docstring) {
        statements.get(1)?
    } else {
        statements.first()?
    };
    print_before(code, *first)
}

/// The first call of a listed method inside `node`: (receiver, method).
fn method_call(node: Node, code: &str) -> Option<(String, String)> {
    preorder(node).into_iter().find_map(|n| {
        if n.kind_name() != "call" {
            return None;
        }
        let function = n.child_by_field_name("function").filter(|f| f.kind_name() == "attribute")?;
        let method = text(function.child_by_field_name("attribute")?, code);
        let receiver = function.child_by_field_name("object")?;
        METHODS.contains(&method).then(|| (quotable(receiver, code, "the object"), method.to_string()))
    })
}

fn find_sites(root: Node, code: &str, useless: &str, profile: Profile) -> Vec<Site> {
    let mut sites = Vec::new();
    let base = Fill { useless: useless.to_string(), ..Fill::default() };
    let mut current_function = String::from("the function");
    for node in preorder(root) {
        let site = match node.kind_name() {
            "function_definition" => {
                let name = node.child_by_field_name("name").map(|n| text(n, code).to_string()).unwrap_or_default();
                current_function = name.clone();
                let colon = header_colon(node, "body");
                Some(Site {
                    category: Category::Function,
                    comment_at: colon.and_then(|c| comment_position(code, root, c.end_byte())),
                    print_at: node.child_by_field_name("body").and_then(|b| print_inside(code, b, true)),
                    fill: Fill { func: name, ..base.clone() },
                })
            }
            "for_statement" | "while_statement" | "if_statement" | "elif_clause" => {
                let (category, body) = match node.kind_name() {
                    "for_statement" | "while_statement" => (Category::Loop, "body"),
                    _ => (Category::Condition, "consequence"),
                };
                // codecrash: an `if` prints as the first line of its body, as `elif` always does.
                let inside = node.kind_name() == "elif_clause"
                    || (node.kind_name() == "if_statement" && profile == Profile::Codecrash);
                let print_at = if inside {
                    node.child_by_field_name(body).and_then(|b| print_inside(code, b, false))
                } else {
                    print_before(code, node)
                };
                Some(Site {
                    category,
                    comment_at: header_colon(node, body).and_then(|c| comment_position(code, root, c.end_byte())),
                    print_at,
                    fill: base.clone(),
                })
            }
            "return_statement" => Some(Site {
                category: Category::Return,
                comment_at: comment_position(code, root, node.end_byte()),
                print_at: print_before(code, node),
                fill: Fill { func: current_function.clone(), ..base.clone() },
            }),
            "expression_statement" => statement_site(node, code, &base).map(|(category, fill)| Site {
                category,
                comment_at: comment_position(code, root, node.end_byte()),
                print_at: print_before(code, node),
                fill,
            }),
            _ => None,
        };
        sites.extend(site);
    }
    sites
}

fn statement_site(statement: Node, code: &str, base: &Fill) -> Option<(Category, Fill)> {
    if let Some((receiver, method)) = method_call(statement, code) {
        return Some((Category::MethodCall, Fill { receiver, method, ..base.clone() }));
    }
    let inner = named_children(statement).into_iter().next()?;
    let target = || inner.child_by_field_name("left").map(|l| quotable(l, code, "the result")).unwrap_or_default();
    match inner.kind_name() {
        "augmented_assignment" => Some((Category::Arithmetic, Fill { var: target(), ..base.clone() })),
        "assignment" if inner.child_by_field_name("right").is_some_and(|r| r.kind_name() == "binary_operator") => {
            Some((Category::Arithmetic, Fill { var: target(), ..base.clone() }))
        }
        "assignment" if inner.child_by_field_name("right").is_some() => {
            Some((Category::Assignment, Fill { var: target(), ..base.clone() }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perturb;

    const CODE: &str = "def f(xs, n):\n    total = 0\n    total = total + n\n    xs.append(n)\n    for x in xs:\n        if x > n:\n            total += x\n        elif x < 0:\n            pass\n    while n:\n        n -= 1\n    return total";

    fn run(code: &str, kind: Kind, options: Options) -> Result<String, PerturbError> {
        perturb(code, "f", "f([1], 2)", "3", kind, &options, "t").map(|p| p.code)
    }

    /// (line, category) of every site, by line number (0-based).
    #[test]
    fn sites_and_their_categories() {
        let tree = syntax::parse(CODE).unwrap();
        let sites = find_sites(tree.root_node(), CODE, "zero", Profile::Execbench);
        let got: Vec<(usize, Category)> =
            sites.iter().map(|s| (CODE[..s.comment_at.unwrap()].matches('\n').count(), s.category)).collect();
        use Category::*;
        let expected = vec![
            (0, Function),
            (1, Assignment),
            (2, Arithmetic),
            (3, MethodCall),
            (4, Loop),
            (5, Condition),
            (6, Arithmetic),
            (7, Condition),
            (9, Loop),
            (10, Arithmetic),
            (11, Return),
        ];
        assert_eq!(got, expected);
        let method = sites.iter().find(|s| s.category == MethodCall).unwrap();
        assert_eq!((method.fill.receiver.as_str(), method.fill.method.as_str()), ("xs", "append"));
        assert_eq!(sites[2].fill.var, "total");
    }

    #[test]
    fn probability_and_once() {
        let count = |options: Options| run(CODE, Kind::Mcc, options).unwrap().matches("  # ").count();
        let cases = [
            (Options { p: 1.0, ..Options::default() }, 11..=11),
            (Options { p: 0.0, ..Options::default() }, 0..=0),
            (Options { p: 1.0, once: true, ..Options::default() }, 7..=7),
            (Options { p: 0.5, seed: 3, ..Options::default() }, 1..=10),
        ];
        for (options, range) in cases {
            assert!(range.contains(&count(options)), "{options:?}: {}", count(options));
        }
        assert!(run(CODE, Kind::Mcc, Options { p: 1.5, ..Options::default() }).is_err());
    }

    /// Comments never land inside a multi-line string or after a line continuation; the code
    /// before each comment is the original line.
    #[test]
    fn comments_keep_strings_and_continuations_intact() {
        let code = "def f(x):\n    s = \"\"\"a\nb\"\"\"\n    y = 1 + \\\n        2\n    return s + x";
        for seed in 0..10 {
            let out = run(code, Kind::Mcc, Options::with_seed(seed)).unwrap();
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines[1], "    s = \"\"\"a", "{out}");
            assert!(lines[2].starts_with("b\"\"\"  # "), "{out}");
            assert_eq!(lines[3], "    y = 1 + \\", "{out}");
            assert!(lines[4].starts_with("        2  # "), "{out}");
        }
    }

    #[test]
    fn prints_go_at_the_right_places() {
        let code = "def f(x):\n    \"\"\"doc\"\"\"\n    if x: return 1\n    elif x < 0:\n        return 2\n    return ''.join(x)";
        let out = run(code, Kind::Mps, Options::default()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        // def: after the docstring; `if`: before it; `return 1` shares its line: no print;
        // elif: first in its body; returns: before them.
        let shape: Vec<bool> = lines.iter().map(|l| l.trim_start().starts_with("print(")).collect();
        assert_eq!(shape, vec![false, false, true, true, false, false, true, true, false, true, false], "{out}");
        assert!(lines[3].starts_with("    print("), "{out}");
        assert!(lines[6].starts_with("        print("), "{out}");
        assert!(run("print = len\ndef f(x):\n    return x", Kind::Mps, Options::default()).is_err());
    }

    fn codecrash(options: Options) -> Options {
        Options { profile: Profile::Codecrash, ..options }
    }

    /// codecrash: one value claim per return site and none elsewhere, naming the type's useless
    /// value; counted from the output's text (the phrase after "zero"-free messages) and from the
    /// draws (`value_claims`), and flagged true exactly when the output is that value.
    #[test]
    fn codecrash_names_a_value_only_at_returns() {
        let code = "def f(n):\n    total = 0\n    for i in range(n):\n        total += i\n    if total:\n        return total\n    return total";
        let returns = code.matches("return ").count();
        for kind in [Kind::Mcc, Kind::Mps] {
            for (output, true_claim) in [("6", false), ("0", true)] {
                for seed in 0..20 {
                    let options = codecrash(Options::with_seed(seed));
                    let sample = execbench_core::Sample::new("t", code, "f", "4", output);
                    let out = crate::perturb_sample(&sample, kind, &options).unwrap().code;
                    // Each claim is the return pool's "{useless}" rendered as "zero".
                    let return_messages: Vec<&str> =
                        pool(Category::Return).iter().filter(|t| t.contains("{useless}")).map(|t| t.as_str()).collect();
                    let claims = out
                        .lines()
                        .filter(|l| {
                            return_messages
                                .iter()
                                .any(|t| l.contains(&t.replace("{useless}", "zero").replace("{func}", "f")))
                        })
                        .count();
                    assert_eq!(claims, returns, "{kind} seed {seed}:\n{out}");
                    assert_eq!(value_claims(&sample, kind, &options).unwrap(), returns);
                    assert_eq!(message_true(&sample, kind, &options), true_claim, "{kind} {output}");
                    assert!(!message_true(&sample, kind, &Options::with_seed(seed)), "never under execbench");
                }
            }
        }
    }

    /// codecrash `once`: each category's first site (p = 1); execbench's may be any of them.
    #[test]
    fn codecrash_once_takes_the_first_site_of_each_category() {
        let once = codecrash(Options { once: true, ..Options::default() });
        for seed in 0..10 {
            let out = run(CODE, Kind::Mcc, Options { seed, ..once }).unwrap();
            let commented: Vec<usize> =
                out.lines().enumerate().filter(|(_, l)| l.contains("  # ")).map(|(i, _)| i).collect();
            // Function 0, assignment 1, arithmetic 2, method 3, loop 4, condition 5, return 11.
            assert_eq!(commented, vec![0, 1, 2, 3, 4, 5, 11], "seed {seed}:\n{out}");
        }
    }

    /// codecrash MPS: an `if` prints inside its body; loops still print before themselves.
    #[test]
    fn codecrash_if_prints_first_in_its_body() {
        let code = "def f(x):\n    while x > 3:\n        x -= 1\n    if x:\n        return 1\n    return 2";
        let out = run(code, Kind::Mps, codecrash(Options::default())).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let at = lines.iter().position(|l| l.trim_start().starts_with("if x:")).unwrap();
        assert!(lines[at + 1].starts_with("        print("), "{out}");
        assert!(!lines[at - 1].contains("print("), "nothing prints before the `if`: {out}");
        let loop_at = lines.iter().position(|l| l.trim_start().starts_with("while")).unwrap();
        assert!(lines[loop_at - 1].starts_with("    print("), "{out}");
    }

    #[test]
    fn print_strings_are_exact_literals() {
        let cases = [
            ("plain", "\"plain\""),
            ("a\"b", "\"a\\\"b\""),
            ("back\\slash", "\"back\\\\slash\""),
            ("''.join", "\"''.join\""),
        ];
        for (text, literal) in cases {
            assert_eq!(python_string(text), literal);
        }
    }
}
