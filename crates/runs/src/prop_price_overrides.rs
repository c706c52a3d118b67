//! The user's price overrides (`PriceOverrides`), on generated prices and names: saved as JSON (as
//! the page keeps them) they read back equal, with unknown fields in a price ignored; a name is
//! found whatever spaces were typed around it, and an override always wins over the table. A
//! saved price missing a required field is refused naming it, one of a wrong type with its place.

use crate::cost::Price;
use crate::cost::prices::{PriceOverrides, PriceTable};
use execbench_proptest_cases::cases;
use proptest::prelude::*;
use serde_json::{Value, json};

fn dollars() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0..1e-3f64, (0..100_000u32).prop_map(|n| f64::from(n) / 1e6 / 100.0)]
}

fn price() -> impl Strategy<Value = Price> {
    (dollars(), dollars(), proptest::option::of(dollars()), proptest::option::of(dollars()))
        .prop_map(|(input, output, cached_input, reasoning)| Price { input, output, cached_input, reasoning })
}

/// Names as typed, with the spaces around them that the key drops.
fn name() -> impl Strategy<Value = (String, String)> {
    ("[a-zA-Z0-9][a-zA-Z0-9./:_-]{0,20}", "[ \t]{0,2}", "[ \t]{0,2}")
        .prop_map(|(name, before, after)| (name.clone(), format!("{before}{name}{after}")))
}

fn provider() -> impl Strategy<Value = (String, String)> {
    prop_oneof![Just("openai"), Just("anthropic"), Just("openai-compatible"), Just("ollama"), Just("gemini")]
        .prop_flat_map(|p| ("[ ]{0,2}", "[ ]{0,2}").prop_map(move |(a, b)| (p.to_string(), format!("{a}{p}{b}"))))
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn saved_overrides_read_back_and_win(entries in proptest::collection::vec((provider(), name(), price()), 0..8)) {
        let mut overrides = PriceOverrides::default();
        for ((_, provider), (_, model), price) in &entries {
            overrides.set(provider, model, *price);
        }
        let saved = serde_json::to_string(&overrides).unwrap();
        let read: PriceOverrides = serde_json::from_str(&saved).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&read, &overrides);
        // The last price set for a (provider, model) is the one found, under its trimmed names,
        // and it beats the bundled table (and a local server's free price).
        for ((provider, _), (model, _), _) in &entries {
            let last = entries.iter().rev().find(|((p, _), (m, _), _)| p == provider && m == model).unwrap().2;
            prop_assert_eq!(read.get(provider, model), Some(last));
            prop_assert_eq!(read.resolve(PriceTable::bundled(), provider, model), Some((last, "override".to_string())));
        }
    }

    #[test]
    fn unknown_fields_in_a_saved_price_are_ignored(price in price(), key in "[a-z]{1,8}/[a-z0-9-]{1,12}", extra in "x_[a-z]{1,6}") {
        let mut entry = serde_json::to_value(price).unwrap();
        entry.as_object_mut().unwrap().insert(extra, json!({"currency": "USD"}));
        let read: PriceOverrides = serde_json::from_str(&json!({ key.clone(): entry }).to_string())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(read.0.get(&key), Some(&price));
    }

    #[test]
    fn a_damaged_saved_price_is_refused(
        price in price(),
        key in "[a-z]{1,8}/[a-z0-9-]{1,12}",
        field in prop::sample::select(vec!["input", "output", "cached_input", "reasoning"]),
        damage in prop::sample::select(vec![json!("0.5"), json!([1]), json!({"usd": 1}), json!(true), Value::Null]),
        remove in any::<bool>(),
    ) {
        let mut entry = serde_json::to_value(price).unwrap();
        let object = entry.as_object_mut().unwrap();
        let optional = field == "cached_input" || field == "reasoning";
        if remove {
            object.remove(field);
        } else {
            object.insert(field.to_string(), damage.clone());
        }
        let read = serde_json::from_str::<PriceOverrides>(&json!({ key: entry }).to_string());
        // An optional price may be left out or null; anything else about a field is refused.
        if optional && (remove || damage.is_null()) {
            prop_assert!(read.is_ok(), "{read:?}");
        } else {
            let error = read.err().map(|e| e.to_string()).unwrap_or_default();
            let named = error.contains(&format!("`{field}`")) || error.starts_with("invalid type");
            prop_assert!(named, "{field}: {error:?}");
            // Without the field's name, serde names the line and column of the damaged value.
            prop_assert!(error.contains("line 1 column"), "{error:?}");
        }
    }
}
