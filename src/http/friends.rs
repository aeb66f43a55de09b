//! Tables among friends: private tables joined by invite code, quick match,
//! rematch, and players' public profiles with statistics and ratings.
//!
//! Statistics and ratings are written by [`after_change`], which
//! `record_change` calls inside the transaction that finishes a game (a
//! player's move or the scheduler's), so they never disagree with the games.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, get, patch, post, web};
use serde::{Deserialize, Serialize};
use skillratings::weng_lin::{
    WengLinConfig, WengLinRating, weng_lin_multi_team, weng_lin_two_teams,
};
use skillratings::{MultiTeamOutcome, Outcomes};
use utoipa::ToSchema;
use uuid::Uuid;

use super::AppState;
use super::change::{
    Event, SeatChange, after_commit, etag, idempotency_key, json_answer, record_change, refusal,
    remember, replay, request_hash, seated_player, view_json,
};
use super::error::{ApiError, Problem};
use super::extract::{AuthPlayer, OptionalJson};
use super::games::{GameSummary, TakeSeat, join_game};
use super::players::valid_name;
use crate::api::game::GameView;
use crate::rules::Seat;
use crate::rules::klaverjassen::Team;
use crate::store::events::{self, EventRow};
use crate::store::friends::{self as store, StatsRow};
use crate::store::record::{game_from_row, game_to_row, shown_options_of, system_rng};
use crate::store::{Backend, Tx, games, players};
use crate::table::friends::{RESERVE_MICROS, Reservation, invite_code, normalise_code};
use crate::table::{Game, GameKind, Options, Rules, Status, TableOptions};

/// Forgets the seats a rematch held whose time ran out at `now` (or that
/// were taken), before a change is applied to `game`.
pub fn release_reservations(game: &mut Game, now: i64) {
    let seats = &game.seats;
    game.friends
        .release(now, |seat| seats[usize::from(seat)].is_some());
}

/// Inside the transaction of every accepted change: a private table's
/// code stops working once it is over, and a game that just finished
/// counts, once, in its players' statistics and ratings.
pub async fn after_change(tx: &mut Tx, backend: Backend, game: &Game) -> Result<(), ApiError> {
    if !writes_after_change(game) {
        return Ok(());
    }
    if game.friends.invite_code.is_some() {
        store::drop_invite_code(tx, game.id).await?;
    }
    if game.status == Status::Finished && store::mark_result(tx, game.id).await? {
        record_results(tx, backend, game).await?;
    }
    Ok(())
}

/// Whether [`after_change`] writes anything for `game` as changed: only
/// when it is over.
pub fn writes_after_change(game: &Game) -> bool {
    matches!(game.status, Status::Finished | Status::Abandoned)
}

/// Gives a private table its invite code: random from the operating
/// system's CSPRNG, and drawn again in the rare case a live table has it.
pub async fn assign_invite_code(tx: &mut Tx, game: &mut Game) -> Result<(), ApiError> {
    if !game.table.private {
        return Ok(());
    }
    for _ in 0..8 {
        let code = invite_code(&mut system_rng());
        if store::claim_invite_code(tx, &code, game.id).await? {
            game.friends.invite_code = Some(code);
            return Ok(());
        }
    }
    Err(ApiError::Internal(
        "no free invite code after 8 draws".into(),
    ))
}

/// One seat's result in a finished match.
struct SeatResult {
    player: Uuid,
    won: bool,
    drawn: bool,
    points: i64,
    deals: i64,
    chips: i64,
}

async fn record_results(tx: &mut Tx, backend: Backend, game: &Game) -> Result<(), ApiError> {
    let kind = game.kind.as_str();
    let players: Vec<Uuid> = game.seats.iter().flatten().map(|p| p.id).collect();
    if players.len() != game.seats.len() {
        return Ok(());
    }
    let fresh = WengLinRating::new();
    let mut order = players.clone();
    order.sort();
    let mut locked = std::collections::HashMap::new();
    for &player in &order {
        let row =
            store::lock_stats(tx, backend, player, kind, fresh.rating, fresh.uncertainty).await?;
        locked.insert(player, row);
    }
    let stats: Vec<StatsRow> = players.iter().filter_map(|p| locked.remove(p)).collect();
    let rating = |s: &StatsRow| WengLinRating {
        rating: s.rating,
        uncertainty: s.uncertainty,
    };
    let config = WengLinConfig::new();
    let (results, ratings): (Vec<SeatResult>, Vec<WengLinRating>) = match &game.rules {
        Some(Rules::Klaverjassen(m)) => {
            let totals = m.totals();
            let deals = m.deals().len() as i64;
            let team_points = |team: Team| match team {
                Team::A => totals.a,
                Team::B => totals.b,
            };
            let results: Vec<SeatResult> = players
                .iter()
                .enumerate()
                .map(|(i, &player)| {
                    let team = Team::of(Seat(i as u8));
                    let (own, other) = (team_points(team), team_points(team.other()));
                    SeatResult {
                        player,
                        won: own > other,
                        drawn: own == other,
                        points: i64::from(own),
                        deals,
                        chips: 0,
                    }
                })
                .collect();
            // Team A sits in seats 0 and 2, team B in 1 and 3.
            let outcome = match totals.a.cmp(&totals.b) {
                std::cmp::Ordering::Greater => Outcomes::WIN,
                std::cmp::Ordering::Less => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            };
            let (a, b) = weng_lin_two_teams(
                &[rating(&stats[0]), rating(&stats[2])],
                &[rating(&stats[1]), rating(&stats[3])],
                &outcome,
                &config,
            );
            (results, vec![a[0], b[0], a[1], b[1]])
        }
        Some(Rules::Potverteren(table)) => {
            let balances = table.balances();
            let start = match &game.options {
                Options::Potverteren(options) => options.starting_chips,
                Options::Klaverjassen(_) => 0,
            };
            let best = balances.iter().copied().max().unwrap_or(0);
            let at_best = balances.iter().filter(|&&b| b == best).count();
            let results: Vec<SeatResult> = players
                .iter()
                .zip(balances)
                .map(|(&player, &balance)| SeatResult {
                    player,
                    won: balance == best && at_best == 1,
                    drawn: balance == best && at_best > 1,
                    points: 0,
                    deals: 0,
                    chips: balance - start,
                })
                .collect();
            // Free for all: each seat a team of one, ranked by its final
            // balance (equal balances share a rank).
            let teams: Vec<[WengLinRating; 1]> = stats.iter().map(|s| [rating(s)]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(balances)
                .map(|(team, &balance)| {
                    let rank = 1 + balances.iter().filter(|&&b| b > balance).count();
                    (&team[..], MultiTeamOutcome::new(rank))
                })
                .collect();
            let ratings = weng_lin_multi_team(&ranked, &config)
                .into_iter()
                .map(|team| team[0])
                .collect();
            (results, ratings)
        }
        None => return Ok(()),
    };
    for ((mut row, result), new) in stats.into_iter().zip(results).zip(ratings) {
        debug_assert_eq!(row.player, result.player);
        row.played += 1;
        row.won += i64::from(result.won);
        row.drawn += i64::from(result.drawn);
        row.points += result.points;
        row.deals += result.deals;
        row.chips += result.chips;
        row.rating = new.rating;
        row.uncertainty = new.uncertainty;
        store::save_stats(tx, &row).await?;
    }
    Ok(())
}

/// Stores a new table made here (a quick match or a rematch): its row, its
/// seats and its `created` event.
async fn store_new_table(
    tx: &mut Tx,
    game: &mut Game,
    caller: Uuid,
    created_at: i64,
) -> Result<Option<i64>, ApiError> {
    assign_invite_code(tx, game).await?;
    let due_at = game.schedule(created_at, created_at, true);
    let options = game.options_json().to_string();
    let mut row = game_to_row(game, created_at, options, None)?;
    row.due_at = due_at;
    games::insert(tx, &row).await?;
    for (seat, player) in game.seats.iter().enumerate() {
        if let Some(player) = player {
            games::add_seat(tx, game.id, seat as u8, player.id).await?;
        }
    }
    let seat = game.seat_of(caller).map(|s| s.0);
    events::append(
        tx,
        game.id,
        &EventRow {
            seq: game.version,
            player_id: Some(caller),
            seat,
            kind: "created".into(),
            payload: serde_json::json!({
                "type": "created",
                "seat": seat,
                "fairness": game.fairness.view(1),
            })
            .to_string(),
            created_at,
            actor: None,
        },
    )
    .await?;
    Ok(due_at)
}

/// The `Location` header of a game.
fn location(state: &AppState, id: Uuid) -> (&'static str, String) {
    (
        header::LOCATION.as_str(),
        format!("{}/v1/games/{id}", state.path_prefix),
    )
}

// ---------------------------------------------------------------- invites

/// What an invite code shows before taking a seat.
#[derive(Serialize, ToSchema)]
pub struct Invite {
    /// The table: game, options, status and who sits where.
    pub table: GameSummary,
    /// The host's name ("Anne invites you to Klaverjassen").
    #[schema(example = "Anne")]
    pub host_name: String,
    /// The seats still free for the caller.
    #[schema(value_type = Vec<crate::api::cards::Seat>)]
    pub free_seats: Vec<Seat>,
}

async fn invited_game(state: &AppState, code: &str) -> Result<Game, ApiError> {
    let unknown = || ApiError::NotFound("no table with this invite code".into());
    let code = normalise_code(code).ok_or_else(unknown)?;
    let mut conn = state.store.acquire().await?;
    let id = store::game_of_invite(&mut conn, &code)
        .await?
        .ok_or_else(unknown)?;
    let row = games::load(&mut conn, state.store.backend(), id, false)
        .await?
        .ok_or_else(unknown)?;
    let game = game_from_row(&row)?;
    if !matches!(game.status, Status::Waiting | Status::Playing) {
        return Err(unknown());
    }
    Ok(game)
}

/// A private table's summary, by its invite code. An unknown, finished or
/// abandoned table's code is a plain 404; repeated wrong codes from one
/// client are slowed down (429 `rate_limited`).
#[utoipa::path(tag = "friends", security(("bearer" = [])),
    params(("code" = String, Path, description = "The invite code (case and dashes ignored)", example = "K7M9TQ4XRB")),
    responses(
        (status = 200, description = "The table", body = Invite),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no live table with this code", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many wrong codes", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/invites/{code}")]
pub async fn show_invite(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    code: web::Path<String>,
) -> Result<web::Json<Invite>, ApiError> {
    let mut game = invited_game(&state, &code).await?;
    release_reservations(&mut game, state.clock.now_micros());
    let host_name = game
        .seats
        .iter()
        .flatten()
        .find(|p| p.id == game.host)
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let free_seats = (0..game.seats.len() as u8)
        .filter(|&s| {
            game.status == Status::Waiting
                && game.seats[usize::from(s)].is_none()
                && game.friends.may_take(s, caller.id)
        })
        .map(Seat)
        .collect();
    Ok(web::Json(Invite {
        table: GameSummary::from(&game),
        host_name,
        free_seats,
    }))
}

/// Takes a seat at a private table by its invite code (as `POST
/// /v1/games/{id}/seats`). Already seated there: the view, unchanged.
#[utoipa::path(tag = "friends", security(("bearer" = [])), request_body(content = Option<TakeSeat>),
    params(("code" = String, Path, description = "The invite code (case and dashes ignored)", example = "K7M9TQ4XRB"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Seated; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no live table with this code", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_full`, `seat_taken`, `seat_reserved` or `game_started`", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such seat, an invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many wrong codes", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/invites/{code}")]
pub async fn accept_invite(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    code: web::Path<String>,
    body: OptionalJson<TakeSeat>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0.unwrap_or_default();
    let game = invited_game(&state, &code).await?;
    if game.seat_of(caller.id).is_some() {
        // Seated by an earlier request: one with this `Idempotency-Key`
        // (replayed, or refused if it was another request), or none.
        let key = idempotency_key(&req)?;
        if key.is_some() {
            let hash = request_hash(&req, key.as_deref(), &body);
            let mut conn = state.store.acquire().await?;
            let now = state.clock.now_micros();
            if let Some(replayed) = replay(&mut conn, caller.id, key.as_deref(), &hash, now).await?
            {
                return Ok(replayed);
            }
        }
        let headers = [(header::ETAG.as_str(), etag(game.version))];
        return Ok(json_answer(StatusCode::OK, headers).body(view_json(&game, caller.id)?));
    }
    join_game(&state, &req, caller, game.id, body).await
}

// ------------------------------------------------------------ quick match

/// How many waiting tables matchmaking reads at a time.
const WAITING_PAGE: i64 = 100;

/// A quick match: any public table of `game` waiting for players whose
/// options match those given.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"game": "klaverjassen", "options": {"deals": 16}}))]
pub struct QuickMatch {
    /// Which game.
    #[schema(value_type = crate::api::game::GameKind)]
    pub game: GameKind,
    /// The options the table must have; an option left out matches any
    /// value. A new table gets these (and the defaults for the rest).
    /// `private` is not allowed: matchmaking only finds public tables.
    #[schema(value_type = Option<crate::api::options::NewOptionsSchema>)]
    pub options: Option<serde_json::Value>,
}

/// Seats the caller at the oldest public table of `game` waiting for
/// players whose options match, or creates one with the caller as host.
/// Callers arriving together never both get the last seat, and never get
/// two tables where one would do (one at a time per game, also across
/// instances). A caller already waiting at a matching table gets it back.
#[utoipa::path(tag = "friends", security(("bearer" = [])), request_body = QuickMatch,
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "Seated at a waiting table; the caller's view", body = GameView, headers(("ETag" = String))),
        (status = 201, description = "A new table with the caller as host; `Location` names it", body = GameView, headers(("Location" = String), ("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_tables`: no table to join, and the caller waits at 20 tables already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown option, value out of range, or `private`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/matchmaking")]
pub async fn quick_match(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    body: web::Json<QuickMatch>,
) -> Result<HttpResponse, ApiError> {
    let key = idempotency_key(&req)?;
    let hash = request_hash(&req, key.as_deref(), &*body);
    let given = body
        .options
        .clone()
        .unwrap_or_else(|| serde_json::json!({}));
    let (options, table) = TableOptions::parse_with(body.game, Some(given.clone()))
        .map_err(|e| ApiError::validation(e.to_string()))?;
    if table.private {
        return Err(ApiError::validation(
            "options.private: matchmaking finds and makes public tables only",
        ));
    }
    let mut tx = state.store.begin_write().await?;
    let backend = state.store.backend();
    store::lock_matchmaking(&mut tx, backend, body.game.as_str()).await?;
    let keyed = Keyed {
        caller: caller.id,
        key: key.as_deref(),
        hash,
    };
    // Checked under the matchmaking lock, so a retry racing its original
    // waits for it and then replays its answer.
    if let Some(replayed) = keyed.replay(&mut tx, &state).await? {
        return Ok(replayed);
    }
    let player = seated_player(&mut tx, caller).await?;
    let now = state.clock.now_micros();
    let mut fresh = Game::create(
        Uuid::new_v4(),
        body.game,
        options,
        table,
        player.clone(),
        None,
        &mut system_rng(),
    )
    .map_err(|e| ApiError::validation(e.to_string()))?;
    // The options asked for, as a table shows them (defaults filled in).
    let wanted = fresh.options_json();
    let matches = |shown: &serde_json::Value| {
        given
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
            .all(|name| shown.get(name) == wanted.get(name))
    };
    // Every waiting public table is looked over, a page at a time, by the
    // options it stores; only a table that matches is read and locked.
    let mut after = None;
    let mut more = true;
    while more {
        let page = store::waiting_public(&mut tx, body.game.as_str(), after.as_ref(), WAITING_PAGE)
            .await?;
        more = page.len() as i64 == WAITING_PAGE;
        after = page.last().cloned();
        for table in page {
            if !shown_options_of(body.game, &table.options).is_some_and(|shown| matches(&shown)) {
                continue;
            }
            let Some(row) = games::load(&mut tx, backend, table.id, true).await? else {
                continue;
            };
            // Its options were matched above, from the same stored text
            // (a table's options never change); its status may have.
            let mut game = game_from_row(&row)?;
            if game.status != Status::Waiting {
                continue;
            }
            if game.seat_of(caller.id).is_some() {
                return table_answer(&state, tx, keyed, &game, StatusCode::OK, false).await;
            }
            release_reservations(&mut game, now);
            let Ok(seat) = game.join(player.clone(), None) else {
                continue;
            };
            let event = Event {
                kind: "joined",
                seat: Some(seat.0),
                payload: serde_json::json!({"type": "joined", "seat": seat, "matchmaking": true}),
                seat_change: Some(SeatChange::Took(seat.0)),
            };
            let due_at = record_change(
                &state,
                &mut tx,
                &mut game,
                &row,
                &event,
                Some(caller.id),
                None,
            )
            .await?;
            let answer = table_answer(&state, tx, keyed, &game, StatusCode::OK, false).await?;
            after_commit(&state, &game, &event, due_at, None);
            return Ok(answer);
        }
    }
    super::change::room_for_a_new_table(&mut tx, caller.id).await?;
    let due_at = store_new_table(&mut tx, &mut fresh, caller.id, now).await?;
    let answer = table_answer(&state, tx, keyed, &fresh, StatusCode::CREATED, true).await?;
    state.notifier.work_due(due_at);
    Ok(answer)
}

/// A request whose answer is kept for the caller's `Idempotency-Key`.
struct Keyed<'a> {
    caller: Uuid,
    key: Option<&'a str>,
    hash: String,
}

impl Keyed<'_> {
    /// The first answer kept for the key, if it was used before (see
    /// [`replay`]).
    async fn replay(
        &self,
        conn: &mut sqlx::AnyConnection,
        state: &AppState,
    ) -> Result<Option<HttpResponse>, ApiError> {
        replay(
            conn,
            self.caller,
            self.key,
            &self.hash,
            state.clock.now_micros(),
        )
        .await
    }
}

/// Commits `tx` and answers `status` with the caller's view of `game` (and
/// `location`, the table's address, when given), kept for the caller's
/// `Idempotency-Key`: the one shape of matchmaking's and a rematch's
/// answers.
async fn table_answer(
    state: &AppState,
    mut tx: Tx,
    keyed: Keyed<'_>,
    game: &Game,
    status: StatusCode,
    location_too: bool,
) -> Result<HttpResponse, ApiError> {
    let body = view_json(game, keyed.caller)?;
    let mut headers = Vec::with_capacity(2);
    if location_too {
        headers.push(location(state, game.id));
    }
    headers.push((header::ETAG.as_str(), etag(game.version)));
    let now = state.clock.now_micros();
    remember(
        &mut tx,
        keyed.caller,
        keyed.key,
        keyed.hash,
        status,
        &headers,
        &body,
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(json_answer(status, headers).body(body))
}

// ---------------------------------------------------------------- rematch

/// The next table after a finished one, created once: same options, the
/// same computer players in their seats, the caller in its seat, and every
/// other seat held for the player who sat there for 5 minutes (then free
/// for anyone). Asked again, by anyone seated, it answers the same table.
/// The finished game's version goes up by one and its view's `rematch`
/// names the new table, so its streams and long polls hear of it.
#[utoipa::path(tag = "friends", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The finished game"),
           ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer: 1 to 255 visible ASCII characters", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 200, description = "The rematch existed; the caller's view of it", body = GameView, headers(("Location" = String), ("ETag" = String))),
        (status = 201, description = "The rematch, created; the caller's view of it", body = GameView, headers(("Location" = String), ("ETag" = String))),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_seated`: the caller did not play this game", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`not_finished`: the game is not finished; `too_many_tables`: the caller waits at 20 tables already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An invalid `Idempotency-Key`, or one first used with another request", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/games/{id}/rematch")]
pub async fn rematch(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let key = idempotency_key(&req)?;
    let hash = request_hash(&req, key.as_deref(), &());
    let backend = state.store.backend();
    let mut tx = state.store.begin_write().await?;
    let row = games::load(&mut tx, backend, *id, true)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no game {id}")))?;
    let keyed = Keyed {
        caller: caller.id,
        key: key.as_deref(),
        hash,
    };
    // Checked under the finished game's lock, so a retry racing its
    // original waits for it and then replays its answer.
    if let Some(replayed) = keyed.replay(&mut tx, &state).await? {
        return Ok(replayed);
    }
    let mut game = game_from_row(&row)?;
    let seat = game
        .seat_of(caller.id)
        .ok_or_else(|| refusal(&game, caller.id, crate::table::GameError::NotSeated))?;
    if game.status != Status::Finished {
        return Err(ApiError::Conflict {
            code: "not_finished",
            detail: "a rematch follows a finished game".into(),
        });
    }
    if let Some(next) = game.friends.rematch {
        let row = games::load(&mut tx, backend, next, false)
            .await?
            .ok_or_else(|| ApiError::Internal(format!("rematch {next} missing")))?;
        let next = game_from_row(&row)?;
        return table_answer(&state, tx, keyed, &next, StatusCode::OK, true).await;
    }
    super::change::room_for_a_new_table(&mut tx, caller.id).await?;
    let host = seated_player(&mut tx, caller).await?;
    let now = state.clock.now_micros();
    let mut next = Game::create(
        Uuid::new_v4(),
        game.kind,
        game.options.clone(),
        game.table.clone(),
        host,
        Some(seat.0),
        &mut system_rng(),
    )
    .map_err(|e| ApiError::Internal(e.to_string()))?;
    for (i, player) in game.seats.iter().enumerate() {
        let Some(player) = player else { continue };
        if player.id == caller.id {
            continue;
        }
        if player.bot.is_some() {
            next.join(player.clone(), Some(i as u8))
                .map_err(|e| ApiError::Internal(e.to_string()))?;
        } else {
            next.friends.reservations.push(Reservation {
                seat: i as u8,
                player: player.id,
                until: now + RESERVE_MICROS,
            });
        }
    }
    let due_at = store_new_table(&mut tx, &mut next, caller.id, now).await?;
    game.friends.rematch = Some(next.id);
    let event = Event::new(
        "rematch",
        Some(seat.0),
        serde_json::json!({"type": "rematch", "seat": seat, "game": next.id}),
    );
    let changed_due_at = record_change(
        &state,
        &mut tx,
        &mut game,
        &row,
        &event,
        Some(caller.id),
        None,
    )
    .await?;
    let answer = table_answer(&state, tx, keyed, &next, StatusCode::CREATED, true).await?;
    after_commit(&state, &game, &event, changed_due_at, None);
    state.notifier.work_due(due_at);
    Ok(answer)
}

// --------------------------------------------------------------- profiles

/// A player's public profile.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke", "bot": null,
    "stats": {
        "klaverjassen": {"played": 12, "won": 7, "drawn": 1, "lost": 4,
            "average_points_per_deal": 87.5},
        "potverteren": {"played": 5, "won": 2, "drawn": 0, "lost": 3, "net_chips": -14}
    },
    "rating": {
        "klaverjassen": {"rating": 27.3, "uncertainty": 7.9},
        "potverteren": {"rating": 24.1, "uncertainty": 8.2}
    }
}))]
pub struct Profile {
    /// The player's id.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// The name others see.
    #[schema(example = "Anneke")]
    pub name: String,
    /// The level, for a computer player; null for a person.
    #[schema(example = "strong")]
    pub bot: Option<String>,
    /// Finished matches, per game.
    pub stats: GameStats,
    /// The Weng-Lin (OpenSkill) rating, per game.
    pub rating: GameRatings,
}

/// Statistics per game.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "klaverjassen": {"played": 12, "won": 7, "drawn": 1, "lost": 4,
        "average_points_per_deal": 87.5},
    "potverteren": {"played": 5, "won": 2, "drawn": 0, "lost": 3, "net_chips": -14}
}))]
pub struct GameStats {
    /// Klaverjassen.
    pub klaverjassen: KlaverjassenStats,
    /// Potverteren.
    pub potverteren: PotverterenStats,
}

/// Klaverjassen matches finished.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"played": 12, "won": 7, "drawn": 1, "lost": 4,
    "average_points_per_deal": 87.5}))]
pub struct KlaverjassenStats {
    /// Matches finished.
    #[schema(example = 12)]
    pub played: i64,
    /// Matches the player's team won (more points than the other team).
    #[schema(example = 7)]
    pub won: i64,
    /// Matches that ended level.
    #[schema(example = 1)]
    pub drawn: i64,
    /// Matches lost.
    #[schema(example = 4)]
    pub lost: i64,
    /// The player's team's points per deal, over every deal of those
    /// matches (score sheet: card points, roem, nat and pit); null before
    /// the first.
    #[schema(example = 87.5)]
    pub average_points_per_deal: Option<f64>,
}

/// Potverteren tables finished.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"played": 5, "won": 2, "drawn": 0, "lost": 3, "net_chips": -14}))]
pub struct PotverterenStats {
    /// Tables finished.
    #[schema(example = 5)]
    pub played: i64,
    /// Tables the player ended with the highest balance alone.
    #[schema(example = 2)]
    pub won: i64,
    /// Tables the player ended sharing the highest balance.
    #[schema(example = 0)]
    pub drawn: i64,
    /// Tables lost.
    #[schema(example = 3)]
    pub lost: i64,
    /// Chips won minus chips lost over all those tables.
    #[schema(example = -14)]
    pub net_chips: i64,
}

/// A rating per game.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "klaverjassen": {"rating": 27.3, "uncertainty": 7.9},
    "potverteren": {"rating": 24.1, "uncertainty": 8.2}
}))]
pub struct GameRatings {
    /// Klaverjassen (teams of two).
    pub klaverjassen: Rating,
    /// Potverteren (every seat for itself).
    pub potverteren: Rating,
}

/// A Weng-Lin rating: a new player starts at 25 with uncertainty 25/3.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"rating": 27.3, "uncertainty": 7.9}))]
pub struct Rating {
    /// The skill estimate.
    #[schema(example = 27.3)]
    pub rating: f64,
    /// How unsure the estimate is (one standard deviation).
    #[schema(example = 7.9)]
    pub uncertainty: f64,
}

async fn profile(conn: &mut sqlx::AnyConnection, id: Uuid) -> Result<Profile, ApiError> {
    let player = players::get(conn, id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no player {id}")))?;
    let fresh = WengLinRating::new();
    let mut rows = Vec::new();
    for kind in [GameKind::Klaverjassen, GameKind::Potverteren] {
        rows.push(store::stats(conn, id, kind.as_str()).await?);
    }
    let rating = |row: &Option<StatsRow>| Rating {
        rating: row.as_ref().map_or(fresh.rating, |r| r.rating),
        uncertainty: row.as_ref().map_or(fresh.uncertainty, |r| r.uncertainty),
    };
    let count = |row: &Option<StatsRow>, f: fn(&StatsRow) -> i64| row.as_ref().map_or(0, f);
    let (k, p) = (&rows[0], &rows[1]);
    Ok(Profile {
        id: player.id,
        name: player.name,
        bot: player.bot_level,
        stats: GameStats {
            klaverjassen: KlaverjassenStats {
                played: count(k, |r| r.played),
                won: count(k, |r| r.won),
                drawn: count(k, |r| r.drawn),
                lost: count(k, |r| r.played - r.won - r.drawn),
                average_points_per_deal: k
                    .as_ref()
                    .filter(|r| r.deals > 0)
                    .map(|r| r.points as f64 / r.deals as f64),
            },
            potverteren: PotverterenStats {
                played: count(p, |r| r.played),
                won: count(p, |r| r.won),
                drawn: count(p, |r| r.drawn),
                lost: count(p, |r| r.played - r.won - r.drawn),
                net_chips: count(p, |r| r.chips),
            },
        },
        rating: GameRatings {
            klaverjassen: rating(k),
            potverteren: rating(p),
        },
    })
}

/// A player's public profile: name, statistics and ratings per game.
#[utoipa::path(tag = "players", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The player")),
    responses(
        (status = 200, description = "The profile", body = Profile),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/{id}")]
pub async fn player_profile(
    state: web::Data<AppState>,
    _caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<web::Json<Profile>, ApiError> {
    let mut conn = state.store.acquire().await?;
    Ok(web::Json(profile(&mut conn, *id).await?))
}

/// A new name.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    /// The name others see: trimmed, 1 to 40 characters, no control characters.
    #[schema(example = "Anneke", min_length = 1, max_length = 40)]
    pub name: String,
}

/// Renames the caller; every table shows the new name.
#[utoipa::path(tag = "players", security(("bearer" = [])), request_body = Rename,
    responses(
        (status = 200, description = "The caller's profile", body = Profile),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid name", body = Problem, content_type = "application/problem+json"),
    ))]
#[patch("/players/me")]
pub async fn rename(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    body: web::Json<Rename>,
) -> Result<web::Json<Profile>, ApiError> {
    let name = valid_name(&body.name)?;
    let mut tx = state.store.begin_write().await?;
    if !store::rename(&mut tx, caller.id, name).await? {
        return Err(ApiError::Token(crate::auth::TokenError::Invalid));
    }
    let profile = profile(&mut tx, caller.id).await?;
    tx.commit().await?;
    Ok(web::Json(profile))
}
