//! Times the prompt diff (`line_diff`, hand-written: a longest common subsequence by dynamic
//! programming, capped at `MAX_LINES`) against the `similar` crate's Myers diff on the same lines,
//! for prompts of 50 to 5,000 lines made of CRUXEval programs. Run it optimised:
//! `cargo run --release -p execbench-compare --example diff_bench`.
//!
//! The perturbed side renames two names everywhere (REN), adds a comment every 7th line (MCC) and
//! a dead `if False:` block every 23rd (GBC); the worst case for Myers is two texts with no line
//! in common.

use std::time::Instant;

use execbench_compare::diff::{Change, DiffLine, MAX_LINES, changed_lines, line_diff};

/// The same diff through `similar`: removed lines before the added ones that replace them.
fn similar_diff(before: &str, after: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        for change in op.iter_changes(&a, &b) {
            let change_kind = match change.tag() {
                similar::ChangeTag::Equal => Change::Same,
                similar::ChangeTag::Delete => Change::Removed,
                similar::ChangeTag::Insert => Change::Added,
            };
            out.push(DiffLine { change: change_kind, text: change.value().to_string() });
        }
    }
    out
}

/// A prompt of `lines` lines: an instruction, then programs in `[PYTHON]` blocks.
fn prompt(programs: &[String], lines: usize) -> String {
    let mut text = String::from(
        "You are given a Python function and an assertion containing an input to the function.\n\
         Complete the assertion with a literal.\n\n",
    );
    for program in programs.iter().cycle() {
        if text.lines().count() >= lines {
            break;
        }
        text.push_str(&format!("[PYTHON]\n{program}\n[/PYTHON]\n"));
    }
    text.lines().take(lines).collect::<Vec<_>>().join("\n")
}

fn perturbed(text: &str) -> String {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        if i % 7 == 3 {
            out.push(format!("{indent}# the loop below keeps the order of the input"));
        }
        if i % 23 == 11 {
            out.push(format!("{indent}if False:\n{indent}    TempVar0 = 0"));
        }
        out.push(line.replace("text", "Var_1").replace("nums", "Var_2"));
    }
    out.join("\n")
}

/// The fastest of `reps` runs, in milliseconds, and the last result.
fn fastest<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut result = None;
    for _ in 0..reps {
        let start = Instant::now();
        result = Some(f());
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
    }
    (best, result.expect("at least one run"))
}

fn main() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    let text = std::fs::read_to_string(file).expect("the bundled CRUXEval file");
    let programs: Vec<String> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok()?.get("code")?.as_str().map(Into::into))
        .collect();
    println!("line_diff (cap {MAX_LINES} lines) vs similar (Myers), fastest run; (removed, added)");
    for (lines, no_line_in_common) in
        [(50, false), (500, false), (1600, false), (5000, false), (500, true), (1900, true), (5000, true)]
    {
        let before = prompt(&programs, lines);
        let after = if no_line_in_common {
            before.lines().map(|l| format!("{l} ")).collect::<Vec<_>>().join("\n")
        } else {
            perturbed(&before)
        };
        let reps = if lines > 1000 { 5 } else { 30 };
        let (hand_ms, hand) = fastest(reps, || line_diff(&before, &after));
        let (similar_ms, other) = fastest(reps, || similar_diff(&before, &after));
        println!(
            "{lines:>5} -> {:>5} lines{}: line_diff {hand_ms:>8.3} ms {:?} | similar {similar_ms:>8.3} ms {:?}",
            after.lines().count(),
            if no_line_in_common { " (none in common)" } else { "" },
            changed_lines(&hand),
            changed_lines(&other),
        );
    }
}
