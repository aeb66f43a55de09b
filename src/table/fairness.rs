//! The table's fair-deal state: its secret server-seed chains, the seat
//! seeds in force, and which seat seeds went into each deal begun
//! (docs/fairness.md). The rules draw through [`Draws`], so every deck and
//! every lot comes from the committed streams.
//!
//! A server seed is secret until its deal is over: nothing here serialises
//! into a view, and [`ServerSeed`]'s `Debug` hides it.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::rules::cards::Card;
use crate::rules::fairness::{
    DealInputs, Randomness, SeatSeed, Seed, hash_steps, seed_from_hex, to_hex,
};

/// Rounds per chain at a Potverteren table; the next chain is committed when
/// the last round of a chain begins.
pub const POTVERTEREN_CHAIN_LENGTH: u32 = 64;

/// A secret 32-byte seed: the last link of a chain.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerSeed(Seed);

impl fmt::Debug for ServerSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerSeed(<secret>)")
    }
}

impl ServerSeed {
    /// A seed drawn from `rng` (the service passes the operating system's CSPRNG).
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> ServerSeed {
        let mut seed = [0; 32];
        rng.fill_bytes(&mut seed);
        ServerSeed(seed)
    }

    /// The seed `seed`.
    pub fn from_secret(seed: Seed) -> ServerSeed {
        ServerSeed(seed)
    }

    /// The secret itself, for a draw from it.
    pub fn secret(&self) -> &Seed {
        &self.0
    }
}

impl Serialize for ServerSeed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(&self.0))
    }
}

/// Read from the text as it is, without a copy of it first: every request
/// reads the table's seeds.
impl<'de> Deserialize<'de> for ServerSeed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ServerSeed, D::Error> {
        struct Hex;

        impl serde::de::Visitor<'_> for Hex {
            type Value = ServerSeed;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a server seed: 64 hex characters")
            }

            fn visit_str<E: serde::de::Error>(self, hex: &str) -> Result<ServerSeed, E> {
                seed_from_hex(hex)
                    .map(ServerSeed)
                    .ok_or_else(|| E::custom("a server seed is 64 hex characters"))
            }
        }

        d.deserialize_str(Hex)
    }
}

/// One hash chain: deals `first_deal ..= first_deal + length - 1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Chain {
    /// The seed of the chain's last deal, `s(length)`; secret.
    top: ServerSeed,
    /// `s(0)`, public from the moment the chain is made.
    commitment: String,
}

/// Where the decks of a duplicate club evening's table come from: deal `d`
/// of the table is board `first_board + d - 1` of the event, drawn with the
/// event's id and the entries' event seeds (docs/events.md, "Fair boards").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Boards {
    /// The event.
    pub event_id: Uuid,
    /// The event's board that is this table's deal 1.
    pub first_board: u32,
    /// The entries' event seeds, in entry order.
    pub seeds: Vec<Option<SeatSeed>>,
}

/// The fair-deal state of a table; stored with the game, never shown as is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FairDeals {
    /// Deals per chain.
    chain_length: u32,
    /// Whether a new chain follows when one runs out (Potverteren).
    renews: bool,
    /// Chain `c` covers deals `c * chain_length + 1 ..= (c + 1) * chain_length`.
    chains: Vec<Chain>,
    /// The seat seeds in force, by seat.
    seat_seeds: Vec<Option<SeatSeed>>,
    /// The seat seeds mixed into each deal begun, deal 1 first.
    #[serde(default)]
    begun: Vec<Vec<Option<SeatSeed>>>,
    /// A table of a duplicate club evening: its decks are the event's
    /// boards, the same at every table of the round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    boards: Option<Boards>,
    /// Whether the state changed since it was read (a new one has): one
    /// that has not need not be written again ([`FairDeals::changed`]).
    #[serde(skip)]
    changed: bool,
}

/// Two states are equal when they hold the same; whether either changed
/// since it was read does not count.
impl PartialEq for FairDeals {
    fn eq(&self, other: &FairDeals) -> bool {
        let FairDeals {
            chain_length,
            renews,
            chains,
            seat_seeds,
            begun,
            boards,
            changed: _,
        } = self;
        (chain_length, renews, chains, seat_seeds, begun, boards)
            == (
                &other.chain_length,
                &other.renews,
                &other.chains,
                &other.seat_seeds,
                &other.begun,
                &other.boards,
            )
    }
}

impl Eq for FairDeals {}

/// The `fairness` object of every view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FairnessView {
    /// `s(0)` of the chain that covers the deal in progress or due: SHA-256
    /// applied `k` times to deal `k`'s server seed gives it (k counted from
    /// the chain's first deal).
    pub commitment: String,
    /// Deals (Klaverjassen) or rounds (Potverteren) per chain.
    pub chain_length: u32,
    /// The first deal or round the commitment covers (1 for the first chain).
    pub chain_start: u32,
    /// Potverteren: the next chain's commitment, once the last round of the
    /// current chain has begun; else null.
    pub next_commitment: Option<String>,
    /// The seat seeds in force, by seat; null where none was sent.
    pub seat_seeds: Vec<Option<SeatSeed>>,
}

/// What a finished deal reveals (docs/fairness.md, "Checking a deal").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Revealed {
    /// The deal or round number.
    pub deal: u32,
    /// Its server seed `s(k)`, hex.
    pub server_seed: String,
    /// Its place `k` in its chain, 1..=`chain_length`.
    pub position: u32,
    /// The commitment of its chain.
    pub commitment: String,
    /// The seat seeds mixed into it, by seat.
    pub seat_seeds: Vec<Option<SeatSeed>>,
}

impl FairDeals {
    /// A new table's state: one chain of `chain_length` deals, its last seed
    /// drawn from `rng` (the service passes the operating system's CSPRNG);
    /// with `renews`, chains follow one another for as long as the table plays.
    pub fn new<R: Rng + ?Sized>(
        chain_length: u32,
        renews: bool,
        seats: u8,
        rng: &mut R,
    ) -> FairDeals {
        let mut fair = FairDeals {
            chain_length: chain_length.max(1),
            renews,
            chains: Vec::new(),
            seat_seeds: vec![None; usize::from(seats)],
            begun: Vec::new(),
            boards: None,
            changed: true,
        };
        fair.add_chain(rng);
        fair
    }

    /// The state of a Klaverjassen table of a duplicate club evening whose
    /// `deals` deals are the event's boards from `boards.first_board` on:
    /// one chain whose last link `top` is the event's link of the table's
    /// last board, so that deal `d` uses the event's link of its board.
    pub fn for_boards(top: ServerSeed, deals: u32, boards: Boards) -> FairDeals {
        let commitment = to_hex(&hash_steps(&top.0, deals));
        FairDeals {
            chain_length: deals.max(1),
            renews: false,
            chains: vec![Chain { top, commitment }],
            seat_seeds: vec![None; 4],
            begun: Vec::new(),
            boards: Some(boards),
            changed: true,
        }
    }

    fn add_chain<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let mut top = [0; 32];
        rng.fill_bytes(&mut top);
        let commitment = to_hex(&hash_steps(&top, self.chain_length));
        self.chains.push(Chain {
            top: ServerSeed(top),
            commitment,
        });
        self.changed = true;
    }

    /// Whether the state changed since it was read from its stored text
    /// (always, for a new one): one that has not needs no writing anew.
    pub fn changed(&self) -> bool {
        self.changed
    }

    fn chain_of(&self, deal: u32) -> usize {
        (deal.max(1) - 1) as usize / self.chain_length as usize
    }

    fn position_of(&self, deal: u32) -> u32 {
        (deal.max(1) - 1) % self.chain_length + 1
    }

    /// Makes sure the chains cover `deal`, and commits the next chain as soon
    /// as `deal` is the last of its chain, a whole deal before it is needed.
    /// Returns the commitments made.
    pub fn commit_ahead<R: Rng + ?Sized>(&mut self, deal: u32, rng: &mut R) -> Vec<String> {
        let mut wanted = self.chain_of(deal) + 1;
        if self.renews && self.position_of(deal) == self.chain_length {
            wanted += 1;
        }
        let mut made = Vec::new();
        while self.chains.len() < wanted {
            self.add_chain(rng);
            made.push(self.chains[self.chains.len() - 1].commitment.clone());
        }
        made
    }

    fn server_seed(&self, deal: u32) -> Option<Seed> {
        let chain = self.chains.get(self.chain_of(deal))?;
        Some(hash_steps(
            &chain.top.0,
            self.chain_length - self.position_of(deal),
        ))
    }

    /// Sets (or with `None` clears) `seat`'s seed.
    pub fn set_seat_seed(&mut self, seat: usize, seed: Option<SeatSeed>) {
        if let Some(slot) = self.seat_seeds.get_mut(seat)
            && *slot != seed
        {
            *slot = seed;
            self.changed = true;
        }
    }

    /// The view's `fairness` object while `deal` is in progress or due.
    pub fn view(&self, deal: u32) -> FairnessView {
        let chain = self.chain_of(deal).min(self.chains.len() - 1);
        FairnessView {
            commitment: self.chains[chain].commitment.clone(),
            chain_length: self.chain_length,
            chain_start: chain as u32 * self.chain_length + 1,
            next_commitment: self.chains.get(chain + 1).map(|c| c.commitment.clone()),
            seat_seeds: self.seat_seeds.clone(),
        }
    }

    /// What deal `deal` reveals. Only for a deal that is over: its server
    /// seed is in the answer.
    pub fn reveal(&self, deal: u32) -> Option<Revealed> {
        let seat_seeds = self
            .begun
            .get(usize::try_from(deal.checked_sub(1)?).ok()?)?;
        Some(Revealed {
            deal,
            server_seed: to_hex(&self.server_seed(deal)?),
            position: self.position_of(deal),
            commitment: self.chains[self.chain_of(deal)].commitment.clone(),
            seat_seeds: seat_seeds.clone(),
        })
    }

    /// The seeds a finished Klaverjassen deal's score-sheet row shows.
    pub fn seeds_of(&self, deal: u8) -> Option<crate::rules::klaverjassen::Seeds> {
        let revealed = self.reveal(u32::from(deal))?;
        let seat_seeds = revealed
            .seat_seeds
            .into_iter()
            .map(|seed| seed.map(String::from))
            .collect();
        Some((revealed.server_seed, seat_seeds))
    }

    /// The draws of the game `game_id`, for the rules to deal from.
    pub fn draws(&mut self, game_id: Uuid) -> Draws<'_> {
        Draws {
            fair: self,
            game_id,
        }
    }
}

/// The committed streams of one table, as the rules' [`Randomness`]. The
/// first draw of a deal fixes the seat seeds mixed into it.
pub struct Draws<'a> {
    fair: &'a mut FairDeals,
    game_id: Uuid,
}

impl Draws<'_> {
    fn with_inputs<T>(&mut self, deal: u32, draw: impl FnOnce(DealInputs<'_>) -> T) -> T {
        let index = (deal.max(1) - 1) as usize;
        if self.fair.begun.len() <= index {
            // A board mixes in the entries' event seeds, never the table's.
            let in_force = match &self.fair.boards {
                Some(boards) => boards.seeds.clone(),
                None => self.fair.seat_seeds.clone(),
            };
            self.fair.begun.resize(index + 1, in_force);
            self.fair.changed = true;
        }
        let server_seed = self
            .fair
            .server_seed(deal)
            .expect("the chains are committed ahead of every deal");
        let (game_id, deal) = match &self.fair.boards {
            Some(boards) => (boards.event_id, boards.first_board + deal - 1),
            None => (self.game_id, deal),
        };
        let deal = match &self.fair.boards {
            Some(_) => deal.max(1),
            None => deal,
        };
        draw(DealInputs {
            server_seed: &server_seed,
            game_id: *game_id.as_bytes(),
            deal,
            seat_seeds: &self.fair.begun[index],
        })
    }
}

impl Randomness for Draws<'_> {
    fn shuffle_deck(&mut self, deal: u32, cards: &mut [Card]) {
        self.with_inputs(deal, |inputs| inputs.deck(cards));
    }

    fn draw_lot(&mut self, deal: u32, seats: u8) -> u8 {
        self.with_inputs(deal, |inputs| inputs.lot(seats))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    fn revealed_hashes_to_its_commitment(fair: &FairDeals, deal: u32) -> bool {
        let revealed = fair.reveal(deal).unwrap();
        let seed = seed_from_hex(&revealed.server_seed).unwrap();
        to_hex(&hash_steps(&seed, revealed.position)) == revealed.commitment
    }

    fn begin(fair: &mut FairDeals, deal: u32) {
        let mut cards = crate::rules::potverteren::deck::full_deck();
        fair.draws(Uuid::nil()).shuffle_deck(deal, &mut cards);
    }

    fn read_back(fair: &FairDeals) -> FairDeals {
        serde_json::from_str(&serde_json::to_string(fair).unwrap()).unwrap()
    }

    /// A state read from its text has not changed until a seat seed, a
    /// chain or a deal begun changes it; a new one has.
    #[test]
    fn a_state_read_back_has_changed_only_once_a_seat_seed_a_chain_or_a_deal_changes_it() {
        let mut rng = StdRng::seed_from_u64(3);
        let fair = FairDeals::new(4, true, 5, &mut rng);
        assert!(fair.changed(), "a new state");
        let mut read = read_back(&fair);
        assert!(!read.changed(), "as read");
        assert_eq!(read, fair, "the flag is not part of what it holds");

        read.set_seat_seed(2, None);
        read.set_seat_seed(9, Some(SeatSeed::parse("ab").unwrap()));
        assert!(read.commit_ahead(1, &mut rng).is_empty());
        assert!(
            !read.changed(),
            "nothing to change: no seed, no seat, no chain"
        );

        read.set_seat_seed(2, Some(SeatSeed::parse("ab").unwrap()));
        assert!(read.changed(), "a seat seed");
        let mut read = read_back(&read);
        read.set_seat_seed(2, None);
        assert!(read.changed(), "a seat seed taken back");

        let mut read = read_back(&read);
        begin(&mut read, 1);
        assert!(read.changed(), "a deal begun");
        let mut read = read_back(&read);
        begin(&mut read, 1);
        assert!(!read.changed(), "a deal drawn from again");

        assert_eq!(read.commit_ahead(4, &mut rng).len(), 1);
        assert!(read.changed(), "a chain committed");
    }

    /// A table that has begun `deals` deals, the seat seeds changing on
    /// the way.
    fn played(deals: u32, chain_length: u32, renews: bool, seed: u64) -> FairDeals {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut fair = FairDeals::new(chain_length, renews, 5, &mut rng);
        for deal in 1..=deals {
            fair.commit_ahead(deal, &mut rng);
            let seat = (deal % 5) as usize;
            fair.set_seat_seed(seat, SeatSeed::parse(&format!("{deal:x}")).ok());
            begin(&mut fair, deal);
        }
        fair
    }

    /// Read back from its stored text, a state is the one written: it
    /// reveals and writes back what it held, and has not changed.
    #[test]
    fn a_state_read_from_its_stored_text_is_the_state_written() {
        for fair in [
            played(0, 16, false, 5),
            played(1, 16, false, 6),
            played(16, 16, false, 7),
            played(9, 4, true, 8),
        ] {
            let text = serde_json::to_string(&fair).unwrap();
            let read = serde_json::from_str::<FairDeals>(&text).unwrap();
            assert_eq!(read, fair);
            assert!(!read.changed());
            assert_eq!(serde_json::to_string(&read).unwrap(), text);
            for deal in 0..=fair.begun.len() as u32 + 1 {
                assert_eq!(read.reveal(deal), fair.reveal(deal), "deal {deal}");
            }
        }
    }

    /// A text in another shape than the one this service writes (the list
    /// not last, or with space) reads as the same state.
    #[test]
    fn a_state_stored_in_another_shape_reads_as_the_same_state() {
        let fair = played(3, 16, false, 9);
        // serde_json's own map sorts the keys: `begun` comes first.
        let sorted = serde_json::to_string(&serde_json::to_value(&fair).unwrap()).unwrap();
        assert!(sorted.starts_with("{\"begun\":"), "{sorted}");
        let pretty = serde_json::to_string_pretty(&fair).unwrap();
        for text in [
            sorted,
            pretty,
            format!(" {} ", serde_json::to_string(&fair).unwrap()),
        ] {
            let read = serde_json::from_str::<FairDeals>(&text).unwrap();
            assert_eq!(read, fair, "{text}");
            assert_eq!(read.reveal(3), fair.reveal(3));
        }
        assert!(serde_json::from_str::<FairDeals>("{\"chain_length\":16}").is_err());
        assert!(serde_json::from_str::<FairDeals>("{\"begun\":[]}").is_err());
    }

    /// A chain's top seed reads from 64 hex characters in either case, and
    /// from nothing else.
    #[test]
    fn a_server_seed_is_read_from_sixty_four_hex_characters_only() {
        let fair = played(1, 16, false, 11);
        let text = serde_json::to_string(&fair).unwrap();
        let top = to_hex(&fair.chains[0].top.0);
        let upper = text.replace(&top, &top.to_uppercase());
        assert_eq!(serde_json::from_str::<FairDeals>(&upper).unwrap(), fair);
        for bad in [&top[1..], &format!("{}g", &top[1..]), ""] {
            let text = text.replace(&top, bad);
            assert!(serde_json::from_str::<FairDeals>(&text).is_err(), "{bad:?}");
        }
        let number = text.replace(&format!("\"{top}\""), "7");
        assert!(serde_json::from_str::<FairDeals>(&number).is_err());
    }

    /// A deal begun after the state was read from its text adds its seat
    /// seeds to the list, changes the state, and leaves the earlier deals'
    /// seeds as they were.
    #[test]
    fn a_deal_begun_after_a_read_from_the_stored_text_adds_to_the_list() {
        let fair = played(2, 16, false, 10);
        let text = serde_json::to_string(&fair).unwrap();
        let mut read = serde_json::from_str::<FairDeals>(&text).unwrap();
        read.set_seat_seed(4, Some(SeatSeed::parse("beef").unwrap()));
        begin(&mut read, 3);
        assert!(read.changed());
        assert_eq!(read.reveal(1), fair.reveal(1));
        assert_eq!(read.reveal(2), fair.reveal(2));
        assert_eq!(
            read.reveal(3).unwrap().seat_seeds,
            read.view(3).seat_seeds,
            "the seeds in force at its first draw"
        );
        let written = serde_json::to_string(&read).unwrap();
        assert_eq!(serde_json::from_str::<FairDeals>(&written).unwrap(), read);
        assert_eq!(serde_json::from_str::<FairDeals>(&written).unwrap(), read);
    }

    #[test]
    fn a_potverteren_chain_is_renewed_a_whole_round_before_it_runs_out() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut fair = FairDeals::new(POTVERTEREN_CHAIN_LENGTH, true, 5, &mut rng);
        let first = fair.view(1).commitment;
        for round in 1..=63 {
            assert!(
                fair.commit_ahead(round, &mut rng).is_empty(),
                "round {round}"
            );
            begin(&mut fair, round);
        }
        assert_eq!(fair.view(63).next_commitment, None);
        let made = fair.commit_ahead(64, &mut rng);
        assert_eq!(made.len(), 1, "committed when round 64 begins");
        assert_eq!(fair.view(64).next_commitment, Some(made[0].clone()));
        assert_eq!(fair.view(64).commitment, first);
        begin(&mut fair, 64);
        begin(&mut fair, 65);
        let renewed = fair.view(65);
        assert_eq!(
            (renewed.commitment, renewed.chain_start),
            (made[0].clone(), 65)
        );
        assert!(revealed_hashes_to_its_commitment(&fair, 64));
        assert!(revealed_hashes_to_its_commitment(&fair, 65));
        assert_eq!(fair.reveal(65).unwrap().position, 1);
        assert_eq!(fair.reveal(64).unwrap().commitment, first);
    }

    #[test]
    fn a_klaverjassen_chain_is_never_renewed() {
        let mut rng = StdRng::seed_from_u64(2);
        let mut fair = FairDeals::new(16, false, 4, &mut rng);
        assert!(fair.commit_ahead(16, &mut rng).is_empty());
        for deal in 1..=16 {
            begin(&mut fair, deal);
            assert!(revealed_hashes_to_its_commitment(&fair, deal));
        }
    }

    #[test]
    fn a_deal_not_yet_begun_reveals_nothing_and_debug_hides_the_seeds() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut fair = FairDeals::new(16, false, 4, &mut rng);
        assert_eq!(fair.reveal(1), None);
        begin(&mut fair, 1);
        let seed = fair.reveal(1).unwrap().server_seed;
        let top = to_hex(&fair.chains[0].top.0);
        let debug = format!("{fair:?}");
        assert!(!debug.contains(&seed) && !debug.contains(&top));
    }

    #[test]
    fn the_seat_seeds_of_a_deal_are_those_in_force_at_its_first_draw() {
        let mut rng = StdRng::seed_from_u64(4);
        let mut fair = FairDeals::new(16, false, 4, &mut rng);
        fair.set_seat_seed(1, Some(SeatSeed::parse("aa").unwrap()));
        begin(&mut fair, 1);
        fair.set_seat_seed(2, Some(SeatSeed::parse("bb").unwrap()));
        begin(&mut fair, 1);
        assert_eq!(
            fair.reveal(1).unwrap().seat_seeds,
            vec![None, Some(SeatSeed::parse("aa").unwrap()), None, None]
        );
    }
}
