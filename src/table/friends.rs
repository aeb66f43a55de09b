//! What a table keeps for playing among friends: its invite code (private
//! tables), the table its rematch created, and the seats a rematch holds for
//! the players of the previous match. Pure: times are passed in.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The letters of an invite code: digits and capitals without 0/O, 1/I/L,
/// so a code read aloud or typed on a phone is never ambiguous.
pub const INVITE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// Characters in an invite code: 10 of 31 symbols, 49.5 bits.
pub const INVITE_LENGTH: usize = 10;

/// How long a rematch holds a seat for the player who sat there: 5 minutes.
pub const RESERVE_MICROS: i64 = 5 * 60 * 1_000_000;

/// Invite code, rematch and reserved seats of a table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Friends {
    /// The private table's invite code (shown to seated players only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite_code: Option<String>,
    /// The table created by `POST …/rematch` of this finished table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Uuid>,
    /// Seats held for the previous match's players.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reservations: Vec<Reservation>,
}

/// A seat held for one player until a time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reservation {
    /// The seat.
    pub seat: u8,
    /// The only player who may take it.
    pub player: Uuid,
    /// Until when, Unix microseconds.
    pub until: i64,
}

impl Friends {
    /// Whether `player` may take `seat`: it is not held for someone else.
    pub fn may_take(&self, seat: u8, player: Uuid) -> bool {
        self.reservations
            .iter()
            .all(|r| r.seat != seat || r.player == player)
    }

    /// The seat held for `player`, if any.
    pub fn reserved_seat_of(&self, player: Uuid) -> Option<u8> {
        self.reservations
            .iter()
            .find(|r| r.player == player)
            .map(|r| r.seat)
    }

    /// Forgets reservations that ran out at `now`, and those of seats taken.
    pub fn release(&mut self, now: i64, taken: impl Fn(u8) -> bool) {
        self.reservations
            .retain(|r| r.until > now && !taken(r.seat));
    }
}

/// A new random invite code drawn from `rng` (the service passes the
/// operating system's CSPRNG).
pub fn invite_code<R: Rng + ?Sized>(rng: &mut R) -> String {
    (0..INVITE_LENGTH)
        .map(|_| char::from(INVITE_ALPHABET[rng.random_range(0..INVITE_ALPHABET.len())]))
        .collect()
}

/// A code as typed: upper case, spaces and dashes dropped. `None` when it
/// cannot be an invite code at all.
pub fn normalise_code(typed: &str) -> Option<String> {
    let code: String = typed
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (code.len() == INVITE_LENGTH && code.bytes().all(|b| INVITE_ALPHABET.contains(&b)))
        .then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn invite_codes_carry_at_least_40_bits_and_no_ambiguous_letters() {
        let bits = INVITE_LENGTH as f64 * (INVITE_ALPHABET.len() as f64).log2();
        assert!(bits >= 40.0, "{bits}");
        for ambiguous in "0O1IL".bytes() {
            assert!(!INVITE_ALPHABET.contains(&ambiguous));
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let code = invite_code(&mut rng);
        assert_eq!(code.len(), INVITE_LENGTH);
        assert_eq!(normalise_code(&code.to_lowercase()), Some(code.clone()));
        assert_eq!(normalise_code("0000000000"), None);
    }

    #[test]
    fn a_reserved_seat_is_only_for_its_player_until_it_runs_out() {
        let (anne, bob) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let mut friends = Friends {
            reservations: vec![Reservation {
                seat: 1,
                player: anne,
                until: 100,
            }],
            ..Friends::default()
        };
        assert!(friends.may_take(1, anne));
        assert!(!friends.may_take(1, bob));
        assert!(friends.may_take(2, bob));
        assert_eq!(friends.reserved_seat_of(anne), Some(1));
        friends.release(99, |_| false);
        assert!(!friends.may_take(1, bob));
        friends.release(100, |_| false);
        assert!(friends.may_take(1, bob));
    }
}
