//! The SVG charts: well-formed, titled, scalable, theme-safe (text and axes in `currentColor`),
//! bars as tall as their figures, cells coloured by their drop's bin; and one chart's exact bytes
//! (`tests/snapshots/`, rewritten with `EXECBENCH_BLESS=1` after a deliberate change).

use crate::common;

use std::collections::BTreeMap;

use common::run_of;
use execbench_compare::charts::{
    DROP_BINS, SERIES_PALETTE, category_chart, drop_bin, drop_heatmap, pass_at_1_chart, question_kinds_chart,
};
use execbench_compare::{CompareOptions, Comparison, RunInput, compare};
use execbench_core::question::QuestionKind;
use execbench_eval::Task;
use execbench_eval::score::Mode;

fn runs() -> Vec<RunInput> {
    vec![
        run_of("a-van", "alpha", "d.jsonl", None, 20, |i| i < 16),
        run_of("a-ren", "alpha", "d.jsonl", Some("REN"), 20, |i| i < 14),
        run_of("a-mcc", "alpha", "d.jsonl", Some("MCC"), 20, |i| i < 6),
        run_of("b-van", "beta <&>", "d.jsonl", None, 20, |i| i < 10),
        run_of("b-mcc", "beta <&>", "d.jsonl", Some("MCC"), 20, |i| i < 11),
    ]
}

fn comparison() -> Comparison {
    let categories: BTreeMap<String, String> =
        (0..20).map(|i| (format!("sample_{i}"), if i < 10 { "easy" } else { "hard" }.to_string())).collect();
    compare(&runs(), &CompareOptions { bootstrap: 200, categories, ..Default::default() })
}

/// Start tags, end tags and self-closing tags balance; attribute values are quoted; `&` only
/// starts an entity.
fn assert_well_formed(svg: &str) {
    let mut open: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..].find(';').map_or(text.len(), |e| i + e + 1)];
            assert!(["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity), "bare & in {text:?}");
        }
        let end = rest[start..].find('>').expect("tag closed") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "{tag}");
        assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes in <{tag}>");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "</{name}> closes the wrong element");
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap().to_string());
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
}

/// The value of `attribute` in the first tag of `element` that contains `marker`.
fn attribute(svg: &str, marker: &str, name: &str) -> f64 {
    let at = svg.find(marker).unwrap_or_else(|| panic!("{marker} not in the chart"));
    let tag_start = svg[..at].rfind('<').unwrap();
    let tag = &svg[tag_start..svg[tag_start..].find('>').unwrap() + tag_start];
    let value = tag.split(&format!(" {name}=\"")).nth(1).unwrap_or_else(|| panic!("no {name} in {tag}"));
    value[..value.find('"').unwrap()].parse().unwrap()
}

fn assert_theme_safe(svg: &str) {
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "), "{svg}");
    assert!(svg.contains(" role=\"img\""));
    // The accessible name comes first.
    let second_line = svg.lines().nth(1).unwrap();
    assert!(second_line.starts_with("<title>") && second_line.ends_with("</title>"), "{second_line}");
    let inks: Vec<String> = DROP_BINS.iter().map(|b| format!("fill=\"{}\">", b.ink)).collect();
    for text in svg.split("<text").skip(1) {
        let tag = &text[..text.find('>').unwrap() + 1];
        assert!(
            tag.contains("fill=\"currentColor\"") || inks.iter().any(|i| tag.ends_with(i.as_str())),
            "text not in currentColor nor on a fill: {tag}"
        );
    }
    for line in svg.lines().filter(|l| l.starts_with("<line") || l.starts_with("<path")) {
        assert!(line.contains("currentColor") || !line.contains("stroke=\"#"), "{line}");
    }
    assert_well_formed(svg);
}

#[test]
fn pass_at_1_bars_are_as_tall_as_the_figures_with_their_intervals() {
    let comparison = comparison();
    let svg = pass_at_1_chart(&comparison, Mode::Strict).unwrap();
    assert_theme_safe(&svg);
    assert!(svg.contains("<title>pass@1 per model and perturbation (strict)</title>"));
    let table = comparison.table(Mode::Strict).unwrap();
    let mut bars = 0;
    for (m, model) in comparison.models.iter().enumerate() {
        for (c, colour) in SERIES_PALETTE.iter().enumerate().take(comparison.columns.len()) {
            let Some(cell) = &table.cells[m][c] else { continue };
            bars += 1;
            let value = cell.score.pass_at_1.unwrap();
            let marker = format!(
                "<title>{} · {}: ",
                model.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;"),
                comparison.column_label(c)
            );
            let height = attribute(&svg, &marker, "height");
            assert!((height - 2.0 * value).abs() <= 0.05 + 1e-9, "{marker}: height {height} for {value}%");
            let fill_at = svg.find(&marker).unwrap();
            let tag = &svg[svg[..fill_at].rfind("<rect").unwrap()..fill_at];
            assert!(tag.contains(&format!("fill=\"{colour}\"")), "column {c} has its palette colour: {tag}");
        }
    }
    assert_eq!(bars, 5);
    assert_eq!(svg.matches("class=\"error-bar\"").count(), 5, "every bar has its interval");
    // beta has no REN run: a dash where the bar would be.
    assert_eq!(svg.matches(">–</text>").count(), 1);
    assert!(pass_at_1_chart(&comparison, Mode::Compatible).is_none(), "no run was scored in compatible mode");
}

#[test]
fn the_heat_map_colours_each_cell_by_its_drop() {
    let comparison = comparison();
    let svg = drop_heatmap(&comparison, Mode::Strict).unwrap();
    assert_theme_safe(&svg);
    let table = comparison.table(Mode::Strict).unwrap();
    let mut coloured = 0;
    for (m, model) in comparison.models.iter().enumerate() {
        for c in (0..comparison.columns.len()).filter(|&c| !comparison.columns[c].perturbation.is_vanilla()) {
            let escaped = model.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
            let marker = format!("<title>{escaped} · {}: ", comparison.column_label(c));
            let at = svg.find(&marker).unwrap_or_else(|| panic!("{marker}"));
            let tag = &svg[svg[..at].rfind("<rect").unwrap()..at];
            match table.cells[m][c].as_ref().and_then(|cell| cell.drop.as_ref()).and_then(|d| d.relative) {
                Some(relative) => {
                    coloured += 1;
                    assert!(tag.contains(&format!("fill=\"{}\"", drop_bin(relative).fill)), "{tag} for {relative}");
                }
                None => assert!(tag.contains("fill=\"none\""), "{tag}"),
            }
        }
    }
    assert_eq!(coloured, 3, "alpha REN, alpha MCC, beta MCC");
    // alpha MCC lost 10 of 16: 62.5%, the darkest orange; beta MCC gained 10%: the middle purple.
    assert!(
        svg.contains(
            "fill=\"#b35806\" stroke=\"currentColor\" stroke-width=\"0.5\"><title>alpha · MCC: relative drop 62.5%"
        ),
        "{svg}"
    );
    assert!(svg.contains("<title>beta &lt;&amp;&gt; · REN: no drop (no run)</title>"), "{svg}");
    assert!(svg.contains(">-10.0%</text>"), "{svg}");
    // Bins are [lower, upper) on the drop, in ColorBrewer PuOr's order.
    let bins = [
        (-40.0, "#542788"),
        (-25.0, "#998ec3"),
        (-10.5, "#998ec3"),
        (-10.0, "#d8daeb"),
        (-2.0, "#f7f7f7"),
        (0.0, "#f7f7f7"),
        (2.0, "#fee0b6"),
        (10.0, "#f1a340"),
        (25.0, "#b35806"),
        (400.0, "#b35806"),
    ];
    for (relative, fill) in bins {
        assert_eq!(drop_bin(relative).fill, fill, "{relative}");
    }
    let vanilla_only = compare(&runs()[..1], &CompareOptions::default());
    assert!(drop_heatmap(&vanilla_only, Mode::Strict).is_none(), "nothing perturbed, no heat map");
}

#[test]
fn category_bars_have_a_group_per_category_and_a_bar_per_run() {
    let comparison = comparison();
    let svg = category_chart(&comparison, Mode::Strict).unwrap();
    assert_theme_safe(&svg);
    assert_eq!(svg.matches("class=\"group\"").count(), 2, "easy, hard");
    assert_eq!(svg.matches("<rect").count() - 5, 2 * 5, "two categories × five runs, plus five legend swatches");
    // alpha vanilla: samples 0-9 all right (easy), 10-15 of 10-19 right (hard).
    let height = attribute(&svg, "<title>alpha · vanilla · hard (10 samples): 60.0%", "height");
    assert_eq!(height, 120.0);
    assert!(category_chart(&compare(&runs(), &CompareOptions::default()), Mode::Strict).is_none());
}

#[test]
fn the_chart_of_a_fixed_input_is_byte_for_byte_the_snapshot() {
    let runs =
        vec![run_of("v", "m", "d.jsonl", None, 4, |i| i < 3), run_of("r", "m", "d.jsonl", Some("REN"), 4, |i| i < 2)];
    let comparison = compare(&runs, &CompareOptions { bootstrap: 50, ..Default::default() });
    let charts = [
        ("pass_at_1.svg", pass_at_1_chart(&comparison, Mode::Strict).unwrap()),
        ("relative_drop.svg", drop_heatmap(&comparison, Mode::Strict).unwrap()),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    for (name, svg) in charts {
        let path = dir.join(name);
        if bless_requested() {
            std::fs::write(&path, &svg).unwrap();
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (EXECBENCH_BLESS=1 writes it)", path.display()));
        assert_eq!(svg, expected, "{name} changed; if on purpose, rerun with EXECBENCH_BLESS=1 and review the diff");
    }
}

/// `EXECBENCH_BLESS` rewrites the snapshots instead of checking them, which turns this test into
/// one that cannot fail: refused where the checks must hold (CI sets `CI=true`).
fn bless_requested() -> bool {
    let bless = std::env::var_os("EXECBENCH_BLESS").is_some();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!(bless && ci), "EXECBENCH_BLESS is set under CI=true: snapshots are checked there, never rewritten");
    bless
}

/// A question run of `model`: 10 questions of each kind, right where `right(kind, i)`.
fn question_run(run_id: &str, model: &str, right: impl Fn(QuestionKind, usize) -> bool) -> RunInput {
    let mut records = Vec::new();
    for kind in QuestionKind::ALL {
        for i in 0..10 {
            let id = format!("sample_{i}/{}/0", kind.label());
            let mut result = common::result(&id, Mode::Strict, common::verdicts(&[right(kind, i)]));
            (result.task, result.question, result.program) = (Task::Question, Some(kind), Some(format!("sample_{i}")));
            records.push(common::record(&id, records.len(), vec![result]));
        }
    }
    let manifest = common::manifest(run_id, model, "q.jsonl", None, Task::Question, &[Mode::Strict]);
    RunInput::new(format!("{run_id}.jsonl"), manifest, records)
}

/// The trace gap: per model, one bar per kind (output first) as tall as that kind's pass@1; no
/// chart without a question run.
#[test]
fn question_runs_get_a_bar_per_kind_of_question() {
    // alpha gets every output right and few state or path questions; beta is even.
    let alpha = question_run("qa", "alpha", |kind, i| match kind {
        QuestionKind::Output => true,
        QuestionKind::Coverage => i < 8,
        QuestionKind::State | QuestionKind::Path => i < 2,
    });
    let beta = question_run("qb", "beta", |_, i| i < 5);
    let questions = compare(&[alpha, beta], &CompareOptions { bootstrap: 100, ..Default::default() });
    let svg = question_kinds_chart(&questions, Mode::Strict).unwrap();
    assert_well_formed(&svg);
    assert_theme_safe(&svg);
    assert!(svg.contains("<title>Output against the run: pass@1 per kind of question (strict)</title>"), "{svg}");
    let cases = [
        ("alpha · output", 100.0),
        ("alpha · coverage", 80.0),
        ("alpha · state", 20.0),
        ("alpha · path", 20.0),
        ("beta · output", 50.0),
        ("beta · state", 50.0),
    ];
    for (bar, value) in cases {
        let height = attribute(&svg, &format!("<title>{bar} questions (10 asked): "), "height");
        assert!((height - 2.0 * value).abs() <= 0.05 + 1e-9, "{bar}: height {height} for {value}%");
    }
    // The whole chain, worked by hand: alpha's programs 0 and 1 have every kind right (depth 4),
    // 2 to 7 coverage right and state wrong (1), 8 and 9 coverage wrong (0): mean 14 / 10 = 1.4,
    // whole 2 of 10. beta's programs 0 to 4 have all right (4), the rest none: 2.0, 5 of 10.
    for (bar, whole) in [
        ("alpha · whole chain (10 programs, 1.4 kinds right before the first wrong one on average, of 4): ", 20.0),
        ("beta · whole chain (10 programs, 2.0 kinds right before the first wrong one on average, of 4): ", 50.0),
    ] {
        let height = attribute(&svg, &format!("<title>{bar}{whole:.1}%"), "height");
        assert!((height - 2.0 * whole).abs() <= 0.05 + 1e-9, "{bar}: height {height}");
    }
    // Output is the first series and the chain the last.
    let legend: Vec<usize> = ["output", "coverage", "state", "path", "whole chain"]
        .iter()
        .map(|k| svg.find(&format!(">{k}</text>")).unwrap())
        .collect();
    assert!(legend.windows(2).all(|w| w[0] < w[1]), "{legend:?}");
    assert!(question_kinds_chart(&questions, Mode::Compatible).is_none());
    assert!(question_kinds_chart(&comparison(), Mode::Strict).is_none(), "output runs have no kinds");
}
