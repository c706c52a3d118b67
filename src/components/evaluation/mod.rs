//! Components of the Evaluate page (src/pages/evaluate.rs): the results summary and bar chart, the
//! per-sample table, and the exports.
