//! The funnel: how many candidates were left after each stage of the build, overall and per
//! method, and how many each rule rejected (in `Rule::ALL` order, zeros included, so every
//! funnel has the same shape).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rows::Kept;
use crate::rules::{Rule, Stage};
use crate::verdict::{Judged, Verdict};

/// One method's counts at each stage (`None`: candidates that name no method).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodCounts {
    pub method: Option<String>,
    pub parsed: usize,
    pub passed_static: usize,
    pub passed_runtime: usize,
    pub unique: usize,
    pub sampled: usize,
}

/// How many candidates one rule rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleCount {
    pub rule: Rule,
    pub count: usize,
}

/// Counts at each stage. `responses` is `None` when the generation is not known (a candidates
/// file made elsewhere).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Funnel {
    /// Model responses generated.
    pub responses: Option<usize>,
    /// Candidates read from them (each response gives one per test input): the filter's input.
    pub parsed: usize,
    pub passed_static: usize,
    /// Kept by the filter.
    pub passed_runtime: usize,
    /// Left after deduplication.
    pub unique: usize,
    /// In the exported benchmark.
    pub sampled: usize,
    /// Sorted by method, unnamed first.
    pub by_method: Vec<MethodCounts>,
    /// Every rule in `Rule::ALL` order; `unparseable` counts responses, the others candidates.
    pub rejections: Vec<RuleCount>,
}

impl Funnel {
    /// The counts up to the filter, from its verdicts. `responses` and `unparseable` come from the
    /// generation when it is known.
    pub fn from_judged(responses: Option<usize>, unparseable: usize, judged: &[Judged]) -> Funnel {
        let mut methods: BTreeMap<Option<String>, MethodCounts> = BTreeMap::new();
        let mut rejections: Vec<RuleCount> = Rule::ALL.iter().map(|&rule| RuleCount { rule, count: 0 }).collect();
        rejections[0].count = unparseable;
        let mut funnel = Funnel { responses, parsed: judged.len(), ..Funnel::default() };
        for j in judged {
            let counts = methods
                .entry(j.candidate.method.clone())
                .or_insert_with(|| MethodCounts { method: j.candidate.method.clone(), ..MethodCounts::default() });
            counts.parsed += 1;
            let (past_static, kept) = match &j.verdict {
                Verdict::Kept { .. } => (true, true),
                Verdict::Rejected(r) => {
                    if let Some(slot) = rejections.iter_mut().find(|c| c.rule == r.rule) {
                        slot.count += 1;
                    }
                    (r.rule.stage() == Stage::Runtime, false)
                }
            };
            counts.passed_static += usize::from(past_static);
            counts.passed_runtime += usize::from(kept);
            funnel.passed_static += usize::from(past_static);
            funnel.passed_runtime += usize::from(kept);
        }
        funnel.by_method = methods.into_values().collect();
        funnel.rejections = rejections;
        funnel
    }

    /// Records the rows left after deduplication.
    pub fn set_unique(&mut self, unique: &[Kept]) {
        self.unique = unique.len();
        for counts in &mut self.by_method {
            counts.unique = 0;
        }
        for row in unique {
            self.method_mut(&row.method).unique += 1;
        }
    }

    /// Records the rows sampled into the benchmark.
    pub fn set_sampled(&mut self, sampled: &[Kept]) {
        self.sampled = sampled.len();
        for counts in &mut self.by_method {
            counts.sampled = 0;
        }
        for row in sampled {
            self.method_mut(&row.method).sampled += 1;
        }
    }

    /// How many candidates (responses for `unparseable`) `rule` rejected.
    pub fn rejected_by(&self, rule: Rule) -> usize {
        self.rejections.iter().find(|c| c.rule == rule).map_or(0, |c| c.count)
    }

    fn method_mut(&mut self, method: &Option<String>) -> &mut MethodCounts {
        let at = match self.by_method.binary_search_by(|c| c.method.cmp(method)) {
            Ok(at) => at,
            Err(at) => {
                self.by_method.insert(at, MethodCounts { method: method.clone(), ..MethodCounts::default() });
                at
            }
        };
        &mut self.by_method[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidate::Candidate;
    use crate::rules::Rejection;

    fn judged(id: &str, method: Option<&str>, rule: Option<Rule>) -> Judged {
        let candidate = Candidate {
            id: id.into(),
            method: method.map(str::to_string),
            code: format!("def f(x):\n    return '{id}'"),
            input: "1".into(),
        };
        let verdict = match rule {
            None => Verdict::Kept { output: format!("'{id}'") },
            Some(rule) => Verdict::Rejected(Rejection::new(rule, "")),
        };
        Judged { candidate, verdict }
    }

    fn kept(judged: &[Judged], ids: &[&str]) -> Vec<Kept> {
        judged.iter().filter_map(Kept::of).filter(|k| ids.contains(&k.id.as_str())).collect()
    }

    #[test]
    fn counts_each_stage_overall_and_per_method() {
        let all = vec![
            judged("a1", Some("str.split"), None),
            judged("a2", Some("str.split"), Some(Rule::Syntax)),
            judged("a3", Some("str.split"), Some(Rule::Float)),
            judged("a4", Some("str.split"), None),
            judged("b1", Some("list.pop"), Some(Rule::Import)),
            judged("b2", Some("list.pop"), None),
            judged("c1", None, Some(Rule::Raised)),
            judged("c2", None, Some(Rule::Float)),
        ];
        let mut funnel = Funnel::from_judged(Some(5), 2, &all);
        funnel.set_unique(&kept(&all, &["a1", "a4", "b2"]));
        funnel.set_sampled(&kept(&all, &["a4", "b2"]));
        assert_eq!(
            (
                funnel.responses,
                funnel.parsed,
                funnel.passed_static,
                funnel.passed_runtime,
                funnel.unique,
                funnel.sampled
            ),
            (Some(5), 8, 6, 3, 3, 2)
        );
        // (method, parsed, static, runtime, unique, sampled), sorted by method with None first.
        type Row<'a> = (Option<&'a str>, usize, usize, usize, usize, usize);
        let want: &[Row] =
            &[(None, 2, 2, 0, 0, 0), (Some("list.pop"), 2, 1, 1, 1, 1), (Some("str.split"), 4, 3, 2, 2, 1)];
        let got: Vec<_> = funnel
            .by_method
            .iter()
            .map(|c| (c.method.as_deref(), c.parsed, c.passed_static, c.passed_runtime, c.unique, c.sampled))
            .collect();
        assert_eq!(got, want);
        // Every rule in order, zeros included; unparseable is the number passed in.
        assert_eq!(funnel.rejections.iter().map(|c| c.rule).collect::<Vec<_>>(), Rule::ALL);
        let nonzero: Vec<(&str, usize)> =
            funnel.rejections.iter().filter(|c| c.count > 0).map(|c| (c.rule.id(), c.count)).collect();
        assert_eq!(nonzero, [("unparseable", 2), ("syntax", 1), ("import", 1), ("float", 2), ("raised", 1)]);
        assert_eq!(funnel.rejected_by(Rule::Float), 2);
        // Setting again replaces, never adds.
        funnel.set_sampled(&kept(&all, &["a1"]));
        assert_eq!((funnel.sampled, funnel.by_method[1].sampled, funnel.by_method[2].sampled), (1, 0, 1));
    }

    #[test]
    fn an_empty_filter_gives_an_empty_funnel_of_the_same_shape() {
        let funnel = Funnel::from_judged(None, 0, &[]);
        assert_eq!((funnel.parsed, funnel.passed_static, funnel.passed_runtime, funnel.by_method.len()), (0, 0, 0, 0));
        assert_eq!(funnel.rejections.len(), Rule::ALL.len());
        assert!(funnel.rejections.iter().all(|c| c.count == 0));
    }
}
