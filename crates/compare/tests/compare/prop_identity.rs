//! Compare's readers on generated runs and dataset names: a run written as a run file (by the
//! runs crate's own line writers) and read back (`RunInput::parse`) gives the same identity and
//! the same per-sample outcomes as the run itself; a damaged record line is refused naming the
//! file and that line. A dataset name of each layout (CodeCrash's, the page's downloads, a plain
//! file, under any folder) reads back to its family and perturbation (`dataset_family`), and a
//! perturbation's label reads back to itself.

use crate::common;

use common::{manifest, record, result, verdicts};
use execbench_compare::identity::dataset_family;
use execbench_compare::{Perturbation, RunInput, identify};
use execbench_eval::Task;
use execbench_eval::score::Mode;
use execbench_perturb::Kind;
use execbench_proptest_cases::cases;
use execbench_runs::runfile::{manifest_line, record_line};
use proptest::prelude::*;

fn kind() -> impl Strategy<Value = Kind> {
    prop::sample::select(Kind::ALL.to_vec())
}

fn perturbation() -> impl Strategy<Value = Perturbation> {
    prop_oneof![
        Just(Perturbation::Vanilla),
        kind().prop_map(Perturbation::Known),
        Just(Perturbation::Other("ALL".into())),
        Just(Perturbation::Other("MDC".into())),
    ]
}

/// A family as CodeCrash or a user names it (never one a perturbation name could be taken for).
fn family() -> impl Strategy<Value = String> {
    prop_oneof![Just("crux".to_string()), Just("lcb".to_string()), "[a-z][a-z0-9]{2,10}"]
}

fn canonical(family: &str) -> String {
    match family {
        "crux" => "cruxeval".into(),
        "lcb" => "livecodebench".into(),
        other => other.into(),
    }
}

/// How a name writes a perturbation, in any of the cases and separators `Perturbation::parse` takes.
fn spelled(p: &Perturbation, lower: bool) -> String {
    let name = match p {
        Perturbation::Vanilla => "VAN".to_string(),
        Perturbation::Known(kind) => kind.name().to_string(),
        // Names execbench does not know are kept as written.
        Perturbation::Other(name) => return name.clone(),
    };
    if lower { name.to_lowercase() } else { name }
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn a_written_run_reads_back_the_same(
        model in "[a-z0-9.-]{1,12}",
        dataset in prop_oneof![Just("crux_MCC_output.jsonl".to_string()), Just("cruxeval.jsonl".to_string()), "[a-z]{1,8}-REN-perturbed\\.jsonl"],
        kind in proptest::option::of(kind()),
        samples in proptest::collection::btree_map("sample_[0-9]{1,3}", proptest::collection::vec(any::<bool>(), 1..7), 0..8),
        repeated in any::<bool>(),
    ) {
        let manifest = manifest("r1", &model, &dataset, kind.map(Kind::name), Task::Output, &[Mode::Strict]);
        let mut records: Vec<_> = samples
            .iter()
            .enumerate()
            .map(|(i, (id, answers))| record(id, i, vec![result(id, Mode::Strict, verdicts(answers))]))
            .collect();
        // A sample run again: its later record is the one that counts, in the file as in memory.
        if repeated && let Some(first) = records.first().cloned() {
            records.insert(0, record(&first.sample_id, 0, vec![result(&first.sample_id, Mode::Strict, verdicts(&[false]))]));
        }
        let text: String = std::iter::once(manifest_line(&manifest)).chain(records.iter().map(record_line)).map(|l| l + "\n").collect();
        let read = RunInput::parse("r1.jsonl", &text).map_err(TestCaseError::fail)?;
        let direct = RunInput::new("r1.jsonl", manifest.clone(), records);
        prop_assert_eq!(identify(&read.manifest), identify(&direct.manifest));
        prop_assert_eq!(read.outcomes(Mode::Strict), direct.outcomes(Mode::Strict));
        prop_assert_eq!(read.outcomes(Mode::Strict).len(), samples.len());
        if let Some(k) = kind {
            prop_assert_eq!(identify(&read.manifest).perturbation, Perturbation::Known(k));
        }
    }

    #[test]
    fn a_damaged_record_line_is_named(
        samples in proptest::collection::vec(proptest::collection::vec(any::<bool>(), 1..4), 1..6),
        at in any::<prop::sample::Index>(),
        damage in prop::sample::select(vec!["{\"sample_id\": 3}", "[]", "{\"sample_id\": \"s\", \"index\": \"x\"} x"]),
    ) {
        let manifest = manifest("r1", "m", "cruxeval.jsonl", None, Task::Output, &[Mode::Strict]);
        let mut lines = vec![manifest_line(&manifest)];
        for (i, answers) in samples.iter().enumerate() {
            let id = format!("sample_{i}");
            lines.push(record_line(&record(&id, i, vec![result(&id, Mode::Strict, verdicts(answers))])));
        }
        // A record line, never the manifest (line 1), and never the last (a cut last line is kept apart).
        let at = 1 + at.index(lines.len() - 1);
        lines[at] = damage.to_string();
        lines.push(record_line(&record("last", 99, Vec::new())));
        let error = RunInput::parse("r1.jsonl", &(lines.join("\n") + "\n")).err().unwrap_or_default();
        prop_assert!(error.starts_with(&format!("r1.jsonl:{}: ", at + 1)), "{error:?}");
    }

    #[test]
    fn codecrash_names_read_back(
        family in prop_oneof![Just("crux"), Just("lcb")],
        perturbation in perturbation(),
        lower in any::<bool>(),
        task in prop_oneof![Just("input"), Just("output")],
        folder in "([a-z]{1,6}/){0,2}",
    ) {
        let name = format!("{folder}{family}_{}_{task}.jsonl", spelled(&perturbation, lower));
        prop_assert_eq!(dataset_family(&name), (canonical(family), perturbation));
    }

    #[test]
    fn page_download_names_read_back(
        family in family(),
        kinds in proptest::collection::vec(kind(), 1..3),
        suffix in prop_oneof![Just("perturbed"), Just("codecrash")],
        folder in "([a-z]{1,6}/){0,2}",
    ) {
        let kinds_label = kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join("+");
        let name = format!("{folder}{family}-{kinds_label}-{suffix}.jsonl");
        let expected = match kinds.as_slice() {
            [one] => Perturbation::Known(*one),
            _ => Perturbation::Other(kinds_label.clone()),
        };
        prop_assert_eq!(dataset_family(&name), (canonical(&family), expected));
    }

    #[test]
    fn plain_names_are_vanilla_and_labels_read_back(family in family(), ext in "(\\.jsonl|\\.json|)", perturbation in perturbation()) {
        prop_assert_eq!(dataset_family(&format!("data/{family}{ext}")), (canonical(&family), Perturbation::Vanilla));
        prop_assert_eq!(Perturbation::parse(&perturbation.label()), perturbation.clone());
        prop_assert_eq!(Perturbation::parse(&format!(" {} ", spelled(&perturbation, true))), perturbation);
    }
}
