//! Wrong answers for MHC. One interface, two kinds of source: offline (this file: a plausible
//! wrong value made by mutating the true one without changing its type) and, later, a model. Any
//! source only proposes; the caller checks by execution that a candidate really is wrong.

use tree_sitter::Node;

use crate::syntax::NodeKind;
use crate::rng::Rng;
use crate::syntax::{self, named_children, text};
use crate::Prediction;

/// What a source is asked for.
#[derive(Clone, Debug)]
pub struct WrongAnswerRequest<'a> {
    pub code: &'a str,
    pub function_name: &'a str,
    pub call: &'a str,
    pub expected_output: &'a str,
    pub prediction: Prediction,
}

/// Proposes wrong answers, best first: for output prediction, return-value literals; for input
/// prediction, argument texts (what goes between the call's parentheses).
pub trait WrongAnswerSource {
    fn candidates(&mut self, request: &WrongAnswerRequest, rng: &mut Rng) -> Result<Vec<String>, String>;
}

/// The offline source: type-preserving mutations of the true literal (off by one, one character
/// changed, an element dropped or two swapped, a boolean flipped).
#[derive(Clone, Debug)]
pub struct OfflineWrongAnswers {
    /// How many candidates to propose at most.
    pub limit: usize,
}

impl Default for OfflineWrongAnswers {
    fn default() -> Self {
        OfflineWrongAnswers { limit: 8 }
    }
}

impl WrongAnswerSource for OfflineWrongAnswers {
    fn candidates(&mut self, request: &WrongAnswerRequest, rng: &mut Rng) -> Result<Vec<String>, String> {
        let mut candidates = match request.prediction {
            Prediction::Output => mutations_of_literal(request.expected_output)?,
            Prediction::Input => mutations_of_arguments(request.call)?,
        };
        candidates.sort();
        candidates.dedup();
        rng.shuffle(&mut candidates);
        candidates.truncate(self.limit);
        if candidates.is_empty() {
            return Err("no type-preserving mutation of this value".to_string());
        }
        Ok(candidates)
    }
}

/// Every one-step mutation of a Python literal, as full literal texts.
pub fn mutations_of_literal(literal: &str) -> Result<Vec<String>, String> {
    let literal = literal.trim();
    let tree = syntax::parse_valid(literal, "the value").map_err(|e| e.to_string())?;
    let expression = named_children(tree.root_node())
        .first()
        .and_then(|statement| named_children(*statement).into_iter().next())
        .ok_or_else(|| "the value is not an expression".to_string())?;
    let out: Vec<String> = mutations(expression, literal).into_iter().filter(|m| m != literal).collect();
    Ok(out)
}

/// Mutations of one argument of `call` at a time, as argument texts.
pub fn mutations_of_arguments(call: &str) -> Result<Vec<String>, String> {
    let tree = syntax::parse_valid(call, "the call").map_err(|e| e.to_string())?;
    let call_node = named_children(tree.root_node())
        .first()
        .and_then(|statement| named_children(*statement).into_iter().next())
        .filter(|n| n.kind_name() == "call")
        .ok_or_else(|| "the call is not a call".to_string())?;
    let arguments = call_node.child_by_field_name("arguments").ok_or_else(|| "the call has no arguments".to_string())?;
    let inner = (arguments.start_byte() + 1, arguments.end_byte().saturating_sub(1));
    let mut out = Vec::new();
    for argument in named_children(arguments).into_iter().filter(|n| n.kind_name() != "comment") {
        let value = if argument.kind_name() == "keyword_argument" { argument.child_by_field_name("value") } else { Some(argument) };
        let Some(value) = value else { continue };
        for mutated in mutations(value, call) {
            out.push(format!("{}{}{}", &call[inner.0..value.start_byte()], mutated, &call[value.end_byte()..inner.1]));
        }
    }
    let original = &call[inner.0..inner.1];
    out.retain(|a| a != original);
    if out.iter().any(|a| a.contains('\n')) {
        out.retain(|a| !a.contains('\n'));
    }
    Ok(out)
}

fn mutations(node: Node, source: &str) -> Vec<String> {
    let t = text(node, source);
    match node.kind_name() {
        "integer" => off_by_one(t),
        "float" => vec![bump_last_digit(t)],
        "unary_operator" if t.starts_with('-') && named_children(node).first().is_some_and(|n| matches!(n.kind_name(), "integer" | "float")) => {
            if named_children(node)[0].kind_name() == "integer" { off_by_one(t) } else { vec![bump_last_digit(t)] }
        }
        "true" => vec!["False".to_string()],
        "false" => vec!["True".to_string()],
        "none" => vec!["0".to_string()],
        "string" => change_one_character(t),
        "parenthesized_expression" => named_children(node)
            .first()
            .map(|inner| mutations(*inner, source).into_iter().map(|m| format!("({m})")).collect())
            .unwrap_or_default(),
        "list" | "tuple" | "set" | "dictionary" => container_mutations(node, source),
        "call" if t == "set()" => vec!["{0}".to_string()],
        _ => Vec::new(),
    }
}

fn off_by_one(t: &str) -> Vec<String> {
    match t.replace('_', "").parse::<i128>() {
        Ok(v) => [v.checked_add(1), v.checked_sub(1)].into_iter().flatten().map(|v| v.to_string()).collect(),
        Err(_) => vec![bump_last_digit(t)],
    }
}

/// `1.5` -> `1.6`, `2e-05` -> `3e-05`: the last digit of the mantissa, plus one (9 -> 0).
fn bump_last_digit(t: &str) -> String {
    let mantissa_end = t.find(['e', 'E', 'j', 'J']).unwrap_or(t.len());
    match t[..mantissa_end].rfind(|c: char| c.is_ascii_digit()) {
        Some(i) => {
            let digit = t.as_bytes()[i] - b'0';
            format!("{}{}{}", &t[..i], (digit + 1) % 10, &t[i + 1..])
        }
        None => t.to_string(),
    }
}

/// One letter or digit replaced (first, middle and last candidates); `''` gets a letter.
fn change_one_character(t: &str) -> Vec<String> {
    let Some(open) = t.find(['\'', '"']) else { return Vec::new() };
    let quote = &t[open..open + 1];
    let triple = t[open..].starts_with(&quote.repeat(3));
    let quote_len = if triple { 3 } else { 1 };
    let prefix = &t[..open];
    if prefix.to_ascii_lowercase().contains('f') || t.len() < open + 2 * quote_len {
        return Vec::new();
    }
    let body = &t[open + quote_len..t.len() - quote_len];
    // Characters not after a backslash, so escapes stay intact.
    let positions: Vec<(usize, char)> = body
        .char_indices()
        .filter(|(i, c)| c.is_ascii_alphanumeric() && !body[..*i].ends_with('\\'))
        .collect();
    if positions.is_empty() {
        return vec![format!("{prefix}{q}{body}a{q}", q = &t[open..open + quote_len])];
    }
    let picks: std::collections::BTreeSet<usize> = [0, positions.len() / 2, positions.len() - 1].into_iter().collect();
    let mut out = Vec::new();
    for k in picks {
        let (i, c) = positions[k];
        let replacement = match c {
            'a' => 'b',
            'A' => 'B',
            '0' => '1',
            c if c.is_ascii_digit() => '0',
            c if c.is_ascii_uppercase() => 'A',
            _ => 'a',
        };
        out.push(format!("{}{replacement}{}", &t[..open + quote_len + i], &t[open + quote_len + i + c.len_utf8()..]));
    }
    out
}

fn container_mutations(node: Node, source: &str) -> Vec<String> {
    let elements: Vec<String> = named_children(node).into_iter().filter(|n| n.kind_name() != "comment").map(|n| text(n, source).to_string()).collect();
    let nodes: Vec<Node> = named_children(node).into_iter().filter(|n| n.kind_name() != "comment").collect();
    let rebuild = |items: &[String]| -> String {
        match node.kind_name() {
            "list" => format!("[{}]", items.join(", ")),
            "tuple" if items.len() == 1 => format!("({},)", items[0]),
            "tuple" => format!("({})", items.join(", ")),
            "set" if items.is_empty() => "set()".to_string(),
            _ => format!("{{{}}}", items.join(", ")),
        }
    };
    if elements.is_empty() {
        let filler = if node.kind_name() == "dictionary" { "0: 0" } else { "0" };
        return vec![rebuild(&[filler.to_string()])];
    }
    let mut out = Vec::new();
    for i in 0..elements.len() {
        let mut dropped = elements.clone();
        dropped.remove(i);
        out.push(rebuild(&dropped));
        if i + 1 < elements.len() && elements[i] != elements[i + 1] && node.kind_name() != "set" && node.kind_name() != "dictionary" {
            let mut swapped = elements.clone();
            swapped.swap(i, i + 1);
            out.push(rebuild(&swapped));
        }
    }
    // One element (a dict entry's value) mutated: the first, middle and last, to keep the count small.
    let picks = [0, elements.len() / 2, elements.len() - 1];
    for &i in picks.iter().collect::<std::collections::BTreeSet<_>>() {
        let target = if nodes[i].kind_name() == "pair" { nodes[i].child_by_field_name("value") } else { Some(nodes[i]) };
        let Some(target) = target else { continue };
        for mutated in mutations(target, source).into_iter().take(2) {
            let element = format!("{}{}{}", &source[nodes[i].start_byte()..target.start_byte()], mutated, &source[target.end_byte()..nodes[i].end_byte()]);
            let mut changed = elements.clone();
            changed[i] = element;
            out.push(rebuild(&changed));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_core::sample::OutputKind;

    #[test]
    fn literal_mutations_keep_the_type_and_change_the_value() {
        let cases: &[(&str, &[&str])] = &[
            ("5", &["6", "4"]),
            ("-3", &["-2", "-4"]),
            ("2.5", &["2.6"]),
            ("True", &["False"]),
            ("'abc'", &["'bbc'", "'aac'", "'aba'"]),
            ("''", &["'a'"]),
            ("[1, 2]", &["[2]", "[2, 1]", "[1]", "[2, 2]", "[0, 2]", "[1, 3]", "[1, 1]"]),
            ("(7,)", &["()", "(8,)", "(6,)"]),
            ("{'a': 1}", &["{}", "{'a': 2}", "{'a': 0}"]),
            ("[]", &["[0]"]),
        ];
        for (literal, expected) in cases {
            let mut got = mutations_of_literal(literal).unwrap();
            got.sort();
            let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
            expected.sort();
            expected.dedup();
            assert_eq!(got, expected, "{literal}");
            for m in &got {
                assert_eq!(OutputKind::of_literal(m), OutputKind::of_literal(literal), "{literal} -> {m}");
            }
        }
    }

    #[test]
    fn argument_mutations_change_one_argument() {
        let got = mutations_of_arguments("f([1], x='a')").unwrap();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        let mut expected = vec!["[0], x='a'", "[2], x='a'", "[], x='a'", "[1], x='b'"];
        expected.sort();
        assert_eq!(got_sorted, expected);
    }

    #[test]
    fn offline_source_is_seeded() {
        let request = WrongAnswerRequest { code: "", function_name: "f", call: "f(1)", expected_output: "[1, 2, 3]", prediction: Prediction::Output };
        let a = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(1)).unwrap();
        let b = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(1)).unwrap();
        assert_eq!(a, b);
        assert!(a.len() <= 8 && !a.is_empty() && !a.contains(&"[1, 2, 3]".to_string()));
    }
}
