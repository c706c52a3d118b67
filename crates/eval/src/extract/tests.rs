//! Responses shaped like the ones real models produce, each with the extraction it must give.

use super::*;
use ExtractRule::*;

enum Want {
    Found(&'static str, ExtractRule),
    Fails(ExtractFailure),
}
use Want::*;

const O: Task = Task::Output;
const I: Task = Task::Input;

#[rustfmt::skip]
fn cases() -> Vec<(&'static str, Task, &'static str, Want)> {
    vec![
        // --- plain answer blocks
        ("direct answer", O, "[ANSWER]\nassert f([1, 2]) == [2, 1]\n[/ANSWER]", Found("[2, 1]", AnswerBlock)),
        ("answer on one line", O, "[ANSWER]assert f('a') == 'b'[/ANSWER]", Found("'b'", AnswerBlock)),
        ("stop sequence cut the closing tag", O, "[ANSWER]\nassert f(3) == 9\n", Found("9", AnswerBlockUnclosed)),
        ("lowercase tags", O, "[answer] assert f(3) == 9 [/answer]", Found("9", AnswerBlock)),
        ("prose before and after", O, "Let me run it.\nThe loop adds each item.\n[ANSWER]\nassert f(2) == 4\n[/ANSWER]\nHope this helps!", Found("4", AnswerBlock)),
        ("chain of thought with thought tags", O, "[THOUGHT]\nx starts at 1, then doubles: 2, 4.\nSo f(2) returns 4, i.e. assert f(2) == 4.\n[/THOUGHT]\n[ANSWER]\nassert f(2) == 4\n[/ANSWER]", Found("4", AnswerBlock)),
        ("several blocks: the last wins", O, "[ANSWER]\nassert f(1) == 1\n[/ANSWER]\nWait, I made a mistake.\n[ANSWER]\nassert f(1) == 2\n[/ANSWER]", Found("2", AnswerBlock)),
        ("a trailing empty block is skipped", O, "[ANSWER]\nassert f(1) == 'x'\n[/ANSWER]\n[ANSWER]\n", Found("'x'", AnswerBlock)),
        ("python fences inside the block", O, "[ANSWER]\n```python\nassert f('ab') == 'ba'\n```\n[/ANSWER]", Found("'ba'", AnswerBlock)),
        ("inline backticks inside the block", O, "[ANSWER] `assert f(0) == []` [/ANSWER]", Found("[]", AnswerBlock)),
        ("block holding only the value", O, "[ANSWER]\n'hello world'\n[/ANSWER]", Found("'hello world'", AnswerBlockValue)),
        ("block with prose before the assertion", O, "[ANSWER]\nThe final assertion is:\nassert f(5) == (5, 10)\n[/ANSWER]", Found("(5, 10)", AnswerBlock)),
        ("two assertions in one block", O, "[ANSWER]\nassert f(1) == 0\nassert f(2) == 3\n[/ANSWER]", Found("3", AnswerBlock)),
        ("assertion with a message", O, "[ANSWER]\nassert f(1) == 7, 'seven'\n[/ANSWER]", Found("7", AnswerBlock)),
        ("parenthesized assert", O, "[ANSWER]\nassert(f(1) == 7)\n[/ANSWER]", Found("7", AnswerBlock)),
        // --- `==` and brackets inside strings must not fool the split
        ("== inside the expected string", O, "[ANSWER]\nassert f('a') == 'a == b'\n[/ANSWER]", Found("'a == b'", AnswerBlock)),
        ("== inside the call's argument", O, "[ANSWER]\nassert f('x == y') == 'x'\n[/ANSWER]", Found("'x'", AnswerBlock)),
        ("tag text inside a string", O, "[ANSWER]\nassert f('[ANSWER]') == '[/'\n[/ANSWER]", Found("'[/'", AnswerBlock)),
        ("brackets and quotes in strings", O, "[ANSWER]\nassert f(\"it's\") == \"it's ]\"\n[/ANSWER]", Found("\"it's ]\"", AnswerBlock)),
        ("parenthesized call on the left", I, "[ANSWER]\nassert (f(1)) == 2\n[/ANSWER]", Found("(f(1))", AnswerBlock)),
        ("a comparison as the value", O, "[ANSWER]\nassert f(1) == (1 == 1)\n[/ANSWER]", Found("(1 == 1)", AnswerBlock)),
        // --- multi-line literals
        ("multi-line list", O, "[ANSWER]\nassert f(3) == [\n    1,\n    2,\n    3,\n]\n[/ANSWER]", Found("[\n    1,\n    2,\n    3,\n]", AnswerBlock)),
        ("multi-line dict", O, "[ANSWER]\nassert f('ab') == {\n  'a': 1,\n  'b': 2\n}\n[/ANSWER]", Found("{\n  'a': 1,\n  'b': 2\n}", AnswerBlock)),
        ("triple-quoted string", O, "[ANSWER]\nassert f() == '''a\nb'''\n[/ANSWER]", Found("'''a\nb'''", AnswerBlock)),
        ("implicit concatenation over lines", O, "[ANSWER]\nassert f() == ('ab'\n 'cd')\n[/ANSWER]", Found("('ab'\n 'cd')", AnswerBlock)),
        // Only the indentation common to every line goes: a triple-quoted string keeps the rest.
        ("indented lines of a triple-quoted string", O, "[ANSWER]\nassert f() == '''a\n    b'''\n[/ANSWER]", Found("'''a\n    b'''", AnswerBlock)),
        ("an indented block loses its common indentation", O, "[ANSWER]\n    assert f() == '''a\n      b'''\n[/ANSWER]", Found("'''a\n  b'''", AnswerBlock)),
        ("tab-indented lone assertion", O, "Result:\n\tassert f() == \"\"\"x\n\ty\"\"\"", Found("\"\"\"x\ny\"\"\"", LoneAssertion)),
        ("triple-quoted string over four lines", O, "[ANSWER]\nassert f() == '''a\nb\n  c\nd'''\n[/ANSWER]", Found("'''a\nb\n  c\nd'''", AnswerBlock)),
        ("a blank line inside a string", O, "[ANSWER]\n  assert f() == '''a\n\n  b'''\n[/ANSWER]", Found("'''a\n\nb'''", AnswerBlock)),
        ("indented block holding only a string value", O, "[ANSWER]\n    '''a\n      b'''\n[/ANSWER]", Found("'''a\n  b'''", AnswerBlockValue)),
        ("less indented continuation line", O, "[ANSWER]\n    assert f() == [1,\n2]\n[/ANSWER]", Found("[1,\n2]", AnswerBlock)),
        // Markdown clean-up stops at string boundaries.
        ("a fence line inside a triple-quoted string", O, "[ANSWER]\nassert f() == '''x\n```\ny'''\n[/ANSWER]", Found("'''x\n```\ny'''", AnswerBlock)),
        ("a backticked line inside a string", O, "```python\nassert f() == \"\"\"a\n`b`\n\"\"\"\n```", Found("\"\"\"a\n`b`\n\"\"\"", LoneAssertion)),
        ("fences after a closed triple-quoted string", O, "```python\nassert f() == '''p\nq'''\n```\nDone.", Found("'''p\nq'''", LoneAssertion)),
        ("an apostrophe in prose does not hide a fence", O, "It's this:\n```python\nassert f(1) == \"it's\"\n```", Found("\"it's\"", LoneAssertion)),
        ("a quote in a comment does not open a string", O, "```python\nassert f(1) == 2  # don't ''' count\n```", Found("2", LoneAssertion)),
        // --- reasoning models
        ("think block before the answer", O, "<think>\nf(2)... maybe [ANSWER] assert f(2) == 5 [/ANSWER]? no.\n</think>\n[ANSWER]\nassert f(2) == 4\n[/ANSWER]", Found("4", AnswerBlock)),
        ("only a closing think tag", O, "reasoning here\n</think>\n\n[ANSWER]assert f(2) == 4[/ANSWER]", Found("4", AnswerBlock)),
        ("unfinished thinking", O, "<think>\nLet me trace. i = 0, then", Fails(ExtractFailure::UnfinishedThinking)),
        // --- no tags
        ("lone assertion line", O, "Running the code gives:\nassert f([3]) == [3, 3]\nThat is the answer.", Found("[3, 3]", LoneAssertion)),
        ("lone assertion in markdown fences", O, "Here you go:\n```python\nassert f(1) == {'a': 1}\n```", Found("{'a': 1}", LoneAssertion)),
        ("echoed prompt with ?? is skipped", O, "assert f(4) == ??\nSo:\nassert f(4) == 16", Found("16", LoneAssertion)),
        ("multi-line assertion without tags", O, "assert f() == [\n  'x',\n  'y'\n]", Found("[\n  'x',\n  'y'\n]", LoneAssertion)),
        ("bare literal on the last line", O, "The function reverses the list.\n[3, 2, 1]", Found("[3, 2, 1]", LastLine)),
        ("bare string in backticks on the last line", O, "The answer:\n`'abc'`", Found("'abc'", LastLine)),
        ("prose only", O, "The function returns the reversed list.", Fails(ExtractFailure::NothingFound)),
        ("a name is not a bare literal", O, "Answer:\nTrue_value", Fails(ExtractFailure::NothingFound)),
        ("empty response", O, "  \n ", Fails(ExtractFailure::EmptyResponse)),
        // --- failures inside blocks
        ("truncated inside the literal", O, "[ANSWER]\nassert f(9) == [1, 2, 3,", Fails(ExtractFailure::BlockWithoutAnswer)),
        ("block with prose only", O, "[ANSWER]\nThe output is a list of two items.\n[/ANSWER]", Fails(ExtractFailure::BlockWithoutAnswer)),
        ("placeholder left in", O, "[ANSWER]\nassert f(1) == ??\n[/ANSWER]", Fails(ExtractFailure::BlockWithoutAnswer)),
        ("assertion that is not an equality", O, "[ANSWER]\nassert f(1) != 2\n[/ANSWER]", Fails(ExtractFailure::NotAnEquality)),
        ("chained comparison", O, "[ANSWER]\nassert f(1) == 2 == 2\n[/ANSWER]", Fails(ExtractFailure::NotAnEquality)),
        ("truthiness assertion", O, "[ANSWER]\nassert f(1)\n[/ANSWER]", Fails(ExtractFailure::NotAnEquality)),
        // --- answers that are kept for the scorer to judge (extraction does not judge)
        ("an expression is extracted as given", O, "[ANSWER]\nassert f(1) == 1 + 1\n[/ANSWER]", Found("1 + 1", AnswerBlock)),
        ("the call hidden in the answer is extracted", O, "[ANSWER]\nassert f(1) == f(1)\n[/ANSWER]", Found("f(1)", AnswerBlock)),
        // --- input prediction
        ("input: the call on the left", I, "[ANSWER]\nassert f([1, 2], 3) == 6\n[/ANSWER]", Found("f([1, 2], 3)", AnswerBlock)),
        ("input: keyword arguments", I, "[ANSWER]\nassert f(nums=[1, 2], k=3) == 6\n[/ANSWER]", Found("f(nums=[1, 2], k=3)", AnswerBlock)),
        ("input: == inside an argument", I, "[ANSWER]\nassert f('a==b', '=') == ['a', '', 'b']\n[/ANSWER]", Found("f('a==b', '=')", AnswerBlock)),
        ("input: multi-line call", I, "[ANSWER]\nassert f(\n    'abc',\n    2,\n) == 'c'\n[/ANSWER]", Found("f(\n    'abc',\n    2,\n)", AnswerBlock)),
        ("input: block with only the call", I, "[ANSWER]\nf('xyz')\n[/ANSWER]", Found("f('xyz')", AnswerBlockValue)),
        ("input: lone assertion", I, "I need a string with two a's.\nassert f('aa') == 2", Found("f('aa')", LoneAssertion)),
        ("input: bare call on the last line", I, "Try this:\nf(\"hello\")", Found("f(\"hello\")", LastLine)),
        ("input: left side that is not a call is still extracted", I, "[ANSWER]\nassert 'abc' == 'abc'\n[/ANSWER]", Found("'abc'", AnswerBlock)),
        ("input: a bare literal is not a call", I, "The input is\n[1, 2, 3]", Fails(ExtractFailure::NothingFound)),
        ("input: unclosed block", I, "[THOUGHT] f reverses. [/THOUGHT]\n[ANSWER]\nassert f('cba') == 'abc'", Found("f('cba')", AnswerBlockUnclosed)),
    ]
}

#[test]
fn extraction_table() {
    let cases = cases();
    assert!(cases.len() >= 40, "the issue asks for at least 40 cases, there are {}", cases.len());
    let mut failures = Vec::new();
    for (name, task, response, want) in cases {
        let got = extract(response, task);
        let ok = match (&want, &got) {
            (Found(answer, rule), Extraction::Found { answer: a, rule: r }) => answer == a && rule == r,
            (Fails(failure), Extraction::Failed { failure: f, detail }) => failure == f && !detail.is_empty(),
            _ => false,
        };
        if !ok {
            failures.push(format!("{name}: got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{} extraction cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn failure_details_say_what_was_there() {
    let got = extract("[ANSWER]\nassert f(1) != 2\n[/ANSWER]", Task::Output);
    assert_eq!(
        got,
        Extraction::Failed {
            failure: ExtractFailure::NotAnEquality,
            detail: "the assertion `f(1) != 2` is not a single `==` comparison".into()
        }
    );
    let got = extract("[ANSWER]\nno idea\n[/ANSWER]", Task::Output);
    assert_eq!(
        got,
        Extraction::Failed {
            failure: ExtractFailure::BlockWithoutAnswer,
            detail: "the [ANSWER] block holds no assertion that parses: `no idea`".into()
        }
    );
}

#[test]
fn hostile_responses_do_not_crash() {
    let deep = format!("[ANSWER]\nassert f(1) == {}1{}\n[/ANSWER]", "[".repeat(50_000), "]".repeat(50_000));
    let many_asserts = "assert (\n".repeat(3000);
    let minus = format!("assert f(1) == {}1", "-".repeat(50_000));
    let nots = format!("[ANSWER]assert f(1) == {}1[/ANSWER]", "not ".repeat(20_000));
    let unicode = "[ANSWER]assert f('é') == 'ü' [/ANSWER] ☃ [ANSWER".to_string();
    for response in [deep, many_asserts, minus, nots, unicode] {
        let _ = extract(&response, Task::Output);
        let _ = extract(&response, Task::Input);
    }
}
