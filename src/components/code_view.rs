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

/// Appends `text` escaped for HTML text and attribute values: the app's one escaping function.
pub fn escape_into(text: &str, out: &mut String) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Removes the tags and undoes the escaping: what a person reads on the page.
    fn text_of(html: &str) -> String {
        let mut text = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                _ if !in_tag => text.push(c),
                _ => {}
            }
        }
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
    }

    #[test]
    fn the_page_shows_the_code_exactly_and_markup_in_it_stays_text() {
        let cases = [
            "def f(x):\n    return x < \"<b>bold</b>\" and x & 1\n",
            "def f(s):\n    # a <script>alert(1)</script> comment\n    return s.replace('&amp;', '&')\n",
            "def f():\n    return 'é ünïcode → ok'\n",
            "x = 1 +\n", // does not parse: still shown as written
            "",
        ];
        for code in cases {
            let html = highlighted_html(code);
            assert_eq!(text_of(&html), code, "{html}");
            assert!(!html.contains("<b>") && !html.contains("<script"), "markup leaked: {html}");
        }
        let html = highlighted_html("def f(x):\n    return x\n");
        assert!(html.starts_with("<span class=\"tok-keyword\">def</span>"), "{html}");
    }
}
