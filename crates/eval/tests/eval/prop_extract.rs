//! Generated responses made of prose, reasoning, tags, fences, assertions and values: an
//! extracted answer is always text of the response (never made up), it parses as Python, and a
//! response that states one answer plainly gives that answer.

use execbench_eval::Task;
use execbench_eval::{Extraction, extract};
use execbench_proptest_cases::cases;
use proptest::prelude::*;

/// A piece a model's response is made of.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,30}",
        "[a-z ,.]{0,40}",
        Just("\n".to_string()),
        Just("[ANSWER]".to_string()),
        Just("[/ANSWER]".to_string()),
        Just("<think>".to_string()),
        Just("</think>".to_string()),
        Just("```python\n".to_string()),
        Just("```\n".to_string()),
        Just("\r\n".to_string()),
        value().prop_map(|v| format!("assert f(1) == {v}\n")),
        value().prop_map(|v| format!("assert f({v}) == 3")),
        value(),
        Just("assert f(\n    1,\n    2\n) == [\n 1,\n 2]\n".to_string()),
        Just("assert f(1) != 2\n".to_string()),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        "'[a-z ]{0,8}(\\\\n)?'",
        Just("[1, (2, 3), {'a': None}]".to_string()),
        Just("f(1, 'x')".to_string()),
        Just("{1, 2}".to_string()),
    ]
}

fn task() -> impl Strategy<Value = Task> {
    prop_oneof![Just(Task::Output), Just(Task::Input)]
}

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn an_answer_is_always_text_of_the_response(pieces in proptest::collection::vec(piece(), 0..14), task in task()) {
        let response = pieces.concat();
        match extract(&response, task) {
            Extraction::Found { answer, rule } => {
                prop_assert!(!answer.trim().is_empty(), "{rule:?}: empty answer from {response:?}");
                // Multi-line answers may lose the fence lines and `\r`s around them, nothing else.
                let flat = |t: &str| t.split_whitespace().collect::<String>();
                prop_assert!(flat(&response).contains(&flat(&answer)),
                    "{rule:?}: {answer:?} is not in {response:?}");
            }
            Extraction::Failed { detail, .. } => prop_assert!(!detail.is_empty()),
        }
    }

    #[test]
    fn an_answer_stated_in_a_block_is_found(prose in "[a-zA-Z ,.]{0,60}", value in value(), fenced in any::<bool>(), closed in any::<bool>()) {
        let (open, close) = if fenced { ("```python\n", "\n```") } else { ("", "") };
        let end = if closed { "\n[/ANSWER]" } else { "" };
        let response = format!("{prose}\n[ANSWER]\n{open}assert f(0) == {value}{close}{end}");
        prop_assert_eq!(extract(&response, Task::Output).answer().map(str::to_string), Some(value.clone()), "{}", response);
        prop_assert_eq!(extract(&response, Task::Input).answer().map(str::to_string), Some("f(0)".to_string()), "{}", response);
    }
}
