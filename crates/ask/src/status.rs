//! What a running job looks like from outside: counts for the progress bar and one line that says
//! what is happening, e.g. "2 running, 1 waiting 12 s after a rate limit, 1 retry 2/5,
//! concurrency 2 of 4 after rate limits, back to 4 in 10 s".

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use execbench_providers::Usage;
use serde::{Deserialize, Serialize};

use crate::recovery::Lowered;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStatus {
    /// Samples in the job (those already done before a resume included).
    pub total: usize,
    /// Samples with a record: scored or failed.
    pub done: usize,
    /// Samples whose attempts all failed for infrastructure reasons (not wrong answers).
    pub errors: usize,
    /// Requests in flight now.
    pub running: usize,
    /// Requests waiting after a rate limit, and the longest wait left.
    pub rate_limited: usize,
    pub longest_wait_ms: u64,
    /// Requests waiting to retry after a fault, and the furthest along (retry k of max).
    pub retrying: usize,
    pub worst_retry: Option<(u32, u32)>,
    /// The concurrency limit now (lower than the setting after rate limits).
    pub concurrency_limit: usize,
    /// While rate limits keep the limit below the setting: the setting and when it is back.
    #[serde(default)]
    pub concurrency_lowered: Option<Lowered>,
    pub requests_sent: usize,
    /// This session's requests sent again after a fault, waits after a rate limit, and requests
    /// that ended in an error (the run's totals are its entry's `requests`).
    pub retries: usize,
    pub rate_limit_waits: usize,
    pub failed_attempts: usize,
    pub usage: Usage,
    pub elapsed_ms: f64,
    pub stopping: bool,
}

impl RunStatus {
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.stopping {
            parts.push("stopping".to_string());
        }
        parts.push(format!("{} running", self.running));
        if self.rate_limited > 0 {
            parts.push(format!(
                "{} waiting {} s after a rate limit",
                self.rate_limited,
                self.longest_wait_ms.div_ceil(1000)
            ));
        }
        if let Some((k, max)) = self.worst_retry.filter(|_| self.retrying > 0) {
            parts.push(format!("{} {} {k}/{max}", self.retrying, if self.retrying == 1 { "retry" } else { "retries" }));
        }
        if self.errors > 0 {
            parts.push(format!("{} {}", self.errors, if self.errors == 1 { "error" } else { "errors" }));
        }
        parts.extend(self.concurrency_note());
        parts.join(", ")
    }

    /// "concurrency 2 of 4 after rate limits, back to 4 in 10 s" while the limit is lowered.
    pub fn concurrency_note(&self) -> Option<String> {
        self.concurrency_lowered.map(|l| {
            format!(
                "concurrency {} of {} after rate limits, back to {} in {} s",
                l.limit,
                l.setting,
                l.setting,
                l.back_in_ms.div_ceil(1000)
            )
        })
    }

    pub fn fraction(&self) -> f64 {
        if self.total == 0 { 0.0 } else { self.done as f64 / self.total as f64 }
    }
}

/// The engine's live book-keeping behind [`RunStatus`].
#[derive(Clone, Default)]
pub struct Live {
    inner: Rc<RefCell<LiveState>>,
}

#[derive(Default)]
struct LiveState {
    status: RunStatus,
    next_id: u64,
    /// Request id → time its rate-limit wait ends.
    waits: BTreeMap<u64, f64>,
    /// Request id → (retry k, max).
    retries: BTreeMap<u64, (u32, u32)>,
}

impl Live {
    pub fn new(total: usize, done: usize) -> Self {
        let live = Live::default();
        live.inner.borrow_mut().status = RunStatus { total, done, ..RunStatus::default() };
        live
    }

    pub fn request_id(&self) -> u64 {
        let mut s = self.inner.borrow_mut();
        s.next_id += 1;
        s.next_id
    }

    pub fn started(&self) {
        let mut s = self.inner.borrow_mut();
        s.status.running += 1;
        s.status.requests_sent += 1;
    }

    pub fn ended(&self) {
        self.inner.borrow_mut().status.running -= 1;
    }

    /// A request is sent again after `until_ms` (one more retry or rate-limit wait).
    pub fn waiting(&self, id: u64, until_ms: f64, rate_limited: bool, retry: (u32, u32)) {
        let mut s = self.inner.borrow_mut();
        if rate_limited {
            s.waits.insert(id, until_ms);
            s.status.rate_limit_waits += 1;
        } else {
            s.retries.insert(id, retry);
            s.status.retries += 1;
        }
    }

    /// A request ended in an error (whether or not it is sent again).
    pub fn attempt_failed(&self) {
        self.inner.borrow_mut().status.failed_attempts += 1;
    }

    /// Requests waiting to be sent again (after a rate limit or a fault): they hold no slot.
    pub fn requests_waiting(&self) -> usize {
        let s = self.inner.borrow();
        s.waits.len() + s.retries.len()
    }

    pub fn done_waiting(&self, id: u64) {
        let mut s = self.inner.borrow_mut();
        s.waits.remove(&id);
        s.retries.remove(&id);
    }

    pub fn add_usage(&self, usage: &Usage) {
        self.inner.borrow_mut().status.usage.add(usage);
    }

    /// Tokens of the requests answered so far in this session.
    pub fn usage(&self) -> Usage {
        self.inner.borrow().status.usage
    }

    pub fn sample_done(&self, error: bool) {
        let mut s = self.inner.borrow_mut();
        s.status.done += 1;
        if error {
            s.status.errors += 1;
        }
    }

    pub fn set_stopping(&self) {
        self.inner.borrow_mut().status.stopping = true;
    }

    /// The status at `now_ms`, with the gate's limit and, while lowered, its way back.
    pub fn snapshot(
        &self,
        now_ms: f64,
        elapsed_ms: f64,
        concurrency_limit: usize,
        concurrency_lowered: Option<Lowered>,
    ) -> RunStatus {
        let s = self.inner.borrow();
        let mut status = s.status.clone();
        status.rate_limited = s.waits.len();
        status.longest_wait_ms = s.waits.values().map(|until| (until - now_ms).max(0.0) as u64).max().unwrap_or(0);
        status.retrying = s.retries.len();
        status.worst_retry = s.retries.values().max().copied();
        status.concurrency_limit = concurrency_limit;
        status.concurrency_lowered = concurrency_lowered;
        status.elapsed_ms = elapsed_ms;
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_says_what_is_happening() {
        let cases: Vec<(RunStatus, &str)> = vec![
            (RunStatus::default(), "0 running"),
            (
                RunStatus {
                    running: 4,
                    rate_limited: 2,
                    longest_wait_ms: 11_200,
                    retrying: 1,
                    worst_retry: Some((2, 5)),
                    ..Default::default()
                },
                "4 running, 2 waiting 12 s after a rate limit, 1 retry 2/5",
            ),
            (
                RunStatus { running: 1, retrying: 3, worst_retry: Some((4, 5)), errors: 2, ..Default::default() },
                "1 running, 3 retries 4/5, 2 errors",
            ),
            (RunStatus { stopping: true, errors: 1, ..Default::default() }, "stopping, 0 running, 1 error"),
            (
                RunStatus {
                    running: 2,
                    rate_limited: 1,
                    longest_wait_ms: 900,
                    concurrency_limit: 2,
                    concurrency_lowered: Some(Lowered { limit: 2, setting: 4, back_in_ms: 9_001 }),
                    ..Default::default()
                },
                "2 running, 1 waiting 1 s after a rate limit, concurrency 2 of 4 after rate limits, back to 4 in 10 s",
            ),
        ];
        for (status, want) in cases {
            assert_eq!(status.describe(), want);
        }
    }

    #[test]
    fn live_counts_waits_and_retries() {
        let live = Live::new(10, 2);
        let (a, b, c) = (live.request_id(), live.request_id(), live.request_id());
        live.started();
        live.waiting(a, 5_000.0, true, (1, 10));
        live.waiting(b, 12_000.0, true, (1, 10));
        live.waiting(c, 0.0, false, (2, 5));
        let s = live.snapshot(1_000.0, 1_000.0, 4, None);
        assert_eq!(
            (s.running, s.rate_limited, s.longest_wait_ms, s.retrying, s.worst_retry),
            (1, 2, 11_000, 1, Some((2, 5)))
        );
        assert_eq!(live.requests_waiting(), 3);
        live.done_waiting(b);
        live.sample_done(true);
        live.attempt_failed();
        let s = live.snapshot(1_000.0, 1_000.0, 4, None);
        assert_eq!((s.rate_limited, s.longest_wait_ms, s.done, s.errors, s.total), (1, 4_000, 3, 1, 10));
        // Counted once each, and kept after the wait ends.
        assert_eq!((s.requests_sent, s.retries, s.rate_limit_waits, s.failed_attempts), (1, 1, 2, 1));
    }
}

/// The model's answers and the verdicts on them, told apart: each answer is judged once per
/// scoring mode. "12 answers judged" with one mode; "12 answers, 24 judgements (2 modes)" with
/// two.
pub fn answers_and_judgements(answers: usize, modes: usize) -> String {
    use execbench_runs::manifest::counted;
    let said = counted(answers as u64, "answer", "answers");
    if modes <= 1 {
        return format!("{said} judged");
    }
    format!("{said}, {} ({modes} modes)", counted((answers * modes) as u64, "judgement", "judgements"))
}

/// (median, p99) of durations, the nearest rank of each: how the page reports its record writes
/// and how the benchmark reports its reference the same way. `None` for no values.
pub fn median_and_p99(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    Some((at(0.5), at(0.99)))
}

#[cfg(test)]
mod answer_tests {
    use super::answers_and_judgements;

    #[test]
    fn answers_and_judgements_are_told_apart() {
        // (answers, scoring modes, shown)
        let cases = [
            (0, 1, "0 answers judged"),
            (1, 1, "1 answer judged"),
            (12, 1, "12 answers judged"),
            (1, 2, "1 answer, 2 judgements (2 modes)"),
            (12, 2, "12 answers, 24 judgements (2 modes)"),
            (0, 2, "0 answers, 0 judgements (2 modes)"),
        ];
        for (answers, modes, shown) in cases {
            assert_eq!(answers_and_judgements(answers, modes), shown, "{answers} x {modes}");
        }
    }
}

#[cfg(test)]
mod quantile_tests {
    use super::median_and_p99;

    #[test]
    fn median_and_p99_by_nearest_rank() {
        // (values, expected) worked out by hand: ranks round((len - 1) x q).
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        type Case<'a> = (&'a [f64], Option<(f64, f64)>);
        let cases: [Case; 4] = [
            (&[], None),
            (&[5.0], Some((5.0, 5.0))),
            (&[3.0, 1.0, 2.0], Some((2.0, 3.0))),
            (&hundred, Some((51.0, 99.0))),
        ];
        for (values, expected) in cases {
            assert_eq!(median_and_p99(values), expected, "{values:?}");
        }
    }
}
