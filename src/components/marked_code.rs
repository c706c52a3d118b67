//! Python source with tree-sitter highlighting and some byte ranges marked (the changes a
//! perturbation made), as escaped HTML.

use std::ops::Range;

use leptos::prelude::*;

/// `code` as HTML: each piece keeps its highlight class, and pieces inside a mark are wrapped in
/// `<mark class="changed">`. Empty marks (a pure insertion seen from the other side) are skipped.
pub fn marked_html(code: &str, marks: &[Range<usize>]) -> String {
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
    let marks: Vec<Range<usize>> = marks.iter().filter(|m| m.start < m.end && m.end <= code.len()).cloned().collect();
    let mut cuts: Vec<usize> = vec![0, code.len()];
    cuts.extend(spans.iter().flat_map(|s| [s.start, s.end]));
    cuts.extend(marks.iter().flat_map(|m| [m.start, m.end]));
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
        let marked = marks.iter().any(|m| m.start <= start && end <= m.end);
        if marked {
            html.push_str("<mark class=\"changed\">");
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
        if marked {
            html.push_str("</mark>");
        }
    }
    html
}

fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}

#[component]
pub fn MarkedCodeView(code: String, marks: Vec<Range<usize>>, #[prop(optional)] testid: &'static str) -> impl IntoView {
    let html = marked_html(&code, &marks);
    view! { <pre class="code marked-code" data-testid=testid><code inner_html=html></code></pre> }
}
