//! Questions made from one sample's trace: the line, variable and run are chosen by a seeded
//! generator of the sample's own (so a sample's questions do not change when others are added or
//! dropped), and the truth is read from the trace.
//!
//! Rules that keep each truth unambiguous:
//! - coverage asks about a statement of a function's body (or an `if`/`elif`/`while`/`for`
//!   header); it ran if any of its lines gave a step. Lines that ran and lines that did not are
//!   picked equally often when both exist;
//! - state asks about a plain name a one-line assignment binds, right after a run of that line,
//!   when the value's `repr` is a literal execbench's parser reads (so it can be compared as one);
//! - path asks which line runs after a run of a one-line statement, when the next step is also a
//!   statement's first line, or nothing runs after it;
//! - steps on lines beyond the sample's code (the caller execbench appends for a `class Solution`
//!   method) are never asked about.

use execbench_core::Sample;
use execbench_core::rng::{Rng, fnv1a};
use execbench_core::trace::Trace;
use execbench_literal::parse_literal;

use crate::lines::ProgramLines;
use crate::question::{Question, QuestionKind, Source, Truth};

/// What to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MakeOptions {
    pub kinds: Vec<QuestionKind>,
    pub seed: u64,
    /// Questions of each kind per sample, at most (fewer when the run offers fewer).
    pub per_kind: usize,
    /// The dataset's name, kept in each question's source.
    pub dataset: String,
}

impl Default for MakeOptions {
    fn default() -> Self {
        MakeOptions { kinds: QuestionKind::ALL.to_vec(), seed: 0, per_kind: 1, dataset: String::new() }
    }
}

/// One sample's questions, and for each kind asked but not made, why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Made {
    pub questions: Vec<Question>,
    pub missing: Vec<(QuestionKind, String)>,
}

/// Why a sample gives no questions at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unusable {
    /// The trace stopped at its limit, so lines that seem not to run may have.
    Truncated,
    /// No line of the program's functions ran (the call raised before, or calls no function of the program).
    NoSteps,
    /// tree-sitter could not read the program.
    Unparsable,
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unusable::Truncated => {
                "the trace stopped at its step or size limit, so it cannot say which lines did not run"
            }
            Unusable::NoSteps => "no line of the program's functions ran",
            Unusable::Unparsable => "the program could not be parsed",
        })
    }
}

/// The questions `options` asks for about `sample`'s run, traced as `trace`.
pub fn make_questions(sample: &Sample, trace: &Trace, options: &MakeOptions) -> Result<Made, Unusable> {
    if trace.truncated {
        return Err(Unusable::Truncated);
    }
    if trace.steps.is_empty() {
        return Err(Unusable::NoSteps);
    }
    let lines = ProgramLines::read(&sample.code).ok_or(Unusable::Unparsable)?;
    let code_lines = sample.code.lines().count() as u32;
    let mut made = Made::default();
    for &kind in &options.kinds {
        let mut rng = Rng::new(fnv1a(format!("{}\u{0}{}\u{0}{}", options.seed, sample.id, kind.label()).as_bytes()));
        let picks = match kind {
            QuestionKind::Coverage => coverage(&lines, trace, code_lines, options.per_kind, &mut rng),
            QuestionKind::State => state(&lines, trace, code_lines, options.per_kind, &mut rng),
            QuestionKind::Path => path(&lines, trace, code_lines, options.per_kind, &mut rng),
            QuestionKind::Output => output(sample),
        };
        if picks.is_empty() {
            made.missing.push((kind, why_none(kind).to_owned()));
        }
        for (n, pick) in picks.into_iter().enumerate() {
            made.questions.push(Question {
                id: format!("{}/{}/{}", sample.id, kind.label(), n + 1),
                kind,
                code: sample.code.clone(),
                call: sample.call.clone(),
                line: pick.line,
                variable: pick.variable,
                visit: pick.visit,
                truth: pick.truth,
                source: Source { sample: sample.id.clone(), dataset: options.dataset.clone(), seed: options.seed },
            });
        }
    }
    Ok(made)
}

fn why_none(kind: QuestionKind) -> &'static str {
    match kind {
        QuestionKind::Coverage => "the program's functions have no statement to ask about",
        QuestionKind::State => "no one-line assignment of a plain name left a literal value",
        QuestionKind::Path => "no one-line statement ran with a statement's first line after it",
        QuestionKind::Output => "the expected output is not a literal",
    }
}

/// A line's runs that a state question may name: (visit, repr, type name).
type ValueRuns = Vec<(u32, String, String)>;
/// A line's runs that a path question may name: (visit, the next line or `None` at the end).
type NextRuns = Vec<(u32, Option<u32>)>;

struct Pick {
    line: Option<u32>,
    variable: Option<String>,
    visit: Option<u32>,
    truth: Truth,
}

fn coverage(lines: &ProgramLines, trace: &Trace, code_lines: u32, n: usize, rng: &mut Rng) -> Vec<Pick> {
    let (mut ran, mut not_ran): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for statement in lines.statements.iter().filter(|s| s.last <= code_lines) {
        let runs = trace.steps.iter().any(|step| statement.spans(step.line));
        if runs { &mut ran } else { &mut not_ran }.push(statement.first);
    }
    let mut picks = Vec::new();
    while picks.len() < n && !(ran.is_empty() && not_ran.is_empty()) {
        let from_ran = if ran.is_empty() || not_ran.is_empty() { !ran.is_empty() } else { rng.chance(0.5) };
        let pool = if from_ran { &mut ran } else { &mut not_ran };
        let line = pool.remove(rng.below(pool.len()));
        picks.push(Pick { line: Some(line), variable: None, visit: None, truth: Truth::Runs { runs: from_ran } });
    }
    picks
}

fn state(lines: &ProgramLines, trace: &Trace, code_lines: u32, n: usize, rng: &mut Rng) -> Vec<Pick> {
    // Each (line, name) with the runs whose value is a literal; a line and name are chosen first,
    // then one of its runs, so a loop of a thousand runs weighs as much as a line run once.
    let mut candidates: Vec<(u32, String, ValueRuns)> = Vec::new();
    for statement in lines.statements.iter().filter(|s| s.one_line() && s.first <= code_lines) {
        for name in &statement.assigns {
            let mut runs = Vec::new();
            let mut visit = 0;
            for step in trace.steps.iter().filter(|s| s.line == statement.first) {
                visit += 1;
                if let Some(value) = step.local(name)
                    && !value.repr.is_empty()
                    && parse_literal(&value.repr).is_ok()
                {
                    runs.push((visit, value.repr.clone(), value.type_name.clone()));
                }
            }
            if !runs.is_empty() {
                candidates.push((statement.first, name.clone(), runs));
            }
        }
    }
    let mut picks = Vec::new();
    while picks.len() < n && !candidates.is_empty() {
        let (line, name, runs) = candidates.remove(rng.below(candidates.len()));
        let (visit, repr, type_name) = runs[rng.below(runs.len())].clone();
        picks.push(Pick {
            line: Some(line),
            variable: Some(name),
            visit: Some(visit),
            truth: Truth::Value { repr, type_name },
        });
    }
    picks
}

fn path(lines: &ProgramLines, trace: &Trace, code_lines: u32, n: usize, rng: &mut Rng) -> Vec<Pick> {
    let starts_statement = |line: u32| line <= code_lines && lines.starting_at(line).is_some();
    let mut candidates: Vec<(u32, NextRuns)> = Vec::new();
    for statement in lines.statements.iter().filter(|s| s.one_line() && s.first <= code_lines) {
        let mut runs = Vec::new();
        let mut visit = 0;
        for (i, _) in trace.steps.iter().enumerate().filter(|(_, s)| s.line == statement.first) {
            visit += 1;
            match trace.steps.get(i + 1) {
                None => runs.push((visit, None)),
                Some(next) if starts_statement(next.line) => runs.push((visit, Some(next.line))),
                Some(_) => {}
            }
        }
        if !runs.is_empty() {
            candidates.push((statement.first, runs));
        }
    }
    let mut picks = Vec::new();
    while picks.len() < n && !candidates.is_empty() {
        let (line, runs) = candidates.remove(rng.below(candidates.len()));
        let (visit, next) = runs[rng.below(runs.len())];
        picks.push(Pick {
            line: Some(line),
            variable: None,
            visit: Some(visit),
            truth: Truth::NextLine { line: next },
        });
    }
    picks
}

fn output(sample: &Sample) -> Vec<Pick> {
    let repr = sample.output.trim();
    if parse_literal(repr).is_err() {
        return Vec::new();
    }
    vec![Pick { line: None, variable: None, visit: None, truth: Truth::Output { repr: repr.to_owned() } }]
}

/// The truth of a question asked at a named place (a table's row, an imported question): `Err`
/// says why the trace cannot answer it. `visit` counts from 1.
pub fn truth_at(
    sample: &Sample,
    trace: &Trace,
    kind: QuestionKind,
    line: u32,
    variable: &str,
    visit: u32,
) -> Result<Truth, String> {
    let lines = ProgramLines::read(&sample.code).ok_or_else(|| Unusable::Unparsable.to_string())?;
    let runs_of = |line: u32| trace.steps.iter().filter(|s| s.line == line).count();
    let step = |line: u32| {
        trace.step_of(line, visit).ok_or_else(|| format!("line {line} runs {} times, not {visit}", runs_of(line)))
    };
    match kind {
        QuestionKind::Coverage => {
            let statement = lines
                .statements
                .iter()
                .find(|s| s.spans(line))
                .ok_or_else(|| format!("line {line} is in no statement of a function"))?;
            Ok(Truth::Runs { runs: trace.steps.iter().any(|s| statement.spans(s.line)) })
        }
        QuestionKind::State => {
            let value = trace.steps[step(line)?]
                .local(variable)
                .ok_or_else(|| format!("`{variable}` is not bound right after line {line}'s run {visit}"))?;
            if value.repr.is_empty() {
                return Err(format!("`{variable}`'s repr is too long to ask about"));
            }
            Ok(Truth::Value { repr: value.repr.clone(), type_name: value.type_name.clone() })
        }
        QuestionKind::Path => Ok(Truth::NextLine { line: trace.steps.get(step(line)? + 1).map(|s| s.line) }),
        QuestionKind::Output => {
            output(sample).pop().map(|pick| pick.truth).ok_or_else(|| why_none(QuestionKind::Output).to_owned())
        }
    }
}
