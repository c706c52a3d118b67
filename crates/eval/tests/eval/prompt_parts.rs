//! A prompt cut into its parts (instructions, worked examples, the sample's own part), for the
//! results table: every built-in template on every sample of the snapshot file, and templates
//! whose cut cannot be found.

use execbench_core::{Sample, load_jsonl};
use execbench_eval::Task;
use execbench_eval::prompt::{PromptParts, Style, Template, builtin_templates};

const SAMPLES: &str = include_str!("../data/prompt_samples.jsonl");

fn samples() -> Vec<Sample> {
    let report = load_jsonl("prompt_samples.jsonl", SAMPLES);
    assert!(report.is_clean(), "{:?}", report.errors);
    report.samples
}

fn joined(parts: &PromptParts) -> String {
    format!("{}{}{}", parts.instructions, parts.examples.concat(), parts.own)
}

/// (template id, worked examples): each built-in cut at its sample's `[PYTHON]` paragraph.
#[test]
fn built_in_prompts_open_at_the_sample_with_the_examples_apart() {
    let cases = [
        ("output-direct", 2),
        ("output-cot", 1),
        ("output-zero-shot", 0),
        ("input-direct", 2),
        ("input-cot", 1),
        ("question-direct", 0),
    ];
    let templates = builtin_templates();
    assert_eq!(templates.len(), cases.len(), "a built-in without a case");
    for (id, examples) in cases {
        let template = templates.iter().find(|t| t.id == id).expect("built-in");
        for sample in samples() {
            let rendered = template.render(&sample).text();
            let parts = template.parts(&rendered);
            let case = format!("{id} on {}", sample.id);
            assert_eq!(joined(&parts), rendered, "{case}: the parts are the prompt");
            let opening = if id.starts_with("question") {
                format!("```python\n{}", execbench_eval::question::numbered(&sample.code))
            } else {
                format!("[PYTHON]\n{}\n", sample.code)
            };
            assert!(parts.own.starts_with(&opening), "{case}: {:?}", parts.own);
            assert_eq!(parts.examples.len(), examples, "{case}");
            for example in &parts.examples {
                assert!(example.starts_with("[PYTHON]\n") && example.ends_with("[/ANSWER]\n\n"), "{case}: {example:?}");
                assert!(!example.contains(&sample.code), "{case}");
            }
            assert!(
                !parts.instructions.is_empty() && !parts.instructions.contains("[PYTHON]"),
                "{case}: {:?}",
                parts.instructions
            );
        }
    }
}

/// The exact cut of one prompt, as a reader sees it.
#[test]
fn output_direct_on_sample_0_in_full() {
    let template = builtin_templates().into_iter().find(|t| t.id == "output-direct").unwrap();
    let sample = samples().into_iter().find(|s| s.id == "sample_0").unwrap();
    let parts = template.parts(&template.render(&sample).text());
    assert!(
        parts.instructions.starts_with("Work out what the Python function returns for the given call.")
            && parts.instructions.ends_with("[/ANSWER].\n\n"),
        "{:?}",
        parts.instructions
    );
    assert!(
        parts.examples[0].contains("assert f(['apple', 'avocado', 'banana']) == {'a': 2, 'b': 1}"),
        "{:?}",
        parts.examples[0]
    );
    assert!(parts.examples[1].contains("assert f(25, 10) == (5, 5, 5)"), "{:?}", parts.examples[1]);
    assert_eq!(
        parts.own,
        format!("[PYTHON]\n{}\nassert f([1, 1, 3, 1, 3, 1]) == ??\n[/PYTHON]\n[ANSWER]\n", sample.code)
    );
}

fn custom(system: Option<&str>, user: &str) -> Template {
    Template {
        id: "c".into(),
        name: "c".into(),
        task: Task::Output,
        style: Style::Direct,
        system: system.map(String::from),
        user: user.into(),
        stop: Vec::new(),
    }
}

/// (system, user, rendered text or None for the template's own rendering of sample_0,
/// (instructions, examples, own) expected; `CODE` stands for sample_0's code).
#[test]
fn templates_whose_cut_is_found_or_not() {
    let sample = samples().into_iter().find(|s| s.id == "sample_0").unwrap();
    let code = sample.code.clone();
    // A table of cases is a tuple.
    #[allow(clippy::type_complexity)]
    let cases: Vec<(Option<&str>, &str, Option<&str>, (&str, Vec<&str>, &str))> = vec![
        // A system message with a placeholder: filled in, it may repeat the instructions' text
        // (a `{code}` that contains it), so where the user message starts is not known: no cut.
        (
            Some("You know {function_name}."),
            "Go.\n\nEX\nf(1) is 2\n\nEX\n{code}\n{call}",
            None,
            ("", vec![], "You know f.\n\nGo.\n\nEX\nf(1) is 2\n\nEX\nCODE\nf([1, 1, 3, 1, 3, 1])"),
        ),
        // The code opens the user message: nothing comes before it.
        (None, "{code}\nWhat does {call} return?", None, ("", vec![], "CODE\nWhat does f([1, 1, 3, 1, 3, 1]) return?")),
        // The code's paragraph opens with the code itself: no example can be told apart.
        (None, "Answer.\n\n{code}\n{call}", None, ("Answer.\n\n", vec![], "CODE\nf([1, 1, 3, 1, 3, 1])")),
        // A placeholder before the cut: its length depends on the sample, so nothing is cut.
        (
            None,
            "About {function_name}.\n\n[PYTHON]\n{code}\n{call}",
            None,
            ("", vec![], "About f.\n\n[PYTHON]\nCODE\nf([1, 1, 3, 1, 3, 1])"),
        ),
        // A text this template did not render stays whole.
        (None, "Answer.\n\n[PYTHON]\n{code}", Some("something else"), ("", vec![], "something else")),
    ];
    for (system, user, text, (instructions, examples, own)) in cases {
        let template = custom(system, user);
        let rendered = text.map(String::from).unwrap_or_else(|| template.render(&sample).text());
        let parts = template.parts(&rendered);
        let expected = PromptParts {
            instructions: instructions.into(),
            examples: examples.into_iter().map(String::from).collect(),
            own: own.replace("CODE", &code),
        };
        assert_eq!(parts, expected, "{user:?}");
        assert_eq!(joined(&parts), rendered, "{user:?}");
    }
}
