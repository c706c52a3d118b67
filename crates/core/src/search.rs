//! Searching a dataset's list: which samples match a search text and an output type, and where
//! the text occurs in a field (for highlighting). The page's dataset list and the sample page's
//! previous/next use the same matching.

use crate::sample::{OutputKind, Sample};

/// Indices of the samples that match the search text and the output-type filter.
pub fn matching(samples: &[Sample], query: &str, kind: Option<OutputKind>) -> Vec<usize> {
    let query = query.trim().to_lowercase();
    samples
        .iter()
        .enumerate()
        .filter(|(_, s)| kind.is_none_or(|k| s.output_kind() == k))
        .filter(|(_, s)| {
            query.is_empty()
                || [&s.id, &s.code, &s.call, &s.output].iter().any(|field| field.to_lowercase().contains(&query))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Where the search text occurs in `text`, ignoring case as [`matching`] does: byte ranges of
/// `text`, in order, not overlapping, on char boundaries (none for an empty search).
pub fn highlight_ranges(text: &str, query: &str) -> Vec<std::ops::Range<usize>> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    // `text` lowered, with the byte of `text` each of its bytes came from (lowering can change a
    // char's length, so offsets are mapped back rather than reused).
    let mut lowered = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        for l in c.to_lowercase() {
            lowered.push(l);
            origin.extend(std::iter::repeat_n(at, l.len_utf8()));
        }
    }
    lowered
        .match_indices(&query)
        .map(|(start, m)| origin[start]..origin.get(start + m.len()).copied().unwrap_or(text.len()))
        .filter(|r| !r.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(id: &str, code: &str, output: &str) -> Sample {
        let line = serde_json::json!({"id": id, "code": code, "input": "1", "output": output}).to_string();
        crate::load_jsonl("t.jsonl", &line).samples.remove(0)
    }

    #[test]
    fn matching_searches_id_code_call_and_output_and_filters_by_kind() {
        let samples = vec![
            sample("sample_1", "def f(x):\n    return [x]", "[1]"),
            sample("sample_2", "def f(x):\n    return str(x)", "'Hello'"),
            sample("other_3", "def f(x):\n    return x + 1", "2"),
        ];
        let cases: [(&str, Option<OutputKind>, Vec<usize>); 8] = [
            ("", None, vec![0, 1, 2]),
            // The call (`f(1)` for every sample here) is searched too.
            ("F(1)", None, vec![0, 1, 2]),
            ("sample", None, vec![0, 1]),
            ("  STR(  ", None, vec![1]),
            ("hello", None, vec![1]),
            ("", Some(OutputKind::of_literal("[1]")), vec![0]),
            ("sample", Some(OutputKind::of_literal("2")), vec![]),
            ("nothing like it", None, vec![]),
        ];
        for (query, kind, expected) in cases {
            assert_eq!(matching(&samples, query, kind), expected, "query {query:?}, kind {kind:?}");
        }
    }

    #[test]
    fn highlights_are_the_case_insensitive_matches_on_char_boundaries() {
        // (text, search, highlighted parts)
        let cases: [(&str, &str, Vec<&str>); 7] = [
            ("sample_12", "", vec![]),
            ("sample_12", "   ", vec![]),
            ("sample_12", "sample", vec!["sample"]),
            ("def f(text): return Text.upper()", " TEXT ", vec!["text", "Text"]),
            ("aaaa", "aa", vec!["aa", "aa"]),
            ("Été ÉTÉ", "été", vec!["Été", "ÉTÉ"]),
            // `İ` lowers to two chars (three bytes more): offsets still land on `text`'s chars.
            ("İx İX", "x", vec!["x", "X"]),
        ];
        for (text, query, expected) in cases {
            let parts: Vec<&str> = highlight_ranges(text, query).into_iter().map(|r| &text[r]).collect();
            assert_eq!(parts, expected, "{text:?} / {query:?}");
        }
    }
}
