//! LiveCodeBench Parquet files, written here with LiveCodeBench's schema, read into samples.

use crate::common;

use common::{Column, DAY_NANOS, LCB_SCHEMA, LcbRow, file_that_panics_the_reader, lcb_file, lcb_row, write_parquet};
use execbench_core::{Convention, load_jsonl};
use execbench_formats::{Format, load_dataset, load_parquet};
use parquet::basic::Compression;
use serde_json::{Value, json};

#[test]
fn good_rows_become_samples_with_the_metadata() {
    let rows: Vec<LcbRow> = (0..5).map(|n| lcb_row(n, ["easy", "medium", "hard"][n % 3])).collect();
    // Two row groups, so that row numbers and order carry across them.
    let report = load_parquet("lcb.parquet", &lcb_file(&rows, 3));
    assert!(report.is_clean(), "{:?}", report.errors);
    assert_eq!((report.rows, report.samples.len()), (5, 5));
    let s = &report.samples[4];
    assert_eq!(
        (s.id.as_str(), s.function_name.as_str(), s.call.as_str(), s.input.as_str(), s.output.as_str()),
        ("sample_4", "minimumCost", "minimumCost(s = '00')", "s = '00'", "0")
    );
    let meta: Value = Value::Object(s.meta.clone());
    assert_eq!(
        meta,
        json!({
            "question_id": "2701", "contest_id": "weekly-contest-347", "contest_date": "2023-08-16T00:00:00",
            "difficulty": "medium", "problem_id": "2701_1", "numsteps": 504
        })
    );
    assert_eq!(Convention::of(s), Convention::LeetCode, "question_id makes it LeetCode's: the prelude runs");
    assert_eq!(
        report.samples.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["sample_0", "sample_1", "sample_2", "sample_3", "sample_4"]
    );
}

/// A Parquet row and its JSON Lines twin give the same sample.
#[test]
fn parquet_rows_equal_their_json_lines_twins() {
    let rows: Vec<LcbRow> = (0..4).map(|n| lcb_row(n, "easy")).collect();
    let parquet = load_parquet("lcb.parquet", &lcb_file(&rows, 10));
    let jsonl: String = rows
        .iter()
        .map(|r| {
            let date = r.contest_date.map(|ns| format!("2023-08-{:02}T00:00:00", 12 + (ns / DAY_NANOS - 19_581)));
            let row = json!({
                "question_id": r.question_id, "contest_id": r.contest_id, "contest_date": date, "difficulty": r.difficulty,
                "function_name": r.function_name, "code": r.code, "input": r.input, "output": r.output, "id": r.id,
                "problem_id": r.problem_id, "numsteps": r.numsteps,
            });
            format!("{row}\n")
        })
        .collect();
    let twin = load_jsonl("lcb.jsonl", &jsonl);
    assert!(parquet.is_clean() && twin.is_clean(), "{:?} {:?}", parquet.errors, twin.errors);
    assert_eq!(parquet.samples, twin.samples);
}

/// One bad row per kind of problem, each with the exact message a user sees; the good rows
/// around it are kept.
#[test]
fn bad_rows_are_named_by_row_and_field() {
    type Spoil = fn(&mut LcbRow);
    let cases: &[(Spoil, &str)] = &[
        (|r| r.code = None, "lcb.parquet:3: field `code`: null (required)"),
        (|r| r.output = None, "lcb.parquet:3: field `output`: null (required)"),
        (
            |r| r.input = Some("s = '0011'".into()),
            "lcb.parquet:3: field `input`: `s = '0011'` is not a call of `minimumCost`: LiveCodeBench rows hold the whole call, `minimumCost(...)`",
        ),
        (
            |r| r.input = Some("minimumCost(s = '0011'".into()),
            "lcb.parquet:3: field `input`: `minimumCost(s = '0011'` is not a call of `minimumCost`: LiveCodeBench rows hold the whole call, `minimumCost(...)`",
        ),
        (
            |r| r.function_name = Some("minimum cost".into()),
            "lcb.parquet:3: field `input`: `minimumCost(s = '00')` is not a call of `minimum cost`: LiveCodeBench rows hold the whole call, `minimum cost(...)`",
        ),
        (|r| r.function_name = None, "lcb.parquet:3: field `function_name`: null (required)"),
        (|r| r.id = Some("sample_0".into()), "lcb.parquet:3: field `id`: duplicate id `sample_0`"),
        (|r| r.code = Some("  ".into()), "lcb.parquet:3: field `code`: is empty"),
    ];
    for (spoil, message) in cases {
        let mut rows: Vec<LcbRow> = (0..4).map(|n| lcb_row(n * 4, "easy")).collect();
        spoil(&mut rows[2]);
        // Row 3 is the first row of the second row group.
        let report = load_parquet("lcb.parquet", &lcb_file(&rows, 2));
        let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, [message.to_string()], "{message}");
        assert_eq!((report.rows, report.samples.len()), (4, 3), "{message}");
    }
}

#[test]
fn a_missing_column_is_named_in_every_row() {
    let schema = LCB_SCHEMA.replace("  optional binary output (STRING);\n", "");
    let rows: Vec<LcbRow> = (0..2).map(|n| lcb_row(n, "easy")).collect();
    let columns: Vec<(&str, Column)> =
        LcbRow::columns(&rows).into_iter().filter(|(name, _)| *name != "output").collect();
    let report = load_parquet("lcb.parquet", &write_parquet(&schema, Compression::SNAPPY, &[columns]));
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        ["lcb.parquet:1: field `output`: missing (required)", "lcb.parquet:2: field `output`: missing (required)"]
    );
}

/// Files that cannot be read at all, or only in part.
#[test]
fn unreadable_files_and_row_groups() {
    let rows: Vec<LcbRow> = (0..4).map(|n| lcb_row(n, "easy")).collect();
    let good = lcb_file(&rows, 2);
    let lz4_groups: Vec<_> = rows.chunks(2).map(LcbRow::columns).collect();
    let lz4 = write_parquet(LCB_SCHEMA, Compression::LZ4_RAW, &lz4_groups);
    let cases: Vec<(&str, Vec<u8>, Vec<&str>, usize)> = vec![
        ("not parquet", b"PAR1 but nothing after".to_vec(), vec!["lcb.parquet:1: not a readable Parquet file: "], 0),
        ("cut short", good[..good.len() - 20].to_vec(), vec!["lcb.parquet:1: not a readable Parquet file: "], 0),
        (
            "another codec",
            lz4,
            vec![
                "lcb.parquet:1: field `question_id`: rows 1 to 2 (row group 1 of 2) cannot be read: compressed with LZ4_RAW; execbench reads uncompressed and snappy Parquet (what Hugging Face writes)",
                "lcb.parquet:3: field `question_id`: rows 3 to 4 (row group 2 of 2) cannot be read: compressed with LZ4_RAW; execbench reads uncompressed and snappy Parquet (what Hugging Face writes)",
            ],
            4,
        ),
        ("no rows", lcb_file(&[], 1), vec!["lcb.parquet:1: the file has no rows"], 0),
    ];
    for (what, bytes, prefixes, rows_counted) in cases {
        let report = load_parquet("lcb.parquet", &bytes);
        let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), prefixes.len(), "{what}: {errors:?}");
        for (error, prefix) in errors.iter().zip(&prefixes) {
            assert!(error.starts_with(prefix), "{what}: {error}");
        }
        assert_eq!((report.samples.len(), report.rows), (0, rows_counted), "{what}");
    }
}

#[test]
fn the_loader_sniffs_parquet_by_its_magic_bytes() {
    let bytes = lcb_file(&[lcb_row(1, "hard")], 1);
    for name in ["lcb.parquet", "download", "lcb.jsonl"] {
        let loaded = load_dataset(name, &bytes);
        assert_eq!(loaded.format, Format::Parquet, "{name}");
        assert_eq!(loaded.report.samples.len(), 1, "{name}");
    }
}

/// Damaged files (cut at every length, one byte changed anywhere) give a report, never a panic:
/// the `parquet` crate asserts on some damaged pages, and the importer turns that into the row
/// group's error.
#[test]
fn damaged_files_never_panic() {
    let rows: Vec<LcbRow> = (0..6).map(|n| lcb_row(n, "easy")).collect();
    let good = lcb_file(&rows, 2);
    // Every 7th length and byte: each part of the file (header, pages, footer) is hit many times
    // in a few seconds (a caught panic is slow: the hook prints it).
    let mut damaged: Vec<Vec<u8>> = (0..good.len()).step_by(7).map(|n| good[..n].to_vec()).collect();
    let cuts = damaged.len();
    for at in (0..good.len()).step_by(7) {
        let mut bytes = good.clone();
        bytes[at] ^= 0x5a;
        damaged.push(bytes);
    }
    let mut with_errors = 0;
    for bytes in &damaged {
        let report = load_parquet("lcb.parquet", bytes);
        assert!(!report.samples.is_empty() || !report.errors.is_empty(), "a report says something");
        assert!(report.samples.len() <= report.rows, "{} samples of {} rows", report.samples.len(), report.rows);
        with_errors += usize::from(!report.errors.is_empty());
    }
    // Every cut file is refused; a changed byte inside a value may still decode.
    assert!(with_errors >= cuts, "{with_errors} of {} damaged files reported errors", damaged.len());
}

#[test]
fn a_known_damaged_file_makes_the_reader_panic() {
    let report = load_parquet("lcb.parquet", &file_that_panics_the_reader());
    // The panic's words depend on the build (a debug assertion, or a slice index in release).
    assert!(report.errors.iter().any(|e| e.message.contains("damaged data (")), "{:?}", report.errors);
}
