//! Python source with tree-sitter highlighting (crates/highlight), as escaped HTML.

use leptos::prelude::*;

/// Turns code into HTML: highlighted spans, everything escaped.
pub fn highlighted_html(code: &str) -> String {
    let mut html = String::with_capacity(code.len() * 2);
    let mut at = 0;
    for span in execbench_highlight::highlight(code) {
        if span.start < at || !code.is_char_boundary(span.start) || !code.is_char_boundary(span.end) {
            continue;
        }
        escape_into(&code[at..span.start], &mut html);
        html.push_str("<span class=\"");
        html.push_str(span.token.class());
        html.push_str("\">");
        escape_into(&code[span.start..span.end], &mut html);
        html.push_str("</span>");
        at = span.end;
    }
    escape_into(&code[at..], &mut html);
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
pub fn CodeView(#[prop(into)] code: Signal<String>) -> impl IntoView {
    view! { <pre class="code"><code inner_html=move || highlighted_html(&code.get())></code></pre> }
}
