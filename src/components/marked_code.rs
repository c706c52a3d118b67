//! Python source with tree-sitter highlighting and some byte ranges marked (the changes a
//! perturbation made), as escaped HTML.

use std::ops::Range;

use leptos::prelude::*;

use super::code_view::escape_into;

/// A changed byte range and the CSS class that colours it (the stage that made the change).
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub range: Range<usize>,
    pub class: &'static str,
}

/// `code` as HTML: each piece keeps its highlight class, and pieces inside a mark are wrapped in
/// `<mark class="changed {class}">` (the first mark that covers them). Empty marks (a pure
/// insertion seen from the other side) are skipped.
pub fn marked_html(code: &str, marks: &[Mark]) -> String {
    let spans: Vec<execbench_highlight::Span> = {
        // Overlapping spans would break the nesting; keep the first of any overlap.
        let mut at = 0;
        execbench_highlight::highlight(code)
            .into_iter()
            .filter(|s| {
                let keep = s.start >= at && s.start < s.end && s.end <= code.len();
                if keep {
                    at = s.end;
                }
                keep
            })
            .collect()
    };
    let marks: Vec<&Mark> = marks.iter().filter(|m| m.range.start < m.range.end && m.range.end <= code.len()).collect();
    let mut cuts: Vec<usize> = vec![0, code.len()];
    cuts.extend(spans.iter().flat_map(|s| [s.start, s.end]));
    cuts.extend(marks.iter().flat_map(|m| [m.range.start, m.range.end]));
    cuts.retain(|&c| code.is_char_boundary(c));
    cuts.sort_unstable();
    cuts.dedup();

    let mut html = String::with_capacity(code.len() * 2);
    let mut span_index = 0;
    for piece in cuts.windows(2) {
        let (start, end) = (piece[0], piece[1]);
        while span_index < spans.len() && spans[span_index].end <= start {
            span_index += 1;
        }
        let class = spans.get(span_index).filter(|s| s.start <= start).map(|s| s.token.class());
        let marked = marks.iter().find(|m| m.range.start <= start && end <= m.range.end);
        if let Some(mark) = marked {
            html.push_str("<mark class=\"changed ");
            html.push_str(mark.class);
            html.push_str("\">");
        }
        if let Some(class) = class {
            html.push_str("<span class=\"");
            html.push_str(class);
            html.push_str("\">");
        }
        escape_into(&code[start..end], &mut html);
        if class.is_some() {
            html.push_str("</span>");
        }
        if marked.is_some() {
            html.push_str("</mark>");
        }
    }
    html
}

#[component]
pub fn MarkedCodeView(code: String, marks: Vec<Mark>, #[prop(optional)] testid: &'static str) -> impl IntoView {
    let html = marked_html(&code, &marks);
    view! { <pre class="code marked-code" data-testid=testid><code inner_html=html></code></pre> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_carry_their_stage_and_the_code_stays_escaped() {
        let code = "x = a < b";
        let marks = [
            Mark { range: 0..1, class: "stage-ren" },
            Mark { range: 4..9, class: "stage-rtf" },
            Mark { range: 3..3, class: "stage-gbc" },
        ];
        let html = marked_html(code, &marks);
        assert!(html.starts_with("<mark class=\"changed stage-ren\">"), "{html}");
        assert!(html.contains("<mark class=\"changed stage-rtf\">"), "{html}");
        assert!(!html.contains("stage-gbc"), "an empty mark is skipped: {html}");
        assert!(html.contains("&lt;") && !html.contains(" < "), "{html}");
    }
}
