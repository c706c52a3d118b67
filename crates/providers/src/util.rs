//! Small helpers shared by the modules: header lookup, lenient number reading, text shortening.

use serde_json::Value;

/// The value of a header, names compared case-insensitively (HTTP header names are).
pub(crate) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
}

/// A token count from JSON: integers as they are, floats and huge numbers clamped into u64
/// (float-to-int casts saturate), anything else 0. Counts are bookkeeping, never worth an error.
pub(crate) fn count(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Number(n)) => n.as_u64().unwrap_or_else(|| match n.as_f64() {
            Some(f) if f.is_finite() && f > 0.0 => f as u64,
            _ => 0,
        }),
        _ => 0,
    }
}

/// A string field, or None when absent or not a string.
pub(crate) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// At most `max` characters of `s` (whitespace runs collapsed), with "..." when cut.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    // Look at a bounded prefix only: error bodies can be megabytes.
    let window = s.char_indices().nth(max.saturating_mul(4).max(64)).map_or(s, |(i, _)| &s[..i]);
    let cut = window.len() < s.len();
    let collapsed = window.split_whitespace().collect::<Vec<_>>().join(" ");
    if cut && collapsed.chars().count() <= max {
        return format!("{collapsed}...");
    }
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let mut out: String = collapsed.chars().take(max).collect();
    out.push_str("...");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_are_lenient() {
        let cases = [
            (json!(12), 12),
            (json!(-3), 0),
            (json!(2.9), 2),
            (json!(1e30), u64::MAX),
            (json!("7"), 0),
            (json!(null), 0),
        ];
        for (v, want) in cases {
            assert_eq!(count(Some(&v)), want, "{v}");
        }
        assert_eq!(count(None), 0);
    }

    #[test]
    fn shorten_cuts_on_characters() {
        assert_eq!(shorten("a  b\n c", 10), "a b c");
        assert_eq!(shorten("ééééé", 3), "ééé...");
    }
}
