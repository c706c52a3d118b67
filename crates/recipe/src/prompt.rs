//! Generation prompts: one per request, made from an editable template and two worked examples
//! drawn from an editable pool. The choice is seeded with an own PRNG (splitmix64) and an own hash
//! (FNV-1a), so the same seed gives the same bytes on every machine.
//!
//! The template's placeholders: `{method}` (`str.split`), `{type}` (`str`), `{name}` (`split`),
//! `{count}` (test inputs asked for) and `{examples}` (the two worked examples, in the response
//! format of [`crate::parse`]). Any other `{word}` is an error that names it; other braces (a
//! dict literal) are left alone.

use execbench_core::dataset::{RowError, json_type};
use execbench_core::rng::{Rng, fnv1a};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::jsonl::read_rows;
use crate::methods::{is_known, split_method};

/// Test inputs asked for per function.
pub const INPUTS_PER_FUNCTION: usize = 5;

/// Worked examples in every prompt.
pub const EXAMPLES_PER_PROMPT: usize = 2;

/// The placeholders a template may use.
pub const PLACEHOLDERS: [&str; 5] = ["method", "type", "name", "count", "examples"];

/// A seed for one (method, index) under the run's seed.
pub fn seed_for(seed: u64, method: &str, index: usize) -> u64 {
    let mut rng =
        Rng::new(seed ^ fnv1a(method.as_bytes()).rotate_left(17) ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    rng.next_u64()
}

/// One worked example: a function for a method and its test inputs (arguments as Python source).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FewShot {
    pub method: String,
    pub code: String,
    pub inputs: Vec<String>,
}

impl FewShot {
    /// The example as a model should answer: the response format [`crate::parse`] reads.
    pub fn render(&self) -> String {
        let calls: Vec<String> = self.inputs.iter().map(|i| format!("f({i})")).collect();
        format!("Method: {}\n```python\n{}\n```\nInputs:\n{}", self.method, self.code.trim_end(), calls.join("\n"))
    }
}

/// The built-in pool: own examples, one per method, each using its method in a way that shapes
/// the result.
pub fn default_pool() -> Vec<FewShot> {
    let ex = |method: &str, code: &str, inputs: [&str; 5]| FewShot {
        method: method.into(),
        code: code.into(),
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
    };
    vec![
        ex(
            "str.rstrip",
            "def f(text, chars):\n    trimmed = text.rstrip(chars)\n    if trimmed == text:\n        return text + chars[:1]\n    return trimmed + '|' + str(len(text) - len(trimmed))",
            ["'hello!!', '!'", "'abcxx', 'x'", "'plain', 'z'", "'---', '-'", "'a b  ', ' '"],
        ),
        ex(
            "str.count",
            "def f(words, letter):\n    best = ''\n    for word in words.split():\n        if word.count(letter) > best.count(letter):\n            best = word\n    return best",
            ["'banana apple cherry', 'a'", "'moon soon noon', 'o'", "'xyz', 'q'", "'aa a aaa', 'a'", "'', 'e'"],
        ),
        ex(
            "list.insert",
            "def f(items, value):\n    out = items[:]\n    for i in range(len(out), -1, -1):\n        if i == 0 or out[i - 1] <= value:\n            out.insert(i, value)\n            break\n    return out",
            ["[1, 3, 5], 4", "[], 2", "[2, 2], 2", "[5, 6], 1", "[1, 2, 3], 3"],
        ),
        ex(
            "dict.setdefault",
            "def f(pairs):\n    groups = {}\n    for key, value in pairs:\n        groups.setdefault(key, []).append(value)\n    return groups",
            [
                "[('a', 1), ('b', 2), ('a', 3)]",
                "[]",
                "[('x', 0)]",
                "[(1, 'p'), (1, 'q'), (2, 'r')]",
                "[('k', 1), ('k', 1)]",
            ],
        ),
        ex(
            "str.partition",
            "def f(line, sep):\n    head, found, tail = line.partition(sep)\n    if not found:\n        return line.upper()\n    return tail + found + head",
            ["'key=value', '='", "'no separator', ':'", "'a:b:c', ':'", "'=start', '='", "'end=', '='"],
        ),
        ex(
            "list.remove",
            "def f(nums, target):\n    nums = list(nums)\n    while target in nums:\n        nums.remove(target)\n        target -= 1\n    return nums",
            ["[3, 2, 1, 0], 2", "[1, 1, 1], 1", "[5], 3", "[4, 3, 3, 2], 3", "[], 0"],
        ),
        ex(
            "dict.pop",
            "def f(stock, names):\n    taken = []\n    for name in names:\n        taken.append(stock.pop(name, 0))\n    return taken, sorted(stock)",
            [
                "{'pen': 2, 'ink': 1}, ['pen']",
                "{}, ['a', 'b']",
                "{'a': 1, 'b': 2}, ['b', 'b']",
                "{'x': 3}, []",
                "{'k': 0, 'j': 1}, ['j', 'k']",
            ],
        ),
        ex(
            "str.zfill",
            "def f(code, width):\n    padded = code.zfill(width)\n    if padded.startswith('-'):\n        return padded[::-1]\n    return padded + code[:1]",
            ["'42', 5", "'-7', 3", "'abc', 2", "'', 3", "'+1', 4"],
        ),
        ex(
            "list.extend",
            "def f(rows):\n    flat = []\n    for row in rows:\n        if len(row) % 2 == 0:\n            flat.extend(row)\n        else:\n            flat.extend(row[::-1])\n    return flat",
            ["[[1, 2], [3, 4, 5]]", "[]", "[[7]]", "[['a', 'b', 'c'], []]", "[[1], [2, 3]]"],
        ),
        ex(
            "str.title",
            "def f(phrase, keep):\n    words = phrase.title().split()\n    return '-'.join(w if w.lower() in keep else w[0] for w in words)",
            [
                "'the quick fox', ['fox']",
                "'a b', []",
                "'HELLO there', ['hello']",
                "'one', ['one']",
                "'x y z', ['y', 'z']",
            ],
        ),
        ex(
            "dict.update",
            "def f(base, extra):\n    merged = dict(base)\n    merged.update(extra)\n    return {k: v for k, v in merged.items() if v != base.get(k)}",
            [
                "{'a': 1}, {'a': 2, 'b': 3}",
                "{}, {}",
                "{'x': 0}, {'x': 0}",
                "{'p': 1, 'q': 2}, {'q': 1}",
                "{1: 'a'}, {2: 'b'}",
            ],
        ),
        ex(
            "list.sort",
            "def f(names):\n    names.sort(key=lambda s: (len(s), s[::-1]))\n    return names[:3]",
            ["['bob', 'al', 'eve', 'zed']", "[]", "['aa', 'ba', 'ab']", "['x']", "['dc', 'cd', 'a', 'bb']"],
        ),
        ex(
            "str.find",
            "def f(text, sub):\n    spots = []\n    start = text.find(sub)\n    while start != -1:\n        spots.append(start)\n        start = text.find(sub, start + 1)\n    return spots",
            ["'banana', 'an'", "'aaa', 'a'", "'abc', 'd'", "'', 'x'", "'abab', 'ab'"],
        ),
    ]
}

/// The built-in template (own wording). It asks for the format [`crate::parse`] documents.
pub const DEFAULT_TEMPLATE: &str = "You are helping to build a benchmark of short Python functions. A reader will be shown a function and one call of it, and must work out the result by reasoning about the code.

Write one Python function named `f` that uses the {type} method `{method}` in a way that matters to what `f` returns: its result should feed a condition, a loop or further computation, not just be returned as it is. Keep the function short (3 to 10 lines) and self-contained: no imports, no printing, no randomness, no floating-point numbers, no `/` division and no `**`. Every argument of `f` must be used.

Then write {count} different test inputs. Put each on its own line as a call `f(...)` whose arguments are Python literals (strings, integers, lists, dicts, tuples, booleans, None). Each call must finish quickly and must not raise an exception. Prefer small values: short strings and lists, integers below 10.

Answer in this format and nothing else:
```python
def f(...):
    ...
```
Inputs:
f(...)
f(...)

Two examples, each for another method:

{examples}

Now write the function and its {count} inputs for `{method}`.
";

/// A prompt template with placeholders (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptTemplate {
    pub text: String,
}

impl Default for PromptTemplate {
    fn default() -> Self {
        PromptTemplate { text: DEFAULT_TEMPLATE.to_string() }
    }
}

impl PromptTemplate {
    /// A template checked for its placeholders: `{method}` and `{examples}` must be there, and no
    /// `{word}` that is not a placeholder.
    pub fn new(text: &str) -> Result<PromptTemplate, String> {
        let template = PromptTemplate { text: text.to_string() };
        template.check()?;
        Ok(template)
    }

    pub fn check(&self) -> Result<(), String> {
        let used = placeholders(&self.text);
        if let Some(unknown) = used.iter().find(|p| !PLACEHOLDERS.contains(&p.as_str())) {
            return Err(format!(
                "the template has an unknown placeholder {{{unknown}}} (known: {})",
                PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
            ));
        }
        for needed in ["method", "examples"] {
            if !used.iter().any(|p| p == needed) {
                return Err(format!("the template must contain {{{needed}}}"));
            }
        }
        Ok(())
    }

    /// The template with its placeholders filled in for `method` and `examples`.
    pub fn render(&self, method: &str, examples: &[&FewShot]) -> String {
        let (ty, name) = split_method(method);
        let examples: Vec<String> = examples.iter().map(|e| e.render()).collect();
        let mut out = String::with_capacity(self.text.len() + 1024);
        let mut rest = self.text.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let word_len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            let value = (word_len > 0 && after[word_len..].starts_with('}')).then(|| match &after[..word_len] {
                "method" => Some(method.to_string()),
                "type" => Some(ty.to_string()),
                "name" => Some(name.to_string()),
                "count" => Some(INPUTS_PER_FUNCTION.to_string()),
                "examples" => Some(examples.join("\n\n")),
                _ => None,
            });
            match value.flatten() {
                Some(v) => {
                    out.push_str(&v);
                    rest = &after[word_len + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// `{word}` placeholders in order of appearance (words of letters, digits and `_`).
fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let word_len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        if word_len > 0
            && after[word_len..].starts_with('}')
            && after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        {
            found.push(after[..word_len].to_string());
        }
        rest = after;
    }
    found
}

/// One request to a model: which method, and the prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationRequest {
    /// `<method>-<k>`, k from 1: `str.split-3`.
    pub id: String,
    pub method: String,
    pub prompt: String,
}

/// The id of the k-th request (from 1) for a method.
pub fn request_id(method: &str, k: usize) -> String {
    format!("{method}-{k}")
}

/// The k of a request id `<method>-<k>` (1 when the id has none): the offline source's index.
pub fn request_index(id: &str) -> usize {
    id.rsplit('-').next().and_then(|k| k.parse().ok()).unwrap_or(1)
}

/// A stable hash of an example pool (its JSONL form), for the provenance: `fnv1a-` + 16 hex digits.
pub fn pool_hash(pool: &[FewShot]) -> String {
    format!("fnv1a-{:016x}", fnv1a(pool_to_jsonl(pool).as_bytes()))
}

/// `per_method` requests for every method, in the methods' order. Each prompt gets two examples
/// from the pool chosen by the seed, the method and k; an example for the method itself is never
/// chosen while the pool has two others.
pub fn generation_requests(
    methods: &[String],
    per_method: usize,
    seed: u64,
    template: &PromptTemplate,
    pool: &[FewShot],
) -> Result<Vec<GenerationRequest>, String> {
    template.check()?;
    if pool.len() < EXAMPLES_PER_PROMPT {
        return Err(format!("the example pool needs at least {EXAMPLES_PER_PROMPT} examples, it has {}", pool.len()));
    }
    if let Some(m) = methods.iter().find(|m| !is_known(m)) {
        return Err(format!("unknown method `{m}`"));
    }
    let mut requests = Vec::with_capacity(methods.len() * per_method);
    for method in methods {
        let others: Vec<&FewShot> = pool.iter().filter(|e| &e.method != method).collect();
        let candidates: Vec<&FewShot> =
            if others.len() >= EXAMPLES_PER_PROMPT { others } else { pool.iter().collect() };
        for k in 1..=per_method {
            let mut rng = Rng::new(seed_for(seed, method, k));
            let first = rng.below(candidates.len());
            let mut second = rng.below(candidates.len() - 1);
            if second >= first {
                second += 1;
            }
            let chosen = [candidates[first], candidates[second]];
            requests.push(GenerationRequest {
                id: request_id(method, k),
                method: method.clone(),
                prompt: template.render(method, &chosen),
            });
        }
    }
    Ok(requests)
}

/// The pool as JSONL, one example a line.
pub fn pool_to_jsonl(pool: &[FewShot]) -> String {
    pool.iter().map(|e| serde_json::to_string(e).unwrap_or_default() + "\n").collect()
}

/// Reads a pool from JSONL (`{method, code, inputs}` a line). Every bad line is named
/// (file:line: field: problem) and skipped.
pub fn read_pool(file: &str, text: &str) -> (Vec<FewShot>, Vec<RowError>) {
    read_rows(file, text, |row| {
        let problem = |field: &str, message: String| row.problem(field, message);
        let method = row.string("method")?;
        if !is_known(&method) {
            return Err(problem(
                "method",
                format!("`{method}` is not one of the recipe's methods (type.name, e.g. str.split)"),
            ));
        }
        let code = row.string("code")?;
        if !code.lines().any(|l| l.starts_with("def f(")) {
            return Err(problem("code", "must define a top-level function `def f(...)`".to_string()));
        }
        let inputs = match row.object.get("inputs") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
                    Value::String(_) => Err(problem("inputs", format!("input {} is empty", i + 1))),
                    other => Err(problem(
                        "inputs",
                        format!("input {} must be a string of arguments, found {}", i + 1, json_type(other)),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                return Err(problem("inputs", format!("must be a list of strings, found {}", json_type(other))));
            }
            None => return Err(problem("inputs", "missing".to_string())),
        };
        if inputs.is_empty() {
            return Err(problem("inputs", "needs at least one input".to_string()));
        }
        Ok(FewShot { method, code, inputs })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::all_methods;

    fn requests(seed: u64) -> Vec<GenerationRequest> {
        generation_requests(&all_methods(), 3, seed, &PromptTemplate::default(), &default_pool()).unwrap()
    }

    #[test]
    fn the_default_pool_is_big_enough_and_well_formed() {
        let pool = default_pool();
        assert!(pool.len() >= 10, "{}", pool.len());
        let (back, errors) = read_pool("pool.jsonl", &pool_to_jsonl(&pool));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(back, pool, "the pool round-trips through JSONL");
        for e in &pool {
            assert_eq!(e.inputs.len(), INPUTS_PER_FUNCTION, "{}", e.method);
            let name = split_method(&e.method).1;
            assert!(e.code.contains(&format!(".{name}(")), "{} uses its method", e.method);
        }
    }

    #[test]
    fn prompts_are_seeded_and_byte_deterministic() {
        let (a, b, c) = (requests(7), requests(7), requests(8));
        assert_eq!(a.len(), 69 * 3);
        assert_eq!(a, b, "same seed, same bytes");
        assert_ne!(a, c, "another seed, other prompts");
        let pool = default_pool();
        let mut pairs = std::collections::BTreeSet::new();
        for r in &a {
            let shown: Vec<&FewShot> = pool.iter().filter(|e| r.prompt.contains(&e.render())).collect();
            assert_eq!(shown.len(), EXAMPLES_PER_PROMPT, "{}", r.id);
            assert!(shown.iter().all(|e| e.method != r.method), "{}: never its own method's example", r.id);
            assert!(r.prompt.contains(&format!("`{}`", r.method)) && !r.prompt.contains("{method}"), "{}", r.id);
            pairs.insert((shown[0].method.clone(), shown[1].method.clone()));
        }
        assert!(pairs.len() > 20, "the examples vary: {} pairs", pairs.len());
        assert_eq!(a[0].id, "str.capitalize-1");
        assert_eq!(a[8].id, "str.center-3");
    }

    #[test]
    fn templates_are_checked_and_filled() {
        // (template, Ok(rendered start) or Err(message start))
        let cases: Vec<(&str, Result<&str, &str>)> = vec![
            (
                "Use {method} ({type}, {name}), {count} inputs. {examples}",
                Ok("Use str.split (str, split), 5 inputs. Method: "),
            ),
            ("{method} with {'a': 1} and {examples}", Ok("str.split with {'a': 1} and Method:")),
            ("{method} {example}", Err("the template has an unknown placeholder {example}")),
            ("no placeholders", Err("the template must contain {method}")),
            ("{method} only", Err("the template must contain {examples}")),
        ];
        let pool = default_pool();
        for (text, want) in cases {
            match (PromptTemplate::new(text), want) {
                (Ok(t), Ok(start)) => {
                    assert!(t.render("str.split", &[&pool[0], &pool[1]]).starts_with(start), "{text}")
                }
                (Err(e), Err(start)) => assert!(e.starts_with(start), "{text}: {e}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
        let one = &default_pool()[..1];
        assert_eq!(
            generation_requests(&["str.split".into()], 1, 0, &PromptTemplate::default(), one).unwrap_err(),
            "the example pool needs at least 2 examples, it has 1"
        );
        assert_eq!(
            generation_requests(&["str.nope".into()], 1, 0, &PromptTemplate::default(), &pool).unwrap_err(),
            "unknown method `str.nope`"
        );
    }

    #[test]
    fn bad_pool_lines_are_named() {
        let good = serde_json::to_string(&default_pool()[0]).unwrap();
        // (line, expected error or None)
        let cases: Vec<(String, Option<&str>)> = vec![
            (good.clone(), None),
            ("".into(), None),
            ("nope".into(), Some("p.jsonl:1: not JSON")),
            ("[1]".into(), Some("p.jsonl:1: a row must be a JSON object, found an array")),
            (r#"{"code":"def f(x):\n    return x","inputs":["1"]}"#.into(), Some("p.jsonl:1: field `method`: missing")),
            (
                r#"{"method":"str.splat","code":"def f(x):\n    return x","inputs":["1"]}"#.into(),
                Some("p.jsonl:1: field `method`: `str.splat` is not one of the recipe's methods"),
            ),
            (
                r#"{"method":"str.split","code":"def g(x):\n    return x","inputs":["1"]}"#.into(),
                Some("p.jsonl:1: field `code`: must define a top-level function"),
            ),
            (
                r#"{"method":"str.split","code":"def f(x):\n    return x","inputs":"1"}"#.into(),
                Some("p.jsonl:1: field `inputs`: must be a list of strings, found a string"),
            ),
            (
                r#"{"method":"str.split","code":"def f(x):\n    return x","inputs":[1]}"#.into(),
                Some("p.jsonl:1: field `inputs`: input 1 must be a string of arguments, found a number"),
            ),
            (
                r#"{"method":"str.split","code":"def f(x):\n    return x","inputs":[]}"#.into(),
                Some("p.jsonl:1: field `inputs`: needs at least one input"),
            ),
        ];
        for (line, want) in cases {
            let (pool, errors) = read_pool("p.jsonl", &line);
            match want {
                None => assert!(errors.is_empty() && pool.len() == usize::from(!line.is_empty()), "{line}: {errors:?}"),
                Some(start) => {
                    assert!(pool.is_empty(), "{line}");
                    assert_eq!(errors.len(), 1, "{line}");
                    assert!(errors[0].to_string().starts_with(start), "{line}: {}", errors[0]);
                }
            }
        }
        // Lines are counted in the file: the third line's error says 3.
        let (pool, errors) = read_pool("p.jsonl", &format!("{good}\n\n{{}}\n{good}\n"));
        assert_eq!((pool.len(), errors.len(), errors[0].line), (2, 1, 3));
    }

    #[test]
    fn splitmix_and_fnv_are_fixed() {
        // Reference values of splitmix64 from seed 0 and of FNV-1a ("" and "a"), published with
        // the algorithms: a change here would change every prompt.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
