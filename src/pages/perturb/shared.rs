//! What both forms of the Perturb view share: reading the seeds, and the option fields.

use execbench_perturb::Prediction;
use leptos::prelude::*;

/// More seeds than this is almost certainly a typo (`0-10000`).
const MAX_SEEDS: usize = 1000;

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

/// `p` and `once`, shared by both forms.
#[component]
/// Shown only when a message kind (MCC, MPS) is chosen: the other kinds ignore both.
pub fn OptionFields(p: RwSignal<String>, once: RwSignal<bool>) -> impl IntoView {
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
pub fn PredictionField(prediction: RwSignal<Prediction>, testid: &'static str) -> impl IntoView {
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
pub fn ProfileField(profile: RwSignal<execbench_perturb::Profile>, testid: &'static str) -> impl IntoView {
    use execbench_perturb::Profile;
    view! {
        <label class="field" title="codecrash: CodeCrash's published conventions where execbench differs on purpose (MCC/MPS, GBC, REN); every row records its profile"><span class="label">"Profile"</span>
            <select data-testid=testid on:change=move |ev| profile.set(Profile::parse(&event_target_value(&ev)).unwrap_or(Profile::Execbench))>
                {Profile::ALL.into_iter().map(|p| view! { <option value=p.name() selected=move || profile.get() == p>{p.name()}</option> }).collect_view()}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
