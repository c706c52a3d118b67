//! Damaged Parquet made from the files pyarrow wrote (tests/fixtures/pyarrow): cut at any length,
//! or with bits flipped anywhere. Reading one gives a report (the `parquet` crate's panics are
//! caught and become the file's error), never a panic that escapes; a cut file is always refused
//! with its name; whatever is loaded is no more than the file's rows.
//!
//! Its own test binary (not a module of `tests/formats/`): it replaces the process's panic hook
//! with a silent one, which would hide the panic message of any other test failing in the same
//! process.

use execbench_formats::load_dataset;
use execbench_proptest_cases::cases;
use proptest::prelude::*;

const FIXTURES: [&str; 3] = ["lcb_execution.parquet", "lcb_execution_nulls.parquet", "lcb_execution_v2_pages.parquet"];

fn fixture(index: usize) -> Vec<u8> {
    let path = format!("{}/../../tests/fixtures/pyarrow/{}", env!("CARGO_MANIFEST_DIR"), FIXTURES[index]);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The parquet crate's panics are caught and reported; silence the hook's printing so a long run
/// stays readable (a caught panic still fails the property if it escapes `load_dataset`).
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn a_cut_file_is_refused_by_name(which in 0..FIXTURES.len(), at in any::<usize>()) {
        quiet_panics();
        let good = fixture(which);
        let cut = &good[..at % good.len()];
        let report = std::panic::catch_unwind(|| load_dataset("cut.parquet", cut).report)
            .map_err(|_| TestCaseError::fail(format!("a panic escaped at length {}", cut.len())))?;
        prop_assert!(!report.errors.is_empty(), "cut at {} of {}: no error", cut.len(), good.len());
        prop_assert!(report.samples.is_empty(), "cut at {}: {} samples from a file without its footer", cut.len(), report.samples.len());
        for error in &report.errors {
            prop_assert_eq!(&error.file, "cut.parquet");
            prop_assert!(!error.message.is_empty());
        }
    }

    #[test]
    fn flipped_bits_give_a_report_not_a_panic(which in 0..FIXTURES.len(), flips in proptest::collection::vec((any::<usize>(), 0u8..8), 1..6)) {
        quiet_panics();
        let mut bytes = fixture(which);
        let rows_before = load_dataset("good.parquet", &bytes).report.rows;
        for (at, bit) in &flips {
            let at = at % bytes.len();
            bytes[at] ^= 1 << bit;
        }
        let report = std::panic::catch_unwind(|| load_dataset("flipped.parquet", &bytes).report)
            .map_err(|_| TestCaseError::fail(format!("a panic escaped with flips {flips:?}")))?;
        prop_assert!(!report.samples.is_empty() || !report.errors.is_empty(), "an empty report");
        prop_assert!(report.samples.len() <= report.rows, "{} samples of {} rows", report.samples.len(), report.rows);
        // A flip in a length can claim more rows, never more samples than the file held.
        prop_assert!(report.samples.len() <= rows_before, "{} samples from a file of {}", report.samples.len(), rows_before);
        for error in &report.errors {
            prop_assert_eq!(&error.file, "flipped.parquet");
            prop_assert!(!error.message.is_empty());
        }
    }
}
