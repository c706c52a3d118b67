//! Generated prompt templates (`prompt.rs`, `template_library.rs`): custom templates exported and
//! imported, or saved to the page's storage and restored, are the same templates; any imported
//! text is templates or an error naming the file, and a refused import changes nothing; a stop
//! list written as the editor's text reads back the same; placeholders are filled in one pass
//! (text a sample brings is never scanned again); a rendered prompt cut into its parts is the
//! prompt again, byte for byte, and the sample's own part is the template's own paragraph filled
//! in, whatever the sample holds.

use execbench_core::Sample;
use execbench_eval::Task;
use execbench_eval::prompt::{PLACEHOLDERS, Style, Template, builtin_templates, fill};
use execbench_eval::template_library::{TemplateLibrary, parse_stop_sequences, stop_sequences_text};
use execbench_proptest_cases::cases;
use proptest::prelude::*;

/// Text with the characters templates and programs are made of, braces, placeholders' names,
/// blank lines and `[PYTHON]` openings frequent.
fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => "\\PC{1,4}",
            2 => proptest::sample::select(vec![
                "{", "}", "{}", "{code}", "{output}", "{call", "code}", "\n", "\n\n", "[PYTHON]\n", "\\", "\\n", "\"", " ",
            ])
            .prop_map(String::from),
        ],
        0..max,
    )
    .prop_map(|parts| parts.concat())
}

/// A piece of a template's text: literal text (no `}`, so it never closes a placeholder with
/// the next piece), a brace pair that is no placeholder, or a placeholder.
#[derive(Clone, Debug)]
enum Piece {
    Literal(String),
    NotAPlaceholder(&'static str),
    Placeholder(&'static str),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => "[^}]{0,8}".prop_map(Piece::Literal),
        1 => proptest::sample::select(vec!["{}", "{0}", "{codes}", "{ code}", "{Code}", "{input }", "{{}}"])
            .prop_map(Piece::NotAPlaceholder),
        2 => proptest::sample::select(PLACEHOLDERS.to_vec()).prop_map(Piece::Placeholder),
    ]
}

fn sample() -> impl Strategy<Value = Sample> {
    (text(8), "[a-zA-Z_]{1,6}", text(4), text(4)).prop_map(|(code, function_name, input, output)| Sample {
        id: "s".into(),
        call: format!("{function_name}({input})"),
        code,
        function_name,
        input,
        output,
        meta: Default::default(),
    })
}

fn value_of(name: &str, sample: &Sample) -> String {
    match name {
        "code" | "program" => sample.code.clone(),
        "call" => sample.call.clone(),
        "input" => sample.input.clone(),
        "output" => sample.output.clone(),
        "function_name" => sample.function_name.clone(),
        // Each line after its number, right-aligned to the widest number, and two spaces.
        "numbered_code" => {
            let lines: Vec<&str> = sample.code.lines().collect();
            let width = lines.len().to_string().len();
            lines.iter().enumerate().map(|(i, line)| format!("{:>width$}  {line}\n", i + 1)).collect()
        }
        // These samples hold no question.
        "question" => String::new(),
        other => panic!("not a placeholder: {other}"),
    }
}

/// A usable custom template: any id, name, system message and stop list, a user message with
/// the placeholders its task needs among any text.
fn custom_template() -> impl Strategy<Value = Template> {
    (
        "[a-z0-9-]{1,10}|\\PC{1,10}",
        "[A-Za-z]\\PC{0,8}",
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(text(6)),
        (text(5), text(5), text(5)),
        proptest::collection::vec(text(3), 0..3),
    )
        .prop_map(|(id, name, input, cot, system, (a, b, c), stop)| {
            let task = if input { Task::Input } else { Task::Output };
            let needed = if input { "{output}" } else { "{call}" };
            Template {
                id: format!("my-{id}"),
                name,
                task,
                style: if cot { Style::ChainOfThought } else { Style::Direct },
                system,
                user: format!("{a}{{code}}{b}{needed}{c}"),
                stop,
            }
        })
}

/// Stop sequences the editor keeps: each with something visible or an escaped character, no
/// repeats (the editor drops blank lines and repeats).
fn stops() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(text(4).prop_filter("not blank", |s| !s.trim().is_empty()), 0..5).prop_map(|stops| {
        let mut unique: Vec<String> = Vec::new();
        for stop in stops {
            if !unique.contains(&stop) {
                unique.push(stop);
            }
        }
        unique
    })
}

proptest! {
    #![proptest_config(cases(512))]

    /// Custom templates exported and imported into a fresh library, or saved to storage and
    /// restored, are the same templates; one exported alone imports as itself.
    #[test]
    fn templates_written_and_read_are_the_same_templates(templates in proptest::collection::vec(custom_template(), 0..4)) {
        let mut library = TemplateLibrary::new();
        for template in &templates {
            library.save(template.clone()).map_err(|p| TestCaseError::fail(p.join("; ")))?;
        }
        let custom = library.custom().to_vec();
        if !custom.is_empty() {
            let mut imported = TemplateLibrary::new();
            let report = imported.import("templates.json", &library.export_custom()).map_err(TestCaseError::fail)?;
            prop_assert_eq!(imported.custom(), &custom[..]);
            prop_assert_eq!(report.added.len(), custom.len());
            let mut one = TemplateLibrary::new();
            let first = library.export_one(&custom[0].id).expect("exported");
            one.import("one.json", &first).map_err(TestCaseError::fail)?;
            prop_assert_eq!(one.custom(), &custom[..1]);
        }
        let stored = library.to_storage().map_err(TestCaseError::fail)?;
        let (restored, message) = TemplateLibrary::restore(Some(&stored));
        prop_assert_eq!(message, None);
        prop_assert_eq!(restored, library);
    }

    /// Any text, or an export damaged anywhere, imports as templates or is refused with the file
    /// named; a refused import leaves the library as it was.
    #[test]
    fn any_text_is_templates_or_a_named_error(
        template in custom_template(),
        cut in any::<proptest::sample::Index>(),
        insert in "\\PC{0,3}|[\\[\\]{}\",:]",
        raw in text(20),
    ) {
        let mut library = TemplateLibrary::new();
        library.save(template.clone()).map_err(|p| TestCaseError::fail(p.join("; ")))?;
        let export = library.export_custom();
        let chars: Vec<char> = export.chars().collect();
        let at = cut.index(chars.len() + 1);
        let damaged: String = chars[..at].iter().copied().chain(insert.chars()).chain(chars[at..].iter().copied()).collect();
        let truncated: String = chars[..at].iter().collect();
        for text in [damaged, truncated, raw] {
            let before = library.clone();
            let mut after = library.clone();
            match after.import("mine.json", &text) {
                Ok(report) => {
                    prop_assert!(!report.added.is_empty() || !report.replaced.is_empty(), "{:?}", text);
                    for id in report.added.iter().chain(&report.replaced) {
                        prop_assert!(after.get(id).is_some());
                    }
                }
                Err(error) => {
                    prop_assert!(error.starts_with("mine.json: ") && error.len() > "mine.json: ".len(), "{}", error);
                    prop_assert_eq!(&after, &before);
                }
            }
            // The page's storage holding that text: a library, and a message when something was left out.
            let (restored, _message) = TemplateLibrary::restore(Some(&text));
            for kept in restored.custom() {
                prop_assert!(restored.problems_of(kept).is_empty(), "{:?}", kept);
            }
        }
    }

    /// A stop list written as the editor's text (one a line, escapes) reads back the same.
    #[test]
    fn a_stop_list_written_and_read_is_the_same(stops in stops()) {
        let text = stop_sequences_text(&stops);
        prop_assert_eq!(parse_stop_sequences(&text), stops, "{:?}", text);
    }

    /// Placeholders are replaced in one pass: the text a sample brings (braces, `{output}`) comes
    /// through as it is, and a brace pair that names no placeholder stays.
    #[test]
    fn filling_replaces_placeholders_once(pieces in proptest::collection::vec(piece(), 0..10), sample in sample()) {
        let mut template = String::new();
        let mut want = String::new();
        for piece in &pieces {
            match piece {
                Piece::Literal(text) => {
                    template.push_str(text);
                    want.push_str(text);
                }
                Piece::NotAPlaceholder(text) => {
                    template.push_str(text);
                    want.push_str(text);
                }
                Piece::Placeholder(name) => {
                    template.push_str(&format!("{{{name}}}"));
                    want.push_str(&value_of(name, &sample));
                }
            }
        }
        prop_assert_eq!(fill(&template, &sample), want, "{:?}", template);
    }

    /// A rendered prompt cut into parts is the prompt again, and the sample's own part is the
    /// template's own paragraph filled in (or the whole prompt, when the text before it depends
    /// on the sample): nothing in the sample moves the cut.
    #[test]
    fn a_prompt_cut_into_parts_is_the_prompt(
        builtin in any::<proptest::sample::Index>(),
        custom in custom_template(),
        examples in proptest::collection::vec(text(4), 0..3),
        use_builtin in any::<bool>(),
        sample in sample(),
    ) {
        let template = if use_builtin {
            builtin.get(&builtin_templates()).clone()
        } else {
            // Instructions, worked examples opening like the own paragraph, then the own one.
            let examples: String = examples.iter().map(|e| format!("[PYTHON]\n{e}\n\n")).collect();
            Template { user: format!("Instructions.\n\n{examples}[PYTHON]\n{}", custom.user), ..custom }
        };
        let rendered = template.render(&sample).text();
        let parts = template.parts(&rendered);
        let whole: String = [parts.instructions.clone()].into_iter().chain(parts.examples.clone()).chain([parts.own.clone()]).collect();
        prop_assert_eq!(&whole, &rendered);
        let user = &template.user;
        let code_at = ["{code}", "{program}", "{numbered_code}"].iter().filter_map(|p| user.find(p)).min().expect("the code placeholder");
        let own_start = user[..code_at].rfind("\n\n").map_or(0, |i| i + 2);
        let before = &user[..own_start];
        let has_placeholder = |text: &str| PLACEHOLDERS.iter().any(|p| text.contains(&format!("{{{p}}}")));
        let system = template.system.as_deref().filter(|s| !s.trim().is_empty());
        if before.is_empty() || has_placeholder(before) || system.is_some_and(has_placeholder) {
            // Instructions or a system message that depend on the sample: not cut.
            prop_assert_eq!(&parts.own, &rendered);
        } else {
            prop_assert_eq!(&parts.own, &fill(&user[own_start..], &sample));
            // The same cut for a sample with nothing in it.
            let plain = Sample { code: "x".into(), input: "1".into(), output: "1".into(), call: "f(1)".into(), ..sample.clone() };
            let plain_parts = template.parts(&template.render(&plain).text());
            prop_assert_eq!(&parts.examples, &plain_parts.examples);
            prop_assert_eq!(&parts.instructions, &plain_parts.instructions);
        }
    }
}

/// Found by reasoning about the property above, then kept as its case: a system message holding
/// `{code}`, for a program that contains the instructions after a blank line, was cut inside the
/// system message (the first copy of the instructions), so the own part began inside the program.
#[test]
fn a_program_that_repeats_the_instructions_does_not_move_the_cut() {
    let template = Template {
        id: "my-sys".into(),
        name: "sys".into(),
        task: Task::Output,
        style: Style::Direct,
        system: Some("{code}".into()),
        user: "Instructions.\n\n[PYTHON]\n{code}\n{call}".into(),
        stop: Vec::new(),
    };
    let sample = Sample::new("s", "a\n\nInstructions.\n\nb", "f", "", "1");
    let rendered = template.render(&sample).text();
    let parts = template.parts(&rendered);
    assert_eq!(parts.own, rendered, "a system message with placeholders: nothing is cut");
    // Without placeholders in the system message the cut is exact, whatever the program holds.
    let literal = Template { system: Some("Be brief.\n\nInstructions.".into()), ..template };
    let rendered = literal.render(&sample).text();
    let parts = literal.parts(&rendered);
    assert_eq!(parts.instructions, "Be brief.\n\nInstructions.\n\nInstructions.\n\n");
    assert_eq!(parts.own, format!("[PYTHON]\n{}\nf()", sample.code));
}
