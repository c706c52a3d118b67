//! Text edits by byte range: everything outside the edited ranges keeps its exact bytes.

use serde::{Deserialize, Serialize};

use crate::{Kind, PerturbError};

/// One change, as the UI shows it. `start_byte..end_byte` is the replaced range in the text the
/// edit was applied to (for PSC_ALL: the output of the previous stage; `kind` names the stage);
/// `after_start_byte` is where `after` begins in that stage's output. Insertions have
/// `start_byte == end_byte` and an empty `before`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub kind: Kind,
    pub start_byte: usize,
    pub end_byte: usize,
    pub after_start_byte: usize,
    pub before: String,
    pub after: String,
}

/// An edit before it is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl TextEdit {
    pub fn replace(start: usize, end: usize, text: impl Into<String>) -> Self {
        TextEdit { start, end, text: text.into() }
    }

    pub fn insert(at: usize, text: impl Into<String>) -> Self {
        TextEdit { start: at, end: at, text: text.into() }
    }
}

/// Applies `edits` to `source`. Edits may come in any order; insertions at the same position keep
/// the order they were given in. Overlapping replacements or ranges that are not on character
/// boundaries are bugs in a perturbation and are reported, never applied.
pub fn apply(source: &str, kind: Kind, mut edits: Vec<TextEdit>) -> Result<(String, Vec<Edit>), PerturbError> {
    // A stable sort keeps the given order among insertions at one position.
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut report = Vec::with_capacity(edits.len());
    let mut cursor = 0;
    for edit in edits {
        let valid = edit.start >= cursor
            && edit.start <= edit.end
            && edit.end <= source.len()
            && source.is_char_boundary(edit.start)
            && source.is_char_boundary(edit.end);
        if !valid {
            return Err(PerturbError::Internal(format!(
                "{}: edit {}..{} overlaps another edit or is out of range",
                kind.name(),
                edit.start,
                edit.end
            )));
        }
        out.push_str(&source[cursor..edit.start]);
        let after_start_byte = out.len();
        out.push_str(&edit.text);
        report.push(Edit {
            kind,
            start_byte: edit.start,
            end_byte: edit.end,
            after_start_byte,
            before: source[edit.start..edit.end].to_string(),
            after: edit.text,
        });
        cursor = edit.end;
    }
    out.push_str(&source[cursor..]);
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_by_range() {
        let r = |s, e, t: &str| TextEdit::replace(s, e, t);
        let cases: Vec<(&str, Vec<TextEdit>, Result<&str, ()>)> = vec![
            ("abc", vec![], Ok("abc")),
            ("abc", vec![r(1, 2, "XY")], Ok("aXYc")),
            ("abc", vec![r(2, 3, "Z"), r(0, 1, "A")], Ok("AbZ")),
            ("abc", vec![TextEdit::insert(1, "1"), TextEdit::insert(1, "2")], Ok("a12bc")),
            ("abc", vec![TextEdit::insert(1, "1"), r(1, 2, "B")], Ok("a1Bc")),
            ("abc", vec![r(0, 2, "x"), r(1, 3, "y")], Err(())),
            ("abc", vec![r(2, 4, "x")], Err(())),
            ("é", vec![r(1, 2, "x")], Err(())),
        ];
        for (source, edits, expected) in cases {
            let got = apply(source, Kind::Ren, edits.clone()).map(|(text, _)| text).map_err(|_| ());
            assert_eq!(got.as_deref(), expected.as_deref().map_err(|_| &()), "{source:?} {edits:?}");
        }
    }

    #[test]
    fn report_positions_point_into_both_texts() {
        let (out, report) = apply("x = a + b", Kind::Ren, vec![TextEdit::replace(4, 5, "Var_1"), TextEdit::replace(8, 9, "Var_2")]).unwrap();
        assert_eq!(out, "x = Var_1 + Var_2");
        for e in &report {
            assert_eq!(&out[e.after_start_byte..e.after_start_byte + e.after.len()], e.after);
        }
        assert_eq!((report[1].start_byte, report[1].before.as_str()), (8, "b"));
    }
}
