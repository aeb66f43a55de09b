//! Rate limits: 429 `rate_limited` with `Retry-After`, `RateLimit` and
//! `RateLimit-Policy`, and a client served again once its window refilled.
//! The limits here are tiny so a test waits a second at most.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use kaarttafel::clock::ManualClock;
use kaarttafel::config::{Limit, RateLimits};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_databases;
use crate::support::{Answer, Db, TestApp};

fn limit(requests: u32, seconds: u64) -> Option<Limit> {
    Some(Limit {
        requests: NonZeroU32::new(requests).unwrap(),
        per: Duration::from_secs(seconds),
    })
}

async fn app_with(db: Db, limits: RateLimits) -> TestApp {
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.rate_limits = limits;
    TestApp::start(settings, dir).await
}

fn assert_limited(answer: &Answer, policy: &str, quota: u32, window: u64) {
    assert_eq!(
        answer.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        answer.body
    );
    assert_eq!(answer.code(), "rate_limited");
    let retry_after: u64 = answer.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=window).contains(&retry_after), "{retry_after}");
    assert_eq!(
        answer.headers["ratelimit-policy"],
        format!("\"{policy}\";q={quota};w={window}").as_str()
    );
    assert_eq!(
        answer.headers["ratelimit"],
        format!("\"{policy}\";r=0;t={retry_after}").as_str()
    );
}

async fn signing_up_is_limited_per_address_and_allowed_again_after_the_window(db: Db) {
    // The hand-moved clock: however slow the machine, the first three
    // sign-ups come within the window.
    let clock = Arc::new(ManualClock::new());
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.rate_limits = RateLimits {
        signups: limit(2, 1),
        ..RateLimits::off()
    };
    let app = TestApp::start_with_clock(settings, dir, Arc::clone(&clock)).await;
    app.player("one").await;
    app.player("two").await;
    let body = Some(json!({"name": "three"}));
    let refused = app
        .send(Method::POST, "/v1/players", None, body.clone())
        .await;
    assert_limited(&refused, "signups", 2, 1);
    // Other endpoints are not held back by this limit.
    let lobby = app.send(Method::GET, "/readyz", None, None).await;
    assert_eq!(lobby.status, StatusCode::OK);
    clock.advance(0.6);
    let again = app.send(Method::POST, "/v1/players", None, body).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
}

async fn failed_tokens_are_limited_per_address(db: Db) {
    let app = app_with(
        db,
        RateLimits {
            auth_failures: limit(3, 60),
            ..RateLimits::off()
        },
    )
    .await;
    for _ in 0..3 {
        let answer = app
            .send(Method::GET, "/v1/players/me", Some("forged"), None)
            .await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    // The fourth failure is counted, and from then on the address waits.
    let fourth = app
        .send(Method::GET, "/v1/players/me", Some("forged"), None)
        .await;
    assert_eq!(fourth.status, StatusCode::UNAUTHORIZED);
    let refused = app
        .send(Method::GET, "/v1/players/me", Some("forged"), None)
        .await;
    assert_limited(&refused, "auth_failures", 3, 60);
}

async fn guessing_game_ids_is_limited_per_address(db: Db) {
    let app = app_with(
        db,
        RateLimits {
            not_found: limit(2, 60),
            ..RateLimits::off()
        },
    )
    .await;
    let player = app.player("P").await;
    for _ in 0..3 {
        let id = uuid::Uuid::new_v4();
        let answer = app
            .send(
                Method::GET,
                &format!("/v1/games/{id}"),
                Some(&player.token),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND);
    }
    let refused = app
        .send(Method::GET, "/v1/games", Some(&player.token), None)
        .await;
    assert_limited(&refused, "not_found", 2, 60);
}

async fn reads_are_limited_per_player_and_a_long_poll_counts_once(db: Db) {
    let app = app_with(
        db,
        RateLimits {
            reads: limit(3, 60),
            ..RateLimits::off()
        },
    )
    .await;
    let anne = app.player("Anne").await;
    let bob = app.player("Bob").await;
    let id = app.table(&anne, "klaverjassen", json!({})).await;
    let poll = format!("/v1/games/{id}?wait_for_version=1&timeout_s=1");
    let answer = app.send(Method::GET, &poll, Some(&anne.token), None).await;
    assert_eq!(answer.status, StatusCode::OK);
    for _ in 0..2 {
        let answer = app
            .send(Method::GET, "/v1/games", Some(&anne.token), None)
            .await;
        assert_eq!(answer.status, StatusCode::OK);
    }
    let refused = app
        .send(Method::GET, "/v1/games", Some(&anne.token), None)
        .await;
    assert_limited(&refused, "reads", 3, 60);
    // Bob, from the same address, has an allowance of his own.
    let answer = app
        .send(Method::GET, "/v1/games", Some(&bob.token), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK);
}

async fn a_path_spelt_with_percent_escapes_counts_against_the_same_limits(db: Db) {
    let app = app_with(
        db,
        RateLimits {
            signups: limit(2, 60),
            writes: limit(3, 60),
            ..RateLimits::off()
        },
    )
    .await;
    let player = app.player("one").await;
    // `%76` is `v`: the router reads /v1/players, and so must the limiter.
    let body = Some(json!({"name": "two"}));
    let second = app.send(Method::POST, "/%761/players", None, body).await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.body);
    let body = Some(json!({"name": "three"}));
    let refused = app.send(Method::POST, "/%761/pl%61yers", None, body).await;
    assert_limited(&refused, "signups", 2, 60);
    let create = || Some(json!({"game": "klaverjassen"}));
    for path in ["/v1/games", "/%761/games", "/v1/g%61mes"] {
        let answer = app
            .send(Method::POST, path, Some(&player.token), create())
            .await;
        assert_eq!(
            answer.status,
            StatusCode::CREATED,
            "{path}: {}",
            answer.body
        );
    }
    let refused = app
        .send(Method::POST, "/%761/games", Some(&player.token), create())
        .await;
    assert_limited(&refused, "writes", 3, 60);
}

async fn hints_and_analyses_are_limited_per_player_on_top_of_reads(db: Db) {
    let app = app_with(
        db,
        RateLimits {
            solver: limit(2, 60),
            ..RateLimits::off()
        },
    )
    .await;
    let player = app.player("one").await;
    let other = app.player("two").await;
    let id = app
        .table(&player, "klaverjassen", json!({"hints": true}))
        .await;
    for path in [
        format!("/v1/games/{id}/hint"),
        format!("/v1/games/{id}/deals/1/analysis"),
    ] {
        let answer = app
            .send(Method::GET, &path, Some(&player.token), None)
            .await;
        assert_ne!(answer.status, StatusCode::TOO_MANY_REQUESTS, "{path}");
    }
    let refused = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/hint"),
            Some(&player.token),
            None,
        )
        .await;
    assert_limited(&refused, "solver", 2, 60);
    // Other reads, and other players' hints, are not held back by it.
    let view = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}"),
            Some(&player.token),
            None,
        )
        .await;
    assert_eq!(view.status, StatusCode::OK);
    let theirs = app
        .send(
            Method::GET,
            &format!("/v1/games/{id}/hint"),
            Some(&other.token),
            None,
        )
        .await;
    assert_ne!(theirs.status, StatusCode::TOO_MANY_REQUESTS);
}

/// The default sign-up limit lets a steady stream of guests from one
/// address through (a club's Wi-Fi: 30 in ten minutes), and still refuses
/// a burst (2,000 at once meet 429s). Time is the hand-moved clock: the
/// ten minutes take none.
async fn thirty_sign_ups_spread_over_ten_minutes_pass_while_a_burst_of_two_thousand_meets_429s(
    db: Db,
) {
    let clock = Arc::new(ManualClock::new());
    let (database, dir) = crate::support::fresh_database(db).await;
    let mut settings = crate::support::settings(database);
    settings.rate_limits = RateLimits {
        signups: RateLimits::defaults().signups,
        ..RateLimits::off()
    };
    let app = TestApp::start_with_clock(settings, dir, Arc::clone(&clock)).await;
    let sign_up = |name: String| {
        app.send(
            Method::POST,
            "/v1/players",
            None,
            Some(json!({"name": name})),
        )
    };
    for i in 0..30 {
        let answer = sign_up(format!("guest {i}")).await;
        assert_eq!(
            answer.status,
            StatusCode::CREATED,
            "guest {i}: {}",
            answer.body
        );
        clock.advance(20.0);
    }
    let burst: Vec<StatusCode> = futures_util::stream::iter(0..2000)
        .map(|i| sign_up(format!("bot {i}")))
        .buffer_unordered(64)
        .map(|answer| answer.status)
        .collect()
        .await;
    let created = burst.iter().filter(|s| **s == StatusCode::CREATED).count();
    let refused = burst
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(created + refused, 2000);
    assert!(created <= 60, "{created} of the burst got through");
    // The burst took the allowance; the steady stream goes on.
    clock.advance(20.0);
    let next = sign_up("late guest".into()).await;
    assert_eq!(next.status, StatusCode::CREATED, "{}", next.body);
}

on_both_databases!(
    signing_up_is_limited_per_address_and_allowed_again_after_the_window,
    hints_and_analyses_are_limited_per_player_on_top_of_reads,
    a_path_spelt_with_percent_escapes_counts_against_the_same_limits,
    failed_tokens_are_limited_per_address,
    guessing_game_ids_is_limited_per_address,
    reads_are_limited_per_player_and_a_long_poll_counts_once,
    thirty_sign_ups_spread_over_ten_minutes_pass_while_a_burst_of_two_thousand_meets_429s,
);
