//! A whole random match plays to its end in both revoke modes.

use kaarttafel::rules::Seat;
use kaarttafel::rules::klaverjassen::{Match, Move, Options, RevokeMode};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn random_match(revoke_mode: RevokeMode, seed: u64) -> Match {
    let mut rng = StdRng::seed_from_u64(seed);
    let options = Options {
        revoke_mode,
        ..Options::default()
    };
    let mut game = Match::new(options, &mut rng);
    while let Some(awaiting) = game.awaiting() {
        let seat = awaiting.seats[0];
        let moves: Vec<Move> = game
            .legal_moves(seat)
            .into_iter()
            .filter(|mv| !matches!(mv, Move::ReportRevoke { .. } | Move::TakeBack))
            .collect();
        let mv = moves[rng.random_range(0..moves.len())];
        game.play(seat, mv, &mut rng).unwrap();
    }
    game
}

#[test]
fn a_random_match_plays_sixteen_deals_in_both_modes() {
    for mode in [RevokeMode::Enforced, RevokeMode::Club] {
        let game = random_match(mode, 7);
        assert!(game.is_finished());
        assert_eq!(game.deals().len(), 16);
        let total: i32 = game
            .deals()
            .iter()
            .map(|row| row.card_points.a + row.card_points.b)
            .sum();
        assert_eq!(total, 16 * 162);
        assert_eq!(game.legal_moves(Seat(0)), vec![]);
    }
}
