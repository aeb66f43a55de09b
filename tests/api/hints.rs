//! Hints and deal analysis (docs/api.md, "Hints and analysis"): a seated
//! player's hint on a table with hints, the refusals around it, and the
//! exact analysis of a finished Klaverjassen deal, which starts at par and,
//! card by card, ends at the score sheet's result.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Answer, Db, Player, TestApp};

async fn hint(app: &TestApp, id: &str, player: &Player) -> Answer {
    app.send(
        Method::GET,
        &format!("/v1/games/{id}/hint"),
        Some(&player.token),
        None,
    )
    .await
}

async fn analysis(app: &TestApp, id: &str, deal: u32, player: &Player) -> Answer {
    app.send(
        Method::GET,
        &format!("/v1/games/{id}/deals/{deal}/analysis"),
        Some(&player.token),
        None,
    )
    .await
}

/// The seat the table waits for.
fn awaited(view: &Value) -> usize {
    view["awaiting"]["seats"][0].as_u64().unwrap() as usize
}

/// The first turn move of a view's legal moves.
fn first_move(view: &Value) -> Value {
    let moves = view["legal_moves"].as_array().unwrap();
    ["deal", "choose_trump", "play", "end_review"]
        .iter()
        .find_map(|t| moves.iter().find(|m| m["type"] == *t).cloned())
        .expect("a turn move")
}

/// Checks a hint against the caller's legal moves: its move is one of them,
/// and every legal move (reports aside) is listed once.
fn assert_hint_fits(hint: &Value, view: &Value) {
    let legal = view["legal_moves"].as_array().unwrap();
    assert!(legal.contains(&hint["move"]), "{hint} not in {view}");
    let listed: Vec<&Value> = hint["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["move"])
        .collect();
    for mv in legal {
        if mv["type"] != "report_revoke" && mv["type"] != "take_back" && mv["type"] != "end_table" {
            assert!(listed.contains(&mv), "{mv} missing from {hint}");
        }
    }
    assert_eq!(hint["version"], view["version"]);
}

async fn klaverjassen_hints_and_analysis_over_a_whole_deal(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"deals": 1, "hints": true}), 4)
        .await;
    let outsider = app.player("Olga").await;
    let mut view = app.view(&id, &players[0]).await;
    // Before the deal is over there is no analysis; nor is there a deal 2.
    assert_eq!(
        analysis(&app, &id, 1, &players[0]).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        analysis(&app, &id, 1, &players[0]).await.code(),
        "not_found"
    );
    // Not seated: no hint.
    let answer = hint(&app, &id, &outsider).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    assert_eq!(answer.code(), "not_seated");
    let mut hinted = 0;
    let mut played_cards = 0;
    while view["status"] == "playing" {
        let seat = awaited(&view);
        let me = &players[seat];
        view = app.view(&id, me).await;
        // Hints where the solver is quick in a debug build: the last two
        // tricks (and the dealer's deal).
        if played_cards >= 24 || view["klaverjassen"]["phase"] == "dealing" {
            let answer = hint(&app, &id, me).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            assert_hint_fits(&answer.body, &view);
            let other = &players[(seat + 1) % 4];
            let answer = hint(&app, &id, other).await;
            assert_eq!(answer.status, StatusCode::CONFLICT, "{}", answer.body);
            assert_eq!(answer.code(), "not_your_turn");
            hinted += 1;
        }
        let mv = first_move(&view);
        played_cards += usize::from(mv["type"] == "play");
        let answer = app.play(&id, me, mv).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        view = answer.body;
    }
    assert!(hinted >= 8, "hints asked: {hinted}; {view}");
    assert_eq!(view["status"], "finished");
    // The game is over: nothing to decide.
    let answer = hint(&app, &id, &players[0]).await;
    assert_eq!(answer.status, StatusCode::CONFLICT, "{}", answer.body);
    assert_eq!(answer.code(), "not_your_turn");
    // The analysis, open to anyone who may see the game once the deal is over.
    let answer = analysis(&app, &id, 1, &outsider).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let body = answer.body;
    let row = &view["klaverjassen"]["deals"][0];
    let result = row["score"]["A"].as_i64().unwrap() - row["score"]["B"].as_i64().unwrap();
    let cards = body["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 32);
    let mut value = body["par"].as_i64().unwrap();
    let mut played = Vec::new();
    for card in cards {
        assert_eq!(card["value_before"].as_i64().unwrap(), value, "{card}");
        let lost = card["lost"].as_i64().unwrap();
        assert!(lost >= 0, "{card}");
        value = if card["seat"].as_u64().unwrap() % 2 == 0 {
            value - lost
        } else {
            value + lost
        };
        assert_eq!(card["value_after"].as_i64().unwrap(), value, "{card}");
        played.push((card["seat"].clone(), card["card"].clone()));
    }
    assert_eq!(value, result, "par and the losses end at the score sheet");
    assert_eq!(body["result"].as_i64().unwrap(), result);
    // The cards are the deal's cards, in play order.
    let recorded: Vec<(Value, Value)> = row["tricks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["cards"].as_array().unwrap().clone())
        .map(|c| (c["seat"].clone(), c["card"].clone()))
        .collect();
    assert_eq!(played, recorded);
    assert_eq!(
        analysis(&app, &id, 2, &players[0]).await.status,
        StatusCode::NOT_FOUND
    );
}

async fn no_hint_on_a_table_without_hints(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app.full_table("klaverjassen", json!({}), 4).await;
    let answer = hint(&app, &id, &players[3]).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    assert_eq!(answer.code(), "hints_disabled");
    let (id, players) = app.full_table("potverteren", json!({}), 5).await;
    let answer = hint(&app, &id, &players[0]).await;
    assert_eq!(answer.code(), "hints_disabled");
}

async fn potverteren_hint_weighs_each_choice_in_chips(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("potverteren", json!({"hints": true}), 5)
        .await;
    let outsider = app.player("Olga").await;
    assert_eq!(hint(&app, &id, &outsider).await.code(), "not_seated");
    // Potverteren has no deal analysis.
    assert_eq!(
        analysis(&app, &id, 1, &players[0]).await.status,
        StatusCode::NOT_FOUND
    );
    // Seat 0 opens the auction: bid or pass, each valued.
    let view = app.view(&id, &players[0]).await;
    let answer = hint(&app, &id, &players[0]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_hint_fits(&answer.body, &view);
    for listed in answer.body["moves"].as_array().unwrap() {
        assert!(listed["value"].is_number(), "{listed}");
    }
    assert_eq!(hint(&app, &id, &players[1]).await.code(), "not_your_turn");
    // Seat 0 bids, the others pass; seat 0 deals; seat 1 asks or stands.
    let answer = app
        .play(&id, &players[0], json!({"type": "bid", "amount": 1}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    for player in &players[1..] {
        let answer = app.play(&id, player, json!({"type": "pass"})).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
    let answer = app.play(&id, &players[0], json!({"type": "deal"})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let view = app.view(&id, &players[1]).await;
    let answer = hint(&app, &id, &players[1]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_hint_fits(&answer.body, &view);
    let chosen = &answer.body["move"];
    assert!(
        chosen["type"] == "hit" || chosen["type"] == "stand",
        "{chosen}"
    );
    // The same view, asked again, gets the same hint.
    assert_eq!(hint(&app, &id, &players[1]).await.body, answer.body);
}

async fn klaverjassen_hint_at_the_trump_choice_values_every_suit(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table("klaverjassen", json!({"deals": 1, "hints": true}), 4)
        .await;
    let view = app.view(&id, &players[0]).await;
    let dealer = &players[awaited(&view)];
    let answer = app.play(&id, dealer, json!({"type": "deal"})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let chooser = &players[awaited(&answer.body)];
    let view = app.view(&id, chooser).await;
    assert_eq!(view["klaverjassen"]["phase"], "choosing_trump", "{view}");
    let answer = hint(&app, &id, chooser).await;
    assert_eq!(
        trump_choices_valued(&answer, &view),
        ["C", "D", "H", "S"],
        "{}",
        answer.body
    );
}

/// The moves of a hint at the trump choice, each suit by its letter and
/// the pass as `pass`, sorted, once it is checked that the hint fits the
/// view, that every move listed has a numeric value, and that the move
/// advised is valued best.
fn trump_choices_valued(answer: &Answer, view: &Value) -> Vec<String> {
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(view["klaverjassen"]["phase"], "choosing_trump", "{view}");
    assert_hint_fits(&answer.body, view);
    let moves = answer.body["moves"].as_array().unwrap();
    let mut choices: Vec<String> = moves
        .iter()
        .map(|listed| {
            assert!(listed["value"].is_number(), "{listed}");
            let mv = &listed["move"];
            match mv["type"].as_str().unwrap() {
                "choose_trump" => mv["suit"].as_str().unwrap().to_owned(),
                "pass" => "pass".to_owned(),
                other => panic!("{other} at the trump choice: {listed}"),
            }
        })
        .collect();
    choices.sort_unstable();
    // The move advised is valued best.
    let value = |listed: &Value| listed["value"].as_f64().unwrap();
    let best = moves.iter().map(value).fold(f64::NEG_INFINITY, f64::max);
    let advised = moves
        .iter()
        .find(|listed| listed["move"] == answer.body["move"])
        .unwrap();
    assert_eq!(value(advised), best, "{}", answer.body);
    choices
}

/// Under `trump_choice: pass_round` the hint at the trump choice values
/// every suit and the pass (docs/solver.md, "The trump choice"): for the
/// voorhand, who decides first, and for the next seat once it passed.
async fn klaverjassen_hint_under_pass_round_values_every_suit_and_the_pass(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"deals": 1, "hints": true, "trump_choice": "pass_round", "auto_deal": true}),
            4,
        )
        .await;
    let first = awaited(&app.view(&id, &players[0]).await);
    // The voorhand decides first, then passes: the next seat decides.
    for seat in [first, (first + 1) % 4] {
        let view = app.view(&id, &players[seat]).await;
        assert_eq!(awaited(&view), seat, "{view}");
        let answer = hint(&app, &id, &players[seat]).await;
        assert_eq!(
            trump_choices_valued(&answer, &view),
            ["C", "D", "H", "S", "pass"],
            "{}",
            answer.body
        );
        let answer = app.play(&id, &players[seat], json!({"type": "pass"})).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
}

on_both_databases!(
    klaverjassen_hints_and_analysis_over_a_whole_deal,
    klaverjassen_hint_at_the_trump_choice_values_every_suit,
    klaverjassen_hint_under_pass_round_values_every_suit_and_the_pass,
    no_hint_on_a_table_without_hints,
    potverteren_hint_weighs_each_choice_in_chips,
);
