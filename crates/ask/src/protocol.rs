//! CodeCrash's generation protocol (max tokens 2000, temperature 0.2, top-p 0.95) and how the
//! parameters a run actually sent differ from it: reasoning models refuse some of them, so a
//! report must say when its numbers were not made under the protocol.

use execbench_providers::NotSent;
use serde_json::Value;

pub const MAX_TOKENS: u64 = 2000;
pub const TEMPERATURE: f64 = 0.2;
pub const TOP_P: f64 = 0.95;

/// The differences between `sent` (a record's parameters as sent, any of the three wire
/// formats) and the protocol, in words; empty when it was followed. `not_sent` (the run's
/// settings its model does not take) says why a parameter is missing.
pub fn deviations(sent: &Value, not_sent: &[NotSent]) -> Vec<String> {
    let why = |setting: &str| not_sent.iter().find(|n| n.setting == setting).map(|n| n.why.as_str());
    // Gemini keeps its settings under generationConfig, with camelCase names.
    let config = sent.get("generationConfig").unwrap_or(sent);
    let field = |names: &[&str]| names.iter().find_map(|n| config.get(*n).or_else(|| sent.get(*n)));
    let mut out = Vec::new();
    match field(&["temperature"]).and_then(Value::as_f64) {
        Some(t) if (t - TEMPERATURE).abs() < 1e-9 => {}
        Some(t) => out.push(format!("temperature {t} (protocol {TEMPERATURE})")),
        None => out.push(match why("temperature") {
            Some(why) => format!("temperature: the provider's default (protocol {TEMPERATURE}; not sent: {why})"),
            None => format!("temperature not sent (protocol {TEMPERATURE})"),
        }),
    }
    match field(&["top_p", "topP"]).and_then(Value::as_f64) {
        Some(p) if (p - TOP_P).abs() < 1e-9 => {}
        Some(p) => out.push(format!("top-p {p} (protocol {TOP_P})")),
        None => out.push(match why("top_p") {
            Some(why) => format!("top-p: the provider's default (protocol {TOP_P}; not sent: {why})"),
            None => format!("top-p not sent (protocol {TOP_P})"),
        }),
    }
    match field(&["max_completion_tokens", "max_tokens", "maxOutputTokens"]).and_then(Value::as_u64) {
        Some(MAX_TOKENS) => {}
        Some(m) => out.push(format!("max tokens {m} (protocol {MAX_TOKENS})")),
        None => out.push(format!("no max tokens sent (protocol {MAX_TOKENS})")),
    }
    for extra in ["reasoning_effort", "thinking", "thinkingConfig"] {
        if let Some(v) = field(&[extra]) {
            out.push(format!("{extra} {v}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deviations_table() {
        let cases: Vec<(Value, Vec<&str>)> = vec![
            (json!({"model": "m", "temperature": 0.2, "top_p": 0.95, "max_tokens": 2000, "n": 5}), vec![]),
            (json!({"model": "m", "temperature": 0.2, "top_p": 0.95, "max_completion_tokens": 2000}), vec![]),
            (
                json!({"model": "o3", "max_completion_tokens": 4000, "reasoning_effort": "low"}),
                vec![
                    "temperature not sent (protocol 0.2)",
                    "top-p not sent (protocol 0.95)",
                    "max tokens 4000 (protocol 2000)",
                    "reasoning_effort \"low\"",
                ],
            ),
            (
                json!({"model": "g", "generationConfig": {"temperature": 1.0, "topP": 0.95, "maxOutputTokens": 2000}}),
                vec!["temperature 1 (protocol 0.2)"],
            ),
            (
                json!({"model": "c", "temperature": 0.2, "top_p": 0.95, "max_tokens": 2000, "thinking": {"type": "enabled", "budget_tokens": 1024}}),
                vec!["thinking {\"budget_tokens\":1024,\"type\":\"enabled\"}"],
            ),
        ];
        for (sent, want) in cases {
            assert_eq!(deviations(&sent, &[]), want, "{sent}");
        }
    }

    /// A parameter the model does not take says so, with the reason the run recorded.
    #[test]
    fn parameters_left_out_say_why() {
        let not_sent = [NotSent {
            setting: "temperature".into(),
            wanted: "0.2".into(),
            why: "claude-opus-5-5 takes no sampling parameters".into(),
        }];
        let sent = json!({"model": "claude-opus-5-5", "max_tokens": 2000});
        assert_eq!(
            deviations(&sent, &not_sent),
            [
                "temperature: the provider's default (protocol 0.2; not sent: claude-opus-5-5 takes no sampling parameters)",
                "top-p not sent (protocol 0.95)"
            ]
        );
    }
}
