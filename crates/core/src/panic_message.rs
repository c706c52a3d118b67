//! A panic's own words: what `panic!` was given, as a `&str` or a formatted `String`. Every
//! place that turns a panic into an error message (the interpreter, the workers' panic hooks,
//! the Parquet reader's guard) reads it here, so they all say the same.

use std::any::Any;

/// The message a panic carried, or `None` when its payload is neither kind of string (a
/// `panic_any` with another type).
pub fn panic_message(payload: &(dyn Any + Send)) -> Option<String> {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_says_its_message_whatever_string_it_carried() {
        let cases: Vec<(Box<dyn Any + Send>, Option<&str>)> = vec![
            (Box::new("plain"), Some("plain")),
            (Box::new(format!("formatted {}", 7)), Some("formatted 7")),
            (Box::new(42u8), None),
        ];
        for (payload, expected) in cases {
            assert_eq!(panic_message(payload.as_ref()).as_deref(), expected);
        }
        let caught = std::panic::catch_unwind(|| panic!("index {} out of range", 3)).unwrap_err();
        assert_eq!(panic_message(caught.as_ref()).as_deref(), Some("index 3 out of range"));
    }
}
