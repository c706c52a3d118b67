//! Compare stored runs: pick runs (any models, datasets, perturbations), and see pass@1 with its
//! 95% bootstrap interval, pass@5, the drop of each perturbed run against the vanilla run of the
//! same model (points, relative, McNemar's p), the charts, and the flipped samples side by side.
//! The figures, the reports and the charts are `execbench_compare`'s; this page reads the runs
//! from the store, hands them over and shows what comes back.

use std::collections::BTreeSet;
use std::sync::Arc;

use execbench_compare::charts::{category_chart, drop_heatmap, pass_at_1_chart, question_kinds_chart};
use execbench_compare::report::{csv_table, markdown_section, one_decimal, p_value_words, pairs_jsonl};
use execbench_compare::{Cell, Change, CompareOptions, Comparison, Flip, FlipDirection, compare, line_diff};
use execbench_eval::report::SampleResult;
use execbench_eval::score::Mode;
use execbench_run::naming::run_name;
use leptos::prelude::*;

use crate::browser::download::{download_svg_as_png, download_text};
use crate::route::perturb_href;
use crate::state::compare::{Compared, compare_state};
use crate::state::{AppState, DatasetState};

/// Today as `YYYY-MM-DD`, in UTC.
fn today_utc() -> String {
    let now = js_sys::Date::new_0();
    format!("{:04}-{:02}-{:02}", now.get_utc_full_year(), now.get_utc_month() + 1, now.get_utc_date())
}

fn cell_view(cell: &Cell) -> impl IntoView + use<> {
    let score = &cell.score;
    let main = score.pass_at_1.map(one_decimal).unwrap_or_else(|| "n/a".to_string());
    let interval = score.interval.map(|i| format!("[{}, {}]", one_decimal(i.low), one_decimal(i.high)));
    let pass5 = score.pass_at_5.map(|p| format!("pass@5 {}", one_decimal(p)));
    // The change against the vanilla run, signed as a change (the library's drop is its negative).
    let signed = |v: f64| if v > 0.0 { format!("+{}", one_decimal(v)) } else { one_decimal(v).replacen('-', "−", 1) };
    let drop = cell.drop.as_ref().map(|d| {
        let relative = d.relative.map(|r| format!(" ({}%)", signed(-r))).unwrap_or_default();
        (
            format!("vs vanilla {} pt{relative}", signed(-d.absolute)),
            format!("McNemar p {} (b {}, c {})", p_value_words(d.mcnemar.p_value), d.mcnemar.b, d.mcnemar.c),
            // Worse, better, or (shown as 0.0) neither.
            (one_decimal(d.absolute) != "0.0").then_some(d.absolute > 0.0),
        )
    });
    view! {
        <div class="compare-cell">
            <span class="compare-main">{main}</span>
            {interval.map(|i| view! { <span class="muted small">" "{i}</span> })}
            {pass5.map(|p| view! { <div class="small">{p}</div> })}
            {drop.map(|(d, p, worse)| view! { <div class="small" class:drop-worse=worse == Some(true) class:drop-better=worse == Some(false)>{d}</div><div class="muted small">{p}</div> })}
        </div>
    }
}

fn result_column(title: String, result: SampleResult) -> impl IntoView {
    view! {
        <div class="flip-side">
            <h4>{title}</h4>
            {result.prompt.clone().map(|p| view! { <details><summary>"Prompt"</summary><pre class="code">{p}</pre></details> })}
            {result.answers.iter().enumerate().map(|(i, a)| view! {
                <div class="flip-answer">
                    <p class="small"><strong>{format!("answer {}: ", i + 1)}</strong><code>{a.extraction.answer().unwrap_or("(none)").to_string()}</code>" · "{a.verdict.words()}</p>
                    {a.response.clone().map(|r| view! { <pre class="code small">{r}</pre> })}
                </div>
            }).collect_view()}
        </div>
    }
}

/// The open dataset's fields a category can come from, and the one used when the user chose none
/// (the first of `category`, `difficulty`, `perturbation`, `method` that the rows have).
fn category_choices(report: &execbench_core::LoadReport) -> (Vec<String>, Option<String>) {
    let shape = execbench_formats::dataset_shape(report, None);
    let fields = shape
        .meta_fields
        .iter()
        .filter(|f| f.types.keys().any(|t| matches!(*t, "string" | "number" | "boolean")))
        .map(|f| f.name.clone())
        .collect();
    (fields, shape.category_field)
}

/// Sample id → category under `field`, for the samples that have one.
fn categories_of(report: &execbench_core::LoadReport, field: &str) -> std::collections::BTreeMap<String, String> {
    report
        .samples
        .iter()
        .filter_map(|s| execbench_formats::categories::category_value(s, field).map(|c| (s.id.clone(), c)))
        .collect()
}

/// What changed between the two prompts (the program as each model read it), line by line.
fn prompt_diff(first: &SampleResult, second: &SampleResult) -> Option<impl IntoView + use<>> {
    let (a, b) = (first.prompt.as_deref()?, second.prompt.as_deref()?);
    let diff = line_diff(a, b);
    let (removed, added) = execbench_compare::diff::changed_lines(&diff);
    let summary = if removed + added == 0 {
        "The two prompts are the same.".to_string()
    } else {
        let lines = if removed == 1 { "line" } else { "lines" };
        format!("What the perturbation changed in the prompt: {removed} {lines} out, {added} in")
    };
    Some(view! {
        <details class="prompt-diff" open={removed + added > 0} data-testid="compare-prompt-diff" data-removed=removed.to_string() data-added=added.to_string()>
            <summary>{summary}</summary>
            <pre class="code small diff">
                {diff.into_iter().map(|line| {
                    let (class, mark) = match line.change { Change::Same => ("diff-same", "  "), Change::Removed => ("diff-removed", "- "), Change::Added => ("diff-added", "+ ") };
                    view! { <span class=class>{format!("{mark}{}\n", line.text)}</span> }
                }).collect_view()}
            </pre>
        </details>
    })
}

#[component]
fn Chart(svg: String, name: String) -> impl IntoView {
    let (svg_file, png_file) = (format!("{name}.svg"), format!("{name}.png"));
    let (svg_a, svg_b) = (svg.clone(), svg.clone());
    view! {
        <figure class="compare-chart" data-testid=format!("compare-chart-{name}")>
            <div inner_html=svg></div>
            <div class="toolbar">
                <button type="button" on:click=move |_| { let _ = download_text(&svg_file, "image/svg+xml", &svg_a); }>"SVG"</button>
                <button type="button" on:click=move |_| download_svg_as_png(png_file.clone(), svg_b.clone())>"PNG"</button>
            </div>
        </figure>
    }
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let app = expect_context::<AppState>();
    let runs = app.runs;
    let page = compare_state();

    let run_compare = move |_| {
        let chosen = page.chosen.get_untracked();
        if chosen.is_empty() {
            page.error.set(Some("choose at least one run".to_string()));
            return;
        }
        page.busy.set(true);
        page.error.set(None);
        leptos::task::spawn_local(async move {
            let store = runs.store().await;
            let entries = runs.entries.get_untracked();
            // Taken out while the store is read (a second Compare waits for `busy`), then put back.
            let mut read = page.read.try_update_value(std::mem::take).unwrap_or_default();
            let inputs = read.inputs(&*store, &entries, &chosen).await;
            page.read.set_value(read);
            let inputs = match inputs {
                Ok(inputs) => inputs,
                Err(e) => {
                    page.error.set(Some(e));
                    page.busy.set(false);
                    return;
                }
            };
            let mut options = CompareOptions::default();
            if let DatasetState::Loaded(report) = app.dataset.get_untracked() {
                let field =
                    page.category_field.get_untracked().or_else(|| category_choices(&report).1).unwrap_or_default();
                if !field.is_empty() {
                    options.categories = categories_of(&report, &field);
                }
            }
            let comparison = compare(&inputs, &options);
            if let Some(first) = comparison.tables.first()
                && comparison.table(page.mode.get_untracked()).is_none()
            {
                page.mode.set(first.mode);
            }
            page.pair.set(None);
            page.flip.set(None);
            let made = page.compared.with_untracked(|c| c.as_ref().map_or(0, |c| c.made)) + 1;
            page.compared.set(Some(Arc::new(Compared { runs: inputs, comparison, date: today_utc(), made })));
            page.busy.set(false);
        });
    };

    let table = move || {
        let compared = page.compared.get()?;
        let mode = page.mode.get();
        let c = &compared.comparison;
        let table = c.table(mode)?;
        let heads: Vec<String> = (0..c.columns.len()).map(|i| c.column_label(i)).collect();
        Some(view! {
            <div class="table-scroll">
                <table class="runs-table compare-table" data-testid="compare-table" data-made=compared.made.to_string()>
                    <thead><tr><th>"model"</th>{heads.into_iter().map(|h| view! { <th>{h}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {c.models.iter().zip(&table.cells).map(|(model, row)| view! {
                            <tr>
                                <th scope="row" class="compare-row-name" title=model.clone()>{model.clone()}</th>
                                {row.iter().map(|cell| view! { <td data-testid="compare-cell">{cell.as_ref().map(cell_view)}</td> }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            {(!c.notes.is_empty()).then(|| view! { <ul class="muted small" data-testid="compare-notes">{c.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul> })}
        })
    };

    let charts = move || {
        let compared = page.compared.get()?;
        let mode = page.mode.get();
        let c = &compared.comparison;
        let label = mode.label();
        let all = [
            (pass_at_1_chart(c, mode), format!("pass-at-1-{label}")),
            (drop_heatmap(c, mode), format!("relative-drop-{label}")),
            (category_chart(c, mode), format!("categories-{label}")),
            (question_kinds_chart(c, mode), format!("question-kinds-{label}")),
        ];
        Some(
            all.into_iter()
                .filter_map(|(svg, name)| svg.map(|svg| view! { <Chart svg=svg name=name /> }))
                .collect_view(),
        )
    };

    let pair_label = move |c: &Comparison, index: usize| -> String {
        let p = &c.pairs[index];
        let flips = p
            .drop
            .as_ref()
            .map(|d| format!(": {} right→wrong, {} wrong→right", d.mcnemar.b, d.mcnemar.c))
            .unwrap_or_default();
        format!("{} vs {}{flips}", c.run_label(p.perturbed), c.run_label(p.vanilla))
    };

    // The pair chosen, else the mode's first.
    let current_pair = move || -> Option<usize> {
        let mode = page.mode.get();
        page.pair.get().or_else(|| {
            page.compared.with(|c| c.as_ref().and_then(|c| c.comparison.pairs.iter().position(|p| p.mode == mode)))
        })
    };
    let flips = Memo::new(move |_| -> Arc<Vec<Flip>> {
        let (Some(compared), Some(index)) = (page.compared.get(), current_pair()) else { return Arc::new(Vec::new()) };
        Arc::new(compared.comparison.pairs.get(index).map(|p| p.flips(&compared.runs)).unwrap_or_default())
    });

    let flipped = move || {
        let compared = page.compared.get()?;
        let mode = page.mode.get();
        let c = &compared.comparison;
        let choices: Vec<(usize, String)> =
            c.pairs.iter().enumerate().filter(|(_, p)| p.mode == mode).map(|(i, _)| (i, pair_label(c, i))).collect();
        if choices.is_empty() {
            return Some(view! { <p class="muted" data-testid="compare-no-pairs">"No perturbed run has a vanilla run of the same model and task among those chosen, and no two runs share a column."</p> }.into_any());
        }
        Some(view! {
            <label class="field compare-pair-field">
                <span class="label">"Pair"</span>
                <select data-testid="compare-pair" on:change=move |ev| { page.pair.set(event_target_value(&ev).parse().ok()); page.flip.set(None); }>
                    {choices.into_iter().map(|(i, label)| view! { <option value=i.to_string() title=label.clone() selected=move || current_pair() == Some(i)>{label.clone()}</option> }).collect_view()}
                </select>
            </label>
            {move || {
                let compared = page.compared.get()?;
                let words = current_pair().and_then(|i| compared.comparison.pairs.get(i)?.coverage_words(&compared.comparison))?;
                Some(view! { <p class="warn-box small" data-testid="compare-coverage">{words}</p> })
            }}
            <ul class="flip-list" data-testid="compare-flips">
                {move || flips.get().iter().map(|f| {
                    let id = f.original_id.clone();
                    let open = id.clone();
                    let arrow = match f.direction { FlipDirection::RightToWrong => "right → wrong", FlipDirection::WrongToRight => "wrong → right" };
                    view! {
                        <li><button type="button" data-testid="compare-flip" class:active=move || page.flip.get().as_deref() == Some(id.as_str())
                            on:click=move |_| page.flip.set(Some(open.clone()))>{format!("{} ({arrow})", f.original_id)}</button></li>
                    }
                }).collect_view()}
            </ul>
            {move || {
                let id = page.flip.get()?;
                let flip = flips.get().iter().find(|f| f.original_id == id).cloned()?;
                let provenance = current_pair().and_then(|i| page.compared.get().and_then(|c| c.comparison.pairs.get(i).and_then(|p| c.runs.get(p.perturbed)).and_then(|r| r.manifest.provenance.clone())));
                let href = perturb_href(provenance.as_ref(), &flip.original_id);
                let diff = prompt_diff(&flip.first, &flip.second);
                let (first_title, second_title) = page.compared.get().and_then(|c| {
                    let pair = c.comparison.pairs.get(current_pair()?)?;
                    pair.repeat.then(|| (c.comparison.run_label(pair.vanilla), c.comparison.run_label(pair.perturbed)))
                }).unwrap_or_else(|| ("vanilla".to_string(), "perturbed".to_string()));
                Some(view! {
                    {href.map(|h| view! { <p class="small"><a href=h data-testid="compare-flip-perturb">"See the program's perturbation in the Perturb view"</a>" (it opens the sample of the open dataset)"</p> })}
                    {diff}
                    <div class="flip-view" data-testid="compare-flip-view">
                        {result_column(format!("{first_title}: {}", flip.original_id), flip.first)}
                        {result_column(second_title, flip.second)}
                    </div>
                })
            }}
        }.into_any())
    };

    let download = move |what: &'static str| {
        let Some(compared) = page.compared.get_untracked() else { return };
        let c = &compared.comparison;
        let _ = match what {
            "md" => download_text("comparison.md", "text/markdown", &markdown_section(c, &compared.date)),
            "csv" => download_text("comparison.csv", "text/csv", &csv_table(c)),
            _ => download_text("comparison-pairs.jsonl", "application/jsonl", &pairs_jsonl(c)),
        };
    };

    view! {
        <section class="page compare">
            <h1>"Compare runs"</h1>
            <p class="muted">"Choose stored runs: any models, datasets, perturbations. Each perturbed run is paired with the vanilla run of the same model and task by original sample id; the drop and McNemar's test are over the samples both scored."</p>
            <Show when=move || !runs.entries.with(Vec::is_empty) fallback=|| view! { <p class="muted empty" data-testid="compare-empty">"No runs stored yet: evaluate a model, or import run files on the Runs page."</p> }>
                <ul class="compare-runs" data-testid="compare-runs">
                    {move || runs.entries.get().into_iter().map(|entry| {
                        let id = entry.manifest.run_id.clone();
                        let (checked_id, toggle_id) = (id.clone(), id.clone());
                        view! {
                            <li>
                                <label class="check">
                                    <input type="checkbox" data-testid="compare-run" data-run=id.clone()
                                        prop:checked=move || page.chosen.with(|c| c.contains(&checked_id))
                                        on:change=move |ev| { let on = event_target_checked(&ev); page.chosen.update(|c| { if on { c.insert(toggle_id.clone()); } else { c.remove(&toggle_id); } }); } />
                                    <span class="compare-run-name">{run_name(&entry.manifest)}</span>
                                    <span class="muted small">{format!(" · {} · {}{} ({id})", entry.manifest.dataset, entry.samples_label(), if entry.imported { " · imported" } else { "" })}</span>
                                </label>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </Show>
            {move || {
                let DatasetState::Loaded(report) = app.dataset.get() else { return None };
                let (fields, usual) = category_choices(&report);
                let chosen = move || page.category_field.get().or_else(|| usual.clone()).unwrap_or_default();
                Some(view! {
                    <label class="field inline">
                        <span class="label">"Categories"</span>
                        <select data-testid="compare-category" on:change=move |ev| page.category_field.set(Some(event_target_value(&ev)))>
                            {let chosen = chosen.clone(); view! { <option value="" selected=move || chosen().is_empty()>"none"</option> }}
                            {fields.into_iter().map(|f| { let (g, v) = (f.clone(), f.clone()); let chosen = chosen.clone(); view! { <option value=v selected=move || chosen() == g>{f}</option> } }).collect_view()}
                        </select>
                        <span class="muted small">{move || format!(" a field of the open dataset ({}), by original sample id", app.dataset_name.get())}</span>
                    </label>
                })
            }}
            <div class="toolbar">
                <button class="primary" data-testid="compare-start" on:click=run_compare disabled=move || page.busy.get() || page.chosen.with(BTreeSet::is_empty)>"Compare"</button>
                {move || page.compared.get().map(|c| {
                    let modes: Vec<Mode> = c.comparison.tables.iter().map(|t| t.mode).collect();
                    view! {
                        <select data-testid="compare-mode" on:change=move |ev| { page.mode.set(if event_target_value(&ev) == "compatible" { Mode::Compatible } else { Mode::Strict }); page.pair.set(None); page.flip.set(None); }>
                            {modes.into_iter().map(|m| view! { <option value=m.label() selected=move || page.mode.get() == m>{m.label()}</option> }).collect_view()}
                        </select>
                    }
                })}
            </div>
            {move || page.error.get().map(|e| view! { <p class="error" role="alert" data-testid="compare-error">{e}</p> })}
            <Show when=move || page.compared.with(Option::is_some)>
                <h2>"Table"</h2>
                {table}
                <div class="toolbar">
                    <button data-testid="compare-download-md" on:click=move |_| download("md")>"Report (Markdown)"</button>
                    <button data-testid="compare-download-csv" on:click=move |_| download("csv")>"Table (CSV)"</button>
                    <button data-testid="compare-download-pairs" on:click=move |_| download("pairs")>"Pairs (JSONL)"</button>
                </div>
                <h2>"Charts"</h2>
                <div class="compare-charts">{charts}</div>
                <h2>"Flipped samples"</h2>
                {flipped}
            </Show>
        </section>
    }
}
