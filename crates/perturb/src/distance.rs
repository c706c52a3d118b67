//! How far MHC's hint is from the truth, in characters: a hint one edit away from the true answer
//! nearly gives it away, so the share of such hints is what tells a plausible lie from a typo.
//! Output prediction compares the claimed literal with the true output; input prediction the
//! claimed argument text with the true call's argument text (what goes between the parentheses).

use execbench_core::Sample;
use serde::{Deserialize, Serialize};

use crate::{Hint, Prediction, syntax};

/// Levenshtein distance over Unicode scalar values (insertions, deletions, substitutions).
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // One row at a time: values can be long (a list of a thousand numbers).
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The text between a call's outer parentheses (`f('a', 1)` -> `'a', 1`), trimmed; `None` when
/// `call` is not one call.
pub fn call_arguments(call: &str) -> Option<String> {
    let tree = syntax::parse_valid(call, "the call").ok()?;
    let arguments = syntax::named_children(tree.root_node())
        .first()
        .and_then(|statement| syntax::named_children(*statement).into_iter().next())
        .filter(|n| n.kind() == "call")
        .and_then(|c| c.child_by_field_name("arguments"))?;
    let inner = &call[arguments.start_byte() + 1..arguments.end_byte().saturating_sub(1)];
    Some(inner.trim().to_string())
}

/// What a claim about `sample` is compared with: its output, or its call's arguments.
pub fn truth_of(sample: &Sample, prediction: Prediction) -> Option<String> {
    match prediction {
        Prediction::Output => Some(sample.output.trim().to_string()),
        Prediction::Input => call_arguments(&sample.call),
    }
}

/// The distance between a claim and the truth for `prediction`; `None` when the call has no
/// readable arguments.
pub fn claim_distance(sample: &Sample, prediction: Prediction, claim: &str) -> Option<usize> {
    truth_of(sample, prediction).map(|truth| levenshtein(claim.trim(), &truth))
}

/// The distance between the hint placed in a perturbation of `sample` and the truth.
pub fn hint_distance(sample: &Sample, hint: &Hint) -> Option<usize> {
    claim_distance(sample, hint.prediction, &hint.claimed)
}

/// The distribution of hint-to-truth distances over a set of hints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistanceSummary {
    pub hints: usize,
    /// The middle distance (the mean of the two middle ones for an even count); 0 without hints.
    pub median: f64,
    /// How many hints are at most one edit away from the truth.
    pub within_one: usize,
}

impl DistanceSummary {
    pub fn of(distances: &[usize]) -> DistanceSummary {
        let mut sorted = distances.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => sorted[n / 2] as f64,
            _ => (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0,
        };
        DistanceSummary { hints: n, median, within_one: sorted.iter().filter(|d| **d <= 1).count() }
    }

    /// `within_one` as a percentage of the hints (0 without hints).
    pub fn percent_within_one(&self) -> f64 {
        if self.hints == 0 { 0.0 } else { 100.0 * self.within_one as f64 / self.hints as f64 }
    }
}

impl std::fmt::Display for DistanceSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {} characters, {:.1}% at distance <= 1 ({} hints)",
            self.median,
            self.percent_within_one(),
            self.hints
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_counts_single_edits() {
        let cases: &[(&str, &str, usize)] = &[
            ("", "", 0),
            ("abc", "abc", 0),
            ("5", "6", 1),
            ("'abc'", "'abd'", 1),
            ("[1, 2]", "[2, 1]", 2),
            ("kitten", "sitting", 3),
            ("", "abc", 3),
            ("'ß'", "'s'", 1),
            ("[1, 2, 3]", "[]", 7),
        ];
        for (a, b, d) in cases {
            assert_eq!(levenshtein(a, b), *d, "{a} / {b}");
            assert_eq!(levenshtein(b, a), *d, "symmetric: {a} / {b}");
        }
    }

    #[test]
    fn distances_compare_with_the_truth_of_the_task() {
        let sample = execbench_core::load_jsonl(
            "d",
            r#"{"id": "s", "code": "def f(a, b):\n    return a", "input": "'abc', 2", "output": "'abc'"}"#,
        )
        .samples
        .remove(0);
        let cases: &[(Prediction, &str, Option<usize>)] = &[
            (Prediction::Output, "'abd'", Some(1)),
            (Prediction::Output, " 'xyz' ", Some(3)),
            (Prediction::Input, "'abc', 3", Some(1)),
            (Prediction::Input, "'cba', 12", Some(3)),
        ];
        for (prediction, claim, expected) in cases {
            let hint = Hint {
                prediction: *prediction,
                claimed: claim.to_string(),
                alternatives: Vec::new(),
                probes: Vec::new(),
                probed: None,
            };
            assert_eq!(hint_distance(&sample, &hint), *expected, "{prediction:?} {claim}");
        }
        assert_eq!(call_arguments("f(\n  1, x=2 )").as_deref(), Some("1, x=2"));
        assert_eq!(call_arguments("f"), None);
    }

    #[test]
    fn summary_has_median_and_share_within_one() {
        let cases: &[(&[usize], f64, usize, &str)] = &[
            (&[], 0.0, 0, "median 0 characters, 0.0% at distance <= 1 (0 hints)"),
            (&[1, 5, 3], 3.0, 1, "median 3 characters, 33.3% at distance <= 1 (3 hints)"),
            (&[4, 1, 1, 2], 1.5, 2, "median 1.5 characters, 50.0% at distance <= 1 (4 hints)"),
        ];
        for (distances, median, within_one, text) in cases {
            let summary = DistanceSummary::of(distances);
            assert_eq!(
                (summary.median, summary.within_one, summary.hints),
                (*median, *within_one, distances.len()),
                "{distances:?}"
            );
            assert_eq!(summary.to_string(), *text);
        }
    }
}
