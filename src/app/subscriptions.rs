//! Players' notification subscriptions: a browser's Web Push subscription
//! or an app backend's webhook, at most [`MAX_SUBSCRIPTIONS`] a player
//! (docs/notifications.md).

use uuid::Uuid;

use super::context::App;
use super::error::Error;
use super::notifications::{check_url, new_secret, push_keys, secret_key};
use crate::store::notifications as store;
pub use crate::store::notifications::SubscriptionRow;

/// The most subscriptions a player has.
pub const MAX_SUBSCRIPTIONS: usize = 10;

/// A subscription to make.
pub enum NewSubscription {
    /// A browser's `PushSubscription`.
    WebPush {
        /// The push service's URL.
        endpoint: String,
        /// The browser's P-256 public key, base64url.
        p256dh: String,
        /// The browser's authentication secret, base64url.
        auth: String,
    },
    /// An app backend's webhook.
    Webhook {
        /// Where the deliveries are posted.
        url: String,
        /// The signing secret, `whsec_` + base64; generated when absent.
        secret: Option<String>,
    },
}

/// Makes a subscription for `player`, or replaces the one to the same URL.
/// Returns it with its secret (a webhook's; shown only now).
///
/// # Errors
/// [`Error::Invalid`] for a URL that is not `https`, or names or resolves
/// to a loopback, private, link-local or multicast address (unless
/// allowed), for keys that are no keys and a secret that is no secret;
/// [`Error::Conflict`] `too_many_subscriptions` past
/// [`MAX_SUBSCRIPTIONS`]; the database's.
pub async fn subscribe(
    app: &App,
    player: Uuid,
    new: NewSubscription,
) -> Result<SubscriptionRow, Error> {
    let allow_private = app.notifications.allow_private;
    let mut row = SubscriptionRow {
        id: Uuid::new_v4(),
        player,
        kind: String::new(),
        url: String::new(),
        p256dh: None,
        auth: None,
        secret: None,
        created_at: app.now(),
    };
    match new {
        NewSubscription::WebPush {
            endpoint,
            p256dh,
            auth,
        } => {
            check_url("endpoint", &endpoint, allow_private).await?;
            push_keys(&p256dh, &auth)?;
            row.kind = "web_push".into();
            row.url = endpoint;
            row.p256dh = Some(p256dh);
            row.auth = Some(auth);
        }
        NewSubscription::Webhook { url, secret } => {
            check_url("url", &url, allow_private).await?;
            let secret = match secret {
                Some(secret) => {
                    secret_key(&secret).ok_or_else(|| {
                        Error::invalid("secret: `whsec_` and the base64 of 24 to 64 bytes")
                    })?;
                    secret
                }
                None => new_secret(),
            };
            row.kind = "webhook".into();
            row.url = url;
            row.secret = Some(secret);
        }
    }
    let mut tx = app.store.begin_write().await?;
    store::lock_player(&mut tx, app.store.backend(), player).await?;
    let held = store::subscriptions_of(&mut tx, player).await?;
    if held.len() >= MAX_SUBSCRIPTIONS && !held.iter().any(|s| s.url == row.url) {
        return Err(Error::Conflict {
            code: "too_many_subscriptions",
            detail: format!(
                "a player has at most {MAX_SUBSCRIPTIONS} subscriptions; delete one first"
            ),
        });
    }
    row.id = store::upsert_subscription(&mut tx, &row).await?;
    tx.commit().await?;
    Ok(row)
}

/// `player`'s subscriptions, oldest first.
///
/// # Errors
/// The database's.
pub async fn subscriptions(app: &App, player: Uuid) -> Result<Vec<SubscriptionRow>, Error> {
    let mut conn = app.store.acquire().await?;
    Ok(store::subscriptions_of(&mut conn, player).await?)
}

/// Removes `player`'s subscription `id`, with what was still to be sent to it.
///
/// # Errors
/// [`Error::NotFound`] when the player has no such subscription; the
/// database's.
pub async fn unsubscribe(app: &App, player: Uuid, id: Uuid) -> Result<(), Error> {
    let mut tx = app.store.begin_write().await?;
    if !store::delete_subscription(&mut tx, id, Some(player)).await? {
        return Err(Error::NotFound(format!("no subscription {id}")));
    }
    tx.commit().await?;
    Ok(())
}
