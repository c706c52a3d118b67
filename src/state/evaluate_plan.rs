//! The Evaluate form as a plan: its values checked into a run plan (`crate::jobs::plan::RunPlan`),
//! a file of answers as one, a model API run's estimate before it starts and again after its
//! pilot, and whether Batch is offered. [`plan_evaluation`] takes plain values and is tested
//! natively; [`plan_from_form`] reads them from the page's signals.

use std::sync::Arc;

use execbench_core::Sample;
use execbench_eval::models::{EchoFirstArgument, Oracle, Replay, TypeDefault};
use execbench_eval::prompt::Template;
use execbench_eval::score::Mode;
use execbench_run::api::ApiModel;
use execbench_run::batch::batch_price_used;
use execbench_run::cost::SpendCap;
use execbench_run::cost::estimate::{Estimate, PilotFigures, estimate_run, estimate_tokens};
use execbench_run::manifest::{PriceUsed, RunEntry};
use execbench_run::record::SampleRecord;
use execbench_run::session::{self, FileJob};
use execbench_run::simulate::Simulation;
use execbench_run::{EvalJob, Responder};
use leptos::prelude::GetUntracked;

use crate::jobs::plan::{FileShown, RunPlan, Shown};
use crate::state::api_form::ApiForm;
use crate::state::evaluate::{EvaluateState, LoadedFile, ModelChoice, PendingRun};

/// The most answers the form asks of each sample (its n).
pub const MAX_N: usize = 100;

/// Samples a pilot asks for before the estimate is made again.
pub const PILOT_SAMPLES: usize = 10;

/// The Evaluate form's values as the user left them ([`read_form`] reads them from the page).
pub struct EvaluationForm {
    /// The template chosen for the task, or why it cannot be used
    /// (`crate::state::templates::TemplateState::for_evaluation`).
    pub template: Result<Template, String>,
    /// Samples per problem, as typed.
    pub n: String,
    /// The scoring modes ticked.
    pub modes: Vec<Mode>,
    /// First samples only, as typed (empty: every sample).
    pub limit: String,
    pub model: ModelChoice,
    /// The file of answers chosen for Replay.
    pub replay_file: Option<Arc<LoadedFile>>,
}

/// What the model API form says, checked (`ApiForm::model`, `price`, `spend_cap`, `simulation`).
pub struct ApiChoice {
    pub model: ApiModel,
    pub price: Option<PriceUsed>,
    /// Dollars for the whole run.
    pub spend_cap: Option<f64>,
    pub simulation: Option<Simulation>,
}

/// Checks the form and plans the run over `dataset`, or says the first thing wrong, in the
/// form's order. `read_api` is called only for a model API, once every other field is right:
/// reading the API form keeps it and may save its price, which a refused form must not do.
pub fn plan_evaluation(
    form: EvaluationForm,
    dataset: &[Sample],
    read_api: impl FnOnce() -> Result<ApiChoice, String>,
) -> Result<RunPlan, String> {
    let template = form.template?;
    if let Some(why) = template.task.misfit(dataset) {
        return Err(why);
    }
    let n_text = form.n;
    let n: usize =
        n_text.trim().parse().map_err(|_| format!("samples per problem: `{n_text}` is not a whole number"))?;
    if !(1..=MAX_N).contains(&n) {
        return Err(format!("samples per problem must be between 1 and {MAX_N}, got {n}"));
    }
    let modes = form.modes;
    if modes.is_empty() {
        return Err("choose at least one scoring mode".to_string());
    }
    let limit = match form.limit.trim() {
        "" => dataset.len(),
        text => text
            .parse::<usize>()
            .ok()
            .filter(|l| *l > 0)
            .ok_or(format!("first samples: `{text}` is not a positive whole number"))?,
    };
    let (mut price, mut simulation, mut spend_cap) = (None, None, None);
    let responder = match form.model {
        ModelChoice::Api => {
            let api = read_api()?;
            (price, simulation) = (api.price, api.simulation);
            if let Some(limit) = api.spend_cap {
                let used = price.as_ref().ok_or("spend cap: it needs a price for this model (enter one)")?;
                spend_cap = Some(SpendCap { limit, price: used.price, spent_before: 0.0 });
            }
            Responder::Api(api.model)
        }
        ModelChoice::Oracle => Responder::Offline(Box::new(Oracle::default())),
        ModelChoice::EchoFirstArgument => Responder::Offline(Box::new(EchoFirstArgument)),
        ModelChoice::TypeDefault => Responder::Offline(Box::new(TypeDefault)),
        ModelChoice::Replay => {
            let file = form.replay_file.ok_or("choose a file of answers to replay")?;
            let replay = file.replay().ok_or(format!("{} has no usable answers", file.name))?;
            let dataset = &dataset[..limit.min(dataset.len())];
            return Ok(file_plan(&file.name, replay, dataset, template, modes, false, None));
        }
    };
    let samples = dataset.iter().take(limit).cloned().collect();
    let mut job = EvalJob::new(samples, template, n, modes);
    job.spend_cap = spend_cap;
    Ok(RunPlan { responder, job, shown: Shown::default(), price, simulation })
}

/// The form's values, read from the page's signals (untracked).
pub fn read_form(state: EvaluateState) -> EvaluationForm {
    let task = state.task.get_untracked();
    EvaluationForm {
        template: state.templates.for_evaluation(task),
        n: state.n.get_untracked(),
        modes: state.modes(),
        limit: state.limit.get_untracked(),
        model: state.model.get_untracked(),
        replay_file: state.replay_file.get_untracked(),
    }
}

/// The model API form, checked in its order. With no network only the simulated model and the
/// one in this browser can run: that is said before the model's own settings are checked.
pub fn read_api_form(api: ApiForm) -> Result<ApiChoice, String> {
    let simulation = api.simulation()?;
    if simulation.is_none() && api.provider.get_untracked() != crate::browser::local_http::PROVIDER {
        crate::browser::offline::refuse_when_offline()?;
    }
    let model = api.model()?;
    let price = api.price()?;
    let spend_cap = api.spend_cap()?;
    Ok(ApiChoice { model, price, spend_cap, simulation })
}

/// The Evaluate form's plan over the loaded dataset (see [`plan_evaluation`]).
pub fn plan_from_form(state: EvaluateState, dataset: &[Sample]) -> Result<RunPlan, String> {
    plan_evaluation(read_form(state), dataset, || read_api_form(state.api))
}

/// A file of answers, replayed or re-scored: one plan for both, so both give the same figures.
/// It scores the samples the file covers with the answers it has (`Replay::scope`).
pub fn file_plan(
    name: &str,
    replay: Replay,
    dataset: &[Sample],
    template: Template,
    modes: Vec<Mode>,
    rescored: bool,
    stored: Option<execbench_eval::stored::StoredScores>,
) -> RunPlan {
    let FileJob { job, missing, unknown } = session::file_job(&replay, dataset, template, modes);
    let shown = Shown { file: Some(FileShown { name: name.to_string(), rescored, missing, unknown, stored }) };
    RunPlan { responder: Responder::Offline(Box::new(replay)), job, shown, price: None, simulation: None }
}

/// The estimate of a run before it starts (prompt tokens counted from the rendered prompts,
/// output from max tokens or a pilot's measured lengths).
pub fn estimate_for(
    model: &ApiModel,
    job: &EvalJob,
    price: Option<&PriceUsed>,
    pilot: Option<&PilotFigures>,
) -> Estimate {
    let prompts: Vec<String> = job.samples.iter().map(|s| job.template.render(s).text()).collect();
    let requests = if model.settings.endpoint.supports_n() { 1 } else { job.n };
    estimate_run(&prompts, job.n, requests, model.settings.params.max_tokens as u64, price.map(|p| p.price), pilot)
}

impl PendingRun {
    /// A model API run waiting for the user's go, with its estimate (no pilot yet).
    pub fn new(
        model: ApiModel,
        job: EvalJob,
        price: Option<PriceUsed>,
        simulation: Option<Simulation>,
        dataset: String,
    ) -> PendingRun {
        let estimate = estimate_for(&model, &job, price.as_ref(), None);
        PendingRun { model, job, price, simulation, dataset, estimate, pilot_run: None }
    }

    /// The same run after its pilot: the estimate again, from the usage the pilot's `records`
    /// measured against what their prompts were estimated at; going on resumes `pilot_run`.
    pub fn after_pilot(&self, pilot_run: RunEntry, records: &[SampleRecord]) -> PendingRun {
        let first = &self.job.samples[..PILOT_SAMPLES.min(self.job.samples.len())];
        let requests = if self.model.settings.endpoint.supports_n() { 1 } else { self.job.n };
        let estimated: u64 =
            first.iter().map(|s| estimate_tokens(&self.job.template.render(s).text())).sum::<u64>() * requests as u64;
        let pilot = PilotFigures::from_records(records, estimated);
        let estimate = estimate_for(&self.model, &self.job, self.price.as_ref(), Some(&pilot));
        PendingRun {
            model: self.model.clone(),
            job: self.job.clone(),
            price: self.price.clone(),
            simulation: self.simulation,
            dataset: self.dataset.clone(),
            estimate,
            pilot_run: Some(pilot_run),
        }
    }

    /// The run as the evaluation job starts it.
    pub fn plan(&self) -> RunPlan {
        RunPlan {
            responder: Responder::Api(self.model.clone()),
            job: self.job.clone(),
            shown: Shown::default(),
            price: self.price.clone(),
            simulation: self.simulation,
        }
    }

    /// The same run's estimate at the batch price.
    pub fn at_batch_price(&self) -> Estimate {
        estimate_for(&self.model, &self.job, batch_price_used(self.price.clone()).as_ref(), None)
    }
}

/// Whether the estimate offers Batch: a real provider (not the simulated one) with a batch
/// service, for a new run (a pilot's run goes on live).
pub fn offers_batch(pending: &PendingRun) -> bool {
    pending.simulation.is_none()
        && pending.pilot_run.is_none()
        && execbench_providers::batch::batch_supported(&pending.model.settings.endpoint).is_ok()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use execbench_eval::Task;
    use execbench_eval::prompt::{Style, default_template};
    use execbench_providers::{Endpoint, Usage};
    use execbench_run::api::ApiSettings;
    use execbench_run::cost::Price;

    use super::*;

    fn samples(count: usize) -> Vec<Sample> {
        (0..count)
            .map(|i| Sample::new(&format!("s{i}"), "def f(x):\n    return x", "f", &i.to_string(), &i.to_string()))
            .collect()
    }

    fn form(model: ModelChoice) -> EvaluationForm {
        EvaluationForm {
            template: Ok(default_template(Task::Output, Style::Direct)),
            n: "2".into(),
            modes: Mode::ALL.to_vec(),
            limit: String::new(),
            model,
            replay_file: None,
        }
    }

    fn api_model(provider: &str) -> ApiModel {
        let endpoint =
            Endpoint { provider: provider.into(), base_url: "https://api.openai.com/v1".into(), model: "m".into() };
        ApiModel { settings: ApiSettings::new(endpoint), key: Some("k".into()) }
    }

    fn price() -> PriceUsed {
        PriceUsed { price: Price::per_million(1.0, 2.0), source: "test".into() }
    }

    fn api(price: Option<PriceUsed>, spend_cap: Option<f64>) -> Result<ApiChoice, String> {
        Ok(ApiChoice { model: api_model("openai"), price, spend_cap, simulation: None })
    }

    /// A file of answers with one answer for s0 and s1.
    fn answers_file(text: &str) -> Option<Arc<LoadedFile>> {
        Some(Arc::new(LoadedFile::read("answers.json", text)))
    }

    /// Every refusal of the form, in the form's order, with its exact words; the API form is read
    /// only once the rest is right.
    #[test]
    fn a_wrong_form_is_refused_with_the_first_thing_wrong() {
        type Change = fn(&mut EvaluationForm);
        // (what is changed in a good form, the API form's verdict, the refusal)
        let cases: Vec<(ModelChoice, Change, Result<ApiChoice, String>, &str)> = vec![
            (
                ModelChoice::Oracle,
                |f| f.template = Err("no output prediction template `x`".into()),
                api(None, None),
                "no output prediction template `x`",
            ),
            (
                ModelChoice::Oracle,
                |f| f.n = "two".into(),
                api(None, None),
                "samples per problem: `two` is not a whole number",
            ),
            (
                ModelChoice::Oracle,
                |f| f.n = " ".into(),
                api(None, None),
                "samples per problem: ` ` is not a whole number",
            ),
            (
                ModelChoice::Oracle,
                |f| f.n = "0".into(),
                api(None, None),
                "samples per problem must be between 1 and 100, got 0",
            ),
            (
                ModelChoice::Oracle,
                |f| f.n = " 101 ".into(),
                api(None, None),
                "samples per problem must be between 1 and 100, got 101",
            ),
            // n is said before the modes.
            (
                ModelChoice::Oracle,
                |f| {
                    f.n = "-1".into();
                    f.modes.clear()
                },
                api(None, None),
                "samples per problem: `-1` is not a whole number",
            ),
            (ModelChoice::Oracle, |f| f.modes.clear(), api(None, None), "choose at least one scoring mode"),
            (
                ModelChoice::Oracle,
                |f| f.limit = "0".into(),
                api(None, None),
                "first samples: `0` is not a positive whole number",
            ),
            (
                ModelChoice::Oracle,
                |f| f.limit = " ten ".into(),
                api(None, None),
                "first samples: `ten` is not a positive whole number",
            ),
            (ModelChoice::Replay, |_| {}, api(None, None), "choose a file of answers to replay"),
            (
                ModelChoice::Replay,
                |f| f.replay_file = answers_file("{}"),
                api(None, None),
                "answers.json has no usable answers",
            ),
            (
                ModelChoice::Api,
                |_| {},
                Err("model: enter the model's name (e.g. gpt-4o-mini, or the name your local server serves)".into()),
                "model: enter the model's name (e.g. gpt-4o-mini, or the name your local server serves)",
            ),
            (ModelChoice::Api, |_| {}, api(None, Some(1.0)), "spend cap: it needs a price for this model (enter one)"),
        ];
        for (i, (model, change, api_form, refusal)) in cases.into_iter().enumerate() {
            let mut form = form(model);
            change(&mut form);
            let read = Cell::new(false);
            let refused_before_api = model != ModelChoice::Api;
            let got = plan_evaluation(form, &samples(3), || {
                read.set(true);
                api_form
            });
            assert_eq!(got.err().as_deref(), Some(refusal), "case {i}");
            assert!(!(refused_before_api && read.get()), "case {i}: the API form was read");
        }
    }

    #[test]
    fn a_right_form_plans_the_run_it_describes() {
        let data = samples(4);
        let never = || -> Result<ApiChoice, String> { panic!("an offline model reads no API form") };
        // An offline model: the first `limit` samples, n answers each, in the modes ticked.
        let mut oracle = form(ModelChoice::Oracle);
        oracle.limit = " 3 ".into();
        oracle.modes = vec![Mode::Compatible];
        let plan = plan_evaluation(oracle, &data, never).unwrap();
        assert_eq!((plan.job.samples.len(), plan.job.n, plan.job.modes.clone()), (3, 2, vec![Mode::Compatible]));
        assert!(
            matches!(plan.responder, Responder::Offline(_)) && plan.price.is_none() && plan.job.spend_cap.is_none()
        );
        // A limit past the dataset takes it all.
        let mut all = form(ModelChoice::TypeDefault);
        all.limit = "99".into();
        assert_eq!(plan_evaluation(all, &data, never).unwrap().job.samples.len(), 4);
        // A model API: its price, and the spend cap at that price.
        let plan = plan_evaluation(form(ModelChoice::Api), &data, || api(Some(price()), Some(2.5))).unwrap();
        let cap = plan.job.spend_cap.unwrap();
        assert_eq!((cap.limit, cap.price, cap.spent_before), (2.5, price().price, 0.0));
        assert!(matches!(plan.responder, Responder::Api(_)) && plan.price == Some(price()));
        // Replay: the samples the file covers among the first `limit`, as many answers as it has.
        let mut replay = form(ModelChoice::Replay);
        replay.replay_file = answers_file(r#"{"s0": ["0"], "s1": ["1"], "s3": ["3"]}"#);
        replay.limit = "3".into();
        let plan = plan_evaluation(replay, &data, never).unwrap();
        let file = plan.shown.file.as_ref().unwrap();
        let covered: Vec<&str> = plan.job.samples.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            (covered, plan.job.n, file.missing.clone(), file.rescored),
            (vec!["s0", "s1"], 1, vec!["s2".to_string()], false)
        );
    }

    fn pending(provider: &str, simulation: Option<Simulation>) -> PendingRun {
        let job = EvalJob::new(samples(12), default_template(Task::Output, Style::Direct), 1, vec![Mode::Strict]);
        PendingRun::new(api_model(provider), job, Some(price()), simulation, "d".into())
    }

    #[test]
    fn batch_is_offered_for_a_new_run_at_a_batch_service() {
        let entry = RunEntry::new(execbench_run::manifest::fixtures::manifest("run-1", 1), 0.0);
        let after_pilot = pending("openai", None).after_pilot(entry, &[]);
        // (the run waiting, offered)
        let cases = [
            (pending("openai", None), true),
            (pending("openai", Some(Simulation::default())), false),
            (after_pilot, false),
            (pending("azure", None), false),
        ];
        for (i, (run, offered)) in cases.into_iter().enumerate() {
            assert_eq!(offers_batch(&run), offered, "case {i}");
        }
        let run = pending("openai", None);
        assert_eq!(run.at_batch_price().expected_usd.unwrap() * 2.0, run.estimate.expected_usd.unwrap());
    }

    /// After a pilot the estimate is made from what its answers measured, not the token limit.
    #[test]
    fn a_pilot_makes_the_estimate_again_from_its_usage() {
        let run = pending("openai", None);
        let mut record = execbench_run::manifest::fixtures::record("s0", 0, Some(1.0), false);
        record.results[0].answers = vec![execbench_eval::report::AnswerRecord {
            response: Some("0".into()),
            extraction: execbench_eval::Extraction::verbatim("0"),
            verdict: execbench_eval::Verdict::Correct,
        }];
        record.usage = Some(Usage { prompt_tokens: 40, completion_tokens: 7, reasoning_tokens: 0, cached_tokens: 0 });
        let entry = RunEntry::new(execbench_run::manifest::fixtures::manifest("run-1", 1), 0.0);
        let after = run.after_pilot(entry, &[record]);
        assert_eq!(after.pilot_run.as_ref().map(RunEntry::id), Some("run-1"));
        assert_eq!((run.estimate.output_tokens_expected, after.estimate.output_tokens_expected), (12 * 2000, 12 * 7));
        assert!(run.pilot_run.is_none() && after.job.samples.len() == 12);
    }
}
