//! Generated values printed the way Python's `repr` prints them parse back to the same value
//! (`PyValue::canonical` is this crate's equality), and no text makes the parser panic.

use execbench_literal::{PyValue, parse_literal};
use execbench_proptest_cases::cases;
use proptest::prelude::*;

/// Python's `repr` of a float: the shortest digits that read back, positional for exponents in
/// -4..16 and `1e+16` style otherwise, always with a `.` or an exponent.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sci = format!("{f:e}"); // shortest digits: "-1.5e-7"
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    if (-4..16).contains(&exp) {
        let text = format!("{f:?}"); // Rust's Debug is positional in this range
        if text.contains('.') || text.contains("inf") { text } else { format!("{text}.0") }
    } else {
        format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

/// A complex part as `repr` prints it: an integral value without `.0`.
fn complex_part(f: f64) -> String {
    let text = float_repr(f);
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

fn complex_repr(re: f64, im: f64) -> String {
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", complex_part(im));
    }
    let imag = complex_part(im);
    let sign = if imag.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{imag}j)", complex_part(re))
}

fn quote_for(has_single: bool, has_double: bool) -> char {
    if has_single && !has_double { '"' } else { '\'' }
}

fn str_repr(s: &str) -> String {
    let quote = quote_for(s.contains('\''), s.contains('"'));
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            // Printable characters as themselves, the rest escaped (as `repr` does).
            c if (' '..='~').contains(&c) || c.is_alphanumeric() => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

fn bytes_repr(bytes: &[u8]) -> String {
    let quote = quote_for(bytes.contains(&b'\''), bytes.contains(&b'"'));
    let mut out = format!("b{quote}");
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b if b as char == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            b => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
    out
}

fn items_repr(items: &[PyValue]) -> String {
    items.iter().map(repr).collect::<Vec<_>>().join(", ")
}

/// `repr(value)` as CPython prints it.
fn repr(value: &PyValue) -> String {
    match value {
        PyValue::None => "None".into(),
        PyValue::Ellipsis => "Ellipsis".into(),
        PyValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        PyValue::Int(digits) => digits.clone(),
        PyValue::Float(f) => float_repr(*f),
        PyValue::Complex { re, im } => complex_repr(*re, *im),
        PyValue::Str(s) => str_repr(s),
        PyValue::Bytes(b) => bytes_repr(b),
        PyValue::List(items) => format!("[{}]", items_repr(items)),
        PyValue::Tuple(items) if items.len() == 1 => format!("({},)", repr(&items[0])),
        PyValue::Tuple(items) => format!("({})", items_repr(items)),
        PyValue::Set(items) if items.is_empty() => "set()".into(),
        PyValue::Set(items) => format!("{{{}}}", items_repr(items)),
        PyValue::FrozenSet(items) if items.is_empty() => "frozenset()".into(),
        PyValue::FrozenSet(items) => format!("frozenset({{{}}})", items_repr(items)),
        PyValue::Dict(entries) => {
            let parts: Vec<String> = entries.iter().map(|(k, v)| format!("{}: {}", repr(k), repr(v))).collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn int_digits() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        // Beyond 64 bits: Python ints have no size.
        ("-?[1-9][0-9]{18,60}").prop_map(|s| s),
        Just("0".to_string()),
    ]
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        (-1.0e6..1.0e6f64),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        Just(1e16),
        Just(1e-5),
    ]
}

fn finite_float() -> impl Strategy<Value = f64> {
    float().prop_filter("complex parts that repr writes as a literal", |f| f.is_finite())
}

/// Hashable scalars: what a set or a dict key may hold.
fn scalar() -> impl Strategy<Value = PyValue> {
    prop_oneof![
        Just(PyValue::None),
        Just(PyValue::Ellipsis),
        any::<bool>().prop_map(PyValue::Bool),
        int_digits().prop_map(PyValue::Int),
        float().prop_map(PyValue::Float),
        (finite_float(), finite_float()).prop_map(|(re, im)| PyValue::Complex { re, im }),
        any::<String>().prop_map(PyValue::Str),
        "[ -~\n\t'\"\\\\]{0,12}".prop_map(PyValue::Str),
        proptest::collection::vec(any::<u8>(), 0..12).prop_map(PyValue::Bytes),
    ]
}

fn value() -> impl Strategy<Value = PyValue> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(PyValue::List),
            proptest::collection::vec(inner.clone(), 0..6).prop_map(PyValue::Tuple),
            proptest::collection::vec(scalar(), 0..6).prop_map(PyValue::Set),
            proptest::collection::vec(scalar(), 0..6).prop_map(PyValue::FrozenSet),
            proptest::collection::vec((scalar(), inner), 0..6).prop_map(PyValue::Dict),
        ]
    })
}

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn a_repr_parses_back_to_the_same_value(v in value()) {
        let text = repr(&v);
        let parsed = parse_literal(&text);
        prop_assert!(parsed.is_ok(), "{text:?} refused: {:?}", parsed.err());
        prop_assert_eq!(parsed.unwrap().canonical(), v.canonical(), "text {:?}", text);
    }

    #[test]
    fn any_text_is_a_value_or_a_reason(text in "\\PC{0,40}|[\\[\\](){}'\",:0-9a-z.+-]{0,60}") {
        if let Err(reason) = parse_literal(&text) {
            prop_assert!(!reason.0.is_empty(), "empty reason for {text:?}");
        }
    }

    #[test]
    fn deep_brackets_are_refused_not_overflowed(depth in 90usize..400, open in "[\\[(\\{]") {
        let close = match open.as_str() { "[" => "]", "(" => ")", _ => "}" };
        let text = format!("{}{}", open.repeat(depth), close.repeat(depth));
        let parsed = parse_literal(&text);
        if depth > execbench_literal::MAX_NESTING {
            let refusal = parsed.expect_err("past the nesting limit, a refusal");
            prop_assert!(refusal.0.contains("nested more than"), "{}", refusal);
        } else if open == "[" {
            // Lists nest freely up to the limit.
            prop_assert!(parsed.is_ok(), "{:?}", parsed);
        }
    }
}
