//! Which vanilla run, which original ids: as tables over identities, dataset names and manifests,
//! then through `compare` across several perturbations.

use crate::common;

use std::collections::BTreeSet;

use common::{manifest, run, run_of};
use execbench_compare::identity::{Candidate, Pairing, dataset_family};
use execbench_compare::{CompareOptions, Perturbation, RunIdentity, compare, identify, pair_with_vanilla};
use execbench_eval::Task;
use execbench_eval::score::Mode;
use execbench_perturb::Kind;

fn identity(model: &str, task: Task, dataset: &str, perturbation: &str) -> RunIdentity {
    RunIdentity { model: model.into(), task, dataset: dataset.into(), perturbation: Perturbation::parse(perturbation) }
}

#[test]
fn dataset_names_give_family_and_perturbation() {
    let cases: &[(&str, &str, Perturbation)] = &[
        ("crux_MCC_output.jsonl", "cruxeval", Perturbation::Known(Kind::Mcc)),
        ("data/crux_PSC_ALL_input.jsonl", "cruxeval", Perturbation::Known(Kind::PscAll)),
        ("lcb_VAN_output.jsonl", "livecodebench", Perturbation::Vanilla),
        ("lcb_MDC_input.jsonl", "livecodebench", Perturbation::Other("MDC".into())),
        ("cruxeval-REN-perturbed.jsonl", "cruxeval", Perturbation::Known(Kind::Ren)),
        ("contest-REN+RTF-codecrash.jsonl", "contest", Perturbation::Other("REN+RTF".into())),
        ("cruxeval.jsonl", "cruxeval", Perturbation::Vanilla),
        ("CRUXEval", "cruxeval", Perturbation::Vanilla),
        (r"C:\runs\my_set.jsonl", "my_set", Perturbation::Vanilla),
        // Looks like CodeCrash's pattern only with its prefix and task suffix.
        ("my_MCC_output.jsonl", "my_mcc_output", Perturbation::Vanilla),
        ("-perturbed.jsonl", "-perturbed", Perturbation::Vanilla),
    ];
    for (name, family, perturbation) in cases {
        assert_eq!(dataset_family(name), (family.to_string(), perturbation.clone()), "{name}");
    }
}

#[test]
fn the_manifest_provenance_wins_over_the_name() {
    // (dataset name, provenance, expected perturbation)
    let cases: Vec<(&str, Option<serde_json::Value>, Perturbation)> = vec![
        ("ren.jsonl", Some(serde_json::json!({"kind": "REN", "seed": 0})), Perturbation::Known(Kind::Ren)),
        ("crux_MCC_output.jsonl", Some(serde_json::json!({"kind": "MPS"})), Perturbation::Known(Kind::Mps)),
        ("crux_MCC_output.jsonl", None, Perturbation::Known(Kind::Mcc)),
        (
            "d.jsonl",
            Some(serde_json::json!({"mixed": [{"kind": "RTF"}, {"kind": "REN"}, {"kind": "RTF"}]})),
            Perturbation::Other("RTF+REN".into()),
        ),
        ("d.jsonl", Some(serde_json::json!({"mixed": [{"kind": "psc-all"}]})), Perturbation::Known(Kind::PscAll)),
        ("d.jsonl", Some(serde_json::json!({"seed": 3})), Perturbation::Vanilla),
        ("d.jsonl", None, Perturbation::Vanilla),
    ];
    for (dataset, provenance, expected) in cases {
        let mut m = manifest("r", "m", dataset, None, Task::Output, &[Mode::Strict]);
        m.provenance = provenance.clone();
        assert_eq!(identify(&m).perturbation, expected, "{dataset} {provenance:?}");
    }
}

#[test]
fn perturbations_sort_vanilla_first_then_codecrash_order_then_by_name() {
    let mut names = vec!["MHC", "zzz", "GBC", "VAN", "MCC", "ALL", "PSC_ALL", "MPS", "RTF", "REN"];
    names.sort_by_key(|n| Perturbation::parse(n));
    assert_eq!(names, vec!["VAN", "REN", "RTF", "GBC", "PSC_ALL", "MCC", "MPS", "MHC", "ALL", "zzz"]);
}

#[test]
fn which_vanilla_run_and_which_original_ids() {
    let ids = |list: &[&'static str]| -> BTreeSet<&'static str> { list.iter().copied().collect() };
    let a_crux = identity("A", Task::Output, "cruxeval", "vanilla");
    let a_crux_input = identity("A", Task::Input, "cruxeval", "vanilla");
    let b_crux = identity("B", Task::Output, "cruxeval", "vanilla");
    let a_lcb = identity("A", Task::Output, "livecodebench", "vanilla");
    let a_other = identity("A", Task::Output, "ren", "vanilla");
    let a_ren_run = identity("A", Task::Output, "cruxeval", "REN");
    // (perturbed identity, its ids, candidates (identity, ids), expected)
    type Case = (RunIdentity, BTreeSet<&'static str>, Vec<(RunIdentity, BTreeSet<&'static str>)>, Option<Pairing>);
    let pairing = |vanilla: usize, list: &[&str]| {
        Some(Pairing { vanilla, original_ids: list.iter().map(|s| s.to_string()).collect() })
    };
    let cases: Vec<Case> = vec![
        // The one vanilla run of the model and task, over the shared ids only.
        (
            identity("A", Task::Output, "cruxeval", "MCC"),
            ids(&["s1", "s2", "s9"]),
            vec![(a_crux.clone(), ids(&["s1", "s2", "s3"]))],
            pairing(0, &["s1", "s2"]),
        ),
        // Another model or task never pairs, even with the same ids.
        (
            identity("A", Task::Output, "cruxeval", "MCC"),
            ids(&["s1"]),
            vec![(b_crux.clone(), ids(&["s1"])), (a_crux_input.clone(), ids(&["s1"]))],
            None,
        ),
        // A perturbed run is not a vanilla run.
        (identity("A", Task::Output, "cruxeval", "MCC"), ids(&["s1"]), vec![(a_ren_run.clone(), ids(&["s1"]))], None),
        // No shared id: no pair.
        (identity("A", Task::Output, "cruxeval", "MCC"), ids(&["x"]), vec![(a_crux.clone(), ids(&["s1"]))], None),
        // The same dataset family beats more shared ids.
        (
            identity("A", Task::Output, "cruxeval", "REN"),
            ids(&["s1", "s2"]),
            vec![(a_lcb.clone(), ids(&["s1", "s2"])), (a_crux.clone(), ids(&["s1"]))],
            pairing(1, &["s1"]),
        ),
        // Without a family match, the most shared ids (a CLI file named after its kind).
        (
            identity("A", Task::Output, "ren", "REN"),
            ids(&["s1", "s2", "s3"]),
            vec![(a_lcb.clone(), ids(&["s1"])), (a_crux.clone(), ids(&["s1", "s2", "s3"]))],
            pairing(1, &["s1", "s2", "s3"]),
        ),
        // A tie goes to the first given.
        (
            identity("A", Task::Output, "x", "REN"),
            ids(&["s1"]),
            vec![(a_lcb.clone(), ids(&["s1"])), (a_crux.clone(), ids(&["s1"]))],
            pairing(0, &["s1"]),
        ),
        // A vanilla run pairs with nothing, not even a vanilla run of the same name.
        (a_other.clone(), ids(&["s1"]), vec![(a_crux.clone(), ids(&["s1"]))], None),
    ];
    for (perturbed, perturbed_ids, candidates, expected) in cases {
        let given: Vec<Candidate<'_>> = candidates
            .iter()
            .map(|(identity, sample_ids)| Candidate { identity, sample_ids: sample_ids.clone() })
            .collect();
        assert_eq!(pair_with_vanilla(&perturbed, &perturbed_ids, &given), expected, "{perturbed:?} {perturbed_ids:?}");
    }
}

#[test]
fn compare_pairs_each_perturbation_with_its_models_vanilla_run_by_original_id() {
    // Model A: vanilla right on samples 0-9; REN loses 0-1; MCC covers only 0-5 (a subset) and
    // loses 0-3, gains nothing. Model B: vanilla right on 0-4; its MCC run comes from a CodeCrash
    // file named by kind only, its ids in another order.
    let runs = vec![
        run_of("a-van", "A", "cruxeval.jsonl", None, 12, |i| i < 10),
        run_of("a-ren", "A", "cruxeval-REN-perturbed.jsonl", Some("REN"), 12, |i| (2..10).contains(&i)),
        run_of("a-mcc", "A", "whatever.jsonl", Some("MCC"), 6, |i| (4..6).contains(&i)),
        run_of("b-van", "B", "cruxeval.jsonl", None, 12, |i| i < 5),
        run(
            "b-mcc",
            "B",
            "crux_MCC_output.jsonl",
            None,
            &[("sample_3", &[false]), ("sample_11", &[true]), ("sample_0", &[true]), ("extra", &[true])],
        ),
        // A perturbed run of a model with no vanilla run.
        run_of("c-mcc", "C", "crux_MCC_output.jsonl", None, 3, |_| true),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    let vanilla_of: Vec<Option<&str>> =
        comparison.runs.iter().map(|r| r.vanilla.map(|v| comparison.runs[v].run_id.as_str())).collect();
    assert_eq!(vanilla_of, vec![None, Some("a-van"), Some("a-van"), None, Some("b-van"), None]);
    // (perturbed run, paired ids in the vanilla run's order, b, c)
    let expected: &[(&str, Vec<&str>, usize, usize)] = &[
        (
            "a-ren",
            vec![
                "sample_0",
                "sample_1",
                "sample_2",
                "sample_3",
                "sample_4",
                "sample_5",
                "sample_6",
                "sample_7",
                "sample_8",
                "sample_9",
                "sample_10",
                "sample_11",
            ],
            2,
            0,
        ),
        ("a-mcc", vec!["sample_0", "sample_1", "sample_2", "sample_3", "sample_4", "sample_5"], 4, 0),
        ("b-mcc", vec!["sample_0", "sample_3", "sample_11"], 1, 1),
    ];
    assert_eq!(comparison.pairs.len(), expected.len());
    for (pair, (perturbed, ids, b, c)) in comparison.pairs.iter().zip(expected) {
        assert_eq!(comparison.runs[pair.perturbed].run_id, *perturbed);
        let got: Vec<&str> = pair.samples.iter().map(|s| s.original_id.as_str()).collect();
        assert_eq!(&got, ids, "{perturbed}");
        let drop = pair.drop.as_ref().unwrap();
        assert_eq!((drop.mcnemar.b, drop.mcnemar.c, drop.paired), (*b, *c, ids.len()), "{perturbed}");
    }
    // C's run is shown in its own column, without a drop, and the report says why.
    assert!(
        comparison.notes.iter().any(|n| n.starts_with("c-mcc.jsonl (c-mcc, MCC) has no vanilla run of model C")),
        "{:?}",
        comparison.notes
    );
}
