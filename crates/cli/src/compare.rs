//! `execbench compare`: compare run files (as `execbench run` writes them and the page exports
//! them): pass@1 with its bootstrap interval, drops against each model's vanilla run and McNemar's
//! test, written as a dated Markdown section appended to a report, and optionally the table as
//! CSV, the per-sample pairing as JSON Lines and the charts as SVG files. The figures and the
//! bytes come from `execbench-compare`, the library the page uses.

use std::collections::BTreeMap;
use std::path::Path;

use execbench_compare::charts::{category_chart, drop_heatmap, pass_at_1_chart};
use execbench_compare::report::{append_section, csv_table, markdown_section, pairs_jsonl};
use execbench_compare::{CompareOptions, DEFAULT_BOOTSTRAP, RunInput, compare};
use serde_json::Value;

use crate::args::Args;

pub const USAGE: &str = "execbench compare RUN.jsonl... --out REPORT.md [--csv TABLE.csv] [--pairs PAIRS.jsonl] [--svg-dir DIR] [--seed N] [--bootstrap B] [--categories DATASET.jsonl [--category-field FIELD]] [--date TEXT]";

const KNOWN_FLAGS: &[&str] =
    &["out", "csv", "pairs", "svg-dir", "seed", "bootstrap", "categories", "category-field", "date"];

/// The run files (arguments that are not flags) and the flags. Every flag of this command takes
/// a value, so `--flag value` pairs are set aside and the rest are run files.
fn split_arguments(raw: &[String]) -> Result<(Vec<String>, Args), String> {
    let (mut files, mut flags) = (Vec::new(), Vec::new());
    let mut iter = raw.iter();
    while let Some(arg) = iter.next() {
        if arg.starts_with("--") {
            flags.push(arg.clone());
            if !arg.contains('=') {
                flags.push(iter.next().ok_or(format!("{arg} needs a value"))?.clone());
            }
        } else {
            files.push(arg.clone());
        }
    }
    Ok((files, Args::parse(&flags, &[])?))
}

struct Settings {
    files: Vec<String>,
    out: String,
    csv: Option<String>,
    pairs: Option<String>,
    svg_dir: Option<String>,
    seed: u64,
    bootstrap: usize,
    categories: Option<(String, String)>,
    date: String,
}

fn settings(raw: &[String]) -> Result<Settings, String> {
    let (files, args) = split_arguments(raw)?;
    args.reject_unknown(KNOWN_FLAGS)?;
    if files.is_empty() {
        return Err("give at least one run file".to_string());
    }
    let bootstrap: usize = args.number("bootstrap", DEFAULT_BOOTSTRAP)?;
    if bootstrap > 1_000_000 {
        return Err(format!("--bootstrap must be at most 1000000, got {bootstrap}"));
    }
    let owned = |name: &str| args.optional(name).map(str::to_string);
    let categories =
        owned("categories").map(|file| (file, owned("category-field").unwrap_or_else(|| "category".to_string())));
    if categories.is_none() && args.optional("category-field").is_some() {
        return Err("--category-field needs --categories".to_string());
    }
    Ok(Settings {
        files,
        out: args.required("out")?.to_string(),
        csv: owned("csv"),
        pairs: owned("pairs"),
        svg_dir: owned("svg-dir"),
        seed: args.number("seed", 0)?,
        bootstrap,
        categories,
        date: owned("date").unwrap_or_else(today_utc),
    })
}

/// Today as `YYYY-MM-DD` in UTC.
fn today_utc() -> String {
    utc_date(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()))
}

/// Seconds since 1970 as a UTC calendar date (Howard Hinnant's days-to-civil algorithm).
fn utc_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
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

pub fn run(raw: &[String]) -> Result<i32, String> {
    let settings = settings(raw)?;
    let mut runs = Vec::new();
    for file in &settings.files {
        runs.push(RunInput::parse(file, &read(file)?)?);
    }
    let categories = match &settings.categories {
        Some((file, field)) => {
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

    let section = markdown_section(&comparison, &settings.date);
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

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn run_files_are_the_arguments_that_are_not_flags() {
        let s = settings(&strings(&[
            "a.jsonl",
            "--out",
            "r.md",
            "b.jsonl",
            "--seed=3",
            "--bootstrap",
            "10",
            "c.jsonl",
            "--date",
            "d",
        ]))
        .unwrap();
        assert_eq!(s.files, strings(&["a.jsonl", "b.jsonl", "c.jsonl"]));
        assert_eq!((s.out.as_str(), s.seed, s.bootstrap, s.date.as_str()), ("r.md", 3, 10, "d"));
        let errors: &[(&[&str], &str)] = &[
            (&["--out", "r.md"], "give at least one run file"),
            (&["a.jsonl"], "--out is required"),
            (&["a.jsonl", "--out"], "--out needs a value"),
            (&["a.jsonl", "--out", "r.md", "--nope", "1"], "unknown flag --nope"),
            (&["a.jsonl", "--out", "r.md", "--bootstrap", "many"], "--bootstrap expects a number, got `many`"),
            (&["a.jsonl", "--out", "r.md", "--category-field", "x"], "--category-field needs --categories"),
        ];
        for (raw, message) in errors {
            assert_eq!(settings(&strings(raw)).err().as_deref(), Some(*message), "{raw:?}");
        }
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

    /// Dates checked against Python's `datetime.fromtimestamp(s, timezone.utc)`.
    #[test]
    fn seconds_become_utc_dates() {
        let cases = [
            (0, "1970-01-01"),
            (951_782_400, "2000-02-29"),
            (951_868_800, "2000-03-01"),
            (1_764_028_800, "2025-11-25"),
            (4_102_444_799, "2099-12-31"),
        ];
        for (secs, date) in cases {
            assert_eq!(utc_date(secs), date, "{secs}");
        }
    }
}
