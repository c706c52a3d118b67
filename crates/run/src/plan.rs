//! What `execbench run` will do, decided before anything is asked: a new run's manifest, or how
//! the run file it resumes goes on (why it cannot, the price it takes, the continuation its
//! flags choose), what that asks and may cost, what the model is not sent, and whether live
//! requests or the provider's batch service answer it. Plain values in, a plan out: the command
//! line reads the files and the key, says the plan and carries it out.

use execbench_core::Sample;
use execbench_providers::{KeyScope, NotSent};

use crate::api::ApiSettings;
use crate::batch::{self, RetryVia};
use crate::continuation_cost::{ContinuationEstimate, estimate_continuation};
use crate::engine::EvalJob;
use crate::manifest::{PriceUsed, RunEntry, RunManifest, Tally};
use crate::record::SampleRecord;
use crate::runfile::RunFile;
use crate::session::{self, Continue, NewRun};

/// The flags that choose what a run does, as plain values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFlags {
    /// `--batch`: the run's asks go to the provider's batch service.
    pub batch: bool,
    /// `--wait`: check the batches until every one is collected.
    pub wait: bool,
    /// `--retry-errors`: `Some(None)` without a value (a batch run's errors go in a new batch).
    pub retry: Option<Option<RetryVia>>,
    /// `--spend-cap`: dollars for the whole run.
    pub spend_cap: Option<f64>,
}

/// A new run's manifest: `about` and the job, with the flags' spend cap; with `--batch`, priced
/// as a batch run (costs and the cap at the batch price, the live price kept for answers asked
/// live). `--batch` needs a model API.
pub fn new_run_manifest(job: &EvalJob, about: NewRun, flags: &RunFlags) -> Result<RunManifest, String> {
    let has_api = about.api.is_some();
    let mut manifest = session::new_manifest(job, about);
    manifest.spend_cap = flags.spend_cap;
    if flags.batch {
        if !has_api {
            return Err("--batch is for model APIs: an offline model answers at once".to_string());
        }
        batch::price_as_batch_run(&mut manifest);
    }
    Ok(manifest)
}

/// What a session starts from: the run's entry, the job to run, the records it has, and how a
/// batch run's errors are asked again (`--retry-errors` on a run file with batches).
#[derive(Debug)]
pub struct Start {
    pub entry: RunEntry,
    pub job: EvalJob,
    /// The run's records so far (none for a new run).
    pub earlier: Vec<SampleRecord>,
    pub retry_via: Option<RetryVia>,
}

/// A new run as it starts, at `now_ms`: its entry, and `job` with the run's spend cap.
pub fn new_run(manifest: RunManifest, job: EvalJob, now_ms: f64) -> Start {
    let entry = RunEntry::new(manifest, now_ms);
    let job = EvalJob { spend_cap: session::spend_cap_of(&entry), ..job };
    Start { entry, job, earlier: Vec::new(), retry_via: None }
}

/// What the flags are, beside the run file they resume.
#[derive(Clone, Debug)]
pub struct Resuming<'a> {
    /// The manifest a new run with these flags would have ([`new_run_manifest`]): the file's
    /// must describe the same run.
    pub wanted: &'a RunManifest,
    /// The variable the key is read from, named when the run was made with a key and none is set.
    pub key_env: Option<&'a str>,
    /// This machine's price for the model (`--price`, else the bundled table's): a resumed run
    /// takes it, never the file's (a file's 0 would make `--spend-cap` a no-op).
    pub price: Option<PriceUsed>,
    /// How a model run in this process differs from the files the run used, one line a file (the
    /// front end fingerprints them).
    pub local_model_changes: Vec<String>,
    /// The samples loaded now: the run's must be their first ones.
    pub samples: &'a [Sample],
    pub flags: &'a RunFlags,
    /// Wall-clock ms since 1970: the resumed entry's time.
    pub now_ms: f64,
}

/// How a run file resumed goes on.
// One value per run: the size difference costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum ResumePlan {
    /// It does not describe the run the flags ask for: why, one line each. Nothing is written.
    Refused(Vec<String>),
    GoesOn {
        /// How the run's price changed from the file's, one line each.
        price_changes: Vec<String>,
        /// What the session starts from, or why the run cannot go on (the dataset differs,
        /// nothing to retry, ...).
        start: Result<Start, String>,
    },
}

/// Plans `--resume` of `file`: refused when the file describes another run than the flags
/// (dataset, task, template, n, modes, endpoint, the local model's files, a key it was made with
/// and that is not set now). Otherwise its samples with a record are skipped and its errors asked
/// again, as the flags choose: a live run asks them again live (none with `--batch`, which submits
/// only what has no record); a batch run keeps its errors as the provider's word, unless
/// `--retry-errors` asks them again (in a new batch by default).
pub fn resume(file: RunFile, resuming: &Resuming) -> ResumePlan {
    let wanted = resuming.wanted;
    let mut conflicts = file.manifest.resume_conflicts(wanted);
    conflicts.extend(endpoint_conflict(file.manifest.api.as_ref(), wanted.api.as_ref()));
    conflicts.extend(resuming.local_model_changes.iter().cloned());
    // Made with a key, it would only be refused without one: asked for before any request.
    if file.manifest.key_used && !wanted.key_used {
        conflicts.push(format!(
            "the run was made with an API key and none is set now: set {} (or name the variable with --key-env)",
            resuming.key_env.unwrap_or("the provider's key variable")
        ));
    }
    if !conflicts.is_empty() {
        return ResumePlan::Refused(conflicts);
    }
    let records: Vec<SampleRecord> = file.records.into_values().collect();
    let mut entry = RunEntry::new(file.manifest, resuming.now_ms);
    let mut price_changes = Vec::new();
    if entry.manifest.api.is_some() {
        crate::file_review::use_known_price(&mut entry.manifest, resuming.price.clone(), &mut price_changes);
    }
    if let Some(state) = file.state {
        entry.active_ms = state.active_ms;
        entry.requests = state.requests;
        entry.batches = state.batches;
    }
    entry.tally = Tally::of(&records);
    let start = continue_as_flags_say(&entry, records, resuming.samples, resuming.flags);
    ResumePlan::GoesOn { price_changes, start }
}

/// The continuation the flags choose for a resumed `entry` (see [`resume`]).
fn continue_as_flags_say(
    entry: &RunEntry,
    records: Vec<SampleRecord>,
    samples: &[Sample],
    flags: &RunFlags,
) -> Result<Start, String> {
    let is_batch_run = !entry.batches.is_empty();
    // Errors are asked again: a resumed file ends with every sample scored if it can be. A batch
    // run's errors stay records: they are the provider's word on those lines.
    let what = if !is_batch_run && !flags.batch { Continue::RetryErrors } else { Continue::Resume };
    let (plan, retry_via) = match flags.retry {
        Some(via) if is_batch_run => {
            let via = via.unwrap_or(RetryVia::Batch);
            (batch::retry_errors(entry, records, samples, via, flags.spend_cap), Some(via))
        }
        Some(Some(RetryVia::Batch)) => (
            Err(format!(
                "{} is a live run: --retry-errors batch is for batch runs (--resume alone asks again for its errors)",
                entry.id()
            )),
            None,
        ),
        _ => (session::continuation(entry, records, samples, what, flags.spend_cap), None),
    };
    let plan = plan?;
    Ok(Start { entry: plan.entry, job: plan.job, earlier: plan.earlier, retry_via })
}

/// A run file resumed with flags that name another provider or origin than its manifest: refused
/// before any request. Requests always go where the flags say (never to the file's address), and
/// a file edited to point elsewhere must not quietly become a run against another server.
pub fn endpoint_conflict(file: Option<&ApiSettings>, flags: Option<&ApiSettings>) -> Option<String> {
    let (file, flags) = (file?, flags?);
    let scope = |api: &ApiSettings| KeyScope::of(&api.endpoint.provider, &api.endpoint.base_url);
    match (scope(file), scope(flags)) {
        (Ok(f), Ok(now)) if f == now => None,
        (Ok(f), Ok(now)) => Some(format!(
            "the endpoint differs (the run: {} at {}, now: {} at {}): resume with the run's --provider and --base-url, or start a new --out",
            f.provider, f.origin, now.provider, now.origin
        )),
        (Err(e), _) => Some(format!("the run's base URL cannot be read ({e}): start a new --out")),
        (_, Err(e)) => Some(format!("--base-url: {e}")),
    }
}

/// How a run's asks are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answering {
    /// Live requests, in a session of the run (`session::run_session`).
    Live,
    /// The provider's batch service: `submit` the samples with no record and no batch (a new
    /// `--batch` run, `--batch` on resume, errors retried as a new batch), then check the batches.
    Batch { submit: bool },
}

/// A run planned: what it records under and asks, what that may cost, and how it is answered.
#[derive(Debug)]
pub struct RunPlan {
    pub entry: RunEntry,
    pub job: EvalJob,
    /// The run's records so far.
    pub earlier: Vec<SampleRecord>,
    /// What the session asks and may cost before it asks, at the price the provider bills it (a
    /// new run, or the rest of a resumed one); none for an offline model, or a batch run only
    /// checking its batches (it asks nothing new).
    pub estimate: Option<ContinuationEstimate>,
    /// The settings the model does not take, in words: said before the first request (a run file
    /// written before the model table knew it is fitted the same way: requests never send them).
    pub not_sent: Vec<NotSent>,
    /// How it is answered, or why these flags cannot run it.
    pub answering: Result<Answering, String>,
}

/// Plans the session `start` begins with the flags; `is_api`: a model API answers (not an
/// offline model).
pub fn plan(start: Start, flags: &RunFlags, is_api: bool) -> RunPlan {
    let Start { entry, job, earlier, retry_via } = start;
    let has_batches = !entry.batches.is_empty();
    let estimate = entry.manifest.api.as_ref().filter(|_| !has_batches || retry_via.is_some()).map(|api| {
        let as_batch = (flags.batch && !has_batches) || retry_via == Some(RetryVia::Batch);
        let (supports_n, max_tokens) = (api.endpoint.supports_n(), api.params.max_tokens as u64);
        estimate_continuation(&entry, &job, &earlier, as_batch, supports_n, max_tokens)
    });
    let not_sent = entry.manifest.api.as_ref().map(not_sent).unwrap_or_default();
    let answering = if retry_via != Some(RetryVia::Live) && (flags.batch || has_batches) {
        if is_api {
            Ok(Answering::Batch { submit: flags.batch || retry_via == Some(RetryVia::Batch) })
        } else {
            Err("--batch is for model APIs: an offline model answers at once".to_string())
        }
    } else if flags.wait {
        Err("--wait is for batch runs: pass --batch".to_string())
    } else {
        Ok(Answering::Live)
    };
    RunPlan { entry, job, earlier, estimate, not_sent, answering }
}

/// What `api` asks for that its model does not take: what the settings already left out, and
/// what fitting them to the model leaves out now.
fn not_sent(api: &ApiSettings) -> Vec<NotSent> {
    let mut left_out = api.not_sent.clone();
    left_out.extend(execbench_providers::fit(&api.endpoint, &api.params).not_sent);
    left_out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use execbench_eval::prompt::{Style, default_template};
    use execbench_eval::{Mode, Task};
    use execbench_providers::Endpoint;
    use execbench_providers::batch::{self as wire, BatchPhase, BatchStatus};

    use super::*;
    use crate::batch::SubmittedBatch;
    use crate::cost::Price;
    use crate::manifest::{RunState, dataset_hash};
    use crate::runfile::StateLine;
    use crate::session::endings::samples_of;
    use crate::store::conformance::record;

    fn api(provider: &str, base_url: &str) -> ApiSettings {
        ApiSettings::new(Endpoint { provider: provider.into(), base_url: base_url.into(), model: "m".into() })
    }

    fn price(input_per_million: f64) -> PriceUsed {
        PriceUsed { price: Price::per_million(input_per_million, 2.0 * input_per_million), source: "test".into() }
    }

    /// A run of `samples` as `execbench run` makes it: with a model API or offline, a key or not.
    fn wanted(samples: &[Sample], api: Option<ApiSettings>, key_used: bool) -> RunManifest {
        let job = EvalJob::new(samples.to_vec(), default_template(Task::Output, Style::Direct), 1, vec![Mode::Strict]);
        let about = NewRun {
            run_id: "run-1".into(),
            created: 1000,
            model: "m".into(),
            price: api.as_ref().map(|_| price(1.0)),
            api,
            key_used,
            dataset: "d.jsonl".into(),
            simulation: None,
            stored: None,
            app_version: "test".into(),
        };
        new_run_manifest(&job, about, &RunFlags::default()).unwrap()
    }

    fn batch(samples: &[usize], collected: bool) -> SubmittedBatch {
        SubmittedBatch {
            id: "b".into(),
            custom_ids: samples.iter().map(|&s| wire::custom_id(s, 0)).collect(),
            status: BatchStatus {
                id: "b".into(),
                phase: if collected { BatchPhase::Expired } else { BatchPhase::InProgress },
                provider_state: "x".into(),
                total: samples.len() as u64,
                succeeded: 0,
                failed: 0,
                result_files: Vec::new(),
                reason: None,
            },
            collected,
        }
    }

    /// A run file of `manifest` with `records` as (sample, is an error), and `batches`.
    fn file(manifest: &RunManifest, records: &[(usize, bool)], batches: Vec<SubmittedBatch>) -> RunFile {
        let records = records
            .iter()
            .map(|&(s, error)| (format!("s{s}"), record(&format!("s{s}"), s, Some(1.0), error)))
            .collect::<BTreeMap<_, _>>();
        let state = StateLine {
            state: RunState::Paused,
            note: None,
            updated_ms: 0.0,
            active_ms: 1500.0,
            name: None,
            requests: Default::default(),
            batches,
        };
        RunFile {
            manifest: manifest.clone(),
            records,
            state: Some(state),
            truncated_tail: false,
            address_cleaned: None,
        }
    }

    #[test]
    fn a_new_batch_run_needs_a_model_api_and_is_priced_as_one() {
        let data = samples_of(2);
        let job = EvalJob::new(data.clone(), default_template(Task::Output, Style::Direct), 1, vec![Mode::Strict]);
        let about = |api: Option<ApiSettings>| NewRun {
            run_id: "run-1".into(),
            created: 1,
            model: "m".into(),
            api,
            key_used: false,
            dataset: "d.jsonl".into(),
            simulation: None,
            price: Some(price(2.0)),
            stored: None,
            app_version: "test".into(),
        };
        let flags = RunFlags { batch: true, spend_cap: Some(3.0), ..RunFlags::default() };
        let refused = new_run_manifest(&job, about(None), &flags).unwrap_err();
        assert_eq!(refused, "--batch is for model APIs: an offline model answers at once");
        let m = new_run_manifest(&job, about(Some(api("openai", "https://api.openai.com/v1"))), &flags).unwrap();
        let input = |p: Option<&PriceUsed>| p.map(|p| p.price.input * 1e6);
        assert_eq!(
            (input(m.price.as_ref()), input(m.live_price.as_ref()), m.spend_cap),
            (Some(1.0), Some(2.0), Some(3.0))
        );
        let live = new_run_manifest(&job, about(None), &RunFlags::default()).unwrap();
        assert_eq!((live.live_price, live.spend_cap), (None, None));
        let start = new_run(m, job, 5.0);
        assert_eq!((start.entry.updated_ms, start.earlier.len(), start.retry_via), (5.0, 0, None));
        assert_eq!(start.job.spend_cap.map(|c| c.limit), Some(3.0), "the cap goes with the job");
    }

    /// A run file that describes another run than the flags is refused, naming every reason.
    #[test]
    fn a_resume_is_refused_naming_what_differs() {
        let data = samples_of(3);
        let openai = || Some(api("openai", "https://api.openai.com/v1"));
        let mut other_data = wanted(&data, openai(), true);
        other_data.dataset_hash = "ffff".into();
        // (the file's manifest, the flags' manifest, local model changes, the refusal's lines)
        let cases: Vec<(RunManifest, RunManifest, Vec<String>, Vec<&str>)> = vec![
            (wanted(&data, openai(), true), wanted(&data, openai(), true), vec![], vec![]),
            (
                wanted(&data, openai(), true),
                wanted(&data, openai(), false),
                vec![],
                vec![
                    "the run was made with an API key and none is set now: set OPENAI_API_KEY (or name the variable with --key-env)",
                ],
            ),
            (
                wanted(&data, Some(api("openai", "https://elsewhere.example/v1")), false),
                wanted(&data, openai(), false),
                vec![],
                vec![
                    "the endpoint differs (the run: openai at https://elsewhere.example:443, now: openai at https://api.openai.com:443): resume with the run's --provider and --base-url, or start a new --out",
                ],
            ),
            (
                wanted(&data, openai(), false),
                wanted(&data, openai(), false),
                vec!["the model file m.gguf is not the one the run used".into()],
                vec!["the model file m.gguf is not the one the run used"],
            ),
            (other_data, wanted(&data, openai(), true), vec![], vec!["the dataset's content differs"]),
        ];
        for (i, (in_file, flags_manifest, local_model_changes, refusal)) in cases.into_iter().enumerate() {
            let flags = RunFlags::default();
            let resuming = Resuming {
                wanted: &flags_manifest,
                key_env: Some("OPENAI_API_KEY"),
                price: None,
                local_model_changes,
                samples: &data,
                flags: &flags,
                now_ms: 0.0,
            };
            match resume(file(&in_file, &[], Vec::new()), &resuming) {
                ResumePlan::Refused(lines) => {
                    assert_eq!(lines.len(), refusal.len(), "case {i}: {lines:?}");
                    for (line, start) in lines.iter().zip(&refusal) {
                        assert!(line.starts_with(start), "case {i}: {line}");
                    }
                }
                ResumePlan::GoesOn { .. } => assert!(refusal.is_empty(), "case {i}: not refused"),
            }
        }
    }

    /// What each combination of flags asks of a live run file and of a batch run file.
    #[test]
    fn a_resume_asks_what_its_flags_choose() {
        let data = samples_of(4);
        let flags_manifest = wanted(&data, Some(api("openai", "https://api.openai.com/v1")), true);
        let retry = |via: Option<RetryVia>| RunFlags { retry: Some(via), ..RunFlags::default() };
        let batch_flag = RunFlags { batch: true, ..RunFlags::default() };
        let collected = || vec![batch(&[0, 1, 2], true)];
        let waiting = || vec![batch(&[0, 1], true), batch(&[2, 3], false)];
        // Records: s0 scored, s1 an error; a batch run's batches; the samples asked, and how a
        // batch run's errors go, or the refusal's words.
        type Want = Result<(&'static [&'static str], Option<RetryVia>), &'static str>;
        let cases: Vec<(&str, Vec<SubmittedBatch>, RunFlags, Want)> = vec![
            ("live run: its errors asked again", Vec::new(), RunFlags::default(), Ok((&["s1", "s2", "s3"], None))),
            ("live run --batch: only what has no record", Vec::new(), batch_flag.clone(), Ok((&["s2", "s3"], None))),
            ("live run --retry-errors", Vec::new(), retry(None), Ok((&["s1", "s2", "s3"], None))),
            ("live run --retry-errors live", Vec::new(), retry(Some(RetryVia::Live)), Ok((&["s1", "s2", "s3"], None))),
            (
                "live run --retry-errors batch",
                Vec::new(),
                retry(Some(RetryVia::Batch)),
                Err(
                    "run-1 is a live run: --retry-errors batch is for batch runs (--resume alone asks again for its errors)",
                ),
            ),
            ("batch run: its errors kept", collected(), RunFlags::default(), Ok((&["s2", "s3"], None))),
            ("batch run --retry-errors", collected(), retry(None), Ok((&["s1", "s2", "s3"], Some(RetryVia::Batch)))),
            (
                "batch run --retry-errors live",
                collected(),
                retry(Some(RetryVia::Live)),
                Ok((&["s1", "s2", "s3"], Some(RetryVia::Live))),
            ),
            (
                "batch run waiting --retry-errors live",
                waiting(),
                retry(Some(RetryVia::Live)),
                Err("run-1: 2 samples are still in batches not yet collected"),
            ),
        ];
        for (name, batches, flags, want) in cases {
            let resuming = Resuming {
                wanted: &flags_manifest,
                key_env: None,
                price: None,
                local_model_changes: Vec::new(),
                samples: &data,
                flags: &flags,
                now_ms: 0.0,
            };
            let ResumePlan::GoesOn { start, .. } =
                resume(file(&flags_manifest, &[(0, false), (1, true)], batches), &resuming)
            else {
                panic!("{name}: refused")
            };
            match (start, want) {
                (Ok(start), Ok((asked, via))) => {
                    let got: Vec<&str> = start
                        .job
                        .samples
                        .iter()
                        .filter(|s| !start.job.done.contains(&s.id))
                        .map(|s| s.id.as_str())
                        .collect();
                    assert_eq!((got.as_slice(), start.retry_via), (asked, via), "{name}");
                    assert_eq!(
                        (start.earlier.len(), start.entry.active_ms),
                        (2, 1500.0),
                        "{name}: the file's records and time"
                    );
                }
                (Err(e), Err(words)) => assert!(e.starts_with(words), "{name}: {e}"),
                (got, want) => panic!("{name}: got {:?}, want {want:?}", got.map(|s| s.job.done)),
            }
        }
    }

    /// The resumed run is priced at this machine's price, the change said; the file's own price
    /// stays (and is said) when this machine knows none.
    #[test]
    fn a_resumed_run_takes_this_machines_price() {
        let data = samples_of(2);
        let in_file = wanted(&data, Some(api("openai", "https://api.openai.com/v1")), false);
        let flags = RunFlags::default();
        // (the price known here, the run's input price per million after, the change's words)
        let cases: [(Option<PriceUsed>, Option<f64>, Option<&str>); 3] = [
            (Some(price(1.0)), Some(1.0), None),
            (Some(price(3.0)), Some(3.0), Some("price $1.0000/$2.0000 -> $3.0000/$6.0000 per million tokens in/out")),
            (None, Some(1.0), Some("the price is the file's own (test)")),
        ];
        for (known, after, said) in cases {
            let resuming = Resuming {
                wanted: &in_file,
                key_env: None,
                price: known.clone(),
                local_model_changes: Vec::new(),
                samples: &data,
                flags: &flags,
                now_ms: 0.0,
            };
            let ResumePlan::GoesOn { price_changes, start } = resume(file(&in_file, &[], Vec::new()), &resuming) else {
                panic!("{known:?}: refused")
            };
            let manifest = start.unwrap().entry.manifest;
            let input = manifest.price.map(|p| (p.price.input * 1e6 * 1e6).round() / 1e6);
            assert_eq!(input, after, "{known:?}");
            assert_eq!(
                price_changes.first().map(String::as_str).map(|c| &c[..said.map_or(0, str::len)]),
                said,
                "{known:?}"
            );
        }
    }

    /// Whether the run asks live or through the batch service, or cannot with these flags; and
    /// whether an estimate is said first.
    #[test]
    fn a_plan_says_how_it_is_answered() {
        let data = samples_of(2);
        let with_api = wanted(&data, Some(api("openai", "https://api.openai.com/v1")), true);
        let offline = wanted(&data, None, false);
        let start = |manifest: &RunManifest, batches: Vec<SubmittedBatch>, retry_via| {
            let mut s =
                new_run(manifest.clone(), EvalJob::new(data.clone(), manifest.template.clone(), 1, vec![]), 0.0);
            s.entry.batches = batches;
            s.retry_via = retry_via;
            s
        };
        let flags = |batch: bool, wait: bool| RunFlags { batch, wait, ..RunFlags::default() };
        // (manifest, batches, retry_via, flags, is_api, how it is answered, an estimate said)
        type Case<'a> = (&'a RunManifest, bool, Option<RetryVia>, RunFlags, bool, Result<Answering, &'a str>, bool);
        let cases: Vec<Case> = vec![
            (&with_api, false, None, flags(false, false), true, Ok(Answering::Live), true),
            (&with_api, false, None, flags(true, false), true, Ok(Answering::Batch { submit: true }), true),
            (&with_api, false, None, flags(false, true), true, Err("--wait is for batch runs: pass --batch"), true),
            // A batch run only checking its batches asks nothing new: no estimate.
            (&with_api, true, None, flags(false, true), true, Ok(Answering::Batch { submit: false }), false),
            (
                &with_api,
                true,
                Some(RetryVia::Batch),
                flags(false, false),
                true,
                Ok(Answering::Batch { submit: true }),
                true,
            ),
            (&with_api, true, Some(RetryVia::Live), flags(false, false), true, Ok(Answering::Live), true),
            (
                &offline,
                true,
                None,
                flags(false, false),
                false,
                Err("--batch is for model APIs: an offline model answers at once"),
                false,
            ),
            (&offline, false, None, flags(false, false), false, Ok(Answering::Live), false),
        ];
        for (i, (manifest, batches, retry_via, flags, is_api, answering, estimated)) in cases.into_iter().enumerate() {
            let batches = if batches { vec![batch(&[0, 1], true)] } else { Vec::new() };
            let plan = plan(start(manifest, batches, retry_via), &flags, is_api);
            assert_eq!(plan.answering, answering.map_err(str::to_string), "case {i}");
            assert_eq!(plan.estimate.is_some(), estimated, "case {i}");
        }
        // The estimate is at the batch price for a new batch, at the live price otherwise.
        let as_batch =
            |flags: &RunFlags| plan(start(&with_api, Vec::new(), None), flags, true).estimate.unwrap().as_batch;
        assert_eq!((as_batch(&RunFlags::default()), as_batch(&flags(true, false))), (false, true));
        assert_eq!(dataset_hash(&data), with_api.dataset_hash);
    }

    #[test]
    fn what_the_model_does_not_take_is_said() {
        let mut reasoning = api("openai", "https://api.openai.com/v1");
        reasoning.endpoint.model = "o3".into();
        reasoning.params.temperature = Some(0.5);
        let earlier = NotSent { setting: "top_p".into(), wanted: "0.9".into(), why: "left out before".into() };
        reasoning.not_sent = vec![earlier.clone()];
        let said = not_sent(&reasoning);
        assert_eq!(said.first(), Some(&earlier), "what the settings left out comes first");
        assert!(said[1..].iter().any(|n| n.setting == "temperature"), "{said:?}");
        assert!(not_sent(&api("openai", "https://api.openai.com/v1")).is_empty());
    }
}
