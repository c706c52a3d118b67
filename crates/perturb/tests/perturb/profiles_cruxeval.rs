//! The two profiles compared on all 800 CRUXEval samples, seeds 0..4 (one a sample in the test
//! command, all five under `scripts/fuzz.sh`: sweep.rs), with the figures of the
//! docs' table (docs/perturbations.md, printed here as Markdown): programs changed, value claims
//! per program (MCC/MPS), rows whose message happens to be true, new `else` clauses (GBC,
//! PSC_ALL). Each figure is also checked per program against a bound read from the syntax trees of
//! the original and the output (parsed here, independently of the kinds' own analysis), so a kind
//! that drifts from its description fails. Verification by execution is tests/perturb/verify_cruxeval.rs.
//! Under the codecrash profile the programs are first normalised by `ast.unparse` (in RustPython),
//! as the command line and the page do.

use execbench_core::{Limits, Sample};
use execbench_perturb::kinds::comments::value_claims;
use execbench_perturb::normalise::normalise;
use execbench_perturb::{Kind, Options, Profile, perturb_row, perturb_sample};
use execbench_pyengine::RustPythonEngine;
use tree_sitter::{Node, Tree};

const DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

fn parse(code: &str) -> Tree {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).expect("grammar loads");
    parser.parse(code, None).expect("a tree")
}

fn nodes(tree: &Tree) -> Vec<Node<'_>> {
    let mut stack = vec![tree.root_node()];
    let mut all = Vec::new();
    while let Some(node) = stack.pop() {
        all.push(node);
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    all
}

/// Whether `node` is the first thing on its line.
fn starts_line(code: &str, node: Node) -> bool {
    let line_start = code[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    code[line_start..node.start_byte()].chars().all(|c| c == ' ' || c == '\t')
}

/// What the syntax tree says about one program.
struct Shape {
    returns: usize,
    /// `return` statements that begin their line: each can take a print before it, and (with
    /// nothing before it on the line) a comment of its own.
    returns_on_own_line: usize,
    else_clauses: usize,
}

fn shape(code: &str) -> Shape {
    let tree = parse(code);
    let all = nodes(&tree);
    let returns: Vec<&Node> = all.iter().filter(|n| n.kind() == "return_statement").collect();
    Shape {
        returns: returns.len(),
        returns_on_own_line: returns.iter().filter(|r| starts_line(code, ***r)).count(),
        else_clauses: all.iter().filter(|n| n.kind() == "else_clause").count(),
    }
}

/// Python literals that are their type's do-nothing value, written out here rather than taken
/// from the library: the outputs about which a codecrash return message is true.
fn is_do_nothing_value(output: &str) -> bool {
    ["''", "\"\"", "0", "0.0", "False", "None", "[]", "()", "{}", "set()", "b''"].contains(&output.trim())
}

#[derive(Default)]
struct Figures {
    rows: usize,
    changed: usize,
    claims: usize,
    message_true: usize,
    with_new_else: usize,
    new_else: usize,
    /// Programs the perturbation refused (over every seed).
    refused: usize,
}

/// The programs as CodeCrash perturbs them: normalised by `ast.unparse`, run in RustPython.
fn normalised(samples: &[Sample]) -> Vec<Sample> {
    let mut engine = RustPythonEngine::new();
    let limits = Limits { time_ms: 5_000, max_steps: 0 };
    samples
        .iter()
        .map(|s| normalise(&mut engine, s, Some(limits)).unwrap_or_else(|e| panic!("{}: {e}", s.id)))
        .collect()
}

#[test]
fn profiles_on_cruxeval_within_bounds_read_from_the_trees() {
    let Ok(text) = std::fs::read_to_string(DATASET) else {
        panic!("{DATASET} is missing: this test needs the shared CRUXEval file");
    };
    let samples = execbench_core::load_jsonl("cruxeval.jsonl", &text).samples;
    assert_eq!(samples.len(), 800);
    let normalised = normalised(&samples);
    let mut problems = Vec::new();
    let mut table = vec!["| kind | profile | programs changed | value claims / program | message true | programs with a new `else` | new `else` / program |".to_string(), "|---|---|---|---|---|---|---|".to_string()];
    let mut by_row = std::collections::BTreeMap::new();
    for kind in [Kind::Ren, Kind::Gbc, Kind::PscAll, Kind::Mcc, Kind::Mps] {
        for profile in Profile::ALL {
            let programs = if profile == Profile::Codecrash { &normalised } else { &samples };
            let shapes: Vec<Shape> = programs.iter().map(|s| shape(&s.code)).collect();
            let mut f = Figures::default();
            for (position, (sample, original)) in programs.iter().zip(&shapes).enumerate() {
                for seed in crate::sweep::seeds_of(position) {
                    let options = Options { profile, ..Options::with_seed(seed) };
                    let id = format!("{kind} {profile} seed {seed} {}", sample.id);
                    let Ok(out) = perturb_sample(sample, kind, &options) else {
                        f.refused += 1;
                        continue;
                    };
                    f.rows += 1;
                    f.changed += usize::from(out.code != sample.code);
                    let after = shape(&out.code);
                    let new_else = after.else_clauses.saturating_sub(original.else_clauses);
                    f.new_else += new_else;
                    f.with_new_else += usize::from(new_else > 0);
                    // GBC adds five pieces; only the codecrash profile opens `else` clauses.
                    let most_else =
                        if profile == Profile::Codecrash && matches!(kind, Kind::Gbc | Kind::PscAll) { 5 } else { 0 };
                    if new_else > most_else {
                        problems.push(format!("{id}: {new_else} new else clauses (at most {most_else})"));
                    }
                    // CodeCrash renames top-level functions only: PSC_ALL's garbage functions keep
                    // their names (or become `f{i}` at the top level), never `Var_k`.
                    if profile == Profile::Codecrash && kind == Kind::PscAll && out.code.contains("def Var_") {
                        problems.push(format!("{id}: a function renamed `Var_k`:\n{}", out.code));
                    }
                    if matches!(kind, Kind::Mcc | Kind::Mps) {
                        let claims = value_claims(sample, kind, &options).expect("perturbed above");
                        f.claims += claims;
                        let row = perturb_row(sample, "cruxeval", kind, &options).expect("perturbed above");
                        f.message_true += usize::from(row.message_true);
                        if profile == Profile::Codecrash {
                            // One claim per return site and nowhere else (p = 1): MPS prints before
                            // every return that begins its line; MCC comments at least there.
                            let (low, high) = if kind == Kind::Mps {
                                (original.returns_on_own_line, original.returns_on_own_line)
                            } else {
                                (original.returns_on_own_line, original.returns)
                            };
                            if !(low..=high).contains(&claims) {
                                problems.push(format!("{id}: {claims} value claims, expected {low}..={high}"));
                            }
                            if row.message_true != (claims > 0 && is_do_nothing_value(&sample.output)) {
                                problems.push(format!(
                                    "{id}: message_true {} for output {}",
                                    row.message_true, sample.output
                                ));
                            }
                        } else if row.message_true {
                            problems.push(format!("{id}: a true message under the execbench profile"));
                        }
                    }
                }
            }
            let per = |n: usize| n as f64 / f.rows.max(1) as f64;
            let claims =
                if matches!(kind, Kind::Mcc | Kind::Mps) { format!("{:.2}", per(f.claims)) } else { "-".to_string() };
            let message_true = if matches!(kind, Kind::Mcc | Kind::Mps) {
                format!("{} ({:.1}%)", f.message_true, 100.0 * per(f.message_true))
            } else {
                "-".to_string()
            };
            table.push(format!(
                "| {kind} | {profile} | {} of {} ({:.1}%) | {claims} | {message_true} | {} ({:.1}%) | {:.2} |",
                f.changed,
                f.rows,
                100.0 * per(f.changed),
                f.with_new_else,
                100.0 * per(f.with_new_else),
                per(f.new_else)
            ));
            by_row.insert((kind, profile), f);
        }
    }
    eprintln!("{}", table.join("\n"));
    // What the profiles are for, as aggregate bounds: codecrash names fewer values in MCC/MPS
    // (return messages only) and opens `else` clauses in a sizeable share of GBC programs.
    for kind in [Kind::Mcc, Kind::Mps] {
        let (ours, theirs) = (&by_row[&(kind, Profile::Execbench)], &by_row[&(kind, Profile::Codecrash)]);
        assert!(theirs.claims < ours.claims, "{kind}: codecrash claims {} >= execbench {}", theirs.claims, ours.claims);
        assert!(
            theirs.message_true > 0 && ours.message_true == 0,
            "{kind}: true messages {} / {}",
            theirs.message_true,
            ours.message_true
        );
    }
    let gbc = &by_row[&(Kind::Gbc, Profile::Codecrash)];
    assert!(
        (gbc.rows / 5..=gbc.rows * 9 / 10).contains(&gbc.with_new_else),
        "GBC codecrash: {} of {} with a new else",
        gbc.with_new_else,
        gbc.rows
    );
    // Refusals are counted, not skipped quietly: every kind perturbs each of CRUXEval's 800 under
    // both profiles and every seed (a refusal would also shrink the figures above unseen).
    let refused: Vec<String> = by_row
        .iter()
        .filter(|(_, f)| f.refused > 0)
        .map(|((kind, profile), f)| format!("{kind} {profile}: {} refused", f.refused))
        .collect();
    assert!(refused.is_empty(), "programs refused ({} seeds a sample): {refused:?}", crate::sweep::seeds_of(0).count());
    // REN renames the same programs under both profiles.
    assert_eq!(by_row[&(Kind::Ren, Profile::Execbench)].changed, by_row[&(Kind::Ren, Profile::Codecrash)].changed);
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// REN under codecrash numbers variables in alphabetical order of their original names: read from
/// the edits (original name -> `Var_k`), k grows with the name on every sample.
#[test]
fn codecrash_ren_numbers_follow_the_names_on_cruxeval() {
    let text = std::fs::read_to_string(DATASET).expect("the shared CRUXEval file");
    let samples = execbench_core::load_jsonl("cruxeval.jsonl", &text).samples;
    let options = Options { profile: Profile::Codecrash, ..Options::default() };
    let (mut checked, mut refused) = (0, 0);
    for sample in &samples {
        let Ok(out) = perturb_sample(sample, Kind::Ren, &options) else {
            refused += 1;
            continue;
        };
        let mut pairs: Vec<(String, usize)> = out
            .edits
            .iter()
            .filter_map(|e| e.after.strip_prefix("Var_").and_then(|k| k.parse().ok()).map(|k| (e.before.clone(), k)))
            .collect();
        pairs.sort();
        pairs.dedup();
        let numbers: Vec<usize> = pairs.iter().map(|(_, k)| *k).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{}: {pairs:?}", sample.id);
        checked += usize::from(numbers.len() > 1);
    }
    assert!(checked > 600, "only {checked} samples with two or more renamed variables");
    assert_eq!(refused, 0, "samples REN refused under codecrash");
}
