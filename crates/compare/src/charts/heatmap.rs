//! A heat map of the relative drop: rows models, columns the perturbed columns, each cell coloured
//! by the bin its drop falls in (ColorBrewer's colour-blind-safe PuOr: orange for losses, purple
//! for gains) and labelled with the drop.

use execbench_eval::score::Mode;

use crate::charts::svg::{coord, escape, open, text_width, title_width};
use crate::report::one_decimal;
use crate::table::Comparison;

/// One colour class: drops below `below` (and at or above the previous bin's) take `fill`, and
/// the text on them `ink`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropBin {
    pub below: f64,
    pub fill: &'static str,
    pub ink: &'static str,
    pub label: &'static str,
}

pub const DROP_BINS: [DropBin; 7] = [
    DropBin { below: -25.0, fill: "#542788", ink: "#ffffff", label: "gain ≥ 25%" },
    DropBin { below: -10.0, fill: "#998ec3", ink: "#000000", label: "gain 10–25%" },
    DropBin { below: -2.0, fill: "#d8daeb", ink: "#000000", label: "gain 2–10%" },
    DropBin { below: 2.0, fill: "#f7f7f7", ink: "#000000", label: "within 2%" },
    DropBin { below: 10.0, fill: "#fee0b6", ink: "#000000", label: "drop 2–10%" },
    DropBin { below: 25.0, fill: "#f1a340", ink: "#000000", label: "drop 10–25%" },
    DropBin { below: f64::INFINITY, fill: "#b35806", ink: "#ffffff", label: "drop ≥ 25%" },
];

pub fn drop_bin(relative: f64) -> &'static DropBin {
    DROP_BINS.iter().find(|bin| relative < bin.below).unwrap_or(&DROP_BINS[DROP_BINS.len() - 1])
}

const CELL_HEIGHT: f64 = 28.0;
const TOP: f64 = 36.0;

/// The relative drop per model and perturbed column in `mode`; `None` when the mode has no table
/// or no column is perturbed.
pub fn drop_heatmap(comparison: &Comparison, mode: Mode) -> Option<String> {
    let table = comparison.table(mode)?;
    let columns: Vec<usize> =
        (0..comparison.columns.len()).filter(|&c| !comparison.columns[c].perturbation.is_vanilla()).collect();
    if columns.is_empty() {
        return None;
    }
    let labels: Vec<String> = columns.iter().map(|&c| comparison.column_label(c)).collect();
    let cell_width = labels.iter().map(|l| text_width(l) + 12.0).fold(64.0, f64::max);
    let left = comparison.models.iter().map(|m| text_width(m) + 16.0).fold(60.0, f64::max);
    let grid_top = TOP + 20.0;
    let grid_bottom = grid_top + CELL_HEIGHT * comparison.models.len() as f64;
    let legend_entry = 18.0 + DROP_BINS.iter().map(|b| text_width(b.label)).fold(0.0, f64::max) + 12.0;
    let title = format!("Relative drop of pass@1 against the vanilla run ({})", mode.label());
    let width =
        (left + cell_width * columns.len() as f64 + 16.0).max(8.0 + legend_entry * 2.0).max(title_width(&title));
    let per_row = (((width - 16.0) / legend_entry).floor() as usize).max(1);
    let legend_rows = DROP_BINS.len().div_ceil(per_row);
    let height = grid_bottom + 16.0 + legend_rows as f64 * 18.0 + 8.0;

    let mut out = open(width, height, &title);
    out.push_str("<g class=\"columns\">\n");
    for (i, label) in labels.iter().enumerate() {
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"currentColor\">{}</text>\n",
            coord(left + cell_width * (i as f64 + 0.5)),
            coord(grid_top - 6.0),
            escape(label)
        ));
    }
    out.push_str("</g>\n<g class=\"cells\">\n");
    for (m, model) in comparison.models.iter().enumerate() {
        let row_top = grid_top + CELL_HEIGHT * m as f64;
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"currentColor\">{}</text>\n",
            coord(left - 8.0),
            coord(row_top + CELL_HEIGHT / 2.0 + 4.0),
            escape(model)
        ));
        for (i, (&c, label)) in columns.iter().zip(&labels).enumerate() {
            let (x, cx, ty) =
                (left + cell_width * i as f64, left + cell_width * (i as f64 + 0.5), row_top + CELL_HEIGHT / 2.0 + 4.0);
            let cell = table.cells[m][c].as_ref();
            let drop = cell.and_then(|cell| cell.drop.as_ref());
            match drop.and_then(|d| d.relative.map(|r| (d, r))) {
                Some((drop, relative)) => {
                    let bin = drop_bin(relative);
                    let title = format!(
                        "{model} · {label}: relative drop {}% ({} pt over {} paired samples, McNemar p {})",
                        one_decimal(relative),
                        one_decimal(drop.absolute),
                        drop.paired,
                        crate::report::p_value_words(drop.mcnemar.p_value)
                    );
                    out.push_str(&format!(
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"currentColor\" stroke-width=\"0.5\"><title>{}</title></rect>\n",
                        coord(x),
                        coord(row_top),
                        coord(cell_width),
                        coord(CELL_HEIGHT),
                        bin.fill,
                        escape(&title)
                    ));
                    out.push_str(&format!(
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\">{}%</text>\n",
                        coord(cx),
                        coord(ty),
                        bin.ink,
                        one_decimal(relative)
                    ));
                }
                None => {
                    let why = match (cell, drop) {
                        (None, _) => "no run",
                        (Some(_), None) => "no paired vanilla run",
                        (Some(_), Some(_)) => "the vanilla figure is 0",
                    };
                    out.push_str(&format!(
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"0.5\" stroke-dasharray=\"3 3\"><title>{} · {}: no drop ({why})</title></rect>\n",
                        coord(x),
                        coord(row_top),
                        coord(cell_width),
                        coord(CELL_HEIGHT),
                        escape(model),
                        escape(label)
                    ));
                    out.push_str(&format!(
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"currentColor\">–</text>\n",
                        coord(cx),
                        coord(ty)
                    ));
                }
            }
        }
    }
    out.push_str("</g>\n<g class=\"legend\">\n");
    for (b, bin) in DROP_BINS.iter().enumerate() {
        let (lx, ly) = (8.0 + legend_entry * (b % per_row) as f64, grid_bottom + 16.0 + 18.0 * (b / per_row) as f64);
        out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"currentColor\" stroke-width=\"0.5\"/><text x=\"{}\" y=\"{}\" fill=\"currentColor\">{}</text>\n",
            coord(lx),
            coord(ly),
            bin.fill,
            coord(lx + 18.0),
            coord(ly + 10.0),
            escape(bin.label)
        ));
    }
    out.push_str("</g>\n</svg>\n");
    Some(out)
}
