//! Pulling the answer out of a model's response.
//!
//! Rules, first match wins:
//! 1. the last non-empty `[ANSWER]` block (after any `<think>...</think>` reasoning; a missing
//!    `[/ANSWER]` is accepted because the stop sequence cuts it off; code fences inside are
//!    ignored). Inside it, the last assertion `assert X == Y`, parsed with the Python parser;
//!    a block holding just a value (output task) or just a call (input task) is accepted too;
//! 2. no tags: the last assertion line of the response (it may run over several lines);
//! 3. no assertion: a bare literal (output task) or call (input task) on the last line.
//!
//! For the output task the answer is `Y`, the right-hand side; for the input task it is `X`, the
//! call on the left. Judging the answer is [`crate::score`]'s business, not this module's.

use ruff_python_ast::{CmpOp, Expr, Stmt};
use ruff_text_size::Ranged;
use serde::{Deserialize, Serialize};

use crate::literal::{MAX_NESTING, nesting_depth, parse_expression_guarded, parse_literal};
use crate::task::Task;

/// Which rule found the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractRule {
    /// An assertion inside `[ANSWER] ... [/ANSWER]`.
    AnswerBlock,
    /// An assertion inside an `[ANSWER]` block that the response ended before closing.
    AnswerBlockUnclosed,
    /// An `[ANSWER]` block that holds only the value (or only the call), not an assertion.
    AnswerBlockValue,
    /// No tags: the last assertion in the response.
    LoneAssertion,
    /// No tags, no assertion: a literal (or a call) alone on the last line.
    LastLine,
    /// The answer was given already extracted (a generations file).
    Verbatim,
}

impl ExtractRule {
    /// A few words for tables.
    pub fn label(self) -> &'static str {
        match self {
            ExtractRule::AnswerBlock => "assertion in [ANSWER]",
            ExtractRule::AnswerBlockUnclosed => "assertion in unclosed [ANSWER]",
            ExtractRule::AnswerBlockValue => "bare value in [ANSWER]",
            ExtractRule::LoneAssertion => "assertion without tags",
            ExtractRule::LastLine => "bare value on the last line",
            ExtractRule::Verbatim => "given already extracted",
        }
    }
}

/// Why no answer could be extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractFailure {
    EmptyResponse,
    /// `<think>` was opened and never closed: the response ended while reasoning.
    UnfinishedThinking,
    /// The last `[ANSWER]` block holds neither an assertion nor a bare answer that parses.
    BlockWithoutAnswer,
    /// The assertion is not a single `==` comparison.
    NotAnEquality,
    /// No tags, no assertion line, no literal on the last line.
    NothingFound,
}

impl ExtractFailure {
    /// A few words for tables (the detail says more).
    pub fn label(self) -> &'static str {
        match self {
            ExtractFailure::EmptyResponse => "empty response",
            ExtractFailure::UnfinishedThinking => "unfinished <think>",
            ExtractFailure::BlockWithoutAnswer => "[ANSWER] without an answer",
            ExtractFailure::NotAnEquality => "assertion is not X == Y",
            ExtractFailure::NothingFound => "no answer found",
        }
    }
}

/// The result of extracting one response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Extraction {
    Found { answer: String, rule: ExtractRule },
    Failed { failure: ExtractFailure, detail: String },
}

impl Extraction {
    /// An answer that was extracted elsewhere (published generations).
    pub fn verbatim(answer: impl Into<String>) -> Self {
        Extraction::Found { answer: answer.into(), rule: ExtractRule::Verbatim }
    }

    /// Which rule found the answer, or why none did, in a few words.
    pub fn rule_label(&self) -> &'static str {
        match self {
            Extraction::Found { rule, .. } => rule.label(),
            Extraction::Failed { failure, .. } => failure.label(),
        }
    }

    pub fn answer(&self) -> Option<&str> {
        match self {
            Extraction::Found { answer, .. } => Some(answer),
            Extraction::Failed { .. } => None,
        }
    }

    fn failed(failure: ExtractFailure, detail: impl Into<String>) -> Self {
        Extraction::Failed { failure, detail: detail.into() }
    }
}

/// Lines of an assertion that may span several lines are looked for this far.
const MAX_ASSERTION_LINES: usize = 60;
/// Only the last assertions are tried, so a response made of thousands of them stays cheap.
const MAX_ASSERTIONS_TRIED: usize = 20;

/// Extracts the answer for `task` from a model's response.
pub fn extract(response: &str, task: Task) -> Extraction {
    if task == Task::Question {
        return extract_text(response);
    }
    let region = match answer_region(response) {
        Ok(region) => region,
        Err(failed) => return failed,
    };
    if let Some((block, closed)) = last_answer_block(region) {
        return from_block(&clean(block), closed, task);
    }
    let text = clean(region);
    if let Some(found) = last_assertion(&text, task) {
        return match found {
            Ok(answer) => Extraction::Found { answer, rule: ExtractRule::LoneAssertion },
            Err(detail) => Extraction::failed(ExtractFailure::NotAnEquality, detail),
        };
    }
    if let Some(answer) = text.lines().rev().find(|l| !l.trim().is_empty()).and_then(|line| bare_answer(line, task)) {
        return Extraction::Found { answer, rule: ExtractRule::LastLine };
    }
    Extraction::failed(
        ExtractFailure::NothingFound,
        "no [ANSWER] block, no assertion, and the last line is not a bare answer",
    )
}

/// The answer as free text, for questions whose answer is a word or a number rather than a
/// literal or an assertion (the trace questions: `yes`, `7`, `return`): the last non-empty
/// `[ANSWER]` block (after any reasoning, fences dropped, trimmed), or else the last non-empty line.
pub fn extract_text(response: &str) -> Extraction {
    let region = match answer_region(response) {
        Ok(region) => region,
        Err(failed) => return failed,
    };
    if let Some((block, closed)) = last_answer_block(region) {
        let rule = if closed { ExtractRule::AnswerBlockValue } else { ExtractRule::AnswerBlockUnclosed };
        return Extraction::Found { answer: clean(block).trim().to_owned(), rule };
    }
    match clean(region).lines().rev().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => Extraction::Found { answer: line.to_owned(), rule: ExtractRule::LastLine },
        None => Extraction::failed(ExtractFailure::NothingFound, "no [ANSWER] block and no text after the reasoning"),
    }
}

/// Where both readers look for the answer: the text after the reasoning, or why there is none
/// (an empty response, a `<think>` never closed).
fn answer_region(response: &str) -> Result<&str, Extraction> {
    if response.trim().is_empty() {
        return Err(Extraction::failed(ExtractFailure::EmptyResponse, "the response is empty"));
    }
    after_reasoning(response).ok_or_else(|| {
        Extraction::failed(
            ExtractFailure::UnfinishedThinking,
            "the response ended inside <think> before giving an answer",
        )
    })
}

/// The text after the reasoning: after the last `</think>`; `None` when `<think>` never closes.
fn after_reasoning(response: &str) -> Option<&str> {
    if let Some(end) = response.rfind("</think>") {
        return Some(&response[end + "</think>".len()..]);
    }
    if response.contains("<think>") { None } else { Some(response) }
}

/// The last `[ANSWER]` block with something in it, and whether it was closed. Tags match in any
/// letter case.
fn last_answer_block(text: &str) -> Option<(&str, bool)> {
    // ASCII lowercasing keeps byte offsets.
    let lower = text.to_ascii_lowercase();
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(start) = lower[from..].find("[answer]") {
        let body_start = from + start + "[answer]".len();
        let (body_end, closed, next) = match lower[body_start..].find("[/answer]") {
            Some(end) => (body_start + end, true, body_start + end + "[/answer]".len()),
            None => (text.len(), false, text.len()),
        };
        blocks.push((&text[body_start..body_end], closed));
        from = next;
    }
    blocks.into_iter().rev().find(|(body, _)| !clean(body).trim().is_empty())
}

/// Drops Markdown fence lines and the backticks around inline code, but never inside a
/// triple-quoted string: there a line of ``` is part of the value.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut strings = StringScan::default();
    for line in text.lines() {
        if strings.inside() {
            out.push_str(line);
            strings.feed(line);
        } else {
            let trimmed = line.trim();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                continue;
            }
            // A line starting with a backtick is never Python, so stripping them loses nothing.
            let kept = if trimmed.starts_with('`') { trimmed.trim_matches('`') } else { line };
            out.push_str(kept);
            strings.feed(kept);
        }
        out.push('\n');
    }
    out
}

/// Whether the next line starts inside a triple-quoted Python string. A light scan, not a
/// tokenizer: comments and one-line strings are skipped so that their quotes do not count, and
/// prose (where an apostrophe opens a "string" that ends with the line) does no harm.
#[derive(Default)]
struct StringScan {
    /// The delimiter of the open triple-quoted string.
    open: Option<&'static [u8]>,
}

impl StringScan {
    fn inside(&self) -> bool {
        self.open.is_some()
    }

    fn feed(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if let Some(delimiter) = self.open {
                if bytes[i] == b'\\' {
                    i += 2;
                } else if bytes[i..].starts_with(delimiter) {
                    self.open = None;
                    i += 3;
                } else {
                    i += 1;
                }
                continue;
            }
            match bytes[i] {
                b'#' => return,
                quote @ (b'\'' | b'"') => {
                    if bytes[i + 1..].starts_with(&[quote, quote]) {
                        self.open = Some(if quote == b'"' { b"\"\"\"" } else { b"'''" });
                        i += 3;
                    } else {
                        // A one-line string: to its closing quote or the end of the line.
                        i += 1;
                        while i < bytes.len() && bytes[i] != quote {
                            i += if bytes[i] == b'\\' { 2 } else { 1 };
                        }
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
    }
}

fn from_block(block: &str, closed: bool, task: Task) -> Extraction {
    let rule = if closed { ExtractRule::AnswerBlock } else { ExtractRule::AnswerBlockUnclosed };
    match last_assertion(block, task) {
        Some(Ok(answer)) => return Extraction::Found { answer, rule },
        Some(Err(detail)) => return Extraction::failed(ExtractFailure::NotAnEquality, detail),
        None => {}
    }
    // No assertion: a block holding only the value (or the call), possibly over several lines.
    if let Some(answer) = bare_answer(block, task) {
        return Extraction::Found { answer, rule: ExtractRule::AnswerBlockValue };
    }
    let first_line = block.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    Extraction::failed(
        ExtractFailure::BlockWithoutAnswer,
        format!("the [ANSWER] block holds no assertion that parses: `{}`", shorten(first_line)),
    )
}

/// The last assertion in `text` that parses (possibly spanning lines): `Some(Ok(answer))`,
/// `Some(Err(why))` when it is not `X == Y`, `None` when there is no assertion at all.
fn last_assertion(text: &str, task: Task) -> Option<Result<String, String>> {
    let lines: Vec<&str> = text.lines().collect();
    let starts = (0..lines.len()).rev().filter(|&i| {
        let line = lines[i].trim_start();
        line.starts_with("assert ") || line.starts_with("assert(")
    });
    for start in starts.take(MAX_ASSERTIONS_TRIED) {
        let end_max = (start + MAX_ASSERTION_LINES).min(lines.len());
        for end in start + 1..=end_max {
            // Rebuilt for every candidate end: the common indentation may shrink as lines join.
            let (source, last_line_start) = dedent(&lines[start..end]);
            match assertion_answer(&source, task) {
                Ok(result) => return Some(result),
                // More lines cannot repair an error that ends before the line just added.
                Err(at) if at < last_line_start => break,
                Err(_) => {}
            }
        }
    }
    None
}

/// Joins lines after removing their common indentation (and whatever indents the first line
/// further, which precedes the statement). Only the common part goes: the lines of a
/// triple-quoted string keep their relative indentation, which is part of the value. Returns
/// the text and where its last line starts.
fn dedent(lines: &[&str]) -> (String, usize) {
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let mut common: Option<&str> = None;
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        let own = &line[..indent(line)];
        common = Some(match common {
            None => own,
            Some(c) => &c[..c.bytes().zip(own.bytes()).take_while(|(a, b)| a == b).count()],
        });
    }
    let common = common.unwrap_or("");
    let mut out = String::new();
    let mut last_line_start = 0;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        last_line_start = out.len();
        // A blank line shorter than the common indentation loses its whitespace.
        let line = line.strip_prefix(common).unwrap_or_else(|| line.trim_start_matches([' ', '\t']));
        out.push_str(if i == 0 { line.trim_start() } else { line });
    }
    (out, last_line_start)
}

/// `Ok` when `source` is exactly one assert statement: its answer, or why it is not `X == Y`.
/// `Err(offset)` where the syntax error ends otherwise.
fn assertion_answer(source: &str, task: Task) -> Result<Result<String, String>, usize> {
    if nesting_depth(source) > MAX_NESTING {
        return Err(0);
    }
    // Where the error ends: an unclosed string or bracket runs to the end, so a later line may
    // still close it; an error that ends earlier cannot be repaired by more lines.
    let parsed = ruff_python_parser::parse_module(source).map_err(|e| e.location.end().to_usize())?;
    let [Stmt::Assert(assert)] = &parsed.suite()[..] else { return Err(0) };
    let Expr::Compare(compare) = &*assert.test else {
        return Ok(Err(format!("the assertion `{}` is not `X == Y`", shorten(&source[assert.test.range()]))));
    };
    if compare.ops.len() != 1 || compare.ops[0] != CmpOp::Eq {
        return Ok(Err(format!(
            "the assertion `{}` is not a single `==` comparison",
            shorten(&source[compare.range()])
        )));
    }
    let side = match task {
        Task::Output | Task::Question => &compare.comparators[0],
        Task::Input => &*compare.left,
    };
    Ok(Ok(expression_text(with_parentheses(source, side.range()))))
}

/// The text of a node with the parentheses around it: the parser's range leaves them out, and
/// `(1 == 1)` without them would change meaning inside `assert X == Y`.
fn with_parentheses(source: &str, range: ruff_text_size::TextRange) -> &str {
    let (mut start, mut end) = (range.start().to_usize(), range.end().to_usize());
    loop {
        let before = source[..start].trim_end();
        let after = source[end..].trim_start();
        if !(before.ends_with('(') && after.starts_with(')')) {
            return &source[start..end];
        }
        start = before.len() - 1;
        end = source.len() - after.len() + 1;
    }
}

/// An expression's text, parenthesized when it spans lines and would not parse on its own.
fn expression_text(text: &str) -> String {
    let text = text.trim();
    if text.contains('\n') && parse_expression_guarded(text).is_err() { format!("({text})") } else { text.to_string() }
}

/// A bare answer: a literal for the output task, a call for the input task.
fn bare_answer(text: &str, task: Task) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let text = dedent(&lines).0;
    let text = text.trim();
    let ok = match task {
        Task::Output | Task::Question => parse_literal(text).is_ok(),
        Task::Input => matches!(parse_expression_guarded(text), Ok(Expr::Call(_))),
    };
    ok.then(|| expression_text(text))
}

fn shorten(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if text.contains('\n') => format!("{line}…"),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests;
