//! Delivering notifications from the outbox (docs/notifications.md). Every
//! instance runs this job; each round takes the rows due (on Postgres with
//! `FOR UPDATE SKIP LOCKED`, so two instances never take the same row; on
//! SQLite in the one writer's transaction) and holds them for [`LEASE`]:
//! another instance takes a row only once that ran out, after a delivery
//! cut short (an instance killed, say). A delivered row is deleted; a
//! failed one is tried again later with exponential back-off, for at most
//! `NOTIFY_GIVE_UP`, then dropped and counted. Every attempt carries the
//! notification's own id.
//!
//! A `your_turn` or `clock_low` is dropped (`suppressed`) when the player
//! acted at the game since, or the game is over; a `your_turn` also when
//! the player read the game since it was written or held a stream or long
//! poll on it (presence, which each instance writes here too).
//!
//! Deliveries go through one HTTP client with a 5 s timeout, no redirects,
//! no proxy, and a DNS resolver that hands out only addresses a delivery
//! may connect to ([`crate::app::notifications::is_forbidden`]), so the
//! address connected to is the address checked, at every delivery.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{KeyInit, Mac};
use reqwest::header::{HeaderName, HeaderValue};
use reqwest::{Client, StatusCode};
use tokio::task::JoinSet;
use uuid::Uuid;
use web_push_native::{Auth, WebPushBuilder, p256::PublicKey};

use crate::app::context::App;
use crate::app::error::Error;
use crate::app::notifications::{CLOCK_LOW, YOUR_TURN, is_forbidden, secret_key};
use crate::store::notifications::{self as store, OutboxRow, SubscriptionRow};

/// How long a taken row is held by the instance that took it.
pub const LEASE: Duration = Duration::from_secs(15);
/// A delivery's time limit, connecting included.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// Rows taken per round, at most.
const BATCH: usize = 32;
/// Deliveries under way at once on one instance.
const IN_FLIGHT: usize = 256;
/// The first retry's wait; each further one waits twice as long.
const FIRST_RETRY_MICROS: i64 = 1_000_000;
/// How long presence is kept after it was last noted.
const PRESENCE_KEPT_MICROS: i64 = 24 * 3600 * 1_000_000;
/// How often old presence is removed.
const PRESENCE_PURGE: Duration = Duration::from_secs(600);

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

/// Runs until the server shuts down.
pub async fn run(app: App) {
    let client = match client(app.notifications.allow_private) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "notifications: no HTTP client; nothing is delivered");
            return;
        }
    };
    let interval = app.notifications.presence_interval();
    let mut purged = tokio::time::Instant::now();
    let mut deliveries = JoinSet::new();
    while !app.notifier.is_shutting_down() {
        if let Err(error) = write_presence(&app).await {
            tracing::warn!(%error, "writing presence failed");
        }
        if purged.elapsed() >= PRESENCE_PURGE {
            purged = tokio::time::Instant::now();
            if let Err(error) = purge_presence(&app).await {
                tracing::warn!(%error, "removing old presence failed");
            }
        }
        while deliveries.try_join_next().is_some() {}
        let room = IN_FLIGHT.saturating_sub(deliveries.len()).min(BATCH);
        match round(&app, &client, &mut deliveries, room).await {
            Ok(taken) if taken == BATCH => continue,
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "notification round failed"),
        }
        let full = deliveries.len() >= IN_FLIGHT;
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            Some(_) = deliveries.join_next(), if full => {}
            () = app.notifier.shutting_down() => {}
        }
    }
    // Deliveries under way finish (each within its time limit); what is
    // cut short is tried again once its hold runs out.
    while deliveries.join_next().await.is_some() {}
}

/// The deliveries' HTTP client: 5 s, no redirects, no proxy, and only
/// addresses a delivery may connect to (any with `allow_private`).
///
/// # Errors
/// reqwest's, when the client cannot be built.
pub fn client(allow_private: bool) -> Result<Client, reqwest::Error> {
    // ring rather than rustls's default aws-lc-rs, which builds a C
    // library with cmake; the deliveries need no post-quantum key exchange.
    // Another part of the process may have installed a provider first.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    Client::builder()
        .timeout(TIMEOUT)
        .connect_timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(concat!("kaarttafel/", env!("CARGO_PKG_VERSION")))
        .dns_resolver(Arc::new(GuardedResolver { allow_private }))
        .build()
}

/// A DNS resolver that drops every address a delivery may not connect to,
/// and fails when none is left.
struct GuardedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0))
                .await?
                .filter(|address| allow_private || !is_forbidden(address.ip()))
                .collect();
            if found.is_empty() {
                return Err(format!(
                    "{} resolves to no address a delivery may connect to",
                    name.as_str()
                )
                .into());
            }
            let addresses: reqwest::dns::Addrs = Box::new(found.into_iter());
            Ok(addresses)
        })
    }
}

/// One round: takes up to `room` rows due and starts their deliveries in
/// `deliveries`, each on its own (a slow receiver holds up nobody else).
/// Returns how many it took.
async fn round(
    app: &App,
    client: &Client,
    deliveries: &mut JoinSet<()>,
    room: usize,
) -> Result<usize, Error> {
    if room == 0 {
        return Ok(0);
    }
    let now = app.now();
    // Looked up on a reader first, so that an idle outbox never takes the
    // writer (SQLite's one writer is every request's).
    let next = {
        let mut conn = app.store.acquire().await?;
        store::next_due(&mut conn).await?
    };
    if next.is_none_or(|next| next > now) {
        return Ok(0);
    }
    let mut tx = app.store.begin_write().await?;
    let rows = store::take_due(
        &mut tx,
        app.store.backend(),
        now,
        now + micros(LEASE),
        room as i64,
    )
    .await?;
    tx.commit().await?;
    if rows.is_empty() {
        return Ok(0);
    }
    let ids: Vec<Uuid> = rows.iter().map(|row| row.subscription).collect();
    let subscriptions: HashMap<Uuid, SubscriptionRow> = {
        let mut conn = app.store.acquire().await?;
        store::subscriptions_by_id(&mut conn, &ids)
            .await?
            .into_iter()
            .map(|s| (s.id, s))
            .collect()
    };
    let taken = rows.len();
    for row in rows {
        let subscription = subscriptions.get(&row.subscription).cloned();
        let (app, client) = (app.clone(), client.clone());
        deliveries.spawn(async move {
            if let Err(error) = deliver(&app, &client, &row, subscription).await {
                tracing::warn!(%error, notification = %row.notification.id, "delivery failed");
            }
        });
    }
    Ok(taken)
}

/// What became of one attempt.
#[derive(Debug, PartialEq, Eq)]
enum Sent {
    /// Accepted by the receiver.
    Delivered,
    /// The subscription is gone (404 or 410 from a push service, 410 from a
    /// webhook): it is removed.
    Gone,
    /// Refused for good (a push service's other 4xx).
    Refused,
    /// Try again, not before the receiver's `Retry-After` if it gave one.
    Retry(Option<Duration>),
}

/// Delivers one taken row (or drops it, see the module).
async fn deliver(
    app: &App,
    client: &Client,
    row: &OutboxRow,
    subscription: Option<SubscriptionRow>,
) -> Result<(), Error> {
    let Some(subscription) = subscription else {
        // Unsubscribed meanwhile.
        return settle(app, row, None, Outcome::Forget).await;
    };
    let now = app.now();
    let give_up_at = row
        .notification
        .created_at
        .saturating_add(app.notifications.give_up);
    let kind = subscription.kind.as_str();
    if now >= give_up_at || now >= row.notification.expires_at {
        return settle(app, row, Some(kind), Outcome::Dropped).await;
    }
    if !still_wanted(app, row).await? {
        return settle(app, row, Some(kind), Outcome::Suppressed).await;
    }
    let sent = match allowed_host(&subscription.url, app.notifications.allow_private) {
        false => Sent::Retry(None),
        true if kind == "webhook" => webhook(client, &subscription, row, now).await,
        true => web_push(app, client, &subscription, row, now).await,
    };
    let outcome = match sent {
        Sent::Delivered => Outcome::Sent,
        Sent::Gone => Outcome::Gone,
        Sent::Refused => Outcome::Dropped,
        Sent::Retry(after) => {
            // Counted from the answer, as `Retry-After` is (RFC 9110), not
            // from the request: a slow receiver's seconds are its own.
            let next = app.now() + backoff(row.attempts, app.notifications.retry_max, after);
            if next >= give_up_at {
                Outcome::Dropped
            } else {
                Outcome::Retry(next)
            }
        }
    };
    settle(app, row, Some(kind), outcome).await
}

/// What is written of an attempt.
enum Outcome {
    /// The row goes, uncounted (its subscription went first).
    Forget,
    /// Delivered: the row goes.
    Sent,
    /// Given up or refused: the row goes.
    Dropped,
    /// Not wanted any more: the row goes.
    Suppressed,
    /// The subscription is gone: it goes, with its rows.
    Gone,
    /// Tried again at this time.
    Retry(i64),
}

/// Writes `outcome` of `row`'s attempt on its `channel` (in a write
/// transaction: on SQLite the one writer makes every write) and counts it.
async fn settle(
    app: &App,
    row: &OutboxRow,
    channel: Option<&str>,
    outcome: Outcome,
) -> Result<(), Error> {
    let (id, subscription) = (row.notification.id, row.subscription);
    let mut tx = app.store.begin_write().await?;
    let counted = match outcome {
        Outcome::Forget => {
            store::remove(&mut tx, id, subscription).await?;
            None
        }
        Outcome::Sent => {
            store::remove(&mut tx, id, subscription).await?;
            Some("sent")
        }
        Outcome::Dropped => {
            store::remove(&mut tx, id, subscription).await?;
            Some("dropped")
        }
        Outcome::Suppressed => {
            store::remove(&mut tx, id, subscription).await?;
            Some("suppressed")
        }
        Outcome::Gone => {
            store::delete_subscription(&mut tx, subscription, None).await?;
            Some("dropped")
        }
        Outcome::Retry(next) => {
            store::retry_at(&mut tx, id, subscription, next).await?;
            Some("retried")
        }
    };
    tx.commit().await?;
    if let (Some(outcome), Some(channel)) = (counted, channel) {
        app.metrics
            .count_notification(&row.notification.kind, channel, outcome);
    }
    Ok(())
}

/// Whether a turn's notification is still worth sending: the player has not
/// acted at the game since, nor (for `your_turn`) read it or watched it.
async fn still_wanted(app: &App, row: &OutboxRow) -> Result<bool, Error> {
    let (Some(game), Some(version)) = (row.notification.game, row.notification.version) else {
        return Ok(true);
    };
    if row.notification.kind != YOUR_TURN && row.notification.kind != CLOCK_LOW {
        return Ok(true);
    }
    let mut conn = app.store.acquire().await?;
    let turn = store::turn_now(&mut conn, row.notification.player, game, version).await?;
    if turn.status.as_deref() != Some("playing") || turn.acted_since {
        return Ok(false);
    }
    let at_the_game = turn.seen_at >= row.notification.created_at
        || turn.watching_until >= row.notification.created_at;
    Ok(row.notification.kind != YOUR_TURN || !at_the_game)
}

/// The wait before attempt `attempts + 1`: 1 s doubled with each attempt,
/// at most `max`, a random half of it taken off so that retries spread;
/// never before the receiver's `Retry-After`.
fn backoff(attempts: i64, max: i64, retry_after: Option<Duration>) -> i64 {
    use rand::RngExt;
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 40)).unwrap_or(40);
    let full = FIRST_RETRY_MICROS
        .saturating_mul(1_i64 << doublings)
        .min(max.max(1));
    let wait = full - rand::rng().random_range(0..=full / 2);
    wait.max(retry_after.map_or(0, micros))
}

/// Whether a delivery to `url` may be made: its host, when an address,
/// is one a delivery may connect to (a name is checked as it resolves,
/// [`GuardedResolver`]).
fn allowed_host(url: &str, allow_private: bool) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    if allow_private {
        return true;
    }
    let ip = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
        Some(url::Host::Domain(_)) => return parsed.scheme() == "https",
        None => return false,
    };
    parsed.scheme() == "https" && !is_forbidden(ip)
}

/// The Standard Webhooks signature of `body` sent as message `id` at
/// `timestamp` (Unix seconds): `v1,` and the base64 HMAC-SHA256 of
/// `id.timestamp.body` keyed with the secret's bytes.
pub fn signature(key: &[u8], id: &str, timestamp: i64, body: &str) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// Posts `row` to a webhook, signed (Standard Webhooks).
async fn webhook(
    client: &Client,
    subscription: &SubscriptionRow,
    row: &OutboxRow,
    now: i64,
) -> Sent {
    let Some(key) = subscription.secret.as_deref().and_then(secret_key) else {
        return Sent::Refused;
    };
    let id = row.notification.id.to_string();
    let timestamp = now / 1_000_000;
    let sent = client
        .post(&subscription.url)
        .header("content-type", "application/json")
        .header("webhook-id", &id)
        .header("webhook-timestamp", timestamp.to_string())
        .header(
            "webhook-signature",
            signature(&key, &id, timestamp, &row.notification.payload),
        )
        .body(row.notification.payload.clone())
        .send()
        .await;
    match sent {
        Ok(answer) if answer.status().is_success() => Sent::Delivered,
        Ok(answer) if answer.status() == StatusCode::GONE => Sent::Gone,
        Ok(answer) => Sent::Retry(retry_after(&answer)),
        Err(error) => {
            tracing::debug!(%error, "webhook delivery failed");
            Sent::Retry(None)
        }
    }
}

/// Pushes `row` to a browser's push service: encrypted for the browser
/// (RFC 8291), signed with the VAPID key (RFC 8292), with `TTL` (the time
/// it is worth), `Urgency` (high for a turn) and `Topic` (the game, so that
/// a newer notification of it replaces an older one still undelivered).
async fn web_push(
    app: &App,
    client: &Client,
    subscription: &SubscriptionRow,
    row: &OutboxRow,
    now: i64,
) -> Sent {
    let request = match push_request(app, subscription, row, now) {
        Ok(request) => request,
        Err(error) => {
            tracing::warn!(%error, subscription = %subscription.id, "push request not built");
            return Sent::Refused;
        }
    };
    match client.execute(request).await {
        Ok(answer) if answer.status().is_success() => Sent::Delivered,
        Ok(answer) if matches!(answer.status().as_u16(), 404 | 410) => Sent::Gone,
        Ok(answer)
            if answer.status() == StatusCode::TOO_MANY_REQUESTS
                || answer.status().is_server_error() =>
        {
            Sent::Retry(retry_after(&answer))
        }
        Ok(answer) if answer.status().is_client_error() => Sent::Refused,
        Ok(answer) => Sent::Retry(retry_after(&answer)),
        Err(error) => {
            tracing::debug!(%error, "push delivery failed");
            Sent::Retry(None)
        }
    }
}

/// The push service's request for `row` (see [`web_push`]).
fn push_request(
    app: &App,
    subscription: &SubscriptionRow,
    row: &OutboxRow,
    now: i64,
) -> Result<reqwest::Request, String> {
    let decode = |value: Option<&str>| {
        URL_SAFE_NO_PAD
            .decode(value.unwrap_or_default().trim_end_matches('='))
            .map_err(|e| e.to_string())
    };
    let public = PublicKey::from_sec1_bytes(&decode(subscription.p256dh.as_deref())?)
        .map_err(|e| e.to_string())?;
    let auth: [u8; 16] = decode(subscription.auth.as_deref())?
        .try_into()
        .map_err(|_| "auth is not 16 bytes".to_owned())?;
    let endpoint: http::Uri = subscription.url.parse().map_err(|e| format!("{e}"))?;
    let vapid = &app.notifications.vapid;
    let built = WebPushBuilder::new(endpoint, public, Auth::from(auth))
        .with_valid_duration(Duration::from_secs(12 * 3600))
        .with_vapid(&vapid.key_pair, &vapid.subject)
        .build(row.notification.payload.clone().into_bytes())
        .map_err(|e| e.to_string())?;
    let mut request = reqwest::Request::try_from(built).map_err(|e| e.to_string())?;
    let ttl = ((row.notification.expires_at - now) / 1_000_000).max(0);
    let urgency = if row.notification.kind == YOUR_TURN || row.notification.kind == CLOCK_LOW {
        "high"
    } else {
        "normal"
    };
    let headers = request.headers_mut();
    headers.insert(HeaderName::from_static("ttl"), HeaderValue::from(ttl));
    headers.insert(
        HeaderName::from_static("urgency"),
        HeaderValue::from_static(urgency),
    );
    if let Some(game) = row.notification.game {
        // 32 characters of the base64url alphabet, as RFC 8030 allows.
        let topic = game.simple().to_string();
        if let Ok(topic) = HeaderValue::from_str(&topic) {
            headers.insert(HeaderName::from_static("topic"), topic);
        }
    }
    Ok(request)
}

/// An answer's `Retry-After`, in seconds (a date is not followed).
fn retry_after(answer: &reqwest::Response) -> Option<Duration> {
    answer
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(|secs| Duration::from_secs(secs.min(24 * 3600)))
}

/// Writes the presence noted on this instance since the last write.
async fn write_presence(app: &App) -> Result<(), Error> {
    let marks = app.notifications.presence.take();
    if marks.is_empty() {
        return Ok(());
    }
    let interval = micros(app.notifications.presence_interval());
    let watching_until = app.now() + 3 * interval;
    let mut tx = app.store.begin_write().await?;
    for mark in marks {
        let until = if mark.watching { watching_until } else { 0 };
        store::note_presence(&mut tx, mark.player, mark.game, mark.seen_at, until).await?;
    }
    tx.commit().await?;
    Ok(())
}

async fn purge_presence(app: &App) -> Result<(), Error> {
    let mut tx = app.store.begin_write().await?;
    store::forget_presence(&mut tx, app.now() - PRESENCE_KEPT_MICROS).await?;
    tx.commit().await?;
    Ok(())
}

/// How long the oldest notification in the outbox has waited, in seconds:
/// 0 when it is empty.
///
/// # Errors
/// The database's.
pub async fn oldest_age_seconds(app: &App) -> Result<f64, Error> {
    let mut conn = app.store.acquire().await?;
    let oldest = store::oldest(&mut conn).await?;
    Ok(oldest.map_or(0.0, |at| (app.now() - at).max(0) as f64 / 1e6))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Standard Webhooks specification's own example: this secret,
    /// id, timestamp and body sign as the specification says.
    #[test]
    fn a_webhook_is_signed_as_standard_webhooks_says() {
        let key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let signed = signature(
            &key,
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(signed, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn retries_wait_twice_as_long_each_time_up_to_the_most() {
        let hour = 3_600_000_000;
        for attempts in 1..30 {
            let wait = backoff(attempts, hour, None);
            let full = (1_000_000_i64 << (attempts - 1).min(40)).min(hour);
            assert!((full / 2..=full).contains(&wait), "{attempts}: {wait}");
        }
        let later = backoff(1, hour, Some(Duration::from_secs(120)));
        assert_eq!(later, 120_000_000);
    }

    /// A host name is resolved at every delivery, and only to addresses a
    /// delivery may reach: a name that resolves to a loopback address
    /// (as `localhost` does) reaches nothing.
    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_not_connected_to() {
        use reqwest::dns::Resolve;
        let name = || "localhost".parse::<reqwest::dns::Name>().unwrap();
        let guarded = GuardedResolver {
            allow_private: false,
        };
        assert!(guarded.resolve(name()).await.is_err());
        let open = GuardedResolver {
            allow_private: true,
        };
        let found: Vec<SocketAddr> = open.resolve(name()).await.unwrap().collect();
        assert!(found.iter().all(|a| a.ip().is_loopback()) && !found.is_empty());
    }

    #[test]
    fn a_delivery_to_a_private_address_is_not_made() {
        assert!(!allowed_host("https://10.0.0.1/hook", false));
        assert!(!allowed_host("https://[::1]/hook", false));
        assert!(!allowed_host("http://example.com/hook", false));
        assert!(allowed_host("https://example.com/hook", false));
        assert!(allowed_host("http://127.0.0.1:8080/hook", true));
    }
}
