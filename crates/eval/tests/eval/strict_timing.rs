//! Strict output scoring needs no engine: this scores 800 samples x 10 answers (each sample's
//! right answer and nine near misses) and prints how long it took. Nothing is asserted about
//! time; the scores are checked.

use crate::common;

use std::time::Instant;

use execbench_eval::score::{Expected, judge};
use execbench_eval::{Extraction, Mode, ScoreOptions, Task, extract};

struct NoEngine;

impl execbench_core::PythonEngine for NoEngine {
    fn run(&mut self, _: &execbench_core::RunRequest) -> execbench_core::RunResult {
        panic!("strict output scoring must not run code")
    }
}

#[test]
fn strict_output_scoring_of_800_by_10_answers() {
    let samples = common::cruxeval();
    let responses: Vec<Vec<String>> = samples
        .iter()
        .map(|s| {
            let mut answers = vec![s.output.clone()];
            answers.extend(["None", "0", "''", "[]", "1.0", "True", "(1,)", "{'a': 1}"].map(String::from));
            answers.push(format!("{} or True", s.output));
            answers
                .into_iter()
                .map(|a| format!("Some reasoning.\n[ANSWER]\nassert {} == {a}\n[/ANSWER]", s.call))
                .collect()
        })
        .collect();
    let started = Instant::now();
    let mut correct = 0;
    for (sample, responses) in samples.iter().zip(&responses) {
        let expected = Expected::of(sample);
        for response in responses {
            let extraction: Extraction = extract(response, Task::Output);
            let verdict = judge(
                &mut NoEngine,
                sample,
                Task::Output,
                Mode::Strict,
                &extraction,
                &expected,
                &ScoreOptions::default(),
            );
            correct += usize::from(verdict.is_correct());
        }
    }
    let elapsed = started.elapsed();
    eprintln!(
        "extract + strict-score 800 x 10 output answers: {:.0} ms ({:.1} µs per answer)",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e6 / 8000.0
    );
    // Each sample's own output is right; a near miss is right only when it equals the output.
    let coincidences = samples
        .iter()
        .filter(|s| ["None", "0", "''", "[]", "1.0", "True", "(1,)", "{'a': 1}"].contains(&s.output.as_str()))
        .count();
    assert_eq!(correct, 800 + coincidences);
}

#[test]
fn every_cruxeval_output_is_a_literal_and_every_call_is_acceptable_in_strict_mode() {
    let samples = common::cruxeval();
    let mut problems = Vec::new();
    for s in &samples {
        if let Err(e) = execbench_eval::parse_literal(&s.output) {
            problems.push(format!("{} output: {e}", s.id));
        }
        if extract(&format!("[ANSWER]assert {} == {}[/ANSWER]", s.call, s.output), Task::Input).answer()
            != Some(s.call.as_str())
        {
            problems.push(format!("{} call does not round-trip through extraction", s.id));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
