//! One program, perturbed and shown side by side with the original: a dataset's sample (the
//! address can name it, `crate::route::PerturbLink`) or pasted code. The pipeline is the
//! library's `perturb_one`; this view reads the form and shows each step.

use execbench_core::{Limits, RunResult, Sample};
use execbench_dataset_jobs::perturbation::{SingleFailure, SingleProgram, SingleVerdict, perturb_one};
use execbench_perturb::{Kind, Options, Perturbed, Placed, Target, VerifyFailure};
use leptos::prelude::*;

use super::shared::{OptionFields, PredictionField, ProfileField};
use crate::browser::python::use_python;
use crate::components::code_box::CodeBox;
use crate::components::edit_list::EditList;
use crate::components::keys::is_run_shortcut;
use crate::components::marked_code::{Mark, MarkedCodeView};
use crate::components::run_result::RunResultView;
use crate::route::{PerturbLink, current_perturb_link, parse_p, parse_seed};
use crate::state::{AppState, DatasetState};

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

/// What the single-program view shows of a perturbation: the edits that change something, each
/// placed in the original and the final text. REN's edits of the call are listed too.
fn shown_edits(perturbed: &Perturbed) -> (Perturbed, Vec<Placed>) {
    let placed = execbench_perturb::place(&perturbed.edits);
    // An edit that writes back the same text (REN keeps the name `f`) changes nothing.
    let (edits, placed): (Vec<_>, Vec<_>) =
        perturbed.edits.iter().cloned().zip(placed).filter(|(e, _)| e.before != e.after).unzip();
    (Perturbed { edits, ..perturbed.clone() }, placed)
}

#[derive(Clone, Copy, PartialEq)]
enum Source {
    Dataset,
    Pasted,
}

/// What one perturbation produced, ready to show (not the Evaluate job's `Shown`, a label).
#[derive(Clone)]
struct ShownPerturbation {
    original: Sample,
    perturbed: Perturbed,
    placed: Vec<Placed>,
    kind: Kind,
    /// Pasted code without an expected output: it came from running the original.
    output_from_run: bool,
}

#[component]
pub fn OneProgram() -> impl IntoView {
    let state = expect_context::<AppState>();
    let python = use_python();
    let link = current_perturb_link();
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
    let shown = RwSignal::new(None::<ShownPerturbation>);
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
            let job =
                SingleProgram { sample: &sample, kind, options, claim: claim.as_deref(), limits: Limits::default() };
            let show = |perturbed: &Perturbed, sample: &Sample, output_from_run: bool| {
                let (perturbed, placed) = shown_edits(perturbed);
                shown.set(Some(ShownPerturbation {
                    original: sample.clone(),
                    perturbed,
                    placed,
                    kind,
                    output_from_run,
                }));
            };
            match perturb_one(&python, &job, &mut |p| show(&p.perturbed, &p.sample, p.output_from_run)).await {
                Ok((perturbation, SingleVerdict { original_run: original, perturbed_run: run, verdict: result })) => {
                    original_run.set(Some(original));
                    // MHC: the first claim was not wrong after all; show the program that was run.
                    if let Ok(verified) = result.as_ref()
                        && *verified != perturbation.perturbed
                    {
                        show(verified, &perturbation.sample, perturbation.output_from_run);
                    }
                    perturbed_run.set(run);
                    verdict.set(Some(result.map(|_| ())));
                }
                Err(failure) => {
                    fail(failure.to_string());
                    // The original's run is the reason there is nothing to keep.
                    if let SingleFailure::NoValue(run) = failure {
                        original_run.set(Some(run));
                    }
                }
            }
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
            if is_run_shortcut(&ev) {
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
                Some(shown) => view! { <SideBySide shown=shown original_run=original_run perturbed_run=perturbed_run verdict=verdict /> }.into_any(),
            }}
        </section>
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
fn SideBySide(
    shown: ShownPerturbation,
    original_run: RwSignal<Option<RunResult>>,
    perturbed_run: RwSignal<Option<RunResult>>,
    verdict: RwSignal<Option<Result<(), VerifyFailure>>>,
) -> impl IntoView {
    let ShownPerturbation { original, perturbed, placed, kind, output_from_run } = shown;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
