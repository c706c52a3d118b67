//! Text edits by byte range: everything outside the edited ranges keeps its exact bytes.

use serde::{Deserialize, Serialize};

use crate::{Kind, PerturbError};

/// One change, as the UI shows it. `start_byte..end_byte` is the replaced range in the text the
/// edit was applied to (for PSC_ALL: the output of the previous stage; `kind` names the stage);
/// `after_start_byte` is where `after` begins in that stage's output. Insertions have
/// `start_byte == end_byte` and an empty `before`. `target` says which text: the code, or the call
/// (REN renames the function and keyword arguments there too).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub kind: Kind,
    pub start_byte: usize,
    pub end_byte: usize,
    pub after_start_byte: usize,
    pub before: String,
    pub after: String,
    /// Left out of the JSON for the code, so code edits serialize as before calls were reported.
    #[serde(default, skip_serializing_if = "Target::is_code")]
    pub target: Target,
}

/// The text an [`Edit`] applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    #[default]
    Code,
    Call,
}

impl Target {
    pub fn is_code(&self) -> bool {
        *self == Target::Code
    }
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

/// Applies `edits` to `source` (the code). Edits may come in any order; insertions at the same
/// position keep the order they were given in. Overlapping replacements or ranges that are not on
/// character boundaries are bugs in a perturbation and are reported, never applied.
pub fn apply(source: &str, kind: Kind, edits: Vec<TextEdit>) -> Result<(String, Vec<Edit>), PerturbError> {
    apply_to(source, kind, Target::Code, edits)
}

/// [`apply`] to the code or the call.
pub fn apply_to(
    source: &str,
    kind: Kind,
    target: Target,
    mut edits: Vec<TextEdit>,
) -> Result<(String, Vec<Edit>), PerturbError> {
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
            target,
        });
        cursor = edit.end;
    }
    out.push_str(&source[cursor..]);
    Ok((out, report))
}

/// Where one reported edit sits in the original program (`before`) and in the final output
/// (`after`). For PSC_ALL the reported positions are in each stage's own text; this carries them
/// through the other stages, so a view can mark the changes on the first and the last text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    pub before: std::ops::Range<usize>,
    pub after: std::ops::Range<usize>,
}

/// [`Placed`] for each of `edits`, in the same order. Edits of one stage are consecutive and share
/// a kind (as [`crate::perturb`] reports them). A position inside text that a later stage replaced
/// moves to that replacement's edge. Code and call edits are placed each in their own text (for a
/// call edit, `before` is in the original call and `after` in the final one).
pub fn place(edits: &[Edit]) -> Vec<Placed> {
    let mut placed: Vec<Placed> = vec![Placed::default(); edits.len()];
    for target in [Target::Code, Target::Call] {
        let indices: Vec<usize> = (0..edits.len()).filter(|&i| edits[i].target == target).collect();
        let part: Vec<Edit> = indices.iter().map(|&i| edits[i].clone()).collect();
        for (i, p) in indices.into_iter().zip(place_in_one_text(&part)) {
            placed[i] = p;
        }
    }
    placed
}

fn place_in_one_text(edits: &[Edit]) -> Vec<Placed> {
    let mut stages: Vec<&[Edit]> = Vec::new();
    let mut from = 0;
    for i in 1..=edits.len() {
        if i == edits.len() || edits[i].kind != edits[from].kind {
            stages.push(&edits[from..i]);
            from = i;
        }
    }
    let mut placed = Vec::with_capacity(edits.len());
    for (k, stage) in stages.iter().enumerate() {
        for e in *stage {
            let (mut start, mut end) = (e.start_byte, e.end_byte);
            for earlier in stages[..k].iter().rev() {
                (start, end) = (map_back(earlier, start, false), map_back(earlier, end, true));
            }
            let (mut after_start, mut after_end) = (e.after_start_byte, e.after_start_byte + e.after.len());
            for later in &stages[k + 1..] {
                (after_start, after_end) =
                    (map_forward(later, after_start, false), map_forward(later, after_end, true));
            }
            placed.push(Placed { before: start..end.max(start), after: after_start..after_end.max(after_start) });
        }
    }
    placed
}

/// A position in a stage's input, moved to its output. An insertion exactly at the end of a
/// range stays outside it.
fn map_forward(stage: &[Edit], at: usize, is_end: bool) -> usize {
    let mut moved = at as isize;
    for e in stage {
        if e.start_byte < at && at < e.end_byte {
            return if is_end { e.after_start_byte + e.after.len() } else { e.after_start_byte };
        }
        let passed = e.end_byte < at || (e.end_byte == at && (!is_end || e.start_byte < e.end_byte));
        if passed {
            moved += e.after.len() as isize - (e.end_byte - e.start_byte) as isize;
        }
    }
    moved.max(0) as usize
}

/// A position in a stage's output, moved back to its input.
fn map_back(stage: &[Edit], at: usize, is_end: bool) -> usize {
    let mut moved = at as isize;
    for e in stage {
        let (out_start, out_end) = (e.after_start_byte, e.after_start_byte + e.after.len());
        if out_start < at && at < out_end {
            return if is_end { e.end_byte } else { e.start_byte };
        }
        let passed = out_end < at || (out_end == at && (!is_end || out_start < out_end));
        if passed {
            moved += (e.end_byte - e.start_byte) as isize - e.after.len() as isize;
        }
    }
    moved.max(0) as usize
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
        let (out, report) =
            apply("x = a + b", Kind::Ren, vec![TextEdit::replace(4, 5, "Var_1"), TextEdit::replace(8, 9, "Var_2")])
                .unwrap();
        assert_eq!(out, "x = Var_1 + Var_2");
        for e in &report {
            assert_eq!(&out[e.after_start_byte..e.after_start_byte + e.after.len()], e.after);
        }
        assert_eq!((report[1].start_byte, report[1].before.as_str()), (8, "b"));
    }

    #[test]
    fn stages_are_placed_in_the_first_and_last_text() {
        // Stage one turns `x = a` into `x = (a)`; stage two renames `a` (in its own text) and `x`.
        let (one, first) = apply("x = a", Kind::Rtf, vec![TextEdit::replace(4, 5, "(a)")]).unwrap();
        let (two, second) =
            apply(&one, Kind::Ren, vec![TextEdit::replace(0, 1, "Var_1"), TextEdit::replace(5, 6, "Var_2")]).unwrap();
        assert_eq!(two, "Var_1 = (Var_2)");
        let edits: Vec<Edit> = first.into_iter().chain(second).collect();
        let placed = place(&edits);
        let original = "x = a";
        let texts: Vec<(&str, &str)> =
            placed.iter().map(|p| (&original[p.before.clone()], &two[p.after.clone()])).collect();
        assert_eq!(texts, vec![("a", "(Var_2)"), ("x", "Var_1"), ("a", "Var_2")]);
    }

    #[test]
    fn single_stage_places_where_reported() {
        let (out, report) = apply("ab", Kind::Gbc, vec![TextEdit::insert(1, "XY")]).unwrap();
        let placed = place(&report);
        assert_eq!(placed, vec![Placed { before: 1..1, after: 1..3 }]);
        assert_eq!(&out[placed[0].after.clone()], "XY");
    }
}
