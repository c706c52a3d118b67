//! Python the worker runs in its idle time once it is ready, so the browser has compiled the
//! engine's hot paths to optimised code before the user's first runs (a cold engine ran the first
//! verify-all pass about 1.5x slower than a warm one). The programs touch what dataset functions
//! use most: strings, lists, dicts, sets, comprehensions, sorting, loops and calls.

/// (program, expression) pairs; every one returns a value.
pub const PROGRAMS: &[(&str, &str)] = &[
    (
        "def f(text):\n    words = text.split()\n    return ' '.join(w[::-1].capitalize() for w in words if w)",
        "f('warm up the engine before anyone waits')",
    ),
    (
        "def f(xs):\n    seen = {}\n    for i, x in enumerate(xs):\n        seen.setdefault(x % 5, []).append(i)\n    return sorted(seen.items(), key=lambda kv: (-len(kv[1]), kv[0]))",
        "f(list(range(40)))",
    ),
    (
        "def f(s, ch):\n    out = []\n    for part in s.split(ch):\n        if part.isdigit():\n            out.append(int(part) * 2)\n        elif part:\n            out.append(part.upper().strip())\n    return tuple(out)",
        "f('12,ab, cd,7,,x9', ',')",
    ),
    (
        "def f(nums, k):\n    total = 0\n    window = []\n    for n in nums:\n        window.append(n)\n        if len(window) > k:\n            window.pop(0)\n        total += max(window) - min(window)\n    return total, {n for n in nums if n % 3 == 0}",
        "f([5, 1, 9, 3, 7, 2, 8, 6, 4, 0] * 3, 4)",
    ),
    (
        "def f(d):\n    keys = [k for k in d if isinstance(k, str)]\n    merged = dict(d)\n    for k in keys:\n        merged[k.swapcase()] = merged.pop(k, None)\n    return sorted(merged, key=str), len(merged)",
        "f({'a': 1, 'B': 2, 3: 'c', 'dE': [4]})",
    ),
    (
        "def f(n):\n    def fib(m):\n        a, b = 0, 1\n        for _ in range(m):\n            a, b = b, a + b\n        return a\n    return [fib(i) for i in range(n)], str(fib(n)).count('1')",
        "f(30)",
    ),
];

/// How many times each program runs.
pub const ROUNDS: usize = 5;

#[cfg(test)]
mod tests {
    use execbench_core::{Outcome, PythonEngine, RunRequest};
    use execbench_pyengine::RustPythonEngine;

    use super::*;

    /// Each program returns a value, and the same one in every round: a warm-up that changed the
    /// engine's state would change a user's later results.
    #[test]
    fn every_warm_up_program_returns_the_same_value_every_round() {
        let mut engine = RustPythonEngine::new();
        for &(program, expression) in PROGRAMS {
            let values: Vec<Outcome> =
                (0..ROUNDS).map(|_| engine.run(&RunRequest::new(program, expression)).outcome).collect();
            assert!(matches!(values[0], Outcome::Value { .. }), "{expression}: {:?}", values[0]);
            assert!(values.iter().all(|v| *v == values[0]), "{expression}: {values:?}");
        }
    }
}
