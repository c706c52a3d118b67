//! Python literals as data: parsing a literal's text (with the real Python parser) into a value
//! and comparing two values with type-aware structural equality, all in Rust. Nothing is ever
//! executed, so an answer cannot smuggle code or a forged `__eq__` into a comparison.
//!
//! Accepted: `None`, `True`/`False`, `...` (and its repr `Ellipsis`), ints of any size (any base), floats (and the reprs
//! `inf`/`nan`), complex numbers (`1j`, `(1-2j)`), strings and bytes (escapes and implicit
//! concatenation resolved by the parser), lists, tuples, sets, dicts, unary `-`/`+` on numbers, and
//! the reprs `set()`, `frozenset()`, `frozenset({...})`. Anything else is "not a literal".
//!
//! Equality: `1`, `1.0` and `True` differ; a list is not a tuple; set and dict order does not
//! matter (a dict keeps the last value of a repeated key, a set drops repeats); `0.0 == -0.0` and
//! `nan` equals `nan` (both print the same).

use std::collections::BTreeMap;
use std::fmt;
use std::fmt::Write as _;

use ruff_python_ast::{self as ast, Expr, Number, Operator, UnaryOp};

/// A Python value that a literal can denote.
#[derive(Clone, Debug)]
pub enum PyValue {
    None,
    Ellipsis,
    Bool(bool),
    /// Decimal digits without leading zeros; `-` first when negative; zero is `0`.
    Int(String),
    Float(f64),
    Complex {
        re: f64,
        im: f64,
    },
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<PyValue>),
    Tuple(Vec<PyValue>),
    Set(Vec<PyValue>),
    FrozenSet(Vec<PyValue>),
    Dict(Vec<(PyValue, PyValue)>),
}

/// Why a text is not a literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLiteral(pub String);

impl fmt::Display for NotLiteral {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Deeper brackets than this are refused before parsing: a recursive parser would exhaust the
/// stack (an abort, not a panic) on `[[[[...]]]]` from a hostile answer.
pub const MAX_NESTING: usize = 100;

/// Parses the text of one Python literal.
pub fn parse_literal(text: &str) -> Result<PyValue, NotLiteral> {
    let expr = parse_expression_guarded(text).map_err(NotLiteral)?;
    value_of(&expr)
}

/// Parses one Python expression, refusing texts nested too deep to parse safely.
pub fn parse_expression_guarded(text: &str) -> Result<Expr, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty".to_string());
    }
    if nesting_depth(text) > MAX_NESTING {
        return Err(format!("nested more than {MAX_NESTING} levels deep"));
    }
    ruff_python_parser::parse_expression(text)
        .map(|parsed| parsed.into_expr())
        .map_err(|e| format!("not valid Python: {}", e.error))
}

/// A bound on how deep a recursive parser would go on `text`, from its tokens: bracket depth plus
/// runs of prefix operators (`- - - 1`, `not not x`), or the count of tokens that nest without
/// brackets (`lambda`, `if`, `**`, `not`, `await`), whichever is larger.
pub fn nesting_depth(text: &str) -> usize {
    use ruff_python_ast::token::TokenKind as T;
    let mut lexer = ruff_python_parser::lexer::lex(text, ruff_python_parser::Mode::Module);
    let (mut depth, mut deepest, mut prefix_run, mut nesting_words) = (0usize, 0usize, 0usize, 0usize);
    loop {
        match lexer.next_token() {
            T::EndOfFile => break,
            T::Lpar | T::Lsqb | T::Lbrace => depth += 1,
            T::Rpar | T::Rsqb | T::Rbrace => depth = depth.saturating_sub(1),
            T::Minus | T::Plus | T::Tilde => prefix_run += 1,
            T::Not | T::Await | T::Lambda | T::If | T::DoubleStar | T::Yield => {
                prefix_run += 1;
                nesting_words += 1;
            }
            T::NonLogicalNewline | T::Comment => {}
            _ => prefix_run = 0,
        }
        deepest = deepest.max(depth + prefix_run).max(nesting_words);
    }
    deepest
}

/// The value a literal expression denotes.
pub fn value_of(expr: &Expr) -> Result<PyValue, NotLiteral> {
    match expr {
        Expr::NoneLiteral(_) => Ok(PyValue::None),
        Expr::EllipsisLiteral(_) => Ok(PyValue::Ellipsis),
        Expr::BooleanLiteral(b) => Ok(PyValue::Bool(b.value)),
        Expr::NumberLiteral(n) => number(&n.value),
        Expr::StringLiteral(s) => Ok(PyValue::Str(s.value.to_str().to_string())),
        Expr::BytesLiteral(b) => {
            Ok(PyValue::Bytes(b.value.iter().flat_map(|part| part.value.iter().copied()).collect()))
        }
        Expr::List(list) => Ok(PyValue::List(elements(&list.elts)?)),
        Expr::Tuple(tuple) => Ok(PyValue::Tuple(elements(&tuple.elts)?)),
        Expr::Set(set) => Ok(PyValue::Set(elements(&set.elts)?)),
        Expr::Dict(dict) => {
            let mut items = Vec::with_capacity(dict.items.len());
            for item in &dict.items {
                let Some(key) = &item.key else {
                    return Err(NotLiteral("`**` unpacking in a dict runs code: not a literal".to_string()));
                };
                items.push((value_of(key)?, value_of(&item.value)?));
            }
            Ok(PyValue::Dict(items))
        }
        Expr::UnaryOp(unary) => signed(unary),
        Expr::BinOp(binop) => complex_sum(binop),
        Expr::Name(name) => match name.id.as_str() {
            // How Python prints infinite and undefined floats.
            "inf" => Ok(PyValue::Float(f64::INFINITY)),
            "nan" => Ok(PyValue::Float(f64::NAN)),
            // How Python prints `...` (found by the generated reprs in tests/prop_literal.rs).
            "Ellipsis" => Ok(PyValue::Ellipsis),
            other => Err(NotLiteral(format!("the name `{other}` is a variable, not a literal"))),
        },
        Expr::Call(call) => set_repr(call),
        other => Err(NotLiteral(format!("{} is not a literal", describe(other)))),
    }
}

fn elements(exprs: &[Expr]) -> Result<Vec<PyValue>, NotLiteral> {
    exprs
        .iter()
        .map(|e| match e {
            Expr::Starred(_) => Err(NotLiteral("`*` unpacking runs code: not a literal".to_string())),
            e => value_of(e),
        })
        .collect()
}

fn number(n: &Number) -> Result<PyValue, NotLiteral> {
    Ok(match n {
        Number::Int(i) => PyValue::Int(decimal(&i.to_string()).ok_or_else(|| {
            NotLiteral(format!("an integer in base 2, 8 or 16 with more than {MAX_RADIX_DIGITS} digits is refused (too slow to convert)"))
        })?),
        Number::Float(f) => PyValue::Float(*f),
        Number::Complex { real, imag } => PyValue::Complex { re: *real, im: *imag },
    })
}

/// Base conversion is quadratic; decimal integers of any length need none.
const MAX_RADIX_DIGITS: usize = 10_000;

/// `-x` and `+x` on numbers only (`-True` is an int in Python, but nobody writes it as a literal).
fn signed(unary: &ast::ExprUnaryOp) -> Result<PyValue, NotLiteral> {
    let negate = match unary.op {
        UnaryOp::USub => true,
        UnaryOp::UAdd => false,
        UnaryOp::Not => return Err(NotLiteral("`not` is an operation, not a literal".to_string())),
        UnaryOp::Invert => return Err(NotLiteral("`~` is an operation, not a literal".to_string())),
    };
    match (value_of(&unary.operand)?, negate) {
        (v @ (PyValue::Int(_) | PyValue::Float(_) | PyValue::Complex { .. }), false) => Ok(v),
        (PyValue::Int(digits), true) => Ok(PyValue::Int(negate_decimal(&digits))),
        (PyValue::Float(f), true) => Ok(PyValue::Float(-f)),
        (PyValue::Complex { re, im }, true) => Ok(PyValue::Complex { re: -re, im: -im }),
        (other, _) => Err(NotLiteral(format!("a sign on {} is an operation, not a literal", other.type_name()))),
    }
}

/// `1+2j`, `-1.5-0j`: how Python prints a complex number with a real part.
fn complex_sum(binop: &ast::ExprBinOp) -> Result<PyValue, NotLiteral> {
    let refuse = || NotLiteral(format!("{} is not a literal", describe(&Expr::BinOp(binop.clone()))));
    let sign = match binop.op {
        Operator::Add => 1.0,
        Operator::Sub => -1.0,
        _ => return Err(refuse()),
    };
    let real = match value_of(&binop.left).map_err(|_| refuse())? {
        PyValue::Int(digits) => digits.parse::<f64>().map_err(|_| refuse())?,
        PyValue::Float(f) => f,
        _ => return Err(refuse()),
    };
    let imaginary_literal =
        matches!(&*binop.right, Expr::NumberLiteral(n) if matches!(n.value, Number::Complex { .. }));
    match value_of(&binop.right).map_err(|_| refuse())? {
        PyValue::Complex { re, im } if imaginary_literal && re == 0.0 => {
            Ok(PyValue::Complex { re: real, im: sign * im })
        }
        _ => Err(refuse()),
    }
}

/// `set()`, `frozenset()` and `frozenset({...})`: the reprs of those values, the only calls allowed.
fn set_repr(call: &ast::ExprCall) -> Result<PyValue, NotLiteral> {
    let name = match &*call.func {
        Expr::Name(n) => n.id.as_str(),
        _ => "",
    };
    let args = &call.arguments;
    match (name, args.args.len(), args.keywords.is_empty()) {
        ("set", 0, true) => Ok(PyValue::Set(Vec::new())),
        ("frozenset", 0, true) => Ok(PyValue::FrozenSet(Vec::new())),
        ("frozenset", 1, true) => match value_of(&args.args[0])? {
            PyValue::Set(items) => Ok(PyValue::FrozenSet(items)),
            _ => Err(NotLiteral("`frozenset(...)` of something other than a set literal runs code".to_string())),
        },
        ("", _, _) => Err(NotLiteral("a call runs code: not a literal".to_string())),
        (name, _, _) => Err(NotLiteral(format!("a call to `{name}` runs code: not a literal"))),
    }
}

/// What kind of expression a non-literal is, for messages.
pub fn describe(expr: &Expr) -> &'static str {
    match expr {
        Expr::BoolOp(_) => "a boolean operation (`and`/`or`)",
        Expr::Named(_) => "an assignment expression (`:=`)",
        Expr::BinOp(_) => "an arithmetic operation",
        Expr::UnaryOp(_) => "a unary operation",
        Expr::Lambda(_) => "a lambda",
        Expr::If(_) => "a conditional expression",
        Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) => "a comprehension",
        Expr::Generator(_) => "a generator expression",
        Expr::Await(_) | Expr::Yield(_) | Expr::YieldFrom(_) => "an `await`/`yield`",
        Expr::Compare(_) => "a comparison",
        Expr::Call(_) => "a call",
        Expr::FString(_) | Expr::TString(_) => "an f-string (it runs code)",
        Expr::Attribute(_) => "an attribute access",
        Expr::Subscript(_) => "a subscript",
        Expr::Starred(_) => "a `*` unpacking",
        Expr::Name(_) => "a name",
        Expr::Slice(_) => "a slice",
        _ => "this expression",
    }
}

impl PyValue {
    /// The Python type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Ellipsis => "ellipsis",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Complex { .. } => "complex",
            PyValue::Str(_) => "str",
            PyValue::Bytes(_) => "bytes",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Set(_) => "set",
            PyValue::FrozenSet(_) => "frozenset",
            PyValue::Dict(_) => "dict",
        }
    }

    /// A text that two values share exactly when they are equal in the sense of this module:
    /// type-tagged, with sets and dicts sorted, so equality is one string comparison.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut String) {
        match self {
            PyValue::None => out.push('N'),
            PyValue::Ellipsis => out.push('E'),
            PyValue::Bool(b) => out.push_str(if *b { "T" } else { "F" }),
            PyValue::Int(digits) => {
                let _ = write!(out, "i{digits};");
            }
            PyValue::Float(f) => {
                out.push('f');
                push_float(out, *f);
            }
            PyValue::Complex { re, im } => {
                out.push('c');
                push_float(out, *re);
                push_float(out, *im);
            }
            PyValue::Str(s) => {
                let _ = write!(out, "s{s:?}");
            }
            PyValue::Bytes(b) => {
                let _ = write!(out, "b{b:?}");
            }
            PyValue::List(items) => push_sequence(out, 'l', items),
            PyValue::Tuple(items) => push_sequence(out, 't', items),
            PyValue::Set(items) => push_unordered(out, 'S', items),
            PyValue::FrozenSet(items) => push_unordered(out, 'Z', items),
            PyValue::Dict(items) => {
                // Later keys win, as in Python; then order by key.
                let entries: BTreeMap<String, String> =
                    items.iter().map(|(k, v)| (k.canonical(), v.canonical())).collect();
                out.push_str("d{");
                for (k, v) in entries {
                    let _ = write!(out, "{k}:{v},");
                }
                out.push('}');
            }
        }
    }
}

fn push_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("nan;");
    } else if f == 0.0 {
        out.push_str("0;"); // -0.0 == 0.0
    } else {
        let _ = write!(out, "{f:?};");
    }
}

fn push_sequence(out: &mut String, tag: char, items: &[PyValue]) {
    out.push(tag);
    out.push('[');
    for item in items {
        item.write_canonical(out);
        out.push(',');
    }
    out.push(']');
}

fn push_unordered(out: &mut String, tag: char, items: &[PyValue]) {
    let mut keys: Vec<String> = items.iter().map(PyValue::canonical).collect();
    keys.sort_unstable();
    keys.dedup();
    out.push(tag);
    out.push('{');
    for key in keys {
        out.push_str(&key);
        out.push(',');
    }
    out.push('}');
}

impl PartialEq for PyValue {
    fn eq(&self, other: &Self) -> bool {
        self.canonical() == other.canonical()
    }
}

/// An integer token as the parser keeps it (`123`, `0x_ff`, `1_000`) in canonical decimal; `None`
/// for a non-decimal token too long to convert.
fn decimal(token: &str) -> Option<String> {
    let token: String = token.chars().filter(|&c| c != '_').collect::<String>().to_ascii_lowercase();
    let (digits, radix) = match token.get(..2) {
        Some("0x") => (&token[2..], 16),
        Some("0o") => (&token[2..], 8),
        Some("0b") => (&token[2..], 2),
        _ => {
            let trimmed = token.trim_start_matches('0');
            return Some(if trimmed.is_empty() { "0".to_string() } else { trimmed.to_string() });
        }
    };
    if digits.len() > MAX_RADIX_DIGITS {
        return None;
    }
    // Little-endian limbs of 10^9: multiply-add one digit at a time.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs: Vec<u64> = vec![0];
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { continue };
        let mut carry = d as u64;
        for limb in limbs.iter_mut() {
            let v = *limb * radix as u64 + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut out = String::new();
    let mut iter = limbs.iter().rev();
    if let Some(top) = iter.next() {
        let _ = write!(out, "{top}");
    }
    for limb in iter {
        let _ = write!(out, "{limb:09}");
    }
    Some(out)
}

fn negate_decimal(digits: &str) -> String {
    match digits.strip_prefix('-') {
        Some(positive) => positive.to_string(),
        None if digits == "0" => digits.to_string(),
        None => format!("-{digits}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> Result<bool, NotLiteral> {
        Ok(parse_literal(a)? == parse_literal(b)?)
    }

    /// Pairs of literals and whether they denote the same value.
    #[test]
    fn type_aware_equality() {
        let cases: &[(&str, &str, bool)] = &[
            ("1", "1", true),
            ("1", "1.0", false),
            ("1", "True", false),
            ("1.0", "True", false),
            ("0", "False", false),
            ("0", "-0", true),
            ("0.0", "-0.0", true),
            ("1.0", "1.00", true),
            ("1e3", "1000.0", true),
            ("0.1", "0.10000000000000001", true),
            ("inf", "1e999", true),
            ("-inf", "-1e999", true),
            ("nan", "nan", true),
            ("Ellipsis", "...", true),
            ("{None: Ellipsis}", "{None: ...}", true),
            ("[1, 2]", "(1, 2)", false),
            ("[1, 2]", "[2, 1]", false),
            ("(1,)", "(1, )", true),
            ("{1, 2, 3}", "{3, 1, 2}", true),
            ("{1, 2}", "{1, 2, 2}", true),
            ("{1, 2}", "[1, 2]", false),
            ("set()", "{}", false),
            ("set()", "{*()}", false),
            ("{}", "dict()", false),
            ("frozenset({1, 2})", "frozenset({2, 1})", true),
            ("frozenset({1})", "{1}", false),
            ("{'a': 1, 'b': [2]}", "{'b': [2], 'a': 1}", true),
            ("{'a': 1, 'a': 2}", "{'a': 2}", true),
            ("{'a': 1}", "{'a': 1.0}", false),
            ("'abc'", "\"abc\"", true),
            ("'a\\nb'", "'''a\nb'''", true),
            ("'\\x41\\u00e9'", "'Aé'", true),
            ("'ab' 'c'", "'abc'", true),
            ("r'\\n'", "'\\\\n'", true),
            ("'a'", "b'a'", false),
            ("b'\\x00\\xff'", "b'\\x00' b'\\xff'", true),
            ("123456789012345678901234567890", "123_456_789_012_345_678_901_234_567_890", true),
            ("-123456789012345678901234567890", "-123456789012345678901234567891", false),
            ("0xff", "255", true),
            ("0o17", "15", true),
            ("0b1010", "10", true),
            ("0x1_0000_0000_0000_0000", "18446744073709551616", true),
            ("1j", "0+1j", true),
            ("(1-2j)", "1-2j", true),
            ("(1-2j)", "(1+2j)", false),
            ("-(1+2j)", "(-1-2j)", true),
            ("None", "None", true),
            ("None", "'None'", false),
            ("[[1, (2, {3: 'x'})], {4.5}]", "[[1, (2, {3: 'x'})], {4.5}]", true),
            ("[[1, (2, {3: 'x'})], {4.5}]", "[[1, [2, {3: 'x'}]], {4.5}]", false),
            ("{(1, 2): {3}}", "{(1, 2): {3}}", true),
            ("{'a': {1, 2}}", "{'a': {2, 1}}", true),
            ("'{'", "'}'", false),
            ("'x,'", "'x', ''", false),
        ];
        for (a, b, expected) in cases {
            match same(a, b) {
                Ok(got) => assert_eq!(got, *expected, "{a} vs {b}"),
                Err(e) if *b == "dict()" || b.contains("*()") => assert!(!*expected, "{e}"),
                Err(e) => panic!("{a} vs {b}: {e}"),
            }
        }
    }

    /// Texts that are not literals, and a word the reason must contain.
    #[test]
    fn not_literals() {
        let cases: &[(&str, &str)] = &[
            ("X or True", "boolean operation"),
            ("1 + 1", "arithmetic"),
            ("'a' * 3", "arithmetic"),
            ("f(1)", "call to `f`"),
            ("__import__('os').system('true')", "a call runs code"),
            ("__import__('os')", "call to `__import__`"),
            ("type('X', (), {'__eq__': lambda s, o: True})()", "a call runs code"),
            ("[x for x in 'ab']", "comprehension"),
            ("x", "variable"),
            ("True and 1", "boolean operation"),
            ("not 0", "`not`"),
            ("~1", "`~`"),
            ("-True", "bool"),
            ("f'{1}'", "f-string"),
            ("[*'ab']", "unpacking"),
            ("{**{}}", "unpacking"),
            ("(x := 1)", "assignment"),
            ("1 if 1 else 2", "conditional"),
            ("'abc'[0]", "subscript"),
            ("list.__eq__", "attribute"),
            ("lambda: 1", "lambda"),
            ("1 == 1", "comparison"),
            ("frozenset([1])", "other than a set"),
            ("set([1])", "call to `set`"),
            ("1j + 1", "arithmetic"),
            ("", "empty"),
            ("assert 1", "not valid Python"),
            ("[1, 2", "not valid Python"),
            ("1 2", "not valid Python"),
        ];
        for (text, reason) in cases {
            match parse_literal(text) {
                Ok(v) => panic!("`{text}` parsed as {v:?}"),
                Err(e) => assert!(e.0.contains(reason), "`{text}`: {e}"),
            }
        }
    }

    #[test]
    fn hostile_nesting_is_refused_without_crashing() {
        for text in [
            "[".repeat(100_000),
            format!("{}1", "-".repeat(100_000)),
            format!("{}1{}", "(".repeat(5000), ")".repeat(5000)),
        ] {
            assert!(parse_literal(&text).unwrap_err().0.contains("nested"), "{}", &text[..10]);
        }
        // Brackets inside strings do not count.
        assert!(parse_literal(&format!("'{}'", "[".repeat(500))).is_ok());
        assert!(parse_literal(&format!("{}1{}", "[".repeat(90), "]".repeat(90))).is_ok());
    }

    #[test]
    fn big_ints_in_canonical_decimal() {
        let cases = [
            ("0", "0"),
            ("000", "0"),
            ("007", "7"),
            ("0x0", "0"),
            ("0xDEADBEEF", "3735928559"),
            ("1_000_000_000", "1000000000"),
            ("0b", "0"),
        ];
        for (token, digits) in cases {
            assert_eq!(decimal(token).as_deref(), Some(digits), "{token}");
        }
        assert_eq!(decimal("0x1ffffffffffffffffffff").as_deref(), Some("2417851639229258349412351"));
        // A million decimal digits are only compared, never converted; long hex is refused.
        let million = parse_literal(&"7".repeat(1_000_000)).unwrap();
        assert!(million == parse_literal(&format!("{}_7", "7".repeat(999_999))).unwrap());
        assert!(million != parse_literal(&format!("{}8", "7".repeat(999_999))).unwrap());
        assert!(parse_literal(&format!("0x{}", "f".repeat(20_000))).unwrap_err().0.contains("too slow"));
    }
}
