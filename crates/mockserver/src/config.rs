//! What the server does: CORS, keys, models, latency, which answers are wrong, which requests
//! fail and how. Plain serde data, so the binary reads it from a JSON file and `POST /_mock/config`
//! replaces it at run time; every field has a default, so `{}` is a valid configuration.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// The whole configuration. `MockConfig::default()`: no latency, CORS open to pages on this
/// machine only ([`Cors::Loopback`]), any key (or none) accepted, any model name accepted, every
/// answer right, no faults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MockConfig {
    /// Added to every model request before its response; a stream spreads it evenly over its
    /// events instead (the headers come at once).
    pub latency_ms: u64,
    pub cors: Cors,
    /// When set, a model request whose key (`Authorization: Bearer`, `x-api-key`, `api-key`,
    /// `x-goog-api-key` or Gemini's `?key=`) is missing or different gets 401.
    pub api_key: Option<String>,
    /// When set, any other model name gets 404 (`model_not_found` style).
    pub models: Option<Vec<String>>,
    pub answers: AnswerPolicy,
    /// Checked in order; the first rule that matches a request decides its fault.
    pub faults: Vec<FaultRule>,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            latency_ms: 0,
            cors: Cors::Loopback,
            api_key: None,
            models: None,
            answers: AnswerPolicy::default(),
            faults: Vec::new(),
        }
    }
}

/// Which origins a browser page may call the server from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cors {
    /// The default: pages served from this machine, the tests' (`http://127.0.0.1:PORT`, any
    /// port; `localhost` and `[::1]` too). Such an `Origin` gets the headers with it echoed; any
    /// other `Origin` (a web site, `null`) gets 403 with no CORS header, so no page elsewhere can
    /// read or change the server. Requests without `Origin` (native clients) pass, without CORS
    /// headers.
    #[default]
    Loopback,
    /// Every origin: `Access-Control-Allow-Origin: *` on every response, preflights answered.
    /// Only when asked for (`"allow_all"`, `--cors all`).
    AllowAll,
    /// No CORS header at all: a page on another origin is blocked by its browser.
    None,
    /// Ollama style: a request whose `Origin` is listed gets the headers (with that origin
    /// echoed); any other `Origin` gets 403 with no CORS header. Requests without `Origin`
    /// (native clients) pass, without CORS headers.
    Origins(Vec<String>),
}

/// Which samples get a wrong answer. The default answers everything right.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnswerPolicy {
    /// `Some(k)`: the sample at dataset index `i` (0-based, file order) is answered wrong when
    /// `i % k == k - 1` (every k-th sample). `Some(0)` and `None` make none wrong this way.
    pub wrong_every: Option<u32>,
    /// These sample ids are answered wrong.
    pub wrong_ids: BTreeSet<String>,
    /// Sample id -> the attempt (1-based, as fault rules count them) from which that sample is
    /// answered wrong; earlier attempts are answered right. A model that changes its mind when
    /// asked again.
    pub wrong_from_attempt: BTreeMap<String, u32>,
}

impl AnswerPolicy {
    /// Whether the sample at dataset `index` with `id` gets the right answer.
    pub fn is_right(&self, index: usize, id: &str) -> bool {
        let every = self.wrong_every.filter(|&k| k > 0).is_some_and(|k| index % k as usize == k as usize - 1);
        !(every || self.wrong_ids.contains(id))
    }

    /// [`AnswerPolicy::is_right`], for the given attempt at the sample (1-based).
    pub fn is_right_on(&self, index: usize, id: &str, attempt: u32) -> bool {
        self.is_right(index, id) && self.wrong_from_attempt.get(id).is_none_or(|&from| attempt < from)
    }
}

/// Which requests a fault applies to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRule {
    pub sample: SampleMatch,
    /// Which attempts of a matched sample get the fault: the 1-based count of model requests the
    /// server has seen for that sample, this one included (since the last reset). Empty: every
    /// attempt. Requests the server cannot tie to a sample count on one shared counter, and so do
    /// connection tests.
    #[serde(default)]
    pub attempts: Vec<u32>,
    pub fault: Fault,
}

impl FaultRule {
    /// A rule for every attempt of the matched samples.
    pub fn always(sample: SampleMatch, fault: Fault) -> FaultRule {
        FaultRule { sample, attempts: Vec::new(), fault }
    }

    /// A rule for the given attempts (1-based) of the matched samples.
    pub fn on_attempts(sample: SampleMatch, attempts: &[u32], fault: Fault) -> FaultRule {
        FaultRule { sample, attempts: attempts.to_vec(), fault }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleMatch {
    /// Every model request, including unidentified prompts and connection tests.
    All,
    /// The sample with this id.
    Id(String),
    /// Samples whose dataset index `i` satisfies `i % k == 0` (`k == 0` matches none).
    EveryKth(u32),
}

impl SampleMatch {
    /// Whether a request about the sample at `index` with `id` (or about no sample) matches.
    pub fn matches(&self, sample: Option<(usize, &str)>) -> bool {
        match (self, sample) {
            (SampleMatch::All, _) => true,
            (SampleMatch::Id(want), Some((_, id))) => want == id,
            (SampleMatch::EveryKth(k), Some((index, _))) => *k > 0 && index % *k as usize == 0,
            _ => false,
        }
    }
}

/// How a request fails. Every error body is in the requested wire format's shape; the exact
/// statuses, bodies and headers are listed in the crate documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// 429 with the given headers (`retry-after` in seconds, `retry-after-ms`), none if `None`.
    RateLimit {
        #[serde(default)]
        retry_after_s: Option<f64>,
        #[serde(default)]
        retry_after_ms: Option<u64>,
    },
    /// 429 without headers; the delay only in the body (OpenAI and Anthropic "Please try again
    /// in 1.5s.", Gemini `RetryInfo.retryDelay` "1.5s").
    RateLimitBodyDelay { seconds: f64 },
    /// 500.
    ServerError,
    /// 529 (`overloaded_error` in Anthropic's shape).
    Overloaded,
    /// 503.
    Unavailable,
    /// 429 `insufficient_quota`, "You exceeded your current quota, ...".
    InsufficientQuota,
    /// 401 as for a wrong key, whatever key was sent.
    BadKey,
    /// A stream: 200, then only the first `after_chunks` events, then the body ends without the
    /// format's terminator. Not streamed: 200 with the JSON cut in the middle.
    StreamCut { after_chunks: u32 },
    /// 200 whose stream carries an error after the first piece of text (non-streamed: a 200 whose
    /// body is the format's error object).
    ErrorEventAfter200,
    /// 200 with empty text, stopped for length (`length` / `max_tokens` / `MAX_TOKENS`).
    EmptyLength,
    /// Waits `ms`, then answers normally.
    Hang { ms: u64 },
    /// 400 whose message repeats the request's headers, key headers included, as a careless
    /// proxy does: what a client stores or shows of an error must not carry the key.
    EchoHeaders,
}

impl Fault {
    /// The variant's name in snake case, as in JSON (for the request log).
    pub fn name(&self) -> &'static str {
        match self {
            Fault::RateLimit { .. } => "rate_limit",
            Fault::RateLimitBodyDelay { .. } => "rate_limit_body_delay",
            Fault::ServerError => "server_error",
            Fault::Overloaded => "overloaded",
            Fault::Unavailable => "unavailable",
            Fault::InsufficientQuota => "insufficient_quota",
            Fault::BadKey => "bad_key",
            Fault::StreamCut { .. } => "stream_cut",
            Fault::ErrorEventAfter200 => "error_event_after_200",
            Fault::EmptyLength => "empty_length",
            Fault::Hang { .. } => "hang",
            Fault::EchoHeaders => "echo_headers",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_every_kth_and_ids() {
        let policy =
            AnswerPolicy { wrong_every: Some(3), wrong_ids: ["sample_7".to_string()].into(), ..Default::default() };
        let right: Vec<bool> = (0..9).map(|i| policy.is_right(i, &format!("sample_{i}"))).collect();
        assert_eq!(right, [true, true, false, true, true, false, true, false, false]);
        assert!(AnswerPolicy { wrong_every: Some(0), ..Default::default() }.is_right(0, "x"));
        assert!(!AnswerPolicy { wrong_every: Some(1), ..Default::default() }.is_right(0, "x"));
        let changing = AnswerPolicy { wrong_from_attempt: [("x".to_string(), 2)].into(), ..Default::default() };
        assert_eq!((1..=3).map(|a| changing.is_right_on(0, "x", a)).collect::<Vec<_>>(), [true, false, false]);
        assert!(changing.is_right_on(0, "y", 5));
    }

    #[test]
    fn sample_match() {
        assert!(SampleMatch::All.matches(None));
        assert!(SampleMatch::Id("a".into()).matches(Some((5, "a"))));
        assert!(!SampleMatch::Id("a".into()).matches(None));
        assert!(SampleMatch::EveryKth(3).matches(Some((6, "x"))));
        assert!(!SampleMatch::EveryKth(3).matches(Some((5, "x"))));
        assert!(!SampleMatch::EveryKth(0).matches(Some((0, "x"))));
    }

    #[test]
    fn config_json_round_trip_and_defaults() {
        let config = MockConfig {
            latency_ms: 5,
            cors: Cors::Origins(vec!["http://127.0.0.1:8080".into()]),
            api_key: Some("k".into()),
            models: Some(vec!["m".into()]),
            answers: AnswerPolicy {
                wrong_every: Some(4),
                wrong_ids: ["sample_1".to_string()].into(),
                ..Default::default()
            },
            faults: vec![
                FaultRule::on_attempts(
                    SampleMatch::Id("sample_2".into()),
                    &[1, 2],
                    Fault::RateLimit { retry_after_s: Some(1.5), retry_after_ms: None },
                ),
                FaultRule::always(SampleMatch::EveryKth(10), Fault::StreamCut { after_chunks: 2 }),
                FaultRule::always(SampleMatch::All, Fault::ServerError),
            ],
        };
        let text = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<MockConfig>(&text).unwrap(), config);
        let written = r#"{"cors":"none","faults":[{"sample":"all","fault":{"hang":{"ms":10}}},{"sample":{"every_kth":2},"attempts":[1],"fault":"overloaded"}]}"#;
        let parsed: MockConfig = serde_json::from_str(written).unwrap();
        assert_eq!(parsed.cors, Cors::None);
        assert_eq!(parsed.faults[0], FaultRule::always(SampleMatch::All, Fault::Hang { ms: 10 }));
        assert_eq!(parsed.faults[1], FaultRule::on_attempts(SampleMatch::EveryKth(2), &[1], Fault::Overloaded));
        assert_eq!(serde_json::from_str::<MockConfig>("{}").unwrap(), MockConfig::default());
        assert!(serde_json::from_str::<MockConfig>(r#"{"latency":5}"#).is_err());
    }

    /// The example configuration in the README is one.
    #[test]
    fn readme_example_parses() {
        let readme = include_str!("../README.md");
        let start = readme.find("```json\n").expect("a JSON block") + "```json\n".len();
        let end = start + readme[start..].find("```").unwrap();
        let config: MockConfig = serde_json::from_str(&readme[start..end]).unwrap();
        assert_eq!(config.faults.len(), 3);
        assert_eq!(config.faults[0].fault, Fault::RateLimit { retry_after_s: Some(1.5), retry_after_ms: None });
    }
}
