//! `execbench compare`: compare run files (as `execbench run` writes them and the page exports
//! them): pass@1 with its bootstrap interval, drops against each model's vanilla run and McNemar's
//! test, written as a dated Markdown section appended to a report, and optionally the table as
//! CSV, the per-sample pairing as JSON Lines and the charts as SVG files. The figures and the
//! bytes come from `execbench-compare`, the library the page uses.

use std::collections::BTreeMap;
use std::path::Path;

use execbench_compare::charts::{category_chart, drop_heatmap, pass_at_1_chart, question_kinds_chart};
use execbench_compare::report::{append_section, csv_table, markdown_section, pairs_jsonl};
use execbench_compare::{CompareOptions, DEFAULT_BOOTSTRAP, RunInput, compare};
use serde_json::Value;

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The run files (as `execbench run` writes them and the page exports them)
    #[arg(value_name = "RUN.jsonl", required = true)]
    files: Vec<String>,
    /// The Markdown report; a section is appended when it exists
    #[arg(long, value_name = "REPORT.md")]
    out: String,
    /// Also the table as CSV
    #[arg(long, value_name = "TABLE.csv")]
    csv: Option<String>,
    /// Also the per-sample pairing as JSON Lines
    #[arg(long, value_name = "PAIRS.jsonl")]
    pairs: Option<String>,
    /// Also the charts, as SVG files in this directory
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<String>,
    /// The bootstrap's seed
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Bootstrap resamples (at most 1000000)
    #[arg(long, value_name = "B", default_value_t = DEFAULT_BOOTSTRAP)]
    bootstrap: usize,
    /// A dataset file whose rows give each sample's category
    #[arg(long, value_name = "DATASET.jsonl")]
    categories: Option<String>,
    /// The categories' field [default: category]
    #[arg(long, value_name = "FIELD", requires = "categories")]
    category_field: Option<String>,
    /// The section's date [default: today, UTC]
    #[arg(long, value_name = "TEXT")]
    date: Option<String>,
}

/// The ranges clap does not check.
fn check(args: &CompareArgs) -> Result<(), String> {
    if args.bootstrap > 1_000_000 {
        return Err(format!("--bootstrap must be at most 1000000, got {}", args.bootstrap));
    }
    Ok(())
}

/// Today as `YYYY-MM-DD` in UTC.
fn today_utc() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    execbench_formats::datetime::date_text((secs / 86_400) as i64)
}

/// Original sample id → category from a dataset file: each row's `id` (or `task_id`,
/// `question_id`) and `field` (a string or a number). Errors name the file, line and field.
pub fn read_categories(file: &str, text: &str, field: &str) -> Result<BTreeMap<String, String>, String> {
    let mut categories = BTreeMap::new();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = format!("{file}:{}", index + 1);
        let row: Value = serde_json::from_str(line).map_err(|e| format!("{at}: not JSON ({e})"))?;
        let text_of = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let id = ["id", "task_id", "question_id"]
            .iter()
            .find_map(|k| row.get(*k).and_then(text_of))
            .ok_or(format!("{at}: field `id`: missing (also looked for `task_id`, `question_id`)"))?;
        match row.get(field) {
            None | Some(Value::Null) => continue,
            Some(value) => {
                let category = text_of(value).ok_or(format!("{at}: field `{field}`: expected a string or a number"))?;
                categories.insert(id, category);
            }
        }
    }
    Ok(categories)
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn write(path: &str, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))
}

pub fn run(settings: &CompareArgs) -> Result<i32, String> {
    check(settings)?;
    let mut runs = Vec::new();
    for file in &settings.files {
        runs.push(RunInput::parse(file, &read(file)?)?);
    }
    let categories = match &settings.categories {
        Some(file) => {
            let field = settings.category_field.as_deref().unwrap_or("category");
            let categories = read_categories(file, &read(file)?, field)?;
            if categories.is_empty() {
                eprintln!("{file}: no row has a `{field}` field: no per-category figures");
            }
            categories
        }
        None => BTreeMap::new(),
    };
    let options = CompareOptions { seed: settings.seed, bootstrap: settings.bootstrap, categories };
    let comparison = compare(&runs, &options);
    for note in &comparison.notes {
        eprintln!("note: {note}");
    }

    let date = settings.date.clone().unwrap_or_else(today_utc);
    let section = markdown_section(&comparison, &date);
    let appended = Path::new(&settings.out).exists();
    let report = if appended { append_section(&read(&settings.out)?, &section) } else { section };
    write(&settings.out, &report)?;
    let mut written = vec![format!("{} ({})", settings.out, if appended { "section appended" } else { "new" })];
    if let Some(path) = &settings.csv {
        write(path, &csv_table(&comparison))?;
        written.push(path.clone());
    }
    if let Some(path) = &settings.pairs {
        write(path, &pairs_jsonl(&comparison))?;
        written.push(path.clone());
    }
    if let Some(dir) = &settings.svg_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
        for table in &comparison.tables {
            let mode = table.mode.label();
            let charts = [
                ("pass_at_1", pass_at_1_chart(&comparison, table.mode)),
                ("relative_drop", drop_heatmap(&comparison, table.mode)),
                ("categories", category_chart(&comparison, table.mode)),
                ("question_kinds", question_kinds_chart(&comparison, table.mode)),
            ];
            for (name, svg) in charts {
                let Some(svg) = svg else { continue };
                let path = Path::new(dir).join(format!("{name}-{mode}.svg"));
                write(&path.to_string_lossy(), &svg)?;
                written.push(path.to_string_lossy().into_owned());
            }
        }
    }
    println!(
        "compared {} runs: {} models × {} columns, {} pairs; wrote {}",
        runs.len(),
        comparison.models.len(),
        comparison.columns.len(),
        comparison.pairs.len(),
        written.join(", ")
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use clap::error::ErrorKind;

    use crate::cli::Command;

    fn parsed(raw: &[&str]) -> Result<CompareArgs, clap::Error> {
        match crate::cli::parse_from([&["execbench", "compare"][..], raw].concat())?.command {
            Command::Compare(args) => Ok(args),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn run_files_are_the_arguments_that_are_not_flags() {
        let s =
            parsed(&["a.jsonl", "--out", "r.md", "b.jsonl", "--seed=3", "--bootstrap", "10", "c.jsonl", "--date", "d"])
                .unwrap();
        assert_eq!(s.files, ["a.jsonl", "b.jsonl", "c.jsonl"]);
        assert_eq!((s.out.as_str(), s.seed, s.bootstrap, s.date.as_deref()), ("r.md", 3, 10, Some("d")));
        // What clap refuses, naming what is at fault.
        let refused: &[(&[&str], ErrorKind, &str)] = &[
            (&["--out", "r.md"], ErrorKind::MissingRequiredArgument, "RUN.jsonl"),
            (&["a.jsonl"], ErrorKind::MissingRequiredArgument, "--out"),
            (&["a.jsonl", "--out"], ErrorKind::InvalidValue, "--out"),
            (&["a.jsonl", "--out", "r.md", "--nope", "1"], ErrorKind::UnknownArgument, "--nope"),
            (&["a.jsonl", "--out", "r.md", "--bootstrap", "many"], ErrorKind::ValueValidation, "--bootstrap"),
            (
                &["a.jsonl", "--out", "r.md", "--category-field", "x"],
                ErrorKind::MissingRequiredArgument,
                "--categories",
            ),
        ];
        for (raw, kind, named) in refused {
            let err = parsed(raw).expect_err("refused");
            assert_eq!(err.kind(), *kind, "{raw:?}: {err}");
            assert!(err.to_string().contains(named), "{raw:?}: {err}");
        }
        let too_many = parsed(&["a.jsonl", "--out", "r.md", "--bootstrap", "1000001"]).unwrap();
        assert_eq!(check(&too_many), Err("--bootstrap must be at most 1000000, got 1000001".to_string()));
    }

    #[test]
    fn categories_come_from_the_rows_with_errors_naming_line_and_field() {
        let text =
            "{\"id\": \"s0\", \"category\": \"easy\"}\n\n{\"task_id\": \"s1\", \"category\": 3}\n{\"id\": \"s2\"}\n";
        let got = read_categories("d.jsonl", text, "category").unwrap();
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            vec![("s0".to_string(), "easy".to_string()), ("s1".to_string(), "3".to_string())]
        );
        let cases = [
            ("{\"id\": \"s0\", \"category\": [1]}", "d.jsonl:1: field `category`: expected a string or a number"),
            (
                "{\"id\": \"s0\"}\n{\"category\": \"x\"}",
                "d.jsonl:2: field `id`: missing (also looked for `task_id`, `question_id`)",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(read_categories("d.jsonl", text, "category").unwrap_err(), message);
        }
        assert!(read_categories("d.jsonl", "{oops", "category").unwrap_err().starts_with("d.jsonl:1: not JSON"));
    }

    #[test]
    fn today_is_a_calendar_date() {
        let today = today_utc();
        let parts: Vec<&str> = today.split('-').collect();
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [4, 2, 2], "{today}");
        assert!(parts[0] >= "2025", "{today}");
    }
}
