//! `execbench perturb`: perturb every sample of a dataset with one kind and seed, verify each result
//! by execution (as the page always does; `--no-verify` skips it), and write the rows as JSON Lines
//! (the same rows, in the same bytes, as the library's dataset export and the page's download).

use std::path::Path;
use std::time::Instant;

use execbench_core::{Limits, Provenance, PythonEngine};
use execbench_perturb::normalise::normalise;
use execbench_perturb::{
    DatasetRun, DistanceSummary, FileWrongAnswers, Kind, OfflineWrongAnswers, Options, Prediction, Profile, Stage,
    WrongAnswerSource, perturb_dataset_with_source, to_codecrash_jsonl, to_jsonl,
};

use std::cell::RefCell;

use execbench_core::Sample;
use execbench_dataset_jobs::model_wrong_answers::{
    ASKS_PER_SAMPLE, AskedClaims, ProposalCache, ProposalJob, ask_wrong_answers,
};
use execbench_run::CancelToken;
use execbench_run::api::{ApiModel, RequestContext};
use execbench_run::backoff::Jitter;
use execbench_run::gate::Gate;
use execbench_run::io::BlockingPython;
use execbench_run::status::Live;

use crate::api_args::{ApiFlags, ApiOptions, api_key, api_options};
use crate::http::{NativeHttp, TokioClock};
use crate::progress::Progress;
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct PerturbArgs {
    /// The dataset (.jsonl or .parquet)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// The perturbation: REN, RTF, GBC, PSC_ALL, MCC, MPS or MHC
    #[arg(long, value_name = "KIND")]
    kind: String,
    /// The seed of the perturbation's choices
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// The chance each candidate site is perturbed (0 to 1)
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    p: f64,
    /// At most one site per program
    #[arg(long)]
    once: bool,
    /// The task the perturbed dataset is for [default: output]
    #[arg(long, value_name = "output|input")]
    prediction: Option<String>,
    /// Verify each perturbed program by execution (the default; kept for older scripts)
    #[arg(long)]
    verify: bool,
    /// Do not run the perturbed programs to check them
    #[arg(long)]
    no_verify: bool,
    /// How long a program may run when verified
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    time_limit: f64,
    /// Conventions: execbench's, or CodeCrash's (programs normalised first) [default: execbench]
    #[arg(long, value_name = "execbench|codecrash")]
    profile: Option<String>,
    /// The rows' field layout [default: execbench]
    #[arg(long, value_name = "execbench|codecrash")]
    format: Option<String>,
    /// Where MHC's wrong answers come from [default: offline]
    #[arg(long, value_name = "offline|file:PATH|model")]
    wrong_answers: Option<String>,
    /// With --wrong-answers model: the file the model's proposals are kept in [default: OUT.proposals.jsonl]
    #[arg(long, value_name = "FILE.jsonl")]
    proposals: Option<String>,
    /// Where the perturbed rows go (JSON Lines)
    #[arg(long, value_name = "FILE")]
    out: String,
    /// With --wrong-answers model: the model API's preset
    #[arg(long, value_name = "P")]
    provider: Option<String>,
    #[command(flatten)]
    pub api: ApiFlags,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Execbench,
    CodeCrash,
}

/// Everything the command needs, checked before any work starts.
struct Settings<'a> {
    dataset: &'a str,
    out: &'a str,
    kind: Kind,
    options: Options,
    verify_limits: Option<Limits>,
    format: Format,
    wrong_answers: WrongAnswers<'a>,
    /// `--wrong-answers model`: the provider flags.
    api: Option<ApiOptions>,
    /// `--wrong-answers model`: where the model's proposals are kept (`OUT.proposals.jsonl` unless
    /// `--proposals` says), read before asking and written after.
    proposals: String,
}

/// Where MHC's wrong answers come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WrongAnswers<'a> {
    Offline,
    /// A JSONL file of claims (CodeCrash's MHC rows or `{"id", "claim"}` rows).
    File(&'a str),
    /// A model, asked through the run engine (the provider flags of `run`): up to three times per
    /// sample, until execution shows its proposal wrong.
    Model,
}

fn settings(args: &PerturbArgs) -> Result<Settings<'_>, String> {
    let (dataset, out) = (args.dataset.as_str(), args.out.as_str());
    let kind_name = args.kind.as_str();
    let kind = Kind::parse(kind_name).ok_or_else(|| {
        let known: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown kind `{kind_name}` (known: {})", known.join(", "))
    })?;
    let (seed, p) = (args.seed, args.p);
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("--p must be between 0 and 1, got {p}"));
    }
    let format = match args.format.as_deref().unwrap_or("execbench") {
        "execbench" => Format::Execbench,
        "codecrash" => Format::CodeCrash,
        other => return Err(format!("unknown --format `{other}` (known: execbench, codecrash)")),
    };
    let limits = crate::args::time_limit(args.time_limit)?;
    let prediction = match args.prediction.as_deref().unwrap_or("output") {
        "output" => Prediction::Output,
        "input" => Prediction::Input,
        other => return Err(format!("unknown --prediction `{other}` (known: output, input)")),
    };
    if args.verify && args.no_verify {
        return Err("--verify and --no-verify contradict each other (verifying is the default)".to_string());
    }
    let verify_limits = (!args.no_verify).then_some(limits);
    // The profile chooses conventions; `--format` only the field layout: they combine freely.
    let profile_name = args.profile.as_deref().unwrap_or("execbench");
    let profile = Profile::parse(profile_name)
        .ok_or_else(|| format!("unknown --profile `{profile_name}` (known: execbench, codecrash)"))?;
    let options = Options { seed, p, once: args.once, prediction, profile };
    let wrong_answers = match args.wrong_answers.as_deref() {
        None | Some("offline") => WrongAnswers::Offline,
        Some(file) if file.starts_with("file:") && file.len() > "file:".len() => {
            WrongAnswers::File(&file["file:".len()..])
        }
        Some("model") => WrongAnswers::Model,
        Some(other) => return Err(format!("unknown --wrong-answers `{other}` (known: offline, file:PATH, model)")),
    };
    let api = match wrong_answers {
        WrongAnswers::Model => {
            let provider = args.provider.as_deref().ok_or("--provider is required")?;
            Some(api_options(&args.api, provider, &[])?)
        }
        _ => None,
    };
    if args.wrong_answers.is_some() && kind != Kind::Mhc {
        return Err(format!("--wrong-answers is for MHC only, not {kind}"));
    }
    if args.proposals.is_some() && wrong_answers != WrongAnswers::Model {
        return Err("--proposals keeps a model's proposals: it needs --wrong-answers model".to_string());
    }
    let proposals = args.proposals.clone().unwrap_or_else(|| format!("{out}.proposals.jsonl"));
    Ok(Settings { dataset, out, kind, options, verify_limits, format, wrong_answers, api, proposals })
}

/// The `dataset` column: the file name without its extension (`cruxeval` for `data/cruxeval.jsonl`).
pub fn dataset_name(path: &str) -> String {
    Path::new(path).file_stem().map_or_else(|| path.to_string(), |stem| stem.to_string_lossy().into_owned())
}

/// Returns the process exit code: 0 when every row was valid and every sample was perturbed and
/// verified, 1 otherwise. Rows that failed are reported on stderr and never written. Unchanged
/// rows (the kind found nothing to change) are written, counted, and no failure.
pub fn run(args: &PerturbArgs) -> Result<i32, String> {
    let settings = settings(args)?;
    // A claimed input can send a recursive function to Python's recursion limit, and RustPython's
    // frames are large (very large in a debug build): the main thread's 8 MB overflow on it. The
    // stack is only reserved, not used, until deep recursion needs it.
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(PERTURB_STACK_BYTES)
            .spawn_scoped(scope, || perturb_all(&settings))
            .map_err(|e| format!("cannot start the perturbing thread: {e}"))?
            .join()
            .map_err(|_| "the perturbing thread panicked".to_string())?
    })
}

/// Asks the model for a wrong answer per sample through the library's
/// [`execbench_dataset_jobs::model_wrong_answers::ask_wrong_answers`] (checked by execution unless `--no-verify`,
/// asked again when shown right), reading and then writing the proposals file so that what was
/// asked once is not asked again. Returns the claims table and what to report.
fn model_claims(
    samples: &[Sample],
    settings: &Settings,
    options: &ApiOptions,
) -> Result<(FileWrongAnswers, AskedClaims), String> {
    let prediction = settings.options.prediction;
    let key = api_key(&options.key)?;
    let model = ApiModel { settings: options.api.clone(), key };
    let path = settings.proposals.as_str();
    let mut cache = match std::fs::read_to_string(path) {
        Ok(text) => ProposalCache::parse(path, &text)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ProposalCache::default(),
        Err(e) => return Err(format!("cannot read {path}: {e}")),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let (http, clock) = (NativeHttp::new()?, TokioClock::new());
    let gate = Gate::new(model.settings.concurrency, model.settings.delay_ms);
    let live = Live::new(samples.len(), 0);
    let jitter = RefCell::new(Jitter::new(0));
    let context = RequestContext { http: &http, clock: &clock, gate: &gate, live: &live, jitter: &jitter };
    let python = match settings.verify_limits {
        Some(_) => Some(BlockingPython::new(Workers::of_this_binary()?.engine())),
        None => None,
    };
    eprintln!(
        "asking {} for a wrong answer to each of {} samples (at most {ASKS_PER_SAMPLE} requests each; proposals kept in {path})",
        model.name(),
        samples.len()
    );
    let mut progress = Progress::new(samples.len());
    let mut fell_back = 0;
    let before = cache.clone();
    let asked = runtime.block_on(ask_wrong_answers(
        &context,
        &model,
        python.as_ref(),
        ProposalJob { samples, prediction, cache: &before },
        &CancelToken::new(),
        &mut |_, proposal| {
            fell_back += usize::from(proposal.claim.is_none());
            cache.insert(proposal.clone());
            progress.tick(fell_back);
        },
    ));
    // Written even when the model stopped answering: what was paid for is kept.
    if cache != before {
        std::fs::write(path, cache.to_jsonl()).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    let asked = asked?;
    let (tokens_in, tokens_out) = asked.tokens();
    eprintln!(
        "{} requests ({tokens_in} tokens in, {tokens_out} out); {} of {} samples from {path} without asking",
        asked.requests,
        asked.from_cache,
        samples.len()
    );
    Ok((asked.claims_table(samples), asked))
}

/// Every sample normalised by `ast.unparse` (and verified, unless `verify_limits` is `None`),
/// with the ids of those that could not be and why.
pub fn normalise_all(
    workers: &Workers,
    samples: &[Sample],
    verify_limits: Option<Limits>,
) -> (Vec<Sample>, Vec<(String, String)>) {
    let mut engine = workers.engine();
    let mut progress = Progress::new(samples.len());
    let (mut normalised, mut failed) = (Vec::with_capacity(samples.len()), Vec::new());
    eprintln!("normalising {} programs with ast.unparse, as CodeCrash does", samples.len());
    for sample in samples {
        match normalise(&mut engine, sample, verify_limits) {
            Ok(done) => normalised.push(done),
            Err(e) => failed.push((sample.id.clone(), e)),
        }
        progress.tick(failed.len());
    }
    let changed = normalised.iter().zip(samples).filter(|(n, s)| n.code.trim_end() != s.code.trim_end()).count();
    eprintln!("ast.unparse changed {changed} of {} programs", normalised.len());
    for (id, why) in &failed {
        eprintln!("not normalised: {id}: {why}");
    }
    (normalised, failed)
}

/// The stack of the thread that perturbs and verifies.
pub const PERTURB_STACK_BYTES: usize = 512 << 20;

fn perturb_all(settings: &Settings) -> Result<i32, String> {
    let report = crate::dataset::read_dataset(settings.dataset)?;
    let workers = Workers::of_this_binary()?;
    // The codecrash profile perturbs what CodeCrash perturbs: the programs normalised by
    // `ast.unparse`. A program that cannot be normalised is not perturbed.
    let (samples, not_normalised) = match settings.options.profile {
        Profile::Codecrash => normalise_all(&workers, &report.samples, settings.verify_limits),
        Profile::Execbench => (report.samples.clone(), Vec::new()),
    };
    let name = dataset_name(settings.dataset);
    let mut model_asked = None;
    let mut file_source = match settings.wrong_answers {
        WrongAnswers::Offline => None,
        WrongAnswers::File(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            let file = FileWrongAnswers::parse(&text).map_err(|e| format!("{path}: {e}"))?;
            eprintln!(
                "{path}: {} rows, claims for {} samples, {} rows without a readable claim",
                file.rows,
                file.samples_with_claims(),
                file.skipped.len()
            );
            for skipped in file.skipped.iter().take(5) {
                eprintln!("  {skipped}");
            }
            Some(file)
        }
        WrongAnswers::Model => {
            let api = settings.api.as_ref().ok_or("--wrong-answers model needs --provider and --model")?;
            let (table, asked) = model_claims(&samples, settings, api)?;
            model_asked = Some(asked);
            Some(table)
        }
    };
    let mut offline = OfflineWrongAnswers::default();
    let mut engine = settings.verify_limits.map(|_| workers.engine());
    let mut run = DatasetRun::default();
    let mut unchanged = 0;
    let mut progress = Progress::new(samples.len());
    let started = Instant::now();
    for sample in &samples {
        // One sample at a time through the library's dataset function: the same rows and the
        // same failures as a whole-dataset call, with progress in between.
        let verifier = match (engine.as_mut(), settings.verify_limits) {
            (Some(engine), Some(limits)) => Some((engine as &mut dyn PythonEngine, limits)),
            _ => None,
        };
        let source: &mut dyn WrongAnswerSource = match file_source.as_mut() {
            Some(file) => file,
            None => &mut offline,
        };
        let one = perturb_dataset_with_source(
            std::slice::from_ref(sample),
            &name,
            &[settings.kind],
            &[settings.options.seed],
            &settings.options,
            verifier,
            source,
        );
        unchanged += one.unchanged_of(settings.kind);
        run.rows.extend(one.rows);
        run.failures.extend(one.failures);
        run.hints.extend(one.hints);
        progress.tick(run.failures.len());
    }
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    for failure in &run.failures {
        let what = if failure.stage == Stage::Verify { "failed verification" } else { "not perturbed" };
        eprintln!("{what}: {} {} seed {}: {}", failure.id, failure.kind, failure.seed, failure.reason);
    }
    let provenance = Provenance::of_dataset(env!("CARGO_PKG_VERSION"), &name, &report.samples);
    let text = match settings.format {
        Format::Execbench => to_jsonl(&run.rows, &provenance),
        Format::CodeCrash => to_codecrash_jsonl(&run.rows, &provenance),
    };
    std::fs::write(settings.out, text).map_err(|e| format!("cannot write {}: {e}", settings.out))?;
    let not_perturbed = run.failures.iter().filter(|f| f.stage != Stage::Verify).count();
    let failed_verification = run.failures.len() - not_perturbed;
    let verified = if settings.verify_limits.is_some() { "verified and " } else { "" };
    // Named only when it is not the default, so the usual line reads as it always has.
    let profile_note = if settings.options.profile == Profile::default() {
        String::new()
    } else {
        format!(" ({} profile)", settings.options.profile)
    };
    // Rows the kind left as they were are written too (the perturbed dataset keeps every sample),
    // but they are counted, so that a kind with nothing to do is not mistaken for a perturbation.
    eprintln!(
        "{} seed {}{profile_note}: {} rows, {} invalid; {} {verified}written to {} ({unchanged} unchanged: nothing to perturb), {not_perturbed} not perturbed, {failed_verification} failed verification ({elapsed_ms:.0} ms)",
        settings.kind,
        settings.options.seed,
        report.rows,
        report.errors.len(),
        run.rows.len(),
        settings.out,
    );
    if settings.kind == Kind::Mhc {
        // How much the hints give away: a claim one edit from the truth reads like a typo.
        let task = match settings.options.prediction {
            Prediction::Output => "output",
            Prediction::Input => "input",
        };
        eprintln!(
            "MHC hint-to-truth edit distance ({task} prediction): {}",
            DistanceSummary::of(&run.hint_distances())
        );
        let probed = run.hints.iter().filter(|h| h.hint.probed.is_some()).count();
        if settings.options.prediction == Prediction::Output {
            eprintln!("MHC: {probed} of {} hints claim what the function returns on a nearby input", run.hints.len());
        }
    }
    let source_name = match (settings.wrong_answers, &settings.api) {
        (WrongAnswers::File(path), _) => Some(path.to_string()),
        (WrongAnswers::Model, Some(api)) => Some(format!("the model {}", api.api.endpoint.model)),
        _ => None,
    };
    if let (Some(file), Some(path)) = (&file_source, source_name) {
        // A sample without a usable claim in the file still gets a hint, from the offline source:
        // say which, so a "reproduced" dataset is not taken for an exact one.
        let report = file.report(&run.hints);
        let listed = |ids: &[String]| {
            let shown: Vec<&str> = ids.iter().take(10).map(String::as_str).collect();
            if ids.len() > shown.len() { format!("{}, ...", shown.join(", ")) } else { shown.join(", ") }
        };
        eprintln!(
            "MHC claims: {} of {} hints from {path}; {} fell back on offline proposals",
            report.from_file,
            run.hints.len(),
            report.fell_back()
        );
        // A model's missing claims are listed below, with why.
        if !report.missing.is_empty() && model_asked.is_none() {
            eprintln!("  no claim in the file for {}: {}", report.missing.len(), listed(&report.missing));
        }
        if !report.not_wrong.is_empty() {
            let whose = if settings.wrong_answers == WrongAnswers::Model {
                "the model's claim could not be placed"
            } else {
                "the file's claim is not wrong"
            };
            eprintln!(
                "  {whose} here (execution says so) for {}: {}",
                report.not_wrong.len(),
                listed(&report.not_wrong)
            );
        }
    }
    if let Some(asked) = &model_asked {
        // Why the model's samples fell back: its proposals, each shown right or unusable.
        let fell_back = asked.fell_back();
        if !fell_back.is_empty() {
            eprintln!("  no usable proposal from the model for {}:", fell_back.len());
            for (id, why) in fell_back.iter().take(10) {
                eprintln!("    {id}: {why}");
            }
        }
    }
    Ok(if report.errors.is_empty() && run.failures.is_empty() && not_normalised.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(raw: &[&str]) -> Result<PerturbArgs, clap::Error> {
        match crate::cli::parse_from([&["execbench", "perturb"][..], raw].concat())?.command {
            crate::cli::Command::Perturb(args) => Ok(args),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settings_are_checked_before_any_work() {
        let base = ["--dataset", "d.jsonl", "--out", "o.jsonl"];
        use clap::error::ErrorKind;
        // What clap refuses, naming the flag at fault.
        let refused: &[(&[&str], ErrorKind, &str)] = &[
            (&[], ErrorKind::MissingRequiredArgument, "--kind"),
            (&["--kind", "REN", "--seed", "-1"], ErrorKind::ValueValidation, "--seed"),
            (&["--kind", "REN", "--colour", "x"], ErrorKind::UnknownArgument, "--colour"),
        ];
        for (extra, kind, flag) in refused {
            let err = parsed(&[&base[..], extra].concat()).expect_err("refused");
            assert_eq!(err.kind(), *kind, "{extra:?}: {err}");
            assert!(err.to_string().contains(flag), "{extra:?}: {err}");
        }
        let cases: &[(&[&str], &str)] = &[
            (&["--kind", "XYZ"], "unknown kind `XYZ` (known: REN, RTF, GBC, PSC_ALL, MCC, MPS, MHC)"),
            (&["--kind", "MCC", "--p", "1.5"], "--p must be between 0 and 1, got 1.5"),
            (&["--kind", "REN", "--format", "csv"], "unknown --format `csv` (known: execbench, codecrash)"),
            (&["--kind", "MHC", "--prediction", "both"], "unknown --prediction `both` (known: output, input)"),
            (
                &["--kind", "REN", "--verify", "--no-verify"],
                "--verify and --no-verify contradict each other (verifying is the default)",
            ),
            (&["--kind", "GBC", "--profile", "crashy"], "unknown --profile `crashy` (known: execbench, codecrash)"),
            (
                &["--kind", "MHC", "--wrong-answers", "web"],
                "unknown --wrong-answers `web` (known: offline, file:PATH, model)",
            ),
            (
                &["--kind", "MHC", "--wrong-answers", "file:"],
                "unknown --wrong-answers `file:` (known: offline, file:PATH, model)",
            ),
            (&["--kind", "MHC", "--wrong-answers", "model"], "--provider is required"),
            (
                &["--kind", "MHC", "--proposals", "p.jsonl"],
                "--proposals keeps a model's proposals: it needs --wrong-answers model",
            ),
            (&["--kind", "REN", "--wrong-answers", "offline"], "--wrong-answers is for MHC only, not REN"),
        ];
        for (extra, message) in cases {
            let args = parsed(&[&base[..], extra].concat()).expect("flags parse");
            assert_eq!(settings(&args).err().as_deref(), Some(*message), "{extra:?}");
        }
        let args = parsed(
            &[
                &base[..],
                &["--kind", "psc-all", "--seed", "3", "--p", "0.5", "--once", "--verify", "--format", "codecrash"],
            ]
            .concat(),
        )
        .unwrap();
        let s = settings(&args).expect("valid flags");
        assert_eq!(
            (s.kind, s.options.seed, s.options.p, s.options.once, s.format),
            (Kind::PscAll, 3, 0.5, true, Format::CodeCrash)
        );
        assert_eq!(s.verify_limits, Some(Limits { time_ms: 2000, max_steps: 0 }));
        assert_eq!(s.options.prediction, Prediction::Output);
        // Verifying is the default; `--verify` changes nothing, `--no-verify` turns it off.
        let args =
            parsed(&[&base[..], &["--kind", "MHC", "--prediction", "input", "--time-limit", "0.5"]].concat()).unwrap();
        let defaults = settings(&args).expect("valid flags");
        assert_eq!(
            (defaults.verify_limits, defaults.options.prediction),
            (Some(Limits { time_ms: 500, max_steps: 0 }), Prediction::Input)
        );
        let args = parsed(&[&base[..], &["--kind", "REN", "--no-verify"]].concat()).unwrap();
        let unverified = settings(&args).expect("valid flags");
        assert_eq!(unverified.verify_limits, None);
        assert_eq!(unverified.options.profile, Profile::Execbench, "execbench is the default profile");
        let args = parsed(&[&base[..], &["--kind", "MCC", "--profile", "codecrash", "--format", "execbench"]].concat())
            .unwrap();
        let codecrash = settings(&args).expect("valid flags");
        assert_eq!((codecrash.options.profile, codecrash.format), (Profile::Codecrash, Format::Execbench));
        let args = parsed(&[&base[..], &["--kind", "MHC", "--wrong-answers", "file:claims.jsonl"]].concat()).unwrap();
        assert_eq!(settings(&args).expect("valid flags").wrong_answers, WrongAnswers::File("claims.jsonl"));
        assert_eq!(unverified.wrong_answers, WrongAnswers::Offline);
    }

    #[test]
    fn dataset_column_is_the_file_stem() {
        assert_eq!(dataset_name("/data/cruxeval.jsonl"), "cruxeval");
        assert_eq!(dataset_name("plain"), "plain");
    }
}
