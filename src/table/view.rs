//! What a caller sees of a game: the table envelope around the rules core's
//! own per-seat projection, so hidden information is decided by the rules.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::Level;
use super::fairness::FairnessView;
use super::{Game, GameKind, Move, Options, RulesView, SeatedPlayer, Status, TableOptions};
use crate::rules::cards::{Card, Suit};
use crate::rules::{Action, Seat, klaverjassen, potverteren};

/// A seat and who sits in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "seat": 0, "player": {"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"},
    "bot": null, "away": false
}))]
pub struct SeatView {
    /// The seat number.
    pub seat: Seat,
    /// The player in it, or null when free.
    pub player: Option<SeatedPlayer>,
    /// The computer player's level when a computer player sits here, else null.
    pub bot: Option<Level>,
    /// Whether the seat is away: its clock ran out, and its moves are made
    /// for it at once until its player acts again.
    pub away: bool,
}

/// Who the table waits for, and until when.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"seats": [3], "action": "play", "deadline": "2026-12-05T10:16:00Z"}))]
pub struct AwaitingView {
    /// The seats the table waits for.
    pub seats: Vec<Seat>,
    /// What they are to do.
    pub action: Action,
    /// When their clock runs out (RFC 3339); null on a table without a clock.
    #[schema(example = "2026-12-05T10:16:00Z")]
    pub deadline: Option<chrono::DateTime<chrono::Utc>>,
}

/// A table's options as views show them: the game's own and the table
/// options both games share, in one object (as `Game::options_json`
/// builds them, without building a JSON tree first).
#[derive(Debug, Serialize)]
pub struct ShownOptions {
    /// The game's own options.
    #[serde(flatten)]
    pub game: Options,
    /// The table options.
    #[serde(flatten)]
    pub table: TableOptions,
}

/// A game as the caller may see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    #[schema(example = "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11")]
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Adds one with every accepted change; send it back as `expected_version`.
    #[schema(example = 7)]
    pub version: i64,
    /// The table options.
    #[schema(value_type = OptionsSchema)]
    pub options: ShownOptions,
    /// The player who created the table and controls it before it starts.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
    /// The caller's seat, or null for a spectator.
    pub you: Option<Seat>,
    /// Who the table waits for; null when finished.
    pub awaiting: Option<AwaitingView>,
    /// The moves the caller may make now.
    #[schema(value_type = Vec<MoveSchema>)]
    pub legal_moves: Vec<Move>,
    /// The Klaverjassen match as the caller may see it; absent until every seat is taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub klaverjassen: Option<klaverjassen::View>,
    /// The Potverteren table as the caller may see it; absent until every seat is taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potverteren: Option<potverteren::View>,
    /// The commitment to the server seeds and the seat seeds in force
    /// (docs/fairness.md).
    pub fairness: FairnessView,
    /// A private table's invite code, for seated players only (null for
    /// others and on public tables): `GET`/`POST /v1/invites/{code}`.
    #[schema(example = "K7M9TQ4XRB")]
    pub invite_code: Option<String>,
    /// The table `POST …/rematch` created after this finished one, or null.
    #[schema(example = "7e4d2c1b-9a8f-4e6d-b5c3-1a2b3c4d5e6f")]
    pub rematch: Option<Uuid>,
    /// Seats a rematch holds for the previous match's players: only that
    /// player may take one until `until`, then it is free for anyone.
    pub reserved_seats: Vec<ReservedSeatView>,
}

impl GameView {
    /// The Klaverjassen moves among `legal_moves` (none at Potverteren), as
    /// the Klaverjassen players and the hint weigh them.
    pub fn klaverjassen_moves(&self) -> Vec<klaverjassen::Move> {
        self.legal_moves
            .iter()
            .filter_map(|m| match m {
                Move::Klaverjassen(m) => Some(*m),
                Move::Potverteren(_) | Move::Table(_) => None,
            })
            .collect()
    }
}

/// A seat held for one player (a rematch).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"seat": 2, "player": "c1e7a9b3-2d4f-4e81-a6b5-7f9c3e1d2a48",
    "until": "2026-12-05T10:20:00Z"}))]
pub struct ReservedSeatView {
    /// The seat.
    pub seat: Seat,
    /// The only player who may take it.
    #[schema(example = "c1e7a9b3-2d4f-4e81-a6b5-7f9c3e1d2a48")]
    pub player: Uuid,
    /// When the hold ends.
    #[schema(example = "2026-12-05T10:20:00Z")]
    pub until: chrono::DateTime<chrono::Utc>,
}

/// The options of either game, as a game shows them: every option present.
/// (The request's all-optional shapes would both match either game's
/// options, so a generated client read Potverteren options as Klaverjassen
/// ones; with every option required the two are told apart.)
#[derive(ToSchema)]
#[serde(untagged)]
pub enum OptionsSchema {
    /// Klaverjassen options.
    Klaverjassen(KlaverjassenOptionsView),
    /// Potverteren options.
    Potverteren(PotverterenOptionsView),
}

/// The options of a Klaverjassen table as a game shows them, every one
/// present; the JSON of `klaverjassen::Options`.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"revoke_mode": "enforced", "first_dealer": 3, "deals": 16,
    "auto_deal": true, "turn_seconds": 60, "bot_delay_ms": 800, "hints": false,
    "private": false}))]
pub struct KlaverjassenOptionsView {
    /// Whether a card that may not be played is refused (`enforced`) or
    /// accepted and left to the opponents to report (`club`).
    pub revoke_mode: klaverjassen::RevokeMode,
    /// The dealer of deal 1 (0..=3); the seat after it names trump first.
    pub first_dealer: Seat,
    /// How many deals the match lasts (1..=16).
    #[schema(example = 16, minimum = 1, maximum = 16)]
    pub deals: u8,
    /// Whether the server deals each deal itself as soon as it is due.
    #[schema(example = true)]
    pub auto_deal: bool,
    /// Seconds a seat has for its turn, 5..3600; null for no clock.
    #[schema(example = 60, minimum = 5, maximum = 3600)]
    pub turn_seconds: Option<u32>,
    /// Milliseconds a computer player waits before its move, 0..10000.
    #[schema(example = 800, minimum = 0, maximum = 10000)]
    pub bot_delay_ms: u32,
    /// Whether the hint endpoint answers on this table.
    #[schema(example = false)]
    pub hints: bool,
    /// Whether the table is private (not in the lobby; joined by invite code).
    #[schema(example = false)]
    pub private: bool,
}

/// The options of a Potverteren table as a game shows them, every one
/// present; the JSON of `potverteren::Options`.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seats": 5, "variant": "auction", "starting_chips": 100,
    "auto_deal": false, "turn_seconds": 60, "bot_delay_ms": 800, "hints": false,
    "private": false}))]
pub struct PotverterenOptionsView {
    /// Number of seats, 5 to 10.
    #[schema(minimum = 5, maximum = 10, example = 5)]
    pub seats: u8,
    /// How the pothouder is chosen.
    pub variant: potverteren::Variant,
    /// Chips each seat starts with, 0 to 1,000,000.
    #[schema(minimum = 0, maximum = 1_000_000, example = 100)]
    pub starting_chips: i64,
    /// Whether the server deals as soon as a deal is due, instead of waiting
    /// for the pothouder's `deal`.
    #[schema(example = false)]
    pub auto_deal: bool,
    /// Seconds a seat has for its turn, 5..3600; null for no clock.
    #[schema(example = 60, minimum = 5, maximum = 3600)]
    pub turn_seconds: Option<u32>,
    /// Milliseconds a computer player waits before its move, 0..10000.
    #[schema(example = 800, minimum = 0, maximum = 10000)]
    pub bot_delay_ms: u32,
    /// Whether the hint endpoint answers on this table.
    #[schema(example = false)]
    pub hints: bool,
    /// Whether the table is private (not in the lobby; joined by invite code).
    #[schema(example = false)]
    pub private: bool,
}

/// The options of a new table, for the game named beside them; every one may
/// be left out. An `anyOf`, not a `oneOf`: `{}` is valid options of either
/// game, and the server reads them as those of the game named.
pub struct NewOptionsSchema;

impl utoipa::PartialSchema for NewOptionsSchema {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AnyOfBuilder, Ref};
        AnyOfBuilder::new()
            .item(Ref::from_schema_name(<klaverjassen::Options as ToSchema>::name()))
            .item(Ref::from_schema_name(<potverteren::Options as ToSchema>::name()))
            .description(Some(
                "The options of a new table, for the game named beside them; every one may be left out.",
            ))
            .into()
    }
}

impl ToSchema for NewOptionsSchema {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        schemas.push((
            <klaverjassen::Options as ToSchema>::name().into(),
            with_table_options(klaverjassen::Options::schema()),
        ));
        <klaverjassen::Options as ToSchema>::schemas(schemas);
        schemas.push((
            <potverteren::Options as ToSchema>::name().into(),
            with_table_options(potverteren::Options::schema()),
        ));
        <potverteren::Options as ToSchema>::schemas(schemas);
    }
}

/// The options both games share, as a new table takes them; every one may
/// be left out. The JSON of [`super::TableOptions`].
#[derive(ToSchema)]
#[expect(dead_code, reason = "describes JSON only")]
struct NewTableOptions {
    /// Seconds a seat has for its turn, 5..3600; null (the default) for no
    /// clock. When it runs out, the seat's move is made for it and the seat
    /// is away.
    #[schema(example = 60, minimum = 5, maximum = 3600)]
    turn_seconds: Option<u32>,
    /// Milliseconds a computer player waits before its move, 0..10000
    /// (default 800).
    #[schema(example = 800, minimum = 0, maximum = 10000, default = 800)]
    bot_delay_ms: Option<u32>,
    /// Whether the hint endpoint answers on this table (default false).
    #[schema(default = false)]
    hints: Option<bool>,
    /// Whether the table is private (default false): it is not in the lobby
    /// nor found by matchmaking, and seated players see its `invite_code`.
    #[schema(default = false)]
    private: Option<bool>,
}

/// A game's own options schema with the shared table options added.
fn with_table_options(
    schema: utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::PartialSchema;
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::Schema;
    let (RefOr::T(Schema::Object(mut object)), RefOr::T(Schema::Object(table))) =
        (schema.clone(), NewTableOptions::schema())
    else {
        return schema;
    };
    object.properties.extend(table.properties);
    RefOr::T(Schema::Object(object))
}

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
    /// Potverteren.
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

impl Game {
    /// The table's options as views show them.
    pub fn shown_options(&self) -> ShownOptions {
        ShownOptions {
            game: self.options.clone(),
            table: self.table.clone(),
        }
    }

    /// The game as `caller` may see it: its own seat's view when seated, the
    /// spectator view otherwise.
    pub fn view_for(&self, caller: Option<Uuid>) -> GameView {
        self.view_of_seat(caller.and_then(|p| self.seat_of(p)))
    }

    /// [`Game::view_for`] as JSON.
    pub fn view_json(&self, caller: Option<Uuid>) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(&self.view_for(caller))
    }

    /// [`Game::view_json`] added to the end of `out` (an event stream's
    /// frame, say).
    pub fn write_view_json(
        &self,
        caller: Option<Uuid>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        serde_json::to_writer(out, &self.view_for(caller))
    }

    /// The game as `seat` may see it (`None`: a spectator): what a person in
    /// that seat gets, and all a computer player in it may decide from.
    pub fn view_of_seat(&self, you: Option<Seat>) -> GameView {
        let RulesView {
            mut klaverjassen,
            mut potverteren,
        } = self
            .rules
            .as_ref()
            .map(|rules| rules.game().view(you))
            .unwrap_or_default();
        // Seeds of finished deals only: those rows exist once a deal is over.
        // A row has them since its deal ended; one stored before rows kept
        // them gets them here.
        if let Some(view) = klaverjassen.as_mut() {
            crate::rules::klaverjassen::fill_seeds(&mut view.deals, |deal| {
                self.fairness.seeds_of(deal)
            });
        }
        if let Some(last) = potverteren
            .as_mut()
            .and_then(|view| view.last_round.as_mut())
            && let Some(revealed) = self.fairness.reveal(last.round)
        {
            last.server_seed = Some(revealed.server_seed);
            last.seat_seeds = revealed
                .seat_seeds
                .into_iter()
                .map(|s| s.map(String::from))
                .collect();
        }
        GameView {
            id: self.id,
            game: self.kind,
            status: self.status,
            version: self.version,
            options: self.shown_options(),
            host: self.host,
            seats: self.seat_views(),
            you,
            awaiting: self.awaiting().map(|a| AwaitingView {
                seats: a.seats,
                action: a.action,
                deadline: self
                    .deadline
                    .and_then(chrono::DateTime::from_timestamp_micros),
            }),
            legal_moves: you.map(|s| self.legal_moves_of(s)).unwrap_or_default(),
            klaverjassen,
            potverteren,
            fairness: self.fairness.view(self.deal_number()),
            invite_code: you.and(self.friends.invite_code.clone()),
            rematch: self.friends.rematch,
            reserved_seats: self
                .friends
                .reservations
                .iter()
                .filter(|r| {
                    self.status == Status::Waiting && self.seats[usize::from(r.seat)].is_none()
                })
                .map(|r| ReservedSeatView {
                    seat: Seat(r.seat),
                    player: r.player,
                    until: chrono::DateTime::from_timestamp_micros(r.until).unwrap_or_default(),
                })
                .collect(),
        }
    }

    fn seat_views(&self) -> Vec<SeatView> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, player)| SeatView {
                seat: Seat(i as u8),
                player: player.clone(),
                bot: player.as_ref().and_then(|p| p.bot),
                away: self.away.get(i).copied().unwrap_or(false),
            })
            .collect()
    }

    /// The lobby's summary of this table (public: no hidden information).
    pub fn summary(&self) -> GameSummary {
        GameSummary {
            id: self.id,
            game: self.kind,
            status: self.status,
            version: self.version,
            options: self.shown_options(),
            host: self.host,
            seats: self.seat_views(),
        }
    }
}

/// A table in a listing.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "game": "klaverjassen", "status": "waiting",
    "version": 2,
    "options": {"revoke_mode": "enforced", "first_dealer": 3, "deals": 16, "auto_deal": true,
        "turn_seconds": 60, "bot_delay_ms": 800, "hints": false, "private": false},
    "host": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72",
    "seats": [
        {"seat": 0, "player": {"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"},
            "bot": null, "away": false},
        {"seat": 1, "player": {"id": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d",
            "name": "Computer 1 (basic)"}, "bot": "basic", "away": false},
        {"seat": 2, "player": null, "bot": null, "away": false},
        {"seat": 3, "player": null, "bot": null, "away": false}
    ]
}))]
pub struct GameSummary {
    /// The game's id.
    #[schema(example = "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11")]
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// The game's version.
    #[schema(example = 2)]
    pub version: i64,
    /// The table options.
    #[schema(value_type = OptionsSchema)]
    pub options: ShownOptions,
    /// The player who created the table.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
}
