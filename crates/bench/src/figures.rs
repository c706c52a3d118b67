//! The benchmark's figures as data: each section records what it measured as [`Figure`]s, and
//! `--json FILE` writes them all as one JSON list for scripts, beside the Markdown tables people
//! read. Tables of the shape `| metric | execbench | reference | ratio | target | met |` are
//! printed from the same figures ([`markdown_table`]), so the two can never disagree.

use std::sync::Mutex;

use serde_json::{Value, json};

/// A measured amount: a time, a size, or something counted that is neither (`800/800`).
#[derive(Clone, Debug, PartialEq)]
pub enum Amount {
    Ms(f64),
    Bytes(u64),
    Text(String),
}

impl Amount {
    /// As the Markdown tables show it.
    fn display(&self) -> String {
        match self {
            // A failed measurement's NaN, as in the JSON (null).
            Amount::Ms(ms) if !ms.is_finite() => "-".into(),
            Amount::Ms(ms) => format!("{ms:.0} ms"),
            Amount::Bytes(bytes) => format!("{:.2} MB", *bytes as f64 / 1e6),
            Amount::Text(text) => text.clone(),
        }
    }

    /// The JSON field for `who` (`execbench` or `reference`): times in `_ms`, sizes in `_bytes`.
    fn json_field(&self, who: &str) -> (String, Value) {
        match self {
            Amount::Ms(ms) => (format!("{who}_ms"), number(*ms)),
            Amount::Bytes(bytes) => (format!("{who}_bytes"), json!(bytes)),
            Amount::Text(text) => (format!("{who}_text"), json!(text)),
        }
    }
}

/// One row of a table: execbench's figure against a reference's (another engine, CPython, one
/// job), and the target the issue set, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub section: String,
    pub metric: String,
    /// `None` when the measurement failed.
    pub execbench: Option<Amount>,
    /// What execbench is measured against (`Pyodide`, `CPython`, `--jobs 1`, `ideal`).
    pub reference: Option<String>,
    pub reference_amount: Option<Amount>,
    /// execbench over the reference.
    pub ratio: Option<f64>,
    /// The target in words (`<= 1.0`, `800/800 (ours)`).
    pub target: Option<String>,
    pub met: Option<bool>,
}

impl Figure {
    /// A figure with nothing to compare it against: no reference, ratio or target.
    pub fn alone(section: &str, metric: impl Into<String>, execbench: Option<Amount>) -> Figure {
        Figure {
            section: section.into(),
            metric: metric.into(),
            execbench,
            reference: None,
            reference_amount: None,
            ratio: None,
            target: None,
            met: None,
        }
    }

    /// The object scripts read, field by field in this order: `section`, `metric`, `execbench_ms`
    /// (or `_bytes`), `reference`, `reference_ms` (or `_bytes`), `ratio`, `target`, `met`; null
    /// where there is nothing.
    fn fields(&self) -> Vec<(String, Value)> {
        let (execbench_key, execbench) =
            self.execbench.as_ref().map_or(("execbench_ms".into(), Value::Null), |a| a.json_field("execbench"));
        let (reference_key, reference) = match (&self.reference_amount, &self.execbench) {
            (Some(amount), _) => amount.json_field("reference"),
            (None, Some(Amount::Bytes(_))) => ("reference_bytes".into(), Value::Null),
            (None, _) => ("reference_ms".into(), Value::Null),
        };
        vec![
            ("section".to_string(), json!(self.section)),
            ("metric".to_string(), json!(self.metric.trim())),
            (execbench_key, execbench),
            ("reference".to_string(), json!(self.reference)),
            (reference_key, reference),
            ("ratio".to_string(), self.ratio.map_or(Value::Null, number)),
            ("target".to_string(), json!(self.target)),
            ("met".to_string(), json!(self.met)),
        ]
    }

    /// One JSON object, written by hand so the fields keep their order (`serde_json` sorts an
    /// object's keys unless a feature says otherwise).
    fn json_text(&self) -> String {
        let parts: Vec<String> =
            self.fields().into_iter().map(|(key, value)| format!("{}: {value}", json!(key))).collect();
        format!("{{{}}}", parts.join(", "))
    }

    fn markdown_row(&self) -> String {
        let or_dash = |text: Option<String>| text.unwrap_or_else(|| "-".into());
        let met = match self.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "-",
        };
        format!(
            "| {} | {} | {} | {} | {} | {met} |",
            self.metric,
            or_dash(self.execbench.as_ref().map(Amount::display)),
            or_dash(self.reference_amount.as_ref().map(Amount::display)),
            or_dash(self.ratio.filter(|r| r.is_finite()).map(|r| format!("{r:.2}"))),
            or_dash(self.target.clone()),
        )
    }
}

/// A number, or null when it is not one (a failed measurement's NaN).
fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// `| metric | execbench | <reference> | ratio | target | met |`, one row a figure.
pub fn markdown_table(reference: &str, figures: &[Figure]) -> String {
    let mut lines = vec![
        format!("| metric | execbench | {reference} | ratio | target | met |"),
        "|---|---:|---:|---:|---|---|".to_string(),
    ];
    lines.extend(figures.iter().map(Figure::markdown_row));
    lines.join("\n")
}

/// Every figure recorded so far by the sections of this run, in the order they were recorded.
static RECORDED: Mutex<Vec<Figure>> = Mutex::new(Vec::new());

pub fn record(figures: impl IntoIterator<Item = Figure>) {
    RECORDED.lock().expect("figures lock").extend(figures);
}

/// The JSON list of every recorded figure, one object per line.
pub fn recorded_json() -> String {
    json_list(&RECORDED.lock().expect("figures lock"))
}

fn json_list(figures: &[Figure]) -> String {
    let rows: Vec<String> = figures.iter().map(Figure::json_text).collect();
    format!("[\n{}\n]\n", rows.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> Vec<Figure> {
        let row = |metric: &str,
                   ours: Option<Amount>,
                   theirs: Option<Amount>,
                   ratio: Option<f64>,
                   target: Option<&str>,
                   met: Option<bool>| Figure {
            section: "engine".into(),
            metric: metric.into(),
            execbench: ours,
            reference: Some("Pyodide".into()),
            reference_amount: theirs,
            ratio,
            target: target.map(String::from),
            met,
        };
        vec![
            row(
                "ready from a cold page",
                Some(Amount::Ms(120.4)),
                Some(Amount::Ms(1600.0)),
                Some(0.075),
                Some("<= 0.2"),
                Some(true),
            ),
            row(
                "  warm pass, inside the engine",
                Some(Amount::Ms(95.0)),
                Some(Amount::Ms(90.0)),
                Some(f64::NAN),
                None,
                None,
            ),
            row(
                "samples passing",
                Some(Amount::Text("800/800".into())),
                Some(Amount::Text("800/800".into())),
                None,
                Some("800/800 (ours)"),
                Some(true),
            ),
            row(
                "transfer, brotli (page vs engine)",
                Some(Amount::Bytes(4_300_000)),
                Some(Amount::Bytes(5_500_000)),
                Some(0.78),
                Some("<= 1"),
                Some(true),
            ),
            row("worker restart to ready", None, None, None, None, None),
        ]
    }

    /// Each Markdown row and its JSON object say the same thing, field by field.
    #[test]
    fn json_rows_match_the_table_rows() {
        let figures = figures();
        let table = markdown_table("Pyodide", &figures);
        let rows: Vec<Vec<String>> = table
            .lines()
            .skip(2)
            .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
            .collect();
        let objects: Vec<Value> = serde_json::from_str(&json_list(&figures)).expect("valid JSON");
        assert_eq!(rows.len(), objects.len());
        for (row, object) in rows.iter().zip(&objects) {
            assert_eq!(object["section"], "engine");
            assert_eq!(row[0], object["metric"].as_str().unwrap(), "{row:?}");
            let shown = |who: &str| {
                if let Some(ms) = object[format!("{who}_ms")].as_f64() {
                    format!("{ms:.0} ms")
                } else if let Some(bytes) = object[format!("{who}_bytes")].as_u64() {
                    format!("{:.2} MB", bytes as f64 / 1e6)
                } else {
                    object[format!("{who}_text")].as_str().unwrap_or("-").to_string()
                }
            };
            assert_eq!(
                (row[1].as_str(), row[2].as_str()),
                (shown("execbench").as_str(), shown("reference").as_str()),
                "{row:?}"
            );
            assert_eq!(row[3], object["ratio"].as_f64().map_or("-".into(), |r| format!("{r:.2}")));
            assert_eq!(row[4], object["target"].as_str().unwrap_or("-"));
            let met = match object["met"].as_bool() {
                Some(true) => "yes",
                Some(false) => "**no**",
                None => "-",
            };
            assert_eq!(row[5], met);
        }
    }

    #[test]
    fn the_json_fields_are_the_documented_ones() {
        let text = json_list(&figures());
        let objects: Vec<Value> = serde_json::from_str(&text).unwrap();
        // In the order written, whatever order a parsed object keeps.
        let keys = |i: usize| {
            let line = text.lines().nth(i + 1).unwrap();
            objects[i]
                .as_object()
                .unwrap()
                .keys()
                .map(|k| (line.find(&format!("\"{k}\":")).unwrap(), k.clone()))
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_values()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(0),
            ["section", "metric", "execbench_ms", "reference", "reference_ms", "ratio", "target", "met"]
        );
        assert_eq!(
            keys(3),
            ["section", "metric", "execbench_bytes", "reference", "reference_bytes", "ratio", "target", "met"]
        );
        assert_eq!(objects[0]["execbench_ms"], 120.4);
        assert_eq!(objects[3]["reference_bytes"], 5_500_000);
        // A NaN (a failed measurement) is null, never invalid JSON.
        assert_eq!(objects[1]["ratio"], Value::Null);
        assert_eq!((objects[4]["execbench_ms"].clone(), objects[4]["met"].clone()), (Value::Null, Value::Null));
        assert_eq!(objects[1]["metric"], "warm pass, inside the engine");
    }

    #[test]
    fn recorded_figures_come_out_in_order() {
        // Recorded second first, so that a list sorted any other way than by recording fails.
        let [first, second, ..] = &figures()[..] else { panic!("two figures") };
        record([second.clone()]);
        record([first.clone()]);
        let objects: Vec<Value> = serde_json::from_str(&recorded_json()).unwrap();
        let metrics: Vec<&str> = objects.iter().filter_map(|o| o["metric"].as_str()).collect();
        let at = |metric: &str| metrics.iter().position(|m| *m == metric.trim()).expect("recorded");
        assert!(at(&second.metric) < at(&first.metric), "in recording order: {metrics:?}");
        assert_eq!(objects.len(), metrics.len(), "each object has its metric");
    }
}
