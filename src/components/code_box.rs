//! A textarea for code where Tab indents (the selected lines, or 4 spaces at the caret) and
//! Shift+Tab dedents; Esc then Tab leaves the box, so the keyboard is never trapped. The text
//! change is [`tab_edit`], a plain function tested natively.

use std::ops::Range;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub const INDENT: &str = "    ";

/// What Tab or Shift+Tab does to a code box: the range replaced, its new text, and the selection
/// after. Offsets count UTF-16 code units, as a textarea's `selectionStart` does.
#[derive(Clone, Debug, PartialEq)]
pub struct TabEdit {
    pub replace: Range<u32>,
    pub insert: String,
    pub selection: (u32, u32),
}

impl TabEdit {
    /// `text` with the edit made.
    pub fn apply(&self, text: &str) -> String {
        let (start, end) = (byte_at(text, self.replace.start), byte_at(text, self.replace.end));
        format!("{}{}{}", &text[..start], self.insert, &text[end..])
    }
}

/// The byte offset of a UTF-16 offset (inside a char, the char's start; past the end, the end).
fn byte_at(text: &str, utf16: u32) -> usize {
    let mut units = 0u32;
    for (at, c) in text.char_indices() {
        units += c.len_utf16() as u32;
        if units > utf16 {
            return at;
        }
    }
    text.len()
}

fn utf16_at(text: &str, byte: usize) -> u32 {
    text[..byte].encode_utf16().count() as u32
}

/// Tab (`dedent` false) or Shift+Tab (`dedent` true) with the selection `start..end`:
/// - Tab with no selection inserts [`INDENT`] at the caret;
/// - Tab with a selection indents every line it touches (empty lines stay empty when there are
///   several), the selection growing with them;
/// - Shift+Tab removes up to four leading spaces (or one tab) from every line touched (the
///   caret's line when nothing is selected).
///
/// A selection that ends at the start of a line does not touch that line. None when nothing
/// changes (Shift+Tab on unindented lines).
pub fn tab_edit(text: &str, start: u32, end: u32, dedent: bool) -> Option<TabEdit> {
    let (start, end) = (start.min(end), start.max(end));
    let (start_b, end_b) = (byte_at(text, start), byte_at(text, end));
    if !dedent && start_b == end_b {
        let caret = start + INDENT.len() as u32;
        return Some(TabEdit { replace: start..start, insert: INDENT.to_string(), selection: (caret, caret) });
    }
    let first = text[..start_b].rfind('\n').map_or(0, |at| at + 1);
    let last_end = if end_b > start_b && end_b > first && text[..end_b].ends_with('\n') { end_b - 1 } else { end_b };
    let block_end = text[last_end..].find('\n').map_or(text.len(), |at| last_end + at);
    let block = &text[first..block_end];
    let several = block.contains('\n');

    // Each line's change: (its start in `text`, bytes removed, bytes inserted).
    let mut changes: Vec<(usize, usize, usize)> = Vec::new();
    let mut insert = String::with_capacity(block.len() + INDENT.len());
    let mut line_start = first;
    for (i, line) in block.split('\n').enumerate() {
        if i > 0 {
            insert.push('\n');
        }
        let (removed, added) = if dedent {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            let removed = if spaces > 0 {
                spaces.min(INDENT.len())
            } else if line.starts_with('\t') {
                1
            } else {
                0
            };
            (removed, 0)
        } else if several && line.is_empty() {
            (0, 0)
        } else {
            insert.push_str(INDENT);
            (0, INDENT.len())
        };
        insert.push_str(&line[removed..]);
        changes.push((line_start, removed, added));
        line_start += line.len() + 1;
    }
    if changes.iter().all(|&(_, removed, added)| removed == 0 && added == 0) {
        return None;
    }
    // Where an old offset lands: edits before it shift it; inside removed text it goes to the
    // line's start. An insertion at exactly the selection's start is taken into the selection.
    let moved = |at: usize, is_start: bool| {
        let mut out = at as i64;
        for &(line, removed, added) in &changes {
            if at > line || (at == line && !is_start && added > 0) {
                out += added as i64;
            }
            if removed > 0 && at > line {
                out -= (at - line).min(removed) as i64;
            }
        }
        out as usize
    };
    let new_text = format!("{}{}{}", &text[..first], insert, &text[block_end..]);
    let selection = if start_b == end_b {
        let caret = utf16_at(&new_text, moved(start_b, false));
        (caret, caret)
    } else {
        (utf16_at(&new_text, moved(start_b, true)), utf16_at(&new_text, moved(end_b, false)))
    };
    Some(TabEdit { replace: utf16_at(text, first)..utf16_at(text, block_end), insert, selection })
}

/// Replaces the selection with `text` as typing would (so Undo undoes it), or, where the browser
/// cannot, sets the whole value.
fn type_into(area: &web_sys::HtmlTextAreaElement, edit: &TabEdit, fallback: &str) {
    let _ = area.set_selection_range(edit.replace.start, edit.replace.end);
    let typed = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.dyn_into::<web_sys::HtmlDocument>().ok())
        .and_then(|d| d.exec_command_with_show_ui_and_value("insertText", false, &edit.insert).ok())
        .unwrap_or(false);
    if !typed || area.value() != fallback {
        area.set_value(fallback);
    }
    let _ = area.set_selection_range(edit.selection.0, edit.selection.1);
}

/// A code textarea bound to `value`, with its keys explained under it.
#[component]
pub fn CodeBox(value: RwSignal<String>, rows: u32, testid: &'static str) -> impl IntoView {
    // Esc hands the next Tab back to the browser (it moves the focus on).
    let escaped = StoredValue::new(false);
    let hint_id = format!("{testid}-keys");
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        let key = ev.key();
        match key.as_str() {
            "Escape" => escaped.set_value(true),
            "Shift" | "Control" | "Alt" | "Meta" => {}
            "Tab" if escaped.get_value() || ev.ctrl_key() || ev.alt_key() || ev.meta_key() => escaped.set_value(false),
            "Tab" => {
                ev.prevent_default();
                let area: web_sys::HtmlTextAreaElement = event_target(&ev);
                let text = area.value();
                let (start, end) = (
                    area.selection_start().ok().flatten().unwrap_or(0),
                    area.selection_end().ok().flatten().unwrap_or(0),
                );
                if let Some(edit) = tab_edit(&text, start, end, ev.shift_key()) {
                    type_into(&area, &edit, &edit.apply(&text));
                    value.set(area.value());
                }
            }
            _ => escaped.set_value(false),
        }
    };
    view! {
        <textarea class="code-input" rows=rows spellcheck="false" data-testid=testid aria-describedby=hint_id.clone()
            prop:value=value on:input=move |ev| value.set(event_target_value(&ev))
            on:keydown=on_keydown on:blur=move |_| escaped.set_value(false)></textarea>
        <span class="hint code-keys" id=hint_id data-testid=format!("{testid}-keys")>"Tab indents · Esc then Tab leaves"</span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with its selection written in: `|` a caret, `[` and `]` a selection.
    fn parse(marked: &str) -> (String, u32, u32) {
        let mut text = String::new();
        let (mut start, mut end) = (0, 0);
        for c in marked.chars() {
            match c {
                '|' => {
                    start = text.encode_utf16().count() as u32;
                    end = start;
                }
                '[' => start = text.encode_utf16().count() as u32,
                ']' => end = text.encode_utf16().count() as u32,
                _ => text.push(c),
            }
        }
        (text, start, end)
    }

    fn write(text: &str, (start, end): (u32, u32)) -> String {
        let mut out = String::new();
        let mut units = 0;
        for c in text.chars() {
            if start == end && units == start {
                out.push('|');
            } else if units == start {
                out.push('[');
            } else if units == end {
                out.push(']');
            }
            out.push(c);
            units += c.len_utf16() as u32;
        }
        if start == end && units == start {
            out.push('|');
        } else if units == end {
            out.push(']');
        }
        out
    }

    #[test]
    fn tab_indents_and_shift_tab_dedents_the_selected_lines() {
        // (before, dedent, after); None: nothing changes.
        let cases: [(&str, bool, Option<&str>); 16] = [
            ("def f():\n|return 1", false, Some("def f():\n    |return 1")),
            ("x = 1|", false, Some("x = 1    |")),
            ("ab|cd", false, Some("ab    |cd")),
            // A selection in one line indents the line; the selection moves with its text.
            ("a = [b]c", false, Some("    a = [b]c")),
            // Several lines: each is indented, empty ones stay empty, the selection grows.
            ("[def f():\n\nreturn 1]", false, Some("[    def f():\n\n    return 1]")),
            ("x\n[a\nb\n]c", false, Some("x\n[    a\n    b\n]c")),
            ("    a[b\n    c]d", false, Some("        a[b\n        c]d")),
            ("    |return 1", true, Some("|return 1")),
            ("      ret|urn 1", true, Some("  ret|urn 1")),
            ("  |  x", true, Some("|x")),
            ("\tx|", true, Some("x|")),
            ("[    a\n  b\nc]", true, Some("[a\nb\nc]")),
            ("x\n    [a\n    b\n]    c", true, Some("x\n[a\nb\n]    c")),
            ("no indent|", true, None),
            ("", false, Some("    |")),
            // UTF-16 offsets: a character outside the BMP counts two units.
            ("s = '😀'\n|x", false, Some("s = '😀'\n    |x")),
        ];
        for (before, dedent, after) in cases {
            let (text, start, end) = parse(before);
            let got = tab_edit(&text, start, end, dedent).map(|edit| write(&edit.apply(&text), edit.selection));
            assert_eq!(got.as_deref(), after, "{before:?}, dedent {dedent}");
        }
    }

    #[test]
    fn an_edit_replaces_only_the_lines_it_touches() {
        let (text, start, end) = parse("a\nb[c\nd]e\nf");
        let edit = tab_edit(&text, start, end, false).unwrap();
        assert_eq!((edit.replace.clone(), edit.insert.as_str()), (2..7, "    bc\n    de"));
        let backwards = tab_edit(&text, end, start, false).unwrap();
        assert_eq!(backwards, edit, "a selection made backwards is the same selection");
    }
}
