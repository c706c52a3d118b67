//! A model's response read as a function and its test inputs.
//!
//! **The format the prompt asks for** (see [`crate::prompt::DEFAULT_TEMPLATE`]):
//!
//! ````text
//! ```python
//! def f(text, sep):
//!     ...
//! ```
//! Inputs:
//! f('a,b', ',')
//! f('', ';')
//! ````
//!
//! **What is tolerated.** The code is the first fenced block (any language tag, or none, indented
//! or not) holding a top-level `def f(`; without one, the unfenced lines from the first
//! `def f(` (with the imports and decorators just above it) to the first line that is neither
//! indented nor another top-level `def`/`class`/`import`/`from`/`@`/comment. Test calls written
//! at the top level of that block (`assert f(...) == ...`, `print(f(...))`, `f(...)`, the body of
//! `if __name__ == '__main__':`) are taken out of the code and read as inputs. Inputs are read
//! from every other line that, after a list marker (`-`, `*`, `1.`, `1)`), a `>>>` prompt or a
//! backtick, starts with `f(`, `assert f(`, `assert(f(` or `print(f(`; a bare `f(...)` counts
//! only when nothing but a comment, `==`, `->` or `=>` follows it, so prose such as "f(x) returns
//! the ..." is not taken for an input. The arguments are cut at the call's matching parenthesis,
//! with brackets and string literals (with escapes and triple quotes) skipped over. Repeated
//! inputs are dropped and at most [`MAX_INPUTS`] are kept, in order.
//!
//! Broken code is still a candidate: the filter rejects it later, with a rule that names why.
//! A response without a function `f`, or with no input, is kept with the reason (`problem`).

use serde::{Deserialize, Serialize};

use crate::candidate::Candidate;
use crate::rules::{Rejection, Rule};

/// Inputs kept per response, at most (the prompt asks for this many).
pub const MAX_INPUTS: usize = crate::prompt::INPUTS_PER_FUNCTION;

/// One response read: its candidates (one per input, sharing the code), or why there are none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedResponse {
    pub request_id: String,
    pub method: String,
    pub raw: String,
    pub candidates: Vec<Candidate>,
    /// Why the response gave no candidates (`None` when it gave some).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl ParsedResponse {
    /// The parse stage's verdict on a response without candidates: [`Rule::Unparseable`] with
    /// the reason, for the funnel.
    pub fn rejection(&self) -> Option<Rejection> {
        self.problem.as_ref().map(|p| Rejection::new(Rule::Unparseable, p.clone()))
    }
}

/// Reads one response. Candidate ids are `<request id>-<k>`, k from 1.
pub fn parse_response(request_id: &str, method: &str, raw: &str) -> ParsedResponse {
    let mut parsed = ParsedResponse {
        request_id: request_id.to_string(),
        method: method.to_string(),
        raw: raw.to_string(),
        candidates: Vec::new(),
        problem: None,
    };
    let text = raw.replace("\r\n", "\n");
    if text.trim().is_empty() {
        parsed.problem = Some("the response is empty".to_string());
        return parsed;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(found) = find_code(&lines) else {
        parsed.problem = Some(if lines.iter().any(|l| l.trim_start().starts_with("def ")) {
            "the response defines no function named f".to_string()
        } else {
            "the response holds no function (no `def f(...)`)".to_string()
        });
        return parsed;
    };
    let mut inputs: Vec<String> = Vec::new();
    let mut add = |input: String| {
        if inputs.len() < MAX_INPUTS && !inputs.contains(&input) {
            inputs.push(input);
        }
    };
    for line in &found.call_lines {
        if let Some(input) = input_of(line) {
            add(input);
        }
    }
    for (i, line) in lines.iter().enumerate() {
        if !found.span.contains(&i)
            && let Some(input) = input_of(line)
        {
            add(input);
        }
    }
    if inputs.is_empty() {
        parsed.problem = Some("the response has a function f but no test inputs (lines `f(...)`)".to_string());
        return parsed;
    }
    parsed.candidates = inputs
        .into_iter()
        .enumerate()
        .map(|(k, input)| Candidate {
            id: format!("{request_id}-{}", k + 1),
            method: Some(method.to_string()),
            code: found.code.clone(),
            input,
        })
        .collect();
    parsed
}

struct FoundCode {
    code: String,
    /// Lines of the response the code came from (not searched again for inputs).
    span: std::ops::Range<usize>,
    /// Top-level test calls taken out of the code.
    call_lines: Vec<String>,
}

fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

fn starts_f(line: &str) -> bool {
    line.starts_with("def f(") || line.starts_with("def f (")
}

/// The code of `f`: the first fenced block with a top-level `def f(`, else the unfenced lines
/// around the first `def f(`.
fn find_code(lines: &[&str]) -> Option<FoundCode> {
    let mut i = 0;
    while i < lines.len() {
        if is_fence(lines[i]) {
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !is_fence(lines[end]) {
                end += 1;
            }
            let block = dedent(&lines[start..end]);
            if block.iter().any(|l| starts_f(l)) {
                let (code, call_lines) = split_calls(&block);
                return Some(FoundCode { code, span: i..(end + 1).min(lines.len()), call_lines });
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
    let def = lines.iter().position(|l| starts_f(l))?;
    let top_level_code = |l: &str| ["def ", "class ", "import ", "from ", "@", "#"].iter().any(|p| l.starts_with(p));
    let mut start = def;
    while start > 0 && ["import ", "from ", "@"].iter().any(|p| lines[start - 1].starts_with(p)) {
        start -= 1;
    }
    let mut end = def + 1;
    while end < lines.len()
        && !is_fence(lines[end])
        && (lines[end].trim().is_empty() || lines[end].starts_with([' ', '\t']) || top_level_code(lines[end]))
    {
        end += 1;
    }
    let block: Vec<String> = lines[start..end].iter().map(|l| l.to_string()).collect();
    let (code, call_lines) = split_calls(&block);
    Some(FoundCode { code, span: start..end, call_lines })
}

/// The lines without their common leading whitespace (blank lines ignored).
fn dedent(lines: &[&str]) -> Vec<String> {
    let indent =
        lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                // The indent is counted in bytes: a Unicode space (U+2003 is 3 bytes) may straddle
                // it, so the cut backs off to the character's start rather than split it.
                let cut = indent.min(l.len() - l.trim_start().len());
                let cut = (0..=cut).rev().find(|&i| l.is_char_boundary(i)).unwrap_or(0);
                l[cut..].to_string()
            }
        })
        .collect()
}

/// Splits a block into the code and its top-level test calls (with a `__main__` block's body).
fn split_calls(block: &[String]) -> (String, Vec<String>) {
    let mut code: Vec<&str> = Vec::new();
    let mut calls = Vec::new();
    let mut in_main = false;
    for line in block {
        let top = !line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if top {
            in_main = line.starts_with("if __name__");
        }
        if in_main {
            calls.push(line.trim().to_string());
        } else if top && input_of(line).is_some() {
            calls.push(line.clone());
        } else {
            code.push(line);
        }
    }
    while code.last().is_some_and(|l| l.trim().is_empty()) {
        code.pop();
    }
    while code.first().is_some_and(|l| l.trim().is_empty()) {
        code.remove(0);
    }
    (code.join("\n"), calls)
}

/// The arguments of a test call written on `line`, if the line is one.
fn input_of(line: &str) -> Option<String> {
    let mut s = line.trim();
    // List markers, a REPL prompt, inline code.
    for marker in ["- ", "* ", "+ ", ">>> "] {
        if let Some(rest) = s.strip_prefix(marker) {
            s = rest.trim_start();
        }
    }
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && s[digits..].starts_with(['.', ')']) && s[digits + 1..].starts_with(' ') {
        s = s[digits + 1..].trim_start();
    }
    s = s.trim_start_matches('`');
    let (after, bare) = if let Some(r) =
        s.strip_prefix("assert f(").or_else(|| s.strip_prefix("assert(f(")).or_else(|| s.strip_prefix("print(f("))
    {
        (r, false)
    } else if let Some(r) = s.strip_prefix("f(") {
        (r, true)
    } else {
        return None;
    };
    let close = matching_paren(after)?;
    let args = after[..close].trim();
    if bare {
        let rest =
            after[close + 1..].trim().trim_matches(|c: char| c == '`' || c == ',' || c == ';' || c == '.').trim();
        let fine = rest.is_empty() || ["#", "==", "->", "=>", "→"].iter().any(|p| rest.starts_with(p));
        if !fine {
            return None;
        }
    }
    Some(args.to_string())
}

/// The byte index of the `)` that closes a call whose arguments start `text`, skipping brackets
/// and string literals.
fn matching_paren(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'"') => {
                let triple = bytes[i..].starts_with(&[q, q, q]);
                i += if triple { 3 } else { 1 };
                loop {
                    if i >= bytes.len() {
                        return None;
                    }
                    if bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if triple && bytes[i..].starts_with(&[q, q, q]) {
                        i += 3;
                        break;
                    }
                    if !triple && bytes[i] == q {
                        i += 1;
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' if depth == 0 => return Some(i),
            b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prompt's worked examples, rendered, read back through this parser as their own
    /// candidates (kept here so that the prompt module need not know the parser).
    #[test]
    fn the_default_pools_examples_read_back_as_their_candidates() {
        for e in crate::prompt::default_pool() {
            let parsed = parse_response("x", &e.method, &e.render());
            assert_eq!(parsed.problem, None, "{}", e.method);
            let inputs: Vec<&str> = parsed.candidates.iter().map(|c| c.input.as_str()).collect();
            assert_eq!(inputs, e.inputs.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(parsed.candidates[0].code, e.code);
        }
    }

    const CODE: &str = "def f(text, sep):\n    parts = text.split(sep)\n    return len(parts)";

    /// Found by prop_responses: lines indented with Unicode spaces of different byte lengths in
    /// one fenced block made the dedent cut inside a character (a panic).
    #[test]
    fn unicode_space_indents_do_not_split_characters() {
        let raw = "```python\n\u{a0}=\n\u{2003}a\n```\n```\ndef f(x):\n\u{2003}\u{2003}return x\n  \n```\nf(1)\n";
        let parsed = parse_response("u", "m", raw);
        assert_eq!(parsed.candidates.iter().map(|c| c.input.as_str()).collect::<Vec<_>>(), ["1"]);
    }

    #[test]
    fn responses_read_as_code_and_inputs() {
        struct Case {
            name: &'static str,
            raw: String,
            code: Option<&'static str>,
            inputs: &'static [&'static str],
            problem: Option<&'static str>,
        }
        let fenced = format!(
            "```python\n{CODE}\n```\nInputs:\nf('a,b', ',')\nf('', ',')\nf('x y', ' ')\nf('a;b;c', ';')\nf('q', 'q')\n"
        );
        let cases = vec![
            Case { name: "the asked format, five inputs", raw: fenced.clone(), code: Some(CODE), inputs: &["'a,b', ','", "'', ','", "'x y', ' '", "'a;b;c', ';'", "'q', 'q'"], problem: None },
            Case { name: "unfenced", raw: format!("{CODE}\n\nInputs:\nf('a b', ' ')\nf('', 'x')\n"), code: Some(CODE), inputs: &["'a b', ' '", "'', 'x'"], problem: None },
            Case {
                name: "chatter around the answer, prose mentioning f(x)",
                raw: format!("Sure! Here is a function.\n\n```py\n{CODE}\n```\n\nThe call f(text, sep) returns the number of parts.\nTest inputs:\n1. f('a-b', '-')\n2) `f('-', '-')`\n- f('x', 'y')  # no separator\nHope this helps!"),
                code: Some(CODE),
                inputs: &["'a-b', '-'", "'-', '-'", "'x', 'y'"],
                problem: None,
            },
            Case {
                name: "asserts inside the code block are inputs, not code",
                raw: format!("```python\n{CODE}\n\nassert f('a,b', ',') == 2\nassert f('', ',') == 1\nprint(f('abc', 'b'))\n```"),
                code: Some(CODE),
                inputs: &["'a,b', ','", "'', ','", "'abc', 'b'"],
                problem: None,
            },
            Case {
                name: "more than five inputs and repeats: five distinct kept",
                raw: format!("{fenced}f('a,b', ',')\nf('1', '1')\nf('2', '2')\n"),
                code: Some(CODE),
                inputs: &["'a,b', ','", "'', ','", "'x y', ' '", "'a;b;c', ';'", "'q', 'q'"],
                problem: None,
            },
            Case {
                name: "nested brackets and strings with parentheses and quotes",
                raw: "```\ndef f(items, key):\n    return [i for i in items if key in i]\n```\nf([('a', ')'), {'k': [1, (2, 3)]}], 'it\\'s')\nf(\"\"\"tri)ple\"\"\", ')')\n".into(),
                code: Some("def f(items, key):\n    return [i for i in items if key in i]"),
                inputs: &["[('a', ')'), {'k': [1, (2, 3)]}], 'it\\'s'", "\"\"\"tri)ple\"\"\", ')'"],
                problem: None,
            },
            Case {
                name: "indented block, main guard and a REPL",
                raw: "    ```python\n    import re\n    def f(s):\n        return s.upper()\n\n    if __name__ == '__main__':\n        print(f('ab'))\n    ```\n>>> f('cd')\n".into(),
                code: Some("import re\ndef f(s):\n    return s.upper()"),
                inputs: &["'ab'", "'cd'"],
                problem: None,
            },
            Case {
                name: "broken code is still a candidate",
                raw: "```python\ndef f(x:\n    return x.split(\n```\nf('a b')\n".into(),
                code: Some("def f(x:\n    return x.split("),
                inputs: &["'a b'"],
                problem: None,
            },
            Case {
                name: "a helper function and a decorator kept with f",
                raw: "from functools import cache\n@cache\ndef f(n):\n    return g(n)\ndef g(n):\n    return n\nThat is all.\nf(3)\n".into(),
                code: Some("from functools import cache\n@cache\ndef f(n):\n    return g(n)\ndef g(n):\n    return n"),
                inputs: &["3"],
                problem: None,
            },
            Case { name: "no function f", raw: "```python\ndef g(x):\n    return x\n```\nf(1)\n".into(), code: None, inputs: &[], problem: Some("the response defines no function named f") },
            Case { name: "no code at all", raw: "I cannot help with that.".into(), code: None, inputs: &[], problem: Some("the response holds no function") },
            Case { name: "function but no inputs", raw: format!("```python\n{CODE}\n```\nInputs: none, sorry."), code: None, inputs: &[], problem: Some("the response has a function f but no test inputs") },
            Case { name: "an unclosed call is not an input", raw: format!("{CODE}\nf('a', \nf('b', 'c')\n"), code: Some(CODE), inputs: &["'b', 'c'"], problem: None },
            Case { name: "empty", raw: " \n".into(), code: None, inputs: &[], problem: Some("the response is empty") },
            Case { name: "windows line ends", raw: fenced.replace('\n', "\r\n"), code: Some(CODE), inputs: &["'a,b', ','", "'', ','", "'x y', ' '", "'a;b;c', ';'", "'q', 'q'"], problem: None },
        ];
        for case in cases {
            let parsed = parse_response("str.split-2", "str.split", &case.raw);
            assert_eq!(parsed.raw, case.raw, "{}: the raw text is kept", case.name);
            assert_eq!(parsed.rejection().map(|r| r.rule), case.problem.map(|_| Rule::Unparseable), "{}", case.name);
            match case.problem {
                Some(start) => {
                    assert!(
                        parsed.problem.as_deref().is_some_and(|p| p.starts_with(start)),
                        "{}: {:?}",
                        case.name,
                        parsed.problem
                    );
                    assert!(parsed.candidates.is_empty(), "{}", case.name);
                }
                None => assert_eq!(parsed.problem, None, "{}", case.name),
            }
            let inputs: Vec<&str> = parsed.candidates.iter().map(|c| c.input.as_str()).collect();
            assert_eq!(inputs, case.inputs, "{}", case.name);
            if let Some(code) = case.code.filter(|_| case.problem.is_none()) {
                for (k, c) in parsed.candidates.iter().enumerate() {
                    assert_eq!(c.code, code, "{}", case.name);
                    assert_eq!(c.id, format!("str.split-2-{}", k + 1), "{}", case.name);
                    assert_eq!(c.method.as_deref(), Some("str.split"));
                }
            }
        }
    }
}
