//! A line diff of two texts, for a flipped sample's two prompts: what the perturbation changed in
//! the program the model read (a comment, a print, a renamed variable), whatever made the
//! perturbed dataset (execbench, CodeCrash's files, a user's own).
//!
//! The longest common subsequence of lines, by dynamic programming; texts longer than
//! [`MAX_LINES`] lines are shown as all removed then all added rather than spend quadratic time.
//! Kept over the `similar` crate (measured by `examples/diff_bench.rs`): on perturbed prompts
//! `similar` is as fast up to 500 lines and faster near the cap, but several times slower on texts
//! with no line in common (45 ms against 4-8 at 1,900 lines), beyond the cap it takes 40-350 ms on
//! the page's thread where this gives up in under a millisecond, and it would add about 15 KB
//! (5 KB gzipped) to the page's wasm.

/// What happened to a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Same,
    Removed,
    Added,
}

/// One line of the diff, without its line ending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub change: Change,
    pub text: String,
}

/// Beyond this many lines on either side the diff is not computed line by line.
pub const MAX_LINES: usize = 2000;

/// The lines of `before` and `after` in order: common lines once, removed ones before the added
/// ones that replace them.
pub fn line_diff(before: &str, after: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let line = |change, text: &str| DiffLine { change, text: text.to_string() };
    if a.len() > MAX_LINES || b.len() > MAX_LINES {
        return a.iter().map(|t| line(Change::Removed, t)).chain(b.iter().map(|t| line(Change::Added, t))).collect();
    }
    // common[i][j]: the longest common subsequence of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut common = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i * width + j] = if a[i] == b[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(line(Change::Same, a[i]));
            i += 1;
            j += 1;
        } else if j == b.len() || (i < a.len() && common[(i + 1) * width + j] >= common[i * width + j + 1]) {
            out.push(line(Change::Removed, a[i]));
            i += 1;
        } else {
            out.push(line(Change::Added, b[j]));
            j += 1;
        }
    }
    out
}

/// How many lines were removed and added.
pub fn changed_lines(diff: &[DiffLine]) -> (usize, usize) {
    let count = |c| diff.iter().filter(|l| l.change == c).count();
    (count(Change::Removed), count(Change::Added))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The diff as `" x"`, `"-x"`, `"+x"` lines.
    fn shown(diff: &[DiffLine]) -> Vec<String> {
        diff.iter()
            .map(|l| {
                let mark = match l.change {
                    Change::Same => ' ',
                    Change::Removed => '-',
                    Change::Added => '+',
                };
                format!("{mark}{}", l.text)
            })
            .collect()
    }

    #[test]
    fn lines_are_kept_removed_and_added() {
        // (before, after, expected)
        let cases: &[(&str, &str, &[&str])] = &[
            ("a\nb\nc", "a\nb\nc", &[" a", " b", " c"]),
            ("", "", &[]),
            ("", "x", &["+x"]),
            ("x", "", &["-x"]),
            // A comment inserted, as MCC does.
            (
                "def f(x):\n    return x",
                "def f(x):\n    # it doubles x\n    return x",
                &[" def f(x):", "+    # it doubles x", "     return x"],
            ),
            // A renamed variable: the old line goes before its replacement.
            (
                "def f(a):\n    b = a\n    return b",
                "def f(a):\n    Var_1 = a\n    return Var_1",
                &[" def f(a):", "-    b = a", "-    return b", "+    Var_1 = a", "+    return Var_1"],
            ),
            ("a\nb\nc\nd", "a\nc\nd\ne", &[" a", "-b", " c", " d", "+e"]),
        ];
        for (before, after, expected) in cases {
            assert_eq!(shown(&line_diff(before, after)), *expected, "{before:?} -> {after:?}");
        }
    }

    #[test]
    fn every_line_of_both_texts_appears_once_in_order() {
        let before = "1\n2\n3\n4\n5\n6\n2\n3";
        let after = "0\n2\n3\n7\n5\n2\n9\n3";
        let diff = line_diff(before, after);
        let old: Vec<&str> = diff.iter().filter(|l| l.change != Change::Added).map(|l| l.text.as_str()).collect();
        let new: Vec<&str> = diff.iter().filter(|l| l.change != Change::Removed).map(|l| l.text.as_str()).collect();
        assert_eq!(old, before.lines().collect::<Vec<_>>());
        assert_eq!(new, after.lines().collect::<Vec<_>>());
        // The common part is a longest one: 2, 3, 5, 2, 3 (five lines), so 3 removed and 3 added.
        assert_eq!(changed_lines(&diff), (3, 3));
    }

    #[test]
    fn very_long_texts_are_not_diffed_line_by_line() {
        let long = "x\n".repeat(MAX_LINES + 1);
        let diff = line_diff(&long, &long);
        assert_eq!(changed_lines(&diff), (MAX_LINES + 1, MAX_LINES + 1));
    }
}
