//! Hints and deal analysis: the strong player's choice for the caller's
//! own seat, from the caller's view alone, and the exact value of every
//! card of a finished Klaverjassen deal. Both are computed off the async
//! workers: the solver may think for a while.

use uuid::Uuid;

use super::blocking::off_the_workers;
use super::context::App;
use super::error::Error;
use super::read::load;
use crate::ai::analysis::{self, NoAnalysis};
/// A finished deal analysed, card by card, as the solver gives it.
pub use crate::ai::analysis::{CardAnalysis, DealAnalysis};
use crate::ai::hints::{Advise, advice, hint_seed};
use crate::ai::klaverjassen::strong::Budget;
use crate::rules::Seat;
use crate::rules::klaverjassen::Match;
use crate::rules::potverteren::Table;
use crate::table::view::GameView;
use crate::table::{Game, Move, Rules, Status};

/// A move and what it is estimated to be worth.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveValue {
    /// One of the caller's legal moves.
    pub mv: Move,
    /// Klaverjassen: the deal's final score difference, the caller's team
    /// minus the other, averaged over the sampled deals. Potverteren: the
    /// caller's expected chips this round from now on. `None` for a move
    /// not weighed.
    pub value: Option<f64>,
}

/// The strong player's advice for the caller's seat now.
#[derive(Clone, Debug, PartialEq)]
pub struct Hint {
    /// The game version the hint is for.
    pub version: i64,
    /// The strong player's choice.
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

/// The hint for the seat of `view`, from `view` alone.
pub fn hint_for(view: &GameView, budget: Budget) -> Result<Hint, NoHint> {
    let seat = view.you.ok_or(NoHint::NotSeated)?;
    let seed = hint_seed(view.id, view.version, seat);
    let advised = match (&view.klaverjassen, &view.potverteren) {
        (Some(game), _) => advice_in::<Match>(seat, game, &view.legal_moves, budget, seed),
        (None, Some(game)) => advice_in::<Table>(seat, game, &view.legal_moves, budget, seed),
        (None, None) => None,
    };
    let (mv, moves) = advised.ok_or(NoHint::NothingToDecide)?;
    Ok(Hint {
        version: view.version,
        mv,
        moves,
    })
}

/// The strong player's advice in the game `G` for `seat` from its view and
/// the table's legal moves, as the table's moves.
fn advice_in<G: Advise>(
    seat: Seat,
    view: &G::View,
    legal: &[Move],
    budget: Budget,
    seed: u64,
) -> Option<(Move, Vec<MoveValue>)>
where
    G::Move: Clone + PartialEq + Into<Move> + TryFrom<Move>,
{
    let legal: Vec<G::Move> = legal
        .iter()
        .filter_map(|mv| G::Move::try_from(mv.clone()).ok())
        .collect();
    let advised = advice::<G>(seat, view, &legal, budget, seed)?;
    let moves = advised
        .moves
        .into_iter()
        .map(|(mv, value)| MoveValue {
            mv: mv.into(),
            value,
        })
        .collect();
    Some((advised.chosen.into(), moves))
}

/// The thinking budget of a hint at `view`: the strong player's own
/// default there (at the Klaverjassen trump choice, the trump choice's
/// budget).
pub fn hint_budget(view: &GameView) -> Budget {
    view.klaverjassen
        .as_ref()
        .map_or_else(Budget::default, Budget::for_view)
}

/// The finished deal `n` of `game`, analysed.
pub fn deal_analysis(game: &Game, n: u32) -> Result<DealAnalysis, NoAnalysis> {
    let Some(Rules::Klaverjassen(m)) = &game.rules else {
        return Err(NoAnalysis::NotFound(
            "deal analysis exists for Klaverjassen deals only".into(),
        ));
    };
    analysis::deal_analysis(m, n)
}

/// The refusal of a hint to a caller without a seat.
fn not_seated() -> Error {
    Error::Forbidden {
        code: "not_seated",
        detail: "only a seated player gets hints, for its own seat".into(),
    }
}

/// The strong player's choice for `caller`'s own seat at game `id` now,
/// with the estimated value of every legal move.
///
/// # Errors
/// [`Error::NotFound`]; [`Error::Forbidden`] `hints_disabled` for a table
/// made without hints, `not_seated` for a caller without a seat;
/// [`Error::Conflict`] `not_your_turn` when the caller has nothing to
/// decide.
pub async fn hint(app: &App, caller: Uuid, id: Uuid) -> Result<Hint, Error> {
    let game = load(app, id).await?;
    if !game.table.hints {
        return Err(Error::Forbidden {
            code: "hints_disabled",
            detail: "this table was created without hints (`hints: true`)".into(),
        });
    }
    if game.seat_of(caller).is_none() {
        return Err(not_seated());
    }
    let view = game.view_for(Some(caller));
    match off_the_workers(move || hint_for(&view, hint_budget(&view))).await? {
        Ok(hint) => Ok(hint),
        Err(NoHint::NotSeated) => Err(not_seated()),
        Err(NoHint::NothingToDecide) => Err(Error::Conflict {
            code: "not_your_turn",
            detail: if game.status == Status::Playing {
                "you have nothing to decide now".into()
            } else {
                format!("the game is {}: nothing to decide", game.status.as_str())
            },
        }),
    }
}

/// The exact analysis of finished Klaverjassen deal `n` of game `id`.
///
/// # Errors
/// [`Error::NotFound`] for no such game, a deal not over, one ended by a
/// revoke punishment, or a Potverteren game; [`Error::Forbidden`] to a
/// caller not seated at a table of a running club evening.
pub async fn deal(app: &App, caller: Uuid, id: Uuid, n: u32) -> Result<DealAnalysis, Error> {
    let mut conn = app.store.acquire().await?;
    super::read::may_watch(&mut conn, id, caller).await?;
    drop(conn);
    let game = load(app, id).await?;
    match off_the_workers(move || deal_analysis(&game, n)).await? {
        Ok(analysis) => Ok(analysis),
        Err(NoAnalysis::NotFound(detail)) => Err(Error::NotFound(detail)),
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::app::play::computer_move;
    use crate::rules::klaverjassen::{BySeat, CardSet, Team, deal_from_deck, shuffled_deck};
    use crate::table::{GameKind, Level, Options, SeatedPlayer, TableOptions};

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
        game_under(id, hands, serde_json::json!({"deals": 1}))
    }

    /// A Klaverjassen game of `options` with `id` dealt `hands`.
    fn game_under(id: Uuid, hands: BySeat<CardSet>, options: serde_json::Value) -> Game {
        let options = Options::parse(GameKind::Klaverjassen, Some(options)).unwrap();
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
        let basic = computer_move(
            game.rules.as_ref().unwrap(),
            Seat(0),
            Level::Basic,
            &mut StdRng::seed_from_u64(1),
        )
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
    fn under_pass_round_a_hand_whose_deals_are_all_hard_still_gets_a_value_for_every_choice() {
        // Seat 0's hand here (hearts J 10 A K 8, 9 of diamonds, K and 7 of
        // clubs) draws deals of 4 to 15 million nodes each: in the nodes of
        // naming alone no deal fitted, and the hint had no values.
        let game = game_under(
            Uuid::from_u128(210),
            hands(210),
            serde_json::json!({"deals": 1, "trump_choice": "pass_round"}),
        );
        let view = game.view_of_seat(Some(Seat(0)));
        let budget = Budget {
            time: None,
            ..hint_budget(&view)
        };
        let hint = hint_for(&view, budget).unwrap();
        assert_eq!(hint.moves.len(), 5, "four suits and the pass: {hint:?}");
        assert!(hint.moves.iter().all(|m| m.value.is_some()), "{hint:?}");
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
        while game.status == Status::Playing {
            let seat = game.awaiting().unwrap().seats[0];
            let mv = computer_move(game.rules.as_ref().unwrap(), seat, Level::Basic, rng).unwrap();
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
