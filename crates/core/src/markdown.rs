//! Text that comes from data (a model name, a run id, a file or dataset name, a category) written
//! into a Markdown report, in a table cell or a heading. Such text must read as the text it is:
//! no HTML (`<img onerror=…>`), no link or image (`[click](https://…)`, `![x](…)`), no code span,
//! no new cell (`|`) and no new row or block (a line break). Every Markdown writer of the crates
//! passes data through [`markdown_text`]; text the code writes itself (numbers, fixed words) needs
//! nothing.

/// The characters escaped with a backslash: the backslash itself first (so data cannot undo an
/// escape, `\|` in data stays a backslash and a pipe), then what opens HTML, links, images, code
/// spans and table cells. CommonMark lets any ASCII punctuation be escaped this way.
const ESCAPED: [char; 10] = ['\\', '<', '>', '[', ']', '(', ')', '!', '`', '|'];

/// `text` as plain Markdown text for a table cell or a heading: the characters in [`ESCAPED`]
/// escaped, and every line break (`\r\n`, `\r`, `\n`) one space, so the text stays on its line.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push(' ');
            }
            '\n' => out.push(' '),
            c if ESCAPED.contains(&c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The characters of [`ESCAPED`] in `text` that are not escaped, and its line breaks: what a
    /// Markdown reader would take as markup.
    fn live_markup(text: &str) -> Vec<char> {
        let mut live = Vec::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                chars.next();
            } else if ESCAPED.contains(&c) || c == '\r' || c == '\n' {
                live.push(c);
            }
        }
        live
    }

    /// (hostile or ordinary text from data, how it is written)
    #[test]
    fn hostile_cells_and_headings_read_as_text() {
        let cases = [
            ("gpt-4o-mini", "gpt-4o-mini"),
            ("<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert\\(1\\)\\>"),
            ("[click](https://evil)", "\\[click\\]\\(https://evil\\)"),
            ("![pixel](https://evil/t.png)", "\\!\\[pixel\\]\\(https://evil/t.png\\)"),
            ("`code` span", "\\`code\\` span"),
            ("a | b", "a \\| b"),
            // A pipe already escaped in the data must not turn the escape around.
            ("a \\| b", "a \\\\\\| b"),
            // A line break would end the row (or the heading) and start markup of its own.
            ("m\n| injected | row |", "m \\| injected \\| row \\|"),
            ("m\r\n## Heading", "m ## Heading"),
            ("m\r<b>", "m \\<b\\>"),
            ("<script>alert(1)</script>", "\\<script\\>alert\\(1\\)\\</script\\>"),
            ("", ""),
            ("naïve — ünïcode", "naïve — ünïcode"),
        ];
        for (text, expected) in cases {
            let written = markdown_text(text);
            assert_eq!(written, expected, "{text:?}");
            assert_eq!(live_markup(&written), Vec::<char>::new(), "{text:?} -> {written:?}");
        }
    }
}
