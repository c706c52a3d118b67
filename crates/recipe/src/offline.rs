//! A deterministic candidate source: given a method, a seed and an index it writes the text a
//! model would answer to a generation prompt, in the format [`crate::parse`] reads, so offline
//! demos and tests go through the same parser as real responses. No key, no network.
//!
//! Every one of the 69 methods has a template of its own (a short function that uses the method
//! to shape its result, with five inputs drawn from the seed). Most responses are clean, plain
//! Python a CRUXEval-style filter keeps; about a quarter carry one deliberate defect
//! ([`Defect`]: a float operation, true division, `**`, an import, a function too short, an
//! unused argument, an exception on every input), and a few are not answers at all, so the whole
//! pipeline shows a funnel with every stage at work. The presentation varies too (chatter,
//! numbered lists, calls printed inside the code block, no fence).

use crate::methods::is_known;
use execbench_core::rng::Rng;

use crate::prompt::seed_for;

/// A deliberate flaw written into an offline response; each breaks one of the filter's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Defect {
    /// `len(x) * 0.5` joins the result.
    Float,
    /// `len(x) / 2`.
    TrueDivision,
    /// `len(x) ** 2`.
    Power,
    /// `import string` on top.
    Import,
    /// A one-line function far below the minimum length.
    TooShort,
    /// An extra argument the body never reads.
    UnusedArgument,
    /// An index one past the end, read on every call.
    Raises,
}

impl Defect {
    pub const ALL: [Defect; 7] = [
        Defect::Float,
        Defect::TrueDivision,
        Defect::Power,
        Defect::Import,
        Defect::TooShort,
        Defect::UnusedArgument,
        Defect::Raises,
    ];
}

/// What an offline response was made to be (for tests and demos: the parser must agree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfflineResponse {
    pub text: String,
    /// The code as it will read back from the text (`None` for a non-answer).
    pub code: Option<String>,
    pub inputs: Vec<String>,
    pub defect: Option<Defect>,
}

/// The response text for the `index`-th request of `method` under `seed`.
pub fn offline_response(method: &str, seed: u64, index: usize) -> Result<String, String> {
    offline_generation(method, seed, index).map(|r| r.text)
}

/// The response with what it was made to be.
pub fn offline_generation(method: &str, seed: u64, index: usize) -> Result<OfflineResponse, String> {
    if !is_known(method) {
        return Err(format!("unknown method `{method}` (the offline source knows the recipe's 69)"));
    }
    let mut r = Rng::new(seed_for(seed, method, index) ^ 0x6F66_666C_696E_6521);
    let (mut code, mut inputs) = template(method, &mut r);
    let roll = r.below(100);
    if roll >= 97 {
        let text = pick(&mut r, &NON_ANSWERS)
            .replace("{method}", method)
            .replace("{name}", method.split_once('.').map_or(method, |(_, n)| n));
        return Ok(OfflineResponse { text, code: None, inputs: Vec::new(), defect: None });
    }
    let defect = (roll >= 69).then(|| Defect::ALL[(roll - 69) % Defect::ALL.len()]);
    if let Some(d) = defect {
        apply(d, &mut code, &mut inputs, &mut r);
    }
    let text = present(&code, &inputs, &mut r);
    Ok(OfflineResponse { text, code: Some(code), inputs, defect })
}

const NON_ANSWERS: [&str; 3] = [
    "I am not sure `{method}` can be used in a way that matters here; could you say more about what the function should do?",
    "Here is an idea: split the text, then use `{method}` on each part and join the results. Let me know if you want the code.",
    "```python\ndef f(value):\n    return value.{name}()\n```\nThe test inputs depend on your data.",
];

/// The parameters of `def f(...)`.
fn params(code: &str) -> Vec<String> {
    let Some(line) = code.lines().find(|l| l.starts_with("def f(")) else { return Vec::new() };
    let inner = line.trim_start_matches("def f(").trim_end_matches("):");
    inner.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

/// Writes one defect into the code (and its inputs when the arity changes).
fn apply(defect: Defect, code: &mut String, inputs: &mut [String], r: &mut Rng) {
    let ps = params(code);
    let first = ps.first().cloned().unwrap_or_else(|| "x".into());
    let extra = match defect {
        Defect::Float => Some(format!("len({first}) * 0.5")),
        Defect::TrueDivision => Some(format!("len({first}) / 2")),
        Defect::Power => Some(format!("len({first}) ** 2")),
        Defect::Raises => Some(format!("{first}[len({first})]")),
        _ => None,
    };
    if let Some(extra) = extra {
        // The first line of the body, so that every call runs it (a `return` it could be
        // appended to may sit behind an early exit, or be a recursive call's value).
        let mut lines: Vec<String> = code.lines().map(str::to_string).collect();
        if let Some(def) = lines.iter().position(|l| l.starts_with("def f(")) {
            lines.insert(def + 1, format!("    probe = {extra}"));
        }
        *code = lines.join("\n");
        return;
    }

    match defect {
        Defect::Import => {
            *code = format!("{}\n{code}", one(r, &["import string", "import math", "from collections import Counter"]))
        }
        Defect::TooShort => *code = format!("def f({}):\n    return [{}]", ps.join(", "), ps.join(", ")),
        Defect::UnusedArgument => {
            let (name, value) = *pick(r, &[("flag", "True"), ("extra", "0"), ("mode", "'fast'")]);
            *code = code.replacen("):", &format!(", {name}):"), 1);
            for input in inputs.iter_mut() {
                *input = format!("{input}, {value}");
            }
        }
        _ => {}
    }
}

/// The code and inputs in one of several ways a model writes them.
fn present(code: &str, inputs: &[String], r: &mut Rng) -> String {
    let calls: Vec<String> = inputs.iter().map(|i| format!("f({i})")).collect();
    match r.below(10) {
        0..=4 => format!("```python\n{code}\n```\nInputs:\n{}\n", calls.join("\n")),
        5 => format!(
            "Here is a function that puts the method to work.\n\n```python\n{code}\n```\n\nTest inputs:\n{}\n\nEach call returns quickly.",
            calls.join("\n")
        ),
        6 => format!(
            "```python\n{code}\n```\nInputs:\n{}\n",
            calls.iter().enumerate().map(|(k, c)| format!("{}. `{c}`", k + 1)).collect::<Vec<_>>().join("\n")
        ),
        7 => format!(
            "```python\n{code}\n\n{}\n```\n",
            calls.iter().map(|c| format!("print({c})")).collect::<Vec<_>>().join("\n")
        ),
        8 => format!("{code}\n\nInputs:\n{}\n", calls.iter().map(|c| format!("- {c}")).collect::<Vec<_>>().join("\n")),
        _ => format!("```py\n{code}\n```\n\n```\n{}\n```\n", calls.join("\n")),
    }
}

// ---------------------------------------------------------------------------------------------
// Values

const WORDS: [&str; 24] = [
    "apple", "bob", "cat", "dog", "egg", "fig", "hat", "ice", "jam", "kit", "lemon", "moon", "nap", "owl", "pie",
    "quiz", "red", "sun", "tea", "up", "van", "wax", "zoo", "a",
];

/// A Python string literal (single quotes; backslash, quote, new line, tab and CR escaped).
pub fn lit(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// One of a list of texts.
/// One element of a slice the templates write out (never empty).
fn pick<'a, T>(r: &mut Rng, items: &'a [T]) -> &'a T {
    &items[r.below(items.len())]
}

fn one(r: &mut Rng, items: &[&'static str]) -> &'static str {
    items[r.below(items.len())]
}

fn word(r: &mut Rng) -> String {
    pick(r, &WORDS).to_string()
}

fn words(r: &mut Rng, lo: usize, hi: usize) -> Vec<String> {
    let n = lo + r.below(hi - lo + 1);
    (0..n).map(|_| word(r)).collect()
}

fn phrase(r: &mut Rng, lo: usize, hi: usize) -> String {
    words(r, lo, hi).join(" ")
}

fn int(r: &mut Rng, lo: i64, hi: i64) -> i64 {
    lo + r.below((hi - lo + 1) as usize) as i64
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

fn str_list(items: &[String]) -> String {
    list(&items.iter().map(|s| lit(s)).collect::<Vec<_>>())
}

fn int_list(r: &mut Rng, lo: usize, hi: usize, max: i64) -> String {
    let n = lo + r.below(hi - lo + 1);
    list(&(0..n).map(|_| int(r, 0, max).to_string()).collect::<Vec<_>>())
}

/// `{'k': v, ...}` with word keys and small integer values.
fn str_int_dict(r: &mut Rng, lo: usize, hi: usize) -> String {
    let keys = words(r, lo, hi);
    let mut seen: Vec<String> = Vec::new();
    for k in keys {
        if !seen.contains(&k) {
            seen.push(k);
        }
    }
    format!("{{{}}}", seen.iter().map(|k| format!("{}: {}", lit(k), int(r, 0, 5))).collect::<Vec<_>>().join(", "))
}

/// Randomly upper-cases some letters.
fn mixed_case(r: &mut Rng, s: &str) -> String {
    s.chars().map(|c| if r.below(3) == 0 { c.to_ascii_uppercase() } else { c }).collect()
}

/// Five inputs from a generator.
fn five(r: &mut Rng, mut make: impl FnMut(&mut Rng) -> String) -> Vec<String> {
    (0..5).map(|_| make(r)).collect()
}

// ---------------------------------------------------------------------------------------------
// One template per method

/// The clean function for `method` (parameter names and constants drawn from `r`) and five inputs.
fn template(method: &str, r: &mut Rng) -> (String, Vec<String>) {
    let t = one(r, &["text", "s", "line", "phrase"]).to_string();
    let sub = |code: &str, t: &str| code.replace("$t", t);
    let (code, inputs): (String, Vec<String>) = match method {
        "str.capitalize" => (
            sub("def f($t, n):\n    out = []\n    for i, w in enumerate($t.split()):\n        out.append(w.capitalize() if i < n else w)\n    return ' '.join(out)", &t),
            five(r, |r| format!("{}, {}", lit(&phrase(r, 1, 4)), int(r, 0, 3))),
        ),
        "str.casefold" => (
            "def f(a, b):\n    same = 0\n    for x, y in zip(a.split(), b.split()):\n        if x.casefold() == y.casefold():\n            same += 1\n    return same".into(),
            five(r, |r| {
                let p = phrase(r, 1, 3);
                let q = if r.below(2) == 0 { mixed_case(r, &p) } else { phrase(r, 1, 3) };
                format!("{}, {}", lit(&p), lit(&q))
            }),
        ),
        "str.center" => {
            let fill = one(r, &["*", "-", "=", "."]);
            (
                sub(&format!("def f($t, width):\n    line = $t.center(width, '{fill}')\n    return line.count('{fill}'), line"), &t),
                five(r, |r| format!("{}, {}", lit(&word(r)), int(r, 0, 9))),
            )
        }
        "str.count" => (
            sub("def f($t, subs):\n    counts = [$t.count(x) for x in subs]\n    if not counts:\n        return -1\n    return max(counts) - min(counts)", &t),
            five(r, |r| {
                let p = phrase(r, 1, 2);
                let subs: Vec<String> = (0..r.below(3)).map(|_| ["a", "e", "o", "n", "an"][r.below(5)].to_string()).collect();
                format!("{}, {}", lit(&p), str_list(&subs))
            }),
        ),
        "str.encode" => (
            sub("def f($t, enc):\n    raw = $t.encode(enc, 'ignore')\n    return raw.decode(enc).swapcase(), raw[:2]", &t),
            five(r, |r| format!("{}, {}", lit(&format!("{}{}", word(r), one(r, &["", "é", "ü", "!"]))), lit(one(r, &["ascii", "utf-8"])))),
        ),
        "str.endswith" => (
            "def f(words, suffix):\n    kept = [w for w in words if not w.endswith(suffix)]\n    return kept or [suffix]".into(),
            five(r, |r| format!("{}, {}", str_list(&words(r, 0, 4)), lit(one(r, &["e", "n", "at", "on", "x"])))),
        ),
        "str.expandtabs" => (
            // Not 0: RustPython 0.5 panics on `'a\tb'.expandtabs(0)` (capacity overflow).
            sub("def f($t, size):\n    lines = $t.expandtabs(size).split('\\n')\n    return [len(x) for x in lines]", &t),
            five(r, |r| format!("{}, {}", lit(&format!("{}\t{}{}", word(r), word(r), one(r, &["", "\nab\tc", "\t"]))), int(r, 1, 4))),
        ),
        "str.find" => (
            sub("def f($t, ch):\n    i = $t.find(ch)\n    if i == -1:\n        return $t + ch\n    return $t[i + 1:] + $t[:i]", &t),
            five(r, |r| format!("{}, {}", lit(&word(r)), lit(one(r, &["a", "e", "o", "z"])))),
        ),
        "str.format" => (
            "def f(pattern, values):\n    out = []\n    for v in values:\n        out.append(pattern.format(v, len(out)))\n    return '|'.join(out)".into(),
            five(r, |r| format!("{}, {}", lit(one(r, &["{}-{}", "<{0}>", "{1}{0}", "{0}{0}"])), str_list(&words(r, 0, 3)))),
        ),
        "str.format_map" => (
            "def f(tpl, mapping):\n    filled = tpl.format_map(mapping)\n    return [w for w in filled.split() if w not in mapping]".into(),
            five(r, |r| {
                let (a, b) = (word(r), word(r));
                format!("{}, {{'a': {}, 'b': {}}}", lit(one(r, &["{a} and {b}", "{b} {a} {b}", "{a}"])), lit(&a), lit(if r.below(2) == 0 { "a" } else { &b }))
            }),
        ),
        "str.index" => (
            sub("def f($t, ch):\n    try:\n        pos = $t.index(ch)\n    except ValueError:\n        return $t[::-1]\n    return $t[:pos].upper() + $t[pos:]", &t),
            five(r, |r| format!("{}, {}", lit(&word(r)), lit(one(r, &["a", "e", "o", "q"])))),
        ),
        "str.isalnum" => (
            sub("def f($t):\n    parts = []\n    for ch in $t:\n        parts.append(ch if ch.isalnum() else '_')\n    return ''.join(parts).strip('_')", &t),
            five(r, |r| lit(&format!("{}{}{}", one(r, &["", "-", " "]), word(r), one(r, &["!", "1", " x", ""])))),
        ),
        "str.isalpha" => (
            sub("def f($t, fill):\n    out = ''\n    for ch in $t:\n        out += ch if ch.isalpha() else fill\n    return out", &t),
            five(r, |r| format!("{}, {}", lit(&format!("{}{}", word(r), one(r, &["1", " ", "", "?"]))), lit(one(r, &["", "-", "#"])))),
        ),
        "str.isascii" => (
            "def f(words):\n    plain = [w for w in words if w.isascii()]\n    other = [w for w in words if not w.isascii()]\n    return plain + other".into(),
            five(r, |r| {
                let n = r.below(4);
                str_list(&(0..n).map(|_| format!("{}{}", word(r), one(r, &["", "", "é", "ß"]))).collect::<Vec<_>>())
            }),
        ),
        "str.isdecimal" => (
            sub("def f($t, mark):\n    out = []\n    for ch in $t:\n        out.append(mark if ch.isdecimal() else ch)\n    return ''.join(out)", &t),
            five(r, |r| format!("{}, {}", lit(&format!("{}{}", word(r), int(r, 0, 99))), lit(one(r, &["#", "", "d"])))),
        ),
        "str.isdigit" => (
            "def f(tokens):\n    digits = [t for t in tokens if t.isdigit()]\n    return len(digits), ''.join(sorted(digits))".into(),
            five(r, |r| {
                let n = r.below(4);
                str_list(&(0..n).map(|_| if r.below(2) == 0 { int(r, 0, 9).to_string() } else { word(r) }).collect::<Vec<_>>())
            }),
        ),
        "str.isidentifier" => (
            "def f(names, prefix):\n    good = []\n    for name in names:\n        good.append(name if name.isidentifier() else prefix + name)\n    return good".into(),
            five(r, |r| {
                let n = 1 + r.below(3);
                let names: Vec<String> = (0..n).map(|_| format!("{}{}", one(r, &["", "1", "_", "-"]), word(r))).collect();
                format!("{}, {}", str_list(&names), lit(one(r, &["_", "x", "v"])))
            }),
        ),
        "str.islower" => (
            sub("def f($t):\n    runs = 0\n    for w in $t.split():\n        if w.islower():\n            runs += 1\n    return runs, $t.lower() == $t", &t),
            five(r, |r| {
                let p = phrase(r, 1, 3);
                lit(&if r.below(2) == 0 { mixed_case(r, &p) } else { p })
            }),
        ),
        "str.isnumeric" => (
            "def f(items, default):\n    out = []\n    for s in items:\n        out.append(int(s) if s.isnumeric() else default)\n    return out".into(),
            five(r, |r| {
                let n = r.below(4);
                let items: Vec<String> = (0..n).map(|_| if r.below(2) == 0 { int(r, 0, 3).to_string() } else { word(r) }).collect();
                format!("{}, {}", str_list(&items), int(r, -1, 1))
            }),
        ),
        "str.isprintable" => (
            sub("def f($t, sub):\n    if $t.isprintable():\n        return $t.replace(' ', sub)\n    return repr($t)[1:-1]", &t),
            five(r, |r| format!("{}, {}", lit(&format!("{}{}{}", word(r), one(r, &[" ", "\n", "\t", ""]), word(r))), lit(one(r, &["_", "", "."])))),
        ),
        "str.isspace" => (
            "def f(chunks):\n    blank = 0\n    for c in chunks:\n        if c.isspace() or not c:\n            blank += 1\n    return blank, [c for c in chunks if not c.isspace()]".into(),
            five(r, |r| {
                let n = r.below(4);
                str_list(&(0..n).map(|_| one(r, &[" ", "", "\t", "ab", " x ", "\n"]).to_string()).collect::<Vec<_>>())
            }),
        ),
        "str.istitle" => (
            "def f(lines):\n    fixed = []\n    for line in lines:\n        fixed.append(line if line.istitle() else line.title())\n    return fixed".into(),
            five(r, |r| {
                let n = r.below(3) + 1;
                str_list(&(0..n).map(|_| {
                    let p = phrase(r, 1, 2);
                    mixed_case(r, &p)
                }).collect::<Vec<_>>())
            }),
        ),
        "str.isupper" => (
            sub("def f($t):\n    loud = [w for w in $t.split() if w.isupper()]\n    if not loud:\n        return $t.lower()\n    return ' '.join(loud)", &t),
            five(r, |r| {
                let ws = words(r, 1, 3);
                lit(&ws.iter().map(|w| if r.below(2) == 0 { w.to_uppercase() } else { w.clone() }).collect::<Vec<_>>().join(" "))
            }),
        ),
        "str.join" => (
            "def f(parts, sep):\n    joined = sep.join(parts)\n    if not sep:\n        return joined\n    return joined.split(sep[:1])[::-1]".into(),
            five(r, |r| format!("{}, {}", str_list(&words(r, 0, 3)), lit(one(r, &["-", ", ", "", "ab"])))),
        ),
        "str.ljust" => (
            "def f(names, width):\n    rows = [n.ljust(width, '.') for n in names]\n    return '|'.join(rows)".into(),
            five(r, |r| format!("{}, {}", str_list(&words(r, 0, 3)), int(r, 0, 6))),
        ),
        "str.lower" => (
            sub("def f($t, keep):\n    out = []\n    for w in $t.split():\n        out.append(w if w in keep else w.lower())\n    return ' '.join(out)", &t),
            five(r, |r| {
                let ws: Vec<String> = words(r, 1, 3).iter().map(|w| w.to_uppercase()).collect();
                let keep: Vec<String> = ws.iter().filter(|_| r.below(2) == 0).cloned().collect();
                format!("{}, {}", lit(&ws.join(" ")), str_list(&keep))
            }),
        ),
        "str.lstrip" => (
            "def f(lines, chars):\n    out = []\n    for line in lines:\n        s = line.lstrip(chars)\n        out.append(s or chars)\n    return out".into(),
            five(r, |r| {
                let n = r.below(3) + 1;
                let c = one(r, &["x", " ", "ab", "-"]);
                let lines: Vec<String> = (0..n).map(|_| format!("{}{}", c.repeat(r.below(3)), if r.below(4) == 0 { String::new() } else { word(r) })).collect();
                format!("{}, {}", str_list(&lines), lit(c))
            }),
        ),
        "str.maketrans" => (
            sub("def f($t, src, dst):\n    table = str.maketrans(src, dst)\n    return $t.translate(table), src in $t", &t),
            five(r, |r| {
                let pairs = [("ab", "ba"), ("a", "o"), ("xyz", "123"), ("e", "3"), ("no", "on")];
                let (a, b) = *pick(r, &pairs);
                format!("{}, {}, {}", lit(&phrase(r, 1, 2)), lit(a), lit(b))
            }),
        ),
        "str.partition" => (
            "def f(pairs, sep):\n    out = {}\n    for item in pairs:\n        key, _, value = item.partition(sep)\n        out[key] = value\n    return out".into(),
            five(r, |r| {
                let sep = one(r, &["=", ":", "-"]);
                let n = r.below(3) + 1;
                let items: Vec<String> = (0..n).map(|_| if r.below(4) == 0 { word(r) } else { format!("{}{sep}{}", word(r), word(r)) }).collect();
                format!("{}, {}", str_list(&items), lit(sep))
            }),
        ),
        "str.removeprefix" => (
            "def f(words, prefix):\n    out = []\n    for w in words:\n        cut = w.removeprefix(prefix)\n        out.append(cut if cut != w else w.upper())\n    return out".into(),
            five(r, |r| {
                let p = one(r, &["a", "un", "re", "x"]);
                let n = r.below(3) + 1;
                let ws: Vec<String> = (0..n).map(|_| format!("{}{}", if r.below(2) == 0 { p } else { "" }, word(r))).collect();
                format!("{}, {}", str_list(&ws), lit(p))
            }),
        ),
        "str.removesuffix" => (
            sub("def f($t, suffix):\n    while suffix and $t.endswith(suffix):\n        $t = $t.removesuffix(suffix)\n    return $t", &t),
            five(r, |r| {
                let s = one(r, &["s", "ab", "!", ""]);
                format!("{}, {}", lit(&format!("{}{}", word(r), s.repeat(r.below(3)))), lit(s))
            }),
        ),
        "str.replace" => (
            sub("def f($t, old, new, count):\n    out = $t.replace(old, new, count)\n    return out, out.count(new)", &t),
            five(r, |r| format!("{}, {}, {}, {}", lit(&phrase(r, 1, 3)), lit(one(r, &["a", "e", " ", "o"])), lit(one(r, &["", "_", "aa"])), int(r, -1, 2))),
        ),
        "str.rfind" => (
            sub("def f($t, ch):\n    i = $t.rfind(ch)\n    if i > 0:\n        return $t[:i]\n    return $t + '!'", &t),
            five(r, |r| format!("{}, {}", lit(&phrase(r, 1, 2)), lit(one(r, &["a", "e", " ", "z"])))),
        ),
        "str.rindex" => (
            sub("def f($t, ch):\n    try:\n        i = $t.rindex(ch)\n    except ValueError:\n        i = 0\n    return $t[i:] + $t[:i]", &t),
            five(r, |r| format!("{}, {}", lit(&word(r)), lit(one(r, &["a", "e", "o", "z"])))),
        ),
        "str.rjust" => (
            "def f(nums, width):\n    cells = [str(n).rjust(width, '0') for n in nums]\n    return ','.join(cells)".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 3, 3), int(r, 0, 3))),
        ),
        "str.rpartition" => (
            "def f(path, sep):\n    head, mid, tail = path.rpartition(sep)\n    if not mid:\n        return [tail]\n    return f(head, sep) + [tail]".into(),
            five(r, |r| {
                let sep = one(r, &["/", ".", "-"]);
                format!("{}, {}", lit(&words(r, 1, 3).join(sep)), lit(sep))
            }),
        ),
        "str.rsplit" => (
            sub("def f($t, sep, n):\n    parts = $t.rsplit(sep, n)\n    return [p.strip() for p in parts][::-1]", &t),
            five(r, |r| {
                let sep = one(r, &[",", " ", "-"]);
                format!("{}, {}, {}", lit(&words(r, 1, 4).join(sep)), lit(sep), int(r, -1, 2))
            }),
        ),
        "str.rstrip" => (
            "def f(lines, chars):\n    kept = [x.rstrip(chars) for x in lines]\n    return [x for x in kept if x]".into(),
            five(r, |r| {
                let c = one(r, &["!", " ", "xy", "."]);
                let n = r.below(3) + 1;
                let lines: Vec<String> = (0..n).map(|_| format!("{}{}", if r.below(4) == 0 { String::new() } else { word(r) }, c.repeat(r.below(3)))).collect();
                format!("{}, {}", str_list(&lines), lit(c))
            }),
        ),
        "str.split" => (
            sub("def f($t, sep):\n    parts = $t.split(sep)\n    longest = max(parts, key=len)\n    return parts.index(longest), longest", &t),
            five(r, |r| {
                let sep = one(r, &[",", "-", ";"]);
                format!("{}, {}", lit(&words(r, 1, 4).join(sep)), lit(sep))
            }),
        ),
        "str.splitlines" => (
            sub("def f($t, keep):\n    lines = $t.splitlines(keep)\n    return [x for x in lines if x.strip()]", &t),
            five(r, |r| {
                let n = r.below(3) + 1;
                let body: Vec<String> = (0..n).map(|_| if r.below(3) == 0 { String::new() } else { word(r) }).collect();
                format!("{}, {}", lit(&body.join(one(r, &["\n", "\r\n", "\n\n"]))), one(r, &["True", "False"]))
            }),
        ),
        "str.startswith" => (
            "def f(words, prefixes):\n    hits = 0\n    for w in words:\n        if w.startswith(tuple(prefixes)):\n            hits += 1\n    return hits".into(),
            five(r, |r| {
                let n = r.below(3);
                let ps: Vec<String> = (0..n).map(|_| one(r, &["a", "b", "c", "mo", "s"]).to_string()).collect();
                format!("{}, {}", str_list(&words(r, 0, 3)), str_list(&ps))
            }),
        ),
        "str.strip" => (
            "def f(cells, chars):\n    out = []\n    for c in cells:\n        out.append(c.strip(chars) or '?')\n    return out".into(),
            five(r, |r| {
                let c = one(r, &["*", " ", "ab", "-"]);
                let n = r.below(3) + 1;
                let cells: Vec<String> = (0..n).map(|_| format!("{0}{1}{0}", c.repeat(r.below(2)), if r.below(4) == 0 { String::new() } else { word(r) })).collect();
                format!("{}, {}", str_list(&cells), lit(c))
            }),
        ),
        "str.swapcase" => (
            sub("def f($t, n):\n    head = $t[:n].swapcase()\n    return head + $t[n:], head.isupper()", &t),
            five(r, |r| {
                let w = word(r);
                format!("{}, {}", lit(&mixed_case(r, &w)), int(r, 0, 3))
            }),
        ),
        "str.title" => (
            "def f(names):\n    seen = []\n    for name in names:\n        t = name.title()\n        if t not in seen:\n            seen.append(t)\n    return seen".into(),
            five(r, |r| {
                let n = r.below(4);
                str_list(&(0..n).map(|_| {
                    let w = word(r);
                    mixed_case(r, &w)
                }).collect::<Vec<_>>())
            }),
        ),
        "str.translate" => (
            sub("def f($t, drop):\n    table = {ord(c): None for c in drop}\n    return $t.translate(table).strip()", &t),
            five(r, |r| format!("{}, {}", lit(&phrase(r, 1, 3)), lit(one(r, &["a", "ae", " ", "xyz", ""])))),
        ),
        "str.upper" => (
            sub("def f($t, n):\n    words = $t.split()\n    for i in range(0, len(words), n):\n        words[i] = words[i].upper()\n    return ' '.join(words)", &t),
            five(r, |r| format!("{}, {}", lit(&phrase(r, 0, 4)), int(r, 1, 3))),
        ),
        "str.zfill" => (
            "def f(values, width):\n    out = []\n    for v in values:\n        out.append(str(v).zfill(width))\n    return sorted(out)".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 3, 3), int(r, 0, 3))),
        ),
        "dict.clear" => (
            "def f(d, key):\n    if key in d:\n        d.clear()\n        d[key] = 0\n    return d".into(),
            five(r, |r| format!("{}, {}", str_int_dict(r, 0, 3), lit(&word(r)))),
        ),
        "dict.copy" => (
            "def f(d, key, value):\n    new = d.copy()\n    new[key] = value\n    return d == new, new".into(),
            five(r, |r| format!("{}, {}, {}", str_int_dict(r, 0, 2), lit(&word(r)), int(r, 0, 3))),
        ),
        "dict.fromkeys" => (
            "def f(keys, value):\n    d = dict.fromkeys(keys, value)\n    return list(d), len(d)".into(),
            five(r, |r| format!("{}, {}", str_list(&words(r, 0, 4)), one(r, &["0", "None", "''", "[]"]))),
        ),
        "dict.get" => (
            "def f(d, keys):\n    out = []\n    for k in keys:\n        out.append(d.get(k, k))\n    return out".into(),
            five(r, |r| format!("{}, {}", str_int_dict(r, 0, 3), str_list(&words(r, 0, 3)))),
        ),
        "dict.items" => (
            "def f(d):\n    out = []\n    for k, v in d.items():\n        if v:\n            out.append((v, k))\n    return sorted(out)".into(),
            five(r, |r| str_int_dict(r, 0, 4)),
        ),
        "dict.keys" => (
            "def f(a, b):\n    shared = [k for k in a.keys() if k in b]\n    return sorted(shared), len(a.keys() - b.keys())".into(),
            five(r, |r| format!("{}, {}", str_int_dict(r, 0, 3), str_int_dict(r, 0, 3))),
        ),
        "dict.pop" => (
            "def f(d, key):\n    value = d.pop(key, 0)\n    if value in d.values():\n        d[key] = value\n    return sorted(d)".into(),
            five(r, |r| format!("{}, {}", str_int_dict(r, 0, 3), lit(&word(r)))),
        ),
        "dict.popitem" => (
            "def f(d, n):\n    taken = []\n    while d and len(taken) < n:\n        taken.append(d.popitem())\n    return taken, d".into(),
            five(r, |r| format!("{}, {}", str_int_dict(r, 0, 3), int(r, 0, 3))),
        ),
        "dict.setdefault" => (
            "def f(words):\n    index = {}\n    for w in words:\n        index.setdefault(w[0], 0)\n        index[w[0]] += 1\n    return index".into(),
            five(r, |r| str_list(&words(r, 0, 4))),
        ),
        "dict.update" => (
            "def f(d, pairs):\n    before = len(d)\n    d.update(pairs)\n    return sorted(d.items()), len(d) - before".into(),
            five(r, |r| {
                let n = r.below(3);
                let pairs: Vec<String> = (0..n).map(|_| format!("({}, {})", lit(&word(r)), int(r, 0, 3))).collect();
                format!("{}, {}", str_int_dict(r, 0, 2), list(&pairs))
            }),
        ),
        "dict.values" => (
            "def f(d, limit):\n    vals = [v for v in d.values() if v <= limit]\n    return sum(vals), len(vals)".into(),
            five(r, |r| format!("{}, {}", str_int_dict(r, 0, 3), int(r, 0, 3))),
        ),
        "list.append" => (
            "def f(nums, k):\n    out = []\n    for n in nums:\n        if n > k:\n            out.append(n)\n        out.append(k)\n    return out".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 4, 5), int(r, 0, 3))),
        ),
        "list.clear" => (
            "def f(items, limit):\n    if len(items) > limit:\n        items.clear()\n    items.append(limit)\n    return items".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 4, 5), int(r, 0, 3))),
        ),
        "list.copy" => (
            "def f(items, value):\n    backup = items.copy()\n    items.append(value)\n    return backup, items".into(),
            five(r, |r| format!("{}, {}", str_list(&words(r, 0, 3)), lit(&word(r)))),
        ),
        "list.count" => (
            "def f(items):\n    counts = []\n    for x in items:\n        if (x, items.count(x)) not in counts:\n            counts.append((x, items.count(x)))\n    return counts".into(),
            five(r, |r| int_list(r, 0, 4, 2)),
        ),
        "list.extend" => (
            "def f(a, b):\n    out = a[:]\n    out.extend(b)\n    out.extend(a[::-1])\n    return out".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 3, 5), int_list(r, 0, 2, 5))),
        ),
        "list.index" => (
            "def f(items, target):\n    if target not in items:\n        return -1\n    i = items.index(target)\n    return items[i + 1:] + items[:i]".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 4, 3), int(r, 0, 3))),
        ),
        "list.insert" => (
            "def f(items, value, pos):\n    items.insert(pos, value)\n    items.insert(-pos, value)\n    return items".into(),
            five(r, |r| format!("{}, {}, {}", int_list(r, 0, 3, 3), lit(&word(r)), int(r, 0, 3))),
        ),
        "list.pop" => (
            "def f(stack, n):\n    out = []\n    while stack and n:\n        out.append(stack.pop())\n        n -= 1\n    return out, stack".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 4, 5), int(r, 0, 3))),
        ),
        "list.remove" => (
            "def f(items, value):\n    while value in items:\n        items.remove(value)\n    return items".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 4, 2), int(r, 0, 2))),
        ),
        "list.reverse" => (
            "def f(items, n):\n    head = items[:n]\n    head.reverse()\n    return head + items[n:]".into(),
            five(r, |r| format!("{}, {}", int_list(r, 0, 4, 5), int(r, 0, 3))),
        ),
        "list.sort" => (
            "def f(words, rev):\n    words.sort(key=len, reverse=rev)\n    return words[0] if words else ''".into(),
            five(r, |r| format!("{}, {}", str_list(&words(r, 0, 4)), one(r, &["True", "False"]))),
        ),
        other => unreachable!("is_known checked {other}"),
    };
    (code, inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::all_methods;
    use crate::parse::parse_response;

    #[test]
    fn every_method_has_a_template_whose_responses_parse_back() {
        let mut defects = std::collections::BTreeMap::new();
        let mut non_answers = 0;
        let mut problems = std::collections::BTreeSet::new();
        let mut total = 0;
        for method in all_methods() {
            for index in 1..=12 {
                let made = offline_generation(&method, 3, index).unwrap();
                total += 1;
                let parsed = parse_response("r", &method, &made.text);
                match &made.code {
                    None => {
                        non_answers += 1;
                        assert!(
                            parsed.problem.is_some(),
                            "{method} {index}: a non-answer gives no candidates: {}",
                            made.text
                        );
                        problems.extend(parsed.problem);
                    }
                    Some(code) => {
                        assert_eq!(parsed.problem, None, "{method} {index}:\n{}", made.text);
                        let inputs: Vec<String> = made.inputs.iter().fold(Vec::new(), |mut v, i| {
                            if !v.contains(i) {
                                v.push(i.clone());
                            }
                            v
                        });
                        let got: Vec<&String> = parsed.candidates.iter().map(|c| &c.input).collect();
                        assert_eq!(got, inputs.iter().collect::<Vec<_>>(), "{method} {index}:\n{}", made.text);
                        assert!(parsed.candidates.iter().all(|c| &c.code == code), "{method} {index}:\n{}", made.text);
                        let name = method.split_once('.').unwrap().1;
                        if made.defect != Some(Defect::TooShort) {
                            assert!(code.contains(&format!("{name}(")), "{method}: uses its method:\n{code}");
                            if made.defect.is_none() {
                                assert!(
                                    (75..=300).contains(&code.len()),
                                    "{method}: {} characters:\n{code}",
                                    code.len()
                                );
                            }
                        }
                    }
                }
                if let Some(d) = made.defect {
                    *defects.entry(d).or_insert(0) += 1;
                }
            }
        }
        let flawed: usize = defects.values().sum();
        assert!(defects.len() == Defect::ALL.len(), "every defect appears: {defects:?}");
        assert!(flawed * 100 / total >= 15 && flawed * 100 / total <= 40, "{flawed} of {total} flawed");
        assert!(non_answers >= 1 && non_answers * 100 / total <= 6, "{non_answers} non-answers of {total}");
        assert_eq!(problems.len(), 2, "no function, and a function without inputs: {problems:?}");
    }

    #[test]
    fn responses_are_deterministic_and_vary_with_seed_and_index() {
        for method in ["str.split", "dict.get", "list.sort"] {
            assert_eq!(offline_response(method, 1, 1), offline_response(method, 1, 1));
            let texts: std::collections::BTreeSet<String> =
                (1..=5).map(|i| offline_response(method, 1, i).unwrap()).collect();
            assert!(texts.len() >= 4, "{method}: indexes give different responses");
            assert_ne!(offline_response(method, 1, 1), offline_response(method, 2, 1), "{method}");
        }
        assert_eq!(
            offline_response("str.nope", 1, 1).unwrap_err(),
            "unknown method `str.nope` (the offline source knows the recipe's 69)"
        );
    }

    #[test]
    fn literals_escape_what_python_needs() {
        for (s, want) in
            [("ab", "'ab'"), ("it's", "'it\\'s'"), ("a\nb\tc\r", "'a\\nb\\tc\\r'"), ("\\", "'\\\\'"), ("é", "'é'")]
        {
            assert_eq!(lit(s), want);
        }
    }
}
