//! Which sample a prompt is about, and the answer the server gives to it.

use execbench_core::Sample;
use serde::{Deserialize, Serialize};

/// The two CRUXEval tasks, and a question about a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// `assert f(x) == ??`: predict the output.
    Output,
    /// `assert f(??) == y`: predict an input.
    Input,
    /// The question a questions file's row asks (`execbench_core::question`), answered with its
    /// `output`, the truth's own words.
    Question,
}

/// The token rule of every usage figure the server reports: one token per started group of four
/// characters (Unicode scalar values), `ceil(chars / 4)`; the empty text is 0 tokens.
pub fn token_count(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The answer to a prompt the server cannot tie to a sample.
pub const UNIDENTIFIED_ANSWER: &str = "[ANSWER]\nassert f() == None\n[/ANSWER]";

/// The answer to a connection test (a prompt containing [`CONNECTION_TEST_PHRASE`]).
pub const CONNECTION_TEST_ANSWER: &str = "OK";

/// What makes a prompt a connection test (compared ignoring ASCII case).
pub const CONNECTION_TEST_PHRASE: &str = "Reply with the word OK";

/// Whether `prompt` is a connection test.
pub fn is_connection_test(prompt: &str) -> bool {
    prompt.to_ascii_lowercase().contains(&CONNECTION_TEST_PHRASE.to_ascii_lowercase())
}

/// The answer text for `sample` on `task`, right or wrong on purpose:
///
/// | task | right | wrong |
/// |---|---|---|
/// | output | `[ANSWER]\nassert {call} == {output}\n[/ANSWER]` | the same with `None` in place of the output (`0` when the output is `None`) |
/// | input | `[ANSWER]\nassert {call} == {output}\n[/ANSWER]` (the sample's own call) | `[ANSWER]\nassert {function_name}() == {output}\n[/ANSWER]`, or `{function_name}(None)` when the sample's own call has no arguments |
/// | question | `[ANSWER]{output}[/ANSWER]` | the truth's well-formed wrong answer (`Truth::wrong_answer_text`: the other of yes and no, another line, `None` or `0`) |
///
/// The wrong input answer calls the function with no arguments (one argument when the function
/// takes none), so it raises `TypeError` and is surely wrong for every function with a required
/// parameter; it could only pass for a function whose parameters all have defaults (none in
/// CRUXEval).
pub fn answer_text(sample: &Sample, task: Task, right: bool) -> String {
    let output = sample.output.trim();
    if task == Task::Question {
        let answer = match execbench_core::question::Question::from_sample(sample) {
            Some(Ok(question)) if !right => question.truth.wrong_answer_text(),
            _ => output.to_owned(),
        };
        return format!("[ANSWER]{answer}[/ANSWER]");
    }
    let call = sample.call.trim();
    let assertion = match (task, right) {
        (_, true) => format!("assert {call} == {output}"),
        (Task::Output, false) => format!("assert {call} == {}", if output == "None" { "0" } else { "None" }),
        (Task::Input, false) if sample.input.trim().is_empty() => {
            format!("assert {}(None) == {output}", sample.function_name)
        }
        (Task::Input | Task::Question, false) => format!("assert {}() == {output}", sample.function_name),
    };
    format!("[ANSWER]\n{assertion}\n[/ANSWER]")
}

/// The loaded dataset, with what identification needs.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    samples: Vec<Sample>,
    /// Each sample's code without surrounding whitespace (what is searched for in prompts).
    codes: Vec<String>,
    /// The question rows' own prompts (a questions file keeps each in `prompt`), trimmed: a
    /// question's program is shown with numbered lines, so its code is not what is searched for.
    questions: Vec<(usize, String)>,
}

impl Dataset {
    pub fn new(samples: Vec<Sample>) -> Dataset {
        let codes = samples.iter().map(|s| s.code.trim().replace("\r\n", "\n")).collect();
        let questions = samples
            .iter()
            .enumerate()
            .filter(|(_, s)| execbench_core::question::is_question(s))
            .filter_map(|(i, s)| Some((i, s.meta.get("prompt")?.as_str()?.trim().replace("\r\n", "\n"))))
            .filter(|(_, prompt)| !prompt.is_empty())
            .collect();
        Dataset { samples, codes, questions }
    }

    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    pub fn get(&self, index: usize) -> Option<&Sample> {
        self.samples.get(index)
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The sample `prompt` (the text of all its messages) is about, and the task.
    ///
    /// The sample is the one whose code (trimmed) occurs in the prompt ending latest, so the
    /// few-shot programs before it do not count; of codes ending at the same place the longest
    /// wins; samples with the very same code are told apart by what follows the code: the
    /// sample's `{call} ==` first, then `== {output}` (as a whole value), then its input text;
    /// still tied, the first in the dataset.
    ///
    /// The task is input prediction when the text after the code holds `{function_name}(??)`;
    /// else output prediction when it holds the sample's call; else input prediction when the
    /// prompt holds `{function_name}(??)` anywhere; else output prediction.
    ///
    /// A question row is identified first, by its own prompt found whole in the text (the longest
    /// of those found).
    pub fn identify(&self, prompt: &str) -> Option<(usize, Task)> {
        let text = prompt.replace("\r\n", "\n");
        let question =
            self.questions.iter().filter(|(_, own)| text.contains(own.as_str())).max_by_key(|(_, own)| own.len());
        if let Some((index, _)) = question {
            return Some((*index, Task::Question));
        }
        // (end, length, tie score, index): the best is the largest end, then length, then score,
        // then the smallest index.
        let mut best: Option<(usize, usize, u8, usize)> = None;
        for (index, code) in self.codes.iter().enumerate() {
            if code.is_empty() {
                continue;
            }
            let Some(start) = text.rfind(code.as_str()) else { continue };
            let end = start + code.len();
            let better = match best {
                None => true,
                Some((b_end, b_len, _, _)) => (end, code.len()) > (b_end, b_len),
            };
            let same = best.is_some_and(|(b_end, b_len, _, _)| (end, code.len()) == (b_end, b_len));
            if better {
                best = Some((end, code.len(), self.tie_score(index, &text[end..]), index));
            } else if same {
                let score = self.tie_score(index, &text[end..]);
                if let Some(b) = best.as_mut()
                    && score > b.2
                {
                    *b = (end, code.len(), score, index);
                }
            }
        }
        let (end, _, _, index) = best?;
        let sample = &self.samples[index];
        let unknown = format!("{}(??)", sample.function_name);
        let after = &text[end..];
        let task = if after.contains(&unknown) {
            Task::Input
        } else if !sample.call.trim().is_empty() && after.contains(sample.call.trim()) {
            Task::Output
        } else if text.contains(&unknown) {
            Task::Input
        } else {
            Task::Output
        };
        Some((index, task))
    }

    /// How well what follows a sample's code (`after`) fits that sample, for telling apart
    /// samples with the same code.
    fn tie_score(&self, index: usize, after: &str) -> u8 {
        let sample = &self.samples[index];
        let call = sample.call.trim();
        if !call.is_empty() && (after.contains(&format!("{call} ==")) || after.contains(&format!("{call}=="))) {
            return 3;
        }
        let output = sample.output.trim();
        if !output.is_empty() && has_whole_value(after, &format!("== {output}")) {
            return 2;
        }
        let input = sample.input.trim();
        if !input.is_empty() && after.contains(input) {
            return 1;
        }
        0
    }
}

/// Whether `needle` occurs in `haystack` followed by the end, a line break or a space (so
/// `== 1` does not match `== 10`).
fn has_whole_value(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(at, _)| {
        let rest = &haystack[at + needle.len()..];
        rest.is_empty() || rest.starts_with(['\n', '\r', ' ', '\t'])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(id: &str, code: &str, input: &str, output: &str) -> Sample {
        Sample::new(id, code, "f", input, output)
    }

    fn dataset() -> Dataset {
        Dataset::new(vec![
            sample("s0", "def f(x):\n    return x + 1", "1", "2"),
            sample("s1", "def f(text):\n    return text.upper()", "'ab'", "'AB'"),
            // The same code as s1 with another input.
            sample("s2", "def f(text):\n    return text.upper()", "'cd'", "'CD'"),
            // s0's code is a prefix of s3's.
            sample("s3", "def f(x):\n    return x + 1\n\ndef g():\n    return 0", "5", "6"),
            sample("s4", "def f():\n    return 10", "", "10"),
            sample("s5", "def f(a):\n    return a * 0 + 1", "3", "1"),
            sample("s6", "def f(a):\n    return a * 0 + 1", "4", "1"),
            sample("s7", "def f(n):\n    return n", "10", "10"),
            sample("s8", "def f(n):\n    return n", "1", "1"),
        ])
    }

    fn output_prompt(few_shot: &str, s: &Sample) -> String {
        format!(
            "Complete the assertion.\n\n[PYTHON]\n{few_shot}\nassert f(3) == ??\n[/PYTHON]\n[ANSWER]\nassert f(3) == 4\n[/ANSWER]\n\n[PYTHON]\n{}\nassert {} == ??\n[/PYTHON]\n[ANSWER]",
            s.code, s.call
        )
    }

    fn input_prompt(few_shot: &str, s: &Sample) -> String {
        format!(
            "Find an input.\n\n[PYTHON]\n{few_shot}\nassert f(??) == 4\n[/PYTHON]\n[ANSWER]\nassert f(3) == 4\n[/ANSWER]\n\n[PYTHON]\n{}\nassert {}(??) == {}\n[/PYTHON]\n[THOUGHT]",
            s.code, s.function_name, s.output
        )
    }

    /// (prompt, expected): few-shot programs that are themselves dataset samples come first and
    /// do not count.
    #[test]
    fn identifies_the_last_program_and_the_task() {
        let data = dataset();
        let s = |i: usize| data.get(i).unwrap().clone();
        let cases: Vec<(String, Option<(usize, Task)>)> = vec![
            (output_prompt("def f(x):\n    return x + 1", &s(1)), Some((1, Task::Output))),
            (output_prompt("def f(text):\n    return text.upper()", &s(0)), Some((0, Task::Output))),
            (input_prompt("def f(x):\n    return x + 1", &s(1)), Some((1, Task::Input))),
            (output_prompt("def h(): pass", &s(2)), Some((2, Task::Output))),
            (input_prompt("def h(): pass", &s(2)), Some((2, Task::Input))),
            (output_prompt("def f(text):\n    return text.upper()", &s(3)), Some((3, Task::Output))),
            (output_prompt("def h(): pass", &s(4)), Some((4, Task::Output))),
            (input_prompt("def h(): pass", &s(4)), Some((4, Task::Input))),
            // Same code and output: the input decides for output prediction...
            (output_prompt("def h(): pass", &s(6)), Some((6, Task::Output))),
            // ... and for input prediction the first one wins (both answers are right).
            (input_prompt("def h(): pass", &s(6)), Some((5, Task::Input))),
            // `== 1` is not `== 10`.
            (input_prompt("def h(): pass", &s(8)), Some((8, Task::Input))),
            (input_prompt("def h(): pass", &s(7)), Some((7, Task::Input))),
            (output_prompt("def h(): pass", &s(8)), Some((8, Task::Output))),
            ("Reply with the word OK.".into(), None),
            ("[PYTHON]\ndef f(y):\n    return y\nassert f(1) == ??\n[/PYTHON]".into(), None),
            // CRLF line ends in the prompt.
            (output_prompt("def h(): pass", &s(0)).replace('\n', "\r\n"), Some((0, Task::Output))),
            // The assertion before the program.
            (format!("Given `assert f(??) == 'AB'` and\n{}\nfind the input.", s(1).code), Some((1, Task::Input))),
            (format!("{}\n\nWhat does f('ab') return?", s(1).code), Some((1, Task::Output))),
        ];
        for (i, (prompt, expected)) in cases.iter().enumerate() {
            assert_eq!(data.identify(prompt), *expected, "case {i}: {prompt}");
        }
    }

    /// (task, right, sample index, answer)
    #[test]
    fn answer_texts() {
        let data = dataset();
        let cases = [
            (Task::Output, true, 1, "[ANSWER]\nassert f('ab') == 'AB'\n[/ANSWER]"),
            (Task::Output, false, 1, "[ANSWER]\nassert f('ab') == None\n[/ANSWER]"),
            (Task::Input, true, 1, "[ANSWER]\nassert f('ab') == 'AB'\n[/ANSWER]"),
            (Task::Input, false, 1, "[ANSWER]\nassert f() == 'AB'\n[/ANSWER]"),
            (Task::Input, false, 4, "[ANSWER]\nassert f(None) == 10\n[/ANSWER]"),
            (Task::Input, true, 4, "[ANSWER]\nassert f() == 10\n[/ANSWER]"),
        ];
        for (task, right, index, want) in cases {
            assert_eq!(answer_text(data.get(index).unwrap(), task, right), want);
        }
        let none = sample("n", "def f(x):\n    pass", "1", "None");
        assert_eq!(answer_text(&none, Task::Output, false), "[ANSWER]\nassert f(1) == 0\n[/ANSWER]");
    }

    /// Two questions on one program (one's prompt a prefix of nothing else): each is found by
    /// its own prompt, never by its code, and answered with its truth or a wrong one.
    #[test]
    fn a_question_row_is_found_by_its_prompt() {
        use execbench_core::question::{Question, QuestionKind, Source, Truth};
        let ask = |n: u32, kind, truth| {
            let q = Question {
                id: format!("s0/{n}"),
                kind,
                code: "def f(x):\n    y = x\n    return y".into(),
                call: "f(1)".into(),
                line: Some(2),
                variable: (kind == QuestionKind::State).then(|| "y".to_owned()),
                visit: Some(1),
                truth,
                source: Source { sample: "s0".into(), dataset: String::new(), seed: 0 },
            };
            let mut sample = q.to_sample();
            sample.meta.insert("prompt".into(), format!("1  def f(x):\n...\nQuestion {n} about line 2").into());
            sample
        };
        let mut samples = dataset().samples().to_vec();
        samples.push(ask(1, QuestionKind::Coverage, Truth::Runs { runs: true }));
        samples.push(ask(2, QuestionKind::State, Truth::Value { repr: "1".into(), type_name: "int".into() }));
        let data = Dataset::new(samples);
        let asked = |n: u32| format!("Intro.\n\n1  def f(x):\n...\nQuestion {n} about line 2\n");
        assert_eq!(data.identify(&asked(1)), Some((9, Task::Question)));
        assert_eq!(data.identify(&asked(2)), Some((10, Task::Question)));
        assert_eq!(data.identify(&asked(3)), None, "a question no row asks");
        let cases = [
            (9, true, "[ANSWER]yes[/ANSWER]"),
            (9, false, "[ANSWER]no[/ANSWER]"),
            (10, true, "[ANSWER]1[/ANSWER]"),
            (10, false, "[ANSWER]None[/ANSWER]"),
        ];
        for (index, right, want) in cases {
            assert_eq!(answer_text(data.get(index).unwrap(), Task::Question, right), want);
        }
    }

    #[test]
    fn token_rule() {
        let cases = [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("ééééé", 2), ("OK", 1)];
        for (text, tokens) in cases {
            assert_eq!(token_count(text), tokens, "{text:?}");
        }
        assert!(is_connection_test("Reply with the word OK."));
        assert!(is_connection_test("reply with the word ok"));
        assert!(!is_connection_test("Reply OK"));
    }
}
