//! The whole dataset, perturbed (kinds x seeds) and verified by the dataset job
//! (`crate::jobs::PerturbRun`, in app state), with its summaries, failures and downloads.

use std::collections::BTreeMap;

use execbench_perturb::{Kind, Options, Prediction};
use leptos::prelude::*;

use super::shared::{OptionFields, PredictionField, ProfileField, parse_seeds};
use crate::components::evaluation::model_settings::ApiSettingsPanel;
use crate::components::perturbed_rows::PerturbedRows;
use crate::components::progress_bar::ProgressBar;
use crate::jobs::PerturbRun;
use crate::route::{parse_p, perturb_link};
use crate::state::api_form::ApiForm;
use crate::state::{AppState, DatasetState, dataset_column};

/// Failures listed in the page; the rest are counted.
const FAILURES_SHOWN: usize = 200;

#[component]
pub fn WholeDataset() -> impl IntoView {
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
                        {fell_back.into_iter().take(LISTED).map(|(id, why)| view! { <li data-testid="model-claims-fell-back" data-id=id.clone()><a href=perturb_link(&id)>{id.clone()}</a>{format!(": {why}")}</li> }).collect_view()}
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
                        let link = perturb_link(&f.id);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_switch_to_seconds_at_one_second() {
        for (ms, shown) in [(0.0, "0 ms"), (12.4, "12 ms"), (999.4, "999 ms"), (1000.0, "1.0 s"), (12_345.0, "12.3 s")]
        {
            assert_eq!(duration(ms), shown, "{ms}");
        }
    }
}
