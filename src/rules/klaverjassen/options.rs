//! The table options a Klaverjassen table is created with.

use serde::{Deserialize, Serialize};

use crate::rules::Seat;

/// How the table treats a card that may not be played (*verzaken*).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevokeMode {
    /// The server refuses a card that may not be played; nobody can revoke.
    #[default]
    Enforced,
    /// Any held card is accepted, revokes are recorded secretly and may be
    /// taken back, reported and reviewed, as at a real club table.
    Club,
}

/// Whether a seat void in the led suit must trump while its partner is
/// winning the trick (RULES.md section 3, `trump_obligation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrumpObligation {
    /// Rotterdam (section 1): the obligations hold even when the partner is
    /// winning the trick.
    #[default]
    Rotterdam,
    /// Amsterdam: a seat whose partner is winning a trick led in a plain
    /// suit it cannot follow may play any card but a lower trump than the
    /// highest in the trick (that stays a last resort).
    Amsterdam,
}

/// What a seat that cannot overtrump must do (RULES.md section 3,
/// `undertrump`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undertrump {
    /// Section 1: it plays a card that is no trump if it has one; only a
    /// hand of nothing but lower trumps undertrumps.
    #[default]
    LastResort,
    /// *Verplicht ondertroeven*: a seat void in the led suit that holds a
    /// trump plays a trump, a higher one when it can, else any.
    Required,
}

/// Who names trump (RULES.md section 3, `trump_choice`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrumpChoice {
    /// Section 1: the voorhand names trump and cannot pass.
    #[default]
    Voorhand,
    /// *Vrij spelen*: from the voorhand on each seat names trump or passes;
    /// when all four passed, the voorhand must name it.
    PassRound,
}

/// What four jacks in one trick are worth as roem (RULES.md section 3,
/// `four_jacks`); written as the number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u16", into = "u16")]
pub enum FourJacks {
    /// 200 (section 1).
    #[default]
    TwoHundred,
    /// 100, as any other four of a kind.
    OneHundred,
}

impl FourJacks {
    /// The roem of four jacks in one trick.
    pub const fn points(self) -> i32 {
        match self {
            FourJacks::TwoHundred => 200,
            FourJacks::OneHundred => 100,
        }
    }
}

impl From<FourJacks> for u16 {
    fn from(four_jacks: FourJacks) -> u16 {
        four_jacks.points() as u16
    }
}

impl TryFrom<u16> for FourJacks {
    type Error = String;

    fn try_from(points: u16) -> Result<FourJacks, String> {
        match points {
            200 => Ok(FourJacks::TwoHundred),
            100 => Ok(FourJacks::OneHundred),
            other => Err(format!("four jacks count 200 or 100, not {other}")),
        }
    }
}

/// A table's house rules (RULES.md section 3), each replacing the matching
/// rule of section 1 for that table; the default is section 1 throughout.
/// Small and `Copy`: the rules of play, the solver and the computer players
/// take it by value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HouseRules {
    /// Whether a seat must trump while its partner is winning.
    pub trump_obligation: TrumpObligation,
    /// What a seat that cannot overtrump must do.
    pub undertrump: Undertrump,
    /// Who names trump.
    pub trump_choice: TrumpChoice,
    /// What four jacks are worth.
    pub four_jacks: FourJacks,
}

impl HouseRules {
    /// Every combination of the four house rules (16), section 1's first.
    pub fn all() -> Vec<HouseRules> {
        let mut all = Vec::with_capacity(16);
        for trump_obligation in [TrumpObligation::Rotterdam, TrumpObligation::Amsterdam] {
            for undertrump in [Undertrump::LastResort, Undertrump::Required] {
                for trump_choice in [TrumpChoice::Voorhand, TrumpChoice::PassRound] {
                    for four_jacks in [FourJacks::TwoHundred, FourJacks::OneHundred] {
                        all.push(HouseRules {
                            trump_obligation,
                            undertrump,
                            trump_choice,
                            four_jacks,
                        });
                    }
                }
            }
        }
        all
    }
}

/// The options of a Klaverjassen table; every one may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Whether a card that may not be played is refused (`enforced`) or
    /// accepted and left to the opponents to report (`club`).
    pub revoke_mode: RevokeMode,
    /// The dealer of deal 1 (0..=3); the seat after it names trump first.
    pub first_dealer: Seat,
    /// How many deals the match lasts (1..=16).
    pub deals: u8,
    /// Whether the server deals each deal itself as soon as it is due.
    pub auto_deal: bool,
    /// `rotterdam` or `amsterdam` (RULES.md section 3).
    pub trump_obligation: TrumpObligation,
    /// `last_resort` or `required` (RULES.md section 3).
    pub undertrump: Undertrump,
    /// `voorhand` or `pass_round` (RULES.md section 3).
    pub trump_choice: TrumpChoice,
    /// 200 or 100 (RULES.md section 3).
    pub four_jacks: FourJacks,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            revoke_mode: RevokeMode::Enforced,
            first_dealer: Seat(3),
            deals: 16,
            auto_deal: false,
            trump_obligation: TrumpObligation::Rotterdam,
            undertrump: Undertrump::LastResort,
            trump_choice: TrumpChoice::Voorhand,
            four_jacks: FourJacks::TwoHundred,
        }
    }
}

/// An option out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The option's name as the API writes it.
    pub option: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.option, self.message)
    }
}

impl std::error::Error for OptionError {}

impl Options {
    /// The table's house rules.
    pub fn house_rules(&self) -> HouseRules {
        HouseRules {
            trump_obligation: self.trump_obligation,
            undertrump: self.undertrump,
            trump_choice: self.trump_choice,
            four_jacks: self.four_jacks,
        }
    }

    /// These options with `rules` as their house rules.
    pub fn with_house_rules(self, rules: HouseRules) -> Options {
        Options {
            trump_obligation: rules.trump_obligation,
            undertrump: rules.undertrump,
            trump_choice: rules.trump_choice,
            four_jacks: rules.four_jacks,
            ..self
        }
    }

    /// Checks the ranges: `deals` 1..=16, `first_dealer` 0..=3.
    pub fn validate(&self) -> Result<(), OptionError> {
        if !(1..=16).contains(&self.deals) {
            return Err(OptionError {
                option: "deals",
                message: format!("a match is 1 to 16 deals, not {}", self.deals),
            });
        }
        if self.first_dealer.0 > 3 {
            return Err(OptionError {
                option: "first_dealer",
                message: format!("seats are 0 to 3, not {}", self.first_dealer.0),
            });
        }
        Ok(())
    }
}
