//! The Playground: any program and expression, run in the worker with a time limit.

use execbench_core::{Limits, RunRequest, RunResult};
use leptos::prelude::*;

use crate::browser::python::use_python;
use crate::components::code_box::CodeBox;
use crate::components::keys::is_run_shortcut;
use crate::components::run_result::RunResultView;

const EXAMPLE_PROGRAM: &str = "def f(text):\n    counts = {}\n    for ch in text:\n        counts[ch] = counts.get(ch, 0) + 1\n    print('distinct:', len(counts))\n    return sorted(counts.items(), key=lambda kv: -kv[1])[:2]\n";
const EXAMPLE_EXPRESSION: &str = "f('mississippi')";

/// Reads the time-limit box: seconds, 0.1 to 60.
pub fn parse_time_limit(text: &str) -> Result<u32, String> {
    let seconds: f64 = text.trim().parse().map_err(|_| format!("time limit `{text}` is not a number of seconds"))?;
    if !(0.1..=60.0).contains(&seconds) {
        return Err(format!("time limit must be between 0.1 and 60 seconds, not {seconds}"));
    }
    Ok((seconds * 1000.0).round() as u32)
}

/// Reads the step-limit box: empty or 0 for none, else a whole number of trace events. The step
/// limit stops a run by counting (the same count on every machine), where the time limit depends
/// on the machine's speed; counting makes tight loops several times slower.
pub fn parse_step_limit(text: &str) -> Result<u64, String> {
    let text = text.trim().replace(['_', ','], "");
    if text.is_empty() {
        return Ok(0);
    }
    text.parse::<u64>().map_err(|_| format!("step limit `{text}` is not a whole number (leave it empty for none)"))
}

#[component]
pub fn PlaygroundPage() -> impl IntoView {
    let python = use_python();
    let program = RwSignal::new(EXAMPLE_PROGRAM.to_string());
    let expression = RwSignal::new(EXAMPLE_EXPRESSION.to_string());
    let expected = RwSignal::new(String::new());
    let limit = RwSignal::new("2".to_string());
    let steps = RwSignal::new(String::new());
    let (result, set_result) = signal::<Option<RunResult>>(None);
    let (error, set_error) = signal::<Option<String>>(None);
    let (running, set_running) = signal(false);
    // Numbers the results, so a person (and a test) can tell a new result from the previous one.
    let (runs, set_runs) = signal(0u32);
    let current = StoredValue::new_local(None::<crate::browser::python::PythonWorker>);
    let stop = move |_| {
        if let Some(job) = current.get_value() {
            job.stop();
        }
    };
    let run = move || {
        if running.get_untracked() {
            return;
        }
        let time_ms = match parse_time_limit(&limit.get_untracked()) {
            Ok(ms) => ms,
            Err(e) => return set_error.set(Some(e)),
        };
        let max_steps = match parse_step_limit(&steps.get_untracked()) {
            Ok(n) => n,
            Err(e) => return set_error.set(Some(e)),
        };
        // A program with no expression runs for what it prints; its value is None.
        let evaluated =
            Some(expression.get_untracked()).filter(|e| !e.trim().is_empty()).unwrap_or_else(|| "None".to_string());
        set_error.set(None);
        let mut request =
            RunRequest::new(program.get_untracked(), evaluated).with_limits(Limits { time_ms, max_steps });
        let wanted = expected.get_untracked();
        if !wanted.trim().is_empty() {
            request = request.expecting(wanted);
        }
        // Each run is a job of its own, so Stop ends this run only.
        let python = python.new_job();
        current.set_value(Some(python.clone()));
        set_running.set(true);
        leptos::task::spawn_local(async move {
            let r = python.run(request).await;
            set_runs.update(|n| *n += 1);
            set_result.set(Some(r));
            set_running.set(false);
        });
    };
    // Ctrl+Enter (Cmd+Enter on a Mac) runs from anywhere in the form, as the button does.
    let on_keydown = {
        let run = run.clone();
        move |ev: leptos::ev::KeyboardEvent| {
            if is_run_shortcut(&ev) {
                ev.prevent_default();
                run();
            }
        }
    };
    view! {
        <section class="page playground" on:keydown=on_keydown>
            <h1>"Playground" {move || running.get().then(|| view! { <span class="running-tag" data-testid="playground-running">"running"</span> })}</h1>
            <p class="muted">"Runs in RustPython inside a Web Worker: no network, no files. A run that exceeds its time limit is stopped and the worker replaced."</p>
            <label class="field"><span class="label">"Program"</span>
                <CodeBox value=program rows=12 testid="program" />
            </label>
            <div class="row-fields">
                <label class="field grow"><span class="label">"Expression"</span>
                    <input class="code-input" data-testid="expression" placeholder="empty: just run the program" prop:value=expression on:input=move |ev| expression.set(event_target_value(&ev)) />
                </label>
                <label class="field grow"><span class="label">"Expected (optional)"</span>
                    <input class="code-input" data-testid="expected" placeholder="a Python literal" prop:value=expected on:input=move |ev| expected.set(event_target_value(&ev)) />
                </label>
                <label class="field"><span class="label">"Time limit (s)"</span>
                    <input class="narrow" data-testid="time-limit" prop:value=limit on:input=move |ev| limit.set(event_target_value(&ev)) />
                </label>
                <label class="field" title="Stops the run after this many Python trace events (lines, calls, returns): the same count on every machine. Empty: no step limit.">
                    <span class="label">"Step limit"</span>
                    <input class="narrow" data-testid="step-limit" placeholder="none" prop:value=steps on:input=move |ev| steps.set(event_target_value(&ev)) />
                </label>
            </div>
            <div class="toolbar">
                <button class="primary" data-testid="run" on:click=move |_| run() disabled=running title="Ctrl+Enter">{move || if running.get() { "Running…" } else { "Run" }}</button>
                <button data-testid="playground-stop" on:click=stop disabled=move || !running.get()>"Stop"</button>
            </div>
            {move || error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="form-error">{e}</p> })}
            {move || result.get().map(|r| view! {
                <p class="hint" data-testid="run-number" data-run=runs.get()>{format!("Result of run {}", runs.get())}</p>
                <RunResultView result=r />
            })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_or_refused_with_the_reason() {
        let times: [(&str, Result<u32, &str>); 6] = [
            ("2", Ok(2000)),
            (" 0.5 ", Ok(500)),
            ("60", Ok(60_000)),
            ("0", Err("time limit must be between 0.1 and 60 seconds, not 0")),
            ("61", Err("time limit must be between 0.1 and 60 seconds, not 61")),
            ("fast", Err("time limit `fast` is not a number of seconds")),
        ];
        for (text, expected) in times {
            assert_eq!(parse_time_limit(text), expected.map_err(str::to_string), "{text:?}");
        }
        let steps: [(&str, Result<u64, &str>); 6] = [
            ("", Ok(0)),
            ("  ", Ok(0)),
            ("0", Ok(0)),
            ("100000", Ok(100_000)),
            ("1_000,000", Ok(1_000_000)),
            ("-5", Err("step limit `-5` is not a whole number (leave it empty for none)")),
        ];
        for (text, expected) in steps {
            assert_eq!(parse_step_limit(text), expected.map_err(str::to_string), "{text:?}");
        }
    }
}
