//! Wrong answers for MHC. One interface, several sources: offline (this file: a plausible wrong
//! value made by mutating the true one without changing its type, farther ones first), a file or
//! a model's proposals ([`crate::claims_file`], [`crate::model_prompt`]). Any source only
//! proposes, best first; MHC drops proposals equal to the true value as literals, and
//! verification checks by execution that the first one it keeps really is wrong, moving on to the
//! next when it is not ([`crate::verify::Verification`]).

use execbench_pysyntax::Node;

use crate::Prediction;
use crate::distance::{call_arguments, levenshtein};
use crate::rng::Rng;
use crate::syntax::NodeKind;
use crate::syntax::{self, named_children, text};

/// What a source is asked for.
#[derive(Clone, Debug)]
pub struct WrongAnswerRequest<'a> {
    /// The sample's id (a file of claims is matched by it).
    pub sample_id: &'a str,
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

    /// Output prediction: argument texts on which verification runs the function first; what it
    /// returns there (when that is another value of a usable literal form) is claimed before the
    /// candidates. None by default.
    fn probes(&mut self, _request: &WrongAnswerRequest, _rng: &mut Rng) -> Vec<String> {
        Vec::new()
    }
}

/// The offline source: type-preserving mutations of the true literal (off by one, one character
/// changed, an element dropped or two swapped, a boolean flipped) and wider ones of the same type
/// (other numbers and strings, emptied, reversed, grown or filled containers, arguments of calls
/// such as `range(1, 5)`, two arguments at once).
///
/// A claim one edit away from the truth reads like a typo and nearly hands the reader the answer,
/// so proposals at edit distance 2 or more come first (those of about the truth's size before the
/// others), and the one-edit ones only after them, as a fallback ([`far_first`]). Within each group
/// the order is the seeded shuffle's.
///
/// Input prediction: many functions give the same result for a nearby input (`isdigit()` of `'abc'`
/// and of `'bbc'`), so there are many candidates; after the same-type ones at distance >= 2 come
/// arguments of another type (`None`, `0`, `''`, `[]`, `{}`, `[0]`, `{0: 0}`), in a fixed order: for
/// a function whose result does not depend on its input (`nums.clear(); return 'quack'`) only a call
/// that raises is wrong, and verification takes such a call only when no claim returns another value.
///
/// Output prediction: besides the literal mutations, the source proposes probes ([`WrongAnswerSource::probes`]):
/// nearby inputs on which verification runs the function, proposing what it returns there before
/// any literal mutation, since that is a value the program really produces.
///
/// `None` is the one value of its type, so no mutation of it keeps the type: for a `None` output
/// the source proposes the values a reader might expect instead, `False`, `0`, `''`, `[]`, and
/// the call's literal arguments (a function that mutates its argument in place is often misread
/// as returning it).
#[derive(Clone, Debug)]
pub struct OfflineWrongAnswers {
    /// How many candidates to propose at most from each distance group (output prediction), or
    /// how many one-step candidates (input prediction).
    pub limit: usize,
    /// Input prediction: how many wider candidates to add at most.
    pub wider_limit: usize,
    /// Output prediction: how many nearby inputs to run the function on at most.
    pub probe_limit: usize,
}

impl Default for OfflineWrongAnswers {
    fn default() -> Self {
        OfflineWrongAnswers { limit: 8, wider_limit: 64, probe_limit: 4 }
    }
}

impl WrongAnswerSource for OfflineWrongAnswers {
    fn candidates(&mut self, request: &WrongAnswerRequest, rng: &mut Rng) -> Result<Vec<String>, String> {
        let candidates = match request.prediction {
            Prediction::Output if request.expected_output.trim() == "None" => instead_of_none(request.call),
            Prediction::Output => {
                let truth = request.expected_output.trim();
                let mut all = wider_mutations_of_literal(truth)?;
                all.sort();
                all.dedup();
                rng.shuffle(&mut all);
                let ordered = far_first(all, truth, &[]);
                // At most `limit` of each group, so the near fallback is never crowded out.
                let (far, near): (Vec<String>, Vec<String>) =
                    ordered.into_iter().partition(|c| levenshtein(c, truth) >= 2);
                far.into_iter().take(self.limit).chain(near.into_iter().take(self.limit)).collect()
            }
            Prediction::Input => {
                let same_type = self.same_type_arguments(request.call, rng)?;
                let retyped: Vec<String> =
                    retyped_arguments(request.call)?.into_iter().filter(|r| !same_type.contains(r)).collect();
                let truth = call_arguments(request.call).unwrap_or_default();
                far_first(same_type, &truth, &retyped)
            }
        };
        if candidates.is_empty() {
            return Err("no type-preserving mutation of this value".to_string());
        }
        Ok(candidates)
    }

    /// Output prediction: one-step mutations of the arguments first (the nearest inputs), then
    /// wider ones, each group shuffled. None for a `None` output (what mostly returns `None`
    /// returns it whatever the input).
    fn probes(&mut self, request: &WrongAnswerRequest, rng: &mut Rng) -> Vec<String> {
        if request.prediction != Prediction::Output || request.expected_output.trim() == "None" {
            return Vec::new();
        }
        let mut probes = self.same_type_arguments(request.call, rng).unwrap_or_default();
        probes.truncate(self.probe_limit);
        probes
    }
}

impl OfflineWrongAnswers {
    /// Same-type argument mutations: up to `limit` one-step ones, then up to `wider_limit` wider
    /// ones, each group deduplicated and shuffled.
    fn same_type_arguments(&self, call: &str, rng: &mut Rng) -> Result<Vec<String>, String> {
        let mut near = mutations_of_arguments(call)?;
        near.sort();
        near.dedup();
        rng.shuffle(&mut near);
        near.truncate(self.limit);
        let mut wider = wider_mutations_of_arguments(call)?;
        wider.sort();
        wider.dedup();
        wider.retain(|w| !near.contains(w));
        rng.shuffle(&mut wider);
        wider.truncate(self.wider_limit);
        near.extend(wider);
        Ok(near)
    }
}

/// `same_type` then `other_type` candidates reordered, stably, by their edit distance to `truth`:
/// first same-type ones at distance >= 2 of about the truth's size that keep part of it (fewer
/// edits than the truth has characters: `'cba'` for `'abc'` before `'Hello, World!'`), then the
/// other same-type ones of about its size, then those of another size, then `other_type` ones at
/// distance >= 2, and last everything within one edit of the truth.
pub fn far_first(same_type: Vec<String>, truth: &str, other_type: &[String]) -> Vec<String> {
    let truth_len = truth.chars().count();
    let tier = |c: &str, same: bool| -> u8 {
        let distance = levenshtein(c, truth);
        let len = c.chars().count();
        let similar_size = len.abs_diff(truth_len) <= 3 || (len * 3 >= truth_len * 2 && truth_len * 3 >= len * 2);
        match (distance <= 1, same, similar_size, distance < truth_len) {
            (true, _, _, _) => 4,
            (false, false, _, _) => 3,
            (false, true, true, true) => 0,
            (false, true, true, false) => 1,
            (false, true, false, _) => 2,
        }
    };
    let mut tiered: Vec<(u8, String)> = same_type
        .into_iter()
        .map(|c| (tier(&c, true), c))
        .chain(other_type.iter().map(|c| (tier(c, false), c.clone())))
        .collect();
    // `sort_by_key` is stable: the shuffle's order survives inside each tier.
    tiered.sort_by_key(|(tier, _)| *tier);
    tiered.into_iter().map(|(_, c)| c).collect()
}

/// Wider mutations of a Python literal (which include the one-step ones), as full literal texts.
pub fn wider_mutations_of_literal(literal: &str) -> Result<Vec<String>, String> {
    let literal = literal.trim();
    let tree = syntax::parse_valid(literal, "the value").map_err(|e| e.to_string())?;
    let expression = named_children(tree.root_node())
        .first()
        .and_then(|statement| named_children(*statement).into_iter().next())
        .ok_or_else(|| "the value is not an expression".to_string())?;
    let out: Vec<String> =
        wider(expression, literal, 0).into_iter().filter(|m| m != literal && !m.contains('\n')).collect();
    Ok(out)
}

/// Every one-step mutation of a Python literal, as full literal texts.
pub fn mutations_of_literal(literal: &str) -> Result<Vec<String>, String> {
    let literal = literal.trim();
    let tree = syntax::parse_valid(literal, "the value").map_err(|e| e.to_string())?;
    let expression = named_children(tree.root_node())
        .first()
        .and_then(|statement| named_children(*statement).into_iter().next())
        .ok_or_else(|| "the value is not an expression".to_string())?;
    let out: Vec<String> = mutations(expression, literal, 0).into_iter().filter(|m| m != literal).collect();
    Ok(out)
}

/// Wrong values for a `None` output: falsy values of other types, then the call's arguments that
/// are plain literals on one line (not `None` itself).
fn instead_of_none(call: &str) -> Vec<String> {
    let mut out: Vec<String> = ["False", "0", "''", "[]"].iter().map(|s| s.to_string()).collect();
    let Ok(tree) = syntax::parse_valid(call, "the call") else { return out };
    let arguments = named_children(tree.root_node())
        .first()
        .and_then(|statement| named_children(*statement).into_iter().next())
        .filter(|n| n.kind_name() == "call")
        .and_then(|c| c.child_by_field_name("arguments"));
    for argument in arguments.map(named_children).unwrap_or_default() {
        let value = if argument.kind_name() == "keyword_argument" {
            argument.child_by_field_name("value")
        } else {
            Some(argument)
        };
        let Some(value) = value else { continue };
        let t = text(value, call);
        // Short first: it also bounds how deep `is_plain_literal` recurses.
        if t.len() <= 200 && !t.contains('\n') && value.kind_name() != "none" && is_plain_literal(value) {
            out.push(t.to_string());
        }
    }
    out
}

/// A literal that needs no name to evaluate: numbers, strings, booleans, containers of those.
fn is_plain_literal(node: Node) -> bool {
    match node.kind_name() {
        "integer" | "float" | "true" | "false" | "none" | "string" | "concatenated_string" => true,
        "unary_operator" => named_children(node).first().is_some_and(|n| matches!(n.kind_name(), "integer" | "float")),
        "list" | "tuple" | "set" | "dictionary" | "parenthesized_expression" | "pair" => {
            named_children(node).into_iter().filter(|n| n.kind_name() != "comment").all(is_plain_literal)
        }
        _ => false,
    }
}

/// Mutations of one argument of `call` at a time, as argument texts.
pub fn mutations_of_arguments(call: &str) -> Result<Vec<String>, String> {
    argument_mutations(call, false)
}

/// Wider mutations of one argument at a time, and of two arguments at once, as argument texts.
pub fn wider_mutations_of_arguments(call: &str) -> Result<Vec<String>, String> {
    argument_mutations(call, true)
}

/// Values of other types that an argument may be replaced with, as a last resort.
const OTHER_TYPES: &[&str] = &["None", "0", "''", "[]", "{}", "[0]", "{0: 0}"];

/// Each argument replaced by each of [`OTHER_TYPES`] in turn (argument by argument); for a call
/// without arguments, one argument too many.
pub fn retyped_arguments(call: &str) -> Result<Vec<String>, String> {
    let tree = syntax::parse_valid(call, "the call").map_err(|e| e.to_string())?;
    let (inner, values) = argument_values(&tree)?;
    if values.is_empty() {
        return Ok(vec!["0".to_string()]);
    }
    let mut out = Vec::new();
    for value in values {
        for other in OTHER_TYPES.iter().filter(|o| **o != text(value, call)) {
            out.push(format!("{}{other}{}", &call[inner.0..value.start_byte()], &call[value.end_byte()..inner.1]));
        }
    }
    out.retain(|a| !a.contains('\n'));
    Ok(out)
}

/// The byte range inside a call's parentheses and its argument values (keyword arguments' values,
/// comments left out), from the call's parsed tree.
fn argument_values(tree: &execbench_pysyntax::Tree) -> Result<((usize, usize), Vec<Node<'_>>), String> {
    let arguments = named_children(tree.root_node())
        .first()
        .and_then(|statement| named_children(*statement).into_iter().next())
        .filter(|n| n.kind_name() == "call")
        .and_then(|c| c.child_by_field_name("arguments"))
        .ok_or_else(|| "the call is not a call".to_string())?;
    let inner = (arguments.start_byte() + 1, arguments.end_byte().saturating_sub(1));
    let values = named_children(arguments)
        .into_iter()
        .filter(|n| n.kind_name() != "comment")
        .filter_map(|a| if a.kind_name() == "keyword_argument" { a.child_by_field_name("value") } else { Some(a) })
        .collect();
    Ok((inner, values))
}

fn argument_mutations(call: &str, wide: bool) -> Result<Vec<String>, String> {
    let tree = syntax::parse_valid(call, "the call").map_err(|e| e.to_string())?;
    let (inner, values) = argument_values(&tree)?;
    let mutate = |value: Node| if wide { wider(value, call, 0) } else { mutations(value, call, 0) };
    let per_value: Vec<Vec<String>> = values.iter().map(|v| mutate(*v)).collect();
    let mut out = Vec::new();
    for (value, mutated) in values.iter().zip(&per_value) {
        for m in mutated {
            out.push(format!("{}{}{}", &call[inner.0..value.start_byte()], m, &call[value.end_byte()..inner.1]));
        }
    }
    if wide {
        // Two arguments at once, a few of each: some functions only change their result when
        // both do (`f(text, n)` that pads `text` to `n`).
        for i in 0..values.len() {
            for j in i + 1..values.len() {
                for (a, b) in per_value[i].iter().take(3).zip(per_value[j].iter().take(3)) {
                    out.push(format!(
                        "{}{a}{}{b}{}",
                        &call[inner.0..values[i].start_byte()],
                        &call[values[i].end_byte()..values[j].start_byte()],
                        &call[values[j].end_byte()..inner.1]
                    ));
                }
            }
        }
    }
    let original = &call[inner.0..inner.1];
    out.retain(|a| a != original);
    if out.iter().any(|a| a.contains('\n')) {
        out.retain(|a| !a.contains('\n'));
    }
    Ok(out)
}

/// How deep into nested values mutations reach: each level multiplies the work (three elements
/// are mutated per container), and a hostile input may nest thousands of levels.
const MAX_DEPTH: usize = 4;
/// Containers longer than this have only a few of their positions dropped or swapped: every
/// candidate is a copy of the whole value.
const MAX_POSITIONS: usize = 16;

/// The positions of a sequence of `len` elements that get their own candidates.
fn positions(len: usize) -> Vec<usize> {
    if len <= MAX_POSITIONS {
        return (0..len).collect();
    }
    let picked: std::collections::BTreeSet<usize> = [0, 1, len / 2, len - 2, len - 1].into_iter().collect();
    picked.into_iter().collect()
}

fn mutations(node: Node, source: &str, depth: usize) -> Vec<String> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    let t = text(node, source);
    match node.kind_name() {
        "integer" => off_by_one(t),
        "float" => vec![bump_last_digit(t)],
        "unary_operator"
            if t.starts_with('-')
                && named_children(node).first().is_some_and(|n| matches!(n.kind_name(), "integer" | "float")) =>
        {
            if named_children(node)[0].kind_name() == "integer" {
                off_by_one(t)
            } else {
                vec![bump_last_digit(t)]
            }
        }
        "true" => vec!["False".to_string()],
        "false" => vec!["True".to_string()],
        // Inside a container `None` is left alone (dropping or swapping elements still changes
        // the value); a `None` output gets its own candidates (`instead_of_none`).
        "none" => Vec::new(),
        "string" => change_one_character(t),
        "parenthesized_expression" => named_children(node)
            .first()
            .map(|inner| mutations(*inner, source, depth + 1).into_iter().map(|m| format!("({m})")).collect())
            .unwrap_or_default(),
        "list" | "tuple" | "set" | "dictionary" => container_mutations(node, source, depth),
        "call" if t == "set()" => vec!["{0}".to_string()],
        _ => Vec::new(),
    }
}

/// Strings every string argument may become (letters, digits, spaces, punctuation): different
/// character classes are what string functions tell apart. ASCII only: RustPython 0.5 panics
/// natively on some slices of non-ASCII strings (`s[::-1][::2].rfind(...)`), which would abort
/// the command line; no sample's own input is made non-ASCII.
const OTHER_STRINGS: &[&str] =
    &["", "a", "A", "1", " ", "abc", "ABC", "123", "a1 B2", "Hello, World!", "aaaa", "x.y-z", "42.42"];
/// What an empty container may be filled with, so that its elements' type can still be guessed.
const OTHER_ELEMENTS: &[&str] = &["0", "1, 2, 3", "'a'", "'a', 'b'", "-1, 0", "[0]"];
const OTHER_ENTRIES: &[&str] = &["0: 0", "'a': 1", "'a': 'b'", "1: 'a'", "'a': [0]"];

/// Mutations further from the value than [`mutations`] (which they include), keeping its type.
fn wider(node: Node, source: &str, depth: usize) -> Vec<String> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    let t = text(node, source);
    let mut out = mutations(node, source, depth);
    let int_value = |t: &str| t.replace('_', "").parse::<i128>().ok();
    match node.kind_name() {
        "integer" | "unary_operator" if int_value(t).is_some() => {
            let v = int_value(t).unwrap_or(0);
            out.extend(
                [
                    Some(0),
                    v.checked_neg(),
                    v.checked_add(10),
                    v.checked_mul(2).and_then(|d| d.checked_add(3)),
                    Some(100),
                    Some(-7),
                ]
                .into_iter()
                .flatten()
                .map(|w| w.to_string()),
            );
        }
        "float" | "unary_operator" if t.trim_start_matches('-').parse::<f64>().is_ok() => {
            out.extend(["0.0", "1.5", "-2.25", "100.0"].iter().map(|s| s.to_string()));
        }
        "string" => out.extend(other_strings(t)),
        "parenthesized_expression" => {
            if let Some(inner) = named_children(node).first() {
                out.extend(wider(*inner, source, depth + 1).into_iter().map(|m| format!("({m})")));
            }
        }
        "list" | "tuple" | "set" | "dictionary" => out.extend(other_containers(node, source, depth)),
        "call" if t == "set()" => out.extend(OTHER_ELEMENTS.iter().map(|e| format!("{{{e}}}"))),
        // `dict(a=1)`, `range(1, 5)`, `''.join(['A'] * 3)`: the values inside change.
        "call" => {
            let arguments: Vec<Node> = node
                .child_by_field_name("arguments")
                .map(named_children)
                .unwrap_or_default()
                .into_iter()
                .filter(|n| n.kind_name() != "comment")
                .collect();
            // One argument left out: `range(2, 9)` -> `range(9)`, `dict(a=1, b=2)` -> `dict(b=2)`.
            for (i, argument) in arguments.iter().enumerate() {
                let end = arguments.get(i + 1).map_or(argument.end_byte(), |next| next.start_byte());
                let start =
                    if i + 1 == arguments.len() && i > 0 { arguments[i - 1].end_byte() } else { argument.start_byte() };
                out.push(format!("{}{}", &source[node.start_byte()..start], &source[end..node.end_byte()]));
            }
            for argument in arguments {
                let value = if argument.kind_name() == "keyword_argument" {
                    argument.child_by_field_name("value")
                } else {
                    Some(argument)
                };
                let Some(value) = value else { continue };
                for m in wider(value, source, depth + 1).into_iter().take(8) {
                    out.push(format!(
                        "{}{m}{}",
                        &source[node.start_byte()..value.start_byte()],
                        &source[value.end_byte()..node.end_byte()]
                    ));
                }
            }
        }
        "binary_operator" => {
            for side in ["left", "right"] {
                let Some(operand) = node.child_by_field_name(side) else { continue };
                for m in wider(operand, source, depth + 1).into_iter().take(8) {
                    out.push(format!(
                        "{}{m}{}",
                        &source[node.start_byte()..operand.start_byte()],
                        &source[operand.end_byte()..node.end_byte()]
                    ));
                }
            }
        }
        _ => {}
    }
    out.retain(|m| m != t);
    out
}

/// Other strings with the same prefix and quotes: from [`OTHER_STRINGS`], and the body reversed,
/// extended, shortened, doubled and in other cases (only for bodies without escapes).
fn other_strings(t: &str) -> Vec<String> {
    let Some(open) = t.find(['\'', '"']) else { return Vec::new() };
    let quote = &t[open..open + 1];
    let quote_len = if t[open..].starts_with(&quote.repeat(3)) { 3 } else { 1 };
    let prefix = &t[..open];
    let lower_prefix = prefix.to_ascii_lowercase();
    if lower_prefix.contains('f') || t.len() < open + 2 * quote_len {
        return Vec::new();
    }
    let quotes = &t[open..open + quote_len];
    let body = &t[open + quote_len..t.len() - quote_len];
    let mut bodies: Vec<String> = OTHER_STRINGS.iter().map(|s| s.to_string()).collect();
    if !body.contains('\\') && !body.contains(['\'', '"']) {
        let chars: Vec<char> = body.chars().collect();
        bodies.push(chars.iter().rev().collect());
        bodies.push(format!("{body}a"));
        bodies.push(format!("{body}1"));
        bodies.push(format!("{body} "));
        bodies.push(body.repeat(2));
        bodies.push(body.to_uppercase());
        bodies.push(body.to_lowercase());
        bodies.push(chars.iter().skip(1).collect());
        bodies.push(chars.iter().take(chars.len().saturating_sub(1)).collect());
    }
    bodies.into_iter().filter(|b| b != body).map(|b| format!("{prefix}{quotes}{b}{quotes}")).collect()
}

/// Emptied, reversed, grown, or (when empty) filled containers of the same kind, and wider
/// mutations of a few elements.
fn other_containers(node: Node, source: &str, depth: usize) -> Vec<String> {
    let kind = node.kind_name();
    let nodes: Vec<Node> = named_children(node).into_iter().filter(|n| n.kind_name() != "comment").collect();
    let elements: Vec<String> = nodes.iter().map(|n| text(*n, source).to_string()).collect();
    let rebuild = |items: &[String]| rebuild_container(kind, items);
    let mut out = Vec::new();
    if elements.is_empty() {
        let fillers = if kind == "dictionary" { OTHER_ENTRIES } else { OTHER_ELEMENTS };
        for filler in fillers {
            out.push(rebuild(&[filler.to_string()]));
        }
        return out;
    }
    out.push(rebuild(&[]));
    if kind != "set" && kind != "dictionary" {
        let mut reversed = elements.clone();
        reversed.reverse();
        out.push(rebuild(&reversed));
    }
    if kind != "dictionary" {
        let mut grown = elements.clone();
        grown.push(elements[0].clone());
        out.push(rebuild(&grown));
        if kind != "set" {
            out.push(rebuild(&[elements.clone(), elements.clone()].concat()));
        }
    }
    for &i in [0, elements.len() / 2, elements.len() - 1].iter().collect::<std::collections::BTreeSet<_>>() {
        // An element, or a dict entry's value and its key.
        let targets = if nodes[i].kind_name() == "pair" {
            vec![nodes[i].child_by_field_name("value"), nodes[i].child_by_field_name("key")]
        } else {
            vec![Some(nodes[i])]
        };
        for target in targets.into_iter().flatten() {
            for m in wider(target, source, depth + 1).into_iter().take(6) {
                let mut changed = elements.clone();
                changed[i] = format!(
                    "{}{m}{}",
                    &source[nodes[i].start_byte()..target.start_byte()],
                    &source[target.end_byte()..nodes[i].end_byte()]
                );
                out.push(rebuild(&changed));
            }
        }
    }
    out
}

/// A container literal of `kind` (a tree-sitter node kind) holding `items`.
fn rebuild_container(kind: &str, items: &[String]) -> String {
    match kind {
        "list" => format!("[{}]", items.join(", ")),
        "tuple" if items.len() == 1 => format!("({},)", items[0]),
        "tuple" => format!("({})", items.join(", ")),
        "set" if items.is_empty() => "set()".to_string(),
        _ => format!("{{{}}}", items.join(", ")),
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
    let positions: Vec<(usize, char)> =
        body.char_indices().filter(|(i, c)| c.is_ascii_alphanumeric() && !body[..*i].ends_with('\\')).collect();
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

fn container_mutations(node: Node, source: &str, depth: usize) -> Vec<String> {
    let elements: Vec<String> = named_children(node)
        .into_iter()
        .filter(|n| n.kind_name() != "comment")
        .map(|n| text(n, source).to_string())
        .collect();
    let nodes: Vec<Node> = named_children(node).into_iter().filter(|n| n.kind_name() != "comment").collect();
    let rebuild = |items: &[String]| rebuild_container(node.kind_name(), items);
    if elements.is_empty() {
        let filler = if node.kind_name() == "dictionary" { "0: 0" } else { "0" };
        return vec![rebuild(&[filler.to_string()])];
    }
    let mut out = Vec::new();
    for i in positions(elements.len()) {
        let mut dropped = elements.clone();
        dropped.remove(i);
        out.push(rebuild(&dropped));
        if i + 1 < elements.len()
            && elements[i] != elements[i + 1]
            && node.kind_name() != "set"
            && node.kind_name() != "dictionary"
        {
            let mut swapped = elements.clone();
            swapped.swap(i, i + 1);
            out.push(rebuild(&swapped));
        }
    }
    // One element (a dict entry's value) mutated: the first, middle and last, to keep the count small.
    let picks = [0, elements.len() / 2, elements.len() - 1];
    for &i in picks.iter().collect::<std::collections::BTreeSet<_>>() {
        let target =
            if nodes[i].kind_name() == "pair" { nodes[i].child_by_field_name("value") } else { Some(nodes[i]) };
        let Some(target) = target else { continue };
        for mutated in mutations(target, source, depth + 1).into_iter().take(2) {
            let element = format!(
                "{}{}{}",
                &source[nodes[i].start_byte()..target.start_byte()],
                mutated,
                &source[target.end_byte()..nodes[i].end_byte()]
            );
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
    fn none_gets_plausible_values_of_other_types() {
        let request = WrongAnswerRequest {
            sample_id: "s",
            code: "",
            function_name: "f",
            call: "f([1, 2], None, k=-3, g=len)",
            expected_output: "None",
            prediction: Prediction::Output,
        };
        let mut got = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(0)).unwrap();
        got.sort();
        assert_eq!(got, ["''", "-3", "0", "False", "[1, 2]", "[]"]);
        // Inside a container, None is dropped or moved, never turned into 0.
        let mut inner = mutations_of_literal("[None, 1]").unwrap();
        inner.sort();
        assert_eq!(inner, ["[1, None]", "[1]", "[None, 0]", "[None, 2]", "[None]"]);
    }

    /// Input prediction reaches further than one step, keeping each argument's type, and ends
    /// with arguments of other types, in a fixed order.
    #[test]
    fn input_candidates_widen_and_end_with_other_types() {
        let wider = wider_mutations_of_arguments("f('ab', [], range(1, 3))").unwrap();
        for expected in [
            "'', [], range(1, 3)",
            "'ba', [], range(1, 3)",
            "'ab', [0], range(1, 3)",
            "'ab', ['a', 'b'], range(1, 3)",
            "'ab', [], range(3)",
            "'ab', [], range(1, 13)",
            "'bb', [0], range(1, 3)",
        ] {
            assert!(wider.contains(&expected.to_string()), "{expected} not in {wider:?}");
        }
        assert!(wider.iter().all(|w| w.is_ascii() && !w.contains('\n')), "{wider:?}");
        assert_eq!(retyped_arguments("f()").unwrap(), ["0"]);
        assert_eq!(
            retyped_arguments("f(x=1)").unwrap(),
            ["x=None", "x=0", "x=''", "x=[]", "x={}", "x=[0]", "x={0: 0}"]
        );
        let request = WrongAnswerRequest {
            sample_id: "s",
            code: "",
            function_name: "f",
            call: "f('abc', 2)",
            expected_output: "0",
            prediction: Prediction::Input,
        };
        let all = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(3)).unwrap();
        // Other types after every same-type proposal at distance >= 2, in their fixed order; `''`
        // for the string is no other type (it is a same-type proposal), and `'abc', 0` is one edit
        // from the truth, so it is the very last.
        let first_retyped = all.iter().position(|c| c == "None, 2").unwrap();
        assert!(all[..first_retyped].iter().all(|c| levenshtein(c, "'abc', 2") >= 2), "{all:?}");
        let far_retyped = [
            "None, 2",
            "0, 2",
            "[], 2",
            "{}, 2",
            "[0], 2",
            "{0: 0}, 2",
            "'abc', None",
            "'abc', ''",
            "'abc', []",
            "'abc', {}",
            "'abc', [0]",
            "'abc', {0: 0}",
        ];
        assert_eq!(all[first_retyped..first_retyped + far_retyped.len()], far_retyped, "{all:?}");
        assert_eq!(all.last().map(String::as_str), Some("'abc', 0"));
        assert_eq!(all, OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(3)).unwrap(), "seeded");
    }

    /// Proposals at edit distance >= 2 from the truth come first, the ones within one edit only
    /// after them; both kinds are there when the value allows them.
    #[test]
    fn far_proposals_come_before_near_ones() {
        let cases: &[(Prediction, &str, &str)] = &[
            (Prediction::Output, "f(1)", "6"),
            (Prediction::Output, "f(1)", "'hello'"),
            (Prediction::Output, "f(1)", "[1, 2, 3]"),
            (Prediction::Output, "f(1)", "{'a': 1}"),
            (Prediction::Output, "f(1)", "True"),
            (Prediction::Input, "f(3)", "0"),
            (Prediction::Input, "f('abc', 2)", "0"),
            (Prediction::Input, "f([1, 2], x='a')", "0"),
        ];
        for (prediction, call, output) in cases {
            let request = WrongAnswerRequest {
                sample_id: "s",
                code: "",
                function_name: "f",
                call,
                expected_output: output,
                prediction: *prediction,
            };
            let truth = match prediction {
                Prediction::Output => output.to_string(),
                Prediction::Input => call_arguments(call).unwrap(),
            };
            for seed in 0..4 {
                let all = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(seed)).unwrap();
                let near: Vec<bool> = all.iter().map(|c| levenshtein(c, &truth) <= 1).collect();
                let first_near = near.iter().position(|n| *n).unwrap_or(all.len());
                assert!(near[first_near..].iter().all(|n| *n), "{call} -> {output}, seed {seed}: {all:?}");
                // `True` has one wrong value of its type and it is four edits away.
                assert!(first_near > 0, "{call} -> {output}: nothing at distance >= 2 in {all:?}");
                assert!(
                    *output == "True" || first_near < all.len() || *prediction == Prediction::Input,
                    "{call} -> {output}: no near fallback in {all:?}"
                );
            }
        }
    }

    /// The tiers of `far_first`, each case a shuffled input and the order it must come out in.
    #[test]
    fn far_first_orders_by_distance_size_and_type() {
        // (truth, same-type candidates, other-type candidates, expected order)
        type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let cases: &[Case] = &[
            (
                "'abc'",
                &["'abd'", "'Hello, World!'", "'cba'", "'xyz'"],
                &[],
                &["'cba'", "'xyz'", "'Hello, World!'", "'abd'"],
            ),
            // `15` is one edit from `5` (an insertion); a one-character truth has nothing to keep.
            ("5", &["6", "15", "-7", "100"], &["None", "''"], &["-7", "100", "None", "''", "6", "15"]),
            ("[1, 2]", &["[2]", "[]", "[1, 2, 1, 2]", "[2, 1]"], &["0"], &["[2]", "[2, 1]", "[]", "[1, 2, 1, 2]", "0"]),
        ];
        for (truth, same, other, expected) in cases {
            let got = far_first(
                same.iter().map(|s| s.to_string()).collect(),
                truth,
                &other.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            );
            assert_eq!(got, *expected, "{truth}");
        }
    }

    /// Output prediction probes nearby inputs of the same types, one-step ones first.
    #[test]
    fn output_prediction_probes_nearby_inputs() {
        let mut source = OfflineWrongAnswers::default();
        let request = WrongAnswerRequest {
            sample_id: "s",
            code: "",
            function_name: "f",
            call: "f('abc', 2)",
            expected_output: "'c'",
            prediction: Prediction::Output,
        };
        let probes = source.probes(&request, &mut Rng::new(5));
        let near = mutations_of_arguments("f('abc', 2)").unwrap();
        assert_eq!(probes.len(), 4);
        assert!(probes.iter().all(|p| near.contains(p)), "{probes:?}");
        let none = WrongAnswerRequest { expected_output: "None", ..request.clone() };
        let input = WrongAnswerRequest { prediction: Prediction::Input, ..request.clone() };
        assert!(
            source.probes(&none, &mut Rng::new(5)).is_empty() && source.probes(&input, &mut Rng::new(5)).is_empty()
        );
    }

    /// Deep or long values cost a bounded number of candidates, never a hang.
    #[test]
    fn nested_and_long_values_stay_cheap() {
        let deep = format!("{}1{}", "[1, 2, ".repeat(2000), "]".repeat(2000));
        let started = std::time::Instant::now();
        let _ = mutations_of_literal(&deep);
        let _ = wider_mutations_of_arguments(&format!("f({deep})"));
        let long = format!("[{}]", (0..5000).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
        assert!(mutations_of_literal(&long).unwrap().len() <= 20);
        assert!(wider_mutations_of_arguments(&format!("f({long})")).unwrap().len() <= 60);
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    }

    #[test]
    fn offline_source_is_seeded() {
        let request = WrongAnswerRequest {
            sample_id: "s",
            code: "",
            function_name: "f",
            call: "f(1)",
            expected_output: "[1, 2, 3]",
            prediction: Prediction::Output,
        };
        let a = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(1)).unwrap();
        let b = OfflineWrongAnswers::default().candidates(&request, &mut Rng::new(1)).unwrap();
        assert_eq!(a, b);
        assert!(a.len() <= 16 && !a.is_empty() && !a.contains(&"[1, 2, 3]".to_string()));
    }
}
