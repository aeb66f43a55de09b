//! Games stored by the release before the finished-deals layout (migration
//! 0051): they load, answer and play on exactly as that
//! release served them.
//!
//! `tests/data/layout-release.db` is a SQLite database filled by the release
//! binary (built from main before this layout) under `examples/loadgen`:
//! Klaverjassen matches in their first, second and third deal, a finished
//! one-deal match, Potverteren tables a few rounds in. `layout-release.json`
//! holds what that release answered for each of its games: every seat's view
//! and the event log (recorded with `tools/layout_fixture.py`). The SQLite
//! test opens a copy of the file itself; the Postgres test loads the same
//! rows into a database with the release's schema (migrations up to 0011).

use std::collections::BTreeMap;

use kaarttafel::auth::Tokens;
use kaarttafel::config::{Database, Secret};
use kaarttafel::store::MIGRATOR;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::{AnyPool, Row};

use crate::on_both_databases;
use crate::support::{self, Db, Scratch, TestApp};

/// The token secret the fixture's release ran with.
const SECRET: &str = "0123456789abcdef0123456789abcdef0123";
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/layout-release.db");
const ANSWERS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/layout-release.json"
);
/// The last migration of the release that filled the fixture.
const RELEASE_SCHEMA: i64 = 11;

/// The release's tables and their columns: `true` for integers.
const TABLES: [(&str, &[(&str, bool)]); 4] = [
    (
        "players",
        &[
            ("id", false),
            ("name", false),
            ("external_sub", false),
            ("created_at", true),
            ("token_generation", true),
            ("bot_level", false),
        ],
    ),
    (
        "games",
        &[
            ("id", false),
            ("kind", false),
            ("status", false),
            ("version", true),
            ("host_id", false),
            ("options", false),
            ("state", false),
            ("created_at", true),
            ("updated_at", true),
            ("fairness", false),
            ("due_at", true),
            ("automation", false),
        ],
    ),
    (
        "game_seats",
        &[("game_id", false), ("seat", true), ("player_id", false)],
    ),
    (
        "game_events",
        &[
            ("game_id", false),
            ("seq", true),
            ("player_id", false),
            ("seat", true),
            ("kind", false),
            ("payload", false),
            ("created_at", true),
            ("actor", false),
        ],
    ),
];

/// A copy of the fixture file, opened.
async fn fixture() -> (tempfile::TempDir, AnyPool) {
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("release.db");
    std::fs::copy(FIXTURE, &path).expect("copy the fixture");
    let pool = AnyPool::connect(&format!("sqlite://{}", path.display()))
        .await
        .expect("open the fixture");
    (dir, pool)
}

/// A database of `db` as the release left it: the fixture file itself on
/// SQLite, its rows in the release's schema on Postgres.
async fn release_database(db: Db) -> (Database, Option<Scratch>) {
    let (database, scratch) = support::fresh_database(db).await;
    match &database {
        Database::Sqlite(path) => {
            std::fs::copy(FIXTURE, path).expect("copy the fixture");
        }
        Database::Postgres(url) => {
            sqlx::any::install_default_drivers();
            let target = AnyPool::connect(url.expose()).await.expect("connect");
            MIGRATOR
                .run_to(RELEASE_SCHEMA, &target)
                .await
                .expect("the release's schema");
            let (_dir, source) = fixture().await;
            for (table, columns) in TABLES {
                let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
                let select = format!("SELECT {} FROM {table}", names.join(", "));
                let marks: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
                let insert = format!(
                    "INSERT INTO {table} ({}) VALUES ({})",
                    names.join(", "),
                    marks.join(", ")
                );
                let rows = sqlx::query(sqlx::AssertSqlSafe(select))
                    .fetch_all(&source)
                    .await
                    .expect("read the fixture");
                for row in rows {
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(insert.clone()));
                    for (name, integer) in columns {
                        query = if *integer {
                            query.bind(row.try_get::<Option<i64>, _>(*name).unwrap())
                        } else {
                            query.bind(row.try_get::<Option<String>, _>(*name).unwrap())
                        };
                    }
                    query.execute(&target).await.expect("copy a row");
                }
            }
            target.close().await;
        }
    }
    (database, scratch)
}

/// The app of this build on the release's database, which migrates it.
async fn upgraded(db: Db) -> TestApp {
    let (database, scratch) = release_database(db).await;
    let mut settings = support::settings(database);
    settings.jwt_secret = Some(Secret::new(SECRET));
    TestApp::start(settings, scratch).await
}

/// Tokens for every seat of every game of the fixture, by game and seat.
async fn seat_tokens() -> BTreeMap<String, BTreeMap<String, String>> {
    let tokens = Tokens::new(
        &Secret::new(SECRET),
        std::time::Duration::from_secs(3600),
        None,
    )
    .unwrap();
    let (_dir, source) = fixture().await;
    let rows = sqlx::query(
        "SELECT s.game_id, s.seat, p.id, p.token_generation FROM game_seats s \
         JOIN players p ON p.id = s.player_id",
    )
    .fetch_all(&source)
    .await
    .unwrap();
    let mut by_game: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for row in rows {
        let player: String = row.try_get("id").unwrap();
        let (token, _) = tokens.issue(
            player.parse().unwrap(),
            row.try_get("token_generation").unwrap(),
            chrono::Utc::now(),
        );
        by_game
            .entry(row.try_get("game_id").unwrap())
            .or_default()
            .insert(row.try_get::<i64, _>("seat").unwrap().to_string(), token);
    }
    by_game
}

/// The stored layout of every game: `deals_stored` and the live state.
async fn stored(app: &TestApp) -> BTreeMap<String, (Option<i64>, i64, Option<String>)> {
    let url = match &app.settings.database {
        Database::Sqlite(path) => format!("sqlite://{path}"),
        Database::Postgres(url) => url.expose().to_owned(),
    };
    let pool = AnyPool::connect(&url).await.unwrap();
    let rows = sqlx::query(
        "SELECT g.id, g.deals_stored, g.state, \
         (SELECT COUNT(*) FROM game_deals d WHERE d.game_id = g.id) AS rows_stored FROM games g",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    rows.iter()
        .map(|r| {
            (
                r.try_get("id").unwrap(),
                (
                    r.try_get("deals_stored").unwrap(),
                    r.try_get("rows_stored").unwrap(),
                    r.try_get("state").unwrap(),
                ),
            )
        })
        .collect()
}

fn answers() -> BTreeMap<String, Value> {
    serde_json::from_str(&std::fs::read_to_string(ANSWERS).unwrap()).unwrap()
}

/// How many finished records (score-sheet rows, settled rounds) a state holds.
fn records_in(state: &Value) -> usize {
    let (_, inner) = state.as_object().unwrap().iter().next().unwrap();
    inner
        .get("sheet")
        .or_else(|| inner.get("history"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

async fn games_stored_by_the_release_answer_as_the_release_did_after_the_layout_migration(db: Db) {
    let (_dir, source) = fixture().await;
    let before: Vec<(String, Option<String>)> = sqlx::query("SELECT id, state FROM games")
        .fetch_all(&source)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.try_get("id").unwrap(), r.try_get("state").unwrap()))
        .collect();
    let app = upgraded(db).await;
    let tokens = seat_tokens().await;
    let answers = answers();
    assert_eq!(answers.len(), before.len());

    // Every row was split at start: the finished records are rows of their
    // own, and the state keeps only the live part.
    let after = stored(&app).await;
    let mut records_seen = 0;
    for (id, state) in &before {
        let (deals_stored, rows, live) = &after[id];
        let whole: Option<Value> = state.as_deref().map(|s| serde_json::from_str(s).unwrap());
        let records = whole.as_ref().map_or(0, records_in);
        records_seen += records;
        assert_eq!(*deals_stored, Some(records as i64), "game {id}");
        assert_eq!(*rows, records as i64, "game {id}");
        if let Some(live) = live {
            let live: Value = serde_json::from_str(live).unwrap();
            let (_, inner) = live.as_object().unwrap().iter().next().unwrap();
            assert!(inner.get("sheet").is_none() && inner.get("history").is_none());
        }
    }
    assert!(
        records_seen >= 10,
        "the fixture has finished deals and rounds"
    );

    // And every answer is the release's, byte for byte as JSON.
    for (id, recorded) in &answers {
        for (seat, view) in recorded["views"].as_object().unwrap() {
            let answer = app
                .send(
                    Method::GET,
                    &format!("/v1/games/{id}"),
                    Some(&tokens[id][seat]),
                    None,
                )
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            assert_answers_as_recorded(&answer.body, view, &format!("game {id}, seat {seat}"));
        }
        let answer = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events"),
                Some(&tokens[id]["0"]),
                None,
            )
            .await;
        assert_eq!(&answer.body, &recorded["events"], "game {id}");
    }
    app.stop().await;
}

async fn games_stored_by_the_release_play_on_after_the_layout_migration(db: Db) {
    let app = upgraded(db).await;
    let tokens = seat_tokens().await;
    let before = stored(&app).await;
    let mut finished_a_deal = 0;
    for (id, recorded) in answers() {
        if recorded["views"]["0"]["status"] != "playing" {
            continue;
        }
        let deals_before = before[&id].0.unwrap();
        // Legal moves (never ending a Potverteren table) until one more
        // deal or round is finished.
        let mut played = 0;
        let mut rng = 7_u64;
        loop {
            let view = app
                .send(
                    Method::GET,
                    &format!("/v1/games/{id}"),
                    Some(&tokens[&id]["0"]),
                    None,
                )
                .await
                .body;
            let seat = view["awaiting"]["seats"][0]
                .as_u64()
                .expect("a seat to move");
            let token = &tokens[&id][&seat.to_string()];
            let seen = app
                .send(Method::GET, &format!("/v1/games/{id}"), Some(token), None)
                .await
                .body;
            let legal: Vec<Value> = seen["legal_moves"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["type"] != "end_table")
                .cloned()
                .collect();
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = legal[(rng >> 33) as usize % legal.len()].clone();
            let answer = app
                .send(
                    Method::POST,
                    &format!("/v1/games/{id}/moves"),
                    Some(token),
                    Some(json!({"move": pick})),
                )
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            played += 1;
            let now = stored(&app).await;
            let (deals_stored, rows, _) = &now[&id];
            assert_eq!(deals_stored.unwrap(), *rows);
            if deals_stored.unwrap() > deals_before {
                assert_eq!(deals_stored.unwrap(), deals_before + 1);
                break;
            }
            assert!(played < 200, "game {id}: no deal finished in 200 moves");
        }
        finished_a_deal += 1;
    }
    assert!(finished_a_deal >= 4, "the fixture has games in play");
    app.stop().await;
}

/// A row written in the old layout after the start (by an instance of the
/// release still running during a deploy) is read whole and split by its
/// next write.
async fn a_game_row_in_the_old_layout_is_read_whole_and_split_on_its_next_write(db: Db) {
    let app = upgraded(db).await;
    let tokens = seat_tokens().await;
    let answers = answers();
    let (_dir, source) = fixture().await;
    // A game in play with finished deals, back in the release's layout.
    let (id, whole): (String, String) = {
        let rows = sqlx::query(
            "SELECT id, state FROM games WHERE status = 'playing' AND kind = 'klaverjassen'",
        )
        .fetch_all(&source)
        .await
        .unwrap();
        rows.iter()
            .map(|r| (r.try_get("id").unwrap(), r.try_get("state").unwrap()))
            .find(|(_, state): &(String, String)| {
                records_in(&serde_json::from_str(state).unwrap()) >= 2
            })
            .expect("a game in play with two finished deals")
    };
    let records = records_in(&serde_json::from_str(&whole).unwrap()) as i64;
    let url = match &app.settings.database {
        Database::Sqlite(path) => format!("sqlite://{path}"),
        Database::Postgres(url) => url.expose().to_owned(),
    };
    let pool = AnyPool::connect(&url).await.unwrap();
    sqlx::query("DELETE FROM game_deals WHERE game_id = $1")
        .bind(&id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE games SET state = $1, deals_stored = NULL WHERE id = $2")
        .bind(&whole)
        .bind(&id)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;

    for (seat, view) in answers[&id]["views"].as_object().unwrap() {
        let answer = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}"),
                Some(&tokens[&id][seat]),
                None,
            )
            .await;
        assert_answers_as_recorded(&answer.body, view, &format!("seat {seat}"));
    }
    let seat = answers[&id]["views"]["0"]["awaiting"]["seats"][0]
        .as_u64()
        .unwrap()
        .to_string();
    let token = &tokens[&id][&seat];
    let seen = app
        .send(Method::GET, &format!("/v1/games/{id}"), Some(token), None)
        .await
        .body;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/moves"),
            Some(token),
            Some(json!({"move": seen["legal_moves"][0]})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let sheet = |view: &Value| view["klaverjassen"]["deals"].as_array().unwrap().clone();
    assert_eq!(sheet(&seen).len(), records as usize);
    assert_eq!(
        sheet(&answer.body)[..records as usize],
        sheet(&seen)[..],
        "the score sheet is kept"
    );
    let (deals_stored, rows, _) = stored(&app).await.remove(&id).unwrap();
    assert_eq!((deals_stored, rows), (Some(records), records));
    app.stop().await;
}

/// A finished record that is not UTF-8 text is refused with an error, never
/// served. Only SQLite can hold one: it stores a text column's bytes
/// unchecked, where Postgres refuses them on the way in.
#[tokio::test]
async fn a_finished_record_that_is_not_utf8_text_is_refused_not_served() {
    let app = upgraded(Db::Sqlite).await;
    let tokens = seat_tokens().await;
    let (id, _) = stored(&app)
        .await
        .into_iter()
        .find(|(_, (deals_stored, rows, _))| *rows >= 1 && *deals_stored == Some(*rows))
        .expect("a game with a finished deal stored apart");
    let Database::Sqlite(path) = &app.settings.database else {
        unreachable!("a SQLite app");
    };
    let pool = AnyPool::connect(&format!("sqlite://{path}")).await.unwrap();
    let (path, token) = (format!("/v1/games/{id}"), Some(tokens[&id]["0"].as_str()));
    let answer = app.send(Method::GET, &path, token, None).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // `{"n":"` then a byte no UTF-8 text holds, then `"}`.
    sqlx::query(
        "UPDATE game_deals SET record = CAST(X'7B226E223A22FF227D' AS TEXT) \
         WHERE game_id = $1 AND number = 1",
    )
    .bind(&id)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    // Sent by hand: `TestApp::send` fails a test on any server error.
    let answer = app
        .client
        .get(format!("{}{path}", app.base))
        .bearer_auth(token.unwrap())
        .send()
        .await
        .expect("request sent");
    assert_eq!(answer.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = answer.text().await.unwrap();
    assert!(body.contains("\"code\":\"internal_error\""), "{body}");
    app.stop().await;
}

on_both_databases!(
    games_stored_by_the_release_answer_as_the_release_did_after_the_layout_migration,
    games_stored_by_the_release_play_on_after_the_layout_migration,
    a_game_row_in_the_old_layout_is_read_whole_and_split_on_its_next_write,
);

/// `now` answers as the release `recorded` did: every field the release sent
/// has the same value, recursively; fields added to views since (such as a
/// table's `invite_code` or `rematch`) may be present as well.
fn assert_answers_as_recorded(now: &serde_json::Value, recorded: &serde_json::Value, what: &str) {
    use serde_json::Value;
    match (now, recorded) {
        (Value::Object(now), Value::Object(recorded)) => {
            for (key, value) in recorded {
                let Some(answered) = now.get(key) else {
                    panic!("{what}: `{key}` is no longer answered");
                };
                assert_answers_as_recorded(answered, value, &format!("{what}.{key}"));
            }
        }
        (Value::Array(now), Value::Array(recorded)) => {
            assert_eq!(now.len(), recorded.len(), "{what}: length");
            for (i, (answered, value)) in now.iter().zip(recorded).enumerate() {
                assert_answers_as_recorded(answered, value, &format!("{what}[{i}]"));
            }
        }
        _ => assert_eq!(now, recorded, "{what}"),
    }
}
