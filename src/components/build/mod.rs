//! The Build page's parts: the live funnel chart, the method picker, the table of rejections.

pub mod funnel_chart;
pub mod method_picker;
pub mod rejections;
