//! A game as the service keeps it: the table (who sits where, who is host,
//! status and version) around the rules state of one of the two games.
//!
//! Pure like the rules: no I/O, no clock; randomness is passed in. The HTTP
//! layer loads a [`Game`], applies one change here, and stores it again.

pub mod automation;
pub mod evening;
pub mod events;
pub mod fairness;
pub mod friends;
pub mod level;
mod moves;
mod options;
mod rules;
mod stored_sheet;
#[cfg(test)]
pub(crate) mod testing;
pub mod view;

use rand::Rng;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::rules::{Awaiting, Seat, klaverjassen, potverteren};
use fairness::FairDeals;
pub use level::Level;
pub use moves::{Move, TableMove};
pub use options::{DEFAULT_BOT_DELAY_MS, Options, TableOptions};
pub use rules::{Rules, RulesView, TableRules};
pub use stored_sheet::StoredSheet;

/// Which game a table plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Klaverjassen, Rotterdam rules, 4 seats.
    Klaverjassen,
    /// Potverteren, 5 to 10 seats.
    Potverteren,
}

impl GameKind {
    /// The API's name for the game.
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Klaverjassen => "klaverjassen",
            GameKind::Potverteren => "potverteren",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<GameKind> {
        match name {
            "klaverjassen" => Some(GameKind::Klaverjassen),
            "potverteren" => Some(GameKind::Potverteren),
            _ => None,
        }
    }
}

/// Where a table is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Seats are still free.
    Waiting,
    /// Every seat is taken and the game is on.
    Playing,
    /// The match is over (or the Potverteren host ended the table).
    Finished,
    /// The table waited too long for players and was closed.
    Abandoned,
}

impl Status {
    /// The API's name for the status.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Playing => "playing",
            Status::Finished => "finished",
            Status::Abandoned => "abandoned",
        }
    }

    /// The status named `name`.
    pub fn parse(name: &str) -> Option<Status> {
        match name {
            "waiting" => Some(Status::Waiting),
            "playing" => Some(Status::Playing),
            "finished" => Some(Status::Finished),
            "abandoned" => Some(Status::Abandoned),
            _ => None,
        }
    }
}

/// Reads `value` as a `T`; an error names the field by its path under `what`
/// (`options.revoke_mode: unknown variant …`).
fn from_json<T: serde::de::DeserializeOwned>(
    what: &str,
    value: serde_json::Value,
) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| match e.path().to_string().as_str() {
        "." => format!("{what}: {}", e.inner()),
        path => format!("{what}.{path}: {}", e.inner()),
    })
}

/// A seated player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatedPlayer {
    /// The player's id.
    pub id: Uuid,
    /// The player's name.
    pub name: String,
    /// The level, when this player is a computer player (shown in the seat).
    #[serde(skip)]
    pub bot: Option<Level>,
}

/// A game: the table around the rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// The game's id.
    pub id: Uuid,
    /// Which game.
    pub kind: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Adds one with every accepted change.
    pub version: i64,
    /// The player who created the table.
    pub host: Uuid,
    /// The table options.
    pub options: Options,
    /// Who sits where, by seat.
    pub seats: Vec<Option<SeatedPlayer>>,
    /// The rules state, from the moment every seat is taken.
    pub rules: Option<Rules>,
    /// The options both games share (clock, computer players' pace, hints).
    pub table: TableOptions,
    /// Whether each seat is away: its clock ran out, and its moves are made
    /// for it until its player acts again.
    pub away: Vec<bool>,
    /// When the awaited seats' clock runs out, Unix microseconds; `None`
    /// without a clock.
    pub deadline: Option<i64>,
    /// The server-seed chains and seat seeds every deal is drawn from.
    pub fairness: FairDeals,
    /// Invite code, rematch and reserved seats (tables among friends).
    pub friends: friends::Friends,
    /// The finished score-sheet rows of a Klaverjassen game read only to be
    /// shown (`store::record::game_to_show`), as stored: the rules' sheet
    /// then holds none of them, and views show these before it. Empty for
    /// a game read to be changed.
    pub stored_sheet: StoredSheet,
}

/// Why a change to a game was refused. Nothing was changed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GameError {
    /// Options that are unknown or out of range.
    #[error("{0}")]
    InvalidOptions(String),
    /// A move body that is no move of this game.
    #[error("{0}")]
    InvalidMove(String),
    /// A seat number the table does not have.
    #[error("this table has seats 0 to {0}")]
    NoSuchSeat(u8),
    /// Every seat is taken.
    #[error("every seat is taken")]
    GameFull,
    /// The asked seat is taken.
    #[error("seat {0} is taken")]
    SeatTaken(u8),
    /// The caller already sits at this table.
    #[error("you already sit at this table, in seat {0}")]
    AlreadySeated(u8),
    /// The game has started (or finished): seats are fixed.
    #[error("the game has started; seats can no longer change")]
    GameStarted,
    /// The caller has no seat at this table.
    #[error("you have no seat at this table")]
    NotSeated,
    /// Only the host may do this.
    #[error("only the host may do this")]
    NotHost,
    /// The seat holds no computer player.
    #[error("seat {0} holds no computer player")]
    NoBot(u8),
    /// The seat is reserved for another player (a rematch).
    #[error("seat {0} is reserved for its player from the previous match")]
    SeatReserved(u8),
    /// The host cannot leave a table it created before it starts.
    #[error("the host cannot leave the table it created")]
    HostCannotLeave,
    /// The table is still waiting for players.
    #[error("the game has not started: it waits for every seat to be taken")]
    NotStarted,
    /// The rules refused the move.
    #[error("{detail}")]
    Rules {
        /// The rule's code.
        code: &'static str,
        /// The rule, in a sentence.
        detail: String,
    },
}

impl Game {
    /// A new table of `kind`; the host takes `host_seat` (default 0). Its
    /// first server-seed chain is drawn from `rng` (the service passes the
    /// operating system's CSPRNG) and committed at once.
    pub fn create<R: Rng + ?Sized>(
        id: Uuid,
        kind: GameKind,
        options: Options,
        table: TableOptions,
        host: SeatedPlayer,
        host_seat: Option<u8>,
        rng: &mut R,
    ) -> Result<Game, GameError> {
        let count = options.seat_count();
        let seat = host_seat.unwrap_or(0);
        if seat >= count {
            return Err(GameError::NoSuchSeat(count - 1));
        }
        let mut seats = vec![None; usize::from(count)];
        let host_id = host.id;
        seats[usize::from(seat)] = Some(host);
        let fairness = options.fair_deals(rng);
        Ok(Game {
            id,
            kind,
            status: Status::Waiting,
            version: 1,
            host: host_id,
            options,
            seats,
            rules: None,
            table,
            away: vec![false; usize::from(count)],
            deadline: None,
            fairness,
            friends: friends::Friends::default(),
            stored_sheet: StoredSheet::default(),
        })
    }

    /// The seat `player` sits in, if any.
    pub fn seat_of(&self, player: Uuid) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|p| p.id == player))
            .map(|i| Seat(i as u8))
    }

    /// Seats `player` (in `seat`, or the first free one). The game starts
    /// when the last seat is taken, drawing from the committed streams.
    /// Returns the seat taken.
    pub fn join(&mut self, player: SeatedPlayer, seat: Option<u8>) -> Result<Seat, GameError> {
        if self.status != Status::Waiting {
            return Err(GameError::GameStarted);
        }
        if let Some(taken) = self.seat_of(player.id) {
            return Err(GameError::AlreadySeated(taken.0));
        }
        let count = self.seats.len() as u8;
        let free_for = |i: usize| self.friends.may_take(i as u8, player.id);
        let index = match seat {
            Some(s) if s >= count => return Err(GameError::NoSuchSeat(count - 1)),
            Some(s) if self.seats[usize::from(s)].is_some() => return Err(GameError::SeatTaken(s)),
            Some(s) if !free_for(usize::from(s)) => return Err(GameError::SeatReserved(s)),
            Some(s) => usize::from(s),
            None => self
                .friends
                .reserved_seat_of(player.id)
                .map(usize::from)
                .filter(|&i| self.seats[i].is_none())
                .or_else(|| (0..self.seats.len()).find(|&i| self.seats[i].is_none() && free_for(i)))
                .ok_or(GameError::GameFull)?,
        };
        self.seats[index] = Some(player);
        if self.seats.iter().all(Option::is_some) {
            self.start();
        }
        Ok(Seat(index as u8))
    }

    fn start(&mut self) {
        let host = self.seat_of(self.host).unwrap_or(Seat(0));
        let rng = &mut self.fairness.draws(self.id);
        self.rules = Some(match &self.options {
            Options::Klaverjassen(options) => {
                Rules::Klaverjassen(klaverjassen::Match::new(options.clone(), rng))
            }
            Options::Potverteren(options) => {
                Rules::Potverteren(potverteren::Table::new(options.clone(), host, rng))
            }
        });
        self.status = Status::Playing;
        self.settle_status();
    }

    /// Frees `player`'s seat before the game starts.
    pub fn leave(&mut self, player: Uuid) -> Result<Seat, GameError> {
        let seat = self.seat_of(player).ok_or(GameError::NotSeated)?;
        if self.status != Status::Waiting {
            return Err(GameError::GameStarted);
        }
        if player == self.host {
            return Err(GameError::HostCannotLeave);
        }
        self.seats[seat.index()] = None;
        self.fairness.set_seat_seed(seat.index(), None);
        Ok(seat)
    }

    /// The deal (Klaverjassen) or round (Potverteren) in progress or due;
    /// the last one once finished, and 1 before the start.
    pub fn deal_number(&self) -> u32 {
        self.rules
            .as_ref()
            .map_or(1, |rules| rules.game().deal_number())
    }

    /// Applies `player`'s move through the rules. A player who acts for
    /// its seat is back: the seat is no longer away.
    pub fn play<R: Rng + ?Sized>(
        &mut self,
        player: Uuid,
        mv: Move,
        rng: &mut R,
    ) -> Result<(Seat, Vec<String>), GameError> {
        let seat = self.seat_of(player).ok_or(GameError::NotSeated)?;
        let played = self.play_for(seat, mv, rng)?;
        self.away[seat.index()] = false;
        Ok(played)
    }

    /// Frees the seat of the computer player in `seat` before the start.
    pub fn remove_bot(&mut self, seat: u8) -> Result<SeatedPlayer, GameError> {
        if self.status != Status::Waiting {
            return Err(GameError::GameStarted);
        }
        let last = self.seats.len() as u8 - 1;
        let slot = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or(GameError::NoSuchSeat(last))?;
        match slot {
            Some(player) if player.bot.is_some() => Ok(slot.take().expect("seated")),
            _ => Err(GameError::NoBot(seat)),
        }
    }

    /// Applies a move for `seat` through the rules: the path of a player's
    /// own move and of an automatic one (computer player, clock).
    pub fn play_for<R: Rng + ?Sized>(
        &mut self,
        seat: Seat,
        mv: Move,
        rng: &mut R,
    ) -> Result<(Seat, Vec<String>), GameError> {
        if let Move::Table(TableMove::Seed { value }) = mv {
            self.fairness.set_seat_seed(seat.index(), Some(value));
            return Ok((seat, Vec::new()));
        }
        let before = self.deal_number();
        let rules = self.rules.as_mut().ok_or(GameError::NotStarted)?;
        let mut committed = self.fairness.commit_ahead(before, rng);
        let draws = &mut self.fairness.draws(self.id);
        rules.game_mut().apply(seat, mv, draws)?;
        if let Rules::Klaverjassen(m) = rules {
            // A deal this move ended keeps its seeds in its row from now on.
            m.fill_seeds(|deal| self.fairness.seeds_of(deal));
        }
        self.settle_status();
        committed.extend(self.fairness.commit_ahead(self.deal_number(), rng));
        Ok((seat, committed))
    }

    fn settle_status(&mut self) {
        if self
            .rules
            .as_ref()
            .is_some_and(|rules| rules.game().is_finished())
        {
            self.status = Status::Finished;
        }
    }

    /// The moves `player` may make now (none without a seat).
    pub fn legal_moves(&self, player: Option<Uuid>) -> Vec<Move> {
        match player.and_then(|p| self.seat_of(p)) {
            Some(seat) => self.legal_moves_of(seat),
            None => Vec::new(),
        }
    }

    /// Who the table waits for: the rules' answer once started, else the
    /// free seats.
    pub fn awaiting(&self) -> Option<Awaiting> {
        match &self.rules {
            None if self.status == Status::Waiting => Some(Awaiting {
                seats: self
                    .seats
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_none())
                    .map(|(i, _)| Seat(i as u8))
                    .collect(),
                action: crate::rules::Action::Join,
            }),
            None => None,
            Some(rules) => rules.game().awaiting(),
        }
    }

    /// The computer player's level in `seat`, if a computer player sits there.
    pub fn bot_in(&self, seat: Seat) -> Option<Level> {
        self.seats
            .get(seat.index())
            .and_then(|p| p.as_ref())
            .and_then(|p| p.bot)
    }

    /// The table options as the API shows them: the game's and the shared
    /// ones in one object.
    pub fn options_json(&self) -> serde_json::Value {
        serde_json::to_value(self.shown_options()).unwrap_or_default()
    }

    /// The moves `seat` may make now.
    pub fn legal_moves_of(&self, seat: Seat) -> Vec<Move> {
        self.rules
            .as_ref()
            .map(|rules| rules.game().legal_moves(seat))
            .unwrap_or_default()
    }
}
