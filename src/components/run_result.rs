//! How one run's result is shown: verdict, value, printed output, time, exception details.

use execbench_core::{Outcome, RunResult};
use leptos::prelude::*;

#[component]
pub fn RunResultView(result: RunResult) -> impl IntoView {
    let time = format!("{:.1} ms", result.elapsed_ms);
    let (badge, badge_class) = match &result.outcome {
        Outcome::Value { matches: Some(true), .. } => ("matches the expected output", "badge pass"),
        Outcome::Value { matches: Some(false), .. } => ("differs from the expected output", "badge fail"),
        Outcome::Value { matches: None, .. } => ("returned", "badge info"),
        Outcome::Raised { .. } => ("raised an exception", "badge fail"),
        Outcome::TimedOut { .. } => ("timed out", "badge fail"),
        Outcome::StepLimit { .. } => ("step limit", "badge fail"),
        Outcome::Crashed { reason } if reason == crate::browser::python::STOPPED_BY_USER => ("stopped", "badge info"),
        Outcome::Crashed { .. } => ("engine failure", "badge fail"),
    };
    let body = match result.outcome.clone() {
        Outcome::Value { repr, .. } => view! {
            <div class="field"><span class="label">"Value"</span><pre class="value" data-testid="result-value">{repr}</pre></div>
        }
        .into_any(),
        Outcome::Raised { kind, message, traceback, phase } => view! {
            <div class="field">
                <span class="label">"Exception"</span>
                <pre class="value error" data-testid="result-error">{format!("{kind}: {message}")}</pre>
                <span class="hint">{format!("raised while running the {phase}")}</span>
            </div>
            <details class="traceback" open=true><summary>"Traceback"</summary><pre>{traceback}</pre></details>
        }
        .into_any(),
        other => view! {
            <div class="field"><span class="label">"Stopped"</span><pre class="value error" data-testid="result-error">{other.summary()}</pre></div>
        }
        .into_any(),
    };
    let stdout = result.stdout.clone();
    view! {
        <section class="run-result" data-testid="run-result">
            <div class="result-head">
                <span class=badge_class data-testid="result-badge">{badge}</span>
                <span class="time" data-testid="result-time">{time}</span>
            </div>
            {body}
            <div class="field">
                <span class="label">"Printed output"</span>
                {if stdout.is_empty() {
                    view! { <span class="hint">"(nothing printed)"</span> }.into_any()
                } else {
                    view! { <pre class="stdout" data-testid="result-stdout">{stdout}</pre> }.into_any()
                }}
            </div>
        </section>
    }
}
