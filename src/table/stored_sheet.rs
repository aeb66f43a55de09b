//! Score-sheet rows kept as the JSON text the store wrote them as.

use std::sync::Arc;

use serde_json::value::RawValue;

/// A game's finished Klaverjassen score-sheet rows as the store wrote them,
/// oldest first. A game read only to be shown keeps its rows so: its views
/// write each out as it is, instead of reading it into the rules' record
/// and writing that again (the rows are most of a late match's view).
/// Each row is shared, so the views of every seat a stream writes the
/// game for share its text too.
#[derive(Clone, Debug, Default)]
pub struct StoredSheet(Vec<Arc<RawValue>>);

impl StoredSheet {
    /// The rows `rows`, each one JSON score-sheet row, oldest first.
    pub fn new(rows: Vec<Box<RawValue>>) -> StoredSheet {
        StoredSheet(rows.into_iter().map(Arc::from).collect())
    }

    /// The rows, oldest first.
    pub fn rows(&self) -> &[Arc<RawValue>] {
        &self.0
    }

    /// Whether no row is kept so.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Two sheets are equal when their rows' texts are.
impl PartialEq for StoredSheet {
    fn eq(&self, other: &StoredSheet) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|(a, b)| a.get() == b.get())
    }
}
