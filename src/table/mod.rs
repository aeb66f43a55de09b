//! A game as the service keeps it: the table (who sits where, who is host,
//! status and version) around the rules state of one of the two games.
//!
//! Pure like the rules: no I/O, no clock; randomness is passed in. The HTTP
//! layer loads a [`Game`], applies one change here, and stores it again.

pub mod automation;
pub mod events;
pub mod fairness;
pub mod friends;
pub mod level;
pub mod view;

use rand::Rng;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::rules::fairness::{Randomness, SeatSeed};
use crate::rules::{Awaiting, GameRules, Refusal, Seat, klaverjassen, potverteren};
use fairness::FairDeals;
pub use level::Level;

/// Which game a table plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

/// A table's options, per game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Options {
    /// Klaverjassen options.
    Klaverjassen(klaverjassen::Options),
    /// Potverteren options.
    Potverteren(potverteren::Options),
}

impl Options {
    /// Reads `value` as the options of `kind`: unknown options and values out
    /// of range are an error naming the option.
    pub fn parse(kind: GameKind, value: Option<serde_json::Value>) -> Result<Options, GameError> {
        let value = value.unwrap_or_else(|| serde_json::json!({}));
        let invalid = |e: String| GameError::InvalidOptions(e);
        let out_of_range = |option: &str, message: String| {
            GameError::InvalidOptions(format!("options.{option}: {message}"))
        };
        Ok(match kind {
            GameKind::Klaverjassen => {
                let options: klaverjassen::Options =
                    from_json("options", value).map_err(invalid)?;
                options
                    .validate()
                    .map_err(|e| out_of_range(e.option, e.message))?;
                Options::Klaverjassen(options)
            }
            GameKind::Potverteren => {
                let options: potverteren::Options = from_json("options", value).map_err(invalid)?;
                options
                    .validate()
                    .map_err(|e| out_of_range(e.option, e.message))?;
                Options::Potverteren(options)
            }
        })
    }

    /// A new fair-deal state for a table with these options: Klaverjassen
    /// one chain as long as the match, Potverteren chains of
    /// [`fairness::POTVERTEREN_CHAIN_LENGTH`] rounds, one after another.
    pub fn fair_deals<R: Rng + ?Sized>(&self, rng: &mut R) -> FairDeals {
        match self {
            Options::Klaverjassen(options) => {
                FairDeals::new(u32::from(options.deals), false, 4, rng)
            }
            Options::Potverteren(options) => {
                FairDeals::new(fairness::POTVERTEREN_CHAIN_LENGTH, true, options.seats, rng)
            }
        }
    }

    /// How many seats the table has.
    pub fn seat_count(&self) -> u8 {
        match self {
            Options::Klaverjassen(_) => 4,
            Options::Potverteren(options) => options.seats,
        }
    }
}

/// The table options both games share: the turn clock, the pace of
/// computer players and whether hints are on (API.md "Computer players and
/// clocks"). They sit beside the game's own options in `options`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableOptions {
    /// Seconds a seat has for its turn; `None` for no clock.
    #[serde(default)]
    pub turn_seconds: Option<u32>,
    /// Milliseconds between a computer player's turn and its move.
    #[serde(default = "default_bot_delay_ms")]
    pub bot_delay_ms: u32,
    /// Whether `GET /v1/games/{id}/hint` answers on this table.
    #[serde(default)]
    pub hints: bool,
    /// Whether the table is private: absent from the lobby and from
    /// matchmaking, joined by its invite code.
    #[serde(default)]
    pub private: bool,
}

/// The default pause before a computer player's move: long enough for a
/// person to see each card land, short enough not to bore.
pub const DEFAULT_BOT_DELAY_MS: u32 = 800;

fn default_bot_delay_ms() -> u32 {
    DEFAULT_BOT_DELAY_MS
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            turn_seconds: None,
            bot_delay_ms: DEFAULT_BOT_DELAY_MS,
            hints: false,
            private: false,
        }
    }
}

/// The option names of [`TableOptions`].
const TABLE_OPTION_NAMES: [&str; 4] = ["turn_seconds", "bot_delay_ms", "hints", "private"];

impl TableOptions {
    /// Reads the game's options and the table options from one `options`
    /// object: the table options are taken out, the rest is the game's.
    pub fn parse_with(
        kind: GameKind,
        value: Option<serde_json::Value>,
    ) -> Result<(Options, TableOptions), GameError> {
        let mut value = value.unwrap_or_else(|| serde_json::json!({}));
        let mut part = serde_json::Map::new();
        if let Some(map) = value.as_object_mut() {
            for name in TABLE_OPTION_NAMES {
                if let Some(v) = map.remove(name) {
                    part.insert(name.to_owned(), v);
                }
            }
        }
        let table: TableOptions = from_json("options", serde_json::Value::Object(part))
            .map_err(GameError::InvalidOptions)?;
        if let Some(seconds) = table.turn_seconds
            && !(5..=3600).contains(&seconds)
        {
            return Err(GameError::InvalidOptions(format!(
                "options.turn_seconds: null, or 5 to 3600 seconds, not {seconds}"
            )));
        }
        if table.bot_delay_ms > 10_000 {
            return Err(GameError::InvalidOptions(format!(
                "options.bot_delay_ms: 0 to 10000, not {}",
                table.bot_delay_ms
            )));
        }
        Ok((Options::parse(kind, Some(value))?, table))
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

/// The rules state, once every seat is taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// A Klaverjassen match.
    Klaverjassen(klaverjassen::Match),
    /// A Potverteren table.
    Potverteren(potverteren::Table),
}

impl Rules {
    /// The game behind the one trait both games implement: with
    /// construction and decoding, the only place the table tells the two
    /// games apart.
    pub fn game(&self) -> &dyn TableRules {
        match self {
            Rules::Klaverjassen(game) => game,
            Rules::Potverteren(game) => game,
        }
    }

    /// The game behind the one trait, to apply a move to.
    pub fn game_mut(&mut self) -> &mut dyn TableRules {
        match self {
            Rules::Klaverjassen(game) => game,
            Rules::Potverteren(game) => game,
        }
    }
}

/// A game's rules ([`GameRules`]) as the table drives them: with the
/// table's own move, view and error types, so one `dyn` serves both games.
/// Implemented for every [`GameRules`] whose moves and view convert.
pub trait TableRules {
    /// The moves `seat` may make now.
    fn legal_moves(&self, seat: Seat) -> Vec<Move>;
    /// Applies `seat`'s move; a move of the other game is refused. On `Err`
    /// nothing changed.
    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), GameError>;
    /// What `seat` (`None`: a spectator) may see of the rules state.
    fn view(&self, seat: Option<Seat>) -> RulesView;
    /// Who the game waits for, and for what.
    fn awaiting(&self) -> Option<Awaiting>;
    /// Whether the game is over.
    fn is_finished(&self) -> bool;
    /// The deal or round in progress or due, from 1.
    fn deal_number(&self) -> u32;
}

impl<G> TableRules for G
where
    G: GameRules,
    G::Move: Into<Move> + TryFrom<Move>,
    G::View: Into<RulesView>,
{
    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        GameRules::legal_moves(self, seat)
            .into_iter()
            .map(Into::into)
            .collect()
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: Move,
        randomness: &mut dyn Randomness,
    ) -> Result<(), GameError> {
        let mv = G::Move::try_from(mv)
            .map_err(|_| GameError::InvalidMove("move: not a move of this game".into()))?;
        GameRules::apply(self, seat, mv, randomness).map_err(|e| GameError::Rules {
            code: e.code(),
            detail: e.to_string(),
        })
    }

    fn view(&self, seat: Option<Seat>) -> RulesView {
        GameRules::view(self, seat).into()
    }

    fn awaiting(&self) -> Option<Awaiting> {
        GameRules::awaiting(self)
    }

    fn is_finished(&self) -> bool {
        GameRules::is_finished(self)
    }

    fn deal_number(&self) -> u32 {
        GameRules::deal_number(self)
    }
}

/// The rules' part of a view: the one game's own view, in its field.
#[derive(Debug, Default)]
pub struct RulesView {
    /// A Klaverjassen match's view.
    pub klaverjassen: Option<klaverjassen::View>,
    /// A Potverteren table's view.
    pub potverteren: Option<potverteren::View>,
}

impl From<klaverjassen::View> for RulesView {
    fn from(view: klaverjassen::View) -> RulesView {
        RulesView {
            klaverjassen: Some(view),
            potverteren: None,
        }
    }
}

impl From<potverteren::View> for RulesView {
    fn from(view: potverteren::View) -> RulesView {
        RulesView {
            klaverjassen: None,
            potverteren: Some(view),
        }
    }
}

impl From<klaverjassen::Move> for Move {
    fn from(mv: klaverjassen::Move) -> Move {
        Move::Klaverjassen(mv)
    }
}

impl From<potverteren::Move> for Move {
    fn from(mv: potverteren::Move) -> Move {
        Move::Potverteren(mv)
    }
}

impl TryFrom<Move> for klaverjassen::Move {
    type Error = Move;

    fn try_from(mv: Move) -> Result<klaverjassen::Move, Move> {
        match mv {
            Move::Klaverjassen(mv) => Ok(mv),
            other => Err(other),
        }
    }
}

impl TryFrom<Move> for potverteren::Move {
    type Error = Move;

    fn try_from(mv: Move) -> Result<potverteren::Move, Move> {
        match mv {
            Move::Potverteren(mv) => Ok(mv),
            other => Err(other),
        }
    }
}

/// A move of either game, parsed for the game it is made in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Move {
    /// A Klaverjassen move.
    Klaverjassen(klaverjassen::Move),
    /// A Potverteren move.
    Potverteren(potverteren::Move),
    /// A move of the table, the same in both games.
    Table(TableMove),
}

/// A move that belongs to the table rather than to one game's rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TableMove {
    /// A seat sends its own seed, mixed into every deal that begins while it
    /// is in force (docs/fairness.md).
    Seed {
        /// 1 to 64 hex characters.
        value: SeatSeed,
    },
}

impl Move {
    /// Reads `value` as a move of `kind`.
    pub fn parse(kind: GameKind, value: serde_json::Value) -> Result<Move, GameError> {
        if value.get("type").and_then(serde_json::Value::as_str) == Some("seed") {
            return Ok(Move::Table(
                from_json("move", value).map_err(GameError::InvalidMove)?,
            ));
        }
        Ok(match kind {
            GameKind::Klaverjassen => {
                Move::Klaverjassen(from_json("move", value).map_err(GameError::InvalidMove)?)
            }
            GameKind::Potverteren => {
                Move::Potverteren(from_json("move", value).map_err(GameError::InvalidMove)?)
            }
        })
    }

    /// The deal move of `kind`.
    pub fn deal(kind: GameKind) -> Move {
        match kind {
            GameKind::Klaverjassen => Move::Klaverjassen(klaverjassen::Move::Deal),
            GameKind::Potverteren => Move::Potverteren(potverteren::Move::Deal),
        }
    }

    /// Whether this is the deal move.
    pub fn is_deal(&self) -> bool {
        matches!(
            self,
            Move::Klaverjassen(klaverjassen::Move::Deal)
                | Move::Potverteren(potverteren::Move::Deal)
        )
    }
}

/// A seated player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}))]
pub struct SeatedPlayer {
    /// The player's id.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// The player's name.
    #[schema(example = "Anneke")]
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

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    /// A view shows every option of the game and of the table in one
    /// object, as they were chosen (`Game::shown_options`, written without
    /// a JSON tree; `options_json` is the same object as a tree).
    #[test]
    fn a_view_shows_every_option_of_the_game_and_of_the_table() {
        for (kind, chosen) in [
            (
                GameKind::Klaverjassen,
                serde_json::json!({"deals": 4, "hints": true}),
            ),
            (
                GameKind::Potverteren,
                serde_json::json!({"seats": 6, "turn_seconds": 20}),
            ),
        ] {
            let (options, table) = TableOptions::parse_with(kind, Some(chosen.clone())).unwrap();
            let host = SeatedPlayer {
                id: Uuid::new_v4(),
                name: "host".into(),
                bot: None,
            };
            let game = Game::create(
                Uuid::new_v4(),
                kind,
                options.clone(),
                table.clone(),
                host,
                None,
                &mut StdRng::seed_from_u64(1),
            )
            .unwrap();
            let shown = serde_json::to_value(game.shown_options()).unwrap();
            let mut expected = serde_json::to_value(&options).unwrap();
            let serde_json::Value::Object(table) = serde_json::to_value(&table).unwrap() else {
                panic!("the table options are an object");
            };
            expected.as_object_mut().unwrap().extend(table);
            assert_eq!(shown, expected);
            for (name, value) in chosen.as_object().unwrap() {
                assert_eq!(shown[name], *value, "{name}");
            }
            assert_eq!(game.options_json(), shown);
        }
    }
}
