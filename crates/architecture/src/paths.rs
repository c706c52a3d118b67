//! The module paths a Rust source file names: every `use` tree, expanded, and every `crate::`,
//! `self::` and `super::` path in the code, with comments and string literals left out. A
//! reading, not a parser: enough to tell which of a crate's own modules a file depends on.

/// Every path the text names that starts at `crate`, `self` or `super`, as its segments
/// (`["crate", "jobs", "batch", "BatchPolling"]`). Uses of other crates are left out.
pub fn local_paths(text: &str) -> Vec<Vec<String>> {
    let tokens = without_test_items(tokens(&code_only(text)));
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" {
            let end = tokens[i..].iter().position(|t| t == ";").map_or(tokens.len(), |p| i + p);
            expand_tree(&tokens[i + 1..end], &mut Vec::new(), &mut out);
            i = end + 1;
            continue;
        }
        let starts_path = i == 0 || tokens[i - 1] != "::";
        if starts_path && matches!(tokens[i].as_str(), "crate" | "self" | "super") {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while j + 1 < tokens.len() && tokens[j] == "::" && is_ident(&tokens[j + 1]) {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            // `self` alone is a method's receiver, not a path.
            if path.len() > 1 {
                out.push(path);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out.retain(|p| matches!(p.first().map(String::as_str), Some("crate" | "self" | "super")));
    out
}

/// The tokens without the items marked `#[cfg(test)]` (a test module, a test-only function or
/// `use`): what only the tests need is no dependency of the module.
fn without_test_items(tokens: Vec<String>) -> Vec<String> {
    const MARK: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if tokens.len() - i >= MARK.len() && MARK.iter().zip(&tokens[i..]).all(|(m, t)| m == t) {
            i += MARK.len();
            // The item: up to its `;`, or its body's closing brace when a `{` comes first.
            let semi = tokens[i..].iter().position(|t| t == ";").map(|p| i + p);
            let brace = tokens[i..].iter().position(|t| t == "{").map(|p| i + p);
            i = match (semi, brace) {
                (Some(s), Some(b)) if b < s => matching_brace(&tokens, b) + 1,
                (None, Some(b)) => matching_brace(&tokens, b) + 1,
                (Some(s), _) => s + 1,
                (None, None) => tokens.len(),
            };
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// Expands one use tree (`a::{b, c::{d, e as f}, *}`) into full paths under `prefix`.
fn expand_tree(tokens: &[String], prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let depth = prefix.len();
    let mut i = 0;
    // Leading `::` (a path from the extern prelude) and `pub`-like words never start a local path.
    while i < tokens.len() {
        let t = &tokens[i];
        if t == "{" {
            let close = matching_brace(tokens, i);
            for part in split_top_level(&tokens[i + 1..close]) {
                expand_tree(part, prefix, out);
            }
            prefix.truncate(depth);
            return;
        }
        if t == "as" {
            break;
        }
        if is_ident(t) && t != "self" || (t == "self" && prefix.is_empty()) {
            prefix.push(t.clone());
        }
        i += 1;
    }
    if prefix.len() > depth || tokens.iter().any(|t| t == "self") {
        out.push(prefix.clone());
    }
    prefix.truncate(depth);
}

fn matching_brace(tokens: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

fn split_top_level(tokens: &[String]) -> Vec<&[String]> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, t) in tokens.iter().enumerate() {
        match t.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "," if depth == 0 => {
                parts.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts.retain(|p| !p.is_empty());
    parts
}

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && t.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Identifiers, `::` and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// The text with comments, string literals and character literals blanked out (a lifetime stays).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&chars, i) {
            // A raw string: r"..." or r#"..."#, with as many hashes closing as opening.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            out.push_str("' '");
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

#[cfg(test)]
mod tests {
    use super::local_paths;

    fn joined(text: &str) -> Vec<String> {
        local_paths(text).into_iter().map(|p| p.join("::")).collect()
    }

    #[test]
    fn paths_are_read_from_use_trees_and_code() {
        let cases: &[(&str, &[&str])] = &[
            ("use crate::jobs::batch::BatchPolling;", &["crate::jobs::batch::BatchPolling"]),
            (
                "use crate::jobs::{batch::{self, Poll}, runs::Runs as R};",
                &["crate::jobs::batch", "crate::jobs::batch::Poll", "crate::jobs::runs::Runs"],
            ),
            ("use super::{manifest, status::*};", &["super::manifest", "super::status"]),
            ("use std::path::Path; use serde::Deserialize;", &[]),
            (
                "let x = crate::clock::now_ms() + super::super::a::b(self.c);",
                &["crate::clock::now_ms", "super::super::a::b"],
            ),
            ("fn f(&self) { self.run() }", &[]),
            ("let s = \"crate::not::a::path\"; // crate::nor::this", &[]),
            ("let s = r#\"use crate::raw;\"#; /* crate::block */ let c = '\"'; crate::x::y", &["crate::x::y"]),
            ("fn g<'a>(s: &'a str) -> &'a str { crate::z::w(s) }", &["crate::z::w"]),
            ("pub(crate) use self::inner::Thing;", &["self::inner::Thing"]),
            (
                "use crate::a::X;\n#[cfg(test)]\nmod tests { use crate::b::Y; fn f() { crate::c::z() } }\nfn g() { crate::d::w() }",
                &["crate::a::X", "crate::d::w"],
            ),
            ("#[cfg(test)] use crate::e::T; #[cfg(test)] fn h() { crate::f::g() } use crate::k::L;", &["crate::k::L"]),
        ];
        for (text, want) in cases {
            assert_eq!(joined(text), *want, "{text}");
        }
    }
}
