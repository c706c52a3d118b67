//! A stored run's life, the same in the page and on the command line: the manifest a new run
//! gets, how a stored run goes on (Resume, Retry errors, Extend: computed from its records, no
//! store I/O), and [`run_session`], which marks the run running, writes what an earlier session
//! could not, runs the engine and stores how the run ended by one rule ([`ending`]).
//!
//! The front ends only translate: the page turns [`SessionEvent`]s into signals, `execbench run`
//! into progress lines. Neither decides a run's state.

use std::cell::RefCell;
use std::collections::BTreeMap;

use execbench_core::Sample;
use execbench_eval::Mode;
use execbench_eval::generations::FileScope;
use execbench_eval::models::Replay;
use execbench_eval::prompt::Template;

use crate::api::{ApiModel, ApiSettings};
use crate::cancel::CancelToken;
use crate::cost::SpendCap;
use crate::engine::{EvalJob, Event, Io, KeepRecords, PriorAnswers, Responder, RunEnd, RunOutcome, run_evaluation};
use crate::io::{Clock, HttpClient, Python, ResultStore};
use crate::manifest::{FORMAT, PriceUsed, RequestCounts, RunEntry, RunManifest, RunState, dataset_hash};
use crate::record::SampleRecord;
use crate::simulate::Simulation;
use crate::status::RunStatus;
use crate::store::{Recorder, RunStore, StoreError, WallClock};

pub mod endings;

/// What a new run is, beyond its job (samples, template, n, modes and spend cap).
#[derive(Clone, Debug)]
pub struct NewRun {
    pub run_id: String,
    /// Seconds since 1970.
    pub created: u64,
    /// The model's name as shown ([`model_name`]).
    pub model: String,
    pub api: Option<ApiSettings>,
    /// Whether its requests carry an API key (the key itself is never kept).
    pub key_used: bool,
    /// The dataset's name (a file name, or the page's dataset label).
    pub dataset: String,
    pub simulation: Option<Simulation>,
    pub price: Option<PriceUsed>,
    pub stored: Option<execbench_eval::stored::StoredScores>,
    pub app_version: String,
}

/// A new run's manifest: what it is, without any key.
pub fn new_manifest(job: &EvalJob, about: NewRun) -> RunManifest {
    RunManifest {
        format: FORMAT.to_string(),
        run_id: about.run_id,
        model: about.model,
        api: about.api,
        key_used: about.key_used,
        dataset: about.dataset,
        dataset_hash: dataset_hash(&job.samples),
        samples: job.samples.len(),
        task: job.template.task,
        template: job.template.clone(),
        n: job.n,
        modes: job.modes.clone(),
        created: about.created,
        app_version: about.app_version,
        provenance: execbench_core::provenance::perturbation_of(&job.samples),
        simulation: about.simulation,
        price: about.price,
        live_price: None,
        spend_cap: job.spend_cap.map(|c| c.limit),
        stored: about.stored,
        name: None,
    }
}

/// Prefix of a run that re-scored a file of published answers (`re-scored <file>`).
pub const RESCORED: &str = "re-scored ";

/// The name a run's manifest gives its model: the responder's, or `re-scored <file>` for a file
/// of published answers (nobody was prompted).
pub fn model_name(responder: &Responder, rescored_file: Option<&str>) -> String {
    match rescored_file {
        Some(file) => format!("{RESCORED}{file}"),
        None => responder.name(),
    }
}

/// A file of answers as a job: the dataset's samples the file covers, asked for as many answers
/// as it holds, and what of the dataset it does not cover.
#[derive(Clone, Debug)]
pub struct FileJob {
    pub job: EvalJob,
    /// Dataset samples the file has no answers for (left out of the figures).
    pub missing: Vec<String>,
    /// Ids in the file that the dataset does not have (ignored).
    pub unknown: Vec<String>,
}

/// Plans the replay or re-scoring of a file of answers. The page (Replay, Re-score) and
/// `execbench score` both plan with it and run the result through [`run_session`] with the
/// replay as the model, so the same file gives the same figures in both.
pub fn file_job(replay: &Replay, dataset: &[Sample], template: Template, modes: Vec<Mode>) -> FileJob {
    let FileScope { samples, n, missing, unknown } = replay.scope(dataset);
    FileJob { job: EvalJob::new(samples, template, n, modes), missing, unknown }
}

/// The spend cap a live session of the run carries: its manifest's limit at the price of answers
/// asked live (a batch run's live price, not its batch price: the provider bills them live), with
/// what its records already cost. A batch submission's is [`crate::batch::batch_spend_cap`].
pub fn spend_cap_of(entry: &RunEntry) -> Option<SpendCap> {
    let limit = entry.manifest.spend_cap?;
    let (price, spent_before) = (entry.live_price()?, entry.cost()?);
    Some(SpendCap { limit, price, spent_before })
}

/// What to do with a stored run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continue {
    /// Ask for the samples with no record.
    Resume,
    /// Ask for the samples with no record and again for those whose record is an error
    /// (`execbench run --resume`).
    RetryErrors,
    /// Ask `extra` more answers of every sample (n grows).
    Extend { extra: usize },
}

/// A stored run carried on: the job to run, the entry to record under, the records it has.
#[derive(Debug)]
pub struct Continuation {
    pub job: EvalJob,
    pub entry: RunEntry,
    pub earlier: Vec<SampleRecord>,
}

/// Plans how `entry` goes on with `dataset` (the samples loaded now: its first `samples` must be
/// the run's, same content hash) and the run's `records`. `cap`: a new spend cap in dollars for
/// the whole run, kept in its manifest. Refused, naming why, for a run that replayed a file, a
/// dataset that differs, or a cap without a price.
pub fn continuation(
    entry: &RunEntry,
    mut records: Vec<SampleRecord>,
    dataset: &[Sample],
    what: Continue,
    cap: Option<f64>,
) -> Result<Continuation, String> {
    let manifest = &entry.manifest;
    if manifest.model.starts_with(RESCORED) || manifest.model.starts_with("replay") {
        return Err(format!(
            "{} replayed a file: import the file again on the Evaluate page to run it",
            manifest.run_id
        ));
    }
    let samples: Vec<Sample> = dataset.iter().take(manifest.samples).cloned().collect();
    let mut now = manifest.clone();
    now.samples = samples.len();
    now.dataset_hash = dataset_hash(&samples);
    // Only the samples are known here, not the open dataset's name: the refusal must not give it
    // the run's.
    now.dataset = "the dataset loaded now".to_string();
    let conflicts = manifest.resume_conflicts(&now);
    if !conflicts.is_empty() {
        return Err(format!(
            "{} cannot go on with the dataset loaded now: {}. Load the run's dataset ({}) first.",
            manifest.run_id,
            conflicts.join("; "),
            manifest.dataset
        ));
    }
    if cap.is_some() && manifest.price.is_none() {
        return Err(format!("{}: a spend cap needs a price, and this run has none", manifest.run_id));
    }
    records.sort_by_key(|r| r.index);
    let mut entry = entry.clone();
    let mut job = EvalJob::new(samples, manifest.template.clone(), manifest.n, manifest.modes.clone());
    // A sample scored with fewer answers than n (an Extend stopped or refused before it): Resume
    // and Retry errors ask for the answers it lacks, keeping the ones it has.
    let short = |r: &SampleRecord| {
        !r.is_error() && r.results.first().is_some_and(|s| !s.answers.is_empty() && s.answers.len() < manifest.n)
    };
    let prior_of_short = || -> BTreeMap<String, PriorAnswers> {
        records
            .iter()
            .filter(|r| short(r))
            .filter_map(|r| PriorAnswers::of(r).map(|p| (r.sample_id.clone(), p)))
            .collect()
    };
    match what {
        Continue::Resume => {
            job.done = records.iter().filter(|r| !short(r)).map(|r| r.sample_id.clone()).collect();
            job.prior = prior_of_short();
        }
        Continue::RetryErrors => {
            job.done = records.iter().filter(|r| !r.is_error() && !short(r)).map(|r| r.sample_id.clone()).collect();
            job.prior = prior_of_short();
        }
        Continue::Extend { extra } => {
            job.n = manifest.n + extra;
            entry.manifest.n = job.n;
            // Errors and samples without a record are asked for all n.
            job.prior = records.iter().filter_map(|r| PriorAnswers::of(r).map(|p| (r.sample_id.clone(), p))).collect();
        }
    }
    entry.manifest.spend_cap = cap.or(manifest.spend_cap);
    job.spend_cap = spend_cap_of(&entry);
    // A batch run's answers asked live are billed live: each record keeps them apart.
    job.batch_run = entry.is_batch_run();
    Ok(Continuation { job, entry, earlier: records })
}

/// Whether going on with the run needs an API key: its provider always asks for one, or the run
/// was made with one (an OpenAI-compatible server behind a key).
pub fn needs_key(manifest: &RunManifest) -> bool {
    manifest
        .api
        .as_ref()
        .is_some_and(|settings| manifest.key_used || settings.endpoint.preset().is_some_and(|p| p.key_required))
}

/// The model a stored run was made with, again: its API settings with `key` (the user's, for the
/// provider and address they confirmed), or an offline model rebuilt from its name. A run that
/// [`needs_key`] and has none is refused here, before any request.
pub fn stored_responder(manifest: &RunManifest, key: Option<String>) -> Result<Responder, String> {
    match &manifest.api {
        Some(settings) => {
            if let Some(refusal) = simulation_missing(manifest) {
                return Err(refusal);
            }
            let key = key.filter(|k| !k.trim().is_empty());
            if needs_key(manifest) && key.is_none() {
                return Err(format!(
                    "{} needs the API key of {} ({}): type it in the key field, then try again. Nothing was sent; the key is not stored with the run",
                    manifest.run_id,
                    settings.endpoint.provider,
                    execbench_providers::redact_base_url(&settings.endpoint.base_url)
                ));
            }
            Ok(Responder::Api(ApiModel { settings: settings.clone(), key }))
        }
        None => execbench_eval::models::offline_model(&manifest.model).map(Responder::Offline).ok_or_else(|| {
            format!("{}: the model `{}` cannot be run again from here", manifest.run_id, manifest.model)
        }),
    }
}

/// Why a run that names the simulated model but carries no simulation must not go on: its
/// requests would be real ones, posted to whatever address the file names. None for every other
/// run.
pub fn simulation_missing(manifest: &RunManifest) -> Option<String> {
    let settings = manifest.api.as_ref()?;
    (settings.endpoint.provider == crate::simulate::PROVIDER && manifest.simulation.is_none()).then(|| {
        format!(
            "{} names the simulated model but carries no simulation settings, so its prompts would go to {} instead: refused, nothing was sent",
            manifest.run_id,
            execbench_providers::redact_base_url(&settings.endpoint.base_url)
        )
    })
}

/// How a session's end is stored: the one rule of the page and the command line. Every ending
/// but a provider's refusal can be resumed; a run that finished with samples never asked (a pilot)
/// is paused, not finished. `keyless`: the requests carried no key, so a refused key is no verdict
/// on the run (it pauses until one is given).
pub fn ending(end: &RunEnd, missing: usize, keyless: bool) -> (RunState, Option<String>) {
    match end {
        RunEnd::ProviderStopped(e) if keyless && e.kind == execbench_providers::ErrorKind::BadKey => (
            RunState::Paused,
            Some(format!("the server asks for an API key and none was sent ({e}): type the key, then Resume")),
        ),
        RunEnd::Finished if missing > 0 => {
            (RunState::Paused, Some(format!("{missing} samples not asked yet: Resume asks for them")))
        }
        RunEnd::Finished => (RunState::Finished, None),
        RunEnd::Stopped => (RunState::Paused, Some("stopped: Resume asks for the rest".to_string())),
        RunEnd::SpendCap { .. } | RunEnd::StoreFailed(_) => (RunState::Paused, Some(end.describe())),
        RunEnd::ProviderStopped(_) => (RunState::Failed, Some(end.describe())),
    }
}

/// The stored run a session records into.
pub struct Session<'s, S: RunStore> {
    pub store: &'s S,
    /// The run's entry: new ([`RunEntry::new`]) or as stored.
    pub entry: RunEntry,
    /// The run's stored records (none for a new run).
    pub earlier: Vec<SampleRecord>,
    /// Records an earlier session could not store (a full disk): written first.
    pub unsaved: Vec<SampleRecord>,
    /// Wall-clock ms since 1970, for the entry's times.
    pub now_ms: WallClock<'s>,
}

/// What a session reports while it runs.
pub enum SessionEvent<'a> {
    /// The run is stored as running, with the records an earlier session could not store.
    Started(&'a RunEntry),
    /// The engine's report, with the run's entry as stored now (built when asked: a clone).
    Engine(Event<'a>, &'a dyn Fn() -> RunEntry),
}

/// How a session ended.
pub struct SessionEnd {
    /// The engine's outcome: how it ended, this session's records, the status.
    pub outcome: RunOutcome,
    /// The run's entry as it ends (state and note by [`ending`]).
    pub entry: RunEntry,
    /// Every record of the run in dataset order: the stored ones, replaced by this session's
    /// (those the store refused included).
    pub records: Vec<SampleRecord>,
    /// Records the store refused: keep them for the next session's [`Session::unsaved`].
    pub unsaved: Vec<SampleRecord>,
    /// The ending could not be stored (the entry says how it ended all the same).
    pub state_error: Option<StoreError>,
    /// How long each record took to be stored, ms.
    pub store_times_ms: Vec<f64>,
}

/// A session that could not mark its run running or write the records left from before: nothing
/// was asked.
#[derive(Debug)]
pub struct NotStarted {
    pub error: StoreError,
    /// The earlier session's records still not stored.
    pub unsaved: Vec<SampleRecord>,
}

/// The run's store, timed: how long each record takes to be written.
struct TimedStore<'r, 'a, S: RunStore, C: Clock> {
    recorder: &'r Recorder<'a, S>,
    clock: &'r C,
    times_ms: RefCell<Vec<f64>>,
}

impl<S: RunStore, C: Clock> ResultStore for TimedStore<'_, '_, S, C> {
    async fn put(&self, record: &SampleRecord) -> Result<(), String> {
        let started = self.clock.now_ms();
        let result = self.recorder.record(record).await.map_err(|e| e.to_string());
        self.times_ms.borrow_mut().push(self.clock.now_ms() - started);
        result
    }
}

/// The I/O a session's engine uses (the store is the session's).
pub struct SessionIo<'a, P, H, C> {
    pub python: &'a P,
    pub http: &'a H,
    pub clock: &'a C,
}

/// Runs `job` with `responder` as a session of the stored run: marks it running, writes the
/// records an earlier session could not, runs the engine (every finished sample stored before it
/// is reported) and stores the ending by [`ending`]. Cancel `cancel` to stop.
pub async fn run_session<P: Python, H: HttpClient, C: Clock, S: RunStore>(
    session: Session<'_, S>,
    mut job: EvalJob,
    responder: &mut Responder,
    io: SessionIo<'_, P, H, C>,
    cancel: &CancelToken,
    on_event: &dyn Fn(SessionEvent<'_>),
) -> Result<SessionEnd, NotStarted> {
    let Session { store, entry, earlier, unsaved, now_ms } = session;
    let before = entry.requests;
    let recorder = Recorder::new(store, entry, &earlier, now_ms);
    // The records are the caller's to keep or not (a long run's memory stays flat without them).
    let earlier = if job.keep == KeepRecords::Whole { earlier } else { Vec::new() };
    if let Err(error) = recorder.set_state(RunState::Running, None).await {
        return Err(NotStarted { error, unsaved });
    }
    let mut stored_first = Vec::new();
    for (i, record) in unsaved.iter().enumerate() {
        if let Err(error) = recorder.record(record).await {
            return Err(NotStarted { error, unsaved: unsaved[i..].to_vec() });
        }
        stored_first.push(record.clone());
    }
    job.done.extend(stored_first.iter().map(|r| r.sample_id.clone()));
    on_event(SessionEvent::Started(&recorder.entry()));

    let timed = TimedStore { recorder: &recorder, clock: io.clock, times_ms: RefCell::new(Vec::new()) };
    let entry_now = || recorder.entry();
    let engine_event = |event: Event<'_>| {
        if let Event::Status(status) = &event {
            recorder.set_requests(before.plus(requests_of(status)));
        }
        on_event(SessionEvent::Engine(event, &entry_now))
    };
    let engine_io = Io { python: io.python, http: io.http, clock: io.clock, store: &timed };
    let outcome = run_evaluation(&job, responder, engine_io, cancel, &engine_event).await;
    recorder.set_requests(before.plus(requests_of(&outcome.status)));

    let keyless = matches!(responder, Responder::Api(m) if m.key.as_deref().is_none_or(|k| k.trim().is_empty()));
    let (state, note) = ending(&outcome.end, recorder.entry().missing(), keyless);
    let state_error = recorder.set_state(state, note).await.err();
    // A job that keeps nothing (the command line) never builds the merged list.
    let records = match job.keep {
        KeepRecords::Nothing => Vec::new(),
        KeepRecords::Whole => {
            let by_id: BTreeMap<String, SampleRecord> = earlier
                .into_iter()
                .chain(stored_first)
                .chain(outcome.records.iter().cloned())
                .chain(outcome.unsaved.iter().cloned())
                .map(|r| (r.sample_id.clone(), r))
                .collect();
            let mut records: Vec<SampleRecord> = by_id.into_values().collect();
            records.sort_by_key(|r| r.index);
            records
        }
    };
    Ok(SessionEnd {
        unsaved: outcome.unsaved.clone(),
        entry: recorder.entry(),
        records,
        outcome,
        state_error,
        store_times_ms: timed.times_ms.take(),
    })
}

/// One session's requests, as its status counted them.
pub fn requests_of(status: &RunStatus) -> RequestCounts {
    RequestCounts {
        sent: status.requests_sent as u64,
        retries: status.retries as u64,
        rate_limit_waits: status.rate_limit_waits as u64,
        failed: status.failed_attempts as u64,
    }
}

/// Marks every run still "running" as interrupted (no session of this start runs it: a reload, a
/// closed tab or a killed process cut it off). Returns the positions it changed.
fn interrupted_at_start(entries: &mut [RunEntry]) -> Vec<usize> {
    let mut changed = Vec::new();
    for (i, entry) in entries.iter_mut().enumerate().filter(|(_, e)| e.state == RunState::Running) {
        entry.state = RunState::Interrupted;
        entry.note = Some(INTERRUPTED.to_string());
        changed.push(i);
    }
    changed
}

/// The note of a run found running at start-up.
pub const INTERRUPTED: &str =
    "the page was closed or reloaded while it ran: Resume asks only for the samples without a record";

/// Reads the stored runs as a front end starts, marking the ones cut off as interrupted
/// and storing their new state. A state that cannot be stored is reported, the list still read.
pub async fn open_runs<S: RunStore>(store: &S) -> Result<(Vec<RunEntry>, Vec<StoreError>), StoreError> {
    let mut entries = store.entries().await?;
    let mut problems = Vec::new();
    for i in interrupted_at_start(&mut entries) {
        if let Err(e) = store.save_entry(&entries[i]).await {
            problems.push(e);
        }
    }
    Ok((entries, problems))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryRunStore;
    use crate::store::conformance::{manifest, record};

    #[test]
    fn every_ending_has_one_stored_state() {
        use execbench_providers::{ErrorKind, ProviderError};
        let refused = ProviderError::new(ErrorKind::BadKey, Some(401), "the key was refused");
        let no_credit = ProviderError::new(ErrorKind::NoCredits, Some(402), "no credits left");
        // (how the engine ended, samples without a record, sent without a key, state, note starts with)
        let cases: Vec<(RunEnd, usize, bool, RunState, Option<&str>)> = vec![
            (RunEnd::Finished, 0, false, RunState::Finished, None),
            (RunEnd::Finished, 2, false, RunState::Paused, Some("2 samples not asked yet")),
            (RunEnd::Stopped, 3, false, RunState::Paused, Some("stopped: Resume asks for the rest")),
            (RunEnd::SpendCap { spent: 0.5, limit: 0.6 }, 1, false, RunState::Paused, Some("paused at the spend cap")),
            (
                RunEnd::StoreFailed("full".into()),
                1,
                false,
                RunState::Paused,
                Some("paused: a result could not be stored"),
            ),
            (RunEnd::ProviderStopped(refused.clone()), 3, false, RunState::Failed, Some("stopped by the provider")),
            // A key refused when none was sent is no verdict: the run waits for one.
            (RunEnd::ProviderStopped(refused), 3, true, RunState::Paused, Some("the server asks for an API key")),
            (RunEnd::ProviderStopped(no_credit), 3, true, RunState::Failed, Some("stopped by the provider")),
        ];
        for (end, missing, keyless, state, note) in cases {
            let (got_state, got_note) = ending(&end, missing, keyless);
            assert_eq!(got_state, state, "{end:?}");
            match note {
                None => assert_eq!(got_note, None, "{end:?}"),
                Some(start) => {
                    assert!(got_note.as_deref().is_some_and(|n| n.starts_with(start)), "{end:?}: {got_note:?}")
                }
            }
        }
    }

    fn samples(count: usize) -> Vec<Sample> {
        endings::samples_of(count)
    }

    fn stored(samples: &[Sample]) -> RunEntry {
        let mut m = manifest("run-1", 1);
        m.samples = samples.len();
        m.dataset_hash = dataset_hash(samples);
        RunEntry::new(m, 0.0)
    }

    #[test]
    fn continuations_ask_for_what_each_choice_says() {
        let data = samples(3);
        let entry = stored(&data);
        let records = vec![record("s0", 0, Some(1.0), false), record("s1", 1, None, true)];
        let done = |what| {
            let c = continuation(&entry, records.clone(), &data, what, None).unwrap();
            (c.job.done.into_iter().collect::<Vec<_>>(), c.job.n, c.job.prior.len())
        };
        // (choice, samples not asked, n, samples with prior answers: the scored one, not the error)
        let cases: &[(Continue, &[&str], usize, usize)] = &[
            (Continue::Resume, &["s0", "s1"], 1, 0),
            (Continue::RetryErrors, &["s0"], 1, 0),
            (Continue::Extend { extra: 2 }, &[], 3, 1),
        ];
        for (what, not_asked, n, prior) in cases {
            assert_eq!(done(*what), (not_asked.iter().map(|s| s.to_string()).collect(), *n, *prior), "{what:?}");
        }
    }

    #[test]
    fn an_extend_cut_short_is_finished_by_resume_and_retry() {
        let data = samples(3);
        let mut entry = stored(&data);
        // Extended from n = 1 to n = 3, stopped after s0 got its new answers: s1 still has one.
        entry.manifest.n = 3;
        let answered = |id: &str, index: usize, answers: usize| {
            let mut r = record(id, index, Some(1.0), false);
            let answer = execbench_eval::report::AnswerRecord {
                response: Some("1".into()),
                extraction: execbench_eval::Extraction::verbatim("1"),
                verdict: execbench_eval::Verdict::Correct,
            };
            r.results[0].answers = vec![answer; answers];
            r
        };
        let records = vec![answered("s0", 0, 3), answered("s1", 1, 1), record("s2", 2, None, true)];
        // (choice, samples not asked, samples asked for the rest of n with their answers kept)
        let cases: &[(Continue, &[&str], &[&str])] =
            &[(Continue::Resume, &["s0", "s2"], &["s1"]), (Continue::RetryErrors, &["s0"], &["s1"])];
        for (what, not_asked, topped_up) in cases {
            let c = continuation(&entry, records.clone(), &data, *what, None).unwrap();
            assert_eq!(c.job.done.iter().map(String::as_str).collect::<Vec<_>>(), *not_asked, "{what:?}");
            assert_eq!(c.job.prior.keys().map(String::as_str).collect::<Vec<_>>(), *topped_up, "{what:?}");
            assert_eq!((c.job.n, c.job.prior["s1"].responses.len()), (3, 1), "{what:?}");
        }
    }

    #[test]
    fn a_continuation_is_refused_naming_why() {
        let data = samples(3);
        let entry = stored(&data);
        let other = samples(4)[1..].to_vec();
        let cases: Vec<(RunEntry, &[Sample], Option<f64>, &str)> = vec![
            (entry.clone(), &other, None, "cannot go on with the dataset loaded now: the dataset's content differs"),
            (entry.clone(), &data, Some(1.0), "a spend cap needs a price"),
            (
                RunEntry {
                    manifest: RunManifest { model: "re-scored x.json".into(), ..entry.manifest.clone() },
                    ..entry
                },
                &data,
                None,
                "replayed a file",
            ),
        ];
        for (entry, dataset, cap, message) in cases {
            let err = continuation(&entry, Vec::new(), dataset, Continue::Resume, cap).unwrap_err();
            assert!(err.contains(message), "{err}");
        }
    }

    #[test]
    fn stored_models_come_back_by_name_or_are_refused() {
        let m = manifest("run-1", 1);
        assert_eq!(stored_responder(&m, None).unwrap().name(), "oracle");
        let unknown = RunManifest { model: "gpt-9".into(), ..m };
        assert!(stored_responder(&unknown, None).err().unwrap().contains("cannot be run again"));
    }

    #[test]
    fn a_run_that_needs_a_key_is_refused_without_one_before_any_request() {
        use execbench_providers::Endpoint;
        let api = |provider: &str| {
            Some(ApiSettings::new(Endpoint {
                provider: provider.into(),
                base_url: "http://127.0.0.1:9/v1".into(),
                model: "m".into(),
            }))
        };
        let m = manifest("run-1", 1);
        let run = |provider: &str, key_used: bool| RunManifest { api: api(provider), key_used, ..m.clone() };
        // (manifest, key given, refused)
        let cases: Vec<(RunManifest, Option<&str>, bool)> = vec![
            (run("openai", false), None, true),
            (run("openai", false), Some("  "), true),
            (run("openai", false), Some("k"), false),
            // Any URL: a key only when the run was made with one.
            (run("openai-compatible", false), None, false),
            (run("openai-compatible", true), None, true),
            (run("openai-compatible", true), Some(""), true),
            (run("openai-compatible", true), Some("k"), false),
            (run("vllm", false), None, false),
        ];
        for (manifest, key, refused) in cases {
            let name = format!(
                "{} key_used={} key={key:?}",
                manifest.api.as_ref().unwrap().endpoint.provider,
                manifest.key_used
            );
            match stored_responder(&manifest, key.map(str::to_string)) {
                Err(e) => {
                    assert!(refused, "{name}: {e}");
                    assert!(e.contains("needs the API key") && e.contains("Nothing was sent"), "{name}: {e}");
                }
                Ok(Responder::Api(model)) => {
                    assert!(!refused, "{name}: not refused");
                    assert_eq!(model.key.as_deref(), key.filter(|k| !k.trim().is_empty()), "{name}");
                }
                Ok(_) => panic!("{name}: not an API model"),
            }
        }
    }

    /// A file that names the simulated model without its simulation would have its prompts
    /// posted to the address it names: refused before any request, with or without a key.
    #[test]
    fn a_simulated_run_without_its_simulation_is_refused() {
        use execbench_providers::Endpoint;
        let endpoint = Endpoint {
            provider: "simulated".into(),
            base_url: "https://collector.example/v1".into(),
            model: "m".into(),
        };
        let mut m = RunManifest { api: Some(ApiSettings::new(endpoint)), ..manifest("run-1", 1) };
        for key in [None, Some("k".to_string())] {
            let e = stored_responder(&m, key).err().expect("refused");
            assert!(e.contains("carries no simulation") && e.contains("https://collector.example/v1"), "{e}");
        }
        m.simulation = Some(crate::simulate::Simulation::default());
        assert!(matches!(stored_responder(&m, None), Ok(Responder::Api(_))), "with its simulation it runs in the page");
    }

    #[test]
    fn runs_left_running_are_interrupted_at_start() {
        let store = MemoryRunStore::new();
        futures::executor::block_on(async {
            let mut running = RunEntry::new(manifest("a", 1), 0.0);
            running.state = RunState::Running;
            let mut finished = RunEntry::new(manifest("b", 2), 0.0);
            finished.state = RunState::Finished;
            store.save_entry(&running).await.unwrap();
            store.save_entry(&finished).await.unwrap();
            let (entries, problems) = open_runs(&store).await.unwrap();
            assert!(problems.is_empty());
            let states: Vec<_> = entries.iter().map(|e| (e.id().to_string(), e.state)).collect();
            assert_eq!(states, [("b".to_string(), RunState::Finished), ("a".to_string(), RunState::Interrupted)]);
            assert_eq!(store.entry("a").await.unwrap().unwrap().state, RunState::Interrupted, "stored so");
        });
    }
}
