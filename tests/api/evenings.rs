//! Club evenings (API.md "Club evenings", RULES.md section 4): a 4-pair
//! duplicate evening of 3 rounds of 2 deals, two pairs of persons played by
//! this test and two computer pairs, runs its rounds by itself; every table
//! of a round gets the same hands; no board shows outside its table before
//! every table finished it; the standings (JSON and CSV) are those the
//! tables' score sheets give.

use std::collections::{BTreeMap, HashMap};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, TestApp, moves_but_reports};

on_both_databases!(
    a_pairs_entry_needs_its_partner_and_the_start_a_full_field,
    a_private_event_is_entered_by_its_invite_code_and_not_listed,
    an_individual_duplicate_evening_is_drawn_and_dealt_as_the_verifier_repeats_it,
    a_duplicate_evening_plays_itself_through_with_the_same_boards_at_every_table,
);

async fn post(app: &TestApp, path: &str, player: &Player, body: Value) -> crate::support::Answer {
    app.send(Method::POST, path, Some(&player.token), Some(body))
        .await
}

async fn get(app: &TestApp, path: &str, player: &Player) -> crate::support::Answer {
    app.send(Method::GET, path, Some(&player.token), None).await
}

async fn delete(app: &TestApp, path: &str, player: &Player) -> crate::support::Answer {
    app.send(Method::DELETE, path, Some(&player.token), None)
        .await
}

async fn new_event(app: &TestApp, organizer: &Player, body: Value) -> Value {
    let answer = post(app, "/v1/events", organizer, body).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let id = answer.body["id"].as_str().unwrap();
    assert_eq!(
        answer.headers["location"].to_str().unwrap(),
        format!("/v1/events/{id}")
    );
    answer.body
}

async fn enter(
    app: &TestApp,
    id: &str,
    player: &Player,
    partner: &Player,
) -> crate::support::Answer {
    post(
        app,
        &format!("/v1/events/{id}/entries"),
        player,
        json!({"partner": partner.id}),
    )
    .await
}

/// The organizer fills `count` places of event `id` with computer players.
async fn add_bots(
    app: &TestApp,
    id: &str,
    organizer: &Player,
    count: u32,
) -> crate::support::Answer {
    post(
        app,
        &format!("/v1/events/{id}/bots"),
        organizer,
        json!({"count": count, "level": "basic"}),
    )
    .await
}

/// The organizer starts event `id`.
async fn start(app: &TestApp, id: &str, organizer: &Player) -> crate::support::Answer {
    post(app, &format!("/v1/events/{id}/start"), organizer, json!({})).await
}

async fn a_pairs_entry_needs_its_partner_and_the_start_a_full_field(db: Db) {
    let app = TestApp::spawn(db).await;
    let organizer = app.player("Organizer").await;
    let (anne, bert) = (app.player("Anne").await, app.player("Bert").await);
    let event = new_event(
        &app,
        &organizer,
        json!({"name": "Donderdag", "game": "klaverjassen", "format": "pairs", "rounds": 3, "deals": 2, "duplicate": true}),
    )
    .await;
    let id = event["id"].as_str().unwrap();
    assert_eq!(event["status"], "open");
    assert_eq!(event["missing_players"], 8, "four pairs for duplicate");
    let listed = get(&app, "/v1/events", &anne).await;
    assert_eq!(listed.body["items"][0]["id"], *id);

    let answer = enter(&app, id, &anne, &bert).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["entries"][0]["complete"], false);
    assert_eq!(answer.body["entries"][0]["partner"], bert.id.as_str());
    let refused = start(&app, id, &organizer).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.code(), "entries_incomplete");
    assert_eq!(refused.body["detail"], "7 players missing");

    let answer = enter(&app, id, &bert, &anne).await;
    assert_eq!(answer.body["entries"][0]["complete"], true);
    assert_eq!(answer.body["entries"].as_array().unwrap().len(), 1);
    let refused = add_bots(&app, id, &anne, 2).await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::FORBIDDEN, "forbidden")
    );
    let answer = add_bots(&app, id, &organizer, 2).await;
    assert_eq!(answer.body["missing_players"], 2);
    let refused = start(&app, id, &organizer).await;
    assert_eq!(refused.body["detail"], "2 players missing");

    // Withdrawing takes the whole pair out; the organizer removes an entry by its id.
    let answer = delete(&app, &format!("/v1/events/{id}/entries/me"), &bert).await;
    assert_eq!(answer.body["entries"].as_array().unwrap().len(), 2);
    let bot_entry = answer.body["entries"][0]["id"].as_str().unwrap().to_owned();
    let answer = delete(
        &app,
        &format!("/v1/events/{id}/entries/{bot_entry}"),
        &organizer,
    )
    .await;
    assert_eq!(answer.body["entries"].as_array().unwrap().len(), 1);
    let answer = post(
        &app,
        &format!("/v1/events/{id}/cancel"),
        &organizer,
        json!({}),
    )
    .await;
    assert_eq!(answer.body["status"], "cancelled");
    let listed = get(&app, "/v1/events", &anne).await;
    assert_eq!(
        listed.body["items"],
        json!([]),
        "only open events are listed"
    );
}

async fn a_private_event_is_entered_by_its_invite_code_and_not_listed(db: Db) {
    let app = TestApp::spawn(db).await;
    let organizer = app.player("Organizer").await;
    let guest = app.player("Guest").await;
    let event = new_event(
        &app,
        &organizer,
        json!({"name": "Besloten", "game": "klaverjassen", "format": "individual", "rounds": 1, "private": true}),
    )
    .await;
    let code = event["invite_code"].as_str().unwrap().to_owned();
    let listed = get(&app, "/v1/events", &guest).await;
    assert_eq!(listed.body["items"], json!([]));
    let shown = get(&app, &format!("/v1/invites/{code}"), &guest).await;
    assert_eq!(shown.status, StatusCode::OK, "{}", shown.body);
    assert_eq!(shown.body["event"]["id"], event["id"]);
    assert_eq!(
        shown.body["event"]["invite_code"],
        Value::Null,
        "shown to entries only"
    );
    let entered = post(
        &app,
        &format!("/v1/invites/{}", code.to_lowercase()),
        &guest,
        json!({}),
    )
    .await;
    assert_eq!(entered.status, StatusCode::OK, "{}", entered.body);
    assert_eq!(
        entered.body["event"]["entries"][0]["players"][0]["id"],
        guest.id.as_str()
    );
    assert_eq!(entered.body["event"]["invite_code"], code.as_str());
    // A seed while open; the draw seed stays secret until the start.
    let seeded = post(
        &app,
        &format!("/v1/events/{}/seeds", event["id"].as_str().unwrap()),
        &guest,
        json!({"value": "C0FFEE"}),
    )
    .await;
    assert_eq!(seeded.body["entries"][0]["seed"], "c0ffee");
    assert_eq!(seeded.body["fairness"]["draw_seed"], Value::Null);
    let unknown = get(&app, "/v1/invites/ZZZZZZZZZZ", &guest).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

/// Runs `tools/verify_event.py` on the event and its tables as `reader`
/// sees them; panics with its output when it finds a mismatch.
async fn verify_event(app: &TestApp, id: &str, reader: &Player) {
    let event = get(app, &format!("/v1/events/{id}"), reader).await.body;
    let mut saved = json!({"event": event.clone(), "tables": {}});
    for round in event["schedule"].as_array().unwrap() {
        for table in round["tables"].as_array().unwrap() {
            let game = table["game_id"].as_str().unwrap();
            saved["tables"][game] = app.view(game, reader).await;
        }
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), saved.to_string()).unwrap();
    let checked = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tools/verify_event.py"
        ))
        .arg("--file")
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
}

async fn an_individual_duplicate_evening_is_drawn_and_dealt_as_the_verifier_repeats_it(db: Db) {
    let app = TestApp::spawn(db).await;
    let organizer = app.player("Organizer").await;
    let event = new_event(
        &app,
        &organizer,
        json!({"name": "Individueel", "game": "klaverjassen", "format": "individual", "rounds": 3,
               "deals": 1, "duplicate": true, "options": {"bot_delay_ms": 0}}),
    )
    .await;
    let id = event["id"].as_str().unwrap();
    let answer = add_bots(&app, id, &organizer, 8).await;
    assert_eq!(answer.body["missing_players"], 0);
    let started = start(&app, id, &organizer).await;
    assert_eq!(started.status, StatusCode::OK, "{}", started.body);
    assert!(started.body["fairness"]["draw_seed"].is_string());
    let mut version = started.body["version"].as_i64().unwrap();
    let mut polls = 0;
    let event = loop {
        polls += 1;
        assert!(polls < 1000, "the evening does not finish");
        let event = get(
            &app,
            &format!("/v1/events/{id}?wait_for_version={version}&timeout_s=5"),
            &organizer,
        )
        .await
        .body;
        if event["status"] == "finished" {
            break event;
        }
        version = event["version"].as_i64().unwrap();
    };
    // Nobody partners anyone twice in three rounds of eight players.
    let mut partners = std::collections::HashSet::new();
    for round in event["schedule"].as_array().unwrap() {
        for table in round["tables"].as_array().unwrap() {
            let seat = |i: usize| table["seats"][i]["entry"].as_u64().unwrap();
            for (x, y) in [(seat(0), seat(2)), (seat(1), seat(3))] {
                assert!(
                    partners.insert((x.min(y), x.max(y))),
                    "{x} and {y} partner twice"
                );
            }
        }
    }
    assert_eq!(partners.len(), 12);
    verify_event(&app, id, &organizer).await;
}

/// The person's move: deal, choose trump, play; the first legal one.
fn person_move(view: &Value) -> Option<Value> {
    let moves = moves_but_reports(view);
    let pick = |t: &str| moves.iter().find(|m| m["type"] == t).map(|m| (*m).clone());
    pick("deal")
        .or_else(|| pick("choose_trump"))
        .or_else(|| pick("play"))
        .or_else(|| pick("end_review"))
        .or_else(|| pick("pass"))
}

/// Who plays a person's seats: player id to player.
type Persons = HashMap<String, Player>;

/// Each table's finished deals, read as the persons at it see it.
fn rows(view: &Value) -> usize {
    view["klaverjassen"]["deals"].as_array().map_or(0, Vec::len)
}

async fn a_duplicate_evening_plays_itself_through_with_the_same_boards_at_every_table(db: Db) {
    let app = TestApp::spawn(db).await;
    let organizer = app.player("Organizer").await;
    let names = ["Anne", "Bert", "Cor", "Dirk"];
    let mut people = Vec::new();
    for name in names {
        people.push(app.player(name).await);
    }
    let persons: Persons = people.iter().map(|p| (p.id.clone(), p.clone())).collect();
    let event = new_event(
        &app,
        &organizer,
        json!({"name": "Portefeuille", "game": "klaverjassen", "format": "pairs", "rounds": 3,
               "deals": 2, "duplicate": true, "options": {"bot_delay_ms": 0}}),
    )
    .await;
    let id = event["id"].as_str().unwrap().to_owned();
    for (a, b) in [(0, 1), (1, 0), (2, 3), (3, 2)] {
        let answer = enter(&app, &id, &people[a], &people[b]).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
    let answer = add_bots(&app, &id, &organizer, 2).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let answer = start(&app, &id, &organizer).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["status"], "running");
    assert_eq!(answer.body["round"], 1);

    // Every round's tables, as the event names them: (game, seats' player ids).
    let mut rounds: BTreeMap<u64, Vec<(String, Vec<String>)>> = BTreeMap::new();
    let mut checked_spectators = 0;
    let mut listed_rounds = 0;
    let mut waits = 0;
    loop {
        let event = get(&app, &format!("/v1/events/{id}"), &organizer).await;
        assert_eq!(event.status, StatusCode::OK, "{}", event.body);
        let event = event.body;
        for round in event["schedule"].as_array().unwrap() {
            let tables = round["tables"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let seats = t["seats"].as_array().unwrap().iter();
                    (
                        t["game_id"].as_str().unwrap().to_owned(),
                        seats
                            .map(|s| s["player"].as_str().unwrap().to_owned())
                            .collect(),
                    )
                })
                .collect();
            rounds.insert(round["round"].as_u64().unwrap(), tables);
        }
        if event["status"] == "finished" {
            break;
        }
        assert_eq!(event["status"], "running");
        let round = event["round"].as_u64().unwrap();
        let tables = rounds[&round].clone();
        assert_eq!(tables.len(), 2);
        // A table's players see their own game in their list of games.
        for (game, seats) in tables.iter().filter(|_| listed_rounds < round) {
            for player in seats.iter().filter_map(|p| persons.get(p)) {
                let mine = get(&app, "/v1/players/me/games", player).await;
                let listed = mine.body["items"].as_array().unwrap();
                assert!(
                    listed.iter().any(|g| g["id"] == game.as_str()),
                    "{}",
                    mine.body
                );
            }
        }
        listed_rounds = round;
        let mut moved = false;
        let mut finished_deals = Vec::new();
        for (t, (game, seats)) in tables.iter().enumerate() {
            let mut deals_here = None;
            for player in seats.iter().filter_map(|p| persons.get(p)) {
                let view = app.view(game, player).await;
                deals_here = Some(rows(&view));
                if let Some(mv) = person_move(&view) {
                    let answer = app.play(game, player, mv).await;
                    assert!(
                        answer.status.is_success() || answer.status == StatusCode::CONFLICT,
                        "{}",
                        answer.body
                    );
                    moved = true;
                }
                // The other table, and its board, are closed to this player
                // while the round runs.
                let (other, _) = &tables[1 - t];
                // (Rounds 1 and 2 only: the evening cannot finish meanwhile.)
                for path in ["", "/events", "/deals/1/analysis"] {
                    if round == 3 {
                        break;
                    }
                    let watched = get(&app, &format!("/v1/games/{other}{path}"), player).await;
                    assert_eq!(
                        (watched.status, watched.code()),
                        (StatusCode::FORBIDDEN, "not_seated"),
                        "{path}"
                    );
                    checked_spectators += 1;
                }
            }
            finished_deals.push(deals_here);
        }
        // A board no table of the round has finished everywhere is not shown.
        let done_everywhere = finished_deals.iter().flatten().min().copied();
        if let Some(done) = done_everywhere
            && done < 2
            && finished_deals.iter().all(Option::is_some)
        {
            let board = get(
                &app,
                &format!("/v1/events/{id}/boards/{round}/{}", done + 1),
                &organizer,
            )
            .await;
            // The board may complete between the reads; it never shows before.
            if board.status == StatusCode::OK {
                let mut again = Vec::new();
                for (g, seats) in &tables {
                    let player = seats.iter().find_map(|p| persons.get(p)).unwrap();
                    again.push(rows(&app.view(g, player).await));
                }
                assert!(
                    again.iter().all(|n| *n > done),
                    "board shown before complete"
                );
            }
        }
        if !moved {
            // Computer players' turns, or the next round not yet begun.
            waits += 1;
            assert!(waits < 20_000, "the evening does not move on");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
    assert!(checked_spectators > 0);
    assert_eq!(rounds.len(), 3, "three rounds, each started once");

    // Each table's hands, deal by deal, from its event log.
    let mut sheets = Vec::new();
    for (round, tables) in &rounds {
        let mut boards: Vec<Vec<Value>> = vec![Vec::new(); 2];
        for (game, seats) in tables {
            let log = get(
                &app,
                &format!("/v1/games/{game}/events?limit=500"),
                &organizer,
            )
            .await;
            assert_eq!(log.status, StatusCode::OK, "{}", log.body);
            // Each deal's end reveals its hands as dealt, with its seeds.
            for logged in log.body["events"].as_array().unwrap() {
                for revealed in logged["data"]["revealed"].as_array().into_iter().flatten() {
                    let deal = revealed["deal"].as_u64().unwrap() as usize;
                    boards[deal - 1].push(revealed["hands"].clone());
                }
            }
            let view = app.view(game, &organizer).await;
            assert_eq!(view["status"], "finished");
            sheets.push((
                *round,
                seats.clone(),
                view["klaverjassen"]["deals"].clone(),
                view["klaverjassen"]["totals"].clone(),
            ));
        }
        for (deal, hands) in boards.iter().enumerate() {
            assert_eq!(hands.len(), 2, "round {round} deal {}: {hands:?}", deal + 1);
            assert_eq!(
                hands[0],
                hands[1],
                "round {round} deal {}: the same hands at both tables",
                deal + 1
            );
            let board = get(
                &app,
                &format!("/v1/events/{id}/boards/{round}/{}", deal + 1),
                &organizer,
            )
            .await;
            assert_eq!(board.status, StatusCode::OK, "{}", board.body);
            assert_eq!(board.body["hands"], hands[0]);
            assert_eq!(board.body["dealer"], (3 + deal) % 4);
        }
    }
    // tools/verify_event.py repeats every board from the revealed seeds.
    verify_event(&app, &id, &organizer).await;
    let missing = get(&app, &format!("/v1/events/{id}/boards/4/1"), &organizer).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);

    // The standings, recomputed here from the score sheets.
    let event = get(&app, &format!("/v1/events/{id}"), &organizer)
        .await
        .body;
    let entry_of: HashMap<String, u64> = event["entries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| {
            let number = e["entry"].as_u64().unwrap();
            e["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |p| (p["id"].as_str().unwrap().to_owned(), number))
        })
        .collect();
    let mut score: BTreeMap<u64, i64> = BTreeMap::new();
    let mut matchpoints: BTreeMap<u64, u64> = BTreeMap::new();
    for (round, seats, deals, totals) in &sheets {
        for (side, team) in ["A", "B"].iter().enumerate() {
            *score.entry(entry_of[&seats[side]]).or_default() += totals[team].as_i64().unwrap();
        }
        let others: Vec<_> = sheets
            .iter()
            .filter(|s| s.0 == *round && s.1 != *seats)
            .collect();
        for (d, row) in deals.as_array().unwrap().iter().enumerate() {
            for (side, team) in ["A", "B"].iter().enumerate() {
                let own = row["score"][team].as_i64().unwrap();
                for other in &others {
                    let theirs = other.2[d]["score"][team].as_i64().unwrap();
                    *matchpoints.entry(entry_of[&seats[side]]).or_default() +=
                        match own.cmp(&theirs) {
                            std::cmp::Ordering::Greater => 2,
                            std::cmp::Ordering::Equal => 1,
                            std::cmp::Ordering::Less => 0,
                        };
                }
            }
        }
    }
    let standings = get(&app, &format!("/v1/events/{id}/standings"), &organizer)
        .await
        .body;
    let lines = standings.as_array().unwrap();
    assert_eq!(lines.len(), 4);
    for line in lines {
        let entry = line["entry"].as_u64().unwrap();
        assert_eq!(line["score"], score[&entry], "{line}");
        assert_eq!(line["matchpoints"], matchpoints[&entry], "{line}");
        // 3 rounds x 2 boards x 2 for the one other table.
        assert_eq!(line["max_matchpoints"], 12);
        let percent = (matchpoints[&entry] as f64 * 10000.0 / 12.0).round() / 100.0;
        assert_eq!(line["percent"].as_f64().unwrap(), percent, "{line}");
        let better = lines
            .iter()
            .filter(|l| l["matchpoints"].as_u64() > line["matchpoints"].as_u64())
            .count();
        assert_eq!(line["rank"], better + 1, "{line}");
    }

    // The CSV holds what the JSON holds.
    let response = app
        .client
        .get(format!("{}/v1/events/{id}/standings", app.base))
        .bearer_auth(&organizer.token)
        .header("Accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = response.text().await.unwrap();
    let mut csv_lines = text.lines();
    let head: Vec<&str> = csv_lines.next().unwrap().split(',').collect();
    assert_eq!(
        head,
        [
            "rank",
            "entry",
            "players",
            "score",
            "matchpoints",
            "max_matchpoints",
            "percent",
            "round_1_score",
            "round_1_matchpoints",
            "round_2_score",
            "round_2_matchpoints",
            "round_3_score",
            "round_3_matchpoints",
        ]
    );
    for (line, csv) in lines.iter().zip(csv_lines) {
        let fields: Vec<&str> = csv.split(',').collect();
        let players: Vec<&str> = line["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let mut expected = vec![
            line["rank"].to_string(),
            line["entry"].to_string(),
            players.join(" & "),
            line["score"].to_string(),
            line["matchpoints"].to_string(),
            line["max_matchpoints"].to_string(),
            format!("{:.2}", line["percent"].as_f64().unwrap()),
        ];
        for round in line["rounds"].as_array().unwrap() {
            expected.push(round["score"].to_string());
            expected.push(round["matchpoints"].to_string());
        }
        assert_eq!(fields, expected);
    }
}
