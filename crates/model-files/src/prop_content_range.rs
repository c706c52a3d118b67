//! Generated `Content-Range` headers: a range written as servers write it (`bytes START-END/TOTAL`,
//! `TOTAL` may be `*`, with the spaces some servers add) reads back to itself; any other text, and
//! a range that ends before it starts or past the total, is refused with an error that quotes the
//! header, never a panic. `read_answer` resumes only where the kept bytes end.

use crate::download::{Answer, ContentRange, parse_content_range, read_answer};
use execbench_proptest_cases::cases;
use proptest::prelude::*;

/// Numbers near each other often enough for the edges (end == total, start == end) to come up.
fn small_or_any() -> impl Strategy<Value = u64> {
    prop_oneof![0..4u64, any::<u64>()]
}

/// A valid range: start <= end, and end < total when the total is known.
fn range() -> impl Strategy<Value = ContentRange> {
    (any::<u64>(), any::<u64>(), proptest::option::of(any::<u64>())).prop_map(|(a, b, t)| {
        let (start, end_inclusive) = (a.min(b), a.max(b));
        // A total past the end; none can be when the end is the last byte a u64 counts.
        let total = end_inclusive.checked_add(1).and_then(|past| t.map(|t| t.max(past)));
        ContentRange { start, end_inclusive, total }
    })
}

fn write(r: &ContentRange, pad: &str) -> String {
    let total = r.total.map_or("*".to_string(), |t| t.to_string());
    format!("{pad}bytes {pad}{}{pad}-{pad}{}{pad}/{pad}{total}{pad}", r.start, r.end_inclusive)
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn written_ranges_read_back(r in range(), pad in prop::sample::select(vec!["", " ", "\t"])) {
        let text = write(&r, pad);
        prop_assert_eq!(parse_content_range(&text), Ok(r), "{:?}", text);
    }

    #[test]
    fn impossible_ranges_are_refused(start in small_or_any(), end in small_or_any(), total in small_or_any()) {
        let text = format!("bytes {start}-{end}/{total}");
        let possible = start <= end && end < total;
        match parse_content_range(&text) {
            Ok(r) => {
                let read = ContentRange { start, end_inclusive: end, total: Some(total) };
                prop_assert!(possible && r == read, "{r:?} from {text:?}")
            }
            Err(e) => prop_assert!(!possible && e.contains(&format!("{text:?}")), "{e}"),
        }
    }

    #[test]
    fn garbage_is_refused_with_the_header_quoted(text in prop_oneof![
        "\\PC{0,30}",
        "(bytes )?[0-9*/ -]{0,20}",
        "bytes [0-9]{1,25}-[0-9]{1,25}/([0-9]{1,25}|\\*)",
    ]) {
        match parse_content_range(&text) {
            // What is read is a possible range, of the numbers the text says.
            Ok(r) => {
                prop_assert!(r.start <= r.end_inclusive && r.total.is_none_or(|t| r.end_inclusive < t), "{r:?}");
                let numbers = [Some(r.start), Some(r.end_inclusive), r.total];
                prop_assert!(numbers.iter().flatten().all(|n| text.contains(&n.to_string())), "{r:?} from {text:?}");
            }
            Err(e) => prop_assert!(e.starts_with("Content-Range: ") && e.contains(&format!("{text:?}")), "{e}"),
        }
    }

    #[test]
    fn a_206_resumes_only_at_the_kept_offset(r in range(), offset in any::<u64>()) {
        let header = write(&r, "");
        let answer = read_answer(206, Some(&header), None, offset);
        if offset == r.start {
            prop_assert_eq!(answer, Ok(Answer::Append { total: r.total }));
        } else {
            let e = answer.unwrap_err();
            prop_assert!(e.contains(&format!("byte {}", r.start)) && e.contains(&format!("{offset} bytes")), "{e}");
        }
    }
}
