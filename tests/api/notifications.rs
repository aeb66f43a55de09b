//! Notifications when the app is closed (API.md "Notifications"): a local
//! receiver stands in for an app backend's webhook and for a browser's push
//! service; the tests check what arrives, when nothing may, and that a
//! webhook's signature and a push message's encryption and VAPID token are
//! what the specifications say.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{KeyInit, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::on_both_databases;
use crate::support::{Db, Player, StreamViews, TestApp, fresh_database, settings};

on_both_databases!(
    a_player_alone_with_three_computer_players_gets_one_your_turn_per_turn,
    no_your_turn_is_sent_while_the_player_holds_a_stream,
    a_clock_low_comes_before_the_clock_runs_out,
    a_web_push_message_decrypts_with_the_subscriptions_key_and_its_vapid_token_verifies,
    a_failed_delivery_is_tried_again_with_the_same_id_and_a_410_unsubscribes,
    a_push_service_answering_429_is_tried_again_not_before_its_retry_after,
    subscriptions_are_listed_without_secrets_deleted_and_at_most_ten,
    urls_a_delivery_may_not_reach_are_refused_at_registration,
    a_club_evening_tells_its_players_of_each_round_and_of_its_end,
    the_seated_are_told_the_game_started_and_finished_but_not_who_caused_it,
    a_persons_move_tells_the_next_person_once_that_it_is_their_turn,
);

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    /// When the whole request had arrived.
    pub at: Instant,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

/// A status to answer with, and its `Retry-After` in seconds if any.
type Reply = (u16, Option<u64>);

/// A local HTTP server that records every request and answers with the
/// status it is set to (204 at first), after the answers it was told to
/// give first.
#[derive(Clone)]
pub struct Receiver {
    pub base: String,
    received: Arc<Mutex<Vec<Received>>>,
    attempts: Arc<Mutex<Vec<(u16, Received)>>>,
    status: Arc<AtomicU16>,
    /// The answers to the next requests.
    first: Arc<Mutex<VecDeque<Reply>>>,
    /// How long each answer takes to be sent after its request arrived.
    slowness: Arc<Mutex<Duration>>,
    arrived: Arc<tokio::sync::Notify>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let receiver = Receiver {
            base: format!("http://{}", listener.local_addr().unwrap()),
            received: Arc::default(),
            attempts: Arc::default(),
            status: Arc::new(AtomicU16::new(204)),
            first: Arc::default(),
            slowness: Arc::default(),
            arrived: Arc::default(),
        };
        let serving = receiver.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let serving = serving.clone();
                tokio::spawn(async move { serving.answer(socket).await });
            }
        });
        receiver
    }

    async fn answer(&self, mut socket: tokio::net::TcpStream) {
        let mut buffer = Vec::new();
        let mut chunk = [0u8; 4096];
        let head_end = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        let mut lines = head.split("\r\n");
        let path = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .unwrap_or_default()
            .to_owned();
        let headers: HashMap<String, String> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        while buffer.len() < head_end + length {
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let at = Instant::now();
        let (status, retry_after) = self
            .first
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or((self.status.load(Ordering::SeqCst), None));
        let retry_after = retry_after
            .map(|seconds| format!("retry-after: {seconds}\r\n"))
            .unwrap_or_default();
        let reply = format!(
            "HTTP/1.1 {status} X\r\n{retry_after}content-length: 0\r\nconnection: close\r\n\r\n"
        );
        let slowness = *self.slowness.lock().unwrap();
        tokio::time::sleep(slowness).await;
        if socket.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
        let _ = socket.shutdown().await;
        let received = Received {
            path,
            headers,
            body: buffer[head_end..head_end + length].to_vec(),
            at,
        };
        self.attempts
            .lock()
            .unwrap()
            .push((status, received.clone()));
        if (200..300).contains(&status) {
            self.received.lock().unwrap().push(received);
            self.arrived.notify_waiters();
        }
    }

    /// Answers every request with `status` from now on (only 2xx answers
    /// are recorded).
    pub fn answer_with(&self, status: u16) {
        self.status.store(status, Ordering::SeqCst);
    }

    /// Answers the next requests with these statuses, in turn, each with a
    /// `Retry-After` of its seconds when given; the status set by
    /// [`Receiver::answer_with`] after them.
    pub fn answer_first(&self, answers: &[Reply]) {
        self.first.lock().unwrap().extend(answers);
    }

    /// Sends each answer `slowness` after its request arrived.
    pub fn answer_slowly(&self, slowness: Duration) {
        *self.slowness.lock().unwrap() = slowness;
    }

    /// Every request so far, with the status it was answered.
    pub fn attempts(&self) -> Vec<(u16, Received)> {
        self.attempts.lock().unwrap().clone()
    }

    /// Everything accepted so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until more than `seen` requests were accepted; all of them.
    pub async fn more_than(&self, seen: usize) -> Vec<Received> {
        let wait = async {
            loop {
                let arrived = self.arrived.notified();
                let all = self.received();
                if all.len() > seen {
                    return all;
                }
                arrived.await;
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .expect("a notification arrives")
    }
}

/// Subscribes `player` to a webhook at the receiver; the secret.
async fn webhook(app: &TestApp, player: &Player, receiver: &Receiver) -> String {
    let answer = app
        .send(
            Method::POST,
            "/v1/players/me/subscriptions",
            Some(&player.token),
            Some(json!({"kind": "webhook", "url": format!("{}/hook", receiver.base)})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.body["secret"].as_str().unwrap().to_owned()
}

/// A Klaverjassen table of `player` and three computer players whose first
/// dealer is seat 3, so that `player` (seat 0) is first awaited after a
/// computer player's move; its id.
async fn table_with_three_computer_players(
    app: &TestApp,
    player: &Player,
    options: Value,
) -> String {
    table_with_computer_players(app, player, options, &[1, 2, 3]).await
}

/// A Klaverjassen table of `player` (seat 0) with `basic` computer players,
/// moving at once, in `bots`' seats, whose first dealer is seat 3, and
/// `options` besides; its id.
async fn table_with_computer_players(
    app: &TestApp,
    player: &Player,
    options: Value,
    bots: &[u64],
) -> String {
    let mut all = json!({"first_dealer": 3, "bot_delay_ms": 0});
    all.as_object_mut()
        .unwrap()
        .extend(options.as_object().unwrap().clone());
    let bots: Vec<Value> = bots
        .iter()
        .map(|seat| json!({"seat": seat, "level": "basic"}))
        .collect();
    let answer = app
        .send(
            Method::POST,
            "/v1/games",
            Some(&player.token),
            Some(json!({"game": "klaverjassen", "options": all, "bots": bots})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.body["id"].as_str().unwrap().to_owned()
}

/// Whether `view` awaits `seat`.
fn awaits_seat(view: &Value, seat: u64) -> bool {
    view["awaiting"]["seats"]
        .as_array()
        .is_some_and(|seats| seats.contains(&json!(seat)))
}

/// The first move seat 0 may make (a card, trump, a deal).
fn first_move(view: &Value) -> Value {
    crate::support::moves_but_reports(view)[0].clone()
}

/// Plays seat 0's moves until the table waits for someone else.
async fn play_while_awaited(app: &TestApp, id: &str, player: &Player, mut view: Value) {
    while awaits_seat(&view, 0) && view["status"] == "playing" {
        let answer = app.play(id, player, first_move(&view)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        view = answer.body;
    }
}

/// The Standard Webhooks check a receiver makes.
fn verify_webhook(secret: &str, received: &Received) {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let id = &received.headers["webhook-id"];
    let timestamp = &received.headers["webhook-timestamp"];
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(&received.body);
    let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    let signatures: Vec<&str> = received.headers["webhook-signature"].split(' ').collect();
    assert!(signatures.contains(&expected.as_str()), "{signatures:?}");
    assert_eq!(received.json()["id"].as_str(), Some(id.as_str()));
}

/// Fails when a notification holds anything but its documented fields
/// (never a card, a hand or a seed).
fn assert_only_public_fields(payload: &Value) {
    let allowed: BTreeSet<&str> = [
        "id", "type", "at", "game_id", "event_id", "game", "version", "action", "deadline",
    ]
    .into();
    for key in payload.as_object().unwrap().keys() {
        assert!(allowed.contains(key.as_str()), "{key} in {payload}");
    }
    assert!(crate::support::cards_in(payload).is_empty(), "{payload}");
}

async fn a_player_alone_with_three_computer_players_gets_one_your_turn_per_turn(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let anne = app.player("Anne").await;
    let secret = webhook(&app, &anne, &receiver).await;
    let id = table_with_three_computer_players(&app, &anne, json!({})).await;
    let mut turns = 0;
    while turns < 4 {
        let all = receiver.more_than(turns).await;
        assert_eq!(all.len(), turns + 1, "one notification per turn");
        let last = &all[turns];
        verify_webhook(&secret, last);
        let payload = last.json();
        assert_only_public_fields(&payload);
        assert_eq!(payload["type"], "your_turn", "{payload}");
        assert_eq!(payload["game_id"], id.as_str());
        let view = app.view(&id, &anne).await;
        // Nobody else can move while the table waits for Anne.
        assert!(awaits_seat(&view, 0), "{view}");
        assert_eq!(view["version"], payload["version"]);
        assert_eq!(view["awaiting"]["action"], payload["action"]);
        turns += 1;
        play_while_awaited(&app, &id, &anne, view).await;
    }
    // Anne's fifth turn comes; its notification is the only other one.
    let all = receiver.more_than(turns).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let all_now = receiver.received();
    assert_eq!(
        all_now.len(),
        all.len(),
        "a second notification of one turn"
    );
    let ids: BTreeSet<&String> = all_now.iter().map(|r| &r.headers["webhook-id"]).collect();
    assert_eq!(ids.len(), all_now.len());
    let versions: BTreeSet<i64> = all_now
        .iter()
        .map(|r| r.json()["version"].as_i64().unwrap())
        .collect();
    assert_eq!(versions.len(), all_now.len());
    assert!(app.metrics().await.contains(
        r#"kaarttafel_notifications_total{kind="your_turn",channel="webhook",outcome="sent"} 5"#
    ));
}

impl StreamViews {
    /// The first view after `version` that awaits seat 0.
    async fn turn_after(&self, version: i64) -> Value {
        let wait = async {
            loop {
                let found = self
                    .views
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|v| v["version"].as_i64().unwrap() > version && awaits_seat(v, 0))
                    .cloned();
                if let Some(view) = found {
                    return view;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .expect("the turn comes")
    }
}

async fn no_your_turn_is_sent_while_the_player_holds_a_stream(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let anne = app.player("Anne").await;
    webhook(&app, &anne, &receiver).await;
    // Anne deals first: the stream is open before any turn of hers comes.
    let id = table_with_three_computer_players(&app, &anne, json!({"first_dealer": 0})).await;
    let watched = StreamViews::open(&app, &id, &anne).await;
    let mut version = -1;
    for _ in 0..3 {
        // The turn is seen on the stream alone: no read of the game.
        let view = watched.turn_after(version).await;
        version = view["version"].as_i64().unwrap();
        // Held past the delay, so that the notification falls due.
        tokio::time::sleep(Duration::from_millis(600)).await;
        let mut view = view;
        while awaits_seat(&view, 0) {
            let answer = app.play(&id, &anne, first_move(&view)).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            view = answer.body;
            version = view["version"].as_i64().unwrap();
        }
    }
    watched.turn_after(version).await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert!(receiver.received().is_empty(), "{:?}", receiver.received());
    let metrics = app.metrics().await;
    assert!(
        metrics.contains(
            r#"kaarttafel_notifications_total{kind="your_turn",channel="webhook",outcome="suppressed"}"#
        ),
        "{metrics}"
    );
    watched.reader.abort();
}

async fn a_clock_low_comes_before_the_clock_runs_out(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let anne = app.player("Anne").await;
    webhook(&app, &anne, &receiver).await;
    // Long enough that a busy machine delivers the warning, a quarter of
    // the time before the end, and the test reads the game before it runs out.
    let id = table_with_three_computer_players(&app, &anne, json!({"turn_seconds": 12})).await;
    let low = loop {
        let all = receiver.more_than(receiver.received().len()).await;
        let last = all.last().unwrap().json();
        if last["type"] == "clock_low" {
            break last;
        }
        assert_eq!(last["type"], "your_turn", "{last}");
        assert!(last["deadline"].is_string(), "{last}");
    };
    assert_only_public_fields(&low);
    // The clock has not run out: the table still waits for Anne at the
    // version the notification names, and she is not away.
    let view = app.view(&id, &anne).await;
    assert!(awaits_seat(&view, 0), "{view}");
    assert_eq!(view["version"], low["version"]);
    assert_eq!(view["seats"][0]["away"], false, "{view}");
    assert_eq!(view["awaiting"]["deadline"], low["deadline"], "{view}");
}

/// A browser's private key and authentication secret.
type BrowserSecrets = (web_push_native::p256::SecretKey, [u8; 16]);

/// A browser's push keys: its P-256 key pair and authentication secret, and
/// the `keys` of its `PushSubscription`.
fn browser_keys() -> (BrowserSecrets, Value) {
    use rand::RngExt;
    use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint;
    let secret = loop {
        let bytes: [u8; 32] = rand::rng().random();
        if let Ok(secret) = web_push_native::p256::SecretKey::from_slice(&bytes) {
            break secret;
        }
    };
    let auth: [u8; 16] = rand::rng().random();
    let p256dh = URL_SAFE_NO_PAD.encode(secret.public_key().to_encoded_point(false).as_bytes());
    let keys = json!({"p256dh": p256dh, "auth": URL_SAFE_NO_PAD.encode(auth)});
    ((secret, auth), keys)
}

/// RFC 8291 decryption of a push message (one `aes128gcm` record, RFC
/// 8188) by the subscription's private key and authentication secret,
/// written from the RFCs with the primitives alone.
fn decrypt_push(body: &[u8], ua_secret: &web_push_native::p256::SecretKey, auth: &[u8]) -> Vec<u8> {
    use aes_gcm::aead::Aead;
    use hkdf::Hkdf;
    use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint;
    use web_push_native::p256::{PublicKey, ecdh};
    let salt = &body[..16];
    let record_size = u32::from_be_bytes(body[16..20].try_into().unwrap()) as usize;
    let key_id_len = usize::from(body[20]);
    let as_public_bytes = &body[21..21 + key_id_len];
    let ciphertext = &body[21 + key_id_len..];
    assert!(ciphertext.len() <= record_size, "one record");
    let as_public = PublicKey::from_sec1_bytes(as_public_bytes).unwrap();
    let ua_public = ua_secret.public_key().to_encoded_point(false);
    let shared = ecdh::diffie_hellman(ua_secret.to_nonzero_scalar(), as_public.as_affine());
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(ua_public.as_bytes());
    key_info.extend_from_slice(as_public_bytes);
    let mut ikm = [0u8; 32];
    Hkdf::<sha2::Sha256>::new(Some(auth), &shared.raw_secret_bytes()[..])
        .expand(&key_info, &mut ikm)
        .unwrap();
    let prk = Hkdf::<sha2::Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .unwrap();
    let mut nonce = [0u8; 12];
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .unwrap();
    let cipher = <aes_gcm::Aes128Gcm as aes_gcm::KeyInit>::new_from_slice(&cek).unwrap();
    let mut padded = cipher
        .decrypt(&aes_gcm::Nonce::from(nonce), ciphertext)
        .expect("the message decrypts");
    // The last record ends in its delimiter 0x02 and zero padding.
    while padded.last() == Some(&0) {
        padded.pop();
    }
    assert_eq!(padded.pop(), Some(2), "the last record's delimiter");
    padded
}

/// Subscribes `player`'s browser, with keys of its own, to Web Push through
/// the receiver at `/push/anne`; the browser's secrets and the
/// subscription.
async fn web_push(app: &TestApp, player: &Player, receiver: &Receiver) -> (BrowserSecrets, Value) {
    let (secrets, keys) = browser_keys();
    let answer = app
        .send(
            Method::POST,
            "/v1/players/me/subscriptions",
            Some(&player.token),
            Some(
                json!({"kind": "web_push", "endpoint": format!("{}/push/anne", receiver.base),
                        "expirationTime": null, "keys": keys}),
            ),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    (secrets, answer.body)
}

async fn a_web_push_message_decrypts_with_the_subscriptions_key_and_its_vapid_token_verifies(
    db: Db,
) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let anne = app.player("Anne").await;
    let ((ua_secret, auth), subscription) = web_push(&app, &anne, &receiver).await;
    assert_eq!(subscription["kind"], "web_push");
    assert_eq!(subscription["secret"], Value::Null);
    let id = table_with_three_computer_players(&app, &anne, json!({})).await;
    let pushed = receiver.more_than(0).await.remove(0);
    assert_eq!(pushed.path, "/push/anne");
    assert_eq!(pushed.headers["content-encoding"], "aes128gcm");
    assert_eq!(pushed.headers["urgency"], "high");
    assert_eq!(pushed.headers["topic"], id.replace('-', ""));
    let ttl: i64 = pushed.headers["ttl"].parse().unwrap();
    assert!((1..=86_400).contains(&ttl), "{ttl}");
    let payload: Value =
        serde_json::from_slice(&decrypt_push(&pushed.body, &ua_secret, &auth)).unwrap();
    assert_eq!(payload["type"], "your_turn", "{payload}");
    assert_eq!(payload["game_id"], id.as_str());
    assert_only_public_fields(&payload);
    // The VAPID token (RFC 8292) verifies with the service's public key.
    let key = app
        .send(
            Method::GET,
            "/v1/notifications/vapid_public_key",
            None,
            None,
        )
        .await
        .body["public_key"]
        .as_str()
        .unwrap()
        .to_owned();
    let authorization = &pushed.headers["authorization"];
    let rest = authorization.strip_prefix("vapid ").expect("vapid scheme");
    let mut fields = HashMap::new();
    for part in rest.split(',') {
        let (name, value) = part.trim().split_once('=').unwrap();
        fields.insert(name, value);
    }
    assert_eq!(fields["k"], key);
    let point = URL_SAFE_NO_PAD.decode(&key).unwrap();
    assert_eq!((point.len(), point[0]), (65, 4));
    let decoding = jsonwebtoken::DecodingKey::from_ec_components(
        &URL_SAFE_NO_PAD.encode(&point[1..33]),
        &URL_SAFE_NO_PAD.encode(&point[33..65]),
    )
    .unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&["http://127.0.0.1"]);
    let claims = jsonwebtoken::decode::<Value>(fields["t"], &decoding, &validation)
        .expect("the VAPID token verifies")
        .claims;
    assert!(
        claims["sub"].as_str().unwrap().starts_with("mailto:"),
        "{claims}"
    );
}

async fn a_failed_delivery_is_tried_again_with_the_same_id_and_a_410_unsubscribes(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let anne = app.player("Anne").await;
    webhook(&app, &anne, &receiver).await;
    receiver.answer_with(503);
    table_with_three_computer_players(&app, &anne, json!({})).await;
    // Refused twice or more, then taken.
    let metrics = async {
        loop {
            // At least two: a poll may come after a third refusal.
            let retried = app.metrics().await.lines().find_map(|line| {
                let value = line.split_once(r#"outcome="retried"} "#)?.1;
                value.trim().parse::<f64>().ok()
            });
            if retried.is_some_and(|count| count >= 2.0) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), metrics)
        .await
        .expect("retried");
    receiver.answer_with(200);
    let got = receiver.more_than(0).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].json()["type"], "your_turn");
    let attempts = receiver.attempts();
    assert!(attempts.len() >= 3, "{attempts:?}");
    assert!(
        attempts[..attempts.len() - 1]
            .iter()
            .all(|(status, _)| *status == 503)
    );
    let ids: BTreeSet<&String> = attempts
        .iter()
        .map(|(_, r)| &r.headers["webhook-id"])
        .collect();
    assert_eq!(ids.len(), 1, "every attempt carries the notification's id");
    // A receiver answering 410 Gone is unsubscribed.
    let bob = app.player("Bob").await;
    webhook(&app, &bob, &receiver).await;
    receiver.answer_with(410);
    table_with_three_computer_players(&app, &bob, json!({})).await;
    let gone = async {
        loop {
            let listed = app
                .send(
                    Method::GET,
                    "/v1/players/me/subscriptions",
                    Some(&bob.token),
                    None,
                )
                .await;
            if listed.body["subscriptions"].as_array().unwrap().is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), gone)
        .await
        .expect("unsubscribed");
}

/// The push service's `Retry-After` in the test below, in seconds.
const RETRY_AFTER: u64 = 2;

async fn a_push_service_answering_429_is_tried_again_not_before_its_retry_after(db: Db) {
    let (database, scratch) = fresh_database(db).await;
    let mut settings = settings(database);
    // The back-off's longest wait is a tenth of a second: only the push
    // service's `Retry-After` makes a retry wait seconds.
    settings.notifications.retry_max = Duration::from_millis(100);
    let app = TestApp::start(settings, scratch).await;
    let receiver = Receiver::start().await;
    receiver.answer_first(&[(429, Some(RETRY_AFTER)), (503, None)]);
    receiver.answer_with(201);
    // Retry-After counts from the answer (RFC 9110), which comes a second
    // after the request here.
    let slowness = Duration::from_secs(1);
    receiver.answer_slowly(slowness);
    let anne = app.player("Anne").await;
    let ((ua_secret, auth), _) = web_push(&app, &anne, &receiver).await;
    table_with_three_computer_players(&app, &anne, json!({})).await;
    let pushed = receiver.more_than(0).await;
    assert_eq!(pushed.len(), 1);
    let attempts = receiver.attempts();
    let statuses: Vec<u16> = attempts.iter().map(|(status, _)| *status).collect();
    assert_eq!(
        statuses,
        [429, 503, 201],
        "a 503 without Retry-After is retried too"
    );
    let ids: BTreeSet<String> = attempts
        .iter()
        .map(|(_, r)| {
            let payload: Value =
                serde_json::from_slice(&decrypt_push(&r.body, &ua_secret, &auth)).unwrap();
            assert_eq!(payload["type"], "your_turn", "{payload}");
            payload["id"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 1, "every attempt carries the notification's id");
    let waited = attempts[1].1.at - (attempts[0].1.at + slowness);
    assert!(
        waited >= Duration::from_secs(RETRY_AFTER),
        "tried again {waited:?} after an answer with a Retry-After of {RETRY_AFTER} s"
    );
}

async fn subscriptions_are_listed_without_secrets_deleted_and_at_most_ten(db: Db) {
    let app = TestApp::spawn(db).await;
    let anne = app.player("Anne").await;
    let path = "/v1/players/me/subscriptions";
    let mut ids = Vec::new();
    for i in 0..10 {
        let url = format!("http://127.0.0.1:9/hook/{i}");
        let answer = app
            .send(
                Method::POST,
                path,
                Some(&anne.token),
                Some(json!({"kind": "webhook", "url": url})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        assert!(
            answer.body["secret"]
                .as_str()
                .unwrap()
                .starts_with("whsec_")
        );
        assert_eq!(answer.body["url"], url.as_str());
        ids.push(answer.body["id"].as_str().unwrap().to_owned());
    }
    let eleventh = json!({"kind": "webhook", "url": "http://127.0.0.1:9/hook/10"});
    let refused = app
        .send(
            Method::POST,
            path,
            Some(&anne.token),
            Some(eleventh.clone()),
        )
        .await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::CONFLICT, "too_many_subscriptions")
    );
    // The same URL again replaces its subscription, with the secret given.
    let secret = format!("whsec_{}", STANDARD.encode([7u8; 32]));
    let again = app
        .send(
            Method::POST,
            path,
            Some(&anne.token),
            Some(json!({"kind": "webhook", "url": "http://127.0.0.1:9/hook/0", "secret": secret})),
        )
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body["id"], ids[0].as_str());
    assert_eq!(again.body["secret"], secret.as_str());
    let listed = app.send(Method::GET, path, Some(&anne.token), None).await;
    let listed = listed.body["subscriptions"].as_array().unwrap().clone();
    assert_eq!(listed.len(), 10);
    assert!(
        listed.iter().all(|s| s.get("secret").is_none()),
        "{listed:?}"
    );
    let bob = app.player("Bob").await;
    let others = app
        .send(
            Method::DELETE,
            &format!("{path}/{}", ids[3]),
            Some(&bob.token),
            None,
        )
        .await;
    assert_eq!(others.status, StatusCode::NOT_FOUND);
    let deleted = app
        .send(
            Method::DELETE,
            &format!("{path}/{}", ids[3]),
            Some(&anne.token),
            None,
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let added = app
        .send(Method::POST, path, Some(&anne.token), Some(eleventh))
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
    let unauthenticated = app.send(Method::GET, path, None, None).await;
    assert_eq!(unauthenticated.status, StatusCode::UNAUTHORIZED);
}

async fn urls_a_delivery_may_not_reach_are_refused_at_registration(db: Db) {
    let (database, scratch) = fresh_database(db).await;
    let mut settings = settings(database);
    settings.notifications.allow_private = false;
    let app = TestApp::start(settings, scratch).await;
    let anne = app.player("Anne").await;
    let (_, keys) = browser_keys();
    let bad_keys = json!({"p256dh": URL_SAFE_NO_PAD.encode([4u8; 65]), "auth": URL_SAFE_NO_PAD.encode([1u8; 16])});
    for body in [
        json!({"kind": "webhook", "url": "http://hooks.example/hook"}),
        json!({"kind": "webhook", "url": "https://127.0.0.1/"}),
        json!({"kind": "webhook", "url": "https://10.0.0.1/"}),
        json!({"kind": "webhook", "url": "https://[::1]/hook"}),
        json!({"kind": "webhook", "url": "https://169.254.169.254/latest"}),
        json!({"kind": "webhook", "url": "https://localhost/hook"}),
        json!({"kind": "webhook", "url": "not a url"}),
        json!({"kind": "webhook", "url": "https://93.184.216.34/", "secret": "hunter2"}),
        json!({"kind": "web_push", "endpoint": "https://192.168.1.1/push", "keys": keys}),
        json!({"kind": "web_push", "endpoint": "https://93.184.216.34/push", "keys": bad_keys}),
        json!({"kind": "carrier_pigeon", "url": "https://93.184.216.34/"}),
    ] {
        let answer = app
            .send(
                Method::POST,
                "/v1/players/me/subscriptions",
                Some(&anne.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(
            (answer.status, answer.code()),
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            "{body}: {}",
            answer.body
        );
    }
    // An address a delivery may reach is taken (nothing is sent to it here).
    let answer = app
        .send(
            Method::POST,
            "/v1/players/me/subscriptions",
            Some(&anne.token),
            Some(json!({"kind": "webhook", "url": "https://93.184.216.34/hook"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
}

/// Anne's move at the table she sits at now, if it waits for her.
fn anne_to_move(view: &Value) -> Option<Value> {
    let you = &view["you"];
    let awaited = view["awaiting"]["seats"]
        .as_array()
        .is_some_and(|seats| seats.contains(you));
    awaited.then(|| first_move(view))
}

async fn a_club_evening_tells_its_players_of_each_round_and_of_its_end(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let organizer = app.player("Organizer").await;
    let anne = app.player("Anne").await;
    let secret = webhook(&app, &anne, &receiver).await;
    webhook(&app, &organizer, &receiver).await;
    let created = app
        .send(
            Method::POST,
            "/v1/events",
            Some(&organizer.token),
            Some(
                json!({"name": "Avond", "game": "klaverjassen", "format": "individual",
                        "rounds": 2, "deals": 1, "options": {"bot_delay_ms": 0}}),
            ),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    let path = |rest: &str| format!("/v1/events/{id}{rest}");
    let entered = app
        .send(
            Method::POST,
            &path("/entries"),
            Some(&anne.token),
            Some(json!({})),
        )
        .await;
    assert!(entered.status.is_success(), "{}", entered.body);
    let bots = json!({"count": 3, "level": "basic"});
    let added = app
        .send(
            Method::POST,
            &path("/bots"),
            Some(&organizer.token),
            Some(bots),
        )
        .await;
    assert!(added.status.is_success(), "{}", added.body);
    let started = app
        .send(
            Method::POST,
            &path("/start"),
            Some(&organizer.token),
            Some(json!({})),
        )
        .await;
    assert_eq!(started.status, StatusCode::OK, "{}", started.body);
    // Anne plays her seat at each round's table until the evening is over.
    let mut moves = 0;
    loop {
        let event = app
            .send(Method::GET, &path(""), Some(&anne.token), None)
            .await
            .body;
        if event["status"] == "finished" {
            break;
        }
        let mine = app
            .send(Method::GET, "/v1/players/me/games", Some(&anne.token), None)
            .await
            .body;
        let playing = mine["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|game| game["status"] == "playing")
            .map(|game| game["id"].as_str().unwrap().to_owned());
        let Some(game) = playing else {
            let version = event["version"].as_i64().unwrap();
            app.send(
                Method::GET,
                &path(&format!("?wait_for_version={version}&timeout_s=2")),
                Some(&anne.token),
                None,
            )
            .await;
            continue;
        };
        let view = app.view(&game, &anne).await;
        match anne_to_move(&view) {
            Some(mv) => {
                let answer = app.play(&game, &anne, mv).await;
                assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
                moves += 1;
                assert!(moves < 200, "the evening does not end");
            }
            None => {
                let version = view["version"].as_i64().unwrap();
                app.view_after(&game, &anne, version).await;
            }
        }
    }
    let wanted = |all: &[Received]| {
        all.iter()
            .filter(|r| r.json()["type"] == "event_finished")
            .count()
            == 1
    };
    let mut all = receiver.received();
    while !wanted(&all) {
        all = receiver.more_than(all.len()).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let of_event: Vec<Received> = receiver
        .received()
        .into_iter()
        .filter(|r| r.json()["event_id"].is_string())
        .collect();
    let mut kinds: Vec<String> = of_event
        .iter()
        .map(|r| r.json()["type"].as_str().unwrap().to_owned())
        .collect();
    kinds.sort();
    // Anne is told of both rounds and of the end, once each; the
    // organizer, who does not play, is told nothing of the evening.
    assert_eq!(
        kinds,
        ["event_finished", "round_started", "round_started"],
        "{of_event:?}"
    );
    for received in &of_event {
        verify_webhook(&secret, received);
        let payload = received.json();
        assert_only_public_fields(&payload);
        assert_eq!(payload["event_id"], id.as_str(), "{payload}");
        assert_eq!(payload.get("game_id"), None, "{payload}");
    }
}

async fn the_seated_are_told_the_game_started_and_finished_but_not_who_caused_it(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let names = ["anne", "bob", "carl", "dirk"];
    let mut players = Vec::new();
    for name in names {
        let player = app.player(name).await;
        // Each player's webhook at a path of its own: the path tells who
        // was told.
        let url = format!("{}/{name}", receiver.base);
        let answer = app
            .send(
                Method::POST,
                "/v1/players/me/subscriptions",
                Some(&player.token),
                Some(json!({"kind": "webhook", "url": url})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        players.push(player);
    }
    let id = app
        .table(&players[0], "klaverjassen", json!({"deals": 1}))
        .await;
    // Dirk takes the last seat.
    app.seat_the_rest(&id, &players).await;
    let mut view = app.view(&id, &players[0]).await;
    let mut last_mover = 0;
    while view["status"] == "playing" {
        let seat = view["awaiting"]["seats"][0].as_u64().unwrap() as usize;
        let own = app.view(&id, &players[seat]).await;
        let answer = app.play(&id, &players[seat], first_move(&own)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        last_mover = seat;
        view = answer.body;
    }
    let told = |all: &[Received], kind: &str| -> BTreeSet<String> {
        all.iter()
            .filter(|r| r.json()["type"] == kind)
            .map(|r| {
                let payload = r.json();
                assert_only_public_fields(&payload);
                assert_eq!(payload["game_id"], id.as_str());
                r.path.trim_start_matches('/').to_owned()
            })
            .collect()
    };
    let mut all = receiver.received();
    while told(&all, "game_finished").len() < 3 {
        all = receiver.more_than(all.len()).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let all = receiver.received();
    let others = |actor: usize| -> BTreeSet<String> {
        names
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != actor)
            .map(|(_, name)| (*name).to_owned())
            .collect()
    };
    assert_eq!(told(&all, "game_started"), others(3));
    assert_eq!(told(&all, "game_finished"), others(last_mover));
    let count = |kind: &str| all.iter().filter(|r| r.json()["type"] == kind).count();
    assert_eq!((count("game_started"), count("game_finished")), (3, 3));
}

/// A person's move (without an `Idempotency-Key`, so written alone in one
/// statement) that makes it another person's turn tells that person, once,
/// at the version the move made; so does a computer player's move.
async fn a_persons_move_tells_the_next_person_once_that_it_is_their_turn(db: Db) {
    let app = TestApp::spawn(db).await;
    let receiver = Receiver::start().await;
    let anne = app.player("Anne").await;
    let bob = app.player("Bob").await;
    let secret = webhook(&app, &bob, &receiver).await;
    let id = table_with_computer_players(&app, &anne, json!({}), &[2, 3]).await;
    app.seat_the_rest(&id, &[anne.clone(), bob.clone()]).await;
    // Bob's turns so far, and the version of Anne's last move when it made
    // it Bob's turn.
    let (mut turns, mut after_anne, mut made_by_anne) = (0, None, 0);
    let deadline = Instant::now() + Duration::from_secs(60);
    while turns < 6 {
        assert!(Instant::now() < deadline, "Bob's turns did not come");
        let view = app.view(&id, &anne).await;
        if awaits_seat(&view, 0) {
            let answer = app.play(&id, &anne, first_move(&view)).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            after_anne = awaits_seat(&answer.body, 1).then(|| answer.body["version"].clone());
        } else if awaits_seat(&view, 1) {
            // Told before Bob reads the game: a read would drop the
            // notification still held.
            let all = receiver.more_than(turns).await;
            assert_eq!(all.len(), turns + 1, "one notification per turn");
            verify_webhook(&secret, &all[turns]);
            let payload = all[turns].json();
            assert_only_public_fields(&payload);
            assert_eq!(payload["type"], "your_turn", "{payload}");
            assert_eq!(payload["game_id"], id.as_str());
            if let Some(version) = after_anne.take() {
                assert_eq!(
                    payload["version"], version,
                    "told at the version Anne's move made"
                );
                made_by_anne += 1;
            }
            turns += 1;
            let mut own = app.view(&id, &bob).await;
            while awaits_seat(&own, 1) && own["status"] == "playing" {
                let answer = app.play(&id, &bob, first_move(&own)).await;
                assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
                own = answer.body;
            }
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    assert!(
        made_by_anne >= 3,
        "only {made_by_anne} of Bob's turns came from Anne's move"
    );
    // Bob's last move may hand the turn to a computer player whose move
    // gives it back to him: that is a turn of his too. Wait until a person
    // is awaited, then for his notification if it is him.
    let deadline = Instant::now() + Duration::from_secs(30);
    let pending = loop {
        assert!(
            Instant::now() < deadline,
            "the computer players did not move"
        );
        let view = app.view(&id, &anne).await;
        if awaits_seat(&view, 1) {
            receiver.more_than(turns).await;
            break 1;
        }
        if awaits_seat(&view, 0) || view["status"] != "playing" {
            break 0;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let all = receiver.received();
    assert_eq!(
        all.len(),
        turns + pending,
        "a second notification of one turn"
    );
    let versions: BTreeSet<String> = all
        .iter()
        .map(|r| r.json()["version"].to_string())
        .collect();
    assert_eq!(
        versions.len(),
        all.len(),
        "two notifications of one version"
    );
}
