//! A JSON text held once and shared: a finished record (a score-sheet row,
//! a settled round) as the store read it, the rules keep it, every view
//! embeds it and the next write passes it on.
//!
//! Each of those steps copied the text until the thirteenth session's profile
//! showed the copies at 3.6 % of a request's instructions, more with their
//! allocations (docs/benchmarks.md, "Records shared, not copied"): a
//! [`JsonText`] is cloned by counting one more holder instead.

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// One JSON value as text, without space around it, shared between its
/// holders; written out as it is wherever it is embedded.
#[derive(Clone)]
pub struct JsonText(Arc<Box<RawValue>>);

impl JsonText {
    /// The text of `raw`.
    pub fn new(raw: Box<RawValue>) -> JsonText {
        JsonText(Arc::new(raw))
    }

    /// `text`, checked to be one JSON value; space around it is dropped.
    ///
    /// # Errors
    /// When it is not one JSON value.
    pub fn from_string(text: String) -> Result<JsonText, serde_json::Error> {
        RawValue::from_string(text).map(JsonText::new)
    }

    /// `text`, not checked; debug builds, and so every test, check it all
    /// the same (serde_json's own `debug_assert`).
    ///
    /// # Safety
    /// `text` must be one well-formed JSON value with no space around it:
    /// other code, serde_json's included, relies on what a `RawValue` holds.
    pub unsafe fn from_string_unchecked(text: String) -> JsonText {
        // SAFETY: the caller's promise is the one `from_string_unchecked` asks.
        JsonText::new(unsafe { RawValue::from_string_unchecked(text) })
    }

    /// The text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl AsRef<str> for JsonText {
    fn as_ref(&self) -> &str {
        self.get()
    }
}

/// Two texts are equal when they are the same characters.
impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.get() == other.get()
    }
}

impl Eq for JsonText {}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl Serialize for JsonText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_text_is_written_out_as_it_is_and_its_clone_shares_it() {
        let text = JsonText::from_string(r#"{"b":1,"a":[2]}"#.to_owned()).unwrap();
        let copy = text.clone();
        assert!(
            std::ptr::eq(text.get(), copy.get()),
            "one text, two holders"
        );
        assert_eq!(
            serde_json::to_string(&[&text, &copy]).unwrap(),
            r#"[{"b":1,"a":[2]},{"b":1,"a":[2]}]"#
        );
    }

    /// The tests run debug builds, where every record read back from the
    /// store is checked to be JSON after all: a text that is not would
    /// stop them.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "well-formed JSON")]
    fn in_debug_builds_a_stored_record_that_is_not_json_stops_the_test() {
        // SAFETY: not kept: the debug check stops the test first.
        let _ = unsafe { JsonText::from_string_unchecked(r#"{"number":1,"#.to_owned()) };
    }

    #[test]
    fn a_text_that_is_not_one_json_value_is_refused_when_checked_and_space_around_one_dropped() {
        for bad in [r#"{"a":"#, "1 2", ""] {
            assert!(JsonText::from_string(bad.to_owned()).is_err(), "{bad:?}");
        }
        assert_eq!(
            JsonText::from_string(" [1] ".to_owned()).unwrap().get(),
            "[1]"
        );
    }
}
