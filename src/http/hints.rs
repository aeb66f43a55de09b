//! Hints and deal analysis (docs/api.md, "Hints and analysis"):
//! `GET /v1/games/{id}/hint`, the strong player's choice for the caller's
//! own seat from the caller's view alone, and
//! `GET /v1/games/{id}/deals/{n}/analysis`, the exact value of every card of
//! a finished Klaverjassen deal. Both decide off the async workers.

use actix_web::{get, web};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::problems::{NoSuchGame, Unauthenticated};
use super::state::AppState;
use crate::app::hints;
use crate::bots::klaverjassen::BasicPlayer;
use crate::bots::{Player, potverteren_strong};
use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::rules::klaverjassen::strong::{self, Budget};
use crate::rules::klaverjassen::{self, DealRecord, Position, Solver, Team, for_team};
use crate::table::view::{GameView, MoveSchema};
use crate::table::{Game, Move, Rules};

/// A move and what it is estimated to be worth.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct MoveValue {
    /// One of the caller's legal moves.
    #[schema(value_type = MoveSchema)]
    #[serde(rename = "move")]
    pub mv: Move,
    /// Klaverjassen: the deal's final score difference, the caller's team
    /// minus the other, as the score sheet counts it, averaged over the
    /// sampled deals. Potverteren: the caller's expected chips this round
    /// from now on. Null for a move not weighed (the only sensible move).
    #[schema(example = 23.5)]
    pub value: Option<f64>,
}

/// The strong player's advice for the caller's seat now.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"version": 12, "move": {"type": "play", "card": "JH"},
    "moves": [{"move": {"type": "play", "card": "JH"}, "value": 41.3},
              {"move": {"type": "play", "card": "7H"}, "value": 12.0}]}))]
pub struct Hint {
    /// The game version the hint is for.
    pub version: i64,
    /// The strong player's choice.
    #[schema(value_type = MoveSchema)]
    #[serde(rename = "move")]
    pub mv: Move,
    /// Every legal move of the caller (reports and seeds aside), with its
    /// estimated value.
    pub moves: Vec<MoveValue>,
}

/// Why there is no hint for a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoHint {
    /// The caller has no seat at the table.
    NotSeated,
    /// Nothing for the caller to decide now (not its turn, or the game is over).
    NothingToDecide,
}

/// The seed of a hint's sampling: from what the caller sees (game id,
/// version, seat), so the same view always gets the same hint.
fn hint_seed(view: &GameView, seat: Seat) -> u64 {
    let mut hash = Sha256::new();
    hash.update(view.id.as_bytes());
    hash.update(view.version.to_be_bytes());
    hash.update([seat.0]);
    let digest = hash.finalize();
    u64::from_be_bytes(digest[..8].try_into().expect("32 bytes"))
}

/// The hint for the seat of `view`, from `view` alone.
pub fn hint_for(view: &GameView, budget: Budget) -> Result<Hint, NoHint> {
    let seat = view.you.ok_or(NoHint::NotSeated)?;
    let (chosen, values) = if let Some(table) = &view.klaverjassen {
        let legal = view.klaverjassen_moves();
        let mut rng = StdRng::seed_from_u64(hint_seed(view, seat));
        let decision =
            strong::decide(seat, table, &legal, budget, &mut rng).ok_or(NoHint::NothingToDecide)?;
        if decision.out_of_budget {
            // No sampled deal fitted the budget: the strong player plays as
            // `basic` then (docs/solver.md), and no move has a value.
            let chosen = BasicPlayer
                .choose(view, &mut rng)
                .ok_or(NoHint::NothingToDecide)?;
            (chosen, Vec::new())
        } else {
            let values: Vec<(Move, f64)> = decision
                .values
                .into_iter()
                .map(|(m, v)| (Move::Klaverjassen(m), v))
                .collect();
            (Move::Klaverjassen(decision.chosen), values)
        }
    } else if view.potverteren.is_some() {
        let decision = potverteren_strong::evaluate(view).ok_or(NoHint::NothingToDecide)?;
        let values = decision
            .values
            .into_iter()
            .map(|(m, v)| (Move::Potverteren(m), v))
            .collect();
        (Move::Potverteren(decision.chosen), values)
    } else {
        return Err(NoHint::NothingToDecide);
    };
    let mut moves: Vec<MoveValue> = view
        .legal_moves
        .iter()
        .filter(|m| !is_aside(m))
        .map(|m| MoveValue {
            mv: m.clone(),
            value: values.iter().find(|(v, _)| v == m).map(|(_, v)| *v),
        })
        .collect();
    // A bid is listed at its minimum; the value is for that bid.
    if moves.iter().all(|m| m.mv != chosen) {
        moves.push(MoveValue {
            mv: chosen.clone(),
            value: values.iter().find(|(v, _)| *v == chosen).map(|(_, v)| *v),
        });
    }
    Ok(Hint {
        version: view.version,
        mv: chosen,
        moves,
    })
}

/// Moves a hint does not weigh: revoke reports, take-backs and ending the
/// table (the strong player makes them only when the cards prove a revoke).
fn is_aside(mv: &Move) -> bool {
    matches!(
        mv,
        Move::Klaverjassen(klaverjassen::Move::ReportRevoke { .. } | klaverjassen::Move::TakeBack)
            | Move::Potverteren(crate::rules::potverteren::Move::EndTable)
            | Move::Table(_)
    )
}

/// The thinking budget of a hint: the strong player's own default.
pub fn hint_budget() -> Budget {
    Budget::default()
}

/// The strong player's choice for the caller's own seat now, with the
/// estimated value of every legal move, decided from the caller's view
/// alone (docs/api.md, "Hints and analysis").
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game")),
    responses(
        (status = 200, description = "The hint", body = Hint),
        Unauthenticated,
        (status = 403, description = "`hints_disabled`: the table was created without `hints: true`; `not_seated`: the caller has no seat here", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "`not_your_turn`: nothing for the caller to decide now (another seat's turn, the table not started, or the game over)", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/hint")]
pub async fn get_hint(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<web::Json<Hint>, ApiError> {
    Ok(web::Json(hints::hint(&state.app, caller.id, *id).await?))
}

/// One card of a deal and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"trick": 1, "seat": 0, "card": "9C", "value_before": 42,
    "value_after": 22, "lost": 20}))]
pub struct CardAnalysis {
    /// The trick, 1..=8.
    #[schema(example = 1)]
    pub trick: u8,
    /// The seat that played the card.
    pub seat: Seat,
    /// The card.
    pub card: Card,
    /// The value before the card: the final score difference, team A minus
    /// team B, under best play by both teams from there.
    #[schema(example = 42)]
    pub value_before: i32,
    /// The value after the card, the same way.
    #[schema(example = 22)]
    pub value_after: i32,
    /// What the card cost its own team against its best card: 0 for a best
    /// card, more for a mistake (`value_before - value_after` for team A,
    /// the opposite for team B). Only a revoke left standing can show less
    /// than 0 (the solver's best card is always an allowed one).
    #[schema(example = 20)]
    pub lost: i32,
}

/// The exact analysis of a finished Klaverjassen deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct DealAnalysis {
    /// The deal's number.
    #[schema(example = 1)]
    pub deal: u8,
    /// The value of the deal as dealt (after trump), before the first card:
    /// the final score difference, team A minus team B, under best play.
    #[schema(example = 42)]
    pub par: i32,
    /// The deal's result on the score sheet: team A's score minus team B's.
    #[schema(example = 2)]
    pub result: i32,
    /// Every card played, in play order.
    pub cards: Vec<CardAnalysis>,
}

/// Why a deal has no analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoAnalysis {
    /// Not a Klaverjassen game, or the deal is not over.
    NotFound(String),
}

/// The analysis of the finished deal `record`: each position solved exactly.
pub fn analyse(record: &DealRecord) -> Result<DealAnalysis, NoAnalysis> {
    if record.report.is_some() || record.tricks.len() != 8 {
        return Err(NoAnalysis::NotFound(format!(
            "deal {} ended with a revoke punishment: its score does not come from the cards",
            record.number
        )));
    }
    let first = record
        .tricks
        .first()
        .map_or(record.dealer.next(4), |t| t.leader);
    let mut position = Position {
        hands: record.hands,
        trump: record.trump,
        playing_team: record.playing_team,
        leader: first,
        trick: Vec::new(),
        card_points: Default::default(),
        roem: Default::default(),
        tricks_taken: Default::default(),
    };
    let mut solver = Solver::new();
    let par = solver.value(&position);
    let mut before = par;
    let mut cards = Vec::with_capacity(32);
    for trick in &record.tricks {
        for played in &trick.cards {
            position = position.after(played.card);
            let after = match position.final_value() {
                Some(value) => value,
                None => solver.value(&position),
            };
            cards.push(CardAnalysis {
                trick: trick.number,
                seat: played.seat,
                card: played.card,
                value_before: before,
                value_after: after,
                lost: for_team(before - after, Team::of(played.seat)),
            });
            before = after;
        }
    }
    Ok(DealAnalysis {
        deal: record.number,
        par,
        result: record.score[Team::A] - record.score[Team::B],
        cards,
    })
}

/// The finished deal `n` of `game`, analysed.
pub fn deal_analysis(game: &Game, n: u32) -> Result<DealAnalysis, NoAnalysis> {
    let Some(Rules::Klaverjassen(m)) = &game.rules else {
        return Err(NoAnalysis::NotFound(
            "deal analysis exists for Klaverjassen deals only".into(),
        ));
    };
    let record = m
        .deals()
        .iter()
        .find(|d| u32::from(d.number) == n)
        .ok_or_else(|| NoAnalysis::NotFound(format!("deal {n} is not over (or does not exist)")))?;
    analyse(record)
}

/// The exact analysis of finished Klaverjassen deal `n`: its par and, for
/// every card played, the value before and after it and what it cost
/// (docs/api.md, "Hints and analysis"). Every hand is public once the deal
/// is over, so anyone who may see the game may see it.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
        ("n" = u32, Path, description = "The deal's number, from 1")),
    responses(
        (status = 200, description = "The analysis", body = DealAnalysis),
        Unauthenticated,
        (status = 404, description = "`not_found`: no such game; or deal n is not over (or does not exist), was ended by a revoke punishment, or the game is Potverteren", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/deals/{n}/analysis")]
pub async fn get_deal_analysis(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    path: web::Path<(Uuid, u32)>,
) -> Result<web::Json<DealAnalysis>, ApiError> {
    let (id, n) = path.into_inner();
    Ok(web::Json(hints::deal(&state.app, id, n).await?))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::bots::{Level, player_for};
    use crate::rules::klaverjassen::{BySeat, CardSet, Match, deal_from_deck, shuffled_deck};
    use crate::table::{GameKind, Options, SeatedPlayer, Status, TableOptions};

    /// A small budget of counts only (so the hint is reproducible), with
    /// nodes enough to finish a sample from the first lead: the test is about
    /// what the hint depends on.
    const SMALL: Budget = Budget {
        samples: 2,
        nodes: 50_000_000,
        time: None,
    };

    fn seated(i: u8) -> SeatedPlayer {
        SeatedPlayer {
            id: Uuid::from_u128(u128::from(i) + 1),
            name: format!("seat {i}"),
            bot: None,
        }
    }

    /// A one-deal Klaverjassen game with `id` dealt `hands`.
    fn game_with(id: Uuid, hands: BySeat<CardSet>) -> Game {
        let options = Options::parse(
            GameKind::Klaverjassen,
            Some(serde_json::json!({"deals": 1})),
        )
        .unwrap();
        let Options::Klaverjassen(rules) = options.clone() else {
            unreachable!()
        };
        let mut rng = StdRng::seed_from_u64(0);
        let mut game = Game::create(
            id,
            GameKind::Klaverjassen,
            options,
            TableOptions::default(),
            seated(0),
            Some(0),
            &mut rng,
        )
        .unwrap();
        game.seats = (0..4).map(|i| Some(seated(i))).collect();
        game.status = Status::Playing;
        game.rules = Some(Rules::Klaverjassen(Match::from_hands(rules, hands)));
        game
    }

    fn hands(seed: u64) -> BySeat<CardSet> {
        let deck = shuffled_deck(&mut StdRng::seed_from_u64(seed), 1);
        deal_from_deck(&deck, Seat(3))
    }

    #[test]
    fn a_hint_that_solves_no_sample_in_its_budget_is_the_basic_players_move_without_values() {
        let game = game_with(Uuid::from_u128(7), hands(5));
        let view = game.view_of_seat(Some(Seat(0)));
        let hint = hint_for(&view, Budget::counted(32, 10)).unwrap();
        let basic = player_for(GameKind::Klaverjassen, Level::Basic)
            .choose(&view, &mut StdRng::seed_from_u64(1))
            .unwrap();
        // These hands make basic's choice other than the first legal move,
        // so the test tells the two apart.
        assert_ne!(basic, view.legal_moves[0]);
        assert_eq!(hint.mv, basic);
        assert!(hint.moves.iter().all(|m| m.value.is_none()));
        assert!(hint.moves.len() > 1);
    }

    #[test]
    fn a_hint_depends_only_on_what_the_caller_knows() {
        // Seat 0 names trump; seats 1 and 3 swap a card: seat 0 sees the same.
        let one = hands(5);
        let mut two = one;
        let a = one[Seat(1)].iter().next().unwrap();
        let b = one[Seat(3)].iter().next().unwrap();
        two[Seat(1)] = (one[Seat(1)] - CardSet::single(a)) | CardSet::single(b);
        two[Seat(3)] = (one[Seat(3)] - CardSet::single(b)) | CardSet::single(a);
        let id = Uuid::from_u128(42);
        let (first, second) = (game_with(id, one), game_with(id, two));
        assert_ne!(first.rules, second.rules, "the hidden hands differ");
        let (v1, v2) = (
            first.view_of_seat(Some(Seat(0))),
            second.view_of_seat(Some(Seat(0))),
        );
        assert_eq!(
            serde_json::to_string(&v1).unwrap(),
            serde_json::to_string(&v2).unwrap()
        );
        let hint = hint_for(&v1, SMALL).unwrap();
        assert_eq!(hint, hint_for(&v2, SMALL).unwrap());
        assert_eq!(hint.moves.len(), 4, "one value per suit: {hint:?}");
        assert!(hint.moves.iter().all(|m| m.value.is_some()));
        assert!(v1.legal_moves.contains(&hint.mv));
    }

    #[test]
    fn no_hint_for_a_spectator_or_a_seat_with_nothing_to_decide() {
        let game = game_with(Uuid::from_u128(1), hands(6));
        assert_eq!(
            hint_for(&game.view_of_seat(None), SMALL),
            Err(NoHint::NotSeated)
        );
        // Seat 0 names trump; seat 1 waits.
        assert_eq!(
            hint_for(&game.view_of_seat(Some(Seat(1))), SMALL),
            Err(NoHint::NothingToDecide)
        );
    }

    /// Plays deal 1 of `game` out with the basic player.
    fn play_out(game: &mut Game, rng: &mut StdRng) {
        let basic = player_for(GameKind::Klaverjassen, Level::Basic);
        while game.status == Status::Playing {
            let seat = game.awaiting().unwrap().seats[0];
            let view = game.view_of_seat(Some(seat));
            let mv = basic.choose(&view, rng).unwrap();
            game.play_for(seat, mv, rng).unwrap();
        }
    }

    #[test]
    fn analysis_par_and_each_cards_loss_end_at_the_score_sheet_result() {
        for seed in [11, 12] {
            let mut game = game_with(Uuid::from_u128(seed.into()), hands(seed));
            let mut rng = StdRng::seed_from_u64(seed);
            play_out(&mut game, &mut rng);
            let analysis = deal_analysis(&game, 1).unwrap();
            assert_eq!(analysis.cards.len(), 32);
            let mut value = analysis.par;
            for card in &analysis.cards {
                assert_eq!(card.value_before, value);
                assert!(card.lost >= 0, "{card:?}");
                value = match Team::of(card.seat) {
                    Team::A => value - card.lost,
                    Team::B => value + card.lost,
                };
                assert_eq!(card.value_after, value);
            }
            let Some(Rules::Klaverjassen(m)) = &game.rules else {
                unreachable!()
            };
            let row = &m.deals()[0];
            assert_eq!(value, row.score[Team::A] - row.score[Team::B]);
            assert_eq!(analysis.result, value);
            assert!(matches!(
                deal_analysis(&game, 2),
                Err(NoAnalysis::NotFound(_))
            ));
        }
    }
}
