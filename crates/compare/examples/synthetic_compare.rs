//! Times `compare` over the benchmark's synthetic input (6 runs × 800 samples × n = 10) and writes
//! its reports and charts to a directory: `cargo run --release -p execbench-compare --example
//! synthetic_compare [OUT_DIR]`. A measurement, not a test.

use std::time::Instant;

use execbench_compare::charts::{drop_heatmap, pass_at_1_chart};
use execbench_compare::report::{csv_table, markdown_section, pairs_jsonl};
use execbench_compare::synthetic::synthetic_runs;
use execbench_compare::{CompareOptions, compare};
use execbench_eval::score::Mode;

fn main() {
    let runs = synthetic_runs(2, 800, 10, 1);
    let started = Instant::now();
    let comparison = compare(&runs, &CompareOptions::default());
    let table_ms = started.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let section = markdown_section(&comparison, "synthetic");
    let (csv, pairs) = (csv_table(&comparison), pairs_jsonl(&comparison));
    let charts: Vec<(String, String)> = [Mode::Strict, Mode::Compatible]
        .into_iter()
        .flat_map(|mode| {
            [
                (format!("pass_at_1-{}.svg", mode.label()), pass_at_1_chart(&comparison, mode)),
                (format!("relative_drop-{}.svg", mode.label()), drop_heatmap(&comparison, mode)),
            ]
        })
        .filter_map(|(name, svg)| Some((name, svg?)))
        .collect();
    let files_ms = started.elapsed().as_secs_f64() * 1000.0;
    println!(
        "{} runs × 800 samples × n = 10, 2 modes: table {table_ms:.1} ms, reports and charts {files_ms:.1} ms",
        runs.len()
    );
    if let Some(dir) = std::env::args().nth(1) {
        std::fs::create_dir_all(&dir).expect("output directory");
        std::fs::write(format!("{dir}/report.md"), &section).expect("report written");
        std::fs::write(format!("{dir}/table.csv"), &csv).expect("table written");
        std::fs::write(format!("{dir}/pairs.jsonl"), &pairs).expect("pairs written");
        for (name, svg) in &charts {
            std::fs::write(format!("{dir}/{name}"), svg).expect("chart written");
        }
    }
}
