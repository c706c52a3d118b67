//! Verification: the perturbed program, run with its call, must give the original's result.
//! Printed output is captured by the engine and not compared.

use std::fmt;

use execbench_core::{Convention, Limits, Outcome, PythonEngine, RunRequest, Sample};
use serde::{Deserialize, Serialize};

use execbench_core::sample::OutputKind;
use execbench_literal::parse_literal;

use crate::distance::levenshtein;
use crate::kinds::hint::{hint_request, hint_verdict, replace_hint};
use crate::wrong_answer_sources::far_first;
use crate::{Hint, Perturbed, Prediction, Program};

/// Why a perturbed program failed verification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "failure", rename_all = "snake_case")]
pub enum VerifyFailure {
    /// It returned something else.
    Mismatch {
        expected: String,
        actual: String,
    },
    /// It raised. `phase`: `program`, `expression` or `expected`.
    Raised {
        kind: String,
        message: String,
        phase: String,
    },
    TimedOut {
        limit_ms: u32,
    },
    StepLimit {
        steps: u64,
    },
    /// The engine failed.
    Crashed {
        reason: String,
    },
    /// MHC: the hint's claimed answer is in fact right, or could not be evaluated.
    HintNotWrong {
        claimed: String,
        reason: String,
    },
}

impl fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyFailure::Mismatch { expected, actual } => write!(f, "returned {actual}, expected {expected}"),
            VerifyFailure::Raised { kind, message, phase } => write!(f, "raised {kind}: {message} (in the {phase})"),
            VerifyFailure::TimedOut { limit_ms } => {
                write!(f, "timed out after {}", execbench_core::engine::seconds(*limit_ms))
            }
            VerifyFailure::StepLimit { steps } => write!(f, "stopped after {steps} steps (step limit)"),
            VerifyFailure::Crashed { reason } => write!(f, "engine failure: {reason}"),
            VerifyFailure::HintNotWrong { claimed, reason } => {
                write!(f, "the hint's answer {claimed} is not wrong: {reason}")
            }
        }
    }
}

fn failure_of(outcome: Outcome, expected: &str) -> VerifyFailure {
    match outcome {
        Outcome::Value { repr, .. } => VerifyFailure::Mismatch { expected: expected.to_string(), actual: repr },
        Outcome::Raised { kind, message, phase, .. } => VerifyFailure::Raised { kind, message, phase },
        Outcome::TimedOut { limit_ms } => VerifyFailure::TimedOut { limit_ms },
        Outcome::StepLimit { steps } => VerifyFailure::StepLimit { steps },
        Outcome::Crashed { reason } => VerifyFailure::Crashed { reason },
    }
}

/// Runs the perturbed code and call and compares with `original.output` (Python `==`). When the
/// engine does not reproduce the original's expected output either (a known engine difference,
/// such as RustPython's set order), the perturbed result must equal the original program's result
/// in the same engine instead. For MHC, the hint's answer must also be shown wrong, first: when it
/// is not, the hint is placed again with the next alternative (see [`Verification`]). Returns the
/// program that passed, which is `perturbed` unless MHC's hint changed.
pub fn verify(
    engine: &mut dyn PythonEngine,
    original: &Sample,
    perturbed: &Perturbed,
    limits: Limits,
) -> Result<Perturbed, VerifyFailure> {
    let (mut verification, mut step) = Verification::start(original, perturbed, limits);
    loop {
        match step {
            Step::Run(request) => step = verification.answer(engine.run(&request).outcome),
            Step::Done(verdict) => return verdict.map(|()| verification.into_perturbed()),
        }
    }
}

/// The most time a claim's run gets, in milliseconds.
const CLAIM_TIME_MS: u32 = 1_000;

/// What [`Verification`] needs next: one more run, or nothing (the verdict).
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Run(RunRequest),
    Done(Result<(), VerifyFailure>),
}

/// [`verify`] one run at a time, for callers that run Python asynchronously (the page's worker):
/// `start` gives the first request, each `answer` takes that run's outcome and gives the next step;
/// after `Done(Ok(()))`, [`Verification::perturbed`] is the program that passed.
///
/// For MHC, output prediction, the hint's probes run first (at most a second each): the function
/// called on a nearby input. A value it returns there that differs from the true output and reads
/// as a one-line literal becomes a claim; probing stops at the first such value at edit distance 2
/// or more from the truth. The claims are then the probes' values and the source's proposals (the
/// one `perturb` placed, then `Hint::alternatives`), stably reordered so that those at distance
/// 2 or more come first ([`crate::wrong_answer_sources::far_first`]).
///
/// Then the claims, one run each (at most a second), until one is shown wrong; a claim other than
/// the placed one is re-placed on the original program. For input prediction a claimed call that raises is wrong as well, but
/// taken only when no claim returns another value. Only then the perturbed program runs, so the
/// exported code is exactly the code that was executed.
#[derive(Clone, Debug)]
pub struct Verification {
    original: Program,
    /// How the sample's code runs (LeetCode's prelude, `class Solution`): perturbed copies run the same way.
    convention: Convention,
    expected_output: String,
    perturbed: Perturbed,
    limits: Limits,
    /// MHC: the claims to check, in order (the probes' values, once known, among them).
    claims: Vec<String>,
    /// MHC: the probes' claimable values and the probe (argument text) that gave each.
    probed: Vec<(String, String)>,
    waiting_for: Waiting,
}

#[derive(Clone, Debug)]
enum Waiting {
    /// MHC, output prediction: the function's run on probe number `index`; `found`: the values
    /// earlier probes returned that can be claimed.
    Probe {
        index: usize,
        found: Vec<String>,
    },
    /// MHC: the run that shows claim number `index` (0: the placed one) wrong. `first_reason`: why
    /// the first claim was not; `first_raising`: the first claimed call that raised (input
    /// prediction's last resort).
    Hint {
        index: usize,
        first_reason: Option<String>,
        first_raising: Option<usize>,
    },
    /// The perturbed program's run.
    Perturbed,
    /// The original program's run in this engine, to compare with the perturbed program's `repr`.
    Baseline {
        perturbed_repr: String,
    },
    Finished,
}

impl Verification {
    pub fn start(original: &Sample, perturbed: &Perturbed, limits: Limits) -> (Verification, Step) {
        let mut verification = Verification {
            original: Program {
                code: original.code.clone(),
                call: original.call.clone(),
                function_name: original.function_name.clone(),
            },
            convention: Convention::of(original),
            expected_output: original.output.clone(),
            perturbed: perturbed.clone(),
            limits,
            probed: Vec::new(),
            claims: perturbed
                .hint
                .iter()
                .flat_map(|h| std::iter::once(h.claimed.clone()).chain(h.alternatives.iter().cloned()))
                .collect(),
            waiting_for: Waiting::Finished,
        };
        let step = match &perturbed.hint {
            Some(hint) if hint.prediction == Prediction::Output && !hint.probes.is_empty() => {
                verification.ask_probe(0, Vec::new())
            }
            Some(_) => verification.ask_claim(0, None, None),
            None => verification.run_perturbed(),
        };
        (verification, step)
    }

    /// The program being verified; after `Done(Ok(()))`, the one that passed.
    pub fn perturbed(&self) -> &Perturbed {
        &self.perturbed
    }

    pub fn into_perturbed(self) -> Perturbed {
        self.perturbed
    }

    /// Whether the request of the last `Step::Run` is the perturbed program's own run (the page
    /// shows that one next to the original's).
    pub fn running_perturbed(&self) -> bool {
        matches!(self.waiting_for, Waiting::Perturbed)
    }

    /// The outcome of the request the last step asked for.
    pub fn answer(&mut self, outcome: Outcome) -> Step {
        match std::mem::replace(&mut self.waiting_for, Waiting::Finished) {
            Waiting::Probe { index, mut found } => {
                if let Outcome::Value { repr, matches: Some(false) } = outcome
                    && self.claimable(&repr)
                    && !found.contains(&repr)
                {
                    let probe =
                        self.perturbed.hint.as_ref().and_then(|h| h.probes.get(index)).cloned().unwrap_or_default();
                    self.probed.push((repr.clone(), probe));
                    found.push(repr);
                }
                let far = found.iter().any(|c| levenshtein(c, self.expected_output.trim()) >= 2);
                let probes = self.perturbed.hint.as_ref().map_or(0, |h| h.probes.len());
                if far || index + 1 >= probes {
                    let source =
                        std::mem::take(&mut self.claims).into_iter().filter(|c| !found.contains(c)).collect::<Vec<_>>();
                    self.claims = far_first([found, source].concat(), self.expected_output.trim(), &[]);
                    self.ask_claim(0, None, None)
                } else {
                    self.ask_probe(index + 1, found)
                }
            }
            Waiting::Hint { index, first_reason, first_raising } => {
                // A claimed call that raises is wrong too (it gives no output at all), but a claim
                // that returns something else is the more plausible lie: it is kept for last.
                let raised = matches!(&outcome, Outcome::Raised { phase, .. } if phase == "expression");
                let input = self.perturbed.hint.as_ref().is_some_and(|h| h.prediction == Prediction::Input);
                let first_raising = first_raising.or((raised && input).then_some(index));
                match hint_verdict(outcome) {
                    Ok(true) => self.claim_is_wrong(index),
                    Ok(false) => self.ask_claim(
                        index + 1,
                        first_reason.or_else(|| Some("it equals the true answer".to_string())),
                        first_raising,
                    ),
                    Err(reason) => self.ask_claim(index + 1, first_reason.or(Some(reason)), first_raising),
                }
            }
            Waiting::Perturbed => match outcome {
                Outcome::Value { matches: Some(true), .. } => Step::Done(Ok(())),
                Outcome::Value { repr, .. } => {
                    self.waiting_for = Waiting::Baseline { perturbed_repr: repr };
                    Step::Run(
                        self.convention
                            .request(&self.original.code, &self.original.function_name, self.original.call.clone())
                            .with_limits(self.limits),
                    )
                }
                other => Step::Done(Err(failure_of(other, &self.expected_output))),
            },
            Waiting::Baseline { perturbed_repr } => match outcome {
                Outcome::Value { repr, .. } if repr == perturbed_repr => Step::Done(Ok(())),
                _ => Step::Done(Err(VerifyFailure::Mismatch {
                    expected: self.expected_output.clone(),
                    actual: perturbed_repr,
                })),
            },
            Waiting::Finished => {
                Step::Done(Err(VerifyFailure::Crashed { reason: "an answer came after the verdict".to_string() }))
            }
        }
    }

    fn claims(&self) -> Vec<&str> {
        self.claims.iter().map(String::as_str).collect()
    }

    /// Runs the function on probe `index`.
    fn ask_probe(&mut self, index: usize, found: Vec<String>) -> Step {
        let Some(hint) = &self.perturbed.hint else { return self.run_perturbed() };
        let Some(probe) = hint.probes.get(index) else { return self.ask_claim(0, None, None) };
        let limits = Limits { time_ms: self.limits.time_ms.min(CLAIM_TIME_MS), ..self.limits };
        let request =
            hint_request(&self.original, self.convention, &self.expected_output, Prediction::Input, probe, limits);
        self.waiting_for = Waiting::Probe { index, found };
        Step::Run(request)
    }

    /// Whether a value a probe returned can be a claim: one line, a literal (not `<object at ...>`,
    /// not `inf`), of the true output's type and not much longer than it, so it stays plausible.
    fn claimable(&self, repr: &str) -> bool {
        let truth = self.expected_output.trim();
        let longest = (truth.len() * 2).max(truth.len() + 20);
        !repr.contains('\n')
            && !repr.contains('\r')
            && repr.len() <= longest
            && parse_literal(repr).is_ok_and(|value| OutputKind::of_value(&value) == OutputKind::of_literal(truth))
    }

    /// Asks about claim `index`; when there is none left, takes the first call that raised or
    /// gives up.
    fn ask_claim(&mut self, index: usize, first_reason: Option<String>, first_raising: Option<usize>) -> Step {
        let claims = self.claims();
        let Some(hint) = &self.perturbed.hint else { return self.run_perturbed() };
        match claims.get(index) {
            Some(claim) => {
                // A claim needs no long run to be disproved: one that takes longer (a loop that
                // never ends on the claimed input) is skipped rather than waited for.
                let limits = Limits { time_ms: self.limits.time_ms.min(CLAIM_TIME_MS), ..self.limits };
                let request = hint_request(
                    &self.original,
                    self.convention,
                    &self.expected_output,
                    hint.prediction,
                    claim,
                    limits,
                );
                self.waiting_for = Waiting::Hint { index, first_reason, first_raising };
                Step::Run(request)
            }
            None => {
                if let Some(raising) = first_raising {
                    return self.claim_is_wrong(raising);
                }
                let reason = first_reason.unwrap_or_else(|| "no answer was proposed".to_string());
                let reason = match claims.len() {
                    0 | 1 => reason,
                    2 => format!("{reason}; the other proposed answer is not wrong either"),
                    n => format!("{reason}; none of the {} other proposed answers is wrong either", n - 1),
                };
                Step::Done(Err(VerifyFailure::HintNotWrong {
                    claimed: claims.first().map_or_else(String::new, |c| c.to_string()),
                    reason,
                }))
            }
        }
    }

    /// Claim `index` is wrong, as a hint should be: place it (unless it is the placed one) and run
    /// the program.
    fn claim_is_wrong(&mut self, index: usize) -> Step {
        let Some(hint) = self.perturbed.hint.clone() else { return self.run_perturbed() };
        let claimed = self.claims[index].clone();
        if claimed != hint.claimed {
            match replace_hint(&self.original, hint.prediction, &claimed) {
                Ok((program, edits)) => {
                    let alternatives = self.claims[index + 1..].to_vec();
                    self.perturbed = Perturbed {
                        code: program.code,
                        call: program.call,
                        function_name: program.function_name,
                        edits,
                        hint: Some(Hint {
                            prediction: hint.prediction,
                            claimed,
                            alternatives,
                            probes: hint.probes,
                            probed: None,
                        }),
                    };
                }
                Err(e) => {
                    return Step::Done(Err(VerifyFailure::HintNotWrong {
                        claimed,
                        reason: format!("it could not be placed: {e}"),
                    }));
                }
            }
        }
        // Said whether the claim is a value the function really returns (on that probe).
        if let Some(placed) = self.perturbed.hint.as_mut() {
            placed.probed =
                self.probed.iter().find(|(value, _)| *value == placed.claimed).map(|(_, probe)| probe.clone());
        }
        self.run_perturbed()
    }

    fn run_perturbed(&mut self) -> Step {
        self.waiting_for = Waiting::Perturbed;
        let request = self
            .convention
            .request(&self.perturbed.code, &self.perturbed.function_name, self.perturbed.call.clone())
            .expecting(self.expected_output.clone())
            .with_limits(self.limits);
        Step::Run(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::wrong_answer_sources::{WrongAnswerRequest, WrongAnswerSource};
    use crate::{Kind, Options, Prediction, perturb_with_source};

    /// A source that proposes fixed answers, as a model might.
    struct Fixed(Vec<&'static str>);

    impl WrongAnswerSource for Fixed {
        fn candidates(&mut self, _: &WrongAnswerRequest, _: &mut Rng) -> Result<Vec<String>, String> {
            Ok(self.0.iter().map(|s| s.to_string()).collect())
        }
    }

    fn sample() -> Sample {
        execbench_core::load_jsonl(
            "d",
            r#"{"id": "s", "code": "def f(a):\n    return a - 1", "input": "2", "output": "1"}"#,
        )
        .samples
        .remove(0)
    }

    fn value(matches: bool) -> Outcome {
        Outcome::Value { repr: String::new(), matches: Some(matches) }
    }

    /// A claim that only Python's `==` equates with the answer (`True == 1`) survives perturbing;
    /// verification shows it right, moves to the next claim and re-places the hint before running
    /// the program, so the code that passes is the code that was run.
    #[test]
    fn a_claim_that_is_right_after_all_gives_way_to_the_next() {
        let perturbed =
            perturb_with_source(&sample(), Kind::Mhc, &Options::default(), &mut Fixed(vec!["1", "True", "'x'", "5"]))
                .unwrap();
        let hint = perturbed.hint.clone().unwrap();
        // The literal equal to the answer is never proposed.
        assert_eq!(
            (hint.claimed.as_str(), hint.alternatives.clone()),
            ("True", vec!["'x'".to_string(), "5".to_string()])
        );
        let (mut verification, step) = Verification::start(&sample(), &perturbed, Limits::default());
        let asked = |step: &Step| match step {
            Step::Run(r) => (r.program.clone(), r.expression.clone()),
            Step::Done(v) => panic!("done early: {v:?}"),
        };
        assert_eq!(asked(&step), (String::new(), "True".to_string()));
        assert!(!verification.running_perturbed());
        let step = verification.answer(value(true)); // True == 1: not wrong
        assert_eq!(asked(&step).1, "'x'");
        let step = verification.answer(Outcome::Raised {
            kind: "SyntaxError".into(),
            message: String::new(),
            traceback: String::new(),
            phase: "expression".into(),
        });
        assert_eq!(asked(&step).1, "5");
        let step = verification.answer(value(false)); // 5 != 1: a real lie
        let (code, call) = asked(&step);
        assert!(verification.running_perturbed());
        assert_eq!((code.as_str(), call.as_str()), ("def f(a):\n    return a - 1  # The return value is 5", "f(2)"));
        assert_eq!(verification.answer(value(true)), Step::Done(Ok(())));
        let passed = verification.into_perturbed();
        assert_eq!(passed.code, code);
        assert_eq!(passed.hint.as_ref().map(|h| h.claimed.as_str()), Some("5"));
        assert_eq!(passed.edits.len(), 1);
        assert_eq!(passed.edits[0].after, "  # The return value is 5");
    }

    #[test]
    fn no_wrong_claim_fails_with_the_reasons() {
        let options = Options { prediction: Prediction::Input, ..Options::default() };
        let perturbed = perturb_with_source(&sample(), Kind::Mhc, &options, &mut Fixed(vec!["2", "a=2"])).unwrap();
        assert!(perturbed.code.starts_with("def f(a):  # The function call is f(2)\n"), "{}", perturbed.code);
        let (mut verification, _) = Verification::start(&sample(), &perturbed, Limits::default());
        verification.answer(value(true));
        let verdict = verification.answer(value(true));
        let Step::Done(Err(failure)) = verdict else { panic!("{verdict:?}") };
        assert_eq!(
            failure.to_string(),
            "the hint's answer 2 is not wrong: it equals the true answer; the other proposed answer is not wrong either"
        );
        // An answer after the verdict is refused, not acted on.
        assert!(matches!(verification.answer(value(false)), Step::Done(Err(VerifyFailure::Crashed { .. }))));
    }

    /// Input prediction: a claimed call that raises is wrong, but taken only when no claim returns
    /// another value; output prediction never takes a claim that does not evaluate.
    #[test]
    fn a_raising_call_is_the_last_resort() {
        let raised = || Outcome::Raised {
            kind: "TypeError".into(),
            message: String::new(),
            traceback: String::new(),
            phase: "expression".into(),
        };
        let options = Options { prediction: Prediction::Input, ..Options::default() };
        let perturbed =
            perturb_with_source(&sample(), Kind::Mhc, &options, &mut Fixed(vec!["'x'", "2", "None"])).unwrap();
        let (mut verification, _) = Verification::start(&sample(), &perturbed, Limits::default());
        verification.answer(raised()); // f('x')
        verification.answer(value(true)); // f(2) is the real call
        let step = verification.answer(raised()); // f(None)
        assert!(verification.running_perturbed(), "{step:?}");
        let Step::Run(request) = step else { panic!() };
        assert!(request.program.starts_with("def f(a):  # The function call is f('x')\n"), "{}", request.program);
        // A claim's run is cut short after a second; the program's own run keeps the limit.
        assert_eq!(request.limits.time_ms, 2_000);
        assert_eq!(verification.answer(value(true)), Step::Done(Ok(())));

        let perturbed =
            perturb_with_source(&sample(), Kind::Mhc, &Options::default(), &mut Fixed(vec!["[1", "2"])).unwrap();
        let (mut verification, step) =
            Verification::start(&sample(), &perturbed, Limits { time_ms: 5_000, max_steps: 0 });
        assert!(matches!(step, Step::Run(RunRequest { limits: Limits { time_ms: 1_000, .. }, .. })));
        verification.answer(raised());
        let verdict = verification.answer(value(true));
        assert!(matches!(verdict, Step::Done(Err(VerifyFailure::HintNotWrong { .. }))), "{verdict:?}");
    }

    /// A source with probes, as the offline one is for output prediction.
    struct Probing(Vec<&'static str>, Vec<&'static str>);

    impl WrongAnswerSource for Probing {
        fn candidates(&mut self, _: &WrongAnswerRequest, _: &mut Rng) -> Result<Vec<String>, String> {
            Ok(self.0.iter().map(|s| s.to_string()).collect())
        }
        fn probes(&mut self, _: &WrongAnswerRequest, _: &mut Rng) -> Vec<String> {
            self.1.iter().map(|s| s.to_string()).collect()
        }
    }

    /// Output prediction: the function runs on the probes first; what it returns there is claimed
    /// before the source's literals when it is a usable literal of the output's type, and probing
    /// stops at the first value two or more edits from the truth. Claims far from the truth come
    /// first, the ones within one edit last.
    #[test]
    fn probed_values_are_claimed_first() {
        let returned = |repr: &str, matches: bool| Outcome::Value { repr: repr.to_string(), matches: Some(matches) };
        let perturbed = perturb_with_source(
            &sample(),
            Kind::Mhc,
            &Options::default(),
            &mut Probing(vec!["3", "25"], vec!["5", "6", "8", "7", "9", "10"]),
        )
        .unwrap();
        assert_eq!(perturbed.hint.as_ref().map(|h| h.claimed.as_str()), Some("3"));
        let (mut verification, step) = Verification::start(&sample(), &perturbed, Limits::default());
        let expression = |step: &Step| match step {
            Step::Run(r) => r.expression.clone(),
            Step::Done(v) => panic!("done early: {v:?}"),
        };
        assert_eq!(expression(&step), "f(5)");
        // (what the probe returned, the next expression asked): unusable values are passed over.
        let probes: &[(Outcome, &str)] = &[
            (returned("4", false), "f(6)"),               // usable, but one edit from `1`: go on
            (returned("1", true), "f(8)"),                // the true output
            (returned("'x'", false), "f(7)"),             // another type
            (returned("<object at 0x1>", false), "f(9)"), // not a literal
            (returned("40", false), "40"),                // far: probing stops, claims start
        ];
        for (outcome, next) in probes {
            let step = verification.answer(outcome.clone());
            assert_eq!(expression(&step), *next);
        }
        assert_eq!(verification.claims(), ["40", "25", "4", "3"]);
        let step = verification.answer(value(false));
        let Step::Run(request) = step else { panic!("{step:?}") };
        assert_eq!(request.program, "def f(a):\n    return a - 1  # The return value is 40");
        assert_eq!(verification.answer(value(true)), Step::Done(Ok(())));
        let hint = verification.into_perturbed().hint.unwrap();
        assert_eq!(
            (hint.claimed.as_str(), hint.alternatives),
            ("40", vec!["25".to_string(), "4".to_string(), "3".to_string()])
        );
        assert_eq!(hint.probed.as_deref(), Some("9"), "the claim is what f(9) returns");

        // Input prediction never probes.
        let options = Options { prediction: Prediction::Input, ..Options::default() };
        let perturbed =
            perturb_with_source(&sample(), Kind::Mhc, &options, &mut Probing(vec!["3"], vec!["5"])).unwrap();
        assert!(perturbed.hint.as_ref().unwrap().probes.is_empty());
        let (_, step) = Verification::start(&sample(), &perturbed, Limits::default());
        assert_eq!(expression(&step), "f(3)");
    }

    #[test]
    fn a_source_with_nothing_usable_is_a_refusal() {
        let error = perturb_with_source(&sample(), Kind::Mhc, &Options::default(), &mut Fixed(vec!["1", " 1 ", "1\n"]))
            .unwrap_err();
        assert_eq!(error.to_string(), "unsupported: MHC: every proposed answer equals the true one");
    }
}
