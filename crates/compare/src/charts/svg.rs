//! What every chart shares: the palette, escaping, coordinates, the opening of the document.

/// Okabe and Ito's colour-blind-safe palette, black left out (it vanishes on a dark page). Series
/// take the colours in this order and wrap after eight.
pub const SERIES_PALETTE: [&str; 8] =
    ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];

/// Text as XML character data or an attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most one decimal and no trailing `.0`.
pub fn coord(value: f64) -> String {
    let text = format!("{:.1}", value);
    let text = text.strip_suffix(".0").unwrap_or(&text).to_string();
    if text == "-0" { "0".to_string() } else { text }
}

/// A rough text width for the 12 px sans-serif the charts use: enough to lay labels out.
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.0
}

/// The width the chart's title needs (14 px bold) with its margins: no chart is narrower.
pub fn title_width(title: &str) -> f64 {
    title.chars().count() as f64 * 8.5 + 16.0
}

/// The document's opening: size, viewBox, role, font, and its title (shown and as `<title>`).
pub fn open(width: f64, height: f64, title: &str) -> String {
    let (w, h) = (coord(width), coord(height));
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\" fill=\"currentColor\">\n\
         <title>{t}</title>\n\
         <text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\" fill=\"currentColor\">{t}</text>\n",
        t = escape(title)
    )
}

/// `text` broken into lines of at most `max_chars` at spaces (a longer word is cut across lines),
/// so a whole name shows under a bar group instead of a cut one.
pub fn wrapped(text: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        let fits = line.chars().count() + usize::from(!line.is_empty()) + word.len() <= max_chars;
        if !fits && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > max_chars {
            lines.push(word.drain(..max_chars).collect());
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.extend(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::wrapped;

    #[test]
    fn names_wrap_at_spaces_and_long_words_are_cut_across_lines() {
        let cases: [(&str, usize, &[&str]); 5] = [
            ("mock-model", 20, &["mock-model"]),
            ("mock-model · 127.0.0.1:8080 · output-direct", 16, &["mock-model ·", "127.0.0.1:8080 ·", "output-direct"]),
            ("abcdefghij", 4, &["abcd", "efgh", "ij"]),
            ("", 5, &[""]),
            ("a b c", 3, &["a b", "c"]),
        ];
        for (text, max, lines) in cases {
            assert_eq!(wrapped(text, max), lines.to_vec(), "{text:?} at {max}");
        }
    }
}
