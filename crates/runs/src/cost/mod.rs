//! What a run costs: prices per token ([`Price`]), the cost of the tokens a provider reported,
//! and the spend cap's arithmetic. The bundled price table is [`prices`]; estimates made before a
//! run (from the rendered prompts, or from a pilot's measured lengths) are [`estimate`].
//!
//! Token counts follow `execbench_providers::Usage`: `prompt_tokens` includes cached prompt
//! tokens, `completion_tokens` includes reasoning (thinking) tokens, which are billed as output.

pub mod estimate;
pub mod prices;

use execbench_providers::Usage;
use serde::{Deserialize, Serialize};

/// US dollars per token (LiteLLM's unit). A local server's price is zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Cached prompt tokens; `None`: billed as `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
    /// Reasoning tokens; `None`: billed as `output`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<f64>,
}

impl Price {
    pub const FREE: Price = Price { input: 0.0, output: 0.0, cached_input: None, reasoning: None };

    /// From dollars per million tokens, as price pages and the page's override fields say it.
    pub fn per_million(input: f64, output: f64) -> Price {
        Price { input: input / 1e6, output: output / 1e6, cached_input: None, reasoning: None }
    }

    /// The cost of `usage`, in dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_tokens.min(usage.prompt_tokens);
        let reasoning = usage.reasoning_tokens.min(usage.completion_tokens);
        (usage.prompt_tokens - cached) as f64 * self.input
            + cached as f64 * self.cached_input.unwrap_or(self.input)
            + (usage.completion_tokens - reasoning) as f64 * self.output
            + reasoning as f64 * self.reasoning.unwrap_or(self.output)
    }

    /// The most one sample can cost: its prompt sent `requests` times (once, or n times where the
    /// provider takes no `n`) and `n` responses of at most `max_tokens` each.
    pub fn worst_case(&self, prompt_tokens: u64, requests: u64, n: u64, max_tokens: u64) -> f64 {
        let usage = Usage {
            prompt_tokens: prompt_tokens * requests,
            completion_tokens: n * max_tokens,
            reasoning_tokens: 0,
            cached_tokens: 0,
        };
        self.cost(&usage)
    }
}

/// A limit on what a run may spend: the run pauses before a request that could pass it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpendCap {
    /// Dollars, for the whole run (earlier sessions of a resumed run included).
    pub limit: f64,
    pub price: Price,
    /// Spent before this session (a resumed run's tally).
    pub spent_before: f64,
}

impl SpendCap {
    /// Dollars spent so far: before this session, and `live` (this session's tokens).
    pub fn spent(&self, live: &Usage) -> f64 {
        self.spent_before + self.price.cost(live)
    }

    /// Whether a request that could cost `worst` may start while the requests in flight hold
    /// `reserved` of the cap: `Err(spent so far)` when it could take the spending past the cap.
    pub fn admit(&self, live: &Usage, reserved: f64, worst: f64) -> Result<(), f64> {
        let spent = self.spent(live);
        if spent + reserved + worst > self.limit { Err(spent) } else { Ok(()) }
    }
}

/// Dollars shown to a person: cents for amounts from a cent up, more digits below.
pub fn format_usd(amount: f64) -> String {
    if amount == 0.0 {
        "$0".to_string()
    } else if amount >= 0.01 {
        format!("${amount:.2}")
    } else {
        format!("${amount:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_bills_cached_and_reasoning_tokens_at_their_prices() {
        let price = Price { input: 2e-6, output: 8e-6, cached_input: Some(0.5e-6), reasoning: None };
        // (usage, expected dollars) computed by hand.
        let cases = [
            (
                Usage { prompt_tokens: 1000, completion_tokens: 100, reasoning_tokens: 0, cached_tokens: 0 },
                1000.0 * 2e-6 + 100.0 * 8e-6,
            ),
            (
                Usage { prompt_tokens: 1000, completion_tokens: 100, reasoning_tokens: 60, cached_tokens: 400 },
                600.0 * 2e-6 + 400.0 * 0.5e-6 + 100.0 * 8e-6,
            ),
            (Usage::default(), 0.0),
        ];
        for (usage, expected) in cases {
            assert!((price.cost(&usage) - expected).abs() < 1e-12, "{usage:?}: {} vs {expected}", price.cost(&usage));
        }
        let reasoning_priced = Price { reasoning: Some(1e-6), ..Price::per_million(1.0, 4.0) };
        let usage = Usage { prompt_tokens: 10, completion_tokens: 50, reasoning_tokens: 30, cached_tokens: 0 };
        assert!((reasoning_priced.cost(&usage) - (10.0 * 1e-6 + 20.0 * 4e-6 + 30.0 * 1e-6)).abs() < 1e-12);
        assert_eq!(Price::FREE.cost(&usage), 0.0);
        // Counts that contradict each other (more cached than prompt) never go negative.
        assert!(
            price.cost(&Usage { prompt_tokens: 5, completion_tokens: 0, reasoning_tokens: 9, cached_tokens: 50 })
                >= 0.0
        );
    }

    #[test]
    fn worst_case_counts_every_request_and_the_whole_token_limit() {
        let price = Price::per_million(1.0, 10.0);
        // 3 requests of a 200-token prompt, 3 answers of up to 2000 tokens.
        assert!((price.worst_case(200, 3, 3, 2000) - (600.0 / 1e6 + 6_000.0 * 10.0 / 1e6)).abs() < 1e-12);
    }

    #[test]
    fn dollars_read_well() {
        for (amount, text) in [(0.0, "$0"), (0.4234, "$0.42"), (1.1, "$1.10"), (0.0012, "$0.0012")] {
            assert_eq!(format_usd(amount), text);
        }
    }
}
