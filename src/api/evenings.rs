//! A club evening as the API shows it: the event with its entries,
//! schedule and fair-deal commitment, the standings (as JSON and as CSV)
//! and a duplicate event's complete boards, built from the table's
//! evening values.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::table::Level;
use crate::table::evening::event::{Event, Format};
use crate::table::evening::standings::Standing;

/// One player of an entry.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null}))]
pub struct ClubPlayer {
    /// The player.
    pub id: Uuid,
    /// Its name.
    #[schema(example = "Anne")]
    pub name: String,
    /// The level of a computer player; null for a person.
    #[schema(value_type = Option<String>, example = json!(null))]
    pub bot: Option<Level>,
}

/// One entry: a pair, or one player.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"entry": 1, "id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "players": [{"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null}], "partner": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d", "complete": false, "seed": null}))]
pub struct ClubEntry {
    /// The entry's number: pair or player 1, 2, ... in entry order.
    #[schema(example = 1)]
    pub entry: u16,
    /// The entry's id: its first player's (for `DELETE .../entries/{entry}`).
    pub id: Uuid,
    /// Its players: who entered, then the partner once confirmed.
    pub players: Vec<ClubPlayer>,
    /// A pair waiting for its partner: the player named.
    pub partner: Option<Uuid>,
    /// Whether the entry can play.
    pub complete: bool,
    /// The entry's event seed (hex), mixed into the draw and the boards;
    /// null when it sent none.
    pub seed: Option<String>,
}

/// Who sits in one seat of a table.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"seat": 0, "entry": 1, "player": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}))]
pub struct ClubSeat {
    /// The seat, 0 to 3.
    pub seat: u8,
    /// The entry's number.
    pub entry: u16,
    /// The player.
    pub player: Uuid,
    /// Its name.
    pub name: String,
}

/// One table of a round.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "seats": [{"seat": 0, "entry": 1, "player": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}]}))]
pub struct ClubTable {
    /// The table's number in the round, from 1.
    pub table: u32,
    /// Its game (`GET /v1/games/{id}`).
    pub game_id: Uuid,
    /// Who sits where.
    pub seats: Vec<ClubSeat>,
}

/// One round begun.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"round": 1, "tables": [{"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "seats": [{"seat": 0, "entry": 1, "player": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}]}]}))]
pub struct ClubRound {
    /// The round, from 1.
    pub round: u32,
    /// Its tables.
    pub tables: Vec<ClubTable>,
}

/// The event's fair-deal commitment (docs/events.md, "Fair boards").
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"commitment": "3b0e1f5a9c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f", "chain_length": 7, "draw_seed": null}))]
pub struct ClubFairness {
    /// SHA-256 applied `chain_length` times to the chain's secret last link.
    pub commitment: String,
    /// Links in the chain: `rounds * deals + 1`.
    pub chain_length: u32,
    /// Link 1, which draws an individual schedule: null until the start.
    pub draw_seed: Option<String>,
}

/// A club evening.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "2f1c7d9a-4b6e-4c1d-9a3f-8e5b7c2d1a60", "name": "Donderdagavond", "game": "klaverjassen", "format": "pairs", "status": "open", "rounds": 3, "deals": 2, "duplicate": true, "options": {"deals": 2, "first_dealer": 3, "auto_deal": true}, "private": false, "starts_at": "2026-12-10T19:30:00Z", "organizer": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d", "entries": [{"entry": 1, "id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "players": [{"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null}], "partner": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d", "complete": false, "seed": null}], "missing_players": 7, "round": 0, "schedule": [], "fairness": {"commitment": "3b0e1f5a9c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f", "chain_length": 7, "draw_seed": null}, "invite_code": null, "version": 2, "created_at": "2026-12-06T08:00:00Z"}))]
pub struct ClubEvent {
    /// The event.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// `klaverjassen`.
    #[schema(example = "klaverjassen")]
    pub game: String,
    /// `pairs` or `individual`.
    #[schema(example = "pairs")]
    pub format: String,
    /// `open`, `running`, `finished` or `cancelled`.
    #[schema(example = "open")]
    pub status: String,
    /// Rounds.
    pub rounds: u32,
    /// Deals per table per round.
    pub deals: u8,
    /// Duplicate boards.
    pub duplicate: bool,
    /// The options of every table.
    #[schema(value_type = Object)]
    pub options: serde_json::Value,
    /// Kept out of the list of open events.
    pub private: bool,
    /// When the organizer means to start.
    pub starts_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The organizer.
    pub organizer: Uuid,
    /// The entries, in entry order.
    pub entries: Vec<ClubEntry>,
    /// Players still needed before the start.
    pub missing_players: usize,
    /// The round being played; 0 before the start.
    pub round: u32,
    /// Every round begun, round 1 first.
    pub schedule: Vec<ClubRound>,
    /// The fair-deal commitment.
    pub fairness: ClubFairness,
    /// A private event's invite code, shown to its organizer and entries.
    pub invite_code: Option<String>,
    /// Every accepted change adds 1.
    pub version: i64,
    /// When it was made.
    pub created_at: chrono::DateTime<chrono::Utc>,
}

fn time(micros: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_micros(micros).unwrap_or_default()
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Pairs => "pairs",
        Format::Individual => "individual",
    }
}

impl ClubEvent {
    /// `event` as `caller` sees it.
    pub fn of(event: &Event, caller: Uuid) -> ClubEvent {
        let entries = event
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| ClubEntry {
                entry: i as u16 + 1,
                id: e.players[0].id,
                players: e
                    .players
                    .iter()
                    .map(|m| ClubPlayer {
                        id: m.id,
                        name: m.name.clone(),
                        bot: m.bot,
                    })
                    .collect(),
                partner: e.named,
                complete: e.complete(event.settings.format),
                seed: e.seed.as_ref().map(|s| s.as_str().to_owned()),
            })
            .collect();
        let schedule = event
            .tables
            .iter()
            .enumerate()
            .map(|(r, games)| ClubRound {
                round: r as u32 + 1,
                tables: games
                    .iter()
                    .zip(&event.schedule[r])
                    .enumerate()
                    .map(|(t, (game, seats))| ClubTable {
                        table: t as u32 + 1,
                        game_id: *game,
                        seats: seats
                            .0
                            .iter()
                            .enumerate()
                            .map(|(seat, place)| {
                                let member = &event.entries[usize::from(place.entry)].players
                                    [usize::from(place.member)];
                                ClubSeat {
                                    seat: seat as u8,
                                    entry: place.entry + 1,
                                    player: member.id,
                                    name: member.name.clone(),
                                }
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let insider = caller == event.organizer || event.entry_of(caller).is_some();
        ClubEvent {
            id: event.id,
            name: event.settings.name.clone(),
            game: "klaverjassen".into(),
            format: format_name(event.settings.format).into(),
            status: event.status.as_str().into(),
            rounds: event.settings.rounds,
            deals: event.settings.deals,
            duplicate: event.settings.duplicate,
            options: event.settings.options.clone(),
            private: event.settings.private,
            starts_at: event.settings.starts_at.map(time),
            organizer: event.organizer,
            entries,
            missing_players: event.missing_players(),
            round: event.round,
            schedule,
            fairness: ClubFairness {
                commitment: event.seeds.commitment(),
                chain_length: event.seeds.length(),
                draw_seed: event.draw_seed(),
            },
            invite_code: event.invite_code.clone().filter(|_| insider),
            version: event.version,
            created_at: time(event.created_at),
        }
    }
}

/// One entry's result in one round.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"round": 1, "table": 2, "score": 1234, "matchpoints": 3}))]
pub struct ClubRoundResult {
    /// The round.
    pub round: u32,
    /// The table, from 1.
    pub table: u32,
    /// The team's match total; null until it counts (in a duplicate event,
    /// until every table of the round has finished).
    pub score: Option<i32>,
    /// Duplicate: matchpoints on the round's complete boards.
    pub matchpoints: Option<u32>,
}

/// One line of the standings.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"rank": 1, "entry": 3, "players": ["Anneke", "Bert"], "score": 2468, "matchpoints": 9, "max_matchpoints": 12, "percent": 75.0, "rounds": [{"round": 1, "table": 2, "score": 1234, "matchpoints": 3}]}))]
pub struct ClubStanding {
    /// 1 for the best; equal results share a rank.
    pub rank: u32,
    /// The entry's number.
    pub entry: u16,
    /// The entry's players' names.
    pub players: Vec<String>,
    /// The sum of the entry's team totals.
    pub score: i64,
    /// Duplicate: matchpoints over every complete board.
    pub matchpoints: Option<u32>,
    /// Duplicate: the most matchpoints the entry could have had on them.
    pub max_matchpoints: Option<u32>,
    /// Duplicate: matchpoints in percent of the maximum, two decimals.
    pub percent: Option<f64>,
    /// Round by round.
    pub rounds: Vec<ClubRoundResult>,
}

/// The standings line `line` of `event`, with its entry's players' names.
pub fn standing_view(event: &Event, line: &Standing) -> ClubStanding {
    ClubStanding {
        rank: line.rank,
        entry: line.entry + 1,
        players: event.entries[usize::from(line.entry)]
            .players
            .iter()
            .map(|m| m.name.clone())
            .collect(),
        score: line.score,
        matchpoints: line.matchpoints,
        max_matchpoints: line.max_matchpoints,
        percent: line.percent,
        rounds: line
            .rounds
            .iter()
            .map(|r| ClubRoundResult {
                round: r.round,
                table: r.table,
                score: r.score,
                matchpoints: r.matchpoints,
            })
            .collect(),
    }
}

/// The standings as CSV: one line per entry, best first; a column per
/// round's score (and matchpoints, in a duplicate event).
pub fn standings_csv(event: &Event, lines: &[ClubStanding]) -> Result<Vec<u8>, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    let duplicate = event.settings.duplicate;
    let mut head: Vec<String> = ["rank", "entry", "players", "score"]
        .map(String::from)
        .into();
    if duplicate {
        head.extend(["matchpoints", "max_matchpoints", "percent"].map(String::from));
    }
    for round in 1..=event.settings.rounds {
        head.push(format!("round_{round}_score"));
        if duplicate {
            head.push(format!("round_{round}_matchpoints"));
        }
    }
    out.write_record(&head)?;
    let text = |v: Option<String>| v.unwrap_or_default();
    for line in lines {
        let mut record = vec![
            line.rank.to_string(),
            line.entry.to_string(),
            line.players.join(" & "),
            line.score.to_string(),
        ];
        if duplicate {
            record.push(text(line.matchpoints.map(|m| m.to_string())));
            record.push(text(line.max_matchpoints.map(|m| m.to_string())));
            record.push(text(line.percent.map(|p| format!("{p:.2}"))));
        }
        for round in 1..=event.settings.rounds {
            let result = line.rounds.iter().find(|r| r.round == round);
            record.push(text(result.and_then(|r| r.score).map(|s| s.to_string())));
            if duplicate {
                record.push(text(
                    result.and_then(|r| r.matchpoints).map(|m| m.to_string()),
                ));
            }
        }
        out.write_record(&record)?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}

/// One table's result on a board.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "record": {"number": 1, "dealer": 3, "score": {"A": 100, "B": 62}}}))]
pub struct ClubBoardTable {
    /// The table, from 1.
    pub table: u32,
    /// Its game.
    pub game_id: Uuid,
    /// The deal's score-sheet row at that table, as in the game's view.
    #[schema(value_type = Object)]
    pub record: serde_json::Value,
}

/// A complete board.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"round": 1, "deal": 1, "hands": [["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"], ["7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD"], ["7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH"], ["7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]], "dealer": 3, "tables": [{"table": 1, "game_id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "record": {"number": 1, "dealer": 3, "score": {"A": 100, "B": 62}}}]}))]
pub struct ClubBoard {
    /// The round.
    pub round: u32,
    /// The deal of the round.
    pub deal: u8,
    /// The hands as dealt, by seat (the same at every table).
    #[schema(value_type = Vec<Vec<String>>)]
    pub hands: serde_json::Value,
    /// The dealer (seat).
    pub dealer: u8,
    /// Every table's result on it.
    pub tables: Vec<ClubBoardTable>,
}
