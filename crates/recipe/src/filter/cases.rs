//! The filter's table of hand-written candidates, each with the one rule it must break (or none).
//! Run natively (`tests/recipe/filter_table.rs`) and in the browser's worker (the app's
//! `tests/app/browser_engine.rs`), so both engines are held to the same verdicts.

use crate::rules::Rule;

/// (name, code, input, the rule it breaks; `None` = kept).
pub type Case = (&'static str, &'static str, &'static str, Option<Rule>);

pub const CASES: &[Case] = &[
    // Kept
    (
        "split and count",
        "def f(text):\n    words = text.split()\n    count = 0\n    for w in words:\n        if w.startswith('a'):\n            count += 1\n    return count",
        "'an apple a day'",
        None,
    ),
    (
        "dict update",
        "def f(d, key):\n    result = dict(d)\n    result.update({key: len(result)})\n    return sorted(result.items())",
        "{'a': 1, 'b': 2}, 'z'",
        None,
    ),
    (
        "list sort reverse",
        "def f(nums):\n    nums.sort(reverse=True)\n    if len(nums) > 2:\n        return nums[:2]\n    return nums",
        "[3, 1, 2, 5]",
        None,
    ),
    (
        "small int ops",
        "def f(n):\n    total = 0\n    for i in range(n):\n        total = total + i * 2\n    return total - 1",
        "3",
        None,
    ),
    (
        "power of one",
        "def f(nums):\n    out = []\n    for x in nums:\n        out.append(x ** 1)\n    return [v for v in out if v % 2 == 0]",
        "[1, 2, 4, 7]",
        None,
    ),
    (
        "short concat",
        "def f(text, suffix):\n    if not text.endswith(suffix):\n        text = text + suffix\n    return text.upper()",
        "'hello', '!'",
        None,
    ),
    (
        "caught exception",
        "def f(text):\n    try:\n        return text.index('z')\n    except ValueError:\n        return -1\n    return 0",
        "'abc'",
        None,
    ),
    (
        "no arguments",
        "def f():\n    d = {'a': [1, 2], 'b': [3]}\n    return [k for k in d.keys() if len(d[k]) > 1]",
        "",
        None,
    ),
    (
        "shadowed builtin name",
        "def f(input, id):\n    parts = input.split(',')\n    return parts[id] if id < len(parts) else ''",
        "'a,b,c', 1",
        None,
    ),
    (
        "keyword call input",
        "def f(text, fill):\n    return text.center(9, fill).replace(fill, fill.upper())",
        "'mid', fill='x'",
        None,
    ),
    ("divmod small", "def f(n):\n    q, r = divmod(n, 3)\n    return [q, r, str(q) + str(r)] if n else []", "17", None),
    (
        "string repeat",
        "def f(s, n):\n    line = s * n\n    return [line.zfill(10), line.title(), '|']",
        "'ab', 3",
        None,
    ),
    (
        "nested function",
        "def f(items):\n    def key(x):\n        return x[1]\n    return [name for name, _ in sorted(items, key=key)]",
        "[('b', 2), ('a', 1)]",
        None,
    ),
    (
        "while loop",
        "def f(text):\n    while text.endswith('x'):\n        text = text[:-1]\n    return text.rjust(6, '.') + str(len(text))",
        "'abcxxx'",
        None,
    ),
    (
        "dict pop default",
        "def f(d, k):\n    value = d.pop(k, None)\n    return (value, sorted(d), len(d) if value is None else 0)",
        "{'x': 1, 'y': 2}, 'x'",
        None,
    ),
    // Static rules
    (
        "syntax",
        "def f(x):\n    values = [x, x, x]\n    return values +* [x] and x and x and x and x and x and x",
        "1",
        Some(Rule::Syntax),
    ),
    (
        "no f",
        "def g(text):\n    return text.upper().lower().strip().split() + text.split(',') + [text]",
        "'abc'",
        Some(Rule::NoFunctionF),
    ),
    (
        "f nested only",
        "class A:\n    def f(self, text):\n        return text.upper().lower().strip().split() + text.split(',')",
        "'abc'",
        Some(Rule::NoFunctionF),
    ),
    (
        "unused argument",
        "def f(text, unused):\n    result = text.replace('a', 'b')\n    return result.capitalize() + result.swapcase()",
        "'banana', 3",
        Some(Rule::UnusedArgument),
    ),
    (
        "unused star args",
        "def f(text, *rest):\n    result = text.replace('a', 'b')\n    return result.capitalize() + result.swapcase()",
        "'banana'",
        Some(Rule::UnusedArgument),
    ),
    ("too short", "def f(x):\n    return x", "1", Some(Rule::CodeLength)),
    (
        "too long",
        "def f(text):\n    # this function is long on purpose: the recipe wanted snippets a person reads in a minute, and this one goes on well past that length with comments that add nothing at all, nothing at all, nothing at all, nothing, nothing, nothing and more nothing\n    return text.upper()",
        "'abc'",
        Some(Rule::CodeLength),
    ),
    (
        "input not one call",
        "def f(a, b):\n    result = [a, b]\n    result.extend([b, a])\n    return result + [len(result)]",
        "1) + (2",
        Some(Rule::BadInput),
    ),
    (
        "input unbalanced",
        "def f(a, b):\n    result = [a, b]\n    result.extend([b, a])\n    return result + [len(result)]",
        "[1, 2",
        Some(Rule::BadInput),
    ),
    (
        "import",
        "import string\n\ndef f(text):\n    return ''.join(c for c in text if c in string.ascii_lowercase)",
        "'aBc'",
        Some(Rule::Import),
    ),
    (
        "import inside",
        "def f(text):\n    from collections import Counter\n    return sorted(Counter(text).items())[:2] + [text]",
        "'aab'",
        Some(Rule::Import),
    ),
    (
        "open",
        "def f(name):\n    with open(name) as handle:\n        return handle.read().strip().split(',')[0]",
        "'data.txt'",
        Some(Rule::ForbiddenName),
    ),
    (
        "input builtin",
        "def f(prompt):\n    answer = input(prompt)\n    return answer.strip().lower().replace(' ', '_')",
        "'name? '",
        Some(Rule::ForbiddenName),
    ),
    (
        "hash",
        "def f(items):\n    return sorted(items, key=lambda s: hash(s) % 3)[:2] + [len(items)]",
        "['a', 'b', 'c']",
        Some(Rule::ForbiddenName),
    ),
    (
        "set",
        "def f(text):\n    letters = set(text)\n    return ''.join(letters).upper() + str(len(text))",
        "'hello'",
        Some(Rule::ForbiddenName),
    ),
    (
        "eval",
        "def f(expr):\n    value = eval(expr)\n    return [value, str(value), expr.replace('+', ' plus ')]",
        "'1+2'",
        Some(Rule::ForbiddenName),
    ),
    (
        "dunder escape",
        "def f(x):\n    g = x.__init__.__globals__\n    return sorted(g)[:3] + [type(x).__name__, 'done']",
        "[]",
        Some(Rule::ForbiddenName),
    ),
    (
        "forbidden name in input",
        "def f(a):\n    result = list(a)\n    result.reverse()\n    return result + [len(result), 'end']",
        "open('x')",
        Some(Rule::ForbiddenName),
    ),
    // Runtime rules
    (
        "float",
        "def f(prices):\n    total = 0\n    for p in prices:\n        total = total + p\n    return [total, len(prices), 'sum']",
        "[1.5, 2.0]",
        Some(Rule::Float),
    ),
    (
        "true division",
        "def f(nums):\n    half = len(nums) / 2\n    return nums[:int(half)] + ['mid'] + nums[int(half):]",
        "[1, 2, 3, 4]",
        Some(Rule::TrueDivision),
    ),
    (
        "power",
        "def f(n):\n    values = [n ** 3, n, n + 1]\n    return sorted(values, reverse=True)[:2] + [str(n)]",
        "4",
        Some(Rule::Power),
    ),
    (
        "pow builtin",
        "def f(n, m):\n    values = [pow(n, m), n, m]\n    return sorted(values, reverse=True)[:2] + [str(n)]",
        "5, 4",
        Some(Rule::Power),
    ),
    (
        "large integers",
        "def f(a, b):\n    product = a * b\n    return [product, str(product).zfill(6), len(str(product))]",
        "12, 34",
        Some(Rule::LargeIntegers),
    ),
    (
        "large augmented",
        "def f(nums):\n    total = 0\n    for n in nums:\n        total += n\n    return [total, len(nums), nums[0] if nums else None]",
        "[10, 20, 30]",
        Some(Rule::LargeIntegers),
    ),
    (
        "long sequences",
        "def f(a, b):\n    joined = a + b\n    return [joined, joined.upper(), len(joined), joined.count('o')]",
        "'hello', 'world'",
        Some(Rule::LongSequences),
    ),
    (
        "long lists",
        "def f(a, b):\n    merged = a + b\n    merged.sort()\n    return merged[:3] + [len(merged), merged[-1]]",
        "[5, 6, 7, 8], [1, 2, 3, 4]",
        Some(Rule::LongSequences),
    ),
    (
        "raises",
        "def f(text):\n    parts = text.split(',')\n    return parts[5].upper() + parts[0].lower() + str(len(parts))",
        "'a,b,c'",
        Some(Rule::Raised),
    ),
    (
        "raises at definition",
        "def f(text):\n    return text.upper().lower().strip().split() + text.split(',') + [text]\nvalue = undefined_name",
        "'abc'",
        Some(Rule::Raised),
    ),
    (
        "step limit",
        // Two cheap lines per turn and no operator for the harness to check: the page meets the
        // step limit long before its time limit, even on a loaded machine (with a checked
        // `count + 1` per turn, CI's page once ran out of time first).
        "def f(n):\n    count = 0\n    for count in range(n):\n        pass\n    return [count, str(count), count == n, n]",
        "1000000",
        Some(Rule::StepLimit),
    ),
    (
        "timed out",
        "def f(text, n):\n    for _ in range(n):\n        text = text.replace('a', 'ba').replace('ba', 'a')\n    return [len(text), text[:3], n, 'done']",
        "'ab' * 10 ** 6, 1000",
        Some(Rule::TimedOut),
    ),
    (
        "nondeterministic",
        "history = []\n\ndef f(x):\n    history.append(x)\n    return [len(history), x, str(x) + '!', history[0]]",
        "'a'",
        Some(Rule::Nondeterministic),
    ),
    (
        "output not literal",
        "def f(n):\n    class Box:\n        pass\n    box = Box()\n    box.n = n\n    return [box, n, 'box', str(n)]",
        "1",
        Some(Rule::OutputNotLiteral),
    ),
];
