//! What a run will cost, said before it starts: prompt tokens estimated from the rendered prompts
//! ([`estimate_tokens`]), output tokens from the token limit (an upper bound) or from a pilot's
//! measured lengths ([`PilotFigures`]), and dollars where a price is known ([`estimate_run`],
//! [`describe`]).

use execbench_providers::Usage;

use super::{Price, format_usd};
use crate::record::SampleRecord;

/// Roughly how many tokens a GPT-4o / GPT-4 (o200k / cl100k BPE) tokenizer makes of `text`,
/// without its vocabulary: a heuristic over a pre-tokenisation, not a tokenizer.
///
/// Method: the text is split the way cl100k pre-tokenises it: English contractions (`'s`, `'ll`,
/// ...); a run of letters with at most one leading non-letter, non-digit, non-newline character
/// (` word`, `.append`, `_name`, `(x`); digits in groups of up to 3; a run of punctuation with an
/// optional leading space and its trailing newlines (`):\n`); whitespace up to its last newline;
/// a run of spaces but the last (which goes with the next word). Each piece counts one token,
/// except: a letter run is cut at case changes (`new|Text`, `HTTP|Server`, as o200k splits it)
/// and each part counts 1 plus 1/4 per UTF-8 byte beyond 6 (long or rare words take several BPE
/// tokens), or, all in capitals, 1 plus 1/3 per byte beyond 2 (`THOUGHT` is 3 tokens); a
/// punctuation run counts max(1, bytes / 2.5). The sum is rounded.
///
/// Measured against the real tokenizers (tiktoken 0.14 with the `cl100k_base` and `o200k_base`
/// files that the `litellm` wheel on PyPI bundles), as estimate / real, over the 800 CRUXEval
/// samples (the constants above were chosen on these same texts, so other texts may do worse):
///
/// | texts | median ratio | median error | 90% within | worst | total |
/// |---|---|---|---|---|---|
/// | code, cl100k | 1.000 | 1.8% | 7.0% | 0.79, 1.22 | 0.996 |
/// | code, o200k | 1.000 | 1.9% | 6.8% | 0.78, 1.22 | 0.991 |
/// | code + input, cl100k | 0.983 | 2.5% | 10.6% | 0.69, 1.11 | 0.971 |
/// | rendered `output-direct` prompts, cl100k | 1.026 | 2.6% | 3.2% | 0.97, 1.05 | 1.024 |
/// | rendered `output-direct` prompts, o200k | 1.039 | 3.9% | 4.6% | 0.99, 1.06 | 1.037 |
/// | rendered `output-cot` prompts, cl100k | 0.991 | 0.9% | 2.0% | 0.95, 1.01 | 0.990 |
///
/// The worst cases are random mixed-case strings in inputs (`'wW의IV]HDJjhgK[dG'`: 0.69). English
/// prose (25 paragraphs of this repository's docs) came out 1.4% high in total, 0.92 to 1.54 a
/// paragraph (box-drawing characters are the worst). Other families' tokenizers (Claude, Gemini,
/// Llama, Qwen) were not measured and may differ by more; a pilot measures the real ratio, which
/// [`estimate_run`] then applies. Chat formatting (a few tokens a message) is not counted here.
pub fn estimate_tokens(text: &str) -> u64 {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let is_punct = |c: char| !c.is_whitespace() && !c.is_alphabetic() && !c.is_numeric();
    let bytes = |s: &[char]| s.iter().map(|c| c.len_utf8()).sum::<usize>();
    let mut total = 0.0f64;
    let mut i = 0;
    while i < n {
        let c = chars[i];
        if c == '\'' {
            let rest: String = chars[i + 1..n.min(i + 3)].iter().collect::<String>().to_ascii_lowercase();
            let contraction = ["re", "ve", "ll", "s", "t", "m", "d"].into_iter().find(|s| rest.starts_with(s));
            if let Some(s) = contraction {
                total += 1.0;
                i += 1 + s.len();
                continue;
            }
        }
        let lead = usize::from(
            !c.is_alphabetic()
                && !c.is_numeric()
                && c != '\r'
                && c != '\n'
                && chars.get(i + 1).is_some_and(|c| c.is_alphabetic()),
        );
        if c.is_alphabetic() || lead == 1 {
            let start = i + lead;
            let mut end = start;
            while end < n && chars[end].is_alphabetic() {
                end += 1;
            }
            total += camel_parts(&chars[start..end])
                .map(|part| {
                    if part.len() > 1 && part.iter().all(|c| c.is_uppercase()) {
                        1.0 + bytes(part).saturating_sub(2) as f64 / 3.0
                    } else {
                        1.0 + bytes(part).saturating_sub(6) as f64 / 4.0
                    }
                })
                .sum::<f64>();
            i = end;
            continue;
        }
        if c.is_numeric() {
            let mut end = i;
            while end < n && end < i + 3 && chars[end].is_numeric() {
                end += 1;
            }
            total += 1.0;
            i = end;
            continue;
        }
        let start = if c == ' ' && chars.get(i + 1).is_some_and(|&c| is_punct(c)) { i + 1 } else { i };
        if is_punct(chars[start]) {
            let mut end = start;
            while end < n && is_punct(chars[end]) {
                end += 1;
            }
            total += (bytes(&chars[start..end]) as f64 / 2.5).max(1.0);
            while end < n && (chars[end] == '\r' || chars[end] == '\n') {
                end += 1;
            }
            i = end;
            continue;
        }
        // Whitespace: up to its last newline; else all of it at the end of the text or when it is
        // one character; else all but the last space, which the next piece takes.
        let mut end = i;
        while end < n && chars[end].is_whitespace() {
            end += 1;
        }
        total += 1.0;
        i = match chars[i..end].iter().rposition(|&c| c == '\n' || c == '\r') {
            Some(last) => i + last + 1,
            None if end == n || end - i == 1 => end,
            None => end - 1,
        };
    }
    total.round() as u64
}

/// A letter run cut before an upper-case letter that follows a lower-case one (`new|Text`) or
/// that starts a capitalised word after capitals (`HTTP|Server`).
fn camel_parts(word: &[char]) -> impl Iterator<Item = &[char]> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= word.len() {
            return None;
        }
        let cut = |k: usize| {
            word[k].is_uppercase()
                && (word[k - 1].is_lowercase()
                    || (word[k - 1].is_uppercase() && word.get(k + 1).is_some_and(|c| c.is_lowercase())))
        };
        let end = (start + 1..word.len()).find(|&k| cut(k)).unwrap_or(word.len());
        let part = &word[start..end];
        start = end;
        Some(part)
    })
}

/// What a pilot (a short run on the first samples) measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PilotFigures {
    /// Samples that answered (records with usage and no error).
    pub samples: usize,
    /// Their answers (n each, usually).
    pub answers: usize,
    /// Summed over those records, as the provider reported it.
    pub usage: Usage,
    /// What [`estimate_tokens`] said for those samples' prompts, times the requests each made.
    pub estimated_prompt_tokens: u64,
}

impl PilotFigures {
    /// From a pilot's records and [`estimate_tokens`]' count for all their prompts (times the
    /// requests per sample). Records that failed or have no usage (offline models) are left out;
    /// the estimate is then scaled to the records kept, as if their prompts were of average length.
    pub fn from_records(records: &[SampleRecord], estimated_prompt_tokens: u64) -> PilotFigures {
        let mut figures = PilotFigures { samples: 0, answers: 0, usage: Usage::default(), estimated_prompt_tokens: 0 };
        for record in records {
            let Some(usage) = record.usage.as_ref().filter(|_| !record.is_error()) else { continue };
            figures.samples += 1;
            figures.answers += record.results.first().map_or(0, |r| r.answers.len());
            figures.usage.add(usage);
        }
        figures.estimated_prompt_tokens = if figures.samples == records.len() {
            estimated_prompt_tokens
        } else {
            (estimated_prompt_tokens as f64 * figures.samples as f64 / records.len() as f64).round() as u64
        };
        figures
    }

    /// Completion tokens (reasoning included) per answer.
    pub fn output_per_answer(&self) -> Option<f64> {
        (self.answers > 0).then(|| self.usage.completion_tokens as f64 / self.answers as f64)
    }

    /// Real prompt tokens over estimated ones (chat formatting and the real tokenizer's
    /// difference from [`estimate_tokens`]).
    pub fn prompt_ratio(&self) -> Option<f64> {
        (self.estimated_prompt_tokens > 0 && self.usage.prompt_tokens > 0)
            .then(|| self.usage.prompt_tokens as f64 / self.estimated_prompt_tokens as f64)
    }
}

/// A run's expected size and cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub samples: usize,
    pub n: usize,
    /// Over the whole run (each prompt once per request); corrected by a pilot's measured ratio.
    pub prompt_tokens: u64,
    pub output_tokens_expected: u64,
    /// Every answer at the token limit.
    pub output_tokens_max: u64,
    pub expected_usd: Option<f64>,
    /// The prompt estimate plus every answer at the token limit, billed at the dearer of the
    /// output and reasoning prices, with no cache discount.
    pub max_usd: Option<f64>,
    /// Where the output figure comes from.
    pub basis: String,
}

/// What a run of `prompts` (one rendered prompt a sample) with `n` answers each will take:
/// `requests_per_sample` is 1 when the provider takes `n`, else `n`. Without a pilot the expected
/// output is the maximum; with one, its mean completion tokens per answer, and the prompt estimate
/// is scaled by the pilot's real / estimated prompt tokens, and cached and reasoning tokens get
/// the pilot's shares. Dollars only with a price.
pub fn estimate_run(
    prompts: &[String],
    n: usize,
    requests_per_sample: usize,
    max_tokens: u64,
    price: Option<Price>,
    pilot: Option<&PilotFigures>,
) -> Estimate {
    let samples = prompts.len();
    let estimated: u64 = prompts.iter().map(|p| estimate_tokens(p)).sum::<u64>() * requests_per_sample as u64;
    estimate_answers(samples, n, (samples * n) as u64, estimated, max_tokens, price, pilot)
}

/// [`estimate_run`] for `answers` in all (samples x n, or fewer for a run carried on), with the
/// prompt tokens `estimated` already counted for every request.
pub fn estimate_answers(
    samples: usize,
    n: usize,
    answers: u64,
    estimated: u64,
    max_tokens: u64,
    price: Option<Price>,
    pilot: Option<&PilotFigures>,
) -> Estimate {
    let output_tokens_max = answers * max_tokens;
    let measured = pilot.and_then(|p| p.output_per_answer().map(|per_answer| (p, per_answer)));
    let (prompt_tokens, output_tokens_expected, usage_expected, basis) = match measured {
        None => {
            let why = if pilot.is_some() {
                "output from max tokens (upper bound): the pilot gave no answers"
            } else {
                "output from max tokens (upper bound)"
            };
            (
                estimated,
                output_tokens_max,
                Usage {
                    prompt_tokens: estimated,
                    completion_tokens: output_tokens_max,
                    reasoning_tokens: 0,
                    cached_tokens: 0,
                },
                why.to_string(),
            )
        }
        Some((pilot, per_answer)) => {
            let ratio = pilot.prompt_ratio();
            let prompt_tokens = (estimated as f64 * ratio.unwrap_or(1.0)).round() as u64;
            let output = (answers as f64 * per_answer).round().min(output_tokens_max as f64) as u64;
            let share = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part.min(whole) as f64 / whole as f64 };
            let usage = Usage {
                prompt_tokens,
                completion_tokens: output,
                reasoning_tokens: (output as f64 * share(pilot.usage.reasoning_tokens, pilot.usage.completion_tokens))
                    .round() as u64,
                cached_tokens: (prompt_tokens as f64 * share(pilot.usage.cached_tokens, pilot.usage.prompt_tokens))
                    .round() as u64,
            };
            let mut basis = format!(
                "output from a pilot of {} samples: {} tokens per answer on average",
                pilot.samples,
                per_answer.round()
            );
            if let Some(ratio) = ratio {
                basis.push_str(&format!("; prompt tokens x{ratio:.2} as measured"));
            }
            (prompt_tokens, output, usage, basis)
        }
    };
    let expected_usd = price.map(|p| p.cost(&usage_expected));
    let max_usd = price.map(|p| {
        prompt_tokens as f64 * p.input + output_tokens_max as f64 * p.output.max(p.reasoning.unwrap_or(p.output))
    });
    Estimate { samples, n, prompt_tokens, output_tokens_expected, output_tokens_max, expected_usd, max_usd, basis }
}

/// Tokens for a person: `850` exactly, then two significant figures: `1.2k`, `12k`, `120k`,
/// `1.3M` (so 120,000 never reads as `0.1M`).
pub fn format_tokens(tokens: u64) -> String {
    if tokens < 1_000 {
        return tokens.to_string();
    }
    let step = 10u64.pow(tokens.ilog10() - 1);
    let rounded = (tokens + step / 2) / step * step;
    let (unit, name) = match rounded {
        r if r >= 1_000_000_000 => (1e9, "B"),
        r if r >= 1_000_000 => (1e6, "M"),
        _ => (1e3, "k"),
    };
    let value = rounded as f64 / unit;
    if value < 10.0 { format!("{value:.1}{name}") } else { format!("{value:.0}{name}") }
}

/// One line for the page: "about $0.42 (at most $1.10) for 800 x 5"; "at most $1.10 for 800 x 5
/// (every answer at the token limit)" without a pilot; "about 1.2M prompt + 400k output tokens (no
/// price known for this model: enter one)" without a price ("+ up to 4.0M output" without a
/// pilot); "free: about ..." at a zero price (local servers).
pub fn describe(estimate: &Estimate) -> String {
    let size = format!("{} x {}", estimate.samples, estimate.n);
    let no_pilot = estimate.output_tokens_expected == estimate.output_tokens_max;
    match (estimate.expected_usd, estimate.max_usd) {
        (Some(_), Some(0.0)) => {
            format!(
                "free: about {} prompt + {} output tokens for {size}",
                format_tokens(estimate.prompt_tokens),
                output_words(estimate)
            )
        }
        (Some(expected), Some(max)) if !no_pilot => {
            format!("about {} (at most {}) for {size}", format_usd(expected), format_usd(max))
        }
        (_, Some(max)) => format!("at most {} for {size} (every answer at the token limit)", format_usd(max)),
        _ => format!(
            "about {} prompt + {} output tokens (no price known for this model: enter one)",
            format_tokens(estimate.prompt_tokens),
            output_words(estimate)
        ),
    }
}

/// The output tokens: "up to N" when every answer is counted at the token limit.
pub fn output_words(estimate: &Estimate) -> String {
    if estimate.output_tokens_expected == estimate.output_tokens_max {
        format!("up to {}", format_tokens(estimate.output_tokens_max))
    } else {
        format_tokens(estimate.output_tokens_expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_eval::report::{AnswerRecord, SampleResult};
    use execbench_eval::{Extraction, Mode, Task, Verdict};

    #[test]
    fn token_estimates_follow_the_pieces() {
        // (text, expected count, the pieces counted by hand; ␣ is a space)
        let cases = [
            ("", 0, ""),
            ("hello", 1, "hello"),
            ("hello world", 2, "hello | ␣world"),
            // cl100k_base makes 11 tokens of it too.
            ("def f(x):\n    return x + 12345", 11, "def | ␣f | (x | ):\\n | ␣␣␣ | ␣return | ␣x | ␣+ | ␣ | 123 | 45"),
            ("12345678", 3, "123 | 456 | 78"),
            ("newText", 2, "new | Text"),
            ("HTTPServer", 3, "HTTP | Server: capitals 1 + (4 - 2) / 3, then 1"),
            ("THOUGHT", 3, "capitals: 1 + (7 - 2) / 3 = 2.67"),
            ("abcdefghijklmno", 3, "15 letters: 1 + (15 - 6) / 4 = 3.25"),
            ("it's", 2, "it | 's"),
            ("a  b", 3, "a | ␣ | ␣b"),
            ("x = {}", 3, "x | ␣= | ␣{} (2 bytes: max(1, 2 / 2.5) = 1)"),
            ("((((((", 2, "6 bytes: 6 / 2.5 = 2.4"),
            ("\n\n", 1, "\\n\\n"),
            ("a\n  b", 4, "a | \\n | ␣ | ␣b"),
            ("a b c d", 4, "a | ␣b | ␣c | ␣d"),
        ];
        for (text, expected, pieces) in cases {
            assert_eq!(estimate_tokens(text), expected, "{text:?}: {pieces}");
        }
    }

    fn record(answers: usize, usage: Option<Usage>, error: bool) -> SampleRecord {
        let answer = AnswerRecord {
            response: Some("1".into()),
            extraction: Extraction::verbatim("1"),
            verdict: Verdict::Correct,
        };
        let result = SampleResult {
            id: "s".into(),
            task: Task::Output,
            mode: Mode::Strict,
            prompt: None,
            answers: vec![answer; answers],
            n: answers,
            correct: answers,
            dropped: 0,
            pass_at_1: Some(1.0),
            pass_at_5: None,
            model_error: None,
            question: None,
            program: None,
        };
        SampleRecord {
            sample_id: "s".into(),
            index: 0,
            results: if error { Vec::new() } else { vec![result] },
            error: error.then(|| crate::record::SampleError { kind: None, message: "HTTP 503".into() }),
            usage,
            live_usage: None,
            sent: None,
            finish_reasons: Vec::new(),
            attempts: Vec::new(),
            latency_ms: 1.0,
        }
    }

    fn usage(prompt_tokens: u64, completion_tokens: u64, reasoning_tokens: u64, cached_tokens: u64) -> Usage {
        Usage { prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens }
    }

    /// A pilot of 3 samples, 5 answers each: two answered, one failed.
    fn pilot() -> PilotFigures {
        let records = [
            record(5, Some(usage(600, 700, 100, 200)), false),
            record(5, Some(usage(400, 300, 0, 0)), false),
            record(0, None, true),
        ];
        // 1200 estimated for the 3 samples' prompts: 800 for the 2 kept.
        PilotFigures::from_records(&records, 1200)
    }

    #[test]
    fn a_pilot_sums_the_records_that_answered() {
        let figures = pilot();
        assert_eq!(
            figures,
            PilotFigures { samples: 2, answers: 10, usage: usage(1000, 1000, 100, 200), estimated_prompt_tokens: 800 }
        );
        assert_eq!(figures.output_per_answer(), Some(100.0));
        assert_eq!(figures.prompt_ratio(), Some(1.25));
        let empty = PilotFigures::from_records(&[record(0, None, true)], 50);
        assert_eq!(
            (empty.samples, empty.answers, empty.estimated_prompt_tokens, empty.output_per_answer()),
            (0, 0, 0, None)
        );
    }

    #[test]
    fn estimates_before_a_run() {
        // 4 samples whose prompt is "a b c d" (4 tokens each), 5 answers, at most 1000 tokens each.
        let prompts = vec!["a b c d".to_string(); 4];
        let price = Price { input: 1e-6, output: 2e-6, cached_input: Some(0.5e-6), reasoning: None };
        let dear_reasoning = Price { input: 1e-6, output: 2e-6, cached_input: None, reasoning: Some(4e-6) };
        let pilot = pilot();
        let no_answers = PilotFigures { samples: 1, answers: 0, usage: Usage::default(), estimated_prompt_tokens: 10 };
        const MAX: &str = "output from max tokens (upper bound)";
        // (requests per sample, price, pilot) → (prompt, expected output, max output, expected $, max $, basis, description)
        #[allow(clippy::type_complexity)]
        let cases: [(
            (usize, Option<Price>, Option<&PilotFigures>),
            (u64, u64, u64, Option<f64>, Option<f64>, &str, &str),
        ); 5] = [
            // n in one request: 4 x 4 prompt tokens; 4 x 5 x 1000 output.
            (
                (1, None, None),
                (
                    16,
                    20_000,
                    20_000,
                    None,
                    None,
                    MAX,
                    "about 16 prompt + up to 20k output tokens (no price known for this model: enter one)",
                ),
            ),
            // One request per answer: 16 x 5 = 80 prompt tokens. Expected $ at the output price, the
            // most at the dearer reasoning price: 80e-6 + 20000 x 2e-6; 80e-6 + 20000 x 4e-6.
            (
                (5, Some(dear_reasoning), None),
                (
                    80,
                    20_000,
                    20_000,
                    Some(0.04008),
                    Some(0.08008),
                    MAX,
                    "at most $0.08 for 4 x 5 (every answer at the token limit)",
                ),
            ),
            // The pilot: 100 tokens per answer → 4 x 5 x 100 = 2000 out, 10% of it reasoning (billed as
            // output here); prompt 80 x 1.25 = 100, 20% of it cached.
            // $: 80 x 1e-6 + 20 x 0.5e-6 + 2000 x 2e-6 = 0.00409; at most 100 x 1e-6 + 20000 x 2e-6 = 0.0401.
            (
                (5, Some(price), Some(&pilot)),
                (
                    100,
                    2000,
                    20_000,
                    Some(0.00409),
                    Some(0.0401),
                    "output from a pilot of 2 samples: 100 tokens per answer on average; prompt tokens x1.25 as measured",
                    "about $0.0041 (at most $0.04) for 4 x 5",
                ),
            ),
            (
                (1, Some(Price::FREE), None),
                (
                    16,
                    20_000,
                    20_000,
                    Some(0.0),
                    Some(0.0),
                    MAX,
                    "free: about 16 prompt + up to 20k output tokens for 4 x 5",
                ),
            ),
            (
                (1, None, Some(&no_answers)),
                (
                    16,
                    20_000,
                    20_000,
                    None,
                    None,
                    "output from max tokens (upper bound): the pilot gave no answers",
                    "about 16 prompt + up to 20k output tokens (no price known for this model: enter one)",
                ),
            ),
        ];
        for ((requests, price, pilot), (prompt, expected, max, expected_usd, max_usd, basis, described)) in cases {
            let estimate = estimate_run(&prompts, 5, requests, 1000, price, pilot);
            let case = format!("{requests} {price:?} {pilot:?}");
            assert_eq!((estimate.samples, estimate.n), (4, 5), "{case}");
            assert_eq!(
                (estimate.prompt_tokens, estimate.output_tokens_expected, estimate.output_tokens_max),
                (prompt, expected, max),
                "{case}"
            );
            for (got, want) in [(estimate.expected_usd, expected_usd), (estimate.max_usd, max_usd)] {
                assert_eq!(got.is_some(), want.is_some(), "{case}");
                assert!((got.unwrap_or(0.0) - want.unwrap_or(0.0)).abs() < 1e-12, "{case}: {got:?} vs {want:?}");
            }
            assert_eq!(estimate.basis, basis, "{case}");
            assert_eq!(describe(&estimate), described, "{case}");
        }
    }

    #[test]
    fn descriptions_read_well() {
        let estimate = Estimate {
            samples: 800,
            n: 5,
            prompt_tokens: 1_200_000,
            output_tokens_expected: 400_000,
            output_tokens_max: 4_000_000,
            expected_usd: Some(0.4234),
            max_usd: Some(1.1),
            basis: String::new(),
        };
        assert_eq!(describe(&estimate), "about $0.42 (at most $1.10) for 800 x 5");
        let unpriced = Estimate { expected_usd: None, max_usd: None, ..estimate };
        assert_eq!(
            describe(&unpriced),
            "about 1.2M prompt + 400k output tokens (no price known for this model: enter one)"
        );
        // (tokens, shown): exact below 1,000, then two significant figures, halves rounded up.
        for (tokens, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1.0k"),
            (1049, "1.0k"),
            (1050, "1.1k"),
            (12_345, "12k"),
            (99_949, "100k"),
            (120_000, "120k"),
            (125_000, "130k"),
            (999_499, "1.0M"),
            (1_250_000, "1.3M"),
            (1_249_999, "1.2M"),
            (45_000_000, "45M"),
            (2_340_000_000, "2.3B"),
        ] {
            assert_eq!(format_tokens(tokens), text, "{tokens}");
        }
    }
}
