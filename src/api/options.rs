//! A table's options as the API takes them (a new table's, every one
//! optional) and as it shows them (a game's, every one present).
//!
//! The options are read and written by the table itself
//! (`table::TableOptions::parse_with`, `table::view::ShownOptions`): the
//! types here describe that JSON, and the tests in tests/openapi.rs hold
//! them to it.

use serde::Serialize;
use utoipa::ToSchema;

use super::cards::Seat;
use super::klaverjassen::{RevokeMode, TrumpChoice, TrumpObligation, Undertrump};
use super::potverteren::Variant;
use crate::rules::{klaverjassen, potverteren};

/// The options of a Klaverjassen table; every one may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"revoke_mode": "enforced", "first_dealer": 3, "deals": 16, "auto_deal": false,
    "trump_obligation": "amsterdam", "undertrump": "required", "trump_choice": "pass_round",
    "four_jacks": 100}))]
pub struct KlaverjassenOptions {
    /// Whether a card that may not be played is refused (`enforced`) or
    /// accepted and left to the opponents to report (`club`).
    #[schema(example = "club")]
    pub revoke_mode: RevokeMode,
    /// The dealer of deal 1 (0..=3); the seat after it names trump first.
    #[schema(example = 3)]
    pub first_dealer: Seat,
    /// How many deals the match lasts (1..=16).
    #[schema(example = 16, minimum = 1, maximum = 16)]
    pub deals: u8,
    /// Whether the server deals each deal itself as soon as it is due.
    #[schema(example = false)]
    pub auto_deal: bool,
    /// Whether a seat void in the led suit must trump while its partner is
    /// winning the trick: `rotterdam` (always) or `amsterdam` (not on the
    /// partner's trick; a lower trump stays a last resort).
    #[schema(example = "amsterdam")]
    pub trump_obligation: TrumpObligation,
    /// A seat void in the led suit that cannot overtrump: `last_resort`
    /// (plays a card that is no trump if it has one) or `required` (plays a
    /// trump if it has one, *verplicht ondertroeven*).
    #[schema(example = "required")]
    pub undertrump: Undertrump,
    /// Who names trump: `voorhand` (the seat after the dealer, no pass) or
    /// `pass_round` (each seat in turn names trump or passes with
    /// `{"type": "pass"}`; after four passes the seat after the dealer must
    /// name it).
    #[schema(example = "pass_round")]
    pub trump_choice: TrumpChoice,
    /// The roem of four jacks in one trick: 200 or 100.
    pub four_jacks: FourJacks,
}

impl From<klaverjassen::Options> for KlaverjassenOptions {
    fn from(options: klaverjassen::Options) -> KlaverjassenOptions {
        KlaverjassenOptions {
            revoke_mode: options.revoke_mode.into(),
            first_dealer: options.first_dealer.into(),
            deals: options.deals,
            auto_deal: options.auto_deal,
            trump_obligation: options.trump_obligation.into(),
            undertrump: options.undertrump.into(),
            trump_choice: options.trump_choice.into(),
            four_jacks: FourJacks(options.four_jacks.into()),
        }
    }
}

/// The rules' defaults: the document states them as each option's `default`.
impl Default for KlaverjassenOptions {
    fn default() -> KlaverjassenOptions {
        klaverjassen::Options::default().into()
    }
}

/// The options of a Potverteren table; every one may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"seats": 6, "variant": "auction", "starting_chips": 100, "auto_deal": false}))]
pub struct PotverterenOptions {
    /// Number of seats, 5 to 10.
    #[schema(minimum = 5, maximum = 10, example = 5)]
    pub seats: u8,
    /// How the pothouder is chosen.
    pub variant: Variant,
    /// Chips each seat starts with, 0 to 1,000,000.
    #[schema(minimum = 0, maximum = 1_000_000, example = 100)]
    pub starting_chips: i64,
    /// Whether the server deals as soon as a deal is due, instead of waiting
    /// for the pothouder's `deal`.
    #[schema(example = false)]
    pub auto_deal: bool,
}

impl From<potverteren::Options> for PotverterenOptions {
    fn from(options: potverteren::Options) -> PotverterenOptions {
        PotverterenOptions {
            seats: options.seats,
            variant: options.variant.into(),
            starting_chips: options.starting_chips,
            auto_deal: options.auto_deal,
        }
    }
}

/// The rules' defaults: the document states them as each option's `default`.
impl Default for PotverterenOptions {
    fn default() -> PotverterenOptions {
        potverteren::Options::default().into()
    }
}

/// The roem of four jacks in one trick, written as the number: 200 or 100.
/// Its schema is written by hand: an integer enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct FourJacks(pub u16);

impl utoipa::PartialSchema for FourJacks {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .enum_values(Some([200, 100]))
            .description(Some("The roem of four jacks in one trick: 200 or 100."))
            .examples([serde_json::json!(100)])
            .into()
    }
}

impl ToSchema for FourJacks {}

/// The options of either game, as a game shows them: every option present.
/// (The request's all-optional shapes would both match either game's
/// options, so a generated client read Potverteren options as Klaverjassen
/// ones; with every option required the two are told apart.) The document
/// goes further and ties them to `game`: `http::openapi` replaces this
/// `oneOf` with one view and one summary schema per game.
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
    "auto_deal": true, "trump_obligation": "rotterdam", "undertrump": "last_resort",
    "trump_choice": "voorhand", "four_jacks": 200, "turn_seconds": 60, "bot_delay_ms": 800, "hints": false,
    "private": false}))]
pub struct KlaverjassenOptionsView {
    /// Whether a card that may not be played is refused (`enforced`) or
    /// accepted and left to the opponents to report (`club`).
    pub revoke_mode: RevokeMode,
    /// The dealer of deal 1 (0..=3); the seat after it names trump first.
    pub first_dealer: Seat,
    /// How many deals the match lasts (1..=16).
    #[schema(example = 16, minimum = 1, maximum = 16)]
    pub deals: u8,
    /// Whether the server deals each deal itself as soon as it is due.
    #[schema(example = true)]
    pub auto_deal: bool,
    /// Whether a seat void in the led suit must trump while its partner is
    /// winning the trick: `rotterdam` (always) or `amsterdam` (not on the
    /// partner's trick; a lower trump stays a last resort).
    pub trump_obligation: TrumpObligation,
    /// A seat void in the led suit that cannot overtrump: `last_resort`
    /// (plays a card that is no trump if it has one) or `required` (plays a
    /// trump if it has one, *verplicht ondertroeven*).
    pub undertrump: Undertrump,
    /// Who names trump: `voorhand` (the seat after the dealer, no pass) or
    /// `pass_round` (each seat in turn names trump or passes with
    /// `{"type": "pass"}`; after four passes the seat after the dealer must
    /// name it).
    pub trump_choice: TrumpChoice,
    /// The roem of four jacks in one trick: 200 or 100.
    pub four_jacks: FourJacks,
    /// Seconds a seat has for its turn, 5..3600; null for no clock.
    #[schema(example = 60, minimum = 5, maximum = 3600, required = true)]
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
    pub variant: Variant,
    /// Chips each seat starts with, 0 to 1,000,000.
    #[schema(minimum = 0, maximum = 1_000_000, example = 100)]
    pub starting_chips: i64,
    /// Whether the server deals as soon as a deal is due, instead of waiting
    /// for the pothouder's `deal`.
    #[schema(example = false)]
    pub auto_deal: bool,
    /// Seconds a seat has for its turn, 5..3600; null for no clock.
    #[schema(example = 60, minimum = 5, maximum = 3600, required = true)]
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
            .item(Ref::from_schema_name(KlaverjassenOptions::name()))
            .item(Ref::from_schema_name(PotverterenOptions::name()))
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
            KlaverjassenOptions::name().into(),
            with_table_options(KlaverjassenOptions::schema()),
        ));
        <KlaverjassenOptions as ToSchema>::schemas(schemas);
        schemas.push((
            PotverterenOptions::name().into(),
            with_table_options(PotverterenOptions::schema()),
        ));
        <PotverterenOptions as ToSchema>::schemas(schemas);
    }
}

/// The options both games share, as a new table takes them; every one may
/// be left out. The JSON of `table::TableOptions`.
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
