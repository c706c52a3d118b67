//! The CRUXEval recipe's readers on generated text: a model's response (`parse_response`) never
//! panics, whatever its fences, indents and Unicode spaces; what it reads is text of the response
//! and, when the response is written as the prompt asks, exactly the function and inputs written.
//! Candidate files (`read_candidates`) written as JSON Lines read back equal, with unknown fields
//! ignored, and a damaged line is named by its number and field and costs only itself.

use execbench_proptest_cases::cases;
use execbench_recipe::parse::{MAX_INPUTS, parse_response};
use execbench_recipe::{Candidate, read_candidates};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A piece of a model's response: prose, fences, code lines under odd indents, calls.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,20}",
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("```python\n".to_string()),
        Just("```\n".to_string()),
        Just("def f(x):\n".to_string()),
        Just("def g(x):\n".to_string()),
        // Indents of spaces, tabs and Unicode spaces, which are several bytes long.
        ("[ \t\u{a0}\u{3000}\u{2003}]{0,4}", "[a-z =+()]{0,12}").prop_map(|(i, t)| format!("{i}{t}\n")),
        ("(- |\\* |1\\. |>>> |`)?", "(assert |print\\()?", argument()).prop_map(|(m, a, x)| format!("{m}{a}f({x})\n")),
        Just("if __name__ == '__main__':\n".to_string()),
        Just("import re\n".to_string()),
        Just("f(x) returns the text\n".to_string()),
        Just("f('unclosed\n".to_string()),
    ]
}

/// Call arguments as Python source, with brackets and strings that hold parentheses.
fn argument() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|n| n.to_string()),
        "'[a-z(), ]{0,8}'",
        "\"[a-z)]{0,6}\"",
        Just("[1, (2, 3)], {'a': ')'}".to_string()),
        Just("'''a)b''', 2".to_string()),
        Just("'a\\'b', 'c'".to_string()),
    ]
}

fn candidate() -> impl Strategy<Value = Candidate> {
    ("[a-z0-9-]{1,10}", proptest::option::of("[a-z]{1,5}\\.[a-z_]{1,10}"), "\\PC{0,40}", "\\PC{0,20}")
        .prop_map(|(id, method, code, input)| Candidate { id, method, code, input })
}

fn candidate_line(c: &Candidate, extra: &Option<(String, Value)>) -> String {
    let mut v = serde_json::to_value(c).unwrap();
    if let Some((k, x)) = extra {
        v.as_object_mut().unwrap().insert(k.clone(), x.clone());
    }
    v.to_string()
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn any_response_reads_without_panic_into_text_of_the_response(pieces in proptest::collection::vec(piece(), 0..16)) {
        let raw = pieces.concat();
        let parsed = parse_response("r7", "str.split", &raw);
        prop_assert_eq!(&parsed.raw, &raw);
        prop_assert!(parsed.candidates.len() <= MAX_INPUTS);
        match &parsed.problem {
            Some(problem) => prop_assert!(parsed.candidates.is_empty() && !problem.is_empty()),
            None => prop_assert!(!parsed.candidates.is_empty()),
        }
        let flat = |t: &str| t.split_whitespace().collect::<String>();
        for (k, candidate) in parsed.candidates.iter().enumerate() {
            prop_assert_eq!(&candidate.id, &format!("r7-{}", k + 1));
            prop_assert!(flat(&raw).contains(&flat(&candidate.input)), "{:?} is not in {raw:?}", candidate.input);
            prop_assert!(candidate.code.contains("def f"), "{:?}", candidate.code);
            prop_assert!(parsed.candidates[..k].iter().all(|c| c.input != candidate.input), "repeated {:?}", candidate.input);
        }
    }

    #[test]
    fn a_response_in_the_asked_format_reads_back(
        body in proptest::collection::vec("(return x|y = x \\+ 1|if x:|    pass)", 1..4),
        inputs in proptest::collection::vec(argument(), 1..8),
        fence_tag in prop::sample::select(vec!["python", "py", ""]),
        prose in "[a-zA-Z ,.]{0,30}",
        crlf in any::<bool>(),
    ) {
        let code = format!("def f(x):\n{}", body.iter().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n"));
        let calls: String = inputs.iter().map(|i| format!("f({i})\n")).collect();
        let mut raw = format!("{prose}\n```{fence_tag}\n{code}\n```\nInputs:\n{calls}");
        if crlf {
            raw = raw.replace('\n', "\r\n");
        }
        let parsed = parse_response("q", "m", &raw);
        let mut expected: Vec<String> = Vec::new();
        for input in &inputs {
            if expected.len() < MAX_INPUTS && !expected.contains(&input.trim().to_string()) {
                expected.push(input.trim().to_string());
            }
        }
        prop_assert_eq!(parsed.problem, None);
        prop_assert_eq!(parsed.candidates.iter().map(|c| c.input.clone()).collect::<Vec<_>>(), expected);
        prop_assert!(parsed.candidates.iter().all(|c| c.code == code && c.method.as_deref() == Some("m")));
    }

    #[test]
    fn candidate_files_read_back(
        rows in proptest::collection::vec((candidate(), proptest::option::of(("x_[a-z]{1,6}", Just(json!({"any": [1]}))))), 0..10),
        crlf in any::<bool>(),
    ) {
        let text = rows.iter().map(|(c, x)| candidate_line(c, x)).collect::<Vec<_>>().join(if crlf { "\r\n" } else { "\n" });
        let (read, errors) = read_candidates("c.jsonl", &text);
        prop_assert!(errors.is_empty(), "{errors:?}");
        prop_assert_eq!(read, rows.into_iter().map(|(c, _)| c).collect::<Vec<_>>());
    }

    #[test]
    fn a_damaged_candidate_line_is_named(
        rows in proptest::collection::vec(candidate(), 1..10),
        at in any::<prop::sample::Index>(),
        damage in prop::sample::select(vec![
            (None, "{\"id\": \"a\", \"code\""),
            (None, "\"just a string\""),
            (Some("id"), "{\"code\": \"c\", \"input\": \"1\"}"),
            (Some("code"), "{\"id\": \"a\", \"code\": 3, \"input\": \"1\"}"),
            (Some("input"), "{\"id\": \"a\", \"code\": \"c\", \"input\": null}"),
            (Some("method"), "{\"id\": \"a\", \"method\": [\"x\"], \"code\": \"c\", \"input\": \"1\"}"),
        ]),
    ) {
        let mut lines: Vec<String> = rows.iter().map(|c| candidate_line(c, &None)).collect();
        let at = at.index(lines.len());
        lines[at] = damage.1.to_string();
        let (read, errors) = read_candidates("c.jsonl", &lines.join("\n"));
        prop_assert_eq!(errors.len(), 1, "{:?}", errors);
        prop_assert_eq!(errors[0].line, at + 1);
        prop_assert_eq!(errors[0].field.as_deref(), damage.0);
        prop_assert!(errors[0].to_string().starts_with(&format!("c.jsonl:{}:", at + 1)), "{}", errors[0]);
        let mut kept = rows.clone();
        kept.remove(at);
        prop_assert_eq!(read, kept);
    }
}
