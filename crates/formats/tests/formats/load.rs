//! One loader for every format: told apart by content, then by name.

use crate::common;

use execbench_formats::{Format, load_dataset, sniff_format};

#[test]
fn formats_are_told_apart() {
    let cruxeval = r#"{"id": "sample_0", "code": "def f(x):\n    return x", "input": "1", "output": "1"}"#;
    let codecrash = r#"{"task_id": "sample_0", "dataset": "crux", "code": "def f(x):\n    return x", "function_name": "f", "function_call": "f(1)", "output": "1", "test": "assert f(1) == 1"}"#;
    let page = r#"{"features": [], "rows": [], "num_rows_total": 0}"#;
    let bom_blank_line_codecrash = format!("\u{feff}\n{codecrash}");
    let multiline_page = "{\n  \"rows\": [],\n  \"num_rows_total\": 0\n}";
    let cases: &[(&str, &[u8], Format)] = &[
        ("cruxeval.jsonl", cruxeval.as_bytes(), Format::Jsonl),
        ("crux_REN_output.jsonl", cruxeval.as_bytes(), Format::CodeCrash),
        ("anything.jsonl", codecrash.as_bytes(), Format::CodeCrash),
        ("anything.jsonl", bom_blank_line_codecrash.as_bytes(), Format::CodeCrash),
        ("page.json", page.as_bytes(), Format::HfRowsPage),
        ("page.json", multiline_page.as_bytes(), Format::HfRowsPage),
        ("data.parquet", b"not really", Format::Parquet),
        ("data.bin", b"PAR1....", Format::Parquet),
        ("empty.jsonl", b"", Format::Jsonl),
    ];
    for (name, bytes, format) in cases {
        assert_eq!(sniff_format(name, bytes), *format, "{name}");
    }
}

#[test]
fn every_format_reports_through_the_same_errors() {
    let cases: &[(&str, &[u8], &str)] = &[
        ("d.jsonl", b"", "d.jsonl:1: the file is empty: expected one JSON object per line"),
        ("d.parquet", b"not really", "d.parquet:1: not a readable Parquet file: "),
        ("crux_REN_output.jsonl", b"[1]", "crux_REN_output.jsonl:1: expected a JSON object, found an array"),
    ];
    for (name, bytes, prefix) in cases {
        let report = load_dataset(name, bytes).report;
        assert_eq!(report.errors.len(), 1, "{name}: {:?}", report.errors);
        assert!(report.errors[0].to_string().starts_with(prefix), "{name}: {}", report.errors[0]);
    }
}

/// A file read in chunks of `size` bytes through the stream the page uses for big files.
fn streamed(name: &str, bytes: &[u8], size: usize) -> execbench_formats::LoadedDataset {
    let mut stream = execbench_formats::DatasetStream::new(name);
    for chunk in bytes.chunks(size) {
        stream.feed(chunk);
    }
    stream.finish()
}

#[test]
fn a_file_streamed_in_chunks_loads_as_the_whole_file_does() {
    let cruxeval =
        |id: &str| format!(r#"{{"id": "{id}", "code": "def f(x):\n    return x", "input": "1", "output": "1"}}"#);
    let codecrash = |id: &str| {
        format!(
            r#"{{"task_id": "{id}", "dataset": "crux", "code": "def f(x):\n    return x", "function_name": "f", "function_call": "f(1)", "output": "1", "test": "assert f(1) == 1"}}"#
        )
    };
    let many: String = (0..50).map(|i| cruxeval(&format!("sample_{i}")) + "\n").collect();
    let broken = format!("{}\n{{oops\n{}\n{}", cruxeval("a"), cruxeval("b"), cruxeval("a"));
    let codecrash_file = format!("\u{feff}\n{}\n{}\n", codecrash("sample_0"), codecrash("sample_1"));
    let page = r#"{"features": [], "rows": [{"row_idx": 0, "row": {"id": "x", "code": "def f(x):\n    return x", "input": "1", "output": "1"}}], "num_rows_total": 1}"#;
    let multiline_page = "{\n  \"rows\": [],\n  \"num_rows_total\": 0\n}";
    let parquet = common::lcb_file(&(0..6).map(|n| common::lcb_row(n, "easy")).collect::<Vec<_>>(), 4);
    let cases: Vec<(&str, Vec<u8>, Format)> = vec![
        ("many.jsonl", many.into_bytes(), Format::Jsonl),
        ("broken.jsonl", broken.into_bytes(), Format::Jsonl),
        ("anything.jsonl", codecrash_file.clone().into_bytes(), Format::CodeCrash),
        ("crux_REN_output.jsonl", cruxeval("sample_0").into_bytes(), Format::CodeCrash),
        ("page.json", page.as_bytes().to_vec(), Format::HfRowsPage),
        ("page.json", multiline_page.as_bytes().to_vec(), Format::HfRowsPage),
        ("lcb.parquet", parquet, Format::Parquet),
        ("empty.jsonl", Vec::new(), Format::Jsonl),
        ("blank.jsonl", b"\n\n  \n".to_vec(), Format::Jsonl),
    ];
    for (name, bytes, format) in &cases {
        let whole = load_dataset(name, bytes);
        assert_eq!(whole.format, *format, "{name}");
        for size in [1, 5, 100, bytes.len().max(1)] {
            assert_eq!(streamed(name, bytes, size), whole, "{name} in chunks of {size}");
        }
        // The page's way: rows loaded as read, or the whole file handed back undecoded for its
        // loader worker (always for Parquet and rows pages, which the page never decodes itself).
        let mut stream = execbench_formats::DatasetStream::new(name);
        stream.feed(bytes);
        let as_read = stream.loads_as_read();
        match stream.finish_rows() {
            Ok(loaded) => assert!(as_read && loaded == whole, "{name}"),
            Err(kept) => assert!(!as_read && kept == *bytes, "{name}"),
        }
        if matches!(format, Format::Parquet | Format::HfRowsPage) {
            assert!(!as_read, "{name} is decoded whole, off the page's thread");
        }
    }
    // Rows are loaded as they arrive for JSON Lines: half the file gives rows already.
    let file = cases[0].1.clone();
    let mut stream = execbench_formats::DatasetStream::new("many.jsonl");
    stream.feed(&file[..file.len() / 2]);
    assert!((20..=25).contains(&stream.rows()), "{}", stream.rows());
}
