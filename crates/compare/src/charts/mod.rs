//! Charts as SVG text, drawn without a browser: grouped bars of pass@1 per model × column with
//! error bars, a heat map of the relative drop, per-category bars, per-kind bars of question runs. Readable in light and dark
//! themes: text, axes and error bars use `currentColor` (the page's text colour); fills come from
//! fixed colour-blind-safe palettes, and text drawn on a fill gets a fixed colour chosen for that
//! fill. Each chart has a `<title>` (its accessible name), each bar or cell its own `<title>`, and a
//! `viewBox` so it scales.

mod bars;
mod heatmap;
mod svg;

pub use bars::{Bar, GroupedBars, category_chart, grouped_bars, pass_at_1_chart, question_kinds_chart};
pub use heatmap::{DROP_BINS, DropBin, drop_bin, drop_heatmap};
pub use svg::{SERIES_PALETTE, escape};
