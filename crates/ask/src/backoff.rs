//! How long to wait before trying again, and when to give up: pure decisions, tested as a table.
//!
//! Transient faults (5xx, 529, time-outs, dropped connections, streams cut or carrying an error)
//! are retried a bounded number of times with exponential back-off and jitter. Rate limits wait
//! what the provider asked for (header or body) when it said, else back off, and have their own
//! bound. A delay longer than `longest_wait_ms` (a daily quota says "retry in 86400 s") is not
//! waited out: the run stops with the provider's message. Nothing is retried forever.

use execbench_providers::{Disposition, ErrorKind, ProviderError};

pub use execbench_runs::settings::RetryPolicy;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Wait, then send the request again. `rate_limited` lowers the run's concurrency.
    Retry { after_ms: u64, rate_limited: bool },
    /// This request has failed for good: the sample is an error (not a wrong answer).
    GiveUp,
    /// Nothing will work until the user acts (bad key, no credits, quota, blocked, unknown model).
    StopRun,
}

/// `failures`: failed attempts of this request so far, this one included (1 on the first
/// failure). `rate_limit_waits`: how many of them were rate limits. `jitter` in [0, 1).
pub fn decide(
    policy: &RetryPolicy,
    error: &ProviderError,
    failures: u32,
    rate_limit_waits: u32,
    jitter: f64,
) -> Decision {
    // A refused parameter (temperature on a reasoning model, an unknown field) would be refused
    // for every sample alike: stop and show the provider's message rather than fail them all.
    if error.kind == ErrorKind::BadRequest {
        return Decision::StopRun;
    }
    match error.kind.disposition() {
        Disposition::StopRun => Decision::StopRun,
        Disposition::FailAttempt => Decision::GiveUp,
        Disposition::RateLimit => {
            if error.retry_after_ms.is_some_and(|ms| ms > policy.longest_wait_ms) {
                return Decision::StopRun;
            }
            if rate_limit_waits > policy.max_rate_limit_waits {
                return Decision::GiveUp;
            }
            let after_ms = match error.retry_after_ms {
                // What the provider asked for, plus a little so many waiters do not return at once.
                Some(ms) => ms + (jitter * 250.0) as u64,
                None => exponential(policy, rate_limit_waits, jitter),
            };
            Decision::Retry { after_ms, rate_limited: true }
        }
        Disposition::Retry => {
            let transient = failures - rate_limit_waits.min(failures);
            if transient > policy.max_retries {
                return Decision::GiveUp;
            }
            let after_ms = match error.retry_after_ms {
                Some(ms) if ms <= policy.longest_wait_ms => ms,
                _ => exponential(policy, transient, jitter),
            };
            Decision::Retry { after_ms, rate_limited: false }
        }
    }
}

/// `base * 2^(k-1)`, capped, scaled into [1/2, 1) by the jitter ("equal jitter").
fn exponential(policy: &RetryPolicy, k: u32, jitter: f64) -> u64 {
    let full = policy.base_ms.saturating_mul(1u64 << k.saturating_sub(1).min(20)).min(policy.cap_ms);
    (full as f64 * (0.5 + 0.5 * jitter.clamp(0.0, 1.0))) as u64
}

/// A small deterministic generator for jitter (no dependency, same sequence on every platform).
#[derive(Clone, Debug)]
pub struct Jitter(u64);

impl Jitter {
    pub fn new(seed: u64) -> Self {
        Jitter(seed | 1)
    }

    /// The next number in [0, 1).
    pub fn next_fraction(&mut self) -> f64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(kind: ErrorKind, retry_after_ms: Option<u64>) -> ProviderError {
        ProviderError { kind, status: None, message: String::new(), retry_after_ms }
    }

    /// (kind, retry-after, failures, rate-limit waits, jitter, decision).
    #[test]
    fn decisions_table() {
        use Decision::*;
        use ErrorKind::*;
        let p = RetryPolicy::default();
        let cases: Vec<(ErrorKind, Option<u64>, u32, u32, f64, Decision)> = vec![
            (RateLimited, Some(1_500), 1, 1, 0.0, Retry { after_ms: 1_500, rate_limited: true }),
            (RateLimited, Some(1_500), 1, 1, 0.5, Retry { after_ms: 1_625, rate_limited: true }),
            (RateLimited, None, 1, 1, 0.0, Retry { after_ms: 500, rate_limited: true }),
            (RateLimited, None, 3, 3, 0.999_999, Retry { after_ms: 3_999, rate_limited: true }),
            (RateLimited, None, 11, 11, 0.0, GiveUp),
            (RateLimited, Some(86_400_000), 1, 1, 0.0, StopRun),
            (QuotaExhausted, None, 1, 0, 0.0, StopRun),
            (BadKey, None, 1, 0, 0.0, StopRun),
            (NoCredits, None, 1, 0, 0.0, StopRun),
            (UnknownModel, None, 1, 0, 0.0, StopRun),
            (Blocked, None, 1, 0, 0.0, StopRun),
            (ServerError, None, 1, 0, 0.0, Retry { after_ms: 500, rate_limited: false }),
            (Overloaded, None, 2, 0, 0.0, Retry { after_ms: 1_000, rate_limited: false }),
            (Overloaded, Some(2_000), 2, 0, 0.0, Retry { after_ms: 2_000, rate_limited: false }),
            (Timeout, None, 5, 0, 1.0, Retry { after_ms: 16_000, rate_limited: false }),
            (StreamCut, None, 6, 0, 0.0, GiveUp),
            // Rate-limit waits do not use up the transient retries.
            (Network, None, 6, 3, 0.0, Retry { after_ms: 2_000, rate_limited: false }),
            (StreamError, None, 1, 0, 0.0, Retry { after_ms: 500, rate_limited: false }),
            (BadRequest, None, 1, 0, 0.0, StopRun),
            (EmptyOutput, None, 1, 0, 0.0, GiveUp),
        ];
        for (kind, retry_after, failures, waits, jitter, want) in cases {
            assert_eq!(
                decide(&p, &error(kind, retry_after), failures, waits, jitter),
                want,
                "{kind:?} {retry_after:?} {failures} {waits} {jitter}"
            );
        }
    }

    #[test]
    fn back_off_is_capped() {
        let p = RetryPolicy { max_retries: 100, ..RetryPolicy::default() };
        assert_eq!(
            decide(&p, &error(ErrorKind::ServerError, None), 40, 0, 1.0),
            Decision::Retry { after_ms: 60_000, rate_limited: false }
        );
    }

    #[test]
    fn jitter_stays_in_range_and_varies() {
        let mut j = Jitter::new(42);
        let values: Vec<f64> = (0..1000).map(|_| j.next_fraction()).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = values.iter().sum::<f64>() / 1000.0;
        assert!((0.4..0.6).contains(&mean), "{mean}");
    }
}
