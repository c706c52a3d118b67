//! The fourth kind of task: a question about a program's run (REval's kinds: does line N run,
//! what does a variable hold right after it, which line runs next, what does the call return;
//! Chen et al., 2024). The question and its truth ride in the sample
//! (`execbench_core::question`); this module writes the question's part of the prompt (the
//! `{numbered_code}` and `{question}` placeholders); `crate::score::question` judges the answers.
//! The wording is execbench's own.

use std::fmt::Write as _;

use execbench_core::question::{Question, QuestionKind};

/// The program with a right-aligned line number before each line.
pub fn numbered(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let width = lines.len().to_string().len();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let _ = writeln!(out, "{:>width$}  {line}", i + 1);
    }
    out
}

/// `1st`, `2nd`, `3rd`, `11th`, `22nd`.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// What is asked and how to write the answer: the `{question}` of a question template.
pub fn question_text(question: &Question) -> String {
    let mut out = String::new();
    let line = question.line.unwrap_or(0);
    let quoted = question.code.lines().nth(line.saturating_sub(1) as usize).map(str::trim).unwrap_or("");
    let visit = ordinal(question.visit.unwrap_or(1));
    match question.kind {
        QuestionKind::Coverage => {
            let _ = writeln!(out, "Question: while the call runs, is line {line} (`{quoted}`) executed at least once?");
            out.push_str("Answer `yes` or `no` between [ANSWER] and [/ANSWER], for instance [ANSWER]no[/ANSWER].");
        }
        QuestionKind::State => {
            let variable = question.variable.as_deref().unwrap_or("");
            let times = match question.visit.unwrap_or(1) {
                1 => "once".to_owned(),
                n => format!("{n} times"),
            };
            let _ = writeln!(
                out,
                "Question: line {line} (`{quoted}`) runs at least {times}. Right after its {visit} run, what value does the variable `{variable}` hold?"
            );
            out.push_str(
                "Write the value as a Python literal, as `repr` would print it, between [ANSWER] and [/ANSWER], for instance [ANSWER]['a', 3][/ANSWER].",
            );
        }
        QuestionKind::Path => {
            let _ = writeln!(
                out,
                "Question: after the {visit} run of line {line} (`{quoted}`), which line of the program runs next? Lines inside functions the program calls count."
            );
            out.push_str(
                "Answer with the line's number between [ANSWER] and [/ANSWER], for instance [ANSWER]7[/ANSWER]; if the call returns right after that line and no other line of the program runs, answer [ANSWER]return[/ANSWER].",
            );
        }
        QuestionKind::Output => {
            out.push_str("Question: what does the call return?\n");
            out.push_str(
                "Write the value as a Python literal, as `repr` would print it, between [ANSWER] and [/ANSWER], for instance [ANSWER](1, 'x')[/ANSWER].",
            );
        }
    }
    out
}
