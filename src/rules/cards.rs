//! Playing cards as the API writes them: rank then suit (`7C`, `10H`, `JS`, `6H`).
//!
//! Both games draw from the French-suited 52-card deck; each game checks which
//! of these cards belong to its own deck.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A suit, with the letter the API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Suit {
    /// Clubs (*klaveren*).
    #[serde(rename = "C")]
    Clubs,
    /// Diamonds (*ruiten*).
    #[serde(rename = "D")]
    Diamonds,
    /// Hearts (*harten*).
    #[serde(rename = "H")]
    Hearts,
    /// Spades (*schoppen*).
    #[serde(rename = "S")]
    Spades,
}

impl Suit {
    /// The four suits in a fixed order (clubs, diamonds, hearts, spades).
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// Position in [`Suit::ALL`], 0..4.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The API's letter for this suit.
    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    /// The suit whose letter is the byte `letter`.
    fn of_letter(letter: u8) -> Option<Suit> {
        match letter {
            b'C' => Some(Suit::Clubs),
            b'D' => Some(Suit::Diamonds),
            b'H' => Some(Suit::Hearts),
            b'S' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Suit {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match *s.as_bytes() {
            [letter] => Suit::of_letter(letter),
            _ => None,
        }
        .ok_or_else(|| ParseCardError(s.to_owned()))
    }
}

/// A rank, from 2 up to the ace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    /// 2
    Two = 2,
    /// 3
    Three,
    /// 4
    Four,
    /// 5
    Five,
    /// 6
    Six,
    /// 7
    Seven,
    /// 8
    Eight,
    /// 9
    Nine,
    /// 10
    Ten,
    /// Jack (*boer*).
    Jack,
    /// Queen (*vrouw*).
    Queen,
    /// King (*heer*).
    King,
    /// Ace (*aas*).
    Ace,
}

impl Rank {
    /// All thirteen ranks, low to high in natural order.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The API's code for this rank (`2`..`10`, `J`, `Q`, `K`, `A`).
    pub const fn code(self) -> &'static str {
        match self {
            Rank::Two => "2",
            Rank::Three => "3",
            Rank::Four => "4",
            Rank::Five => "5",
            Rank::Six => "6",
            Rank::Seven => "7",
            Rank::Eight => "8",
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Ace => "A",
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A card: a rank of a suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    /// The card's rank.
    pub rank: Rank,
    /// The card's suit.
    pub suit: Suit,
}

impl Card {
    /// The card of `rank` in `suit`.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// The card's code, rank then suit (`10H`). Every state, record and
    /// view writes and reads many of them, so they are a table rather than
    /// formatted each time.
    pub const fn code(self) -> &'static str {
        CODES[self.rank as usize - 2][self.suit.index()]
    }
}

/// [`Card::code`] by rank (from the two) and suit.
const CODES: [[&str; 4]; 13] = [
    ["2C", "2D", "2H", "2S"],
    ["3C", "3D", "3H", "3S"],
    ["4C", "4D", "4H", "4S"],
    ["5C", "5D", "5H", "5S"],
    ["6C", "6D", "6H", "6S"],
    ["7C", "7D", "7H", "7S"],
    ["8C", "8D", "8H", "8S"],
    ["9C", "9D", "9H", "9S"],
    ["10C", "10D", "10H", "10S"],
    ["JC", "JD", "JH", "JS"],
    ["QC", "QD", "QH", "QS"],
    ["KC", "KD", "KH", "KS"],
    ["AC", "AD", "AH", "AS"],
];

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A string that is not a card code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCardError(pub String);

impl fmt::Display for ParseCardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a card: write the rank (2..10, J, Q, K, A) then the suit (C, D, H, S), as in `10H`",
            self.0
        )
    }
}

impl std::error::Error for ParseCardError {}

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (rank, suit) = match *s.as_bytes() {
            [rank, suit] => (rank_of_letter(rank), Suit::of_letter(suit)),
            [b'1', b'0', suit] => (Some(Rank::Ten), Suit::of_letter(suit)),
            _ => (None, None),
        };
        match (rank, suit) {
            (Some(rank), Some(suit)) => Ok(Card { rank, suit }),
            _ => Err(ParseCardError(s.to_owned())),
        }
    }
}

/// The rank a one-letter rank code stands for (all but the ten).
fn rank_of_letter(letter: u8) -> Option<Rank> {
    Some(match letter {
        b'2' => Rank::Two,
        b'3' => Rank::Three,
        b'4' => Rank::Four,
        b'5' => Rank::Five,
        b'6' => Rank::Six,
        b'7' => Rank::Seven,
        b'8' => Rank::Eight,
        b'9' => Rank::Nine,
        b'J' => Rank::Jack,
        b'Q' => Rank::Queen,
        b'K' => Rank::King,
        b'A' => Rank::Ace,
        _ => return None,
    })
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// Reads a card's code where the text is, without a copy of it: a game's
/// state holds about a hundred cards, and serde's `Cow<str>` is always an
/// owned copy, one allocation per card.
struct CodeVisitor;

impl serde::de::Visitor<'_> for CodeVisitor {
    type Value = Card;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a card's code, such as \"10H\"")
    }

    fn visit_str<E: serde::de::Error>(self, code: &str) -> Result<Card, E> {
        code.parse().map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(CodeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_code_round_trips() {
        for suit in Suit::ALL {
            for rank in Rank::ALL {
                let card = Card::new(rank, suit);
                assert_eq!(card.to_string().parse::<Card>(), Ok(card));
            }
        }
        assert_eq!(
            "10H".parse::<Card>(),
            Ok(Card::new(Rank::Ten, Suit::Hearts))
        );
        assert_eq!(Card::new(Rank::Jack, Suit::Spades).to_string(), "JS");
    }

    #[test]
    fn a_suit_is_read_from_its_letter_only() {
        for suit in Suit::ALL {
            assert_eq!(suit.letter().to_string().parse::<Suit>(), Ok(suit));
        }
        for bad in ["", "c", "X", "CC", " H", "é"] {
            assert!(bad.parse::<Suit>().is_err(), "{bad:?}");
        }
    }

    /// The code table is the rank's code then the suit's letter.
    #[test]
    fn a_cards_code_is_its_rank_then_its_suit() {
        for suit in Suit::ALL {
            for rank in Rank::ALL {
                let card = Card::new(rank, suit);
                assert_eq!(card.code(), format!("{}{}", rank.code(), suit.letter()));
                assert_eq!(
                    serde_json::to_string(&card).unwrap(),
                    format!("\"{}\"", card.code())
                );
            }
        }
    }

    #[test]
    fn anything_else_is_not_a_card() {
        for code in [
            "", "H", "10", "1H", "11H", "10X", "jS", "JSS", " 7C", "7c", "é", "7é", "0H", "100H",
            "1C", "10c", "7CC", "C7",
        ] {
            assert_eq!(
                code.parse::<Card>(),
                Err(ParseCardError(code.to_owned())),
                "{code:?}"
            );
        }
    }

    #[test]
    fn cards_serialise_as_their_codes() {
        let card = Card::new(Rank::Seven, Suit::Clubs);
        assert_eq!(serde_json::to_string(&card).unwrap(), "\"7C\"");
        assert_eq!(serde_json::from_str::<Card>("\"7C\"").unwrap(), card);
        assert!(serde_json::from_str::<Card>("\"8X\"").is_err());
        assert_eq!(serde_json::to_string(&Suit::Hearts).unwrap(), "\"H\"");
    }

    #[test]
    fn a_card_is_read_from_its_code_however_the_text_holds_it() {
        let ten = Card::new(Rank::Ten, Suit::Hearts);
        // Escaped, so the reader cannot lend the text as it stands.
        assert_eq!(
            serde_json::from_str::<Card>(r#""\u0031\u0030H""#).unwrap(),
            ten
        );
        assert_eq!(
            serde_json::from_reader::<_, Card>(&b"\"10H\""[..]).unwrap(),
            ten
        );
        assert_eq!(
            serde_json::from_value::<Card>(serde_json::json!("10H")).unwrap(),
            ten
        );
        for not_a_card in ["10", "\"\"", "\"10HH\"", "[\"10H\"]", "null"] {
            assert!(
                serde_json::from_str::<Card>(not_a_card).is_err(),
                "{not_a_card}"
            );
        }
    }
}
