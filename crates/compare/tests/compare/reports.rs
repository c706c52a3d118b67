//! The files: CSV quoting and shape (read back with a small RFC 4180 reader written here), the
//! Markdown section and appending to a report, the JSONL pairing.

use crate::common;

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

/// A text cell a spreadsheet would run as a formula gets a `'` first (and is then quoted as any
/// field), so it opens as the text it is. (text from data, field written)
#[test]
fn csv_text_fields_that_begin_a_formula_are_neutralised() {
    let cases = [
        ("=HYPERLINK(\"https://evil\",\"x\")", "\"'=HYPERLINK(\"\"https://evil\"\",\"\"x\"\")\""),
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "\"'\rcmd\""),
        // Only the beginning counts: a name with a dash or `=` inside is left alone.
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("a=b", "a=b"),
    ];
    for (text, expected) in cases {
        let field = csv_field(text);
        assert_eq!(field, expected, "{text:?}");
        // Read back, the field is the text, after a `'` only when one was put there.
        let read = read_csv(&format!("{field}\r\n"));
        assert_eq!(read[0][0].strip_prefix('\'').unwrap_or(&read[0][0]), text, "{text:?} reads back");
    }
}

/// In the table, names and ids from the runs are neutralised; the numbers the table computes are
/// not, so a negative drop stays a number.
#[test]
fn the_csv_neutralises_names_and_ids_but_not_its_numbers() {
    let model = "=HYPERLINK(\"https://evil\",\"open\")";
    let runs = vec![
        run_of("@vanilla", model, "-d.jsonl", None, 20, |i| i < 5),
        // Better than the vanilla run: the drop is negative.
        run_of("+perturbed", model, "-d.jsonl", Some("GBC"), 20, |i| i < 15),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    let records = read_csv(&csv_table(&comparison));
    let header = &records[0];
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let perturbed = &records[2];
    assert_eq!(perturbed[column("model")], format!("'{model}"));
    assert_eq!(
        (perturbed[column("run_id")].as_str(), perturbed[column("vanilla_run_id")].as_str()),
        ("'+perturbed", "'@vanilla")
    );
    assert_eq!(perturbed[column("source")], "'+perturbed.jsonl");
    assert!(perturbed[column("dataset")].starts_with("'-"), "{perturbed:?}");
    let drop = comparison.tables[0].cells[0][1].as_ref().unwrap().drop.as_ref().unwrap();
    assert!(drop.absolute < 0.0, "the perturbed run does better");
    assert_eq!(perturbed[column("drop_abs")], format!("{:.4}", drop.absolute));
    assert!(perturbed[column("drop_abs")].starts_with('-'), "a number, not neutralised");
    assert_eq!(perturbed[column("drop_rel")], format!("{:.4}", drop.relative.unwrap()));
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

/// `|` in `line` that a Markdown reader takes as cell borders (not escaped with a backslash).
fn cell_borders(line: &str) -> usize {
    let (mut count, mut chars) = (0, line.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '|' => count += 1,
            _ => {}
        }
    }
    count
}

/// Model names, run ids, file and dataset names and perturbation names come from run files: in
/// the Markdown section they are text in their cell, in the headings and notes too: no HTML, no
/// link or image, no code span, no extra cell, no new row. (what is hostile, its text)
#[test]
fn hostile_names_stay_text_in_the_markdown_section() {
    let model = "<img src=x onerror=alert(1)>";
    let run_id = "[click](https://evil)";
    let dataset = "![x](https://evil/t.png)\n| forged | row |";
    let kind = "`K` | <b>";
    let runs = vec![
        run_of(run_id, model, dataset, None, 10, |i| i < 8),
        run_of("p", model, dataset, Some(kind), 10, |i| i < 4),
        // The same cell again: the note that names it carries the hostile run id and names.
        run_of(run_id, model, dataset, None, 10, |i| i < 8),
    ];
    let comparison = compare(&runs, &CompareOptions::default());
    assert!(!comparison.notes.is_empty(), "a note names the run left out");
    let section = markdown_section(&comparison, "2026-11-25\n<script>alert(1)</script>");
    for raw in ["<img", "<b>", "<script", "[click]", "](https://", "![x]", "`K`", "\n| forged"] {
        let unescaped = section.match_indices(raw).any(|(at, _)| !section[..at].ends_with('\\'));
        assert!(!unescaped, "{raw:?} is written as it came: {section}");
    }
    assert!(section.contains("\\<img src=x onerror=alert\\(1\\)\\>"), "{section}");
    assert!(section.starts_with("## Comparison 2026-11-25 \\<script\\>"), "{section}");
    // Every table row has as many cell borders as its header.
    let mut header_borders = None;
    for line in section.lines() {
        if !line.starts_with('|') {
            header_borders = None;
            continue;
        }
        let borders = cell_borders(line);
        assert_eq!(borders, *header_borders.get_or_insert(borders), "{line}");
    }
    for line in section.lines().filter(|l| l.starts_with('#') || l.starts_with("- ")) {
        assert!(!line.contains('<') || line.contains("\\<"), "{line}");
    }
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
