//! The prompt of each kind of question: the program with its lines numbered, the call, and what
//! to answer between `[ANSWER]` and `[/ANSWER]`. The wording is execbench's own; the kinds are
//! REval's (Chen et al., 2024).

use std::fmt::Write as _;

use crate::question::{Question, QuestionKind};

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

/// The whole prompt for `question`.
pub fn prompt(question: &Question) -> String {
    let mut out = String::new();
    out.push_str("Below is a Python program, each line preceded by its number, and a call to it.\n\n");
    out.push_str("```python\n");
    out.push_str(&numbered(&question.code));
    out.push_str("```\n\n");
    let _ = writeln!(out, "The call: `{}`\n", question.call);
    out.push_str("Follow the call through the program step by step, then answer.\n\n");
    let line = question.line.unwrap_or(0);
    let quoted = question.code.lines().nth(line.saturating_sub(1) as usize).map(str::trim).unwrap_or("");
    let visit = ordinal(question.visit.unwrap_or(1));
    match question.kind {
        QuestionKind::Coverage => {
            let _ = writeln!(out, "Question: while the call runs, is line {line} (`{quoted}`) executed at least once?");
            out.push_str("Answer `yes` or `no` between [ANSWER] and [/ANSWER], for instance [ANSWER]no[/ANSWER].\n");
        }
        QuestionKind::State => {
            let variable = question.variable.as_deref().unwrap_or("");
            let _ = writeln!(
                out,
                "Question: line {line} (`{quoted}`) runs at least {visit_word}. Right after its {visit} run, what value does the variable `{variable}` hold?",
                visit_word = if question.visit == Some(1) {
                    "once".to_owned()
                } else {
                    format!("{} times", question.visit.unwrap_or(1))
                }
            );
            out.push_str(
                "Write the value as a Python literal, as `repr` would print it, between [ANSWER] and [/ANSWER], for instance [ANSWER]['a', 3][/ANSWER].\n",
            );
        }
        QuestionKind::Path => {
            let _ = writeln!(
                out,
                "Question: after the {visit} run of line {line} (`{quoted}`), which line of the program runs next? Lines inside functions the program calls count."
            );
            out.push_str(
                "Answer with the line's number between [ANSWER] and [/ANSWER], for instance [ANSWER]7[/ANSWER]; if the call returns right after that line and no other line of the program runs, answer [ANSWER]return[/ANSWER].\n",
            );
        }
        QuestionKind::Output => {
            out.push_str("Question: what does the call return?\n");
            out.push_str(
                "Write the value as a Python literal, as `repr` would print it, between [ANSWER] and [/ANSWER], for instance [ANSWER](1, 'x')[/ANSWER].\n",
            );
        }
    }
    out
}
