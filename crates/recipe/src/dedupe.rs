//! Deduplication: two kept candidates are one when their code and their input are the same once
//! normalised. The first of each group is kept (file order), the others dropped and counted.
//!
//! Code normalisation: line endings become `\n`, trailing whitespace of every line is dropped,
//! and blank lines and comment-only lines (first non-blank character `#`) are left out.
//! Indentation and everything else stay: they can change what the code does.
//!
//! Input normalisation: trimmed; outside string literals (`'…'`, `"…"`, with backslash escapes)
//! whitespace disappears, except one space where it separates two word characters (`not x`).
//! So `[1,2], 'a  b'` and ` [1, 2] ,'a  b' ` are the same input, `'a b'` and `'a  b'` are not.

use std::collections::BTreeSet;

use crate::rows::Kept;

/// The code as compared for duplicates.
pub fn normalise_code(code: &str) -> String {
    let unified = code.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(unified.len());
    for line in unified.lines() {
        let line = line.trim_end();
        let first = line.trim_start();
        if first.is_empty() || first.starts_with('#') {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The input as compared for duplicates.
pub fn normalise_input(input: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(input.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut space = false;
    for c in input.trim().chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            out.push(c);
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        space = false;
        if c == '\'' || c == '"' {
            quote = Some(c);
        }
        out.push(c);
    }
    out
}

/// What deduplication gave: the first of each group, in their order, and how many were dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deduped {
    pub unique: Vec<Kept>,
    pub dropped: usize,
}

/// Keeps the first row of every (normalised code, normalised input) group.
pub fn dedupe(rows: &[Kept]) -> Deduped {
    let mut seen = BTreeSet::new();
    let mut out = Deduped::default();
    for row in rows {
        if seen.insert((normalise_code(&row.code), normalise_input(&row.input))) {
            out.unique.push(row.clone());
        } else {
            out.dropped += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_normalisation() {
        // (code, normalised)
        let cases: &[(&str, &str)] = &[
            ("def f(x):\n    return x", "def f(x):\n    return x\n"),
            ("def f(x):   \r\n    return x  \r\n", "def f(x):\n    return x\n"),
            ("def f(x):\r    return x", "def f(x):\n    return x\n"),
            ("\n\ndef f(x):\n\n   \n    return x\n\n", "def f(x):\n    return x\n"),
            ("# a helper\ndef f(x):\n    # the answer\n    return x", "def f(x):\n    return x\n"),
            // An inline comment and indentation are kept: only whole comment lines go.
            ("def f(x):\n    return x  # same\n", "def f(x):\n    return x  # same\n"),
            ("def f(x):\n  return x", "def f(x):\n  return x\n"),
            ("def f(x):\n    return '#'", "def f(x):\n    return '#'\n"),
        ];
        for (code, normalised) in cases {
            assert_eq!(normalise_code(code), *normalised, "{code:?}");
        }
    }

    #[test]
    fn input_normalisation() {
        // (input, normalised)
        let cases: &[(&str, &str)] = &[
            ("1, 2", "1,2"),
            ("  [1,  2 ] ,\t3 \n", "[1,2],3"),
            ("'a  b', \"c , d\"", "'a  b',\"c , d\""),
            ("'it\\'s  here' , 1", "'it\\'s  here',1"),
            ("{'k' : [ ] }", "{'k':[]}"),
            ("not  x", "not x"),
            ("-1, - 2", "-1,-2"),
            ("", ""),
        ];
        for (input, normalised) in cases {
            assert_eq!(normalise_input(input), *normalised, "{input:?}");
        }
        assert_ne!(normalise_input("'a b'"), normalise_input("'a  b'"));
        assert_ne!(normalise_input("12"), normalise_input("1 2"));
    }

    fn kept(id: &str, code: &str, input: &str) -> Kept {
        Kept { id: id.into(), method: None, code: code.into(), input: input.into(), output: "0".into() }
    }

    #[test]
    fn the_first_of_each_group_is_kept() {
        let code = "def f(x):\n    return x";
        // (rows, ids kept, dropped)
        let cases: &[(&[Kept], &[&str], usize)] = &[
            (&[], &[], 0),
            (&[kept("a", code, "1"), kept("b", code, "2")], &["a", "b"], 0),
            (
                &[
                    kept("a", code, "1, 2"),
                    kept("b", "# f\ndef f(x):  \r\n    return x\n", " 1,2"),
                    kept("c", code, "1, 3"),
                ],
                &["a", "c"],
                1,
            ),
            (&[kept("a", code, "1"), kept("b", code, "1"), kept("c", code, "1")], &["a"], 2),
            // Same input, different code (indentation differs): two candidates.
            (&[kept("a", code, "1"), kept("b", "def f(x):\n  return x", "1")], &["a", "b"], 0),
        ];
        for (rows, ids, dropped) in cases {
            let out = dedupe(rows);
            assert_eq!(out.unique.iter().map(|k| k.id.as_str()).collect::<Vec<_>>(), *ids);
            assert_eq!(out.dropped, *dropped);
            assert_eq!(out.unique.len() + out.dropped, rows.len());
        }
    }
}
