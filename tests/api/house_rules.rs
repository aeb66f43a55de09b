//! The Klaverjassen house rules (RULES.md section 3) over HTTP: whole
//! matches under each option, the pass move and who passed, a club-mode
//! revoke judged by the table's rules, and the lobby and quick match
//! filtering on the options.

use rand::{RngExt, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_databases;
use crate::support::{Db, Player, TestApp, moves_but_reports};

/// Every house rule at its default, as a view shows the options.
fn defaults() -> Value {
    json!({"trump_obligation": "rotterdam", "undertrump": "last_resort",
        "trump_choice": "voorhand", "four_jacks": 200})
}

/// The house rules of each whole match: each option away from its default
/// alone, then all four together.
fn each_option() -> Vec<Value> {
    vec![
        json!({"trump_obligation": "amsterdam"}),
        json!({"undertrump": "required"}),
        json!({"trump_choice": "pass_round"}),
        json!({"four_jacks": 100}),
        json!({"trump_obligation": "amsterdam", "undertrump": "required",
            "trump_choice": "pass_round", "four_jacks": 100}),
    ]
}

/// `options` over the defaults.
fn with_defaults(options: &Value) -> Value {
    let mut all = defaults();
    for (name, value) in options.as_object().unwrap() {
        all[name] = value.clone();
    }
    all
}

/// Plays a random legal move (no report, no take-back) of the awaited seat
/// until the table is finished; returns every seat's final view and how
/// many passes were made. Every move is checked to be accepted, and every
/// view to show the table's options.
async fn play_out(
    app: &TestApp,
    id: &str,
    players: &[Player],
    rules: &Value,
    seed: u64,
) -> (Vec<Value>, usize) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut passes = 0;
    loop {
        let mut views = Vec::new();
        for player in players {
            let view = app.view(id, player).await;
            for (name, value) in rules.as_object().unwrap() {
                assert_eq!(view["options"][name], *value, "{name}");
            }
            views.push(view);
        }
        if views[0]["status"] == "finished" {
            return (views, passes);
        }
        let seat = views[0]["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let moves: Vec<&Value> = moves_but_reports(&views[seat]);
        assert!(
            !moves.is_empty(),
            "seat {seat} has no move: {}",
            views[seat]
        );
        // A pass is offered beside four suits: taken half the time.
        let pass = json!({"type": "pass"});
        let mv = if moves.contains(&&pass) && rng.random_range(0..2) == 0 {
            pass
        } else {
            moves[rng.random_range(0..moves.len())].clone()
        };
        if mv["type"] == "pass" {
            passes += 1;
        }
        let answer = app.play(id, &players[seat], mv.clone()).await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{mv} refused: {}",
            answer.body
        );
    }
}

async fn whole_matches_are_played_under_each_house_rule(db: Db) {
    let app = TestApp::spawn(db).await;
    for (case, rules) in each_option().into_iter().enumerate() {
        let mut options = rules.clone();
        options["deals"] = json!(2);
        options["auto_deal"] = json!(true);
        let (id, players) = app.full_table("klaverjassen", options, 4).await;
        let shown = with_defaults(&rules);
        let (views, passes) = play_out(&app, &id, &players, &shown, case as u64).await;
        let game = &views[0]["klaverjassen"];
        let deals = game["deals"].as_array().unwrap();
        assert_eq!(deals.len(), 2, "{rules}");
        for deal in deals {
            let points = deal["card_points"]["A"].as_i64().unwrap()
                + deal["card_points"]["B"].as_i64().unwrap();
            assert_eq!(points, 162, "{rules}");
        }
        let pass_round = shown["trump_choice"] == "pass_round";
        assert_eq!(passes > 0, pass_round, "{rules}: {passes} passes");
    }
}

async fn a_pass_is_a_move_every_seat_sees(db: Db) {
    let app = TestApp::spawn(db).await;
    let (id, players) = app
        .full_table(
            "klaverjassen",
            json!({"trump_choice": "pass_round", "auto_deal": true}),
            4,
        )
        .await;
    let first = app.view(&id, &players[0]).await;
    assert_eq!(
        first["awaiting"],
        json!({"seats": [0], "action": "choose_trump", "deadline": null})
    );
    assert!(
        first["legal_moves"]
            .as_array()
            .unwrap()
            .contains(&json!({"type": "pass"}))
    );
    assert_eq!(first["klaverjassen"]["passed"], json!([]));
    let answer = app.play(&id, &players[0], json!({"type": "pass"})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let answer = app.play(&id, &players[1], json!({"type": "pass"})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    for player in &players {
        let view = app.view(&id, player).await;
        assert_eq!(view["klaverjassen"]["passed"], json!([0, 1]));
        assert_eq!(view["awaiting"]["seats"], json!([2]));
    }
    let out_of_turn = app.play(&id, &players[3], json!({"type": "pass"})).await;
    assert_eq!(out_of_turn.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(out_of_turn.code(), "not_your_turn");
    let answer = app
        .play(
            &id,
            &players[2],
            json!({"type": "choose_trump", "suit": "S"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let view = &answer.body["klaverjassen"];
    assert_eq!(
        (
            &view["trump"],
            &view["trump_chosen_by"],
            &view["playing_team"]
        ),
        (&json!("S"), &json!(2), &json!("A"))
    );
    assert_eq!(view["passed"], json!([0, 1]));
    assert_eq!(
        answer.body["awaiting"]["seats"],
        json!([0]),
        "the voorhand leads whoever named trump"
    );
    // A table without a pass round refuses the pass, naming why.
    let (plain, seated) = app
        .full_table("klaverjassen", json!({"auto_deal": true}), 4)
        .await;
    let refused = app.play(&plain, &seated[0], json!({"type": "pass"})).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused.code(), "must_choose_trump");
    assert_eq!(refused.body["legal_moves"].as_array().unwrap().len(), 4);
}

/// Trump order, weakest first, then the plain order, weakest first.
const TRUMP_ORDER: [&str; 8] = ["7", "8", "Q", "K", "10", "A", "9", "J"];
const PLAIN_ORDER: [&str; 8] = ["7", "8", "9", "J", "Q", "K", "10", "A"];

fn rank(card: &str) -> &str {
    &card[..card.len() - 1]
}

fn suit(card: &str) -> &str {
    &card[card.len() - 1..]
}

/// The seat to play and a card it holds that is no trump, when that seat
/// plays third (so the trick stays open after its card), holds none of the
/// plain suit led, holds trump, and its partner's card (the lead) is
/// winning the trick: the discard Amsterdam allows and Rotterdam forbids.
fn partner_exemption(view: &Value) -> Option<(usize, String)> {
    let game = &view["klaverjassen"];
    let me = view["you"].as_u64()? as usize;
    if view["awaiting"]["seats"] != json!([me]) || game["phase"] != "playing" {
        return None;
    }
    let trump = game["trump"].as_str()?;
    let cards = game["trick"]["cards"].as_array()?;
    if cards.len() != 2 {
        return None;
    }
    let led = suit(cards.first()?["card"].as_str()?);
    if led == trump {
        return None;
    }
    let power = |card: &str| {
        if suit(card) == trump {
            100 + TRUMP_ORDER.iter().position(|r| *r == rank(card)).unwrap()
        } else if suit(card) == led {
            PLAIN_ORDER.iter().position(|r| *r == rank(card)).unwrap()
        } else {
            0
        }
    };
    let winner = cards
        .iter()
        .max_by_key(|c| power(c["card"].as_str().unwrap()))?["seat"]
        .as_u64()? as usize;
    let hand: Vec<&str> = game["hand"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let holds = |s: &str| hand.iter().any(|c| suit(c) == s);
    if winner != (me + 2) % 4 || holds(led) || !holds(trump) {
        return None;
    }
    let discard = hand.iter().find(|c| suit(c) != trump)?;
    Some((me, (*discard).to_owned()))
}

/// Plays random legal moves (no reports) until the awaited seat can make
/// the partner-exemption discard; returns it, or `None` when the match
/// ended first (the server's deals are random: it may never come).
async fn reach_the_partner_exemption(
    app: &TestApp,
    id: &str,
    players: &[Player],
    rng: &mut rand::rngs::StdRng,
) -> Option<(usize, String)> {
    loop {
        let any = app.view(id, &players[0]).await;
        if any["status"] != "playing" {
            return None;
        }
        let seat = any["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let view = app.view(id, &players[seat]).await;
        if let Some(found) = partner_exemption(&view) {
            return Some(found);
        }
        let moves: Vec<&Value> = moves_but_reports(&view);
        let mv = moves[rng.random_range(0..moves.len())].clone();
        let answer = app.play(id, &players[seat], mv).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
}

/// A discard on the partner's trick, made at a new club table.
struct Discard {
    id: String,
    players: Vec<Player>,
    /// The seat that discarded, and the next seat (an opponent).
    seat: usize,
    opponent: usize,
    /// Whether the discard was among the seat's legal moves.
    offered: bool,
    /// Score sheet rows before it.
    rows: usize,
}

/// Plays a club table with `options` until a seat can discard on its
/// partner's winning trick, and makes that discard (club mode accepts any
/// held card).
async fn discard_at(app: &TestApp, options: Value, rng: &mut rand::rngs::StdRng) -> Discard {
    let mut tables = 0;
    let (id, players, (seat, card)) = loop {
        tables += 1;
        assert!(tables <= 10, "no partner-exemption discard in 10 matches");
        let (id, players) = app.full_table("klaverjassen", options.clone(), 4).await;
        if let Some(found) = reach_the_partner_exemption(app, &id, &players, rng).await {
            break (id, players, found);
        }
    };
    let view = app.view(&id, &players[seat]).await;
    let mv = json!({"type": "play", "card": card});
    let offered = view["legal_moves"].as_array().unwrap().contains(&mv);
    let rows = view["klaverjassen"]["deals"].as_array().unwrap().len();
    let answer = app.play(&id, &players[seat], mv).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    Discard {
        id,
        players,
        seat,
        opponent: (seat + 1) % 4,
        offered,
        rows,
    }
}

/// The opponent's report of the discarding seat; the answer's body.
async fn report(app: &TestApp, discard: &Discard) -> Value {
    let answer = app
        .play(
            &discard.id,
            &discard.players[discard.opponent],
            json!({"type": "report_revoke", "seat": discard.seat}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body
}

async fn a_club_revoke_at_an_amsterdam_table_is_judged_by_amsterdam_rules(db: Db) {
    let app = TestApp::spawn(db).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(48);
    // Amsterdam: the discard on the partner's winning trick is allowed, so
    // it is offered, cannot be taken back, and a report of it is false.
    let amsterdam = discard_at(
        &app,
        json!({"revoke_mode": "club", "auto_deal": true, "trump_obligation": "amsterdam",
            "undertrump": "required"}),
        &mut rng,
    )
    .await;
    assert!(amsterdam.offered, "the discard is offered under Amsterdam");
    let Discard {
        id,
        players,
        seat,
        opponent,
        rows,
        ..
    } = &amsterdam;
    let taken_back = app
        .play(id, &players[*seat], json!({"type": "take_back"}))
        .await;
    assert_eq!(taken_back.code(), "not_a_revoke", "{}", taken_back.body);
    let body = report(&app, &amsterdam).await;
    let deals = body["klaverjassen"]["deals"].as_array().unwrap();
    assert_eq!(deals.len(), rows + 1, "the report ended the deal");
    let row = &deals[*rows];
    assert_eq!(
        row["report"],
        json!({"seat": seat, "reported_by": opponent, "valid": false})
    );
    let reporters = if opponent % 2 == 0 { "A" } else { "B" };
    assert_eq!(row["score"][reporters], 0, "the false report is punished");
    assert!(
        row["revokes"].as_array().unwrap().is_empty(),
        "no revoke: {row}"
    );

    // Rotterdam (with the same compulsory undertrumping): the same kind of
    // discard is a revoke; a report while its trick is open corrects it.
    let rotterdam = discard_at(
        &app,
        json!({"revoke_mode": "club", "auto_deal": true, "undertrump": "required"}),
        &mut rng,
    )
    .await;
    assert!(
        !rotterdam.offered,
        "the discard is not offered under Rotterdam"
    );
    let body = report(&app, &rotterdam).await;
    assert_eq!(
        body["klaverjassen"]["deals"].as_array().unwrap().len(),
        rotterdam.rows,
        "corrected, nobody punished"
    );
    assert_eq!(body["awaiting"]["seats"], json!([rotterdam.seat]));
}

/// The ids in a lobby page of `query`.
async fn lobby(app: &TestApp, player: &Player, query: &str) -> Vec<String> {
    let answer = app
        .send(
            Method::GET,
            &format!("/v1/games?{query}"),
            Some(&player.token),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{query}: {}", answer.body);
    answer.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn the_lobby_and_quick_match_filter_on_the_house_rules(db: Db) {
    let app = TestApp::spawn(db).await;
    let host = app.player("host").await;
    let plain = app.table(&host, "klaverjassen", json!({})).await;
    let amsterdam = app
        .table(
            &host,
            "klaverjassen",
            json!({"trump_obligation": "amsterdam"}),
        )
        .await;
    let all = app
        .table(
            &host,
            "klaverjassen",
            json!({"trump_obligation": "amsterdam", "undertrump": "required",
                "trump_choice": "pass_round", "four_jacks": 100}),
        )
        .await;
    let pot = app.table(&host, "potverteren", json!({})).await;
    let guest = app.player("guest").await;
    // Newest first.
    assert_eq!(
        lobby(&app, &guest, "").await,
        [&pot, &all, &amsterdam, &plain].map(String::as_str)
    );
    for (query, expected) in [
        ("trump_obligation=amsterdam", vec![&all, &amsterdam]),
        ("trump_obligation=rotterdam", vec![&plain]),
        ("undertrump=required", vec![&all]),
        ("undertrump=last_resort", vec![&amsterdam, &plain]),
        ("trump_choice=pass_round", vec![&all]),
        ("four_jacks=100", vec![&all]),
        ("four_jacks=200", vec![&amsterdam, &plain]),
        (
            "game=klaverjassen&four_jacks=200&trump_obligation=amsterdam",
            vec![&amsterdam],
        ),
        ("game=potverteren&trump_obligation=amsterdam", vec![]),
        ("trump_obligation=amsterdam&limit=1", vec![&all]),
    ] {
        let expected: Vec<&str> = expected.into_iter().map(String::as_str).collect();
        assert_eq!(lobby(&app, &guest, query).await, expected, "{query}");
    }
    let page = app
        .send(
            Method::GET,
            "/v1/games?trump_obligation=amsterdam&limit=1",
            Some(&guest.token),
            None,
        )
        .await;
    let cursor = page.body["next_cursor"].as_str().unwrap();
    assert_eq!(
        lobby(
            &app,
            &guest,
            &format!("trump_obligation=amsterdam&limit=1&cursor={cursor}")
        )
        .await,
        [amsterdam.as_str()]
    );
    for bad in [
        "four_jacks=150",
        "trump_obligation=utrecht",
        "undertrump=yes",
    ] {
        let answer = app
            .send(
                Method::GET,
                &format!("/v1/games?{bad}"),
                Some(&guest.token),
                None,
            )
            .await;
        assert!(answer.status.is_client_error(), "{bad}: {}", answer.status);
    }
    // Every view shows the full options, defaults filled in.
    let view = app.view(&plain, &host).await;
    for (name, value) in defaults().as_object().unwrap() {
        assert_eq!(view["options"][name], *value, "{name}");
    }
    // Quick match: the options asked for must match; those left out match
    // any value.
    let matched = app
        .send(
            Method::POST,
            "/v1/matchmaking",
            Some(&guest.token),
            Some(json!({"game": "klaverjassen",
                "options": {"trump_choice": "pass_round", "four_jacks": 100}})),
        )
        .await;
    assert_eq!(matched.status, StatusCode::OK, "{}", matched.body);
    assert_eq!(matched.body["id"], json!(all));
    let other = app.player("other").await;
    let created = app
        .send(
            Method::POST,
            "/v1/matchmaking",
            Some(&other.token),
            Some(json!({"game": "klaverjassen",
                "options": {"trump_obligation": "rotterdam", "undertrump": "required"}})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert_eq!(created.body["options"]["undertrump"], "required");
    assert_eq!(created.body["options"]["trump_obligation"], "rotterdam");
    let third = app.player("third").await;
    let rotterdam = app
        .send(
            Method::POST,
            "/v1/matchmaking",
            Some(&third.token),
            Some(json!({"game": "klaverjassen", "options": {"trump_obligation": "rotterdam"}})),
        )
        .await;
    assert_eq!(rotterdam.status, StatusCode::OK, "{}", rotterdam.body);
    assert_eq!(
        rotterdam.body["id"],
        json!(plain),
        "the oldest table playing Rotterdam"
    );
}

on_both_databases!(
    whole_matches_are_played_under_each_house_rule,
    a_pass_is_a_move_every_seat_sees,
    a_club_revoke_at_an_amsterdam_table_is_judged_by_amsterdam_rules,
    the_lobby_and_quick_match_filter_on_the_house_rules,
);
