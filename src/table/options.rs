//! A table's options: the game's own and the ones both games share, read
//! from one `options` object.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::fairness::{self, FairDeals};
use super::{GameError, GameKind, from_json};
use crate::rules::{klaverjassen, potverteren};

/// A table's options, per game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Options {
    /// Klaverjassen options.
    Klaverjassen(klaverjassen::Options),
    /// Potverteren options.
    Potverteren(potverteren::Options),
}

impl Options {
    /// Reads `value` as the options of `kind`: unknown options and values out
    /// of range are an error naming the option.
    pub fn parse(kind: GameKind, value: Option<serde_json::Value>) -> Result<Options, GameError> {
        let value = value.unwrap_or_else(|| serde_json::json!({}));
        let invalid = |e: String| GameError::InvalidOptions(e);
        let out_of_range = |option: &str, message: String| {
            GameError::InvalidOptions(format!("options.{option}: {message}"))
        };
        Ok(match kind {
            GameKind::Klaverjassen => {
                let options: klaverjassen::Options =
                    from_json("options", value).map_err(invalid)?;
                options
                    .validate()
                    .map_err(|e| out_of_range(e.option, e.message))?;
                Options::Klaverjassen(options)
            }
            GameKind::Potverteren => {
                let options: potverteren::Options = from_json("options", value).map_err(invalid)?;
                options
                    .validate()
                    .map_err(|e| out_of_range(e.option, e.message))?;
                Options::Potverteren(options)
            }
        })
    }

    /// A new fair-deal state for a table with these options: Klaverjassen
    /// one chain as long as the match, Potverteren chains of
    /// [`fairness::POTVERTEREN_CHAIN_LENGTH`] rounds, one after another.
    pub fn fair_deals<R: Rng + ?Sized>(&self, rng: &mut R) -> FairDeals {
        match self {
            Options::Klaverjassen(options) => {
                FairDeals::new(u32::from(options.deals), false, 4, rng)
            }
            Options::Potverteren(options) => {
                FairDeals::new(fairness::POTVERTEREN_CHAIN_LENGTH, true, options.seats, rng)
            }
        }
    }

    /// How many seats the table has.
    pub fn seat_count(&self) -> u8 {
        match self {
            Options::Klaverjassen(_) => 4,
            Options::Potverteren(options) => options.seats,
        }
    }
}

/// The table options both games share: the turn clock, the pace of
/// computer players and whether hints are on (API.md "Computer players and
/// clocks"). They sit beside the game's own options in `options`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableOptions {
    /// Seconds a seat has for its turn; `None` for no clock.
    #[serde(default)]
    pub turn_seconds: Option<u32>,
    /// Milliseconds between a computer player's turn and its move.
    #[serde(default = "default_bot_delay_ms")]
    pub bot_delay_ms: u32,
    /// Whether `GET /v1/games/{id}/hint` answers on this table.
    #[serde(default)]
    pub hints: bool,
    /// Whether the table is private: absent from the lobby and from
    /// matchmaking, joined by its invite code.
    #[serde(default)]
    pub private: bool,
}

/// The default pause before a computer player's move: long enough for a
/// person to see each card land, short enough not to bore.
pub const DEFAULT_BOT_DELAY_MS: u32 = 800;

fn default_bot_delay_ms() -> u32 {
    DEFAULT_BOT_DELAY_MS
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            turn_seconds: None,
            bot_delay_ms: DEFAULT_BOT_DELAY_MS,
            hints: false,
            private: false,
        }
    }
}

/// The option names of [`TableOptions`].
const TABLE_OPTION_NAMES: [&str; 4] = ["turn_seconds", "bot_delay_ms", "hints", "private"];

impl TableOptions {
    /// Reads the game's options and the table options from one `options`
    /// object: the table options are taken out, the rest is the game's.
    pub fn parse_with(
        kind: GameKind,
        value: Option<serde_json::Value>,
    ) -> Result<(Options, TableOptions), GameError> {
        let mut value = value.unwrap_or_else(|| serde_json::json!({}));
        let mut part = serde_json::Map::new();
        if let Some(map) = value.as_object_mut() {
            for name in TABLE_OPTION_NAMES {
                if let Some(v) = map.remove(name) {
                    part.insert(name.to_owned(), v);
                }
            }
        }
        let table: TableOptions = from_json("options", serde_json::Value::Object(part))
            .map_err(GameError::InvalidOptions)?;
        if let Some(seconds) = table.turn_seconds
            && !(5..=3600).contains(&seconds)
        {
            return Err(GameError::InvalidOptions(format!(
                "options.turn_seconds: null, or 5 to 3600 seconds, not {seconds}"
            )));
        }
        if table.bot_delay_ms > 10_000 {
            return Err(GameError::InvalidOptions(format!(
                "options.bot_delay_ms: 0 to 10000, not {}",
                table.bot_delay_ms
            )));
        }
        Ok((Options::parse(kind, Some(value))?, table))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use uuid::Uuid;

    use super::*;
    use crate::table::{Game, SeatedPlayer};

    /// A view shows every option of the game and of the table in one
    /// object, as they were chosen (`Game::shown_options`, written without
    /// a JSON tree; `options_json` is the same object as a tree).
    #[test]
    fn a_view_shows_every_option_of_the_game_and_of_the_table() {
        for (kind, chosen) in [
            (
                GameKind::Klaverjassen,
                serde_json::json!({"deals": 4, "hints": true}),
            ),
            (
                GameKind::Potverteren,
                serde_json::json!({"seats": 6, "turn_seconds": 20}),
            ),
        ] {
            let (options, table) = TableOptions::parse_with(kind, Some(chosen.clone())).unwrap();
            let host = SeatedPlayer {
                id: Uuid::new_v4(),
                name: "host".into(),
                bot: None,
            };
            let game = Game::create(
                Uuid::new_v4(),
                kind,
                options.clone(),
                table.clone(),
                host,
                None,
                &mut StdRng::seed_from_u64(1),
            )
            .unwrap();
            let shown = serde_json::to_value(game.shown_options()).unwrap();
            let mut expected = serde_json::to_value(&options).unwrap();
            let serde_json::Value::Object(table) = serde_json::to_value(&table).unwrap() else {
                panic!("the table options are an object");
            };
            expected.as_object_mut().unwrap().extend(table);
            assert_eq!(shown, expected);
            for (name, value) in chosen.as_object().unwrap() {
                assert_eq!(shown[name], *value, "{name}");
            }
            assert_eq!(game.options_json(), shown);
        }
    }
}
