//! Provably fair deals: the pure computation behind every shuffle and every
//! draw by lot, as docs/fairness.md specifies it byte for byte.
//!
//! A deal's randomness is a stream of HMAC-SHA-256 blocks in counter mode,
//! keyed with the deal's server seed and bound to the game, the deal number
//! and the seat seeds; decks come from it by an unbiased Fisher–Yates
//! shuffle (rejection sampling, never a library's shuffle, whose algorithm
//! may change between versions). No I/O and no secrets handling here: the
//! table around the rules keeps the seeds ([`crate::table`]), and the rules
//! ask for decks and lots through [`Randomness`].

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::rules::cards::Card;

/// The label that opens every message of the stream: the scheme and its version.
pub const DOMAIN: &[u8] = b"kaarttafel fair deal v1";

/// The longest seat seed, in hex characters.
pub const SEAT_SEED_MAX: usize = 64;

/// A 32-byte seed or hash.
pub type Seed = [u8; 32];

/// What a stream is drawn for; each purpose has its own stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The order of the deck.
    Deck = 1,
    /// A seat drawn by lot (the Potverteren pothouder).
    Lot = 2,
    /// A club evening's draw of partners and tables (docs/events.md).
    Draw = 3,
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> Seed {
    Sha256::digest(bytes).into()
}

/// The seed `steps` links down the chain from `seed`: SHA-256 applied `steps`
/// times. The commitment of a chain of length `n` whose last deal uses `top`
/// is `hash_steps(top, n)`; deal `k` of it uses `hash_steps(top, n - k)`.
pub fn hash_steps(seed: &Seed, steps: u32) -> Seed {
    (0..steps).fold(*seed, |s, _| sha256(&s))
}

/// Lower-case hex of `bytes`. Written digit by digit: every change writes
/// the table's seeds, and a `format!` per byte was an allocation each.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    hex
}

/// The 32 bytes written as 64 hex characters (either case).
pub fn seed_from_hex(hex: &str) -> Option<Seed> {
    let digit = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let hex = hex.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let mut seed = [0; 32];
    for (byte, pair) in seed.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(seed)
}

/// A seat's own seed: 1 to 64 hex characters, kept in lower case.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SeatSeed(String);

impl SeatSeed {
    /// Checks `value` (1 to 64 hex characters, either case).
    pub fn parse(value: &str) -> Result<SeatSeed, String> {
        if value.is_empty() || value.len() > SEAT_SEED_MAX {
            return Err(format!("1 to {SEAT_SEED_MAX} hex characters"));
        }
        if !value.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("hex characters only (0-9, a-f)".into());
        }
        Ok(SeatSeed(value.to_ascii_lowercase()))
    }

    /// The seed as lower-case hex.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for SeatSeed {
    type Error = String;
    fn try_from(value: String) -> Result<SeatSeed, String> {
        SeatSeed::parse(&value)
    }
}

impl From<SeatSeed> for String {
    fn from(seed: SeatSeed) -> String {
        seed.0
    }
}

impl fmt::Debug for SeatSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SeatSeed({})", self.0)
    }
}

impl fmt::Display for SeatSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Everything one deal's randomness depends on.
#[derive(Clone, Copy, Debug)]
pub struct DealInputs<'a> {
    /// The deal's server seed `s(k)`.
    pub server_seed: &'a Seed,
    /// The game's id, as the 16 bytes of the UUID.
    pub game_id: [u8; 16],
    /// The deal (Klaverjassen) or round (Potverteren) number, from 1.
    pub deal: u32,
    /// The seat seeds in force, by seat (`None` where none was sent).
    pub seat_seeds: &'a [Option<SeatSeed>],
}

impl DealInputs<'_> {
    /// The message of every block but its counter (docs/fairness.md, "The stream").
    pub fn message_prefix(&self, purpose: Purpose) -> Vec<u8> {
        let mut message = Vec::with_capacity(64 + self.seat_seeds.len() * 65);
        message.extend_from_slice(DOMAIN);
        message.push(0);
        message.push(purpose as u8);
        message.extend_from_slice(&self.game_id);
        message.extend_from_slice(&self.deal.to_be_bytes());
        message.push(self.seat_seeds.len() as u8);
        for seed in self.seat_seeds {
            let text = seed.as_ref().map_or("", SeatSeed::as_str);
            message.push(text.len() as u8);
            message.extend_from_slice(text.as_bytes());
        }
        message
    }

    /// The stream of `purpose` for this deal.
    pub fn stream(&self, purpose: Purpose) -> Stream {
        Stream::new(self.server_seed, self.message_prefix(purpose))
    }

    /// The deck of this deal: `cards` (in their canonical order) shuffled.
    pub fn deck(&self, cards: &mut [Card]) {
        shuffle(&mut self.stream(Purpose::Deck), cards);
    }

    /// The seat drawn by lot among `seats` seats.
    pub fn lot(&self, seats: u8) -> u8 {
        self.stream(Purpose::Lot).below(u32::from(seats)) as u8
    }
}

/// HMAC-SHA-256 in counter mode: block `i` is `HMAC(key, prefix ‖ i as u32
/// big-endian)`, the stream is the blocks one after another, read 4 bytes
/// (big-endian) at a time.
#[derive(Clone)]
pub struct Stream {
    mac: Hmac<Sha256>,
    prefix: Vec<u8>,
    counter: u32,
    block: [u8; 32],
    used: usize,
}

impl Stream {
    /// The stream keyed with `key` over `prefix`.
    pub fn new(key: &Seed, prefix: Vec<u8>) -> Stream {
        let mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
        Stream {
            mac,
            prefix,
            counter: 0,
            block: [0; 32],
            used: 32,
        }
    }

    /// The next 4 bytes of the stream, big-endian.
    pub fn next_u32(&mut self) -> u32 {
        if self.used == self.block.len() {
            let mut mac = self.mac.clone();
            mac.update(&self.prefix);
            mac.update(&self.counter.to_be_bytes());
            self.block = mac.finalize().into_bytes().into();
            self.counter += 1;
            self.used = 0;
        }
        let word = &self.block[self.used..self.used + 4];
        self.used += 4;
        u32::from_be_bytes([word[0], word[1], word[2], word[3]])
    }

    /// A number uniform in `0..n` (`n` ≥ 1), by rejection: words at or above
    /// the largest multiple of `n` that fits in 2³² are skipped.
    pub fn below(&mut self, n: u32) -> u32 {
        below(n, || self.next_u32())
    }
}

/// A number uniform in `0..n` from uniform 32-bit words, by rejection.
fn below(n: u32, mut word: impl FnMut() -> u32) -> u32 {
    assert!(n > 0, "a draw needs at least one outcome");
    let n = u64::from(n);
    let limit = (1u64 << 32) - (1u64 << 32) % n;
    loop {
        let w = u64::from(word());
        if w < limit {
            return (w % n) as u32;
        }
    }
}

/// Fisher–Yates: for `i` from the last index down to 1, swap item `i` with
/// item `below(i + 1)`.
pub fn shuffle<T>(stream: &mut Stream, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = stream.below(i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

/// Where the rules get their randomness: a deck for each deal and a seat by
/// lot. The service answers from the table's committed streams; tests and
/// benchmarks may pass any [`rand::Rng`].
pub trait Randomness {
    /// Shuffles `cards`, given in their canonical order, for deal (or round) `deal`.
    fn shuffle_deck(&mut self, deal: u32, cards: &mut [Card]);
    /// A seat, `0..seats`, drawn by lot for deal (or round) `deal`.
    fn draw_lot(&mut self, deal: u32, seats: u8) -> u8;
}

/// For tests and benchmarks only (the service never deals from an `Rng`):
/// rand's own shuffle, so seeded games keep the deals they always had.
impl<R: Rng + ?Sized> Randomness for R {
    fn shuffle_deck(&mut self, _deal: u32, cards: &mut [Card]) {
        cards.shuffle(self);
    }

    fn draw_lot(&mut self, _deal: u32, seats: u8) -> u8 {
        self.random_range(0..seats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejection_skips_the_words_that_would_bias_the_draw() {
        // 2^32 mod 3 = 1: the one word 0xFFFF_FFFF is past the last multiple of 3.
        let mut words = [u32::MAX, 7].into_iter();
        assert_eq!(below(3, || words.next().unwrap()), 1);
        let mut words = [u32::MAX - 1].into_iter();
        assert_eq!(below(3, || words.next().unwrap()), (u32::MAX - 1) % 3);
    }

    #[test]
    fn a_seat_seed_is_one_to_sixty_four_hex_characters_kept_in_lower_case() {
        assert_eq!(SeatSeed::parse("AbC1").unwrap().as_str(), "abc1");
        assert!(SeatSeed::parse("").is_err());
        assert!(SeatSeed::parse(&"a".repeat(65)).is_err());
        assert!(SeatSeed::parse(&"f".repeat(64)).is_ok());
        assert!(SeatSeed::parse("xyz").is_err());
    }

    #[test]
    fn a_seed_is_written_as_sixty_four_lower_case_hex_characters_and_read_in_either_case() {
        let seed: Seed = std::array::from_fn(|i| (i * 37 + 5) as u8);
        let hex = to_hex(&seed);
        assert_eq!(
            hex,
            "052a4f7499bee3082d52779cc1e60b30557a9fc4e90e33587da2c7ec11365b80"
        );
        assert_eq!(to_hex(&[0x00, 0x0f, 0xf0, 0xff]), "000ff0ff");
        assert_eq!(seed_from_hex(&hex), Some(seed));
        assert_eq!(seed_from_hex(&hex.to_uppercase()), Some(seed));
        assert_eq!(seed_from_hex(&hex[..62]), None, "too short");
        assert_eq!(seed_from_hex(&format!("{hex}00")), None, "too long");
        for bad in ["g", "-", "+", " ", "\u{e9}"] {
            let text = format!("{bad}{}", &hex[bad.len()..]);
            assert_eq!(seed_from_hex(&text), None, "{text:?}");
        }
        assert_eq!(seed_from_hex(&format!("+f{}", &hex[2..])), None, "a sign");
    }

    #[test]
    fn a_chain_link_hashes_down_to_the_one_before_it() {
        let top = [7; 32];
        assert_eq!(hash_steps(&top, 1), sha256(&top));
        assert_eq!(hash_steps(&top, 3), sha256(&hash_steps(&top, 2)));
        assert_eq!(seed_from_hex(&to_hex(&top)), Some(top));
    }
}
