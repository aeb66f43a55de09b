//! The strong Klaverjassen decision: for one seat from that seat's [`View`]
//! alone (never the match state), by perfect-information Monte Carlo over
//! the exact [`Solver`] (docs/solver.md).
//!
//! For a card to play it samples full deals consistent with everything the
//! seat knows (its own hand and what the cards played prove, the sampling
//! module), each is solved exactly, and the card with the best average
//! value wins. Trump is chosen the same way, each suit valued over sampled
//! deals.
//!
//! In club mode it reports an opponent's revoke as soon as the cards played
//! prove it (the seat later played a card it cannot have held then), and
//! never revokes itself.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use rand::Rng;

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};
use crate::rules::klaverjassen::{BySeat, CardSet, Move, Phase, Team, View};

use super::sampling::{played_tricks, proven_revoke, sample_deal};
use super::trump::{Thinking, value_choices};
use crate::ai::solver::{Limits, Position, Solver, for_team};

/// How much thinking one decision may use. `samples` and `nodes` are
/// counts, so with `time: None` the same view, budget and random seed always
/// give the same decision; `time` bounds the wall-clock time as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// At most this many sampled deals per decision.
    pub samples: u32,
    /// At most this many solver nodes per decision: the sample being solved
    /// when they run out is dropped, and the decision uses the samples
    /// completed before it.
    pub nodes: u64,
    /// At most this much wall-clock time per decision, enforced the same
    /// way (`None`: counts only, reproducible).
    pub time: Option<Duration>,
}

/// The default time bound of one decision (docs/solver.md).
pub const DEFAULT_TIME: Duration = Duration::from_millis(200);

impl Default for Budget {
    /// 32 samples, 2 million nodes and 200 ms, whichever runs out first
    /// (docs/solver.md).
    fn default() -> Budget {
        Budget {
            samples: 32,
            nodes: 2_000_000,
            time: Some(DEFAULT_TIME),
        }
    }
}

/// The budget of a trump choice (docs/solver.md, "The trump choice"): every
/// sample solves a whole deal for each suit, so the default budget would
/// solve none. Counts decide it (the same view and seed give the same
/// values); the clock only guards against a machine far slower than
/// measured.
pub const TRUMP_BUDGET: Budget = Budget {
    samples: TRUMP_SAMPLES,
    nodes: TRUMP_NODES,
    time: Some(TRUMP_TIME),
};

/// Sampled deals per trump choice.
pub const TRUMP_SAMPLES: u32 = 8;

/// Solver nodes per trump choice.
pub const TRUMP_NODES: u64 = 24_000_000;

/// The clock's bound on a trump choice: 5 s, far above the counts' time
/// in a release build; 20 s in a debug build (`cargo run`, the tests),
/// whose unoptimised solver is many times slower, so that there too the
/// counts decide and a hint under `pass_round` (eight whole-deal solves a
/// deal) values every choice.
pub const TRUMP_TIME: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(20)
} else {
    Duration::from_secs(5)
};

impl Budget {
    /// The default budget of a decision at `view`: [`TRUMP_BUDGET`] at the
    /// trump choice, else [`Budget::default`]. The strong player and the
    /// hint both think this long, so they agree.
    pub fn for_view(view: &View) -> Budget {
        match view.phase {
            Phase::ChoosingTrump => TRUMP_BUDGET,
            _ => Budget::default(),
        }
    }

    /// A budget of counts only (no clock): reproducible decisions.
    pub const fn counted(samples: u32, nodes: u64) -> Budget {
        Budget {
            samples,
            nodes,
            time: None,
        }
    }

    /// The solver limits for the next sample of a decision that started at
    /// `started` and has used `used` nodes so far.
    fn limits(&self, started: Instant, used: u64) -> Limits {
        Limits {
            nodes: self.nodes.saturating_sub(used),
            deadline: self.time.map(|time| started + time),
        }
    }
}

thread_local! {
    /// One solver (and its 4 MiB table) per thread, reused by every
    /// decision the thread makes.
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
}

/// A decision and what it is based on.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The move to make.
    pub chosen: Move,
    /// The estimated value of each candidate move: the deal's final score
    /// difference, the seat's team minus the other, averaged over the
    /// sampled deals (empty for a move with no alternative worth valuing).
    pub values: Vec<(Move, f64)>,
    /// How many deals were sampled.
    pub samples: u32,
    /// Not one sampled deal could be solved within the budget, so `chosen`
    /// is only the first legal card or suit: a caller with a better rule of
    /// thumb should play that instead (the `strong` computer player plays as
    /// `basic` then, docs/solver.md).
    pub out_of_budget: bool,
}

/// Decides `seat`'s move from its view and its legal moves (as the table
/// lists them). `None` when there is nothing to do: `legal` is empty, or
/// holds only reports (club mode) and no revoke is proven.
pub fn decide<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    legal: &[Move],
    budget: Budget,
    rng: &mut R,
) -> Option<Decision> {
    let first = *legal.first()?;
    let only = |chosen: Move| Decision {
        chosen,
        values: Vec::new(),
        samples: 0,
        out_of_budget: false,
    };
    let tricks = played_tricks(view);
    // Club mode offers reports; report an opponent whose revoke is proven.
    for mv in legal {
        if let Move::ReportRevoke { seat: named } = mv
            && let Some(trump) = view.trump
            && proven_revoke(&tricks, *named, trump, view.house_rules)
        {
            return Some(only(*mv));
        }
    }
    match view.phase {
        Phase::ChoosingTrump => Some(choose_trump(seat, view, legal, budget, rng)),
        Phase::Playing if legal.iter().any(|mv| matches!(mv, Move::Play { .. })) => {
            Some(play_card(seat, view, legal, budget, rng))
        }
        Phase::Review => Some(only(
            legal
                .iter()
                .copied()
                .find(|mv| *mv == Move::EndReview)
                .unwrap_or(first),
        )),
        _ => legal
            .iter()
            .copied()
            .find(|mv| !matches!(mv, Move::ReportRevoke { .. } | Move::TakeBack))
            .map(only),
    }
}

fn choose_trump<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    legal: &[Move],
    budget: Budget,
    rng: &mut R,
) -> Decision {
    let suits: Vec<Suit> = legal
        .iter()
        .filter_map(|mv| match mv {
            Move::ChooseTrump { suit } => Some(*suit),
            _ => None,
        })
        .collect();
    let thinking = Thinking {
        samples: budget.samples,
        nodes: budget.nodes,
        deadline: budget.time.map(|time| Instant::now() + time),
    };
    // `trump_choice: pass_round`: passing is weighed with the suits.
    let pass = legal.contains(&Move::Pass);
    let valued = SOLVER
        .with_borrow_mut(|solver| value_choices(solver, seat, view, &suits, pass, thinking, rng));
    if valued.samples == 0 {
        return fallback(legal);
    }
    let mut values: Vec<(Move, f64)> = valued
        .suits
        .iter()
        .map(|(suit, value)| (Move::ChooseTrump { suit: *suit }, *value))
        .collect();
    values.extend(valued.pass.map(|value| (Move::Pass, value)));
    finish(values, valued.samples)
}

fn play_card<R: Rng + ?Sized>(
    seat: Seat,
    view: &View,
    legal: &[Move],
    budget: Budget,
    rng: &mut R,
) -> Decision {
    let team = Team::of(seat);
    // The trick in progress and the score so far, public; the hands are
    // each sample's.
    let public =
        Position::in_view(view, BySeat([CardSet::EMPTY; 4])).expect("a position during play");
    let trump = public.trump;
    let tricks = played_tricks(view);
    let cards: Vec<Card> = legal
        .iter()
        .filter_map(|mv| match mv {
            Move::Play { card } => Some(*card),
            _ => None,
        })
        .collect();
    if cards.len() == 1 {
        return finish(vec![(Move::Play { card: cards[0] }, 0.0)], 0);
    }
    let started = Instant::now();
    let mut sums = vec![0f64; cards.len()];
    let mut samples = 0;
    SOLVER.with_borrow_mut(|solver| {
        let first = solver.nodes();
        while samples < budget.samples.max(1) {
            let hands = sample_deal(seat, view, &tricks, Some(trump), rng);
            let position = Position {
                hands,
                ..public.clone()
            };
            let limits = budget.limits(started, solver.nodes() - first);
            let Some(solution) = solver.solve_within(&position, limits) else {
                break;
            };
            for (sum, card) in sums.iter_mut().zip(&cards) {
                let value = solution
                    .cards
                    .iter()
                    .find(|(c, _)| c == card)
                    .map_or(0, |(_, v)| *v);
                *sum += f64::from(for_team(value, team));
            }
            samples += 1;
        }
    });
    if samples == 0 {
        return fallback(legal);
    }
    let values = cards
        .iter()
        .zip(&sums)
        .map(|(card, sum)| (Move::Play { card: *card }, sum / f64::from(samples)))
        .collect();
    finish(values, samples)
}

/// When not one sample could be solved within the budget: the first legal
/// move (cards in card order, suits in suit order), with no values.
fn fallback(legal: &[Move]) -> Decision {
    let chosen = legal
        .iter()
        .copied()
        .find(|mv| matches!(mv, Move::Play { .. } | Move::ChooseTrump { .. }))
        .unwrap_or(legal[0]);
    Decision {
        chosen,
        values: Vec::new(),
        samples: 0,
        out_of_budget: true,
    }
}

/// Picks the best average (the first in the table's order on a tie).
fn finish(values: Vec<(Move, f64)>, samples: u32) -> Decision {
    let mut chosen = values[0].0;
    let mut best = f64::NEG_INFINITY;
    for (mv, value) in &values {
        if *value > best {
            best = *value;
            chosen = *mv;
        }
    }
    Decision {
        chosen,
        values,
        samples,
        out_of_budget: false,
    }
}
