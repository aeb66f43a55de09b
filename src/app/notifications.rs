//! Notifications when the app is closed (docs/notifications.md): what a
//! change causes (`your_turn`, `clock_low`, `game_started`,
//! `game_finished`), written to the outbox in the change's own
//! transaction; the checks of what players subscribe, with the guard that keeps deliveries off loopback, private, link-local and
//! multicast addresses; the VAPID key; and who is at a game now
//! ([`Presence`]), so that a `your_turn` is not sent to a player who is.
//! Subscribing is [`super::subscriptions`].

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use chrono::{DateTime, Utc};
use uuid::Uuid;
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256KeyPair};

use super::error::Error;
use crate::config::notifications::NotificationSettings;
use crate::rules::{Action, Seat};
use crate::store::notifications::{self as store, Notification};
use crate::store::{Store, Tx, settings};
use crate::table::{Game, Status};

/// How long a notification without a turn's deadline is worth sending:
/// a day (Web Push `TTL`).
const DAY_MICROS: i64 = 24 * 3600 * 1_000_000;

/// The kinds of notification a game's change causes.
pub const YOUR_TURN: &str = "your_turn";
/// A quarter of the turn's time is left.
pub const CLOCK_LOW: &str = "clock_low";
/// The table filled.
pub const GAME_STARTED: &str = "game_started";
/// The match is over.
pub const GAME_FINISHED: &str = "game_finished";
/// A round of a club evening started: the player's table is ready.
pub const ROUND_STARTED: &str = "round_started";
/// A club evening is over: its standings are final.
pub const EVENT_FINISHED: &str = "event_finished";

/// How notifications are sent, for the use cases and the delivery job.
pub struct Notifications {
    /// How long a `your_turn` is held, Unix microseconds.
    pub delay: i64,
    /// Whether private addresses and `http://` are allowed.
    pub allow_private: bool,
    /// The longest wait between two attempts, microseconds.
    pub retry_max: i64,
    /// How long a notification is retried, microseconds.
    pub give_up: i64,
    /// The VAPID key pair and contact.
    pub vapid: Vapid,
    /// Who is at which game on this instance.
    pub presence: Arc<Presence>,
}

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

impl Notifications {
    /// The settings' notifications, with the VAPID key configured or kept
    /// in the database (generated on first start).
    ///
    /// # Errors
    /// The database's; [`Error::Invalid`] for a configured key that is no
    /// P-256 private key.
    pub async fn load(store: &Store, settings: &NotificationSettings) -> Result<Self, Error> {
        let key = match &settings.vapid_private_key {
            Some(key) => key.expose().to_owned(),
            None => {
                let candidate = URL_SAFE_NO_PAD.encode(ES256KeyPair::generate().to_bytes());
                let mut conn = store.acquire().await?;
                settings::get_or_insert(&mut conn, "vapid_private_key", &candidate).await?
            }
        };
        let vapid = Vapid::new(&key, &settings.vapid_subject)?;
        Ok(Notifications {
            delay: micros(settings.delay),
            allow_private: settings.allow_private,
            retry_max: micros(settings.retry_max),
            give_up: micros(settings.give_up),
            vapid,
            presence: Arc::new(Presence::default()),
        })
    }

    /// How often presence is written: a fraction of the delay, between a
    /// tenth of a second and two seconds.
    pub fn presence_interval(&self) -> Duration {
        Duration::from_micros((self.delay / 3).clamp(100_000, 2_000_000) as u64)
    }
}

/// The VAPID key pair (RFC 8292) and the contact the push services see.
pub struct Vapid {
    /// The key pair.
    pub key_pair: ES256KeyPair,
    /// The public key, base64url of the uncompressed point: the
    /// `applicationServerKey` browsers subscribe with.
    pub public_key: String,
    /// `mailto:` or `https:`.
    pub subject: String,
}

impl Vapid {
    /// The key pair of `private_key` (base64url of the 32-byte scalar).
    ///
    /// # Errors
    /// [`Error::Invalid`] when it is not one.
    pub fn new(private_key: &str, subject: &str) -> Result<Vapid, Error> {
        let bytes = URL_SAFE_NO_PAD
            .decode(private_key.trim_end_matches('='))
            .map_err(|_| Error::invalid("VAPID_PRIVATE_KEY: not base64url"))?;
        let key_pair = ES256KeyPair::from_bytes(&bytes)
            .map_err(|_| Error::invalid("VAPID_PRIVATE_KEY: not a P-256 private key"))?;
        let public_key =
            URL_SAFE_NO_PAD.encode(key_pair.public_key().public_key().to_bytes_uncompressed());
        Ok(Vapid {
            key_pair,
            public_key,
            subject: subject.to_owned(),
        })
    }
}

/// The part of a game before a change that tells what the change caused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Before {
    status: Status,
    awaited: Vec<Seat>,
    action: Option<Action>,
}

impl Before {
    /// `game` as it is before the change.
    pub fn of(game: &Game) -> Before {
        let awaiting = game.awaiting();
        Before {
            status: game.status,
            action: awaiting.as_ref().map(|a| a.action),
            awaited: awaiting.map(|a| a.seats).unwrap_or_default(),
        }
    }
}

/// The notifications a change of `before` into `game`, made at `at` by
/// `actor` (who is not told of it), causes, with their first attempt held
/// `delay` (each with when it is first tried): a `your_turn` (and with a clock a `clock_low`) for each person
/// newly awaited, `game_started` and `game_finished` for every person
/// seated. Nothing in them depends on a hidden card.
pub fn caused(
    before: &Before,
    game: &Game,
    actor: Option<Uuid>,
    at: i64,
    delay: i64,
) -> Vec<(Notification, i64)> {
    let people: Vec<(Seat, Uuid)> = game
        .seats
        .iter()
        .enumerate()
        .filter_map(|(i, seat)| {
            let player = seat.as_ref()?;
            (player.bot.is_none() && Some(player.id) != actor).then_some((Seat(i as u8), player.id))
        })
        .collect();
    let mut caused = Vec::new();
    let mut add = |kind: &str, player: Uuid, extra: serde_json::Value, expires_at, not_before| {
        let id = Uuid::new_v4();
        let mut payload = serde_json::json!({
            "id": id, "type": kind, "at": time(at), "game_id": game.id,
            "game": game.kind.as_str(), "version": game.version,
        });
        if let (Some(payload), serde_json::Value::Object(extra)) = (payload.as_object_mut(), extra)
        {
            payload.extend(extra);
        }
        let notification = Notification {
            id,
            player,
            game: Some(game.id),
            kind: kind.to_owned(),
            version: Some(game.version),
            payload: payload.to_string(),
            created_at: at,
            expires_at,
        };
        caused.push((notification, not_before));
    };
    let day = at + DAY_MICROS;
    if before.status == Status::Waiting && game.status == Status::Playing {
        for &(_, player) in &people {
            add(GAME_STARTED, player, serde_json::json!({}), day, at);
        }
    }
    if before.status != Status::Finished && game.status == Status::Finished {
        for &(_, player) in &people {
            add(GAME_FINISHED, player, serde_json::json!({}), day, at);
        }
    }
    if game.status != Status::Playing {
        return caused;
    }
    let Some(awaiting) = game.awaiting() else {
        return caused;
    };
    let action = serde_json::to_value(awaiting.action).unwrap_or_default();
    let newly =
        |seat: &Seat| before.action != Some(awaiting.action) || !before.awaited.contains(seat);
    for &(seat, player) in &people {
        if !awaiting.seats.contains(&seat) || !newly(&seat) || game.away[seat.index()] {
            continue;
        }
        let deadline = game.deadline;
        let mut extra = serde_json::json!({"action": action});
        if let Some(deadline) = deadline {
            extra["deadline"] = time(deadline);
        }
        let expires_at = deadline.unwrap_or(day);
        add(YOUR_TURN, player, extra.clone(), expires_at, at + delay);
        if let (Some(deadline), Some(seconds)) = (deadline, game.table.turn_seconds) {
            let quarter = i64::from(seconds) * 1_000_000 / 4;
            add(CLOCK_LOW, player, extra, deadline, deadline - quarter);
        }
    }
    caused
}

/// The notifications of a club evening's `kind` ([`ROUND_STARTED`],
/// [`EVENT_FINISHED`]) at `at` for the persons among `players` (computer
/// players are told nothing), each first tried at once: `{id, type, at,
/// event_id, version}`, about the event, not a game.
pub fn of_event(
    kind: &str,
    event: Uuid,
    version: i64,
    persons: impl IntoIterator<Item = Uuid>,
    at: i64,
) -> Vec<(Notification, i64)> {
    persons
        .into_iter()
        .map(|player| {
            let id = Uuid::new_v4();
            let payload = serde_json::json!({
                "id": id, "type": kind, "at": time(at), "event_id": event, "version": version,
            });
            let notification = Notification {
                id,
                player,
                game: None,
                kind: kind.to_owned(),
                version: Some(version),
                payload: payload.to_string(),
                created_at: at,
                expires_at: at + DAY_MICROS,
            };
            (notification, at)
        })
        .collect()
}

/// Unix microseconds as the API writes a time (RFC 3339, UTC).
fn time(micros: i64) -> serde_json::Value {
    serde_json::json!(DateTime::<Utc>::from_timestamp_micros(micros).unwrap_or_default())
}

/// Writes what a change caused to the outbox, in the change's transaction
/// (a row per subscription of each player told; none without one).
///
/// # Errors
/// The database's.
pub async fn write(tx: &mut Tx, caused: &[(Notification, i64)]) -> Result<(), Error> {
    store::enqueue(tx, caused).await?;
    Ok(())
}

/// A new webhook secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> String {
    use rand::RngExt;
    let bytes: [u8; 32] = rand::rng().random();
    format!("whsec_{}", STANDARD.encode(bytes))
}

/// The HMAC key of a webhook `secret` (`whsec_` + base64 of 24 to 64
/// bytes).
///
/// `None` when it is not one.
pub fn secret_key(secret: &str) -> Option<Vec<u8>> {
    secret
        .strip_prefix("whsec_")
        .and_then(|b64| STANDARD.decode(b64).ok())
        .filter(|key| (24..=64).contains(&key.len()))
}

/// Checks a browser's push keys: a P-256 public key (65 bytes,
/// uncompressed) and a 16-byte secret, both base64url.
pub fn push_keys(p256dh: &str, auth: &str) -> Result<(), Error> {
    let decode = |value: &str| URL_SAFE_NO_PAD.decode(value.trim_end_matches('=')).ok();
    decode(p256dh)
        .filter(|key| web_push_native::p256::PublicKey::from_sec1_bytes(key).is_ok())
        .ok_or_else(|| Error::invalid("keys.p256dh: a P-256 public key, base64url"))?;
    decode(auth)
        .filter(|auth| auth.len() == 16)
        .ok_or_else(|| Error::invalid("keys.auth: 16 bytes, base64url"))?;
    Ok(())
}

/// Whether a delivery may not connect to `ip`: loopback, private (RFC
/// 1918, unique local, shared), link-local, multicast, broadcast,
/// unspecified or documentation addresses, the IPv4 ones also inside IPv6.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_unspecified()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || a >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_forbidden(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8
        }
    }
}

/// How long a registration waits for its URL's host name to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

/// Checks a URL a client chose for deliveries (`field` names it): `https`,
/// and its host no loopback, private, link-local or multicast address, nor
/// a name resolving to one; with `allow_private` anything `http(s)`.
///
/// # Errors
/// [`Error::Invalid`] saying why.
pub async fn check_url(field: &str, url: &str, allow_private: bool) -> Result<(), Error> {
    let parsed = url::Url::parse(url).map_err(|_| Error::invalid(format!("{field}: not a URL")))?;
    let https = parsed.scheme() == "https";
    if !(https || allow_private && parsed.scheme() == "http") {
        return Err(Error::invalid(format!("{field}: must be an https:// URL")));
    }
    if url.len() > 2048 {
        return Err(Error::invalid(format!("{field}: at most 2048 characters")));
    }
    let host = parsed
        .host()
        .ok_or_else(|| Error::invalid(format!("{field}: has no host")))?;
    if allow_private {
        return Ok(());
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let addresses: Vec<IpAddr> = match host {
        url::Host::Ipv4(ip) => vec![IpAddr::V4(ip)],
        url::Host::Ipv6(ip) => vec![IpAddr::V6(ip)],
        url::Host::Domain(name) => {
            tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, port)))
                .await
                .ok()
                .and_then(Result::ok)
                .ok_or_else(|| Error::invalid(format!("{field}: its host name does not resolve")))?
                .map(|address| address.ip())
                .collect()
        }
    };
    if addresses.is_empty() || addresses.iter().copied().any(is_forbidden) {
        return Err(Error::invalid(format!(
            "{field}: must not be or resolve to a loopback, private, link-local or multicast address"
        )));
    }
    Ok(())
}

/// Who is at which game on this instance, to be written to the database
/// (at most once per player and game every [`Notifications::presence_interval`]):
/// reads of a game, and the streams and long polls held on it.
#[derive(Default)]
pub struct Presence {
    marks: Mutex<HashMap<(Uuid, Uuid), Mark>>,
}

#[derive(Default)]
struct Mark {
    /// A read not written yet, when (0: none).
    seen_at: i64,
    /// Streams and long polls held now.
    watchers: usize,
}

/// A stream or long poll held on a game: the player counts as watching it
/// until this is dropped.
pub struct Watching {
    presence: Arc<Presence>,
    key: (Uuid, Uuid),
}

impl Drop for Watching {
    fn drop(&mut self) {
        let mut marks = lock(&self.presence.marks);
        if let Some(mark) = marks.get_mut(&self.key) {
            mark.watchers = mark.watchers.saturating_sub(1);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// What to write of one player's presence at one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PresenceMark {
    /// The player.
    pub player: Uuid,
    /// The game.
    pub game: Uuid,
    /// When it read the game (0: not since the last write).
    pub seen_at: i64,
    /// Whether it holds a stream or long poll on it.
    pub watching: bool,
}

impl Presence {
    /// `player` read `game` at `at`.
    pub fn seen(&self, player: Uuid, game: Uuid, at: i64) {
        let mut marks = lock(&self.marks);
        let mark = marks.entry((player, game)).or_default();
        mark.seen_at = mark.seen_at.max(at);
    }

    /// `player` holds a stream or long poll on `game` until the answer is
    /// dropped.
    pub fn watch(self: &Arc<Self>, player: Uuid, game: Uuid) -> Watching {
        lock(&self.marks)
            .entry((player, game))
            .or_default()
            .watchers += 1;
        Watching {
            presence: Arc::clone(self),
            key: (player, game),
        }
    }

    /// What to write now; the reads are forgotten, and so are marks with
    /// nothing left to write.
    pub fn take(&self) -> Vec<PresenceMark> {
        let mut marks = lock(&self.marks);
        let taken = marks
            .iter_mut()
            .filter(|(_, mark)| mark.seen_at > 0 || mark.watchers > 0)
            .map(|(&(player, game), mark)| {
                let seen_at = std::mem::take(&mut mark.seen_at);
                PresenceMark {
                    player,
                    game,
                    seen_at,
                    watching: mark.watchers > 0,
                }
            })
            .collect();
        marks.retain(|_, mark| mark.watchers > 0);
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliveries_never_go_to_loopback_private_link_local_or_multicast_addresses() {
        for forbidden in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "224.0.0.1",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(is_forbidden(forbidden.parse().unwrap()), "{forbidden}");
        }
        for public in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            assert!(!is_forbidden(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn a_webhook_secret_is_whsec_and_base64_of_enough_bytes() {
        let secret = new_secret();
        assert_eq!(secret_key(&secret).unwrap().len(), 32);
        assert!(secret_key("whsec_c2hvcnQ=").is_none());
        assert!(secret_key(&secret[6..]).is_none());
    }

    #[test]
    fn presence_is_written_once_per_read_and_while_watched() {
        let presence = Arc::new(Presence::default());
        let (player, game) = (Uuid::new_v4(), Uuid::new_v4());
        presence.seen(player, game, 5);
        presence.seen(player, game, 7);
        let taken = presence.take();
        assert_eq!(taken.len(), 1);
        assert_eq!((taken[0].seen_at, taken[0].watching), (7, false));
        assert!(presence.take().is_empty());
        let watching = presence.watch(player, game);
        assert!(presence.take()[0].watching);
        drop(watching);
        assert!(presence.take().is_empty());
    }
}
