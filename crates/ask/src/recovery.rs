//! When rate limits lower a run's concurrency, and how it comes back: a pure state machine over
//! times in milliseconds, tested as a table with a fake clock.
//!
//! A single 429 is a wait for that one request (it sleeps what the provider asked for, holding no
//! slot); the other requests go on at full concurrency. Only repeated rate limits are evidence
//! that the account as a whole is saturated: the same request limited again after its wait, or,
//! among the responses of the last [`RecoveryPolicy::window_ms`], at least
//! [`RecoveryPolicy::min_limits`] rate limits making up at least [`RecoveryPolicy::share`] of
//! them (a 429 on one sample in seven never is; four requests in flight all limited are). Then
//! the limit halves (at least 1) and no request starts before the provider's wait is over. Evidence counts once per cut: only requests sent after the last cut
//! can cut again (those in flight at a cut were sent at the old rate). The limit grows back by one
//! every [`RecoveryPolicy::step_ms`] after the cut, so the way back is a schedule the status can
//! state ("back to 4 in 10 s"); a new cut starts it over.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveryPolicy {
    /// The fewest rate limits within the window that show the account is saturated...
    pub min_limits: usize,
    /// ...when they are at least this share of the window's responses.
    pub share: f64,
    /// How far back responses count.
    pub window_ms: f64,
    /// After a cut, the limit grows by one this often, up to the setting.
    pub step_ms: f64,
}

impl Default for RecoveryPolicy {
    fn default() -> Self {
        RecoveryPolicy { min_limits: 2, share: 0.5, window_ms: 10_000.0, step_ms: 5_000.0 }
    }
}

/// What a rate limit meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Only the limited request waits.
    Isolated,
    /// The account is saturated: the limit was cut to this, and every start waits.
    Saturated { limit: usize },
}

/// The limit while it is below the setting, and when it is back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lowered {
    pub limit: usize,
    pub setting: usize,
    /// Until the limit is back at the setting, if nothing else is rate-limited.
    pub back_in_ms: u64,
}

/// The run's concurrency limit under rate limits.
#[derive(Clone, Debug)]
pub struct ConcurrencyLimit {
    policy: RecoveryPolicy,
    setting: usize,
    /// The last cut: the limit it set, and when.
    cut: Option<(usize, f64)>,
    /// The responses since the last cut within the window: (time, rate-limited).
    recent: VecDeque<(f64, bool)>,
    /// No request starts before this (a saturating rate limit's wait).
    paused_until: f64,
}

impl ConcurrencyLimit {
    pub fn new(setting: usize, policy: RecoveryPolicy) -> Self {
        ConcurrencyLimit {
            policy,
            setting: setting.max(1),
            cut: None,
            recent: VecDeque::new(),
            paused_until: f64::NEG_INFINITY,
        }
    }

    pub fn setting(&self) -> usize {
        self.setting
    }

    /// The limit at `now`: the last cut plus one per step since, at most the setting.
    pub fn limit(&self, now: f64) -> usize {
        match self.cut {
            None => self.setting,
            Some((limit, at)) => {
                let steps = ((now - at).max(0.0) / self.policy.step_ms.max(1.0)).floor();
                (limit + steps.min(self.setting as f64) as usize).min(self.setting)
            }
        }
    }

    /// When the limit next grows (None: it is at the setting).
    pub fn next_rise_at(&self, now: f64) -> Option<f64> {
        let (_, at) = self.cut?;
        if self.limit(now) >= self.setting {
            return None;
        }
        let step = self.policy.step_ms.max(1.0);
        Some(at + (((now - at).max(0.0) / step).floor() + 1.0) * step)
    }

    pub fn paused_until(&self) -> f64 {
        self.paused_until
    }

    /// The limit's state for the status while it is below the setting.
    pub fn lowered(&self, now: f64) -> Option<Lowered> {
        let limit = self.limit(now);
        let (cut_to, at) = self.cut?;
        if limit >= self.setting {
            return None;
        }
        let back_at = at + (self.setting - cut_to) as f64 * self.policy.step_ms.max(1.0);
        Some(Lowered { limit, setting: self.setting, back_in_ms: (back_at - now).max(0.0).ceil() as u64 })
    }

    /// A request sent at `sent_ms` was rate-limited at `now` and will wait `wait_ms`; `again`:
    /// this request was rate-limited before.
    pub fn on_rate_limited(&mut self, now: f64, sent_ms: f64, wait_ms: u64, again: bool) -> Verdict {
        // Requests sent before the last cut were sent at the old rate: their limits are no news.
        if self.cut.is_some_and(|(_, at)| sent_ms < at) {
            return Verdict::Isolated;
        }
        self.note(now, true);
        let limits = self.recent.iter().filter(|(_, limited)| *limited).count();
        let saturated =
            limits >= self.policy.min_limits.max(1) && limits as f64 >= self.policy.share * self.recent.len() as f64;
        if !again && !saturated {
            return Verdict::Isolated;
        }
        let limit = (self.limit(now) / 2).max(1);
        self.cut = Some((limit, now));
        self.recent.clear();
        self.paused_until = self.paused_until.max(now + wait_ms as f64);
        Verdict::Saturated { limit }
    }

    /// A clean response at `now`.
    pub fn on_success(&mut self, now: f64) {
        self.note(now, false);
    }

    fn note(&mut self, now: f64, limited: bool) {
        let window = self.policy.window_ms;
        while self.recent.front().is_some_and(|(t, _)| now - t > window) {
            self.recent.pop_front();
        }
        self.recent.push_back((now, limited));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thing that happens to the limit at a time (ms on a fake clock).
    #[derive(Clone, Copy, Debug)]
    enum Step {
        /// A rate limit: (now, sent at, wait, again).
        Limited(f64, f64, u64, bool),
        /// A clean response at this time.
        Clean(f64),
    }

    /// (name, setting, what happens, verdicts of the rate limits, then (time, limit, lowered,
    /// paused until) checks after all of it).
    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    fn recovery_table() {
        use Step::*;
        use Verdict::*;
        type Check = (f64, usize, Option<Lowered>, f64);
        let lowered = |limit, back_in_ms| Some(Lowered { limit, setting: 4, back_in_ms });
        let never = f64::NEG_INFINITY;
        let cases: Vec<(&str, usize, Vec<Step>, Vec<Verdict>, Vec<Check>)> = vec![
            (
                "an isolated 429 waits alone: the limit stays",
                4,
                vec![Limited(400.0, 0.0, 1_000, false), Clean(400.0), Clean(400.0), Clean(400.0)],
                vec![Isolated],
                vec![(800.0, 4, None, never)],
            ),
            (
                // The worst order at four in flight: a limited sample's response before the three
                // that came back with it, the next one's before the three sent with it.
                "a seventh of the samples limited once each",
                4,
                (0..9)
                    .flat_map(|k| {
                        let t = 800.0 * k as f64 + 400.0;
                        [Limited(t, t - 400.0, 1_000, false), Clean(t), Clean(t), Clean(t), Clean(t + 400.0)]
                    })
                    .collect(),
                vec![Isolated; 9],
                vec![(7_000.0, 4, None, never)],
            ),
            (
                "half of the responses limited is saturation",
                4,
                vec![Limited(400.0, 0.0, 1_000, false), Clean(400.0), Clean(400.0), Limited(401.0, 0.0, 1_000, false)],
                vec![Isolated, Saturated { limit: 2 }],
                vec![(401.0, 2, lowered(2, 10_000), 1_401.0)],
            ),
            (
                "two in a row within the window halve the limit and pause every start",
                4,
                vec![Limited(1_000.0, 600.0, 1_000, false), Limited(1_010.0, 610.0, 2_000, false)],
                vec![Isolated, Saturated { limit: 2 }],
                vec![
                    (1_010.0, 2, lowered(2, 10_000), 3_010.0),
                    (6_009.0, 2, lowered(2, 5_001), 3_010.0),
                    (6_010.0, 3, lowered(3, 5_000), 3_010.0),
                    (11_010.0, 4, None, 3_010.0),
                    (99_000.0, 4, None, 3_010.0),
                ],
            ),
            (
                "two far apart are not repeated",
                4,
                vec![Limited(1_000.0, 600.0, 1_000, false), Limited(11_001.0, 10_600.0, 1_000, false)],
                vec![Isolated, Isolated],
                vec![(11_001.0, 4, None, never)],
            ),
            (
                "the same request limited again is saturation",
                4,
                vec![Limited(400.0, 0.0, 1_000, false), Clean(400.0), Limited(1_800.0, 1_400.0, 1_000, true)],
                vec![Isolated, Saturated { limit: 2 }],
                vec![(1_800.0, 2, lowered(2, 10_000), 2_800.0)],
            ),
            (
                "a burst of four cuts once: the others were sent before the cut",
                4,
                vec![
                    Limited(400.0, 0.0, 1_000, false),
                    Limited(401.0, 0.0, 1_000, false),
                    Limited(402.0, 0.0, 1_000, false),
                    Limited(403.0, 0.0, 1_000, false),
                ],
                vec![Isolated, Saturated { limit: 2 }, Isolated, Isolated],
                vec![(403.0, 2, lowered(2, 9_998), 1_401.0)],
            ),
            (
                "saturation again after the cut halves again and starts the way back over",
                8,
                vec![
                    Limited(400.0, 0.0, 1_000, true),
                    Limited(2_000.0, 1_500.0, 1_000, false),
                    Limited(2_001.0, 1_600.0, 1_000, false),
                ],
                vec![Saturated { limit: 4 }, Isolated, Saturated { limit: 2 }],
                vec![
                    (2_001.0, 2, Some(Lowered { limit: 2, setting: 8, back_in_ms: 30_000 }), 3_001.0),
                    (32_001.0, 8, None, 3_001.0),
                ],
            ),
            (
                "never below one",
                1,
                vec![Limited(400.0, 0.0, 500, true)],
                vec![Saturated { limit: 1 }],
                vec![(400.0, 1, None, 900.0)],
            ),
        ];
        for (name, setting, steps, verdicts, checks) in cases {
            let mut limit = ConcurrencyLimit::new(setting, RecoveryPolicy::default());
            let mut got = Vec::new();
            for step in steps {
                match step {
                    Limited(now, sent, wait, again) => got.push(limit.on_rate_limited(now, sent, wait, again)),
                    Clean(now) => limit.on_success(now),
                }
            }
            assert_eq!(got, verdicts, "{name}");
            for (now, want, want_lowered, paused_until) in checks {
                assert_eq!(limit.limit(now), want, "{name}: limit at {now}");
                assert_eq!(limit.lowered(now), want_lowered, "{name}: lowered at {now}");
                assert_eq!(limit.paused_until(), paused_until, "{name}: paused until");
                assert_eq!(limit.next_rise_at(now).is_some(), want < setting, "{name}: next rise at {now}");
            }
        }
    }

    #[test]
    fn the_next_rise_is_the_next_step() {
        let mut limit = ConcurrencyLimit::new(4, RecoveryPolicy::default());
        limit.on_rate_limited(1_000.0, 0.0, 1_000, true);
        assert_eq!(limit.next_rise_at(1_000.0), Some(6_000.0));
        assert_eq!(limit.next_rise_at(5_999.0), Some(6_000.0));
        assert_eq!(limit.next_rise_at(6_000.0), Some(11_000.0));
        assert_eq!(limit.next_rise_at(11_000.0), None);
    }
}
