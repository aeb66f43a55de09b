//! Klaverjassen over HTTP: a whole match, and club-mode revokes.

use rand::{RngExt, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, TestApp, cards_outside, moves_but_reports};

/// Every seat's view now, checked: no view holds a card of another seat's
/// hand (the score sheet of finished deals is public and skipped).
async fn views_checked(app: &TestApp, id: &str, players: &[Player]) -> Vec<Value> {
    let mut views = Vec::new();
    for player in players {
        views.push(app.view(id, player).await);
    }
    assert_no_hidden_cards(&views, &views);
    views
}

/// No body in `bodies[seat]` shows a card of another seat's hand in `views`.
fn assert_no_hidden_cards(views: &[Value], bodies: &[Value]) {
    for (seat, body) in bodies.iter().enumerate() {
        let seen = cards_outside(body, &["/klaverjassen/deals"]);
        for (other, view) in views.iter().enumerate() {
            if other == seat {
                continue;
            }
            for card in view["klaverjassen"]["hand"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let card = card.as_str().unwrap();
                assert!(
                    !seen.contains(card),
                    "seat {seat} sees {card} of seat {other}: {body}"
                );
            }
        }
    }
}

/// Plays until the match is finished, always a random legal move of the
/// seat the table waits for (no revoke reports). Returns the final views.
async fn play_out(app: &TestApp, id: &str, players: &[Player], seed: u64) -> Vec<Value> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    loop {
        let views = views_checked(app, id, players).await;
        if views[0]["status"] == "finished" {
            return views;
        }
        let version = views[0]["version"].as_i64().unwrap();
        let seat = views[0]["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let moves: Vec<&Value> = moves_but_reports(&views[seat]);
        assert!(
            !moves.is_empty(),
            "seat {seat} has no move: {}",
            views[seat]
        );
        let mv = moves[rng.random_range(0..moves.len())].clone();
        let answer = app
            .send(
                Method::POST,
                &format!("/v1/games/{id}/moves"),
                Some(&players[seat].token),
                Some(json!({"move": mv, "expected_version": version})),
            )
            .await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{mv} refused: {}",
            answer.body
        );
        assert_eq!(
            answer.body["version"],
            version + 1,
            "each move adds exactly 1"
        );
        assert_eq!(answer.body["you"], seat);
        let after = views_checked(app, id, players).await;
        let mut bodies = after.clone();
        bodies[seat] = answer.body;
        assert_no_hidden_cards(&after, &bodies);
    }
}

async fn a_complete_sixteen_deal_match_is_played_over_http(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app.full_table("klaverjassen", json!({}), 4).await;
    let views = play_out(&app, &id, &players, 16).await;
    let game = &views[0]["klaverjassen"];
    let deals = game["deals"].as_array().unwrap();
    assert_eq!(deals.len(), 16);
    let mut totals = (0, 0);
    for (i, deal) in deals.iter().enumerate() {
        assert_eq!(deal["number"], i + 1);
        assert_eq!(
            deal["dealer"],
            (3 + i) % 4,
            "the dealer moves on each deal, starting at seat 3"
        );
        let points =
            deal["card_points"]["A"].as_i64().unwrap() + deal["card_points"]["B"].as_i64().unwrap();
        assert_eq!(points, 162);
        totals.0 += deal["score"]["A"].as_i64().unwrap();
        totals.1 += deal["score"]["B"].as_i64().unwrap();
    }
    assert_eq!(game["totals"], json!({"A": totals.0, "B": totals.1}));
    assert_eq!(views[0]["status"], "finished");
    assert_eq!(views[0]["awaiting"], Value::Null);
    for view in &views {
        assert_eq!(view["legal_moves"], json!([]));
    }
    let mut events = Vec::new();
    loop {
        let after = events.len();
        let page = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events?after={after}&limit=500"),
                Some(&players[1].token),
                None,
            )
            .await;
        let page = page.body["events"].as_array().unwrap().clone();
        if page.is_empty() {
            break;
        }
        events.extend(page);
    }
    assert_eq!(events.len() as i64, views[0]["version"].as_i64().unwrap());
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["seq"], i + 1, "the log has no gaps");
    }
    let deal_events: Vec<&Value> = events.iter().filter(|e| e["kind"] == "deal").collect();
    assert_eq!(deal_events.len(), 16);
    assert!(
        deal_events.iter().all(|e| e["data"]["hands"].is_array()),
        "hands are public once a deal is over"
    );
    // Each player's list of games shows the finished match as its own
    // view does: the page's one statement reads seats and sheet rows too.
    for player in &players {
        let mine = app
            .send(
                Method::GET,
                "/v1/players/me/games",
                Some(&player.token),
                None,
            )
            .await;
        let items = mine.body["items"].as_array().unwrap();
        assert_eq!(items.len(), 1, "{}", mine.body);
        for field in ["id", "status", "version", "options", "host", "seats"] {
            assert_eq!(items[0][field], views[0][field], "{field}");
        }
    }
}

async fn a_deal_in_progress_shows_its_hands_in_no_event(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"first_dealer": 3}), 4)
        .await;
    let answer = app
        .send(
            Method::POST,
            &format!("/v1/games/{id}/deal"),
            Some(&players[3].token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let own_hand = answer.body["klaverjassen"]["hand"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(own_hand, 8);
    for player in &players {
        let events = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}/events"),
                Some(&player.token),
                None,
            )
            .await;
        let deal = events.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["kind"] == "deal")
            .unwrap()
            .clone();
        assert_eq!(
            deal["data"],
            json!({"type": "deal", "seat": 3, "deal_number": 1})
        );
    }
}

/// Finds, for the seat to play, a held card that is not allowed (a revoke),
/// playing legal cards until one exists, with the trick still open after it
/// when `keep_open`. Returns (seat, card).
async fn reach_a_possible_revoke(
    app: &TestApp,
    id: &str,
    players: &[Player],
    keep_open: bool,
) -> (usize, String) {
    loop {
        let views = views_checked(app, id, players).await;
        let game = &views[0]["klaverjassen"];
        let seat = views[0]["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let action = views[0]["awaiting"]["action"].as_str().unwrap();
        let legal: Vec<Value> = views[seat]["legal_moves"].as_array().unwrap().clone();
        let room = !keep_open
            || game["trick"]["cards"]
                .as_array()
                .is_some_and(|c| c.len() < 3);
        if action == "play" && room {
            let hand = views[seat]["klaverjassen"]["hand"].as_array().unwrap();
            let allowed: Vec<&Value> = legal
                .iter()
                .filter(|m| m["type"] == "play")
                .map(|m| &m["card"])
                .collect();
            if let Some(card) = hand.iter().find(|c| !allowed.contains(c)) {
                return (seat, card.as_str().unwrap().to_owned());
            }
        }
        assert!(
            game["deal_number"].as_u64().unwrap() < 16,
            "no revoke possible in a whole match"
        );
        let mv = legal
            .iter()
            .find(|m| !matches!(m["type"].as_str(), Some("report_revoke" | "take_back")))
            .unwrap()
            .clone();
        let answer = app.play(id, &players[seat], mv).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
}

/// How many rows the score sheet has: a revoke may be reached in a later deal than the first.
async fn sheet_rows(app: &TestApp, id: &str, player: &Player) -> usize {
    let view = app.view(id, player).await;
    view["klaverjassen"]["deals"].as_array().unwrap().len()
}

async fn club_revoke_taken_back_while_the_trick_is_open_is_corrected(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"revoke_mode": "club", "auto_deal": true}),
            4,
        )
        .await;
    let (seat, card) = reach_a_possible_revoke(&app, &id, &players, true).await;
    let answer = app
        .play(&id, &players[seat], json!({"type": "play", "card": card}))
        .await;
    assert_eq!(
        answer.status,
        StatusCode::OK,
        "club mode accepts any held card: {}",
        answer.body
    );
    let answer = app
        .play(&id, &players[seat], json!({"type": "take_back"}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let hand = answer.body["klaverjassen"]["hand"].as_array().unwrap();
    assert!(
        hand.contains(&json!(card)),
        "the revoked card is back in the hand"
    );
    assert_eq!(
        answer.body["awaiting"]["seats"],
        json!([seat]),
        "play resumes with the revoking seat"
    );
    let again = app
        .play(&id, &players[seat], json!({"type": "play", "card": card}))
        .await;
    assert_eq!(
        again.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "the replacement card is checked as in enforced mode"
    );
    let allowed = again.body["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "play")
        .unwrap()
        .clone();
    assert_eq!(
        app.play(&id, &players[seat], allowed).await.status,
        StatusCode::OK
    );
    // A second revoke, reported by an opponent while its trick is open: corrected.
    let (seat, card) = reach_a_possible_revoke(&app, &id, &players, true).await;
    let rows = sheet_rows(&app, &id, &players[0]).await;
    let answer = app
        .play(&id, &players[seat], json!({"type": "play", "card": card}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let opponent = (seat + 1) % 4;
    let answer = app
        .play(
            &id,
            &players[opponent],
            json!({"type": "report_revoke", "seat": seat}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let version = answer.body["version"].as_i64().unwrap();
    let events = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/events?after={}", version - 1),
            Some(&players[opponent].token),
            None,
        )
        .await;
    let event = &events.body["events"][0];
    assert_eq!(
        (&event["seat"], &event["data"]["type"]),
        (&json!(opponent), &json!("report_revoke"))
    );
    assert_eq!(
        (&event["data"]["seat"], &event["data"]["reported_seat"]),
        (&json!(opponent), &json!(seat)),
        "the event keeps who reported and whom: {event}"
    );
    let view = &answer.body["klaverjassen"];
    assert_eq!(
        view["deals"].as_array().unwrap().len(),
        rows,
        "a report on the open trick corrects, no punishment"
    );
    assert!(
        view["trick"]["cards"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["seat"] != seat)
    );
    assert_eq!(
        answer.body["awaiting"]["seats"],
        json!([seat]),
        "play resumes with the revoking seat"
    );
    let own = app.view(&id, &players[seat]).await;
    assert!(
        own["klaverjassen"]["hand"]
            .as_array()
            .unwrap()
            .contains(&json!(card))
    );
}

async fn two_partners_reporting_one_open_revoke_at_once_correct_it_once_and_punish_nobody(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"revoke_mode": "club", "auto_deal": true}),
            4,
        )
        .await;
    let (seat, card) = reach_a_possible_revoke(&app, &id, &players, true).await;
    let rows = sheet_rows(&app, &id, &players[0]).await;
    let answer = app
        .play(&id, &players[seat], json!({"type": "play", "card": card}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let version = answer.body["version"].as_i64().unwrap();
    let report = json!({"type": "report_revoke", "seat": seat});
    let (first, second) = tokio::join!(
        app.play(&id, &players[(seat + 1) % 4], report.clone()),
        app.play(&id, &players[(seat + 3) % 4], report.clone()),
    );
    let mut statuses = [first.status, second.status];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CONFLICT],
        "{} / {}",
        first.body,
        second.body
    );
    let refused = if first.status == StatusCode::CONFLICT {
        &first
    } else {
        &second
    };
    assert_eq!(
        refused.body["code"], "already_corrected",
        "{}",
        refused.body
    );
    assert_eq!(refused.headers["content-type"], "application/problem+json");
    let view = app.view(&id, &players[seat]).await;
    assert_eq!(view["version"], version + 1, "exactly one change");
    assert_eq!(
        view["klaverjassen"]["deals"].as_array().unwrap().len(),
        rows,
        "nobody is punished"
    );
    assert!(
        view["klaverjassen"]["hand"]
            .as_array()
            .unwrap()
            .contains(&json!(card)),
        "the revoke was corrected"
    );
    assert_eq!(view["awaiting"]["seats"], json!([seat]));
}

async fn club_revoke_reported_in_the_review_punishes_the_revoking_team(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"revoke_mode": "club", "auto_deal": true}),
            4,
        )
        .await;
    let (seat, card) = reach_a_possible_revoke(&app, &id, &players, false).await;
    let rows = sheet_rows(&app, &id, &players[0]).await;
    let answer = app
        .play(&id, &players[seat], json!({"type": "play", "card": card}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // Play the deal out without reports until the review.
    loop {
        let view = app.view(&id, &players[0]).await;
        if view["klaverjassen"]["phase"] == "review" {
            break;
        }
        let to_play = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let own = app.view(&id, &players[to_play]).await;
        let mv = own["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["type"] == "play")
            .unwrap()
            .clone();
        assert_eq!(
            app.play(&id, &players[to_play], mv).await.status,
            StatusCode::OK
        );
    }
    let view = app.view(&id, &players[0]).await;
    assert_eq!(
        view["klaverjassen"]["review_tricks"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
    let reporter = (seat + 1) % 4;
    let answer = app
        .play(
            &id,
            &players[reporter],
            json!({"type": "report_revoke", "seat": seat}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let sheet = answer.body["klaverjassen"]["deals"].as_array().unwrap();
    assert_eq!(sheet.len(), rows + 1, "the punished deal is scored");
    let row = &sheet[rows];
    let punished = if seat.is_multiple_of(2) { "A" } else { "B" };
    let other = if punished == "A" { "B" } else { "A" };
    assert_eq!(row["score"][punished], 0);
    let all_roem = row["roem"]["A"].as_i64().unwrap() + row["roem"]["B"].as_i64().unwrap();
    assert_eq!(row["score"][other], 262 + all_roem);
    assert_eq!(
        row["report"],
        json!({"seat": seat, "reported_by": reporter, "valid": true})
    );
    assert!(
        row["revokes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["seat"] == seat && r["corrected"] == false)
    );
}

async fn a_false_report_punishes_the_reporting_team(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"revoke_mode": "club", "auto_deal": true}),
            4,
        )
        .await;
    let view = app.view(&id, &players[0]).await;
    let chooser = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
    let answer = app
        .play(
            &id,
            &players[chooser],
            json!({"type": "choose_trump", "suit": "H"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let reporter = (chooser + 1) % 4;
    let answer = app
        .play(
            &id,
            &players[reporter],
            json!({"type": "report_revoke", "seat": chooser}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let row = &answer.body["klaverjassen"]["deals"][0];
    let punished = if reporter.is_multiple_of(2) { "A" } else { "B" };
    let other = if punished == "A" { "B" } else { "A" };
    assert_eq!(row["score"][punished], 0);
    assert_eq!(row["score"][other], 262);
    assert_eq!(
        row["report"],
        json!({"seat": chooser, "reported_by": reporter, "valid": false})
    );
}

async fn an_enforced_table_refuses_a_revoke_naming_the_rule(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let (seat, card) = reach_a_possible_revoke(&app, &id, &players, false).await;
    let before = app.view(&id, &players[seat]).await;
    let answer = app
        .play(&id, &players[seat], json!({"type": "play", "card": card}))
        .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        [
            "must_follow_suit",
            "must_trump",
            "must_overtrump",
            "must_not_undertrump"
        ]
        .contains(&answer.code()),
        "{}",
        answer.body
    );
    assert_eq!(answer.body["legal_moves"], before["legal_moves"]);
    assert_eq!(answer.headers["content-type"], "application/problem+json");
    assert_eq!(
        app.view(&id, &players[seat]).await,
        before,
        "nothing changed"
    );
}

on_both_databases!(
    a_complete_sixteen_deal_match_is_played_over_http,
    a_deal_in_progress_shows_its_hands_in_no_event,
    club_revoke_taken_back_while_the_trick_is_open_is_corrected,
    two_partners_reporting_one_open_revoke_at_once_correct_it_once_and_punish_nobody,
    club_revoke_reported_in_the_review_punishes_the_revoking_team,
    a_false_report_punishes_the_reporting_team,
    an_enforced_table_refuses_a_revoke_naming_the_rule,
);
