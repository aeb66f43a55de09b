//! What the event log may show. An event is stored as the move made plus its
//! public context; what was secret when it was made (a deal's hands, blind
//! cards, revokes) is added when read, once the rules make it public.
//!
//! What differs between the games (what a deal is called, what its end
//! reveals) is each game's [`GameEvents`]; the functions here treat both
//! games alike through it.

use serde_json::{Map, Value, json};

use super::Game;
use crate::rules::{Seat, klaverjassen, potverteren};

/// What one game's rules show in the event log.
pub trait GameEvents {
    /// The name an event gives the deal it belongs to: `deal_number`
    /// (Klaverjassen) or `round` (Potverteren).
    fn deal_key(&self) -> &'static str;

    /// The deal (or round) in progress, as a move's context names it.
    fn deal_in_progress(&self) -> u32;

    /// How many deals (or rounds) are over.
    fn finished_deals(&self) -> usize;

    /// The number of the `index`th finished deal (from 0), and what its end
    /// made public beside its seeds: the hands as dealt, and who dealt.
    fn finished_deal(&self, index: usize) -> Option<(u32, Map<String, Value>)>;

    /// What the `deal` event of deal `number` shows once that deal is over,
    /// beside its seeds (with the deal's number, to find them); `None` while
    /// it is not.
    fn dealt(&self, number: u64) -> Option<(u32, Map<String, Value>)>;

    /// What a move made public the moment it was accepted, as a field of
    /// its event: the card a Potverteren `hit` turned face up. Nothing, in
    /// a game where every move's effect is in the move itself.
    fn public_result(
        &self,
        _seat: Seat,
        _context: &Map<String, Value>,
        _payload: &Value,
    ) -> Option<(String, Value)> {
        None
    }
}

/// The public context of a move, taken before it is applied: the deal
/// (Klaverjassen) or round (Potverteren) it belongs to.
pub fn context_before(game: &Game) -> Map<String, Value> {
    let mut context = Map::new();
    if let Some(rules) = &game.rules {
        let rules = rules.game();
        context.insert(rules.deal_key().into(), json!(rules.deal_in_progress()));
    }
    context
}

/// How many deals (Klaverjassen) or rounds (Potverteren) are over; taken
/// before a move, for [`fairness_result`].
pub fn finished_deals(game: &Game) -> usize {
    game.rules
        .as_ref()
        .map_or(0, |rules| rules.game().finished_deals())
}

/// What a move made public about fair deals: `revealed`, one entry per deal
/// or round it ended (its server seed, seat seeds, and the hands or cards as
/// dealt, docs/fairness.md), and `committed`, the commitments of the chains
/// it made. Empty when there is neither.
pub fn fairness_result(
    game: &Game,
    finished_before: usize,
    committed: &[String],
) -> Map<String, Value> {
    let mut result = Map::new();
    let revealed: Vec<Value> = game
        .rules
        .as_ref()
        .map(|rules| {
            let rules = rules.game();
            (finished_before..rules.finished_deals())
                .filter_map(|index| {
                    let (number, public) = rules.finished_deal(index)?;
                    let mut entry = json!(game.fairness.reveal(number)?);
                    entry.as_object_mut()?.extend(public);
                    Some(entry)
                })
                .collect()
        })
        .unwrap_or_default();
    if !revealed.is_empty() {
        result.insert("revealed".into(), Value::Array(revealed));
    }
    if !committed.is_empty() {
        result.insert("committed".into(), json!(committed));
    }
    result
}

/// What a move made public the moment it was accepted: the card a
/// Potverteren `hit` turned face up.
pub fn public_result(
    game: &Game,
    seat: Seat,
    context: &Map<String, Value>,
    payload: &Value,
) -> Option<(String, Value)> {
    game.rules
        .as_ref()?
        .game()
        .public_result(seat, context, payload)
}

/// The stored `payload` as the game now lets the reader in seat `reader`
/// (`None`: a spectator) see it: a deal's hands (and, in Klaverjassen, its
/// revokes) once that deal or round is over, to anyone, since nothing added
/// is secret any more; a `rematch` event's next table to the players who
/// sat at the table only.
pub fn redact(game: &Game, reader: Option<Seat>, mut payload: Value) -> Value {
    if payload.get("type") == Some(&json!("rematch")) && reader.is_none() {
        // The next table is named to the players who sat at this one only:
        // its held seats free up after a while, and a private table's
        // invite code is theirs to give.
        if let Some(object) = payload.as_object_mut() {
            object.remove("game");
        }
        return payload;
    }
    if payload.get("type") != Some(&json!("deal")) {
        return payload;
    }
    let Some(rules) = &game.rules else {
        return payload;
    };
    let rules = rules.game();
    let revealed = payload
        .get(rules.deal_key())
        .and_then(Value::as_u64)
        .and_then(|number| rules.dealt(number))
        .map(|(number, mut extra)| {
            if let Some(seeds) = game.fairness.reveal(number) {
                extra.insert("server_seed".into(), json!(seeds.server_seed));
                extra.insert("seat_seeds".into(), json!(seeds.seat_seeds));
            }
            extra
        });
    if let (Some(object), Some(extra)) = (payload.as_object_mut(), revealed) {
        object.extend(extra);
    }
    payload
}

/// The fields of `value`, a JSON object.
fn fields(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(fields) => fields,
        _ => Map::new(),
    }
}

impl GameEvents for klaverjassen::Match {
    fn deal_key(&self) -> &'static str {
        "deal_number"
    }

    fn deal_in_progress(&self) -> u32 {
        u32::from(self.deal_number())
    }

    fn finished_deals(&self) -> usize {
        self.deals().len()
    }

    fn finished_deal(&self, index: usize) -> Option<(u32, Map<String, Value>)> {
        let deal = self.deals().get(index)?;
        let public = json!({"dealer": deal.dealer, "hands": deal.hands});
        Some((u32::from(deal.number), fields(public)))
    }

    fn dealt(&self, number: u64) -> Option<(u32, Map<String, Value>)> {
        let deal = self
            .deals()
            .iter()
            .find(|deal| u64::from(deal.number) == number)?;
        let public = json!({"hands": deal.hands, "revokes": deal.revokes});
        Some((u32::from(deal.number), fields(public)))
    }
}

impl GameEvents for potverteren::Table {
    fn deal_key(&self) -> &'static str {
        "round"
    }

    fn deal_in_progress(&self) -> u32 {
        self.round()
    }

    fn finished_deals(&self) -> usize {
        self.settled_rounds().len()
    }

    fn finished_deal(&self, index: usize) -> Option<(u32, Map<String, Value>)> {
        let round = self.settled_rounds().get(index)?;
        let public = json!({
            "pothouder": round.pothouder,
            "by_lot": round.bid.is_none(),
            "hands": round.hands,
        });
        Some((round.round, fields(public)))
    }

    fn dealt(&self, number: u64) -> Option<(u32, Map<String, Value>)> {
        let round = self.settled_round(number as u32)?;
        let blind: Vec<Value> = round
            .hands
            .iter()
            .map(|h| json!({"seat": h.seat, "blind_card": h.cards.first()}))
            .collect();
        Some((round.round, fields(json!({"blind_cards": blind}))))
    }

    fn public_result(
        &self,
        seat: Seat,
        context: &Map<String, Value>,
        payload: &Value,
    ) -> Option<(String, Value)> {
        if payload.get("type") != Some(&json!("hit")) {
            return None;
        }
        let round = context.get("round").and_then(Value::as_u64)? as u32;
        let card = if self.round() == round && self.settled_round(round).is_none() {
            let view = self.view_for(None);
            view.hands.get(seat.index())?.open_cards.last().copied()
        } else {
            let settled = self.settled_round(round)?;
            settled
                .hands
                .iter()
                .find(|h| h.seat == seat)?
                .cards
                .last()
                .copied()
        };
        Some(("card".into(), json!(card?)))
    }
}
