//! `unicode_names2` 1.x's API, answered by `unicode_names2` 2.0.
//!
//! Ruff's lexer (Python's `\N{...}` escapes) asks for 1.x; RustPython's compiler and its
//! `unicodedata` module ask for 2.0. Each version carries its own hash table from names to
//! characters (about 220 KB), so the Python worker linked both. The root `Cargo.toml` patches
//! 1.x with this crate, and the worker keeps one table.
//!
//! 2.0 matches names loosely (Unicode's UAX44-LM2: case, spaces, underscores and medial hyphens
//! are ignored), 1.x only ignored case. [`character`] narrows 2.0's answer to what Python's
//! `\N{...}` accepts, so a string literal means the same thing as in CPython.

pub use names::{Name, name};

/// The algorithmic names: CPython reads both prefixes case-sensitively.
const HANGUL_SYLLABLE: &str = "HANGUL SYLLABLE ";
const CJK_UNIFIED_IDEOGRAPH: &str = "CJK UNIFIED IDEOGRAPH-";

/// The character Python's `\N{search_name}` stands for, or `None`.
///
/// As CPython: a character's name in any ASCII case, or one of its aliases (`NBSP`, `zwj`); a
/// Hangul syllable's or a CJK unified ideograph's name only in capitals, the ideograph's code
/// point as four or five hex digits.
///
/// One difference is left: 2.0 looks aliases up by their loose form (`LINEFEED`) in a table keyed
/// by their written form (`LINE FEED`), so an alias with a space or a hyphen in it is never found,
/// and RustPython's compiler, which asks 2.0 directly, must not be handed a name 2.0 cannot find.
/// Those 113 of Unicode's 477 aliases are `None` here, where CPython has a character.
pub fn character(search_name: &str) -> Option<char> {
    if let Some(syllable) = search_name.strip_prefix(HANGUL_SYLLABLE) {
        return hangul_syllable(syllable);
    }
    if let Some(digits) = search_name.strip_prefix(CJK_UNIFIED_IDEOGRAPH) {
        return cjk_ideograph(digits);
    }
    let upper = search_name.to_ascii_uppercase();
    if upper.starts_with(HANGUL_SYLLABLE) || upper.starts_with(CJK_UNIFIED_IDEOGRAPH) {
        return None;
    }
    let found = names::character(search_name)?;
    // Control characters have aliases but no name.
    let official = name(found).map(|n| n.to_string());
    if official.as_deref() == Some(upper.as_str()) {
        return Some(found);
    }
    // 2.0 found it either through an alias or through a loose spelling of its name. The aliases
    // it finds are those of one word, so a hit on anything else was a loose spelling.
    let loose_spelling_of_name = official.is_some_and(|o| squeezed(&o).eq(squeezed(&upper)));
    let one_word = upper.bytes().all(|b| b.is_ascii_alphanumeric());
    (!loose_spelling_of_name && one_word).then_some(found)
}

fn hangul_syllable(syllable: &str) -> Option<char> {
    let full = format!("{HANGUL_SYLLABLE}{syllable}");
    let found = names::character(&full)?;
    (name(found)?.to_string() == full).then_some(found)
}

fn cjk_ideograph(digits: &str) -> Option<char> {
    let upper_hex = |b: u8| b.is_ascii_digit() || (b'A'..=b'F').contains(&b);
    if !(4..=5).contains(&digits.len()) || !digits.bytes().all(upper_hex) {
        return None;
    }
    let found = char::from_u32(u32::from_str_radix(digits, 16).ok()?)?;
    let official = name(found)?.to_string();
    (official == format!("{CJK_UNIFIED_IDEOGRAPH}{:04X}", u32::from(found))).then_some(found)
}

/// The letters and digits of a name, as loose matching compares them.
fn squeezed(name: &str) -> impl Iterator<Item = u8> + '_ {
    name.bytes().filter(u8::is_ascii_alphanumeric)
}
