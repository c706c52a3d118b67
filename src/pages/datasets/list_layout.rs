//! Where the dataset list's rows sit and which one the keyboard is on: plain functions over
//! positions in the list of matches (no browser), so the virtual list, its spacer and the
//! keyboard's current row all agree and are tested natively.
//!
//! Every row is [`ROW_HEIGHT`] tall except the expanded ones (their full code shown), whose
//! heights are given; there are few of those, so a row's top is its position times the row
//! height plus what the expanded rows above it add.

use std::ops::Range;

/// One line of code in a row (the preview and the expanded code share it).
pub const CODE_LINE: f64 = 16.0;
/// Lines of code a collapsed row previews.
pub const PREVIEW_LINES: usize = 3;
/// Space above and below a row's content.
pub const ROW_PAD: f64 = 8.0;
/// A collapsed row: its preview plus the padding.
pub const ROW_HEIGHT: f64 = 2.0 * ROW_PAD + PREVIEW_LINES as f64 * CODE_LINE;
/// The expanded code box's padding and border, and room under its last line for a sideways
/// scrollbar (long lines scroll inside the box, so a line never wraps and heights stay exact).
const CODE_BOX_EXTRA: f64 = 8.0 + 8.0 + 2.0 + 12.0;
/// Rows rendered above and below the visible ones, so fast scrolling shows no gaps.
pub const OVERSCAN: usize = 8;

/// The height of the expanded code box for a program of `lines` lines.
pub fn code_box_height(lines: usize) -> f64 {
    lines.max(1) as f64 * CODE_LINE + CODE_BOX_EXTRA
}

/// The height of an expanded row showing `lines` lines of code.
pub fn expanded_height(lines: usize) -> f64 {
    (2.0 * ROW_PAD + code_box_height(lines)).max(ROW_HEIGHT)
}

/// The rows' vertical layout: which positions are expanded and how much taller each one is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowLayout {
    /// (position, height beyond [`ROW_HEIGHT`]), by position, each position once.
    extras: Vec<(usize, f64)>,
}

impl RowLayout {
    /// From the expanded rows' positions and full heights, in any order.
    pub fn new(expanded: impl IntoIterator<Item = (usize, f64)>) -> RowLayout {
        let mut extras: Vec<(usize, f64)> =
            expanded.into_iter().map(|(at, height)| (at, (height - ROW_HEIGHT).max(0.0))).collect();
        extras.sort_by_key(|&(at, _)| at);
        extras.dedup_by_key(|&mut (at, _)| at);
        RowLayout { extras }
    }

    /// What the expanded rows before `position` add.
    fn extra_before(&self, position: usize) -> f64 {
        self.extras.iter().take_while(|&&(at, _)| at < position).map(|&(_, extra)| extra).sum()
    }

    pub fn top(&self, position: usize) -> f64 {
        position as f64 * ROW_HEIGHT + self.extra_before(position)
    }

    pub fn height(&self, position: usize) -> f64 {
        ROW_HEIGHT + self.extras.iter().find(|&&(at, _)| at == position).map_or(0.0, |&(_, extra)| extra)
    }

    /// The height of `len` rows: the spacer's.
    pub fn total(&self, len: usize) -> f64 {
        self.top(len)
    }

    /// The row under `y` (clipped to the rows there are; 0 when there are none).
    pub fn position_at(&self, y: f64, len: usize) -> usize {
        let y = y.max(0.0);
        let mut added = 0.0;
        let mut found = None;
        for &(at, extra) in &self.extras {
            let top = at as f64 * ROW_HEIGHT + added;
            if y < top {
                break;
            }
            if y < top + ROW_HEIGHT + extra {
                found = Some(at);
                break;
            }
            added += extra;
        }
        let at = found.unwrap_or_else(|| ((y - added) / ROW_HEIGHT) as usize);
        at.min(len.saturating_sub(1))
    }

    /// The positions to render when the list is scrolled to `scroll_top` and shows `viewport`
    /// pixels: the rows in view plus [`OVERSCAN`] above and below, within `len`.
    pub fn window(&self, scroll_top: f64, viewport: f64, len: usize) -> Range<usize> {
        if len == 0 || scroll_top.max(0.0) >= self.total(len) {
            return len..len;
        }
        let first = self.position_at(scroll_top, len).saturating_sub(OVERSCAN);
        let last = self.position_at(scroll_top.max(0.0) + viewport, len) + OVERSCAN;
        first..(last + 1).min(len)
    }

    /// The scroll position that shows the row at `position` whole (or its top, when it is taller
    /// than the view), moving as little as possible from `scroll_top`.
    pub fn keep_visible(&self, position: usize, scroll_top: f64, viewport: f64) -> f64 {
        let top = self.top(position);
        let bottom = top + self.height(position);
        if top < scroll_top || bottom - top > viewport {
            top
        } else if bottom > scroll_top + viewport {
            bottom - viewport
        } else {
            scroll_top
        }
    }
}

/// The keys that move the list's current row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKey {
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
}

impl MoveKey {
    /// From a `KeyboardEvent.key`.
    pub fn from_key(key: &str) -> Option<MoveKey> {
        Some(match key {
            "ArrowUp" => MoveKey::Up,
            "ArrowDown" => MoveKey::Down,
            "PageUp" => MoveKey::PageUp,
            "PageDown" => MoveKey::PageDown,
            "Home" => MoveKey::Home,
            "End" => MoveKey::End,
            _ => return None,
        })
    }
}

/// Rows a page key moves by: those a view of `viewport` pixels shows whole (at least one).
pub fn rows_per_page(viewport: f64) -> usize {
    ((viewport / ROW_HEIGHT).floor() as usize).max(1)
}

/// The current row after `key`, among `len` rows. With no current row yet, End goes to the last
/// row and every other key to the first. None when the list is empty.
pub fn next_position(key: MoveKey, current: Option<usize>, len: usize, page: usize) -> Option<usize> {
    let last = len.checked_sub(1)?;
    let Some(at) = current.map(|at| at.min(last)) else {
        return Some(if key == MoveKey::End { last } else { 0 });
    };
    Some(match key {
        MoveKey::Up => at.saturating_sub(1),
        MoveKey::Down => (at + 1).min(last),
        MoveKey::PageUp => at.saturating_sub(page),
        MoveKey::PageDown => (at + page).min(last),
        MoveKey::Home => 0,
        MoveKey::End => last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = ROW_HEIGHT;

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    fn keys_move_the_current_row_and_stop_at_the_ends() {
        use MoveKey::*;
        // (key, current, rows, page, expected)
        let cases: [(MoveKey, Option<usize>, usize, usize, Option<usize>); 18] = [
            (Down, None, 800, 8, Some(0)),
            (Up, None, 800, 8, Some(0)),
            (PageDown, None, 800, 8, Some(0)),
            (End, None, 800, 8, Some(799)),
            (Down, Some(0), 800, 8, Some(1)),
            (Down, Some(799), 800, 8, Some(799)),
            (Up, Some(5), 800, 8, Some(4)),
            (Up, Some(0), 800, 8, Some(0)),
            (PageDown, Some(3), 800, 8, Some(11)),
            (PageDown, Some(795), 800, 8, Some(799)),
            (PageUp, Some(11), 800, 8, Some(3)),
            (PageUp, Some(3), 800, 8, Some(0)),
            (Home, Some(400), 800, 8, Some(0)),
            (End, Some(4), 800, 8, Some(799)),
            // A current row left over from a longer list is brought back inside.
            (Up, Some(50), 10, 8, Some(8)),
            (Down, Some(50), 10, 8, Some(9)),
            (Down, None, 0, 8, None),
            (End, Some(3), 0, 8, None),
        ];
        for (key, current, len, page, expected) in cases {
            assert_eq!(next_position(key, current, len, page), expected, "{key:?} from {current:?} in {len} rows");
        }
        assert_eq!(MoveKey::from_key("PageDown"), Some(MoveKey::PageDown));
        assert_eq!(MoveKey::from_key("Enter"), None);
        assert_eq!(rows_per_page(560.0), (560.0 / R) as usize);
        assert_eq!(rows_per_page(10.0), 1);
    }

    #[test]
    fn expanded_rows_push_the_rows_below_them_down() {
        let tall = expanded_height(10);
        assert_eq!(tall, 2.0 * ROW_PAD + 10.0 * CODE_LINE + CODE_BOX_EXTRA);
        // A one-line program is never shorter than a collapsed row.
        assert_eq!(expanded_height(0), R.max(code_box_height(1) + 2.0 * ROW_PAD));
        let flat = RowLayout::default();
        let one = RowLayout::new([(5, tall)]);
        let two = RowLayout::new([(9, tall), (5, tall), (5, tall)]);
        let extra = tall - R;
        // (layout, position, top, height)
        let cases = [
            (&flat, 0, 0.0, R),
            (&flat, 7, 7.0 * R, R),
            (&one, 5, 5.0 * R, tall),
            (&one, 6, 6.0 * R + extra, R),
            (&two, 9, 9.0 * R + extra, tall),
            (&two, 10, 10.0 * R + 2.0 * extra, R),
        ];
        for (layout, position, top, height) in cases {
            assert_eq!((layout.top(position), layout.height(position)), (top, height), "{layout:?} at {position}");
        }
        assert_eq!(two.total(20), 20.0 * R + 2.0 * extra);
        assert_eq!(two.total(7), 7.0 * R + extra, "an expanded row past the end adds nothing");
        assert_eq!(flat.total(0), 0.0);
    }

    #[test]
    fn the_row_under_a_point_accounts_for_expanded_rows() {
        let tall = expanded_height(10);
        let layout = RowLayout::new([(2, tall)]);
        // (y, rows, position)
        let cases = [
            (0.0, 100, 0),
            (-40.0, 100, 0),
            (R - 0.5, 100, 0),
            (2.0 * R, 100, 2),
            (2.0 * R + tall - 1.0, 100, 2),
            (2.0 * R + tall, 100, 3),
            (2.0 * R + tall + 4.0 * R + 1.0, 100, 7),
            (1e9, 100, 99),
            (50.0, 0, 0),
        ];
        for (y, len, expected) in cases {
            assert_eq!(layout.position_at(y, len), expected, "y {y}");
        }
    }

    #[test]
    fn the_window_covers_the_view_plus_overscan_and_stays_in_bounds() {
        let view = 560.0;
        let in_view = (view / R) as usize; // the last row the view touches, from the top
        let tall = expanded_height(40);
        let expanded = RowLayout::new([(100, tall)]);
        // (layout, scroll_top, rows, window)
        let cases = [
            (RowLayout::default(), 0.0, 800, 0..in_view + 1 + OVERSCAN),
            (RowLayout::default(), 0.0, 3, 0..3),
            (RowLayout::default(), 0.0, 0, 0..0),
            (RowLayout::default(), 100.0 * R, 800, 100 - OVERSCAN..100 + in_view + 1 + OVERSCAN),
            (RowLayout::default(), 795.0 * R, 800, 795 - OVERSCAN..800),
            // A scroll position left over from a longer list never indexes past the end.
            (RowLayout::default(), 5_000.0 * R, 40, 40..40),
            (RowLayout::default(), -50.0, 800, 0..in_view + 1 + OVERSCAN),
            // An expanded row taller than the view: it alone is in view, plus the overscan.
            (expanded.clone(), 100.0 * R, 800, 100 - OVERSCAN..101 + OVERSCAN),
            // Below it, rows are found past its extra height.
            (expanded.clone(), 110.0 * R + tall, 800, 111 - OVERSCAN..111 + in_view + 1 + OVERSCAN),
        ];
        assert!(tall > view);
        for (layout, scroll, len, expected) in cases {
            assert_eq!(layout.window(scroll, view, len), expected, "scroll {scroll}, {len} rows, {layout:?}");
        }
    }

    #[test]
    fn keeping_a_row_visible_scrolls_as_little_as_possible() {
        let view = 560.0;
        let tall = expanded_height(50);
        let short = expanded_height(5);
        let layout = RowLayout::new([(20, tall), (30, short)]);
        // (position, scroll_top, new scroll_top)
        let cases = [
            (0, 0.0, 0.0),
            (3, 0.0, 0.0),
            // Below the view: its bottom comes to the view's bottom.
            (9, 0.0, 10.0 * R - view),
            // Above the view: its top comes to the view's top.
            (2, 5.0 * R, 2.0 * R),
            // Taller than the view: its top shows.
            (20, 0.0, 20.0 * R),
            (20, 20.0 * R + 10.0, 20.0 * R),
            // After the tall row, the positions include its extra height.
            (30, 0.0, layout.top(30) + short - view),
            (21, layout.top(21) + 10.0, layout.top(21)),
            (21, layout.top(21) - 10.0, layout.top(21) - 10.0),
        ];
        for (position, scroll, expected) in cases {
            assert_eq!(layout.keep_visible(position, scroll, view), expected, "row {position} from {scroll}");
        }
    }
}
