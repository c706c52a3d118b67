//! Parquet files written by pyarrow, the writer behind Hugging Face's files, in
//! `livecodebench/execution-v2`'s schema (tests/fixtures/pyarrow, made by the script beside
//! them). Each file's rows must equal its JSON Lines twin, written by Python's json module from
//! the same records; and each file must really have the layout it stands for (checked here from
//! its own footer and pages, so a regenerated fixture cannot quietly lose it).

use std::collections::BTreeSet;

use bytes::Bytes;
use execbench_core::load_jsonl;
use execbench_formats::{Format, load_dataset};
use parquet::basic::{Compression, Encoding, LogicalType, PageType, TimeUnit};
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/pyarrow");

/// What one fixture stands for: (file, rows, row groups, the timestamp's unit, data pages v2,
/// some string pages fall back from the dictionary to plain).
const FILES: &[(&str, usize, usize, TimeUnit, bool, bool)] = &[
    ("lcb_execution", 24, 3, TimeUnit::MICROS, false, false),
    ("lcb_execution_nulls", 8, 3, TimeUnit::MICROS, false, false),
    ("lcb_execution_v2_pages", 12, 2, TimeUnit::NANOS, true, true),
];

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_pyarrow_file_reads_as_its_json_lines_twin() {
    for (name, rows, ..) in FILES {
        let file = format!("{name}.parquet");
        let loaded = load_dataset(&file, &read(&file));
        assert_eq!(loaded.format, Format::Parquet, "{name}");
        assert!(loaded.report.is_clean(), "{name}: {:?}", loaded.report.errors);
        assert_eq!((loaded.report.rows, loaded.report.samples.len()), (*rows, *rows), "{name}");
        let twin_name = format!("{name}.expected.jsonl");
        let twin = load_jsonl(&twin_name, &String::from_utf8(read(&twin_name)).unwrap());
        assert!(twin.is_clean(), "{name}: {:?}", twin.errors);
        assert_eq!(loaded.report.samples, twin.samples, "{name}");
    }
}

/// A few values written out by hand, in case both readers agree on something wrong: the call as
/// LiveCodeBench writes it, the microsecond timestamp as ISO text, an int64 `question_id` and the
/// list `problem_id` kept as numbers, nulls and an empty list kept.
#[test]
fn pyarrow_values_as_a_person_reads_them() {
    let lcb = load_dataset("lcb_execution.parquet", &read("lcb_execution.parquet")).report;
    let s = &lcb.samples[13];
    assert_eq!(
        (s.id.as_str(), s.call.as_str(), s.input.as_str(), s.output.as_str()),
        ("sample_13", "isFascinating(n = 100)", "n = 100", "False")
    );
    assert_eq!(
        Value::Object(s.meta.clone()),
        json!({"question_id": 2824, "numsteps": 581, "problem_id": [2, 1], "contest_id": "biweekly-contest-106",
               "contest_date": "2023-06-10T00:00:00", "difficulty": "easy"})
    );
    assert_eq!(execbench_core::Convention::of(s), execbench_core::Convention::LeetCode);

    let nulls = load_dataset("lcb_execution_nulls.parquet", &read("lcb_execution_nulls.parquet")).report;
    let meta = |i: usize, key: &str| nulls.samples[i].meta.get(key).cloned();
    assert_eq!(meta(0, "problem_id"), Some(Value::Null));
    assert_eq!(meta(1, "problem_id"), Some(json!([])));
    assert_eq!(meta(2, "problem_id"), Some(json!([0, 2])));
    assert_eq!(meta(1, "contest_date"), Some(Value::Null));
    assert_eq!(meta(2, "contest_date"), Some(json!("2023-05-28T00:00:00")));
    assert_eq!(meta(1, "difficulty"), Some(Value::Null));
    assert_eq!(meta(5, "numsteps"), Some(Value::Null));
    assert_eq!(meta(6, "contest_id"), Some(Value::Null));

    let v2 = load_dataset("lcb_execution_v2_pages.parquet", &read("lcb_execution_v2_pages.parquet")).report;
    assert_eq!(v2.samples[7].meta.get("contest_date"), Some(&json!("2023-05-07T00:00:00")));
}

/// The files are what they claim: written by pyarrow, snappy, dictionary-encoded strings, several
/// row groups, several data pages in a column chunk, the timestamp's unit, and (for the v2 file)
/// data pages v2 and strings that fall back to plain pages.
#[test]
fn the_fixtures_have_the_layout_they_stand_for() {
    for (name, rows, groups, unit, v2_pages, fallback) in FILES {
        let reader = SerializedFileReader::new(Bytes::from(read(&format!("{name}.parquet")))).unwrap();
        let metadata = reader.metadata();
        let file = metadata.file_metadata();
        assert!(
            file.created_by().is_some_and(|w| w.starts_with("parquet-cpp-arrow")),
            "{name}: {:?}",
            file.created_by()
        );
        assert_eq!((file.num_rows(), reader.num_row_groups()), (*rows as i64, *groups), "{name}");
        let date = file.schema_descr().columns().iter().find(|c| c.name() == "contest_date").unwrap().clone();
        assert!(
            matches!(date.logical_type_ref(), Some(LogicalType::Timestamp(t)) if t.unit == *unit && !t.is_adjusted_to_u_t_c),
            "{name}: {:?}",
            date.logical_type_ref()
        );
        let (mut page_types, mut most_data_pages, mut code_encodings) = (BTreeSet::new(), 0, BTreeSet::new());
        for group in 0..reader.num_row_groups() {
            let row_group = reader.get_row_group(group).unwrap();
            for (index, column) in metadata.row_group(group).columns().iter().enumerate() {
                assert_eq!(column.compression(), Compression::SNAPPY, "{name}");
                let path = column.column_path().string();
                if ["code", "input", "function_name"].contains(&path.as_str()) {
                    assert!(column.dictionary_page_offset().is_some(), "{name} {path}: no dictionary");
                }
                let mut data_pages = 0;
                for page in row_group.get_column_page_reader(index).unwrap() {
                    let page = page.unwrap();
                    page_types.insert(format!("{:?}", page.page_type()));
                    if page.page_type() != PageType::DICTIONARY_PAGE {
                        data_pages += 1;
                        if path == "code" {
                            code_encodings.insert(format!("{:?}", page.encoding()));
                        }
                    }
                }
                most_data_pages = most_data_pages.max(data_pages);
            }
        }
        assert!(most_data_pages >= 2, "{name}: at most {most_data_pages} data page in a column chunk");
        let data_page = if *v2_pages { "DATA_PAGE_V2" } else { "DATA_PAGE" };
        assert!(page_types.contains(data_page) && page_types.contains("DICTIONARY_PAGE"), "{name}: {page_types:?}");
        assert!(code_encodings.contains(&format!("{:?}", Encoding::RLE_DICTIONARY)), "{name}: {code_encodings:?}");
        assert_eq!(code_encodings.contains(&format!("{:?}", Encoding::PLAIN)), *fallback, "{name}: {code_encodings:?}");
    }
}
