//! Every kind, seeds 0..4, under both profiles (execbench, codecrash; RTF and MHC have one
//! behaviour), on all 800 CRUXEval samples: the output parses (the engine re-parses and
//! errors on ERROR/MISSING nodes; this test parses again independently), the same inputs give the
//! same bytes twice, and each kind changes every program it has something to change in (decided
//! here from the syntax tree, not by the kinds' own analysis), so a kind that silently does nothing
//! fails. Elapsed times are printed, not asserted.

use execbench_perturb::{Kind, Options, Profile, perturb_sample, syntax};
use tree_sitter::Node;

const DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

fn parses(code: &str) -> bool {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).expect("grammar loads");
    parser.parse(code, None).is_some_and(|t| !t.root_node().has_error())
}

/// What a program offers the kinds, read from its tree.
struct Offers {
    /// An `if`, `elif` or `while` (RTF rewrites every condition).
    condition: bool,
    /// The tested function takes a parameter (REN renames it; GBC shadows about half of them).
    parameter: bool,
    /// The tested function's body starts on its own line (GBC's dead code and MPS's print for the
    /// definition can go there).
    body_on_own_lines: bool,
}

fn offers(code: &str, function_name: &str) -> Offers {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).expect("grammar loads");
    let tree = parser.parse(code, None).expect("a tree");
    let mut nodes = vec![tree.root_node()];
    let mut all: Vec<Node> = Vec::new();
    while let Some(node) = nodes.pop() {
        all.push(node);
        let mut cursor = node.walk();
        nodes.extend(node.children(&mut cursor));
    }
    let condition = all.iter().any(|n| matches!(n.kind(), "if_statement" | "elif_clause" | "while_statement"));
    let tested = all.iter().find(|n| {
        n.kind() == "function_definition"
            && n.parent().is_some_and(|p| p.kind() == "module" || p.kind() == "decorated_definition")
            && n.child_by_field_name("name").is_some_and(|name| &code[name.byte_range()] == function_name)
    });
    let parameter = tested.and_then(|f| f.child_by_field_name("parameters")).is_some_and(|p| p.named_child_count() > 0);
    let body_on_own_lines = tested.is_some_and(|f| {
        f.child_by_field_name("body")
            .and_then(|b| b.named_child(0))
            .is_some_and(|first| first.start_position().row > f.start_position().row)
    });
    Offers { condition, parameter, body_on_own_lines }
}

/// Whether `kind` must change a program that offers `o` (with the default options, `p = 1`).
fn must_change(kind: Kind, o: &Offers) -> bool {
    match kind {
        Kind::Rtf => o.condition,
        Kind::Ren => o.parameter,
        Kind::Gbc | Kind::PscAll => o.parameter || o.body_on_own_lines,
        Kind::Mps => o.body_on_own_lines,
        // Every program has a definition line for MCC's comment and a place for MHC's hint.
        Kind::Mcc | Kind::Mhc => true,
    }
}

fn reparse_matches_fresh_parse(original: &str, perturbed: &str, edits: &[execbench_perturb::Edit]) -> bool {
    let (Ok(old), Ok(fresh)) = (syntax::parse(original), syntax::parse(perturbed)) else { return false };
    syntax::reparse(&old, perturbed, edits).is_ok_and(|t| t.root_node().to_sexp() == fresh.root_node().to_sexp())
}

#[test]
fn all_kinds_all_seeds_parse_and_are_deterministic() {
    let Ok(text) = std::fs::read_to_string(DATASET) else {
        panic!("{DATASET} is missing: this test needs the shared CRUXEval file");
    };
    let samples = execbench_core::load_jsonl("cruxeval.jsonl", &text).samples;
    assert_eq!(samples.len(), 800);
    let mut problems = Vec::new();
    let offered: Vec<Offers> = samples.iter().map(|s| offers(&s.code, &s.function_name)).collect();
    let with_conditions = offered.iter().filter(|o| o.condition).count();
    // CRUXEval has many programs without any `if`/`elif`/`while`: RTF leaves those as they are.
    assert!((300..600).contains(&with_conditions), "{with_conditions} programs with a condition");
    let runs = Kind::ALL.into_iter().flat_map(|kind| {
        let profiles: &[Profile] =
            if matches!(kind, Kind::Rtf | Kind::Mhc) { &[Profile::Execbench] } else { &Profile::ALL };
        profiles.iter().map(move |profile| (kind, *profile))
    });
    for (kind, profile) in runs {
        let started = std::time::Instant::now();
        let mut changed = 0;
        let mut expected = 0;
        for (position, (sample, offers)) in samples.iter().zip(&offered).enumerate() {
            for seed in crate::sweep::seeds_of(position) {
                let options = Options { profile, ..Options::with_seed(seed) };
                let first = perturb_sample(sample, kind, &options);
                let second = perturb_sample(sample, kind, &options);
                match (&first, &second) {
                    (Ok(a), Ok(b)) => {
                        if a != b {
                            problems.push(format!("{kind} {profile} seed {seed} {}: not deterministic", sample.id));
                        }
                        if !parses(&a.code) || !parses(&a.call) {
                            problems.push(format!("{kind} {profile} seed {seed} {}: output does not parse", sample.id));
                        }
                        // The engine checks outputs by re-parsing after the edits: that must give
                        // the tree a fresh parse gives (single-stage kinds report edits to the input).
                        if kind != Kind::PscAll && !reparse_matches_fresh_parse(&sample.code, &a.code, &a.edits) {
                            problems.push(format!(
                                "{kind} {profile} seed {seed} {}: re-parse after edits differs from a fresh parse",
                                sample.id
                            ));
                        }
                        let did_change = a.code != sample.code;
                        changed += usize::from(did_change);
                        expected += usize::from(must_change(kind, offers));
                        if must_change(kind, offers) && !did_change {
                            problems.push(format!("{kind} {profile} seed {seed} {}: left unchanged, though the program offers something to change", sample.id));
                        }
                        if kind == Kind::Rtf && did_change && !offers.condition {
                            problems
                                .push(format!("RTF seed {seed} {}: changed a program without conditions", sample.id));
                        }
                    }
                    (Err(e), _) => problems.push(format!("{kind} {profile} seed {seed} {}: {e}", sample.id)),
                    (Ok(_), Err(e)) => {
                        problems.push(format!("{kind} {profile} seed {seed} {}: second run failed: {e}", sample.id))
                    }
                }
            }
        }
        let build = if cfg!(debug_assertions) { "debug" } else { "release" };
        let runs = crate::sweep::runs(samples.len());
        eprintln!(
            "{kind} ({profile}): 2 x {runs} perturbations in {:?} ({build} build), {changed} of {runs} changed the code ({expected} had to), {} left as they were",
            started.elapsed(),
            runs - changed
        );
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
