//! The rules state of a table's game, and the one trait the table drives
//! both games through.

use serde::{Deserialize, Serialize};

use super::GameError;
use super::events::GameEvents;
use super::moves::Move;
use crate::json_text::JsonText;
use crate::rules::fairness::Randomness;
use crate::rules::{Awaiting, GameRules, Refusal, Seat, frozen, klaverjassen, potverteren};

/// The rules state, once every seat is taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// A Klaverjassen match.
    Klaverjassen(klaverjassen::Match),
    /// A Potverteren table.
    Potverteren(potverteren::Table),
}

impl Rules {
    /// The game behind the one trait both games implement: with
    /// construction and decoding, the only place the table tells the two
    /// games apart.
    pub fn game(&self) -> &dyn TableRules {
        match self {
            Rules::Klaverjassen(game) => game,
            Rules::Potverteren(game) => game,
        }
    }

    /// The bytes of the finished records' JSON, which every view carries as
    /// it is.
    pub fn records_len(&self) -> usize {
        match self {
            Rules::Klaverjassen(game) => frozen::records_len(game),
            Rules::Potverteren(game) => frozen::records_len(game),
        }
    }

    /// The state as the store keeps it (src/store/layout.rs): its JSON
    /// without the finished records, and each record's JSON in order.
    pub fn to_stored(&mut self) -> Result<(String, Vec<JsonText>), serde_json::Error> {
        match self {
            Rules::Klaverjassen(game) => frozen::to_stored("klaverjassen", game),
            Rules::Potverteren(game) => frozen::to_stored("potverteren", game),
        }
    }

    /// The state from what [`Rules::to_stored`] wrote (or a state stored
    /// whole, with no records apart).
    pub fn from_stored(live: &str, records: &[JsonText]) -> Result<Rules, serde_json::Error> {
        let mut rules: Rules = serde_json::from_str(live)?;
        match &mut rules {
            Rules::Klaverjassen(game) => frozen::attach_records(game, records)?,
            Rules::Potverteren(game) => frozen::attach_records(game, records)?,
        }
        Ok(rules)
    }

    /// The game behind the one trait, to apply a move to.
    pub fn game_mut(&mut self) -> &mut dyn TableRules {
        match self {
            Rules::Klaverjassen(game) => game,
            Rules::Potverteren(game) => game,
        }
    }
}

/// A game's rules ([`GameRules`]) as the table drives them: with the
/// table's own move, view and error types, and what the event log shows of
/// the game ([`GameEvents`]), so one `dyn` serves both games. Implemented
/// for every [`GameRules`] whose moves and view convert.
pub trait TableRules: GameEvents {
    /// The moves `seat` may make now.
    fn legal_moves(&self, seat: Seat) -> Vec<Move>;
    /// Applies `seat`'s move; a move of the other game is refused. On `Err`
    /// nothing changed.
    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), GameError>;
    /// What `seat` (`None`: a spectator) may see of the rules state.
    fn view(&self, seat: Option<Seat>) -> RulesView;
    /// Who the game waits for, and for what.
    fn awaiting(&self) -> Option<Awaiting>;
    /// Whether the game is over.
    fn is_finished(&self) -> bool;
    /// The deal or round in progress or due, from 1.
    fn deal_number(&self) -> u32;
}

impl<G> TableRules for G
where
    G: GameRules + GameEvents,
    G::Move: Into<Move> + TryFrom<Move>,
    G::View: Into<RulesView>,
{
    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        GameRules::legal_moves(self, seat)
            .into_iter()
            .map(Into::into)
            .collect()
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), GameError> {
        let mv = G::Move::try_from(mv)
            .map_err(|_| GameError::InvalidMove("move: not a move of this game".into()))?;
        GameRules::apply(self, seat, mv, randomness).map_err(|e| GameError::Rules {
            code: e.code(),
            detail: e.to_string(),
        })
    }

    fn view(&self, seat: Option<Seat>) -> RulesView {
        GameRules::view(self, seat).into()
    }

    fn awaiting(&self) -> Option<Awaiting> {
        GameRules::awaiting(self)
    }

    fn is_finished(&self) -> bool {
        GameRules::is_finished(self)
    }

    fn deal_number(&self) -> u32 {
        GameRules::deal_number(self)
    }
}

/// The rules' part of a view: the one game's own view, in its field.
#[derive(Debug, Default)]
pub struct RulesView {
    /// A Klaverjassen match's view.
    pub klaverjassen: Option<klaverjassen::View>,
    /// A Potverteren table's view.
    pub potverteren: Option<potverteren::View>,
}

impl From<klaverjassen::View> for RulesView {
    fn from(view: klaverjassen::View) -> RulesView {
        RulesView {
            klaverjassen: Some(view),
            potverteren: None,
        }
    }
}

impl From<potverteren::View> for RulesView {
    fn from(view: potverteren::View) -> RulesView {
        RulesView {
            klaverjassen: None,
            potverteren: Some(view),
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::table::testing::{play_until, records};

    /// The store writes a state as its live part and its finished records
    /// (src/store/layout.rs): read back, they make the same state, the live
    /// part holds no record, and writing leaves the state as it was.
    fn assert_stored_and_read_back(mut rules: Rules, key: &str) {
        let before = rules.clone();
        let (live, stored) = rules.to_stored().unwrap();
        assert_eq!(rules, before, "writing changes nothing");
        assert_eq!(stored.len(), records(&rules));
        let live_json: serde_json::Value = serde_json::from_str(&live).unwrap();
        let (_, inner) = live_json.as_object().unwrap().iter().next().unwrap();
        assert!(inner.get(key).is_none(), "{live}");
        assert_eq!(Rules::from_stored(&live, &stored).unwrap(), before);
        // A state stored whole (before the records were kept apart).
        let whole = serde_json::to_string(&before).unwrap();
        assert_eq!(Rules::from_stored(&whole, &[]).unwrap(), before);
        // Records in the state and apart at once are refused.
        if !stored.is_empty() {
            assert!(Rules::from_stored(&whole, &stored).is_err());
        }
    }

    #[test]
    fn a_klaverjassen_match_is_stored_as_its_live_part_and_its_sheet_rows() {
        let mut rng = StdRng::seed_from_u64(7);
        let options = klaverjassen::Options {
            auto_deal: true,
            ..Default::default()
        };
        let mut rules = Rules::Klaverjassen(klaverjassen::Match::new(options, &mut rng));
        assert_stored_and_read_back(rules.clone(), "sheet");
        play_until(&mut rules, &mut rng, |r| records(r) == 2);
        assert_stored_and_read_back(rules, "sheet");
    }

    #[test]
    fn a_potverteren_table_is_stored_as_its_live_part_and_its_settled_rounds() {
        let mut rng = StdRng::seed_from_u64(7);
        let options = potverteren::Options {
            auto_deal: true,
            ..Default::default()
        };
        let mut rules = Rules::Potverteren(potverteren::Table::new(options, Seat(0), &mut rng));
        assert_stored_and_read_back(rules.clone(), "history");
        play_until(&mut rules, &mut rng, |r| records(r) == 2);
        assert_stored_and_read_back(rules, "history");
    }
}
