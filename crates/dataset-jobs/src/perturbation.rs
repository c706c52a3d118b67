//! Perturbing a whole dataset (kinds × seeds) and verifying every result by execution, with an
//! asynchronous Python: the page's Perturb job. Rows, failures and unchanged programs are those of
//! `execbench_perturb::perturb_dataset` with an engine; on top come per-kind counts and timings,
//! progress and Stop. Perturbing is CPU work on the caller's thread, so it runs in slices of
//! [`SLICE_MS`] with the thread handed back in between (`Clock::sleep(0)`).

use std::collections::BTreeMap;

use execbench_core::{Limits, Outcome, RunResult, Sample};
use execbench_perturb::normalise::{normalised_as_perturbed, normalised_sample, unparse_request};
use execbench_perturb::{
    ExportRow, Failure, FileWrongAnswers, Kind, OfflineWrongAnswers, Options, Parsed, PerturbError, Perturbed, Profile,
    Stage, Step, Verification, VerifyFailure, perturb_parsed, row_of, unchanged,
};
use futures::StreamExt;

use execbench_io::cancel::CancelToken;
use execbench_io::stoppable::{Next, next_or_stopped};
use execbench_io::{Clock, Python};

/// Perturbing hands the thread back at least this often, in milliseconds.
pub const SLICE_MS: f64 = 12.0;

/// What to perturb and verify.
#[derive(Clone, Copy, Debug)]
pub struct PerturbPlan<'a> {
    pub samples: &'a [Sample],
    /// The export's `dataset` column.
    pub dataset: &'a str,
    pub kinds: &'a [Kind],
    pub seeds: &'a [u64],
    /// Shared by every seed; its own `seed` is not used.
    pub options: Options,
    /// Limits of each verification run.
    pub limits: Limits,
    /// MHC's wrong answers from elsewhere (a model's, a file's), tried before the offline
    /// proposals; `None`: offline only.
    pub claims: Option<&'a FileWrongAnswers>,
}

impl PerturbPlan<'_> {
    /// Programs in the whole job: samples × kinds × the seeds that matter to each kind (REN takes
    /// one: every seed gives it the same rows).
    pub fn total(&self) -> usize {
        self.samples.len() * self.kinds.iter().map(|k| k.seeds_that_matter(self.seeds).len()).sum::<usize>()
    }
}

/// Counts and timings for one kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindCounts {
    pub programs: usize,
    pub verified: usize,
    pub failed_verification: usize,
    /// The perturbation declined the program (unsupported construct, invalid input).
    pub refused: usize,
    /// Verified and exported as it was: the kind found nothing to change (RTF without conditions).
    pub unchanged: usize,
    /// Time spent perturbing (summed over timed slices, no waiting).
    pub perturb_ms: f64,
    /// Wall-clock time spent verifying (runs and their round trips).
    pub verify_ms: f64,
}

/// What a run has found so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerturbTally {
    /// Every kind of the job, from the start.
    pub counts: BTreeMap<Kind, KindCounts>,
    /// Verified rows, in (kind, seed, sample) order like `perturb_dataset`'s.
    pub rows: Vec<ExportRow>,
    /// Refused and failed programs, in the same order.
    pub failures: Vec<Failure>,
    /// Programs finished: verified, failed or refused.
    pub done: usize,
    /// The codecrash profile's first step: the programs normalised by `ast.unparse`.
    pub normalised: Option<Normalised>,
}

/// How normalising went so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Normalised {
    pub done: usize,
    /// Programs whose text `ast.unparse` changed.
    pub changed: usize,
    /// Programs that could not be normalised (not parsed, or the result failed verification),
    /// with why; they are not perturbed.
    pub failed: Vec<(String, String)>,
}

impl PerturbTally {
    fn kind(&mut self, kind: Kind) -> &mut KindCounts {
        self.counts.entry(kind).or_default()
    }
}

/// A run, whole or stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerturbOutcome {
    pub tally: PerturbTally,
    /// Stop came before the last program's verdict.
    pub stopped: bool,
    /// The codecrash profile: the samples as normalised (those that could be), CodeCrash's
    /// vanilla baseline; empty under the execbench profile.
    pub baseline: Vec<Sample>,
}

/// `execbench_perturb::verify` with each run awaited. Also returns the perturbed program's own run
/// (for MHC the claims run first). The verified program is MHC's with the hint that proved wrong,
/// which is not always the first one.
pub async fn verify_perturbed<P: Python>(
    python: &P,
    original: &Sample,
    perturbed: &Perturbed,
    limits: Limits,
) -> (Option<RunResult>, Result<Perturbed, VerifyFailure>) {
    let (mut verification, mut step) = Verification::start(original, perturbed, limits);
    let mut perturbed_run = None;
    loop {
        match step {
            Step::Run(request) => {
                let is_perturbed_run = verification.running_perturbed();
                let result = python.run(request).await;
                let outcome = result.outcome.clone();
                if is_perturbed_run {
                    perturbed_run = Some(result);
                }
                step = verification.answer(outcome);
            }
            Step::Done(verdict) => return (perturbed_run, verdict.map(|()| verification.into_perturbed())),
        }
    }
}

/// Normalises `sample` by `ast.unparse` in `python` and verifies the result by execution (the
/// codecrash profile's first step); a sample normalised already is returned as it is. An error
/// says why the program could not be normalised.
pub async fn normalise_one<P: Python>(python: &P, sample: &Sample, limits: Limits) -> Result<Sample, String> {
    if execbench_perturb::normalise::is_normalised(sample) {
        return Ok(sample.clone());
    }
    let done = normalised_sample(sample, &python.run(unparse_request(sample, limits)).await.outcome)?;
    match verify_perturbed(python, sample, &normalised_as_perturbed(&done), limits).await.1 {
        Ok(_) => Ok(done),
        Err(e) => Err(format!("the normalised program fails verification: {e}")),
    }
}

/// Normalises every sample by `ast.unparse` in `python` and verifies the result (the codecrash
/// profile's first step), publishing progress in `tally.normalised`. `None` when Stop came first.
async fn normalise_samples<P: Python>(
    python: &P,
    samples: &[Sample],
    limits: Limits,
    cancel: &CancelToken,
    tally: &mut PerturbTally,
    on_progress: &mut dyn FnMut(&PerturbTally),
) -> Option<Vec<Result<Sample, String>>> {
    let mut normalised = Vec::with_capacity(samples.len());
    tally.normalised = Some(Normalised::default());
    let mut results = futures::stream::iter(samples)
        .map(|sample| async move { (sample, normalise_one(python, sample, limits).await) })
        .buffered(python.runs_at_once().max(1));
    loop {
        let (sample, result) = match next_or_stopped(&mut results, cancel).await {
            Next::Item(next) => next,
            Next::Done => break,
            Next::Stopped => return None, // a run that Stop cut short is no verdict
        };
        let counts = tally.normalised.get_or_insert_with(Normalised::default);
        counts.done += 1;
        match &result {
            Ok(done) => counts.changed += usize::from(done.code.trim_end() != sample.code.trim_end()),
            Err(why) => counts.failed.push((sample.id.clone(), why.clone())),
        }
        on_progress(tally);
        normalised.push(result);
    }
    Some(normalised)
}

/// Perturbs every sample with every kind and seed, then verifies each result in `python`. For each
/// (kind, seed) all samples are perturbed first, in timed slices, so `perturb_ms` is the
/// perturbation's cost alone. `on_progress` gets the tally after every program. A verification that
/// Stop cuts short is not a verdict: that program is not counted.
pub async fn perturb_and_verify<P: Python, C: Clock>(
    python: &P,
    clock: &C,
    job: &PerturbPlan<'_>,
    cancel: &CancelToken,
    on_progress: &mut dyn FnMut(&PerturbTally),
) -> PerturbOutcome {
    let mut tally = PerturbTally {
        counts: job.kinds.iter().map(|&k| (k, KindCounts::default())).collect(),
        ..PerturbTally::default()
    };
    // The codecrash profile perturbs the programs as CodeCrash does: normalised first.
    // `None` under the execbench profile: the samples as they are, nothing copied.
    let normalised = match job.options.profile {
        Profile::Codecrash => {
            match normalise_samples(python, job.samples, job.limits, cancel, &mut tally, on_progress).await {
                Some(normalised) => Some(normalised),
                None => return PerturbOutcome { tally, stopped: true, baseline: Vec::new() },
            }
        }
        Profile::Execbench => None,
    };
    // The program each kind perturbs: the normalised one where there is one, else the original
    // (whose normalising failure refuses it below).
    let working =
        |index: usize| normalised.as_ref().and_then(|n| n[index].as_ref().ok()).unwrap_or(&job.samples[index]);
    let not_normalised = |index: usize| normalised.as_ref().and_then(|n| n[index].as_ref().err());
    let samples = job.samples;
    // Each program is parsed once for every kind and seed (when its first is perturbed, in that
    // slice's time): parsing the input was a third of each perturbation.
    let mut parsed: Vec<Option<Result<Parsed, PerturbError>>> = (0..samples.len()).map(|_| None).collect();
    'all: for &kind in job.kinds {
        for &seed in kind.seeds_that_matter(job.seeds) {
            let options = Options { seed, ..job.options };
            // Each (kind, seed) gets the claims afresh, as a dataset run on the command line does.
            let mut claims = job.claims.filter(|_| kind == Kind::Mhc).cloned();
            let mut perturbed = Vec::with_capacity(samples.len());
            while perturbed.len() < samples.len() {
                if cancel.is_cancelled() {
                    break 'all;
                }
                let slice_started = clock.now_ms();
                while perturbed.len() < samples.len() && clock.now_ms() - slice_started < SLICE_MS {
                    let index = perturbed.len();
                    let sample = working(index);
                    perturbed.push(match not_normalised(index) {
                        Some(why) => Err(PerturbError::InvalidInput(why.clone())),
                        None => match parsed[index].get_or_insert_with(|| Parsed::new(sample)) {
                            Err(e) => Err(e.clone()),
                            Ok(trees) => match claims.as_mut() {
                                Some(source) => perturb_parsed(sample, trees, kind, &options, source),
                                None => {
                                    perturb_parsed(sample, trees, kind, &options, &mut OfflineWrongAnswers::default())
                                }
                            },
                        },
                    });
                }
                tally.kind(kind).perturb_ms += clock.now_ms() - slice_started;
                clock.sleep(0).await;
            }
            // Programs are verified as many at a time as the Python takes, judged in order.
            let limits = job.limits;
            let mut verdicts = futures::stream::iter(perturbed.into_iter().enumerate())
                .map(|(index, result)| {
                    let sample = working(index);
                    async move {
                        let verdict = match result {
                            Err(e) => Err(e),
                            Ok(perturbed) => Ok(verify_perturbed(python, sample, &perturbed, limits).await.1),
                        };
                        (sample, verdict)
                    }
                })
                .buffered(python.runs_at_once().max(1));
            let mut verify_started = clock.now_ms();
            loop {
                let (sample, verdict) = match next_or_stopped(&mut verdicts, cancel).await {
                    Next::Item(next) => next,
                    Next::Done => break,
                    Next::Stopped => break 'all, // a verification that Stop cut short is no verdict
                };
                // Wall time of the verification, whatever the overlap.
                let at = clock.now_ms();
                tally.kind(kind).verify_ms += at - verify_started;
                verify_started = at;
                let failure =
                    |stage: Stage, reason: String| Failure { id: sample.id.clone(), kind, seed, stage, reason };
                match verdict {
                    Err(e) => {
                        tally.kind(kind).refused += 1;
                        tally.failures.push(failure(Stage::Perturb, e.to_string()));
                    }
                    Ok(Ok(verified)) => {
                        if unchanged(sample, &verified) {
                            tally.kind(kind).unchanged += 1;
                        }
                        tally.rows.push(row_of(sample, job.dataset, kind, &options, verified));
                        tally.kind(kind).verified += 1;
                    }
                    Ok(Err(e)) => {
                        tally.kind(kind).failed_verification += 1;
                        tally.failures.push(failure(Stage::Verify, e.to_string()));
                    }
                }
                tally.kind(kind).programs += 1;
                tally.done += 1;
                on_progress(&tally);
            }
        }
    }
    let stopped = tally.done < job.total();
    let baseline = normalised.into_iter().flatten().flatten().collect();
    PerturbOutcome { tally, stopped, baseline }
}

/// One program to perturb and verify (the Perturb page's single-program view).
#[derive(Clone, Copy, Debug)]
pub struct SingleProgram<'a> {
    /// An empty expected output is taken from running the original (pasted code).
    pub sample: &'a Sample,
    pub kind: Kind,
    pub options: Options,
    /// MHC: the wrong answer to try first (a model's or a file's), before the offline proposals.
    pub claim: Option<&'a str>,
    /// Limits of each run.
    pub limits: Limits,
}

/// The program as perturbed, before any verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// The program perturbed: the sample given, with the output its run gave when it had none,
    /// normalised first under the codecrash profile.
    pub sample: Sample,
    /// The expected output came from running the original.
    pub output_from_run: bool,
    pub perturbed: Perturbed,
}

/// Both runs and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleVerdict {
    /// The (normalised) original's run.
    pub original_run: RunResult,
    /// The perturbed program's own run (for MHC after the claims), when it ran.
    pub perturbed_run: Option<RunResult>,
    /// The verified program: MHC's with the hint that proved wrong, not always the first one.
    pub verdict: Result<Perturbed, VerifyFailure>,
}

/// Why nothing was perturbed.
#[derive(Clone, Debug, PartialEq)]
pub enum SingleFailure {
    /// The sample had no expected output and the original's run gave no value (its run).
    NoValue(RunResult),
    /// The codecrash profile could not normalise the program (why).
    NotNormalised(String),
    /// The kind declined the program.
    Refused(Kind, PerturbError),
}

impl std::fmt::Display for SingleFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SingleFailure::NoValue(run) => write!(
                f,
                "the original program does not return a value, so there is nothing to keep: {}",
                run.outcome.summary()
            ),
            SingleFailure::NotNormalised(why) => {
                write!(f, "the codecrash profile normalises the program first, and {why}")
            }
            SingleFailure::Refused(kind, e) => write!(f, "{kind} could not perturb this program: {e}"),
        }
    }
}

/// Perturbs one program and verifies the result, as [`perturb_and_verify`] does each program of a
/// dataset: an expected output from the original's run when there is none, the codecrash
/// profile's normalising (checked by execution), the perturbation, the original's run and the
/// verification. `on_perturbed` gets the perturbation before the runs, so it can be shown while
/// they go.
pub async fn perturb_one<P: Python>(
    python: &P,
    job: &SingleProgram<'_>,
    on_perturbed: &mut dyn FnMut(&Perturbation),
) -> Result<(Perturbation, SingleVerdict), SingleFailure> {
    let mut sample = job.sample.clone();
    let output_from_run = sample.output.is_empty();
    if output_from_run {
        let run = python.run(sample.request(sample.call.clone()).with_limits(job.limits)).await;
        match &run.outcome {
            Outcome::Value { repr, .. } => sample.output = repr.clone(),
            _ => return Err(SingleFailure::NoValue(run)),
        }
    }
    if job.options.profile == Profile::Codecrash {
        sample = normalise_one(python, &sample, job.limits).await.map_err(SingleFailure::NotNormalised)?;
    }
    let perturbed = match job.claim {
        Some(claim) => {
            let mut source =
                FileWrongAnswers::from_claims([(sample.id.clone(), job.options.prediction, claim.to_string())]);
            execbench_perturb::perturb_with_source(&sample, job.kind, &job.options, &mut source)
        }
        None => execbench_perturb::perturb_sample(&sample, job.kind, &job.options),
    }
    .map_err(|e| SingleFailure::Refused(job.kind, e))?;
    let perturbation = Perturbation { sample, output_from_run, perturbed };
    on_perturbed(&perturbation);
    let sample = &perturbation.sample;
    let original_run = python.run(execbench_core::verify::request_for(sample, job.limits)).await;
    let (perturbed_run, verdict) = verify_perturbed(python, sample, &perturbation.perturbed, job.limits).await;
    Ok((perturbation, SingleVerdict { original_run, perturbed_run, verdict }))
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::future::Future;

    use execbench_core::{Outcome, PythonEngine, RunRequest};
    use execbench_perturb::{perturb_dataset, perturb_dataset_with_source, perturb_sample};
    use futures::executor::block_on;

    use super::*;
    use crate::stopped_at::StoppedAt;
    use execbench_io::BlockingPython;

    /// Answers by rule, no interpreter, so both verdicts occur: a claimed output (MHC, no program)
    /// matches only when equal to the expected text; otherwise the result is a hash of the request.
    struct HashEngine;

    impl PythonEngine for HashEngine {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            let outcome = if request.program.is_empty() {
                Outcome::Value {
                    repr: request.expression.clone(),
                    matches: request.expected.as_ref().map(|e| *e == request.expression),
                }
            } else {
                let hash = request
                    .program
                    .bytes()
                    .chain(request.expression.bytes())
                    .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
                Outcome::Value {
                    repr: (hash % 3).to_string(),
                    matches: request.expected.as_ref().map(|_| hash % 4 != 0),
                }
            };
            RunResult { outcome, stdout: String::new(), elapsed_ms: 1.0, trace: None }
        }
    }

    /// A clock that moves 1 ms each time it is read and counts the turns handed back.
    #[derive(Default)]
    struct TickingClock {
        now: Cell<f64>,
        sleeps: Cell<usize>,
    }

    impl Clock for TickingClock {
        fn now_ms(&self) -> f64 {
            self.now.set(self.now.get() + 1.0);
            self.now.get()
        }

        fn sleep(&self, _: u64) -> impl Future<Output = ()> {
            self.sleeps.set(self.sleeps.get() + 1);
            std::future::ready(())
        }
    }

    fn samples() -> Vec<Sample> {
        let rows = [
            r#"{"id": "a", "code": "def f(a, b):\n    if a > b:\n        return a - b\n    return b", "input": "3, 1", "output": "2"}"#,
            r#"{"id": "b", "code": "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total", "input": "[1, 2]", "output": "3"}"#,
            r#"{"id": "c", "code": "def f(s):\n    return sorted(locals())", "input": "'x'", "output": "['s']"}"#,
            r#"{"id": "d", "code": "def f(n):\n    i = 0\n    while i < n:\n        i += 2\n    return i", "input": "5", "output": "6"}"#,
            r#"{"id": "e", "code": "def f(text):\n    return text.upper()", "input": "'ab'", "output": "'AB'"}"#,
        ];
        let loaded = execbench_core::load_jsonl("t.jsonl", &rows.join("\n"));
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        (0..6).flat_map(|_| loaded.samples.clone()).collect()
    }

    const KINDS: [Kind; 4] = [Kind::Ren, Kind::Rtf, Kind::Mcc, Kind::Mhc];

    fn job<'a>(samples: &'a [Sample], seeds: &'a [u64]) -> PerturbPlan<'a> {
        PerturbPlan {
            samples,
            dataset: "t",
            kinds: &KINDS,
            seeds,
            options: Options::default(),
            limits: Limits::default(),
            claims: None,
        }
    }

    #[test]
    fn verifying_in_a_pool_gives_the_same_tally_as_one_run_at_a_time() {
        let samples = samples();
        let seeds = [0, 3];
        for profile in [Profile::Execbench, Profile::Codecrash] {
            let options = Options { profile, ..Options::default() };
            let job = PerturbPlan { options, ..job(&samples, &seeds) };
            let one = block_on(perturb_and_verify(
                &BlockingPython::new(HashEngine),
                &TickingClock::default(),
                &job,
                &CancelToken::new(),
                &mut |_| {},
            ));
            let pool = crate::overlapping::Overlapping::new(HashEngine, 16);
            let mut reported = Vec::new();
            let many =
                block_on(perturb_and_verify(&pool, &TickingClock::default(), &job, &CancelToken::new(), &mut |t| {
                    reported.push(t.done)
                }));
            assert!(pool.max_in_flight.get() > 1, "{profile:?}: runs overlapped");
            assert_eq!(many.tally.rows, one.tally.rows, "{profile:?}");
            assert_eq!(many.tally.failures, one.tally.failures, "{profile:?}");
            assert_eq!(many.tally.normalised, one.tally.normalised, "{profile:?}");
            assert_eq!(many.baseline, one.baseline, "{profile:?}");
            let progress: Vec<usize> = reported.into_iter().filter(|&d| d > 0).collect();
            assert_eq!(
                progress,
                (1..=many.tally.done).collect::<Vec<_>>(),
                "{profile:?}: one report per program, in order"
            );
        }
    }

    #[test]
    fn the_same_rows_and_failures_as_the_library_s_dataset_run() {
        let samples = samples();
        let seeds = [0, 3];
        let clock = TickingClock::default();
        let mut reported = Vec::new();
        let outcome = block_on(perturb_and_verify(
            &BlockingPython::new(HashEngine),
            &clock,
            &job(&samples, &seeds),
            &CancelToken::new(),
            &mut |t| reported.push(t.done),
        ));
        let native = perturb_dataset(
            &samples,
            "t",
            &KINDS,
            &seeds,
            &Options::default(),
            Some((&mut HashEngine, Limits::default())),
        );
        let tally = &outcome.tally;
        assert!(!outcome.stopped);
        assert_eq!(tally.rows, native.rows);
        assert_eq!(tally.failures, native.failures);
        assert_eq!(reported, (1..=tally.done).collect::<Vec<_>>());
        // REN takes no seed: one pass, not one per seed.
        assert_eq!(tally.done, samples.len() * (KINDS.len() * seeds.len() - 1));
        assert_eq!(tally.done, job(&samples, &seeds).total());
        for kind in KINDS {
            let c = &tally.counts[&kind];
            assert_eq!(c.unchanged, native.unchanged_of(kind), "{kind}");
            assert_eq!(c.programs, samples.len() * if kind == Kind::Ren { 1 } else { seeds.len() }, "{kind}");
            assert_eq!(c.verified + c.failed_verification + c.refused, c.programs, "{kind}");
            assert_eq!(c.verified, tally.rows.iter().filter(|r| r.kind == kind).count(), "{kind}");
            assert!(c.perturb_ms > 0.0 && c.verify_ms > 0.0, "{kind}: {c:?}");
        }
        // Every path is taken: refusals (REN and `locals()`), failed verifications, unchanged rows.
        assert_eq!(tally.counts[&Kind::Ren].refused, 6);
        assert!(tally.counts.values().any(|c| c.failed_verification > 0));
        assert!(tally.counts[&Kind::Rtf].unchanged > 0);
        // Perturbing 30 samples in 12 ms slices of a clock that moves 1 ms a read hands the thread
        // back several times per (kind, seed).
        assert!(clock.sleeps.get() >= (KINDS.len() * seeds.len() - 1) * 3, "{} turns", clock.sleeps.get());
    }

    /// Claims given to the job (a model's) come before the offline proposals, exactly as in the
    /// library's dataset run with the same source.
    #[test]
    fn mhc_takes_the_claims_given() {
        let samples = samples();
        let claims =
            FileWrongAnswers::from_claims([("a".to_string(), execbench_perturb::Prediction::Output, "41".to_string())]);
        let seeds = [0, 1];
        let job = PerturbPlan { kinds: &[Kind::Mhc], claims: Some(&claims), ..job(&samples, &seeds) };
        let outcome = block_on(perturb_and_verify(
            &BlockingPython::new(HashEngine),
            &TickingClock::default(),
            &job,
            &CancelToken::new(),
            &mut |_| {},
        ));
        let native = perturb_dataset_with_source(
            &samples,
            "t",
            &[Kind::Mhc],
            &seeds,
            &Options::default(),
            Some((&mut HashEngine, Limits::default())),
            &mut claims.clone(),
        );
        assert_eq!(outcome.tally.rows, native.rows);
        let of_a: Vec<&ExportRow> = outcome.tally.rows.iter().filter(|r| r.id == "a").collect();
        assert!(!of_a.is_empty() && of_a.iter().all(|r| r.code.contains("# The return value is 41")), "{of_a:?}");
        assert!(outcome.tally.rows.iter().filter(|r| r.id != "a").all(|r| !r.code.contains("is 41")));
    }

    /// `ast.unparse` as a rule: the program with a last line added, except for sample `c`'s,
    /// which does not parse; every other run gives the expected value.
    struct Unparsing;

    impl PythonEngine for Unparsing {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            let Some(source) = request
                .program
                .strip_prefix("import ast\nsource = ")
                .filter(|_| request.expression.starts_with("ast.unparse"))
            else {
                let outcome = Outcome::Value { repr: "2".into(), matches: request.expected.as_ref().map(|_| true) };
                return RunResult { outcome, stdout: String::new(), elapsed_ms: 0.0, trace: None };
            };
            let Ok(execbench_eval::PyValue::Str(code)) = execbench_eval::parse_literal(source.trim_end()) else {
                panic!("{source}")
            };
            let outcome = if code.contains("locals()") {
                Outcome::Raised {
                    kind: "SyntaxError".into(),
                    message: "no".into(),
                    traceback: String::new(),
                    phase: "expression".into(),
                }
            } else {
                Outcome::Value {
                    repr: format!("{:?}", format!("{}\nx = 1", code.trim_end())).replace('"', "'"),
                    matches: None,
                }
            };
            RunResult { outcome, stdout: String::new(), elapsed_ms: 0.0, trace: None }
        }
    }

    /// The codecrash profile perturbs the normalised programs: every row's original is the
    /// normalised text, and a program that cannot be normalised is refused by every kind, with why.
    #[test]
    fn the_codecrash_profile_perturbs_normalised_programs() {
        let samples = samples();
        let seeds = [0];
        let options = Options { profile: Profile::Codecrash, ..Options::default() };
        let job = PerturbPlan { kinds: &[Kind::Rtf, Kind::Mcc], options, ..job(&samples, &seeds) };
        let mut progress = Vec::new();
        let outcome = block_on(perturb_and_verify(
            &BlockingPython::new(Unparsing),
            &TickingClock::default(),
            &job,
            &CancelToken::new(),
            &mut |t| progress.push(t.normalised.as_ref().map_or(0, |n| n.done)),
        ));
        let tally = &outcome.tally;
        let normalised = tally.normalised.as_ref().unwrap();
        let unparseable = samples.iter().filter(|s| s.code.contains("locals()")).count();
        assert_eq!(
            (normalised.done, normalised.changed, normalised.failed.len()),
            (samples.len(), samples.len() - unparseable, unparseable)
        );
        assert_eq!(
            progress[..samples.len()],
            (1..=samples.len()).collect::<Vec<_>>()[..],
            "progress while normalising"
        );
        assert!(
            !tally.rows.is_empty() && tally.rows.iter().all(|r| r.original_code.ends_with("\nx = 1\n")),
            "{:?}",
            tally.rows.first()
        );
        let refused: Vec<&Failure> = tally.failures.iter().filter(|f| f.stage == Stage::Perturb).collect();
        assert_eq!(refused.len(), unparseable * 2);
        assert!(
            refused.iter().all(|f| f.id == "c" && f.reason.contains("ast.unparse failed: SyntaxError")),
            "{refused:?}"
        );
        assert!(!outcome.stopped);
        assert_eq!(outcome.baseline.len(), samples.len() - unparseable);
        assert!(
            outcome
                .baseline
                .iter()
                .all(|s| s.code.ends_with("\nx = 1\n") && execbench_perturb::normalise::is_normalised(s))
        );
    }

    #[test]
    fn stop_leaves_the_interrupted_program_uncounted() {
        let samples = samples();
        let cancel = CancelToken::new();
        let python = StoppedAt::new(HashEngine, &cancel, 40);
        let mut last = PerturbTally::default();
        let outcome =
            block_on(perturb_and_verify(&python, &TickingClock::default(), &job(&samples, &[0]), &cancel, &mut |t| {
                last = t.clone()
            }));
        assert!(outcome.stopped);
        assert_eq!(python.runs.get(), 40, "nothing runs after Stop");
        let tally = outcome.tally;
        assert_eq!(tally, PerturbTally { counts: tally.counts.clone(), ..last }, "the last progress is the outcome");
        assert!(tally.done > 0 && tally.done < samples.len() * KINDS.len());
        let counted: usize = tally.counts.values().map(|c| c.programs).sum();
        assert_eq!(counted, tally.done);
        assert_eq!(tally.rows.len() + tally.failures.len(), tally.done);
        assert!(!tally.failures.iter().any(|f| f.reason.contains("stopped by the user")));
        // Every kind is listed from the start, even those never reached.
        assert_eq!(tally.counts.keys().copied().collect::<Vec<_>>(), KINDS.to_vec());
    }

    #[test]
    fn a_cancelled_token_perturbs_nothing() {
        let samples = samples();
        let cancel = CancelToken::new();
        cancel.cancel();
        let outcome = block_on(perturb_and_verify(
            &BlockingPython::new(HashEngine),
            &TickingClock::default(),
            &job(&samples, &[0]),
            &cancel,
            &mut |_| {},
        ));
        assert!(outcome.stopped);
        assert_eq!((outcome.tally.done, outcome.tally.rows.len()), (0, 0));
        assert!(outcome.tally.counts.values().all(|c| *c == KindCounts::default()));
    }

    /// Records what it is asked. A claimed output (no program) is `-1`, every program returns `2`
    /// and prints its own code.
    struct Recording<'a>(&'a RefCell<Vec<RunRequest>>);

    impl Python for Recording<'_> {
        fn run(&self, request: RunRequest) -> impl Future<Output = RunResult> {
            self.0.borrow_mut().push(request.clone());
            let repr = if request.program.is_empty() { "-1".to_string() } else { "2".to_string() };
            let matches = request.expected.as_ref().map(|e| *e == repr);
            std::future::ready(RunResult {
                outcome: Outcome::Value { repr, matches },
                stdout: request.program,
                elapsed_ms: 0.0,
                trace: None,
            })
        }
    }

    #[test]
    fn the_perturbed_run_is_the_perturbed_program_s_own() {
        let samples = samples();
        let sample = &samples[0];
        for kind in [Kind::Rtf, Kind::Mhc] {
            let perturbed = perturb_sample(sample, kind, &Options::default()).unwrap();
            let asked = RefCell::new(Vec::new());
            let (run, verdict) = block_on(verify_perturbed(&Recording(&asked), sample, &perturbed, Limits::default()));
            let verified = verdict.unwrap();
            assert_eq!(run.map(|r| r.stdout), Some(verified.code.clone()), "{kind}");
            // MHC: the probes (the function on nearby inputs) and the claim first, then the program.
            let probes = perturbed.hint.as_ref().map_or(0, |h| h.probes.len());
            assert_eq!(
                asked.borrow().len(),
                if kind == Kind::Mhc { probes + 2 } else { 1 },
                "{kind}: the probes and the claim first, then the program"
            );
        }
    }

    fn single<'a>(sample: &'a Sample, kind: Kind, profile: Profile) -> SingleProgram<'a> {
        SingleProgram {
            sample,
            kind,
            options: Options { profile, ..Options::default() },
            claim: None,
            limits: Limits::default(),
        }
    }

    /// A program without an expected output gets its original's, and is perturbed, shown before
    /// its runs, run and verified as the dataset run verifies it.
    #[test]
    fn one_program_takes_its_output_from_the_original_and_is_verified() {
        let mut sample = samples()[0].clone();
        sample.output = String::new();
        let asked = RefCell::new(Vec::new());
        let mut shown = Vec::new();
        let (perturbation, verdict) =
            block_on(perturb_one(&Recording(&asked), &single(&sample, Kind::Rtf, Profile::Execbench), &mut |p| {
                shown.push((p.clone(), asked.borrow().len()))
            }))
            .unwrap();
        assert_eq!((perturbation.sample.output.as_str(), perturbation.output_from_run), ("2", true));
        assert_eq!(
            perturbation.perturbed,
            perturb_sample(&perturbation.sample, Kind::Rtf, &Options::default()).unwrap()
        );
        // Shown once, after the original's first run and before the two runs that judge it.
        assert_eq!(shown, [(perturbation.clone(), 1)]);
        assert_eq!(asked.borrow().len(), 3);
        assert_eq!(verdict.verdict, Ok(perturbation.perturbed.clone()));
        assert_eq!(verdict.original_run.stdout, sample.code);
        assert_eq!(verdict.perturbed_run.map(|r| r.stdout), Some(perturbation.perturbed.code));
    }

    /// An original without a value has nothing to keep; a program a kind declines is refused;
    /// neither is shown as perturbed.
    #[test]
    fn one_program_without_a_value_or_that_a_kind_declines_is_not_perturbed() {
        let mut silent = samples()[0].clone();
        silent.output = String::new();
        let mut shown = 0;
        let failure = block_on(perturb_one(
            &BlockingPython::new(Raising),
            &single(&silent, Kind::Rtf, Profile::Execbench),
            &mut |_| shown += 1,
        ))
        .unwrap_err();
        assert!(matches!(failure, SingleFailure::NoValue(_)), "{failure:?}");
        assert_eq!(
            failure.to_string(),
            "the original program does not return a value, so there is nothing to keep: ValueError: no"
        );
        let mut broken = samples()[0].clone();
        broken.code = "def f(a, b:\n    return a".to_string();
        let asked = RefCell::new(Vec::new());
        let failure =
            block_on(perturb_one(&Recording(&asked), &single(&broken, Kind::Rtf, Profile::Execbench), &mut |_| {
                shown += 1
            }))
            .unwrap_err();
        assert!(matches!(failure, SingleFailure::Refused(Kind::Rtf, _)), "{failure:?}");
        assert!(failure.to_string().starts_with("RTF could not perturb this program: "), "{failure}");
        assert_eq!(shown, 0);
        assert!(asked.borrow().is_empty(), "nothing runs for a refused program");
    }

    /// The codecrash profile perturbs the normalised program, and, as the dataset run does, only
    /// once execution shows the normalised program returns what the original does.
    #[test]
    fn one_program_under_the_codecrash_profile_is_normalised_and_checked_first() {
        let sample = samples()[0].clone();
        let (perturbation, verdict) = block_on(perturb_one(
            &BlockingPython::new(Unparsing),
            &single(&sample, Kind::Rtf, Profile::Codecrash),
            &mut |_| {},
        ))
        .unwrap();
        assert!(perturbation.sample.code.ends_with("\nx = 1\n"), "{}", perturbation.sample.code);
        assert!(execbench_perturb::normalise::is_normalised(&perturbation.sample));
        assert!(verdict.verdict.is_ok(), "{:?}", verdict.verdict);

        let mut shown = 0;
        let failure = block_on(perturb_one(
            &BlockingPython::new(NormalisedDiffers),
            &single(&sample, Kind::Rtf, Profile::Codecrash),
            &mut |_| shown += 1,
        ))
        .unwrap_err();
        assert_eq!(shown, 0);
        assert!(
            failure.to_string().starts_with(
                "the codecrash profile normalises the program first, and the normalised program fails verification: "
            ),
            "{failure}"
        );
        let unparseable = samples().into_iter().find(|s| s.id == "c").unwrap();
        let failure = block_on(perturb_one(
            &BlockingPython::new(Unparsing),
            &single(&unparseable, Kind::Rtf, Profile::Codecrash),
            &mut |_| {},
        ))
        .unwrap_err();
        assert!(failure.to_string().contains("ast.unparse failed: SyntaxError"), "{failure}");
    }

    /// MHC with a claim given tries it first: the hint claims it.
    #[test]
    fn one_program_takes_the_claim_given() {
        let sample = samples()[0].clone();
        let job = SingleProgram { claim: Some("41"), ..single(&sample, Kind::Mhc, Profile::Execbench) };
        let (perturbation, _) = block_on(perturb_one(&BlockingPython::new(HashEngine), &job, &mut |_| {})).unwrap();
        assert!(perturbation.perturbed.code.contains("# The return value is 41"), "{}", perturbation.perturbed.code);
    }

    /// Every run raises.
    struct Raising;

    impl PythonEngine for Raising {
        fn run(&mut self, _: &RunRequest) -> RunResult {
            let outcome = Outcome::Raised {
                kind: "ValueError".into(),
                message: "no".into(),
                traceback: String::new(),
                phase: "expression".into(),
            };
            RunResult { outcome, stdout: String::new(), elapsed_ms: 0.0, trace: None }
        }
    }

    /// `Unparsing`, except that a normalised program returns something else than the original.
    struct NormalisedDiffers;

    impl PythonEngine for NormalisedDiffers {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            let mut result = Unparsing.run(request);
            if request.program.contains("\nx = 1") && !request.expression.starts_with("ast.unparse") {
                let matches = request.expected.as_ref().map(|e| e == "3");
                result.outcome = Outcome::Value { repr: "3".into(), matches };
            }
            result
        }
    }
}
