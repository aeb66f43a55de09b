//! The transposition table: bounds on the value of positions at a trick's
//! start, kept across the probes of one solve, and the keys it files them
//! under.

use super::position::{State, margin};
use super::{INF, Solver};

/// The low-card key applies from this many cards out.
const LOW_KEY_FROM: u32 = 16;

/// For the low cards of one suit still out (3 bits, weakest first) and the
/// seat number bits of each (3 bits each, shifted by 3 and 6): how many are
/// left and their holders in order, as one number below 85 (0; 1-4; 5-20;
/// 21-84).
const LOW_CODES: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut index = 0;
    while index < 512 {
        let present = index & 7;
        let mut code = 0;
        let mut count = 0;
        let mut scale = 1;
        let mut rank = 0;
        while rank < 3 {
            if present & (1 << rank) != 0 {
                let seat = ((index >> (3 + rank)) & 1) | ((index >> (6 + rank)) & 1) << 1;
                code += seat * scale;
                scale *= 4;
                count += 1;
            }
            rank += 1;
        }
        let offset = [0, 1, 5, 21][count];
        table[index] = (offset + code) as u8;
        index += 1;
    }
    table
};

/// One transposition table entry: bounds on the value of the position
/// at the start of a trick.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry {
    key: u64,
    /// The least and the most the position is worth.
    lower: i16,
    upper: i16,
    generation: u16,
    /// The card (bit index) that was best or cut off, tried first again.
    pub(super) best: u8,
    /// The number of cards still out (for replacement).
    out: u8,
}

impl Entry {
    /// The entry's bounds against a search of the window `(alpha, beta)`:
    /// the value when they settle it (fail-soft), else `None` with the
    /// window narrowed to them.
    #[inline]
    pub(super) fn cut(&self, alpha: &mut i32, beta: &mut i32) -> Option<i32> {
        let (lower, upper) = (i32::from(self.lower), i32::from(self.upper));
        if lower >= *beta {
            return Some(lower);
        }
        if upper <= *alpha {
            return Some(upper);
        }
        *alpha = (*alpha).max(lower);
        *beta = (*beta).min(upper);
        None
    }
}

/// The table: 2^18 entries (4 MiB) in buckets of two, each key in either
/// slot of its bucket. Entries of an earlier solve count as empty (their
/// generation is not the current one), so a new solve clears nothing.
pub(super) struct Table {
    entries: Vec<Entry>,
    mask: usize,
    generation: u16,
}

impl Table {
    /// An empty table.
    pub(super) fn new() -> Table {
        let bits = 18;
        Table {
            entries: vec![Entry::default(); 1 << bits],
            mask: (1 << bits) - 1,
            generation: 0,
        }
    }

    /// Starts a new generation: every entry stored so far counts as an
    /// earlier solve's (never read, replaced first).
    pub(super) fn new_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill(Entry::default());
            self.generation = 1;
        }
    }

    fn slot(&self, key: u64) -> usize {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (hash >> 32) as usize & self.mask
    }

    /// Starts loading the bucket of `key` into the cache (a hint; no
    /// effect on any value).
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = self.entries.as_ptr().wrapping_add(self.slot(key) & !1);
            // SAFETY: a prefetch only hints the cache; it reads nothing the
            // program sees and cannot fault, whatever the address (here
            // one inside the table anyway).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The slot for `key`: its entry when the table holds it, else the slot
    /// to replace. A new key replaces an entry of an earlier solve first,
    /// else the one with fewer cards still out (cheaper to search again).
    #[inline]
    fn find(&self, key: u64) -> usize {
        let first = self.slot(key) & !1;
        let second = first | 1;
        let (a, b) = (&self.entries[first], &self.entries[second]);
        if a.generation == self.generation && a.key == key {
            return first;
        }
        if b.generation == self.generation && b.key == key {
            return second;
        }
        if a.generation != self.generation {
            return first;
        }
        if b.generation != self.generation {
            return second;
        }
        if a.out <= b.out { first } else { second }
    }

    /// The entry of this solve for `key`, if the table holds one.
    #[inline]
    pub(super) fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.entries[self.find(key)];
        (entry.generation == self.generation && entry.key == key).then_some(entry)
    }

    /// Stores the fail-soft result `best` of a search with the window
    /// `(alpha, beta)` under `key`, merged with the bounds already stored
    /// for it. Out of line: most nodes start no trick and store nothing.
    #[inline(never)]
    pub(super) fn store(
        &mut self,
        key: u64,
        best: i32,
        (alpha, beta): (i32, i32),
        best_move: u8,
        out: u32,
    ) {
        let mut lower = if best > alpha { best } else { -INF };
        let mut upper = if best < beta { best } else { INF };
        let slot = self.find(key);
        let generation = self.generation;
        let entry = &mut self.entries[slot];
        if entry.generation == generation && entry.key == key {
            lower = lower.max(i32::from(entry.lower));
            upper = upper.min(i32::from(entry.upper));
        }
        *entry = Entry {
            key,
            lower: lower as i16,
            upper: upper as i16,
            generation,
            best: best_move,
            out: out as u8,
        };
    }
}

impl Solver {
    /// The absolute search's key: the cards still out (which, within one
    /// solve, also fix the card points both teams took together), the
    /// leader, whether pit is still possible, team A's lead in card points
    /// and roem, and the roem made by both teams (always a multiple of 10).
    /// The final value depends on nothing else, so the key is exact: two
    /// positions share an entry only when their values are equal.
    pub(super) fn key(&self, state: &State) -> u64 {
        debug_assert!(state.roem.iter().all(|roem| roem % 10 == 0 && *roem < 1280));
        let pit_open = self.pit_open(state);
        let made = (state.roem[0] + state.roem[1]) / 10;
        u64::from(state.remaining())
            | u64::from(state.leader) << 32
            | u64::from(pit_open) << 34
            | (((margin(state) + 2048) as u64) & 0xFFF) << 35
            | ((made as u64) & 0xFF) << 47
    }

    /// The rest and nat searches' key (bit 63 set, apart from the absolute
    /// search's keys): the cards still out, the leader, and whether pit is
    /// still possible (the rest search) or the roem budget left in tens
    /// (the nat search, bit 62), nothing of the score so far: what the rest
    /// of the deal adds depends on nothing else. From [`LOW_KEY_FROM`]
    /// cards out the cards are [`Solver::low_key`], with bit 61 set.
    #[inline]
    pub(super) fn rest_key<const NAT: bool>(
        &self,
        state: &State,
        budget: i32,
        pit_open: bool,
    ) -> u64 {
        let remaining = state.remaining();
        if remaining.count_ones() >= LOW_KEY_FROM {
            let flag = if NAT {
                (((budget / 10 + 1) as u64) & 0xFF) << 51 | 1 << 62
            } else {
                u64::from(pit_open) << 50
            };
            self.low_key(state) | u64::from(state.leader) << 48 | flag | 1 << 61 | 1 << 63
        } else {
            let flag = if NAT {
                (((budget / 10 + 1) as u64) & 0xFF) << 35 | 1 << 62
            } else {
                u64::from(pit_open) << 34
            };
            u64::from(remaining) | u64::from(state.leader) << 32 | flag | 1 << 63
        }
    }

    /// The cards still out, for the rest and nat searches' table key (48
    /// bits), with the pointless low cards of a suit (plain 7 8 9, trump
    /// 7 8: the weakest of their suit, worth nothing) reduced to how many
    /// are left and who holds them, weakest first, when none of them can
    /// still make roem: no run of three through one of them whose cards
    /// are still out in three different hands, and no four of a kind of
    /// their ranks in four hands. Two positions whose low cards differ only
    /// in which ones are left then have the same legal cards, trick
    /// winners, points and roem in every line of play (map each low card
    /// to the one of the same place in the other), so the same value.
    /// Other suits keep their low cards as they are.
    pub(super) fn low_key(&self, state: &State) -> u64 {
        let hands = &state.hands;
        let cards = hands[0] | hands[1] | hands[2] | hands[3];
        let mut same = [0u32; 3];
        let mut ranks = 0xFF;
        for hand in hands {
            same[1] |= hand & (hand >> 1);
            same[2] |= hand & (hand >> 2);
            ranks &= hand | (hand >> 8) | (hand >> 16) | (hand >> 24);
        }
        let three = cards & (cards >> 1) & (cards >> 2) & !(same[1] | (same[1] >> 1) | same[2]);
        let four_of_a_kind = cards & (cards >> 8) & (cards >> 16) & (cards >> 24) & ranks & 0b111;
        // Seat number bits of each card.
        let seat_low = hands[1] | hands[3];
        let seat_high = hands[2] | hands[3];
        let trump = self.trump as u32;
        let mut high = 0u64;
        let mut codes = 0u64;
        let mut at = 0;
        for suit in 0..4u32 {
            let shift = 8 * suit;
            let (low, width) = if suit == trump {
                (0b011, 2)
            } else {
                (0b111, 3)
            };
            let present = (cards >> shift) & low;
            high |= u64::from((cards >> shift & 0xFF) >> width) << at;
            at += 8 - width;
            let runs = (three >> shift) & low;
            let code = if runs == 0 && four_of_a_kind & low == 0 {
                let index = present
                    | ((seat_low >> shift) & present) << 3
                    | ((seat_high >> shift) & present) << 6;
                u64::from(LOW_CODES[index as usize])
            } else {
                85 + u64::from(present)
            };
            codes = codes * 93 + code;
        }
        high | codes << 21
    }
}
