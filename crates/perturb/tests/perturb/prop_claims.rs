//! Claims files (MHC's wrong answers from a file, `FileWrongAnswers::parse`) on generated rows of
//! both layouts, written as JSON Lines by serde_json: execbench's own `{id, claim(s), prediction}`
//! rows give back their claims in file order under every spelling of the sample's id; CodeCrash's
//! rows give back the claim written in the hint comment of their code. A line that is not JSON is
//! refused with its number; a row without a claim is skipped with its number, and costs only
//! itself.

use execbench_perturb::claims_file::normalise_id;
use execbench_perturb::{FileWrongAnswers, Prediction};
use execbench_proptest_cases::cases;
use proptest::prelude::*;
use serde_json::{Value, json};

/// One of execbench's own rows: a sample number, its id's spelling, claims, the task if named.
#[derive(Clone, Debug)]
struct OwnRow {
    sample: u32,
    spelling: u8,
    claims: Vec<String>,
    prediction: Option<Prediction>,
    extra: bool,
}

fn spelled(sample: u32, spelling: u8) -> Value {
    match spelling % 4 {
        0 => json!(format!("sample_{sample}")),
        1 => json!(format!("crux_{sample:03}")),
        2 => json!(sample),
        _ => json!(sample.to_string()),
    }
}

fn own_row() -> impl Strategy<Value = OwnRow> {
    (
        0..6u32,
        any::<u8>(),
        proptest::collection::vec("\\PC{0,12}", 1..3),
        prop_oneof![Just(None), Just(Some(Prediction::Output)), Just(Some(Prediction::Input))],
        any::<bool>(),
    )
        .prop_map(|(sample, spelling, claims, prediction, extra)| OwnRow {
            sample,
            spelling,
            claims,
            prediction,
            extra,
        })
}

fn own_line(row: &OwnRow) -> String {
    let mut v = json!({"id": spelled(row.sample, row.spelling)});
    let object = v.as_object_mut().unwrap();
    // One claim as `claim`, several as `claims`, as either layout of ours writes them.
    if let [one] = row.claims.as_slice() {
        object.insert("claim".into(), json!(one));
    } else {
        object.insert("claims".into(), json!(row.claims));
    }
    if let Some(p) = row.prediction {
        object.insert("prediction".into(), json!(if p == Prediction::Input { "input" } else { "output" }));
    }
    if row.extra {
        object.insert("model".into(), json!({"name": "m", "seed": 3}));
    }
    v.to_string()
}

/// Python literals a CodeCrash hint claims.
fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|n| n.to_string()),
        "'[a-z ]{0,8}'",
        (any::<i16>(), any::<i16>()).prop_map(|(a, b)| format!("[{a}, {b}]")),
        Just("{'a': (1, None)}".to_string()),
        Just("True".to_string()),
    ]
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn own_rows_give_their_claims_in_file_order(rows in proptest::collection::vec(own_row(), 1..10), crlf in any::<bool>()) {
        let text = rows.iter().map(own_line).collect::<Vec<_>>().join(if crlf { "\r\n" } else { "\n" });
        let file = FileWrongAnswers::parse(&text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(file.rows, rows.len());
        prop_assert!(file.skipped.is_empty(), "{:?}", file.skipped);
        for sample in 0..6u32 {
            for prediction in [Prediction::Output, Prediction::Input] {
                let expected: Vec<String> = rows
                    .iter()
                    .filter(|r| r.sample == sample && r.prediction.is_none_or(|p| p == prediction))
                    .flat_map(|r| r.claims.clone())
                    .collect();
                // Asked for under any spelling of the id.
                for spelling in [format!("sample_{sample}"), format!("crux_{sample:02}"), sample.to_string()] {
                    prop_assert_eq!(file.claims_for(&spelling, prediction), expected.as_slice(), "{} {:?}", spelling, prediction);
                }
            }
        }
    }

    #[test]
    fn codecrash_rows_give_their_hint_comments_claim(
        rows in proptest::collection::vec((0..50u32, literal(), any::<bool>(), any::<bool>()), 1..6),
    ) {
        let text = rows
            .iter()
            .map(|(sample, claim, input, extra)| {
                let code = if *input {
                    format!("def f(x, y):  # The call is f({claim}, 1)\n    return x\n")
                } else {
                    format!("def f(x):\n    return x  # The return value is {claim}\n")
                };
                let mut v = json!({"task_id": format!("crux_{sample}"), "code": code, "function_name": "f"});
                if *extra {
                    v.as_object_mut().unwrap().insert("output".into(), json!("whatever"));
                }
                v.to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
        let file = FileWrongAnswers::parse(&text).map_err(TestCaseError::fail)?;
        prop_assert!(file.skipped.is_empty(), "{:?}", file.skipped);
        for (sample, claim, input, _) in &rows {
            let (prediction, claimed) = if *input { (Prediction::Input, format!("{claim}, 1")) } else { (Prediction::Output, claim.clone()) };
            prop_assert!(file.claims_for(&sample.to_string(), prediction).contains(&claimed),
                "{claimed:?} not in {:?}", file.claims_for(&sample.to_string(), prediction));
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_refused_with_its_number(
        rows in proptest::collection::vec(own_row(), 1..8),
        at in any::<prop::sample::Index>(),
        damage in prop::sample::select(vec!["{\"id\": 1, \"claim\"", "not json", "{\"id\": 1} trailing"]),
    ) {
        let mut lines: Vec<String> = rows.iter().map(own_line).collect();
        let at = at.index(lines.len());
        lines[at] = damage.to_string();
        let error = FileWrongAnswers::parse(&lines.join("\n")).err().unwrap_or_default();
        prop_assert!(error.starts_with(&format!("line {}: not JSON", at + 1)), "{error:?}");
    }

    #[test]
    fn a_row_without_a_claim_is_skipped_with_its_number(
        rows in proptest::collection::vec(own_row(), 1..8),
        at in any::<prop::sample::Index>(),
        damage in prop::sample::select(vec![
            ("`claim`", "{\"id\": \"sample_99\"}"),
            ("`claim`", "{\"id\": \"sample_99\", \"claim\": 3}"),
            ("`prediction`", "{\"id\": \"sample_99\", \"claim\": \"1\", \"prediction\": \"both\"}"),
            ("`id`", "{\"claim\": \"1\"}"),
            ("`code`", "{\"task_id\": \"crux_99\"}"),
            ("hint comment", "{\"task_id\": \"crux_99\", \"code\": \"def f(x):\\n    return x\"}"),
        ]),
    ) {
        let mut lines: Vec<String> = rows.iter().map(own_line).collect();
        let at = at.index(lines.len());
        lines[at] = damage.1.to_string();
        let file = FileWrongAnswers::parse(&lines.join("\n")).map_err(TestCaseError::fail)?;
        prop_assert_eq!(file.rows, rows.len());
        prop_assert_eq!(file.skipped.len(), 1);
        prop_assert!(file.skipped[0].starts_with(&format!("line {}: ", at + 1)) && file.skipped[0].contains(damage.0), "{:?}", file.skipped);
        prop_assert!(file.claims_for("99", Prediction::Output).is_empty() && file.claims_for("99", Prediction::Input).is_empty());
        // The other rows' claims are all there.
        let kept: usize = rows.iter().enumerate().filter(|(i, _)| *i != at)
            .map(|(_, r)| r.claims.len() * if r.prediction.is_none() { 2 } else { 1 }).sum();
        let read: usize = (0..6u32).map(|s| file.claims_for(&s.to_string(), Prediction::Output).len()
            + file.claims_for(&s.to_string(), Prediction::Input).len()).sum();
        prop_assert_eq!(read, kept);
    }

    #[test]
    fn every_spelling_of_a_sample_id_is_that_sample(sample in any::<u32>(), zeros in 0..4usize, prefix in "[a-z]{1,6}") {
        let plain = sample.to_string();
        let padded = format!("{}{plain}", "0".repeat(zeros));
        prop_assert_eq!(normalise_id(&format!("{prefix}_{padded}")), plain.clone());
        prop_assert_eq!(normalise_id(&format!(" {padded} ")), plain.clone());
        // A name without a trailing number stays itself.
        prop_assert_eq!(normalise_id(&format!("{prefix}_{plain}x")), format!("{prefix}_{plain}x"));
    }
}
