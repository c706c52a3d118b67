//! The comparison as files: a dated Markdown section to append to a report, the table as CSV, the
//! per-sample pairing as JSON Lines. Numbers are formatted here, once, for all three.

mod csv;
mod markdown;
mod pairs;

pub use csv::{CSV_HEADER, csv_field, csv_table};
pub use markdown::{append_section, markdown_section};
pub use pairs::{PairLine, pairs_jsonl};

/// A percentage or a number of points with one decimal, never `-0.0`.
pub fn one_decimal(value: f64) -> String {
    let text = format!("{value:.1}");
    if text == "-0.0" { "0.0".to_string() } else { text }
}

/// A p-value for people: four decimals, or `<0.0001`.
pub fn p_value_words(p: f64) -> String {
    if p < 0.0001 { "<0.0001".to_string() } else { format!("{p:.4}") }
}
