//! A page of a listing, as listings answer.

use serde::Serialize;
use utoipa::ToSchema;

use crate::api::game::GameSummary;
use crate::app::tables::Listing;

/// A page of a listing.
#[derive(Serialize, ToSchema)]
pub struct Page<T: ToSchema> {
    /// The items, newest first.
    pub items: Vec<T>,
    /// Pass as `cursor` to get the next page; null on the last page.
    #[schema(example = "1796465700000000_0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11")]
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

impl From<Listing> for Page<GameSummary> {
    fn from(listing: Listing) -> Self {
        Page {
            items: listing.items,
            next_cursor: listing.next_cursor,
        }
    }
}
