//! The table: its order, each cell's figures recomputed here from the answers, drops over the
//! paired samples only, error records left out, duplicates noted, flips and categories.

use crate::common;

use std::collections::BTreeMap;

use common::{error_record, manifest, record, result, run, run_of, verdicts, wrong};
use execbench_compare::run::first_answer_right;
use execbench_compare::{CompareOptions, FlipDirection, RunInput, compare, flipped_samples};
use execbench_eval::Task;
use execbench_eval::score::{Mode, Verdict};

#[test]
fn rows_are_models_by_name_and_columns_dataset_task_then_perturbation_order() {
    let names = [
        "crux_MHC_output",
        "crux_VAN_output",
        "crux_REN_output",
        "crux_ALL_output",
        "crux_MCC_output",
        "crux_PSC_ALL_output",
        "crux_GBC_output",
        "crux_MPS_output",
        "crux_RTF_output",
        "crux_ZZZ_output",
        "crux_VAN_input",
        "crux_MCC_input",
        "lcb_VAN_output",
        "aaa.jsonl",
    ];
    let mut runs = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut r = run_of(&format!("r{i}"), "alpha", &format!("{name}.jsonl"), None, 2, |_| true);
        if name.ends_with("_input") {
            r.manifest.task = Task::Input;
        }
        runs.push(r);
    }
    runs.insert(0, run_of("z", "zeta", "crux_VAN_output.jsonl", None, 2, |_| true));
    let comparison = compare(&runs, &CompareOptions { bootstrap: 10, ..Default::default() });
    assert_eq!(comparison.models, vec!["alpha", "zeta"]);
    let filled = |model: usize| comparison.tables[0].cells[model].iter().filter(|c| c.is_some()).count();
    assert_eq!((filled(0), filled(1)), (names.len(), 1));
    let labels: Vec<String> = (0..comparison.columns.len()).map(|c| comparison.column_label(c)).collect();
    let expected = [
        "aaa.jsonl · output · vanilla",
        "cruxeval · output · vanilla",
        "cruxeval · output · REN",
        "cruxeval · output · RTF",
        "cruxeval · output · GBC",
        "cruxeval · output · PSC_ALL",
        "cruxeval · output · MCC",
        "cruxeval · output · MPS",
        "cruxeval · output · MHC",
        "cruxeval · output · ALL",
        "cruxeval · output · ZZZ",
        "cruxeval · input · vanilla",
        "cruxeval · input · MCC",
        "livecodebench · output · vanilla",
    ];
    assert_eq!(labels, expected.map(String::from).to_vec());
    // One dataset and task: the perturbation alone heads a column.
    let one = compare(&runs[1..4], &CompareOptions { bootstrap: 10, ..Default::default() });
    assert_eq!((0..one.columns.len()).map(|c| one.column_label(c)).collect::<Vec<_>>(), vec!["vanilla", "REN", "MHC"]);
}

/// (vanilla answers, perturbed answers) per sample, strict mode, n = 5 so pass@5 exists.
#[test]
fn cells_and_drops_match_figures_recomputed_from_the_answers() {
    let vanilla: Vec<(&str, [bool; 5])> = vec![
        ("s0", [true, true, false, false, false]),
        ("s1", [true, false, false, false, false]),
        ("s2", [false, false, false, false, true]),
        ("s3", [false; 5]),
        ("s4", [true; 5]),
        ("s5", [true, true, true, false, false]), // no perturbed counterpart: not paired
    ];
    let perturbed: Vec<(&str, [bool; 5])> = vec![
        ("s0", [false, true, false, false, false]),
        ("s1", [false; 5]),
        ("s2", [true, false, false, false, false]),
        ("s3", [false; 5]),
        ("s4", [true, true, true, true, false]),
    ];
    let as_samples =
        |rows: &[(&'static str, [bool; 5])]| rows.iter().map(|(id, a)| (*id, a.to_vec())).collect::<Vec<_>>();
    let (v, p) = (as_samples(&vanilla), as_samples(&perturbed));
    let v_ref: Vec<(&str, &[bool])> = v.iter().map(|(id, a)| (*id, &a[..])).collect();
    let p_ref: Vec<(&str, &[bool])> = p.iter().map(|(id, a)| (*id, &a[..])).collect();
    let mut perturbed_run = run("p", "m", "d-MCC-perturbed.jsonl", Some("MCC"), &p_ref);
    // An error record counts in `samples` and `errors`, in no figure.
    perturbed_run.records.insert("s9".into(), error_record("s9", 9));
    let runs = vec![run("v", "m", "d.jsonl", None, &v_ref), perturbed_run];
    let comparison = compare(&runs, &CompareOptions::default());
    let table = comparison.table(Mode::Strict).unwrap();

    let rate = |answers: &[bool]| answers.iter().filter(|&&a| a).count() as f64 / answers.len() as f64;
    let any = |answers: &[bool]| if answers.iter().any(|&a| a) { 1.0 } else { 0.0 };
    let mean = |xs: Vec<f64>| xs.iter().sum::<f64>() / xs.len() as f64 * 100.0;

    let vanilla_cell = table.cells[0][0].as_ref().unwrap();
    assert!(
        (vanilla_cell.score.pass_at_1.unwrap() - mean(vanilla.iter().map(|(_, a)| rate(a)).collect())).abs() < 1e-9
    );
    // n = 5: pass@5 is 1 when any answer is right.
    assert!((vanilla_cell.score.pass_at_5.unwrap() - mean(vanilla.iter().map(|(_, a)| any(a)).collect())).abs() < 1e-9);
    assert!(vanilla_cell.drop.is_none());
    let interval = vanilla_cell.score.interval.unwrap();
    assert!(interval.contains(vanilla_cell.score.pass_at_1.unwrap()));

    let cell = table.cells[0][1].as_ref().unwrap();
    assert_eq!((cell.score.samples, cell.score.errors, cell.score.scored), (6, 1, 5));
    let drop = cell.drop.as_ref().unwrap();
    let paired_vanilla = mean(vanilla[..5].iter().map(|(_, a)| rate(a)).collect());
    let paired_perturbed = mean(perturbed.iter().map(|(_, a)| rate(a)).collect());
    assert_eq!(drop.paired, 5);
    assert!((drop.vanilla_pass_at_1 - paired_vanilla).abs() < 1e-9);
    assert!((drop.absolute - (paired_vanilla - paired_perturbed)).abs() < 1e-9);
    assert!((drop.relative.unwrap() - (paired_vanilla - paired_perturbed) / paired_vanilla * 100.0).abs() < 1e-9);
    // First answers: s0 and s1 right → wrong (b = 2), s2 wrong → right (c = 1).
    assert_eq!((drop.mcnemar.b, drop.mcnemar.c), (2, 1));
    assert_eq!(drop.mcnemar.p_value, 1.0, "2 · (1 + 3)/8 capped at 1");

    let flips = flipped_samples(&runs[0], &runs[1], Mode::Strict);
    assert_eq!(comparison.pairs[0].flips(&runs), flips, "a pair's flips are its two runs'");
    assert_eq!(flips.len(), drop.mcnemar.b + drop.mcnemar.c);
    let got: Vec<(&str, FlipDirection)> = flips.iter().map(|f| (f.original_id.as_str(), f.direction)).collect();
    assert_eq!(
        got,
        vec![
            ("s0", FlipDirection::RightToWrong),
            ("s1", FlipDirection::RightToWrong),
            ("s2", FlipDirection::WrongToRight)
        ]
    );
    // Both stored results ride along for the side-by-side view.
    assert_eq!(flips[0].first.answers[0].response.as_deref(), Some("response 0 to s0: correct"));
    assert_eq!(flips[0].second.answers[0].response.as_deref(), Some("response 0 to s0: wrong_value"));
    assert_eq!(flips[0].second.prompt.as_deref(), Some("prompt of s0"));
}

#[test]
fn the_first_counted_answer_decides_a_sample_in_either_mode() {
    let dropped = || Verdict::Dropped { why: "contains the call".into() };
    // (mode, verdicts, right)
    let cases: Vec<(Mode, Vec<Verdict>, bool)> = vec![
        (Mode::Strict, verdicts(&[true, false]), true),
        (Mode::Strict, verdicts(&[false, true]), false),
        (Mode::Compatible, vec![dropped(), Verdict::Correct], true),
        (Mode::Compatible, vec![dropped(), wrong(), Verdict::Correct], false),
        (Mode::Compatible, vec![dropped(), dropped()], false),
        (Mode::Strict, vec![], false),
    ];
    for (mode, verdicts, right) in cases {
        assert_eq!(first_answer_right(&result("s", mode, verdicts.clone())), right, "{mode:?} {verdicts:?}");
    }
}

#[test]
fn each_mode_has_its_table_and_runs_without_a_mode_leave_it_empty() {
    let both = [Mode::Strict, Mode::Compatible];
    let dropped = || Verdict::Dropped { why: "w".into() };
    let records = vec![
        record(
            "s0",
            0,
            vec![
                result("s0", Mode::Strict, vec![wrong(), Verdict::Correct]),
                result("s0", Mode::Compatible, vec![dropped(), Verdict::Correct]),
            ],
        ),
        record(
            "s1",
            1,
            vec![
                result("s1", Mode::Strict, vec![wrong(), wrong()]),
                result("s1", Mode::Compatible, vec![wrong(), wrong()]),
            ],
        ),
    ];
    let vanilla = RunInput::new("v.jsonl", manifest("v", "m", "d.jsonl", None, Task::Output, &both), records);
    let strict_only = run("p", "m", "d.jsonl", Some("REN"), &[("s0", &[false, false]), ("s1", &[true, true])]);
    let comparison = compare(&[vanilla, strict_only], &CompareOptions::default());
    assert_eq!(comparison.tables.iter().map(|t| t.mode).collect::<Vec<_>>(), vec![Mode::Strict, Mode::Compatible]);
    let strict = comparison.table(Mode::Strict).unwrap();
    let compatible = comparison.table(Mode::Compatible).unwrap();
    // Strict: s0 1 of 2, s1 0 of 2 → 25%; compatible: s0 1 of 1 (one dropped), s1 0 of 2 → 50%.
    assert_eq!(strict.cells[0][0].as_ref().unwrap().score.pass_at_1, Some(25.0));
    assert_eq!(compatible.cells[0][0].as_ref().unwrap().score.pass_at_1, Some(50.0));
    assert!(compatible.cells[0][1].is_none(), "the REN run was scored in strict mode only");
    assert_eq!(comparison.pairs.len(), 1);
    let drop = strict.cells[0][1].as_ref().unwrap().drop.as_ref().unwrap();
    // Strict over both samples: vanilla 25%, perturbed (0 + 1) / 2 = 50%; only s1's first answer flips.
    assert_eq!((drop.absolute, drop.relative, drop.mcnemar.b, drop.mcnemar.c), (-25.0, Some(-100.0), 0, 1));
}

#[test]
fn a_second_run_for_a_filled_cell_is_noted_not_shown() {
    // Two REN runs of one model pair with the one vanilla run: they claim one row and column.
    let runs = vec![
        run_of("v", "m", "d.jsonl", None, 3, |_| true),
        run_of("first", "m", "d.jsonl", Some("REN"), 3, |_| true),
        run_of("second", "m", "d.jsonl", Some("REN"), 3, |_| false),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    assert_eq!(comparison.runs.iter().map(|r| r.column).collect::<Vec<_>>(), vec![Some(0), Some(1), None]);
    assert_eq!(
        comparison.notes,
        vec![
            "second.jsonl (second) is not shown: first.jsonl already fills row m, column d · output · REN".to_string()
        ]
    );
    assert_eq!(comparison.runs[1].vanilla, Some(0), "pairs with the vanilla run shown");
}

/// Runs of one model over one dataset: each gets a row named by the run, every later run of a
/// column is paired with the column's first over the samples both scored, and a difference in
/// the samples covered is said.
#[test]
#[allow(clippy::type_complexity)] // a table of cases, one tuple a row
fn runs_of_one_model_get_rows_of_their_own_and_pairs_over_the_common_samples() {
    struct Case {
        what: &'static str,
        /// (run id, user's name, samples, right(i))
        runs: Vec<(&'static str, Option<&'static str>, usize, fn(usize) -> bool)>,
        rows: Vec<&'static str>,
        /// Per repeat pair: (reference, other, paired samples, b, c).
        pairs: Vec<(usize, usize, usize, usize, usize)>,
        notes: Vec<&'static str>,
    }
    let all: fn(usize) -> bool = |_| true;
    let even: fn(usize) -> bool = |i| i % 2 == 0;
    let cases = vec![
        Case {
            what: "one run: the model's row, no pair",
            runs: vec![("a", None, 60, all)],
            rows: vec!["m"],
            pairs: vec![],
            notes: vec![],
        },
        Case {
            what: "30 vs 60 samples",
            runs: vec![("a", Some("full"), 60, all), ("b", Some("half"), 30, even)],
            rows: vec!["full (m)", "half (m)"],
            // Over sample_0..29: right in a, wrong in b for the 15 odd ones.
            pairs: vec![(0, 1, 30, 15, 0)],
            notes: vec!["full (m) covers 60 samples, half (m) 30: compared on the 30 both have"],
        },
        Case {
            what: "three runs, two unnamed with the same default name",
            runs: vec![("a", None, 4, all), ("b", None, 4, even), ("c", Some("m renamed"), 2, all)],
            rows: vec![
                "m · output-direct · 1970-01-01 00:00:00 (a)",
                "m · output-direct · 1970-01-01 00:00:00 (b)",
                "m renamed",
            ],
            pairs: vec![(0, 1, 4, 2, 0), (0, 2, 2, 0, 0)],
            notes: vec![
                "m · output-direct · 1970-01-01 00:00:00 (a) covers 4 samples, m renamed 2: compared on the 2 both have",
            ],
        },
    ];
    for case in cases {
        let runs: Vec<RunInput> = case
            .runs
            .iter()
            .map(|(id, name, count, right)| {
                let mut run = run_of(id, "m", "d.jsonl", None, *count, right);
                run.manifest.name = name.map(String::from);
                run
            })
            .collect();
        let comparison = compare(&runs, &CompareOptions { bootstrap: 0, ..Default::default() });
        let mut rows = case.rows.clone();
        rows.sort();
        assert_eq!(comparison.models, rows, "{}", case.what);
        for (i, view) in comparison.runs.iter().enumerate() {
            assert_eq!(comparison.models[view.row.unwrap()], case.rows[i], "{}: run {i}'s row", case.what);
        }
        let pairs: Vec<_> = comparison
            .pairs
            .iter()
            .map(|p| {
                assert!(p.repeat, "{}", case.what);
                let d = p.drop.as_ref().unwrap();
                (p.vanilla, p.perturbed, p.samples.len(), d.mcnemar.b, d.mcnemar.c)
            })
            .collect();
        assert_eq!(pairs, case.pairs, "{}", case.what);
        // Only the common samples are paired: every paired id was scored by both runs.
        for p in &comparison.pairs {
            for s in &p.samples {
                assert!(runs[p.vanilla].records.contains_key(&s.original_id), "{}", case.what);
                assert!(runs[p.perturbed].records.contains_key(&s.original_id), "{}", case.what);
            }
        }
        assert_eq!(comparison.notes, case.notes.iter().map(|n| n.to_string()).collect::<Vec<_>>(), "{}", case.what);
        // The cells keep each run's own figure over its own samples.
        let cells: Vec<usize> =
            comparison.tables[0].cells.iter().map(|row| row[0].as_ref().unwrap().score.samples).collect();
        let mut expected: Vec<(String, usize)> =
            case.rows.iter().zip(&case.runs).map(|(row, run)| (row.to_string(), run.2)).collect();
        expected.sort();
        assert_eq!(cells, expected.into_iter().map(|(_, n)| n).collect::<Vec<_>>(), "{}", case.what);
    }
}

#[test]
fn categories_give_pass_at_1_per_category_of_the_original_samples() {
    let categories: BTreeMap<String, String> =
        [("sample_0", "easy"), ("sample_1", "easy"), ("sample_2", "hard"), ("sample_3", "hard"), ("sample_4", "hard")]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
    let runs =
        vec![run_of("v", "m", "d.jsonl", None, 6, |i| i != 3), run_of("p", "m", "d.jsonl", Some("MCC"), 6, |i| i < 2)];
    let comparison = compare(&runs, &CompareOptions { categories, ..Default::default() });
    // Percentages rounded to 1e-9 so the test does not depend on the order of a sum.
    type PerRun = Vec<(usize, Vec<(String, usize, i64)>)>;
    let got: PerRun = comparison
        .categories
        .iter()
        .map(|c| {
            (
                c.run,
                c.scores
                    .iter()
                    .map(|s| (s.category.clone(), s.samples, (s.pass_at_1.unwrap() * 1e9).round() as i64))
                    .collect(),
            )
        })
        .collect();
    let percent = |p: f64| (p * 1e9).round() as i64;
    let expected = vec![
        (
            0,
            vec![
                ("(none)".to_string(), 1, percent(100.0)),
                ("easy".to_string(), 2, percent(100.0)),
                ("hard".to_string(), 3, percent(200.0 / 3.0)),
            ],
        ),
        (
            1,
            vec![
                ("(none)".to_string(), 1, percent(0.0)),
                ("easy".to_string(), 2, percent(100.0)),
                ("hard".to_string(), 3, percent(0.0)),
            ],
        ),
    ];
    assert_eq!(got, expected);
    assert!(compare(&runs, &CompareOptions::default()).categories.is_empty());
}

#[test]
fn the_same_runs_give_the_same_figures_whatever_else_is_compared() {
    let runs = vec![
        run_of("v", "m", "d.jsonl", None, 40, |i| i % 3 != 0),
        run_of("p", "m", "d.jsonl", Some("RTF"), 40, |i| i % 2 == 0),
    ];
    let alone = compare(&runs, &CompareOptions::default());
    let mut more = vec![run_of("other", "n", "d.jsonl", None, 40, |i| i % 5 == 0)];
    more.extend(runs.iter().cloned());
    let with_other = compare(&more, &CompareOptions::default());
    let cell = |c: &execbench_compare::Comparison, model: usize| c.tables[0].cells[model][1].clone();
    assert_eq!(
        cell(&alone, 0),
        cell(&with_other, 0).map(|mut c| {
            c.run -= 1;
            c
        })
    );
    let interval = |c: &execbench_compare::Comparison| c.tables[0].cells[0][0].as_ref().unwrap().score.interval;
    assert_eq!(interval(&compare(&runs, &CompareOptions::default())), interval(&alone), "deterministic");
    // 40 right/wrong samples give a coarse grid of means: few resamples make the seed visible.
    let few = |seed| interval(&compare(&runs, &CompareOptions { seed, bootstrap: 20, ..Default::default() }));
    assert!((1..=5).any(|seed| few(seed) != few(0)), "the seed is used");
}
