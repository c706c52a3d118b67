//! The funnel as a bar chart: one bar per stage, its count and its share of the candidates
//! read, so a user sees at a glance where candidates are lost.

use execbench_recipe::Funnel;
use leptos::prelude::*;

/// One bar: its test id, label, count and what it counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub id: &'static str,
    pub label: &'static str,
    pub count: usize,
    pub unit: &'static str,
}

/// The stages in pipeline order. Responses are counted in responses, the rest in candidates (a
/// response gives one candidate per test input); stages not reached yet are left out.
pub fn bars(funnel: &Funnel) -> Vec<Bar> {
    let mut bars = Vec::new();
    if let Some(responses) = funnel.responses {
        bars.push(Bar { id: "generated", label: "generated", count: responses, unit: "responses" });
    }
    bars.push(Bar { id: "parsed", label: "parsed", count: funnel.parsed, unit: "candidates" });
    bars.push(Bar { id: "static", label: "passed static", count: funnel.passed_static, unit: "candidates" });
    bars.push(Bar { id: "runtime", label: "passed runtime", count: funnel.passed_runtime, unit: "candidates" });
    bars.push(Bar { id: "unique", label: "unique", count: funnel.unique, unit: "candidates" });
    if funnel.sampled > 0 {
        bars.push(Bar { id: "sampled", label: "sampled", count: funnel.sampled, unit: "candidates" });
    }
    bars
}

/// A bar's width in percent of the widest bar of its unit (responses and candidates are not
/// one scale); at least a sliver when the count is not 0.
pub fn width_percent(bar: &Bar, all: &[Bar]) -> f64 {
    let widest = all.iter().filter(|b| b.unit == bar.unit).map(|b| b.count).max().unwrap_or(0);
    if widest == 0 || bar.count == 0 {
        return 0.0;
    }
    (bar.count as f64 * 100.0 / widest as f64).max(0.5)
}

#[component]
pub fn FunnelChart(#[prop(into)] funnel: Signal<Funnel>) -> impl IntoView {
    view! {
        <div class="funnel-chart" data-testid="build-funnel">
            {move || {
                let funnel = funnel.get();
                let all = bars(&funnel);
                let first = funnel.parsed;
                all.iter().map(|bar| {
                    let percent = width_percent(bar, &all);
                    let share = if bar.unit == "candidates" && first > 0 { format!(" ({:.0}%)", bar.count as f64 * 100.0 / first as f64) } else { String::new() };
                    view! {
                        <div class="funnel-row" data-testid=format!("funnel-{}", bar.id) data-count=bar.count.to_string()>
                            <span class="funnel-label">{bar.label}</span>
                            <span class="funnel-track">
                                <span class=format!("funnel-bar funnel-{}", bar.unit) style=format!("width: {percent:.2}%")></span>
                                <span class="funnel-count">{format!("{} {}{share}", bar.count, bar.unit)}</span>
                            </span>
                        </div>
                    }
                }).collect_view()
            }}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_appear_as_they_are_reached() {
        let mut funnel = Funnel { parsed: 10, passed_static: 8, passed_runtime: 5, unique: 4, ..Funnel::default() };
        let ids = |f: &Funnel| bars(f).iter().map(|b| b.id).collect::<Vec<_>>();
        assert_eq!(ids(&funnel), ["parsed", "static", "runtime", "unique"]);
        funnel.responses = Some(3);
        funnel.sampled = 2;
        assert_eq!(ids(&funnel), ["generated", "parsed", "static", "runtime", "unique", "sampled"]);
    }

    #[test]
    fn widths_are_per_unit() {
        let funnel = Funnel {
            responses: Some(2),
            parsed: 10,
            passed_static: 5,
            passed_runtime: 0,
            unique: 0,
            ..Funnel::default()
        };
        let all = bars(&funnel);
        let widths: Vec<f64> = all.iter().map(|b| width_percent(b, &all)).collect();
        assert_eq!(widths, [100.0, 100.0, 50.0, 0.0, 0.0]);
        let tiny = Funnel { parsed: 1000, passed_static: 1, ..Funnel::default() };
        let all = bars(&tiny);
        assert_eq!(width_percent(&all[1], &all), 0.5);
    }
}
