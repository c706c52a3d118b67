//! The shape of an imported dataset: fields, counts per category, invalid rows.

use execbench_core::load_jsonl;
use execbench_formats::{CategoryCount, dataset_shape};

fn row(id: usize, extra: &str) -> String {
    format!(r#"{{"id": "s{id}", "code": "def f(x):\n    return x", "input": "1", "output": "1"{extra}}}"#)
}

fn counts(pairs: &[(&str, usize)]) -> Vec<CategoryCount> {
    pairs.iter().map(|(value, samples)| CategoryCount { value: value.to_string(), samples: *samples }).collect()
}

/// (rows, the field asked for, the field used, counts, uncategorized ids, inconsistencies).
#[test]
fn categories_by_the_chosen_or_the_known_field() {
    type Case = (
        Vec<String>,
        Option<&'static str>,
        Option<&'static str>,
        Vec<CategoryCount>,
        Vec<&'static str>,
        Vec<&'static str>,
    );
    let cases: Vec<Case> = vec![
        // `category` first when rows have it.
        (
            vec![
                row(0, r#", "category": "loops", "difficulty": "easy""#),
                row(1, r#", "category": "strings", "difficulty": "easy""#),
                row(2, r#", "category": "loops", "difficulty": "hard""#),
            ],
            None,
            Some("category"),
            counts(&[("loops", 2), ("strings", 1)]),
            vec![],
            vec![],
        ),
        // LiveCodeBench: difficulty; one row without it, one with a number.
        (
            vec![
                row(0, r#", "difficulty": "easy""#),
                row(1, r#", "difficulty": "medium""#),
                row(2, ""),
                row(3, r#", "difficulty": 3"#),
                row(4, r#", "difficulty": null"#),
            ],
            None,
            Some("difficulty"),
            counts(&[("3", 1), ("easy", 1), ("medium", 1)]),
            vec!["s2", "s4"],
            vec!["difficulty: null in 1, number in 1, string in 2, missing in 1"],
        ),
        // The caller's choice wins over the known fields.
        (
            vec![
                row(0, r#", "difficulty": "easy", "contest_id": "w1""#),
                row(1, r#", "difficulty": "easy", "contest_id": "w2""#),
                row(2, r#", "difficulty": "hard", "contest_id": "w1""#),
            ],
            Some("contest_id"),
            Some("contest_id"),
            counts(&[("w1", 2), ("w2", 1)]),
            vec![],
            vec![],
        ),
        // CodeCrash kinds.
        (
            vec![row(0, r#", "perturbation": "REN""#), row(1, r#", "perturbation": "MCC""#)],
            None,
            Some("perturbation"),
            counts(&[("MCC", 1), ("REN", 1)]),
            vec![],
            vec![],
        ),
        // CRUXEval: no category field, unless one of the sample's own is asked for.
        (vec![row(0, ""), row(1, "")], None, None, vec![], vec![], vec![]),
        (vec![row(0, ""), row(1, "")], Some("output"), Some("output"), counts(&[("1", 2)]), vec![], vec![]),
    ];
    for (rows, asked, used, expected, uncategorized, inconsistencies) in cases {
        let report = load_jsonl("d.jsonl", &rows.join("\n"));
        let shape = dataset_shape(&report, asked);
        assert_eq!(shape.category_field.as_deref(), used, "{rows:?}");
        assert_eq!(shape.categories, expected, "{rows:?}");
        assert_eq!(shape.uncategorized, uncategorized, "{rows:?}");
        assert_eq!(shape.inconsistencies(), inconsistencies, "{rows:?}");
        assert_eq!((shape.rows, shape.samples), (rows.len(), rows.len()));
    }
}

#[test]
fn invalid_rows_and_fields_are_listed() {
    let text = [
        row(0, r#", "difficulty": "easy", "numsteps": 4"#),
        "{oops".to_string(),
        row(2, r#", "difficulty": "easy""#),
        r#"{"id": "s3"}"#.to_string(),
    ]
    .join("\n");
    let shape = dataset_shape(&load_jsonl("d.jsonl", &text), None);
    assert_eq!((shape.rows, shape.samples), (4, 2));
    let invalid: Vec<String> = shape.invalid.iter().map(ToString::to_string).collect();
    assert_eq!(
        invalid,
        ["d.jsonl:2: not valid JSON at column 2: key must be a string", "d.jsonl:4: field `code`: missing (required)"]
    );
    let fields: Vec<(&str, usize)> = shape.meta_fields.iter().map(|f| (f.name.as_str(), f.present)).collect();
    assert_eq!(fields, [("difficulty", 2), ("numsteps", 1)]);
    assert_eq!(shape.inconsistencies(), ["numsteps: number in 1, missing in 1"]);
    assert_eq!(shape.categories, counts(&[("easy", 2)]));
}
