//! The Perturb view (issue 3): perturb one program and see both versions side by side, run in the
//! worker; or perturb a whole dataset (kinds x seeds), verify every result in the worker, and
//! download the verified rows. The dataset run is `crate::jobs::PerturbRun`; verification is
//! `execbench_run::perturbation`'s, one run at a time in the worker.

use std::collections::BTreeMap;

use execbench_core::{Limits, Outcome, RunResult, Sample};
use execbench_perturb::{Kind, Options, Perturbed, Placed, Prediction, Target, VerifyFailure};
use execbench_run::perturbation::verify_perturbed;
use leptos::prelude::*;

use crate::app::{AppState, DatasetState};
use crate::browser::python::use_python;
use crate::components::code_box::CodeBox;
use crate::components::edit_list::EditList;
use crate::components::evaluation::model_settings::{ApiForm, ApiSettingsPanel};
use crate::components::marked_code::{Mark, MarkedCodeView};
use crate::components::perturbed_rows::PerturbedRows;
use crate::components::progress_bar::ProgressBar;
use crate::components::run_result::RunResultView;
use crate::jobs::PerturbRun;
use crate::route::Route;

/// More seeds than this is almost certainly a typo (`0-10000`).
const MAX_SEEDS: usize = 1000;
/// Failures listed in the page; the rest are counted.
const FAILURES_SHOWN: usize = 200;

// ---------------------------------------------------------------------------------------------
// Reading the form (pure, tested natively)

/// `0`, `0-4`, `0,1,2`, `0-2, 7`: the seeds, in the order given, without repeats.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let mut seeds: Vec<u64> = Vec::new();
    if text.trim().is_empty() {
        return Err("seeds: write a seed (0), a range (0-4) or a list (0,1,2)".to_string());
    }
    let number = |part: &str| {
        part.trim().parse::<u64>().map_err(|_| format!("seeds: `{}` is not a whole number ≥ 0", part.trim()))
    };
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("seeds: an empty entry in `{}`", text.trim()));
        }
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if last < first {
            return Err(format!("seeds: the range `{part}` runs backwards"));
        }
        if last - first >= MAX_SEEDS as u64 {
            return Err(format!("seeds: `{part}` is more than {MAX_SEEDS} seeds"));
        }
        for seed in first..=last {
            if !seeds.contains(&seed) {
                seeds.push(seed);
            }
        }
        if seeds.len() > MAX_SEEDS {
            return Err(format!("seeds: more than {MAX_SEEDS} seeds"));
        }
    }
    Ok(seeds)
}

/// One seed for the single-program form.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("seed: `{}` is not a whole number ≥ 0", text.trim()))
}

/// The probability that a site gets a misleading message (MCC, MPS).
pub fn parse_p(text: &str) -> Result<f64, String> {
    let p: f64 = text.trim().parse().map_err(|_| format!("p: `{}` is not a number", text.trim()))?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("p must be between 0 and 1, not {p}"));
    }
    Ok(p)
}

/// The export's `dataset` column: the file name without its extension, as the command line writes
/// it (`cruxeval` for the bundled `cruxeval.jsonl`), so the page and the CLI give the same bytes.
pub fn dataset_column(display_name: &str) -> String {
    let file = if display_name == crate::browser::data::CRUXEVAL_NAME {
        crate::browser::data::CRUXEVAL_URL
    } else {
        display_name
    };
    let file = file.rsplit('/').next().unwrap_or(file);
    match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => file.to_string(),
    }
}

/// A sample from pasted code and call. The function is the one the call calls.
pub fn pasted_sample(code: &str, call: &str, output: &str) -> Result<Sample, String> {
    if code.trim().is_empty() {
        return Err("the code is empty: paste a program that defines a function".to_string());
    }
    let call = call.trim();
    let function_name = call.split('(').next().unwrap_or("").trim();
    let is_name = function_name.chars().next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && function_name.chars().all(|c| c == '_' || c.is_alphanumeric());
    if !is_name || !call.ends_with(')') {
        return Err(format!("the call `{call}` is not a call of a function by name, such as f(1, 2)"));
    }
    let input = call[function_name.len()..].trim_start().trim_start_matches('(');
    let input = input.strip_suffix(')').unwrap_or(input);
    if let Some(at) = execbench_perturb::syntax::parse(code)
        .ok()
        .and_then(|tree| execbench_perturb::syntax::first_error(tree.root_node()))
    {
        let line = code.as_bytes()[..at.min(code.len())].iter().filter(|&&b| b == b'\n').count() + 1;
        let text = code.lines().nth(line - 1).unwrap_or("").trim();
        return Err(format!("the code does not parse: syntax error on line {line}: `{text}`"));
    }
    Ok(Sample {
        id: "pasted".to_string(),
        code: code.to_string(),
        function_name: function_name.to_string(),
        input: input.to_string(),
        call: call.to_string(),
        output: output.trim().to_string(),
        meta: Default::default(),
    })
}

// ---------------------------------------------------------------------------------------------
// Showing a perturbation

/// What the single-program view shows of a perturbation: the edits that change something, each
/// placed in the original and the final text. REN's edits of the call are listed too.
fn shown_edits(perturbed: &Perturbed) -> (Perturbed, Vec<Placed>) {
    let placed = execbench_perturb::place(&perturbed.edits);
    // An edit that writes back the same text (REN keeps the name `f`) changes nothing.
    let (edits, placed): (Vec<_>, Vec<_>) =
        perturbed.edits.iter().cloned().zip(placed).filter(|(e, _)| e.before != e.after).unzip();
    (Perturbed { edits, ..perturbed.clone() }, placed)
}

// ---------------------------------------------------------------------------------------------
// The page

#[component]
pub fn PerturbPage() -> impl IntoView {
    view! {
        <section class="page perturb">
            <h1>"Perturb"</h1>
            <p class="muted">
                "CodeCrash-style perturbations: the program changes, its result must not. REN renames, RTF rewrites conditions, GBC adds dead code, PSC_ALL does all three, MCC and MPS add misleading comments and prints, MHC a wrong hint. Each result is run in the worker and must return what the original returns."
            </p>
            <SingleProgram />
            <WholeDataset />
        </section>
    }
}

/// The sample id in `#/perturb/<id>`, so the sample page can link here.
/// A perturbation demo as an address: `#/perturb/<sample>?kind=RTF&seed=2` (and `p`, `once`,
/// `prediction`, `profile` when they differ from the defaults). Opening it perturbs that sample that way;
/// perturbing rewrites it, so Back, reload and a shared link show the same view.
#[derive(Clone, Debug, PartialEq)]
pub struct PerturbLink {
    pub sample: Option<String>,
    pub kind: Kind,
    pub options: Options,
    /// MHC: the wrong answer to try first (a model's or a file's, read back from an exported
    /// row's hint), so the address shows that row's program without asking anyone again.
    pub claim: Option<String>,
}

impl Default for PerturbLink {
    fn default() -> Self {
        PerturbLink { sample: None, kind: Kind::Ren, options: Options::default(), claim: None }
    }
}

impl PerturbLink {
    /// Reads a hash; what it does not say keeps its default, and a malformed value is ignored.
    pub fn parse(hash: &str) -> PerturbLink {
        let mut link = PerturbLink::default();
        let path = hash.trim_start_matches('#').trim_start_matches('/');
        let Some(rest) = path.strip_prefix("perturb") else { return link };
        let (id, query) = rest.split_once('?').unwrap_or((rest, ""));
        let id = crate::route::decode(id.trim_start_matches('/'));
        link.sample = (!id.is_empty()).then_some(id);
        for (key, value) in crate::route::query_pairs(query) {
            match key {
                "kind" => link.kind = Kind::parse(&value).unwrap_or(link.kind),
                "seed" => link.options.seed = parse_seed(&value).unwrap_or(link.options.seed),
                "p" => link.options.p = parse_p(&value).unwrap_or(link.options.p),
                "once" => link.options.once = value == "1" || value == "true",
                "prediction" => {
                    link.options.prediction = if value == "input" { Prediction::Input } else { Prediction::Output }
                }
                "profile" => {
                    link.options.profile = execbench_perturb::Profile::parse(&value).unwrap_or(link.options.profile)
                }
                "claim" => link.claim = Some(value.to_string()).filter(|c| !c.trim().is_empty()),
                _ => {}
            }
        }
        link
    }

    /// The address; options that the kind ignores or that keep their default are left out.
    pub fn href(&self) -> String {
        let mut out = Route::Perturb.href();
        if let Some(id) = &self.sample {
            out.push('/');
            out.push_str(&crate::route::encode(id));
        }
        out.push_str(&format!("?kind={}&seed={}", self.kind.name(), self.options.seed));
        let defaults = Options::default();
        if self.kind.uses_p_and_once() {
            if self.options.p != defaults.p {
                out.push_str(&format!("&p={}", self.options.p));
            }
            if self.options.once {
                out.push_str("&once=1");
            }
        }
        if self.kind == Kind::Mhc && self.options.prediction == Prediction::Input {
            out.push_str("&prediction=input");
        }
        if self.options.profile != defaults.profile {
            out.push_str(&format!("&profile={}", self.options.profile));
        }
        if let (Kind::Mhc, Some(claim)) = (self.kind, &self.claim) {
            out.push_str(&format!("&claim={}", crate::route::encode(claim)));
        }
        out
    }
}

fn current_link() -> PerturbLink {
    PerturbLink::parse(&web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default())
}

#[derive(Clone, Copy, PartialEq)]
enum Source {
    Dataset,
    Pasted,
}

/// What one perturbation produced, ready to show.
#[derive(Clone)]
struct Shown {
    original: Sample,
    perturbed: Perturbed,
    placed: Vec<Placed>,
    kind: Kind,
    /// Pasted code without an expected output: it came from running the original.
    output_from_run: bool,
}

#[component]
fn SingleProgram() -> impl IntoView {
    let state = expect_context::<AppState>();
    let python = use_python();
    let link = current_link();
    let linked = link.sample.clone();
    let source = RwSignal::new(Source::Dataset);
    let sample_id = RwSignal::new(linked.clone().unwrap_or_else(|| "sample_0".to_string()));
    let pasted_code = RwSignal::new("def f(numbers, limit):\n    total = 0\n    for n in numbers:\n        if n > limit:\n            total += n\n    return total\n".to_string());
    let pasted_call = RwSignal::new("f([3, 8, 1, 9], 4)".to_string());
    let pasted_output = RwSignal::new(String::new());
    let kind = RwSignal::new(link.kind);
    let seed = RwSignal::new(link.options.seed.to_string());
    let p = RwSignal::new(link.options.p.to_string());
    let once = RwSignal::new(link.options.once);
    let prediction = RwSignal::new(link.options.prediction);
    let profile = RwSignal::new(link.options.profile);
    // The link's MHC claim belongs to the linked sample only.
    let linked_claim = link.claim.clone().zip(linked.clone());

    let error = RwSignal::new(None::<String>);
    let shown = RwSignal::new(None::<Shown>);
    let original_run = RwSignal::new(None::<RunResult>);
    let perturbed_run = RwSignal::new(None::<RunResult>);
    let verdict = RwSignal::new(None::<Result<(), VerifyFailure>>);
    let busy = RwSignal::new(false);

    // A message replaces whatever was shown: an old comparison next to a new error misleads.
    let fail = move |message: String| {
        error.set(Some(message));
        shown.set(None);
        original_run.set(None);
        perturbed_run.set(None);
        verdict.set(None);
    };
    let perturb_now = move || {
        let options = match (parse_seed(&seed.get_untracked()), parse_p(&p.get_untracked())) {
            (Ok(seed), Ok(p)) => Options {
                seed,
                p,
                once: once.get_untracked(),
                prediction: prediction.get_untracked(),
                profile: profile.get_untracked(),
            },
            (Err(e), _) | (_, Err(e)) => return fail(e),
        };
        let sample = match source.get_untracked() {
            Source::Dataset => {
                let id = sample_id.get_untracked().trim().to_string();
                match state.dataset.get_untracked() {
                    DatasetState::Loaded(report) => match report.samples.iter().find(|s| s.id == id) {
                        Some(s) => s.clone(),
                        None => {
                            return fail(format!(
                                "there is no sample `{id}` in {}",
                                state.dataset_name.get_untracked()
                            ));
                        }
                    },
                    DatasetState::Loading => return fail("the dataset is still loading".to_string()),
                    DatasetState::Failed(e) => return fail(format!("no dataset: {e}")),
                }
            }
            Source::Pasted => match pasted_sample(
                &pasted_code.get_untracked(),
                &pasted_call.get_untracked(),
                &pasted_output.get_untracked(),
            ) {
                Ok(s) => s,
                Err(e) => return fail(e),
            },
        };
        let kind = kind.get_untracked();
        let claim = linked_claim
            .clone()
            .filter(|(_, id)| source.get_untracked() == Source::Dataset && kind == Kind::Mhc && *id == sample.id)
            .map(|(c, _)| c);
        // The demo is a link: the address says which sample and how (pasted code has no address).
        if source.get_untracked() == Source::Dataset {
            crate::browser::address::replace(
                &PerturbLink { sample: Some(sample.id.clone()), kind, options, claim: claim.clone() }.href(),
            );
        }
        error.set(None);
        shown.set(None);
        original_run.set(None);
        perturbed_run.set(None);
        verdict.set(None);
        busy.set(true);
        let python = python.clone();
        leptos::task::spawn_local(async move {
            let mut sample = sample;
            let output_from_run = sample.output.is_empty();
            if output_from_run {
                // Pasted code without an expected output: the original's own result is the answer.
                let result = python.run(sample.request(sample.call.clone())).await;
                match &result.outcome {
                    Outcome::Value { repr, .. } => sample.output = repr.clone(),
                    other => {
                        fail(format!(
                            "the original program does not return a value, so there is nothing to keep: {}",
                            other.summary()
                        ));
                        original_run.set(Some(result));
                        busy.set(false);
                        return;
                    }
                }
            }
            if options.profile == execbench_perturb::Profile::Codecrash {
                // As the dataset run does: CodeCrash perturbs the program `ast.unparse` gives.
                let unparsed =
                    python.run(execbench_perturb::normalise::unparse_request(&sample, Limits::default())).await;
                match execbench_perturb::normalise::normalised_sample(&sample, &unparsed.outcome) {
                    Ok(normalised) => sample = normalised,
                    Err(e) => {
                        fail(format!("the codecrash profile normalises the program first, and {e}"));
                        busy.set(false);
                        return;
                    }
                }
            }
            let perturbed = match &claim {
                Some(claim) => {
                    let mut source = execbench_perturb::FileWrongAnswers::from_claims([(
                        sample.id.clone(),
                        options.prediction,
                        claim.clone(),
                    )]);
                    execbench_perturb::perturb_with_source(&sample, kind, &options, &mut source)
                }
                None => execbench_perturb::perturb_sample(&sample, kind, &options),
            };
            let perturbed = match perturbed {
                Ok(p) => p,
                Err(e) => {
                    fail(format!("{kind} could not perturb this program: {e}"));
                    busy.set(false);
                    return;
                }
            };
            let (shown_perturbed, placed) = shown_edits(&perturbed);
            shown.set(Some(Shown {
                original: sample.clone(),
                perturbed: shown_perturbed,
                placed,
                kind,
                output_from_run,
            }));
            original_run.set(Some(python.run(execbench_core::verify::request_for(&sample, Limits::default())).await));
            let (run, result) = verify_perturbed(&python, &sample, &perturbed, Limits::default()).await;
            // MHC: the first claim was not wrong after all; show the program that was run.
            if let Ok(verified) = result.as_ref()
                && *verified != perturbed
            {
                let (shown_perturbed, placed) = shown_edits(verified);
                shown.set(Some(Shown {
                    original: sample.clone(),
                    perturbed: shown_perturbed,
                    placed,
                    kind,
                    output_from_run,
                }));
            }
            perturbed_run.set(run);
            verdict.set(Some(result.map(|_| ())));
            busy.set(false);
        });
    };

    // An imported dataset has other ids: start from its first sample rather than a missing one.
    Effect::new(move |_| {
        if let DatasetState::Loaded(report) = state.dataset.get() {
            let id = sample_id.get_untracked();
            if let Some(first) = report.samples.first().filter(|_| !report.samples.iter().any(|s| s.id == id.trim())) {
                sample_id.set(first.id.clone());
            }
        }
    });

    // Arriving from a sample's page: perturb it as soon as the dataset is there.
    if linked.is_some() {
        let perturb_now = perturb_now.clone();
        let pending = StoredValue::new(true);
        Effect::new(move |_| {
            if matches!(state.dataset.get(), DatasetState::Loaded(_)) && pending.get_value() {
                pending.set_value(false);
                perturb_now();
            }
        });
    }

    let sample_ids = move || match state.dataset.get() {
        DatasetState::Loaded(report) => {
            report.samples.iter().map(|s| view! { <option value=s.id.clone()></option> }).collect_view().into_any()
        }
        _ => ().into_any(),
    };
    let step_sample = move |by: isize| {
        if let DatasetState::Loaded(report) = state.dataset.get_untracked() {
            let at = report
                .samples
                .iter()
                .position(|s| s.id == sample_id.get_untracked().trim())
                .map_or(0, |i| i as isize + by);
            if let Some(s) = usize::try_from(at).ok().and_then(|i| report.samples.get(i)) {
                sample_id.set(s.id.clone());
            }
        }
    };

    // Ctrl+Enter (Cmd+Enter) anywhere in the form, and Enter in the sample field, perturb as the
    // button does (unless a perturbation is under way, when the button is disabled too).
    let perturb_key = {
        let perturb_now = perturb_now.clone();
        move |ev: leptos::ev::KeyboardEvent| {
            if crate::pages::playground::is_run_shortcut(&ev) {
                ev.prevent_default();
                if !busy.get_untracked() {
                    perturb_now();
                }
            }
        }
    };
    // Kept in the arena: the field is rendered by a reactive closure, which must be `Send`.
    let perturb_stored = StoredValue::new_local(perturb_now.clone());
    let enter_in_field = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter"
            && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key())
            && !ev.is_composing()
        {
            ev.prevent_default();
            if !busy.get_untracked() {
                perturb_stored.with_value(|perturb| perturb());
            }
        }
    };

    view! {
        <section class="panel perturb-one" on:keydown=perturb_key>
            <h2>"One program"</h2>
            <div class="source-switch" role="tablist">
                <button role="tab" data-testid="source-dataset" class:selected=move || source.get() == Source::Dataset on:click=move |_| source.set(Source::Dataset)>
                    {move || format!("Sample from {}", state.dataset_name.get())}
                </button>
                <button role="tab" data-testid="source-paste" class:selected=move || source.get() == Source::Pasted on:click=move |_| source.set(Source::Pasted)>"Paste code"</button>
            </div>
            {move || match source.get() {
                Source::Dataset => view! {
                    <div class="row-fields">
                        <label class="field"><span class="label">"Sample id"</span>
                            <span class="id-picker">
                                <button title="previous sample" on:click=move |_| step_sample(-1)>"←"</button>
                                <input class="code-input" list="perturb-sample-ids" data-testid="sample-id-input" prop:value=sample_id on:input=move |ev| sample_id.set(event_target_value(&ev))
                                    on:keydown=enter_in_field aria-describedby="sample-id-keys" />
                                <button title="next sample" on:click=move |_| step_sample(1)>"→"</button>
                            </span>
                            <datalist id="perturb-sample-ids">{sample_ids}</datalist>
                            <span class="hint" id="sample-id-keys">"Enter perturbs"</span>
                        </label>
                    </div>
                }.into_any(),
                Source::Pasted => view! {
                    <label class="field"><span class="label">"Code"</span>
                        <CodeBox value=pasted_code rows=8 testid="paste-code" />
                    </label>
                    <div class="row-fields">
                        <label class="field grow"><span class="label">"Call"</span>
                            <input class="code-input" data-testid="paste-call" prop:value=pasted_call on:input=move |ev| pasted_call.set(event_target_value(&ev)) />
                        </label>
                        <label class="field grow"><span class="label">"Expected output (optional)"</span>
                            <input class="code-input" data-testid="paste-output" placeholder="empty: run the original to get it" prop:value=pasted_output on:input=move |ev| pasted_output.set(event_target_value(&ev)) />
                        </label>
                    </div>
                }.into_any(),
            }}
            <div class="row-fields options">
                <label class="field"><span class="label">"Kind"</span>
                    <select data-testid="kind" on:change=move |ev| { if let Some(k) = Kind::parse(&event_target_value(&ev)) { kind.set(k) } }>
                        {Kind::ALL.into_iter().map(|k| view! { <option value=k.name() selected=move || kind.get() == k>{k.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label class="field"><span class="label">"Seed"</span>
                    <input class="narrow" data-testid="seed" prop:value=seed on:input=move |ev| seed.set(event_target_value(&ev)) />
                </label>
                <Show when=move || kind.get().uses_p_and_once()>
                    <OptionFields p=p once=once />
                </Show>
                <Show when=move || !kind.get().uses_seed()>
                    <p class="hint choice-note" data-testid="seed-note">"REN draws nothing at random: every seed gives the same program."</p>
                </Show>
                <Show when=move || kind.get() == Kind::Mhc>
                    <PredictionField prediction=prediction testid="prediction" />
                </Show>
                <ProfileField profile=profile testid="profile" />
                <button class="primary perturb-button" data-testid="perturb-one" disabled=busy title="Ctrl+Enter" on:click={
                    let perturb_now = perturb_now.clone();
                    move |_| perturb_now()
                }>
                    {move || if busy.get() { "Working…" } else { "Perturb and run" }}
                </button>
            </div>
            {move || error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="perturb-error">{e}</p> })}
            {move || match shown.get() {
                None => (!busy.get() && error.get().is_none()).then(|| view! {
                    <p class="empty-state muted" data-testid="perturb-empty">"Pick a sample (or paste a program and its call), a kind and a seed, then press “Perturb and run”."</p>
                }).into_any(),
                Some(shown) => view! { <Comparison shown=shown original_run=original_run perturbed_run=perturbed_run verdict=verdict /> }.into_any(),
            }}
        </section>
    }
}

/// `p` and `once`, shared by both forms.
#[component]
/// Shown only when a message kind (MCC, MPS) is chosen: the other kinds ignore both.
fn OptionFields(p: RwSignal<String>, once: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="field"><span class="label">"p (0–1)"</span>
            <input class="narrow" data-testid="p" prop:value=p on:input=move |ev| p.set(event_target_value(&ev)) />
            <span class="hint">"MCC, MPS: the chance that each place gets a message"</span>
        </label>
        <label class="field checkbox"><span class="label">"once"</span>
            <input type="checkbox" data-testid="once" prop:checked=once on:change=move |ev| once.set(event_target_checked(&ev)) />
            <span class="hint">"MCC, MPS: at most one message of each category"</span>
        </label>
    }
}

/// Which task MHC's hint misleads, shared by both forms. The dataset run records it in every row's
/// options, as the command line's `--prediction` does.
#[component]
fn PredictionField(prediction: RwSignal<Prediction>, testid: &'static str) -> impl IntoView {
    view! {
        <label class="field" title="MHC: a wrong return value (output prediction) or a wrong call (input prediction)"><span class="label">"Hint misleads"</span>
            <select data-testid=testid on:change=move |ev| prediction.set(if event_target_value(&ev) == "input" { Prediction::Input } else { Prediction::Output })>
                <option value="output" selected=move || prediction.get() == Prediction::Output>"output prediction"</option>
                <option value="input" selected=move || prediction.get() == Prediction::Input>"input prediction"</option>
            </select>
        </label>
    }
}

/// Whose conventions the perturbation follows, shared by both forms: execbench's (the default) or
/// CodeCrash's published ones, to put a drop next to CodeCrash's table (`docs/perturbations.md`).
#[component]
fn ProfileField(profile: RwSignal<execbench_perturb::Profile>, testid: &'static str) -> impl IntoView {
    use execbench_perturb::Profile;
    view! {
        <label class="field" title="codecrash: CodeCrash's published conventions where execbench differs on purpose (MCC/MPS, GBC, REN); every row records its profile"><span class="label">"Profile"</span>
            <select data-testid=testid on:change=move |ev| profile.set(Profile::parse(&event_target_value(&ev)).unwrap_or(Profile::Execbench))>
                {Profile::ALL.into_iter().map(|p| view! { <option value=p.name() selected=move || profile.get() == p>{p.name()}</option> }).collect_view()}
            </select>
        </label>
    }
}

/// The colour class of the stage that made an edit: renaming, conditions, garbage code, or the
/// misleading messages (comments, prints, hints share one colour: they all add text to mislead).
fn stage_class(kind: Kind) -> &'static str {
    match kind {
        Kind::Ren => "stage-ren",
        Kind::Rtf => "stage-rtf",
        Kind::Gbc | Kind::PscAll => "stage-gbc",
        Kind::Mcc | Kind::Mps | Kind::Mhc => "stage-message",
    }
}

fn stage_label(kind: Kind) -> &'static str {
    match stage_class(kind) {
        "stage-ren" => "renaming",
        "stage-rtf" => "conditions",
        "stage-gbc" => "garbage code",
        _ => "misleading messages",
    }
}

/// Original and perturbed side by side, the edits, and both runs.
#[component]
fn Comparison(
    shown: Shown,
    original_run: RwSignal<Option<RunResult>>,
    perturbed_run: RwSignal<Option<RunResult>>,
    verdict: RwSignal<Option<Result<(), VerifyFailure>>>,
) -> impl IntoView {
    let Shown { original, perturbed, placed, kind, output_from_run } = shown;
    // The code views mark code edits; edits of the call are in the list below.
    let code_edits = || perturbed.edits.iter().zip(&placed).filter(|(e, _)| e.target == Target::Code);
    let before_marks: Vec<Mark> =
        code_edits().map(|(e, p)| Mark { range: p.before.clone(), class: stage_class(e.kind) }).collect();
    let after_marks: Vec<Mark> =
        code_edits().map(|(e, p)| Mark { range: p.after.clone(), class: stage_class(e.kind) }).collect();
    // The legend names the stages this perturbation used, in the order they ran.
    let mut stages: Vec<Kind> = Vec::new();
    for (edit, _) in code_edits() {
        if !stages.iter().any(|k| stage_class(*k) == stage_class(edit.kind)) {
            stages.push(edit.kind);
        }
    }
    let legend = (!stages.is_empty()).then(|| view! {
        <p class="stage-legend" data-testid="stage-legend">
            "Changes: "
            {stages.into_iter().map(|k| view! { <mark class=format!("changed {}", stage_class(k)) data-stage=stage_class(k)>{stage_label(k)}</mark> }).collect_view()}
        </p>
    });
    let call_changed = perturbed.call != original.call;
    let expected_note = if output_from_run { " (from running the original)" } else { "" };
    let hint = perturbed.hint.clone().map(|h| {
        view! { <p class="hint-claim" data-testid="perturb-hint">{format!("The inserted hint claims {} — execution shows it is wrong.", h.claimed)}</p> }
    });
    view! {
        <div class="comparison">
            <div class="side">
                <h3>"Original" <span class="muted">{format!(" · {}", original.id)}</span></h3>
                <MarkedCodeView code=original.code.clone() marks=before_marks testid="original-code" />
                <div class="field"><span class="label">"Call"</span><pre class="value" data-testid="original-call">{original.call.clone()}</pre></div>
            </div>
            <div class="side">
                <h3>{format!("Perturbed · {kind}")}</h3>
                <MarkedCodeView code=perturbed.code.clone() marks=after_marks testid="perturbed-code" />
                <div class="field"><span class="label">{if call_changed { "Call (rewritten)" } else { "Call (unchanged)" }}</span>
                    <pre class={if call_changed { "value changed-call" } else { "value" }} data-testid="perturbed-call">{perturbed.call.clone()}</pre>
                </div>
            </div>
        </div>
        {legend}
        {hint}
        <p class="muted">{format!("Expected output{expected_note}: ")}<code>{original.output.clone()}</code></p>
        <EditList edits=perturbed.edits.clone() placed=placed perturbed_code=perturbed.code.clone() />
        <div class="agreement" data-testid="perturb-agreement">
            {move || match verdict.get() {
                None => view! { <span class="badge info" data-testid="perturb-verdict">"running both…"</span> }.into_any(),
                Some(Ok(())) => view! { <span class="badge pass" data-testid="perturb-verdict">"agree"</span> <span>"Both programs give the same result."</span> }.into_any(),
                Some(Err(reason)) => view! { <span class="badge fail" data-testid="perturb-verdict">"disagree"</span> <span data-testid="perturb-reason">{format!("The perturbed program {reason}.")}</span> }.into_any(),
            }}
        </div>
        <div class="comparison runs">
            <div class="side"><h3>"Original run"</h3>{move || original_run.get().map(|r| view! { <RunResultView result=r /> })}</div>
            <div class="side" data-testid="perturbed-run"><h3>"Perturbed run"</h3>{move || perturbed_run.get().map(|r| view! { <RunResultView result=r /> })}</div>
        </div>
    }
}

// ---------------------------------------------------------------------------------------------
// The whole dataset

#[component]
fn WholeDataset() -> impl IntoView {
    let state = expect_context::<AppState>();
    let run = state.perturb;
    let job = run.job;
    let chosen = RwSignal::new(BTreeMap::from_iter(Kind::ALL.into_iter().map(|k| (k, k == Kind::Rtf))));
    let seeds = RwSignal::new("0".to_string());
    let p = RwSignal::new("1".to_string());
    let once = RwSignal::new(false);
    let prediction = RwSignal::new(Prediction::Output);
    let profile = RwSignal::new(execbench_perturb::Profile::Execbench);
    let error = RwSignal::new(None::<String>);
    // MHC's wrong answers: "offline" or "model" (the form below, shared with Evaluate's settings).
    let wrong_answers = RwSignal::new("offline".to_string());
    let api = ApiForm::new();
    let mhc_chosen = move || chosen.get().get(&Kind::Mhc).copied().unwrap_or(false);

    let start = move |_| {
        let kinds: Vec<Kind> = chosen.get_untracked().into_iter().filter(|(_, on)| *on).map(|(k, _)| k).collect();
        let checked = (|| {
            if kinds.is_empty() {
                return Err("choose at least one kind".to_string());
            }
            Ok((parse_seeds(&seeds.get_untracked())?, parse_p(&p.get_untracked())?))
        })();
        let (seed_list, p) = match checked {
            Ok(v) => v,
            Err(e) => return error.set(Some(e)),
        };
        let DatasetState::Loaded(report) = state.dataset.get_untracked() else {
            return error.set(Some("the dataset is not loaded yet".to_string()));
        };
        let model = if kinds.contains(&Kind::Mhc) && wrong_answers.get_untracked() == "model" {
            if api.is_simulated() {
                return error.set(Some("the simulated model answers benchmark questions only: for MHC's wrong answers choose a provider or a local server".to_string()));
            }
            match api.model() {
                Ok(model) => Some(model),
                Err(e) => return error.set(Some(format!("MHC's model: {e}"))),
            }
        } else {
            None
        };
        error.set(None);
        let options = Options {
            seed: 0,
            p,
            once: once.get_untracked(),
            prediction: prediction.get_untracked(),
            profile: profile.get_untracked(),
        };
        run.start(
            report.samples.clone(),
            dataset_column(&state.dataset_name.get_untracked()),
            kinds,
            seed_list,
            options,
            model,
        );
    };
    let stop = move |_| run.stop();
    let download = move |codecrash: bool| {
        let provenance = run.provenance.get_value();
        let (text, suffix) = run.rows.with_value(|rows| {
            if codecrash {
                (execbench_perturb::to_codecrash_jsonl(rows, &provenance), "codecrash")
            } else {
                (execbench_perturb::to_jsonl(rows, &provenance), "perturbed")
            }
        });
        let name = format!(
            "{}-{}-{suffix}.jsonl",
            dataset_column(&state.dataset_name.get_untracked()),
            run.kinds_label.get_value()
        );
        if let Err(e) = crate::browser::download::download_text(&name, "application/jsonl", &text) {
            error.set(Some(format!("could not save {name}: {e}")));
        }
    };
    let can_download = move || !job.running.get() && run.row_count.get() > 0;
    let download_baseline = move |_| {
        let name = format!("{}-normalised.jsonl", dataset_column(&state.dataset_name.get_untracked()));
        let text = run
            .baseline
            .with_value(|samples| execbench_perturb::normalise::dataset_jsonl(samples, &run.provenance.get_value()));
        if let Err(e) = crate::browser::download::download_text(&name, "application/jsonl", &text) {
            error.set(Some(format!("could not save {name}: {e}")));
        }
    };

    view! {
        <section class="panel perturb-all">
            <h2>{move || format!("Whole dataset · {}", state.dataset_name.get())}</h2>
            <div class="row-fields options">
                <fieldset class="field kinds"><legend class="label">"Kinds"</legend>
                    {Kind::ALL.into_iter().map(|k| view! {
                        <label class="kind-choice">
                            <input type="checkbox" data-testid=format!("kind-{}", k.name())
                                prop:checked=move || chosen.get().get(&k).copied().unwrap_or(false)
                                on:change=move |ev| { let on = event_target_checked(&ev); chosen.update(|c| { c.insert(k, on); }) } />
                            {k.name()}
                        </label>
                    }).collect_view()}
                </fieldset>
                <label class="field"><span class="label">"Seeds"</span>
                    <input class="seeds" data-testid="seeds" placeholder="0-4 or 0,1,2" prop:value=seeds on:input=move |ev| seeds.set(event_target_value(&ev)) />
                </label>
                <Show when=move || chosen.get().iter().any(|(k, on)| *on && k.uses_p_and_once())>
                    <OptionFields p=p once=once />
                </Show>
                {move || {
                    // Say when a choice does nothing: REN under several seeds is perturbed once.
                    let ren = chosen.get().get(&Kind::Ren).copied().unwrap_or(false);
                    let several = parse_seeds(&seeds.get()).map(|s| s.len() > 1).unwrap_or(false);
                    (ren && several).then(|| view! {
                        <p class="hint choice-note" data-testid="seeds-note">"REN draws nothing at random: it is perturbed with the first seed only, since the other seeds would repeat its rows exactly."</p>
                    })
                }}
                <Show when=mhc_chosen>
                    <PredictionField prediction=prediction testid="all-prediction" />
                    <label class="field"><span class="label">"MHC's wrong answers"</span>
                        <select data-testid="wrong-answers" on:change=move |ev| wrong_answers.set(event_target_value(&ev))>
                            <option value="offline" selected=move || wrong_answers.get() == "offline">"offline (seeded)"</option>
                            <option value="model" selected=move || wrong_answers.get() == "model">"from a model"</option>
                        </select>
                    </label>
                </Show>
                <ProfileField profile=profile testid="all-profile" />
            </div>
            <Show when=move || mhc_chosen() && wrong_answers.get() == "model">
                <p class="hint" data-testid="wrong-answers-note">
                    "The model is asked, per sample, for a wrong answer a careful reader could believe; execution checks each proposal, and one that is right (or raises) is shown to the model when it is asked again, up to 3 times. A sample left without one gets the offline proposals. Proposals are kept in this browser: perturbing the same samples with the same model again asks nothing."
                </p>
                <ApiSettingsPanel form=api />
            </Show>
            <div class="toolbar">
                <button class="primary" data-testid="perturb-all-start" on:click=start
                    disabled=move || job.running.get() || !matches!(state.dataset.get(), DatasetState::Loaded(_))>"Perturb and verify all"</button>
                <button data-testid="perturb-all-stop" on:click=stop disabled=move || !job.running.get()>"Stop"</button>
                <button data-testid="download-jsonl" on:click=move |_| download(false) disabled=move || !can_download()>
                    {move || format!("Download {} verified rows (JSONL)", run.row_count.get())}
                </button>
                <button data-testid="download-codecrash" on:click=move |_| download(true) disabled=move || !can_download()>"CodeCrash layout (JSONL)"</button>
                <Show when={move || !job.running.get() && run.baseline_count.get() > 0}>
                    <button data-testid="download-baseline" on:click=download_baseline title="the dataset as the codecrash profile perturbed it: every program normalised by ast.unparse, CodeCrash's vanilla baseline; import it on the Datasets page to evaluate it">
                        {move || format!("Normalised baseline, {} rows (JSONL)", run.baseline_count.get())}
                    </button>
                </Show>
            </div>
            {move || error.get().or_else(|| run.error.get()).map(|e| view! { <p class="error-box" role="alert" data-testid="perturb-all-error">{e}</p> })}
            <ProgressBar done=job.done total=job.total />
            <p class="stats" data-testid="perturb-all-stats">
                {move || format!("{} / {} programs · {:.1} s · {:.0} programs/s ", job.done.get(), job.total.get(), job.elapsed_ms.get() / 1000.0, job.rate())}
                {move || job.outcome.get().map(|outcome| view! { <span class="run-state" data-testid="perturb-all-state">{outcome}</span> })}
            </p>
            <NormalisedSummary run=run />
            <KindSummary run=run />
            <ModelClaimsSummary run=run />
            <FailureTable run=run />
            <PerturbedRows run=run />
        </section>
    }
}

/// How many of MHC's wrong answers the model gave, and why the others fell back on the offline
/// source.
#[component]
fn ModelClaimsSummary(run: PerturbRun) -> impl IntoView {
    /// Samples listed by name at most; the rest are counted.
    const LISTED: usize = 20;
    move || {
        run.model_claims.get().map(|claims| {
            let asked = &claims.asked;
            let total = asked.proposals.len();
            let fell_back = asked.fell_back();
            let (tokens_in, tokens_out) = asked.tokens();
            let more = fell_back.len().saturating_sub(LISTED);
            let (from_model, fell) = (total - fell_back.len(), fell_back.len());
            view! {
                <div class="model-claims" data-testid="model-claims" data-from-model=from_model.to_string() data-fell-back=fell.to_string() data-requests=asked.requests.to_string() data-from-cache=asked.from_cache.to_string()>
                    <p>{format!(
                        "MHC's wrong answers from {}: {} of {total} samples have the model's ({} kept from an earlier run, {} requests now, {tokens_in} tokens in, {tokens_out} out); {} fell back on offline proposals.",
                        claims.model, from_model, asked.from_cache, asked.requests, fell
                    )}</p>
                    {claims.not_kept.map(|e| view! { <p class="hint" data-testid="model-claims-not-kept">{format!("The proposals could not be kept in this browser: {e}")}</p> })}
                    <ul class="fell-back">
                        {fell_back.into_iter().take(LISTED).map(|(id, why)| view! { <li data-testid="model-claims-fell-back" data-id=id.clone()><a href=link_for(&id)>{id.clone()}</a>{format!(": {why}")}</li> }).collect_view()}
                        {(more > 0).then(|| view! { <li class="muted">{format!("and {more} more")}</li> })}
                    </ul>
                </div>
            }
        })
    }
}

/// The codecrash profile's first step: how many programs `ast.unparse` normalised and changed,
/// and those it could not (they are refused by every kind, listed with the failures).
#[component]
fn NormalisedSummary(run: PerturbRun) -> impl IntoView {
    move || {
        run.normalised.get().map(|n| {
            view! {
                <p class="stats" data-testid="normalised" data-done=n.done.to_string() data-changed=n.changed.to_string() data-failed=n.failed.len().to_string()>
                    {format!(
                        "codecrash profile: programs normalised by ast.unparse first, as CodeCrash does: {} done, {} changed by it{}.",
                        n.done, n.changed,
                        if n.failed.is_empty() { String::new() } else { format!(", {} could not be (not perturbed)", n.failed.len()) }
                    )}
                    {(run.job.running.get() && run.job.done.get() == 0).then_some(" Normalising…")}
                </p>
            }
        })
    }
}

#[component]
fn KindSummary(run: PerturbRun) -> impl IntoView {
    move || {
        let counts = run.counts.get();
        let total_perturb: f64 = counts.values().map(|c| c.perturb_ms).sum();
        let total_verify: f64 = counts.values().map(|c| c.verify_ms).sum();
        (!counts.is_empty()).then(|| view! {
            <table class="kind-summary" data-testid="perturb-summary">
                <thead><tr>
                    <th>"kind"</th><th>"done"</th><th>"verified"</th>
                    <th title="verified and exported as they were: this kind found nothing to change in them">"of which unchanged"</th>
                    <th>"failed verification"</th><th>"refused"</th>
                    <th title="time spent perturbing, on the page's thread">"perturb"</th>
                    <th title="time spent running the perturbed programs in the worker">"verify"</th>
                </tr></thead>
                <tbody>
                    {counts.into_iter().map(|(kind, c)| view! {
                        <tr data-testid=format!("summary-{}", kind.name())>
                            <td>{kind.name()}</td>
                            <td class="num">{c.programs}</td>
                            <td class="num pass" data-testid=format!("verified-{}", kind.name())>{c.verified}</td>
                            <td class="num" data-testid=format!("unchanged-{}", kind.name())>{c.unchanged}</td>
                            <td class={if c.failed_verification > 0 { "num fail" } else { "num" }} data-testid=format!("failed-{}", kind.name())>{c.failed_verification}</td>
                            <td class={if c.refused > 0 { "num warn" } else { "num" }} data-testid=format!("refused-{}", kind.name())>{c.refused}</td>
                            <td class="num" data-testid=format!("perturb-ms-{}", kind.name()) data-ms=format!("{:.3}", c.perturb_ms)>{duration(c.perturb_ms)}</td>
                            <td class="num" data-testid=format!("verify-ms-{}", kind.name()) data-ms=format!("{:.3}", c.verify_ms)>{duration(c.verify_ms)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
                <tfoot><tr>
                    <td colspan="6">"all kinds"</td>
                    <td class="num" data-testid="perturb-ms-total">{duration(total_perturb)}</td>
                    <td class="num" data-testid="verify-ms-total">{duration(total_verify)}</td>
                </tr></tfoot>
            </table>
        })
    }
}

/// `850 ms`, `12.3 s`: short durations in milliseconds, longer ones in seconds.
pub fn duration(ms: f64) -> String {
    if ms < 1000.0 { format!("{ms:.0} ms") } else { format!("{:.1} s", ms / 1000.0) }
}

#[component]
fn FailureTable(run: PerturbRun) -> impl IntoView {
    move || {
        run.failures.with(|failures| {
            (!failures.is_empty()).then(|| {
                let more = failures.len().saturating_sub(FAILURES_SHOWN);
                let rows = failures
                    .iter()
                    .take(FAILURES_SHOWN)
                    .map(|f| {
                        let stage = if f.stage == execbench_perturb::Stage::Verify { "failed verification" } else { "refused" };
                        let link = link_for(&f.id);
                        view! {
                            <tr>
                                <td><a href=link title="open in the single-program view">{f.id.clone()}</a></td>
                                <td>{f.kind.name()}</td><td class="num">{f.seed}</td><td>{stage}</td><td class="reason">{f.reason.clone()}</td>
                            </tr>
                        }
                    })
                    .collect_view();
                view! {
                    <details class="failures" open=true data-testid="perturb-failures">
                        <summary>{format!("{} not exported", failures.len())}</summary>
                        <table class="problems">
                            <thead><tr><th>"sample"</th><th>"kind"</th><th>"seed"</th><th>"stage"</th><th>"reason"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                        {(more > 0).then(|| view! { <p class="muted">{format!("… and {more} more")}</p> })}
                    </details>
                }
            })
        })
    }
}

/// `#/perturb/<id>`: this view with one sample picked and perturbed (linked from the sample page).
pub fn link_for(sample_id: &str) -> String {
    PerturbLink { sample: Some(sample_id.to_string()), ..PerturbLink::default() }.href()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perturbation_demo_is_a_link_that_reads_back() {
        let rtf = PerturbLink {
            sample: Some("sample_3".into()),
            kind: Kind::Rtf,
            options: Options::with_seed(2),
            claim: None,
        };
        let mcc = PerturbLink {
            sample: Some("a b/c".into()),
            kind: Kind::Mcc,
            options: Options { seed: 0, p: 0.5, once: true, prediction: Prediction::Output, ..Options::default() },
            claim: None,
        };
        let mhc = PerturbLink {
            sample: None,
            kind: Kind::Mhc,
            options: Options { prediction: Prediction::Input, ..Options::with_seed(7) },
            claim: None,
        };
        let gbc = PerturbLink {
            sample: Some("sample_1".into()),
            kind: Kind::Gbc,
            options: Options { profile: execbench_perturb::Profile::Codecrash, ..Options::with_seed(4) },
            claim: None,
        };
        let claimed = PerturbLink {
            sample: Some("sample_2".into()),
            kind: Kind::Mhc,
            options: Options::default(),
            claim: Some("['a&b', 2]".into()),
        };
        let cases = [
            (&rtf, "#/perturb/sample_3?kind=RTF&seed=2"),
            (&mcc, "#/perturb/a%20b%2Fc?kind=MCC&seed=0&p=0.5&once=1"),
            (&mhc, "#/perturb?kind=MHC&seed=7&prediction=input"),
            (&gbc, "#/perturb/sample_1?kind=GBC&seed=4&profile=codecrash"),
            (&claimed, "#/perturb/sample_2?kind=MHC&seed=0&claim=%5B'a%26b'%2C%202%5D"),
        ];
        for (link, href) in cases {
            assert_eq!(link.href(), href);
            assert_eq!(&PerturbLink::parse(href), link, "{href}");
        }
        // Options a kind ignores are not written.
        let ren = PerturbLink {
            kind: Kind::Ren,
            options: Options { p: 0.5, once: true, ..Options::default() },
            sample: None,
            claim: Some("1".into()),
        };
        assert_eq!(ren.href(), "#/perturb?kind=REN&seed=0");
        // The old link form and bad values keep the defaults.
        assert_eq!(
            PerturbLink::parse("#/perturb/sample_9"),
            PerturbLink { sample: Some("sample_9".into()), ..PerturbLink::default() }
        );
        assert_eq!(PerturbLink::parse("#/perturb?kind=NOPE&seed=-1&p=7"), PerturbLink::default());
        assert_eq!(PerturbLink::parse("#/datasets"), PerturbLink::default());
    }

    #[test]
    fn durations_switch_to_seconds_at_one_second() {
        for (ms, shown) in [(0.0, "0 ms"), (12.4, "12 ms"), (999.4, "999 ms"), (1000.0, "1.0 s"), (12_345.0, "12.3 s")]
        {
            assert_eq!(duration(ms), shown, "{ms}");
        }
    }

    #[test]
    fn seeds_are_read_from_ranges_and_lists() {
        assert_eq!(parse_seeds("0"), Ok(vec![0]));
        assert_eq!(parse_seeds("0-4"), Ok(vec![0, 1, 2, 3, 4]));
        assert_eq!(parse_seeds(" 0, 1,2 "), Ok(vec![0, 1, 2]));
        assert_eq!(parse_seeds("3-4, 0, 4"), Ok(vec![3, 4, 0]));
        for bad in ["", "x", "1,,2", "4-2", "-1", "0-5000", "1.5"] {
            assert!(parse_seeds(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_seeds("a"), Err("seeds: `a` is not a whole number ≥ 0".to_string()));
    }

    #[test]
    fn p_must_be_a_probability() {
        assert_eq!(parse_p("0.5"), Ok(0.5));
        assert_eq!(parse_p("1"), Ok(1.0));
        assert_eq!(parse_p("1.5"), Err("p must be between 0 and 1, not 1.5".to_string()));
        assert!(parse_p("NaN").is_err());
        assert!(parse_p("half").is_err());
    }

    #[test]
    fn pasted_code_and_call_make_a_sample() {
        let s = pasted_sample("def g(a, b):\n    return a", " g(1, (2, 3)) ", "1").unwrap();
        assert_eq!((s.function_name.as_str(), s.input.as_str(), s.call.as_str()), ("g", "1, (2, 3)", "g(1, (2, 3))"));
        assert!(pasted_sample("", "f(1)", "").is_err());
        assert!(pasted_sample("def f(): pass", "1 + 2", "").is_err());
        assert_eq!(
            pasted_sample("def f(x):\n    return (x +\n", "f(1)", "").unwrap_err(),
            "the code does not parse: syntax error on line 2: `return (x +`"
        );
    }

    #[test]
    fn dataset_column_matches_the_command_line() {
        assert_eq!(dataset_column("CRUXEval"), "cruxeval");
        assert_eq!(dataset_column("contest.jsonl"), "contest");
        assert_eq!(dataset_column("plain"), "plain");
    }
}
