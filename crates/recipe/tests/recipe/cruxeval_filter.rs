//! CRUXEval's 800 samples passed the original recipe's filter: run ours over them. Every sample it
//! rejects is listed below with the reason (a difference in how a rule is read, or an engine
//! difference); the test fails on any other rejection and on a listed one that now passes, and
//! every kept sample's computed output must equal the dataset's.
//!
//! Slow in a debug build: `cargo test --release --workspace --test recipe cruxeval_filter::`.

use std::collections::BTreeMap;

use execbench_pyengine::RustPythonEngine;
use execbench_recipe::{Candidate, Rule, filter_one};

const DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

/// (sample id, the rule it breaks here, why the original filter let it through). Both directions
/// are checked: a rejection not listed fails, and so does a listed sample that is now kept.
const EXCEPTIONS: &[(&str, Rule, &str)] = &[
    ("sample_510", Rule::UnusedArgument, "argument `e` is never used: the original check let it through"),
    ("sample_593", Rule::UnusedArgument, "argument `n` is never used: the original check let it through"),
    ("sample_5", Rule::CodeLength, LONGER_SNIPPET),   // 303 characters
    ("sample_175", Rule::CodeLength, LONGER_SNIPPET), // 302 characters
    ("sample_418", Rule::CodeLength, LONGER_SNIPPET), // 301 characters
    ("sample_623", Rule::CodeLength, LONGER_SNIPPET), // 303 characters
];

/// The rule measures the code with `assert f(<input>) == ??`, the test line as the recipe
/// generated it before the output was known: 78 to 303 characters over the released 800, so four
/// are just over 300. The published code is CRUXEval's clean-up of what was measured, not the same
/// bytes. (The code alone is 30 to 278 characters, 133 under 75; with the true output, 22 are over.)
const LONGER_SNIPPET: &str = "function plus `assert f(input) == ??` 1 to 3 characters over 300 in the published text";

#[test]
fn cruxeval_passes_the_filter_but_for_the_listed_exceptions() {
    let text = std::fs::read_to_string(DATASET).expect("the bundled CRUXEval file");
    let samples = execbench_core::load_jsonl("cruxeval.jsonl", &text).samples;
    assert_eq!(samples.len(), 800);
    let mut engine = RustPythonEngine::new();
    let mut rejected = BTreeMap::new();
    let mut wrong_output = Vec::new();
    for sample in &samples {
        let candidate =
            Candidate { id: sample.id.clone(), method: None, code: sample.code.clone(), input: sample.input.clone() };
        match filter_one(&mut engine, &candidate) {
            execbench_recipe::Verdict::Kept { output } => {
                if output != sample.output {
                    wrong_output.push(format!("{}: {} vs {}", sample.id, output, sample.output));
                }
            }
            execbench_recipe::Verdict::Rejected(r) => {
                rejected.insert(sample.id.clone(), (r.rule, r.detail.clone()));
            }
        }
    }
    for (id, (rule, detail)) in &rejected {
        println!("{id}\t{}\t{detail}", rule.id());
    }
    println!("rejected {} of 800; outputs differing {}", rejected.len(), wrong_output.len());
    for w in &wrong_output {
        println!("output: {w}");
    }
    let expected: BTreeMap<String, Rule> = EXCEPTIONS.iter().map(|(id, rule, _)| (id.to_string(), *rule)).collect();
    let got: BTreeMap<String, Rule> = rejected.iter().map(|(id, (rule, _))| (id.clone(), *rule)).collect();
    assert_eq!(got, expected);
    assert!(wrong_output.is_empty(), "kept with another output than the dataset's:\n{}", wrong_output.join("\n"));
    assert_eq!(800 - rejected.len(), 794, "kept");
}
