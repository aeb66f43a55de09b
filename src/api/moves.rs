//! The moves of both games as the document states them: one named schema
//! per move, told apart by `type`.
//!
//! A move is read and written by the rules' own types
//! (`klaverjassen::Move`, `potverteren::Move`, `table::TableMove`): the
//! types here describe that JSON, and tests/openapi.rs holds them to it.

use utoipa::ToSchema;

use super::cards::{Card, Seat, Suit};

/// A move of either game, tagged by `type`: one schema per move, named, with
/// a discriminator on `type`. (A `oneOf` of the two games' move unions made
/// `{"type": "deal"}` match both, and left generated clients with anonymous,
/// numbered variants they could only tell apart by trying each.) The JSON is
/// that of `klaverjassen::Move` and `potverteren::Move`; this type only
/// describes it.
#[derive(ToSchema)]
#[serde(untagged)]
#[schema(example = json!({"type": "play", "card": "10H"}))]
#[schema(discriminator(property_name = "type", mapping(
    ("deal" = "#/components/schemas/DealMove"),
    ("choose_trump" = "#/components/schemas/ChooseTrumpMove"),
    ("play" = "#/components/schemas/PlayMove"),
    ("take_back" = "#/components/schemas/TakeBackMove"),
    ("report_revoke" = "#/components/schemas/ReportRevokeMove"),
    ("end_review" = "#/components/schemas/EndReviewMove"),
    ("bid" = "#/components/schemas/BidMove"),
    ("pass" = "#/components/schemas/PassMove"),
    ("hit" = "#/components/schemas/HitMove"),
    ("stand" = "#/components/schemas/StandMove"),
    ("end_table" = "#/components/schemas/EndTableMove"),
    ("seed" = "#/components/schemas/SeedMove"),
)))]
pub enum MoveSchema {
    /// Both games.
    Deal(DealMove),
    /// Klaverjassen.
    ChooseTrump(ChooseTrumpMove),
    /// Klaverjassen.
    Play(PlayMove),
    /// Klaverjassen, club mode.
    TakeBack(TakeBackMove),
    /// Klaverjassen, club mode.
    ReportRevoke(ReportRevokeMove),
    /// Klaverjassen, club mode.
    EndReview(EndReviewMove),
    /// Potverteren.
    Bid(BidMove),
    /// Potverteren, and Klaverjassen with a pass round.
    Pass(PassMove),
    /// Potverteren.
    Hit(HitMove),
    /// Potverteren.
    Stand(StandMove),
    /// Potverteren.
    EndTable(EndTableMove),
    /// Both games: a seat's own seed (docs/fairness.md).
    Seed(SeedMove),
}

/// One move's schema: an object with `type` fixed to the variant's
/// snake_case name and the move's own fields, no others.
macro_rules! move_schema {
    ($(#[$doc:meta])* $name:ident, $tag_type:ident::$tag:ident { $($(#[$field_attr:meta])* $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(ToSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[serde(rename = "type")]
            #[schema(inline)]
            pub kind: $tag_type,
            $($(#[$field_attr])* pub $field: $ty,)*
        }

        #[doc = concat!("The tag of a `", stringify!($name), "`.")]
        #[derive(ToSchema)]
        #[serde(rename_all = "snake_case")]
        // The field that holds the tag is inlined, and utoipa reads no doc
        // comment built by `concat!`: the description is the field's.
        #[schema(description = concat!(
            "Which move this is, the discriminator of `MoveSchema`: the one value a `",
            stringify!($name),
            "` has."
        ))]
        pub enum $tag_type {
            #[doc = concat!("`", stringify!($tag), "`, in snake_case.")]
            $tag,
        }
    };
}

move_schema!(
    /// The dealer (Klaverjassen) or pothouder (Potverteren) deals.
    DealMove, DealMoveType::Deal {}
);
move_schema!(
    /// Klaverjassen: the seat after the dealer names trump (*troef maken*).
    ChooseTrumpMove, ChooseTrumpMoveType::ChooseTrump {
        /// The trump suit.
        suit: Suit,
    }
);
move_schema!(
    /// Klaverjassen: the seat to play plays a card.
    PlayMove, PlayMoveType::Play {
        /// The card played.
        card: Card,
    }
);
move_schema!(
    /// Klaverjassen, club mode: take back one's revoked card from the open trick.
    TakeBackMove, TakeBackMoveType::TakeBack {}
);
move_schema!(
    /// Klaverjassen, club mode: report that a seat of the other team revoked.
    ReportRevokeMove, ReportRevokeMoveType::ReportRevoke {
        /// The seat reported.
        seat: Seat,
    }
);
move_schema!(
    /// Klaverjassen, club mode: say one is done with the review of the deal.
    EndReviewMove, EndReviewMoveType::EndReview {}
);
move_schema!(
    /// Potverteren: bid this many chips to become pothouder (*opbod*).
    BidMove, BidMoveType::Bid {
        /// Chips, 1 to 1,000,000, more than the highest bid so far.
        #[schema(minimum = 1, maximum = 1_000_000, example = 3)]
        amount: u32,
    }
);
move_schema!(
    /// Potverteren: pass in the auction; final for this auction.
    /// Klaverjassen at a table with `trump_choice: pass_round`: the seat to
    /// name trump passes, and the next seat is to name it (not offered to
    /// the seat after the dealer once all four passed).
    PassMove, PassMoveType::Pass {}
);
move_schema!(
    /// Potverteren: ask a card from the bottom of the deck, face up.
    HitMove, HitMoveType::Hit {}
);
move_schema!(
    /// Potverteren: say stop; the seat's turn is over.
    StandMove, StandMoveType::Stand {}
);
move_schema!(
    /// Potverteren: the host ends the table at the start of a round.
    EndTableMove, EndTableMoveType::EndTable {}
);

move_schema!(
    /// Both games, any seated player at any time: the seat's own seed, mixed
    /// into every deal that begins while it is in force (docs/fairness.md).
    /// Never listed in `legal_moves`.
    SeedMove, SeedMoveType::Seed {
        /// 1 to 64 hex characters.
        #[schema(example = "9f2c41d07be3")]
        value: String,
    }
);
