//! `character` against what CPython's `\N{...}` accepts.

use unicode_names2::{character, name};

/// (text between the braces, what CPython 3.11 makes of it; `None`: a SyntaxError).
/// Each expected value was read off `python3 -c 'print(repr("\N{...}"))'`.
const CASES: &[(&str, Option<char>)] = &[
    ("LATIN SMALL LETTER A", Some('a')),
    ("latin small letter a", Some('a')),
    ("Latin Small Letter A", Some('a')),
    ("latinsmalllettera", None),
    ("LATIN_SMALL_LETTER_A", None),
    ("LATIN SMALL  LETTER A", None),
    ("LATIN SMALL LETTER A ", None),
    (" LATIN SMALL LETTER A", None),
    ("SNOW MAN", None),
    ("SNOWMAN", Some('☃')),
    ("SNOWMANX", None),
    ("", None),
    ("nonsense", None),
    // A hyphen that is part of the name, and one that is not.
    ("TIBETAN LETTER -A", Some('\u{0F60}')),
    ("TIBETAN LETTER A", Some('\u{0F68}')),
    ("HANGUL JUNGSEONG O-E", Some('\u{1180}')),
    ("HANGUL JUNGSEONG OE", Some('\u{116C}')),
    ("HYPHEN-MINUS", Some('-')),
    ("HYPHEN MINUS", None),
    ("ZERO WIDTH NO BREAK SPACE", None),
    ("zero width no-break space", Some('\u{FEFF}')),
    // Aliases and abbreviations.
    ("BYTE ORDER MARK", Some('\u{FEFF}')),
    ("ZWNBSP", Some('\u{FEFF}')),
    ("NBSP", Some('\u{A0}')),
    ("nbsp", Some('\u{A0}')),
    ("LINE FEED", Some('\n')),
    ("line  feed", None),
    ("LINE_FEED", None),
    ("SINGLE-SHIFT-2", Some('\u{8E}')),
    ("SINGLESHIFT2", None),
    ("BYTEORDERMARK", None),
    ("N BSP", None),
    ("N_B_S_P", None),
    ("ZWJ", Some('\u{200D}')),
    ("zwj", Some('\u{200D}')),
    ("VS1", Some('\u{FE00}')),
    ("vs 1", None),
    ("Backspace", Some('\u{8}')),
    // Algorithmic names: capitals only.
    ("HANGUL SYLLABLE GAG", Some('\u{AC01}')),
    ("HANGUL SYLLABLE KAG", Some('\u{CE75}')),
    ("HANGUL SYLLABLE A", Some('\u{C544}')),
    ("HANGUL SYLLABLE gag", None),
    ("Hangul Syllable GAG", None),
    ("hangul syllable gag", None),
    ("HANGUL SYLLABLE GAGX", None),
    ("CJK UNIFIED IDEOGRAPH-4E00", Some('\u{4E00}')),
    ("CJK UNIFIED IDEOGRAPH-04E00", Some('\u{4E00}')),
    ("CJK UNIFIED IDEOGRAPH-20000", Some('\u{20000}')),
    ("CJK UNIFIED IDEOGRAPH-4e00", None),
    ("cjk unified ideograph-4e00", None),
    ("cjk UNIFIED IDEOGRAPH-4E00", None),
    ("CJK UNIFIED IDEOGRAPH-E000", None),
    ("CJK UNIFIED IDEOGRAPH-4E00 ", None),
    ("CJK UNIFIED IDEOGRAPH-4E0", None),
];

/// Where this crate knowingly answers otherwise: 2.0 looks aliases up by their loose form, but
/// keys its alias table by the written form, so an alias with a space or a hyphen is never found,
/// and RustPython's compiler (which asks 2.0 directly) must not be handed a name it cannot
/// find. So these are SyntaxErrors where CPython has a character.
const NOT_FOUND_BY_2_0: &[&str] = &["BYTE ORDER MARK", "LINE FEED", "SINGLE-SHIFT-2"];

#[test]
fn names_as_cpython_reads_them() {
    let wrong: Vec<_> = CASES
        .iter()
        .map(|&(text, cpython)| (text, if NOT_FOUND_BY_2_0.contains(&text) { None } else { cpython }))
        .filter(|&(text, expected)| character(text) != expected)
        .map(|(text, expected)| format!("{text:?}: expected {expected:?}, got {:?}", character(text)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Nothing this crate accepts is refused by 2.0, which the compiler calls with `unreachable!`
/// on a miss.
#[test]
fn every_accepted_name_is_one_2_0_finds() {
    for (text, _) in CASES {
        if let Some(c) = character(text) {
            assert_eq!(names::character(text), Some(c), "{text}");
        }
    }
}

/// Every named character is found by its name, and (outside the algorithmic names) by its
/// name in small letters.
#[test]
fn every_name_finds_its_character() {
    let mut checked = 0;
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        let Some(official) = name(c).map(|n| n.to_string()) else { continue };
        assert_eq!(character(&official), Some(c), "{official}");
        let algorithmic = official.starts_with("HANGUL SYLLABLE ") || official.starts_with("CJK UNIFIED IDEOGRAPH-");
        let small = official.to_ascii_lowercase();
        assert_eq!(character(&small), (!algorithmic).then_some(c), "{small}");
        checked += 1;
    }
    // Unicode 14 already named 138,552 characters; far fewer means `name` lost its tables.
    assert!(checked > 138_000, "only {checked} names");
}
