//! What the event log may show. An event is stored as the move made plus its
//! public context; what was secret when it was made (a deal's hands, blind
//! cards, revokes) is added when read, once the rules make it public.

use serde_json::{Map, Value, json};

use super::{Game, Rules};
use crate::rules::Seat;

/// The public context of a move, taken before it is applied: the deal
/// (Klaverjassen) or round (Potverteren) it belongs to.
pub fn context_before(game: &Game) -> Map<String, Value> {
    let mut context = Map::new();
    match &game.rules {
        Some(Rules::Klaverjassen(m)) => {
            context.insert("deal_number".into(), json!(m.deal_number()));
        }
        Some(Rules::Potverteren(t)) => {
            context.insert("round".into(), json!(t.round()));
        }
        None => {}
    }
    context
}

/// How many deals (Klaverjassen) or rounds (Potverteren) are over; taken
/// before a move, for [`fairness_result`].
pub fn finished_deals(game: &Game) -> usize {
    match &game.rules {
        Some(Rules::Klaverjassen(m)) => m.deals().len(),
        Some(Rules::Potverteren(t)) => t.settled_rounds().len(),
        None => 0,
    }
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
    let revealed: Vec<Value> = match &game.rules {
        Some(Rules::Klaverjassen(m)) => m.deals()[finished_before.min(m.deals().len())..]
            .iter()
            .filter_map(|deal| {
                let mut entry = json!(game.fairness.reveal(u32::from(deal.number))?);
                entry["dealer"] = json!(deal.dealer);
                entry["hands"] = json!(deal.hands);
                Some(entry)
            })
            .collect(),
        Some(Rules::Potverteren(t)) => t.settled_rounds()
            [finished_before.min(t.settled_rounds().len())..]
            .iter()
            .filter_map(|round| {
                let mut entry = json!(game.fairness.reveal(round.round)?);
                entry["pothouder"] = json!(round.pothouder);
                entry["by_lot"] = json!(round.bid.is_none());
                entry["hands"] = json!(round.hands);
                Some(entry)
            })
            .collect(),
        None => Vec::new(),
    };
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
    let Some(Rules::Potverteren(table)) = &game.rules else {
        return None;
    };
    if payload.get("type") != Some(&json!("hit")) {
        return None;
    }
    let round = context.get("round").and_then(Value::as_u64)? as u32;
    let card = if table.round() == round && table.settled_round(round).is_none() {
        let view = table.view_for(None);
        view.hands.get(seat.index())?.open_cards.last().copied()
    } else {
        let settled = table.settled_round(round)?;
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

/// The stored `payload` as the game now lets anyone see it: a deal's hands
/// (and, in Klaverjassen, its revokes) once that deal or round is over.
/// Nothing here depends on the viewer's seat, because nothing added is
/// secret any more.
pub fn redact(game: &Game, mut payload: Value) -> Value {
    if payload.get("type") != Some(&json!("deal")) {
        return payload;
    }
    let seeds = |number: u32| {
        game.fairness
            .reveal(number)
            .map(|r| json!({"server_seed": r.server_seed, "seat_seeds": r.seat_seeds}))
    };
    let revealed = match &game.rules {
        Some(Rules::Klaverjassen(m)) => payload
            .get("deal_number")
            .and_then(Value::as_u64)
            .and_then(|n| m.deals().iter().find(|d| u64::from(d.number) == n))
            .map(|deal| {
                let mut extra = json!({"hands": deal.hands, "revokes": deal.revokes});
                if let (Some(object), Some(Value::Object(seeds))) =
                    (extra.as_object_mut(), seeds(u32::from(deal.number)))
                {
                    object.extend(seeds);
                }
                extra
            }),
        Some(Rules::Potverteren(t)) => payload
            .get("round")
            .and_then(Value::as_u64)
            .and_then(|r| t.settled_round(r as u32))
            .map(|round| {
                let blind: Vec<Value> = round
                    .hands
                    .iter()
                    .map(|h| json!({"seat": h.seat, "blind_card": h.cards.first()}))
                    .collect();
                let mut extra = json!({"blind_cards": blind});
                if let (Some(object), Some(Value::Object(seeds))) =
                    (extra.as_object_mut(), seeds(round.round))
                {
                    object.extend(seeds);
                }
                extra
            }),
        None => None,
    };
    if let (Some(object), Some(Value::Object(extra))) = (payload.as_object_mut(), revealed) {
        object.extend(extra);
    }
    payload
}
