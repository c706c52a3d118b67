//! The files: CSV quoting and shape (read back with a small RFC 4180 reader written here), the
//! Markdown section and appending to a report, the JSONL pairing.

mod common;

use common::run_of;
use execbench_compare::report::{CSV_HEADER, append_section, csv_field, csv_table, markdown_section, pairs_jsonl};
use execbench_compare::{CompareOptions, compare};

/// RFC 4180 records: fields split on commas outside quotes, `""` inside quotes is a quote, records
/// end with CRLF.
fn read_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let (mut record, mut field, mut quoted, mut chars) = (Vec::new(), String::new(), false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {
                assert_eq!(chars.next(), Some('\n'), "CR without LF");
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => {
                assert!(c != '\n', "a bare LF ends no record in RFC 4180");
                field.push(c);
            }
        }
    }
    assert!(record.is_empty() && field.is_empty(), "the last record ends with CRLF");
    records
}

#[test]
fn csv_fields_are_quoted_only_when_rfc_4180_requires() {
    let cases = [
        ("plain", "plain"),
        ("", ""),
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\nlines", "\"two\nlines\""),
        ("cr\r", "\"cr\r\""),
        ("gpt-4o · REN", "gpt-4o · REN"),
    ];
    for (text, expected) in cases {
        assert_eq!(csv_field(text), expected, "{text:?}");
        assert_eq!(read_csv(&format!("{}\r\n", csv_field(text))), vec![vec![text.to_string()]], "{text:?} reads back");
    }
}

#[test]
fn the_csv_has_one_header_and_one_line_per_cell() {
    let runs = vec![
        run_of("v", "model, \"quoted\"", "d.jsonl", None, 20, |i| i % 4 != 0),
        run_of("p", "model, \"quoted\"", "d.jsonl", Some("GBC"), 20, |i| i % 2 == 0),
        run_of("w", "plain", "d.jsonl", None, 20, |i| i < 3),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    let records = read_csv(&csv_table(&comparison));
    let header: Vec<String> = CSV_HEADER.split(',').map(String::from).collect();
    assert_eq!(records[0], header);
    assert_eq!(records.len(), 1 + 3, "three cells");
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    for record in &records {
        assert_eq!(record.len(), header.len());
    }
    let perturbed = &records[2];
    assert_eq!(
        (
            perturbed[column("model")].as_str(),
            perturbed[column("perturbation")].as_str(),
            perturbed[column("vanilla_run_id")].as_str()
        ),
        ("model, \"quoted\"", "GBC", "v")
    );
    let table = comparison.tables[0].cells[0][1].as_ref().unwrap();
    let drop = table.drop.as_ref().unwrap();
    assert_eq!(perturbed[column("drop_abs")], format!("{:.4}", drop.absolute));
    assert_eq!(perturbed[column("mcnemar_b")], drop.mcnemar.b.to_string());
    assert_eq!(records[1][column("drop_abs")], "", "a vanilla cell has no drop");
    assert_eq!(records[3][column("model")], "plain");
}

#[test]
fn markdown_sections_append_without_touching_what_is_there() {
    // (existing text, expected text before the section)
    let cases = [
        ("", ""),
        ("# Results\n", "# Results\n\n"),
        ("# Results", "# Results\n\n"),
        ("# Results\n\n", "# Results\n\n"),
        ("a\n\n\n", "a\n\n\n"),
    ];
    for (existing, prefix) in cases {
        assert_eq!(append_section(existing, "## Comparison x\n"), format!("{prefix}## Comparison x\n"), "{existing:?}");
    }
    let runs = vec![
        run_of("v", "m|1", "d.jsonl", None, 10, |i| i < 8),
        run_of("p", "m|1", "d.jsonl", Some("MHC"), 10, |i| i < 4),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    let first = markdown_section(&comparison, "2026-11-25");
    let second = markdown_section(&comparison, "2026-11-26");
    let report = append_section(&append_section("", &first), &second);
    assert!(report.starts_with("## Comparison 2026-11-25\n\n"));
    assert_eq!(report.matches("## Comparison ").count(), 2);
    assert!(report.contains("\n\n## Comparison 2026-11-26\n\n"));
    // The table: header, separator, one row per model; `|` in a name escaped.
    assert!(first.contains("### strict\n\n| model | vanilla | MHC |\n|---|---:|---:|\n| m\\|1 | 80.0 ["), "{first}");
    let drop = comparison.tables[0].cells[0][1].as_ref().unwrap().drop.as_ref().unwrap();
    assert_eq!((drop.mcnemar.b, drop.mcnemar.c), (4, 0));
    assert!(first.contains("; drop 40.0 pt (50.0%), p 0.1250 |"), "{first}");
    assert!(first.contains("| m\\|1 | MHC | 10 | 4 | 0 | 0.1250 |"), "flipped counts: {first}");
}

#[test]
fn the_pairing_jsonl_has_one_line_per_pair_and_sample() {
    let runs = vec![
        run_of("v", "m", "d.jsonl", None, 3, |i| i != 1),
        run_of("r", "m", "d.jsonl", Some("REN"), 3, |i| i == 1),
        run_of("c", "m", "d.jsonl", Some("MCC"), 2, |_| true),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    let text = pairs_jsonl(&comparison);
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3 + 2);
    assert_eq!(
        text.lines().next().unwrap(),
        r#"{"mode":"strict","model":"m","dataset":"d","task":"output","perturbation":"REN","vanilla_run":"v","perturbed_run":"r","original_id":"sample_0","vanilla_right":true,"perturbed_right":false}"#
    );
    let got: Vec<(String, String, bool, bool)> = lines
        .iter()
        .map(|l| {
            (
                l["perturbation"].as_str().unwrap().into(),
                l["original_id"].as_str().unwrap().into(),
                l["vanilla_right"].as_bool().unwrap(),
                l["perturbed_right"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, String, bool, bool)> = [
        ("REN", "sample_0", true, false),
        ("REN", "sample_1", false, true),
        ("REN", "sample_2", true, false),
        ("MCC", "sample_0", true, true),
        ("MCC", "sample_1", false, true),
    ]
    .into_iter()
    .map(|(p, id, v, r)| (p.to_string(), id.to_string(), v, r))
    .collect();
    assert_eq!(got, expected);
}
