//! The `klaverjassen` object of a game view: the match as one seat may see
//! it, its tricks and its score sheet.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::cards::{Card, Seat, Suit};
use crate::rules::klaverjassen;

/// A seat's view of the match (docs/api.md "Views", `klaverjassen`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "deal_number": 1, "dealer": 3, "phase": "playing",
    "trump": "C", "trump_chosen_by": 0, "playing_team": "A", "passed": [],
    "hand": ["JC", "10D", "7H", "9H", "10H", "KS", "AS"],
    "hand_sizes": [7, 7, 6, 7],
    "trick": {"number": 2, "leader": 2, "cards": [{"seat": 2, "card": "AD"}]},
    "previous_trick": {"number": 1, "leader": 0, "cards": [
        {"seat": 0, "card": "AC"}, {"seat": 1, "card": "10C"},
        {"seat": 2, "card": "9C"}, {"seat": 3, "card": "KC"}
    ], "winner": 2},
    "review_tricks": null,
    "tricks_taken": {"A": 1, "B": 0}, "roem": {"A": 0, "B": 0},
    "deals": [], "totals": {"A": 0, "B": 0}
}))]
pub struct KlaverjassenView {
    /// The deal in progress or due, 1..=`deals`.
    #[schema(example = 1)]
    pub deal_number: u8,
    /// The dealer of that deal.
    pub dealer: Seat,
    /// Where the match stands.
    pub phase: KlaverjassenPhase,
    /// The trump suit, once named.
    #[schema(required = true)]
    pub trump: Option<Suit>,
    /// The seat that named trump.
    #[schema(required = true)]
    pub trump_chosen_by: Option<Seat>,
    /// The team of the seat that named trump.
    #[schema(required = true)]
    pub playing_team: Option<Team>,
    /// The seats that passed the trump choice of the deal in progress, in
    /// the order they passed (tables with `trump_choice: pass_round`;
    /// empty otherwise and while a deal is due).
    #[schema(example = json!([0, 1]))]
    pub passed: Vec<Seat>,
    /// The caller's own cards (empty for a spectator).
    pub hand: CardSet,
    /// How many cards each seat holds.
    pub hand_sizes: BySeat<u8>,
    /// The trick in progress, during play.
    #[schema(required = true)]
    pub trick: Option<OpenTrick>,
    /// The last completed trick, until the next one completes; trick 8
    /// during the review.
    #[schema(required = true)]
    pub previous_trick: Option<CompletedTrick>,
    /// During the review (club mode): every trick of the deal.
    #[schema(required = true)]
    pub review_tricks: Option<Vec<CompletedTrick>>,
    /// Tricks each team has taken in the deal in progress.
    pub tricks_taken: ByTeam<u8>,
    /// Roem each team has made in the deal in progress.
    pub roem: ByTeam<i32>,
    /// The score sheet: one row per finished deal, with its full history.
    #[schema(value_type = Vec<DealRecord>)]
    pub deals: Vec<SheetRow>,
    /// Each team's match total.
    pub totals: ByTeam<i32>,
}

impl From<klaverjassen::View> for KlaverjassenView {
    fn from(view: klaverjassen::View) -> KlaverjassenView {
        KlaverjassenView {
            deal_number: view.deal_number,
            dealer: view.dealer.into(),
            phase: view.phase.into(),
            trump: view.trump.map(Suit::from),
            trump_chosen_by: view.trump_chosen_by.map(Seat::from),
            playing_team: view.playing_team.map(Team::from),
            passed: view.passed.into_iter().map(Seat::from).collect(),
            hand: CardSet(view.hand),
            hand_sizes: view.hand_sizes.into(),
            trick: view.trick.map(OpenTrick::from),
            previous_trick: view.previous_trick.map(CompletedTrick::from),
            review_tricks: view
                .review_tricks
                .map(|tricks| tricks.into_iter().map(CompletedTrick::from).collect()),
            tricks_taken: view.tricks_taken.into(),
            roem: view.roem.into(),
            deals: view
                .deals
                .into_iter()
                .map(|row| SheetRow::Record(row.into()))
                .collect(),
            totals: view.totals.into(),
        }
    }
}

/// A row of the score sheet in a view: built from the rules' record, or
/// the row's JSON as the store wrote it ([`crate::table::StoredSheet`]),
/// which is the same JSON (the store's tests show both alike).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum SheetRow {
    /// Built from the rules' record.
    Record(DealRecord),
    /// As stored.
    Stored(Arc<RawValue>),
}

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum KlaverjassenPhase {
    /// A deal is due: the dealer is to deal.
    Dealing,
    /// Trump is being named (by the seat after the dealer, or in turn with
    /// a pass round).
    ChoosingTrump,
    /// Tricks are being played.
    Playing,
    /// Club mode, after the last trick: every trick is shown and each seat
    /// reports or says it is done.
    Review,
    /// The last deal is over.
    Finished,
}

impl From<klaverjassen::Phase> for KlaverjassenPhase {
    fn from(phase: klaverjassen::Phase) -> KlaverjassenPhase {
        match phase {
            klaverjassen::Phase::Dealing => KlaverjassenPhase::Dealing,
            klaverjassen::Phase::ChoosingTrump => KlaverjassenPhase::ChoosingTrump,
            klaverjassen::Phase::Playing => KlaverjassenPhase::Playing,
            klaverjassen::Phase::Review => KlaverjassenPhase::Review,
            klaverjassen::Phase::Finished => KlaverjassenPhase::Finished,
        }
    }
}

/// A team: seats 0 and 2 are team A (*wij*), seats 1 and 3 team B (*zij*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum Team {
    /// Seats 0 and 2 (*wij*).
    A,
    /// Seats 1 and 3 (*zij*).
    B,
}

impl From<klaverjassen::Team> for Team {
    fn from(team: klaverjassen::Team) -> Team {
        match team {
            klaverjassen::Team::A => Team::A,
            klaverjassen::Team::B => Team::B,
        }
    }
}

/// One value per team, written `{"A": .., "B": ..}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"A": 5, "B": 3}))]
pub struct ByTeam<T> {
    /// Team A's value.
    #[serde(rename = "A")]
    #[schema(schema_with = team_a_schema::<T>)]
    pub a: T,
    /// Team B's value.
    #[serde(rename = "B")]
    #[schema(schema_with = team_b_schema::<T>)]
    pub b: T,
}

impl<T> From<klaverjassen::ByTeam<T>> for ByTeam<T> {
    fn from(values: klaverjassen::ByTeam<T>) -> ByTeam<T> {
        ByTeam {
            a: values.a,
            b: values.b,
        }
    }
}

/// The schema of [`ByTeam::a`]: utoipa builds a generic field's schema from
/// its type alone and drops its doc comment, so the description is added
/// here.
fn team_a_schema<T: utoipa::PartialSchema>() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    described::<T>("Team A's value.")
}

/// The schema of [`ByTeam::b`] (see [`team_a_schema`]).
fn team_b_schema<T: utoipa::PartialSchema>() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    described::<T>("Team B's value.")
}

/// `T`'s schema with `description`.
fn described<T: utoipa::PartialSchema>(
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::{RefOr, Schema};
    match T::schema() {
        RefOr::T(Schema::Object(mut object)) => {
            object.description = Some(description.to_owned());
            RefOr::T(Schema::Object(object))
        }
        other => other,
    }
}

/// One value per seat, written as an array indexed by seat number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(transparent)]
pub struct BySeat<T>(pub [T; 4]);

impl From<klaverjassen::BySeat<u8>> for BySeat<u8> {
    fn from(values: klaverjassen::BySeat<u8>) -> BySeat<u8> {
        BySeat(values.0)
    }
}

/// A set of Klaverjassen cards, written as their codes. Its schema is
/// written by hand: an array of cards with an example of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CardSet(pub klaverjassen::CardSet);

impl utoipa::PartialSchema for CardSet {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ArrayBuilder::new()
            .items(<Card as utoipa::PartialSchema>::schema())
            .description(Some("Cards, clubs to spades, 7 to ace within a suit."))
            .examples([serde_json::json!(["7C", "JC", "10H", "AS"])])
            .into()
    }
}

impl ToSchema for CardSet {}

/// A card in a trick and the seat that played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 1, "card": "10H"}))]
pub struct PlayedCard {
    /// Who played the card.
    pub seat: Seat,
    /// The card.
    pub card: Card,
}

impl From<klaverjassen::PlayedCard> for PlayedCard {
    fn from(played: klaverjassen::PlayedCard) -> PlayedCard {
        PlayedCard {
            seat: played.seat.into(),
            card: played.card.into(),
        }
    }
}

/// The trick in progress (*de slag die open ligt*), possibly still empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"number": 2, "leader": 2, "cards": [{"seat": 2, "card": "AD"}]}))]
pub struct OpenTrick {
    /// The trick's number in the deal, 1..=8.
    #[schema(example = 3)]
    pub number: u8,
    /// The seat that leads it.
    pub leader: Seat,
    /// The cards played so far, in play order.
    pub cards: Vec<PlayedCard>,
}

impl From<klaverjassen::OpenTrick> for OpenTrick {
    fn from(trick: klaverjassen::OpenTrick) -> OpenTrick {
        OpenTrick {
            number: trick.number,
            leader: trick.leader.into(),
            cards: trick.cards.into_iter().map(PlayedCard::from).collect(),
        }
    }
}

/// A trick with all four cards and its winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"number": 1, "leader": 0, "cards": [
    {"seat": 0, "card": "AC"}, {"seat": 1, "card": "10C"},
    {"seat": 2, "card": "9C"}, {"seat": 3, "card": "KC"}
], "winner": 2}))]
pub struct CompletedTrick {
    /// The trick's number in the deal, 1..=8.
    #[schema(example = 2)]
    pub number: u8,
    /// The seat that led it.
    pub leader: Seat,
    /// The four cards in play order.
    pub cards: [PlayedCard; 4],
    /// The seat that won it and leads the next.
    pub winner: Seat,
}

impl From<klaverjassen::CompletedTrick> for CompletedTrick {
    fn from(trick: klaverjassen::CompletedTrick) -> CompletedTrick {
        CompletedTrick {
            number: trick.number,
            leader: trick.leader.into(),
            cards: trick.cards.map(PlayedCard::from),
            winner: trick.winner.into(),
        }
    }
}

/// One row of the score sheet: a finished deal, its score and its history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({
    "number": 1, "dealer": 3, "trump": "H", "playing_team": "A",
    "card_points": {"A": 124, "B": 38}, "roem": {"A": 0, "B": 20},
    "score": {"A": 124, "B": 58}, "pit": false, "nat": false, "report": null,
    "hands": [
        ["7C", "9C", "QD", "KD", "AD", "10H", "QH", "AS"],
        ["7D", "7H", "JH", "AH", "10S", "JS", "QS", "KS"],
        ["8C", "9D", "10D", "JD", "9H", "KH", "7S", "8S"],
        ["10C", "JC", "QC", "KC", "AC", "8D", "8H", "9S"]
    ],
    "tricks": [
        {"number": 1, "leader": 0, "winner": 1, "cards": [{"seat": 0, "card": "9C"},
            {"seat": 1, "card": "JH"}, {"seat": 2, "card": "8C"}, {"seat": 3, "card": "10C"}]},
        {"number": 2, "leader": 1, "winner": 0, "cards": [{"seat": 1, "card": "KS"},
            {"seat": 2, "card": "8S"}, {"seat": 3, "card": "9S"}, {"seat": 0, "card": "AS"}]},
        {"number": 3, "leader": 0, "winner": 2, "cards": [{"seat": 0, "card": "QH"},
            {"seat": 1, "card": "AH"}, {"seat": 2, "card": "9H"}, {"seat": 3, "card": "8H"}]},
        {"number": 4, "leader": 2, "winner": 0, "cards": [{"seat": 2, "card": "10D"},
            {"seat": 3, "card": "8D"}, {"seat": 0, "card": "AD"}, {"seat": 1, "card": "7D"}]},
        {"number": 5, "leader": 0, "winner": 1, "cards": [{"seat": 0, "card": "KD"},
            {"seat": 1, "card": "7H"}, {"seat": 2, "card": "JD"}, {"seat": 3, "card": "JC"}]},
        {"number": 6, "leader": 1, "winner": 0, "cards": [{"seat": 1, "card": "10S"},
            {"seat": 2, "card": "7S"}, {"seat": 3, "card": "AC"}, {"seat": 0, "card": "10H"}]},
        {"number": 7, "leader": 0, "winner": 2, "cards": [{"seat": 0, "card": "7C"},
            {"seat": 1, "card": "JS"}, {"seat": 2, "card": "KH"}, {"seat": 3, "card": "KC"}]},
        {"number": 8, "leader": 2, "winner": 0, "cards": [{"seat": 2, "card": "9D"},
            {"seat": 3, "card": "QC"}, {"seat": 0, "card": "QD"}, {"seat": 1, "card": "QS"}]}
    ],
    "revokes": [],
    "server_seed": "fcff9d515fbd181265afc65ab23729e596b24118fba4609941c7acefb6bd0092",
    "seat_seeds": [null, null, null, null]
}))]
pub struct DealRecord {
    /// The deal's number in the match, 1..=`deals`.
    #[schema(example = 1)]
    pub number: u8,
    /// The seat that dealt.
    pub dealer: Seat,
    /// The trump suit.
    pub trump: Suit,
    /// The team of the seat that named trump (*spelende partij*).
    pub playing_team: Team,
    /// Card points of the tricks each team took, the last trick's 10 included.
    pub card_points: ByTeam<i32>,
    /// Roem each team made.
    pub roem: ByTeam<i32>,
    /// What each team scored for the deal.
    pub score: ByTeam<i32>,
    /// The playing team took all eight tricks.
    #[schema(example = false)]
    pub pit: bool,
    /// The playing team did not score more than the defenders.
    #[schema(example = false)]
    pub nat: bool,
    /// The report that punished a team, if one did.
    #[schema(required = true)]
    pub report: Option<ReportRecord>,
    /// The hands as dealt, by seat.
    pub hands: BySeat<CardSet>,
    /// The completed tricks (all eight unless a punishment ended the deal).
    pub tricks: Vec<CompletedTrick>,
    /// Every revoke of the deal, corrected or not.
    pub revokes: Vec<RevokeRecord>,
    /// The deal's server seed `s(k)` (docs/fairness.md); filled in by the
    /// table around the rules, which keeps the seeds.
    #[schema(example = "5be1c0f8a3d24e6b9f7a1c3e5d7b9f1a2c4e6a8b0d2f4a6c8e0b2d4f6a8c0e2f")]
    #[schema(required = true)]
    pub server_seed: Option<String>,
    /// The seat seeds mixed into the deal's deck, by seat (null where none).
    // Optional in the document, as it has always been: `serde(default)` is
    // what tells utoipa so.
    #[serde(default)]
    #[schema(example = json!(["9f2c", null, null, "00ff17"]))]
    pub seat_seeds: Vec<Option<String>>,
}

impl From<klaverjassen::DealRecord> for DealRecord {
    fn from(row: klaverjassen::DealRecord) -> DealRecord {
        DealRecord {
            number: row.number,
            dealer: row.dealer.into(),
            trump: row.trump.into(),
            playing_team: row.playing_team.into(),
            card_points: row.card_points.into(),
            roem: row.roem.into(),
            score: row.score.into(),
            pit: row.pit,
            nat: row.nat,
            report: row.report.map(ReportRecord::from),
            hands: BySeat(row.hands.0.map(CardSet)),
            // Collected in place, as every conversion of a row's lists:
            // the API's records are laid out as the rules' are.
            tricks: row.tricks.into_iter().map(CompletedTrick::from).collect(),
            revokes: row.revokes.into_iter().map(RevokeRecord::from).collect(),
            server_seed: row.server_seed,
            seat_seeds: row.seat_seeds,
        }
    }
}

/// A revoke (*verzaking*) made in a deal, public once the deal is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 1, "trick": 4, "corrected": false}))]
pub struct RevokeRecord {
    /// The seat that revoked.
    pub seat: Seat,
    /// The trick it revoked in, 1..=8.
    #[schema(example = 4)]
    pub trick: u8,
    /// Whether the card went back to the hand while the trick was open
    /// (taken back, reported, or returned because an earlier card in the
    /// trick was taken back).
    #[schema(example = false)]
    pub corrected: bool,
}

impl From<klaverjassen::RevokeRecord> for RevokeRecord {
    fn from(revoke: klaverjassen::RevokeRecord) -> RevokeRecord {
        RevokeRecord {
            seat: revoke.seat.into(),
            trick: revoke.trick,
            corrected: revoke.corrected,
        }
    }
}

/// The report that ended a deal with a punishment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 1, "reported_by": 2, "valid": true}))]
pub struct ReportRecord {
    /// The seat reported.
    pub seat: Seat,
    /// The seat that reported.
    pub reported_by: Seat,
    /// Whether the named seat had revoked: true punishes its team, false the
    /// reporter's team.
    #[schema(example = true)]
    pub valid: bool,
}

impl From<klaverjassen::ReportRecord> for ReportRecord {
    fn from(report: klaverjassen::ReportRecord) -> ReportRecord {
        ReportRecord {
            seat: report.seat.into(),
            reported_by: report.reported_by.into(),
            valid: report.valid,
        }
    }
}

/// How the table treats a card that may not be played (*verzaken*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RevokeMode {
    /// The server refuses a card that may not be played; nobody can revoke.
    Enforced,
    /// Any held card is accepted, revokes are recorded secretly and may be
    /// taken back, reported and reviewed, as at a real club table.
    Club,
}

impl From<klaverjassen::RevokeMode> for RevokeMode {
    fn from(mode: klaverjassen::RevokeMode) -> RevokeMode {
        match mode {
            klaverjassen::RevokeMode::Enforced => RevokeMode::Enforced,
            klaverjassen::RevokeMode::Club => RevokeMode::Club,
        }
    }
}

/// Whether a seat void in the led suit must trump while its partner is
/// winning the trick (RULES.md section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrumpObligation {
    /// Rotterdam: the obligations to trump and overtrump hold even when the
    /// partner is winning the trick.
    Rotterdam,
    /// Amsterdam: on the partner's trick a seat that cannot follow may play
    /// any card except a trump lower than the highest in the trick (a last
    /// resort).
    Amsterdam,
}

impl From<klaverjassen::TrumpObligation> for TrumpObligation {
    fn from(rule: klaverjassen::TrumpObligation) -> TrumpObligation {
        match rule {
            klaverjassen::TrumpObligation::Rotterdam => TrumpObligation::Rotterdam,
            klaverjassen::TrumpObligation::Amsterdam => TrumpObligation::Amsterdam,
        }
    }
}

/// What a seat void in the led suit that cannot overtrump must play
/// (RULES.md section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Undertrump {
    /// A card that is no trump if it has one; only a hand of nothing but
    /// lower trumps undertrumps.
    LastResort,
    /// A trump, any trump (*verplicht ondertroeven*); refused with
    /// `must_trump` otherwise.
    Required,
}

impl From<klaverjassen::Undertrump> for Undertrump {
    fn from(rule: klaverjassen::Undertrump) -> Undertrump {
        match rule {
            klaverjassen::Undertrump::LastResort => Undertrump::LastResort,
            klaverjassen::Undertrump::Required => Undertrump::Required,
        }
    }
}

/// Who names trump (RULES.md section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrumpChoice {
    /// The seat after the dealer names trump; it cannot pass.
    Voorhand,
    /// From the seat after the dealer on, each seat names trump or passes
    /// (`{"type": "pass"}`); the first to name it makes its team the
    /// playing team; after four passes the seat after the dealer must name
    /// it. That seat leads the first trick whoever named trump.
    PassRound,
}

impl From<klaverjassen::TrumpChoice> for TrumpChoice {
    fn from(rule: klaverjassen::TrumpChoice) -> TrumpChoice {
        match rule {
            klaverjassen::TrumpChoice::Voorhand => TrumpChoice::Voorhand,
            klaverjassen::TrumpChoice::PassRound => TrumpChoice::PassRound,
        }
    }
}
