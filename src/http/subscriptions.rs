//! Notifications over HTTP: a player's subscriptions (Web Push and
//! webhooks) and the VAPID public key browsers subscribe with
//! (docs/notifications.md).

use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::problems::Unauthenticated;
use super::state::AppState;
use crate::app::subscriptions::{self as subscribing, NewSubscription, SubscriptionRow};

/// A browser's push keys, as its `PushSubscription` gives them.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushKeys {
    /// The browser's P-256 public key, base64url (65 bytes, uncompressed).
    #[schema(
        example = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"
    )]
    pub p256dh: String,
    /// The browser's authentication secret, base64url (16 bytes).
    #[schema(example = "tBHItJI5svbpez7KI4CCXg")]
    pub auth: String,
}

/// A subscription to make: a browser's `PushSubscription` as JSON with
/// `kind: "web_push"`, or an app backend's webhook.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Subscribe {
    /// A browser's push subscription.
    WebPush {
        /// The push service's URL (`https`).
        #[schema(example = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABh")]
        endpoint: String,
        /// The browser's keys.
        keys: PushKeys,
        /// As the browser gives it; not used.
        #[serde(rename = "expirationTime", default, skip_serializing)]
        #[schema(value_type = Option<i64>)]
        expiration_time: Option<serde_json::Value>,
    },
    /// An app backend that relays to FCM or APNs.
    Webhook {
        /// Where deliveries are posted (`https`).
        #[schema(example = "https://app.example/hooks/kaarttafel")]
        url: String,
        /// The signing secret, `whsec_` + base64 of 24 to 64 bytes;
        /// generated when absent.
        #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
        secret: Option<String>,
    },
}

/// A subscription.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0b7c1e52-3f4a-4c2d-9a8e-6f1b2c3d4e5f", "kind": "webhook",
    "url": "https://app.example/hooks/kaarttafel", "created_at": "2026-05-01T19:30:00.000Z",
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}))]
pub struct Subscription {
    /// Its id.
    pub id: Uuid,
    /// `web_push` or `webhook`.
    #[schema(example = "webhook")]
    pub kind: String,
    /// A Web Push subscription's push service URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// A webhook's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// A webhook's signing secret: only in the answer that made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

impl Subscription {
    fn from_row(row: SubscriptionRow, with_secret: bool) -> Subscription {
        let push = row.kind == "web_push";
        Subscription {
            id: row.id,
            endpoint: push.then(|| row.url.clone()),
            url: (!push).then_some(row.url),
            kind: row.kind,
            created_at: DateTime::from_timestamp_micros(row.created_at).unwrap_or_default(),
            secret: row.secret.filter(|_| with_secret),
        }
    }
}

/// A player's subscriptions.
#[derive(Serialize, ToSchema)]
pub struct Subscriptions {
    /// Oldest first, without secrets.
    pub subscriptions: Vec<Subscription>,
}

/// The VAPID public key.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"public_key": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U"}))]
pub struct VapidPublicKey {
    /// Base64url of the uncompressed P-256 point: a browser's
    /// `applicationServerKey`.
    pub public_key: String,
}

/// Subscribes the caller to notifications: a browser's Web Push
/// subscription or an app backend's webhook. A subscription to a URL the
/// caller has one to already replaces it (same id). A webhook's secret is
/// shown only in this answer.
#[utoipa::path(tag = "notifications", security(("bearer" = [])), request_body = Subscribe,
    responses(
        (status = 201, description = "Subscribed", body = Subscription),
        Unauthenticated,
        (status = 409, description = "`too_many_subscriptions`: the caller has 10 already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: not `https`, a loopback, private, link-local or multicast address (or a name resolving to one), bad keys or secret", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/players/me/subscriptions")]
pub async fn subscribe(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    body: web::Json<Subscribe>,
) -> Result<HttpResponse, ApiError> {
    let new = match body.into_inner() {
        Subscribe::WebPush { endpoint, keys, .. } => NewSubscription::WebPush {
            endpoint,
            p256dh: keys.p256dh,
            auth: keys.auth,
        },
        Subscribe::Webhook { url, secret } => NewSubscription::Webhook { url, secret },
    };
    let row = subscribing::subscribe(&state.app, caller.id, new).await?;
    Ok(HttpResponse::Created().json(Subscription::from_row(row, true)))
}

/// The caller's subscriptions, without secrets.
#[utoipa::path(tag = "notifications", security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's subscriptions", body = Subscriptions),
        Unauthenticated,
    ))]
#[get("/players/me/subscriptions")]
pub async fn subscriptions(
    state: web::Data<AppState>,
    caller: AuthPlayer,
) -> Result<web::Json<Subscriptions>, ApiError> {
    let rows = subscribing::subscriptions(&state.app, caller.id).await?;
    Ok(web::Json(Subscriptions {
        subscriptions: rows
            .into_iter()
            .map(|row| Subscription::from_row(row, false))
            .collect(),
    }))
}

/// Removes one of the caller's subscriptions; nothing more is sent to it.
#[utoipa::path(tag = "notifications", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The subscription")),
    responses(
        (status = 204, description = "Removed"),
        Unauthenticated,
        (status = 404, description = "`not_found`: the caller has no such subscription", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/players/me/subscriptions/{id}")]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    subscribing::unsubscribe(&state.app, caller.id, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The VAPID public key (RFC 8292) a browser subscribes with
/// (`applicationServerKey`).
#[utoipa::path(tag = "notifications",
    responses((status = 200, description = "The key", body = VapidPublicKey)))]
#[get("/notifications/vapid_public_key")]
pub async fn vapid_public_key(state: web::Data<AppState>) -> web::Json<VapidPublicKey> {
    web::Json(VapidPublicKey {
        public_key: state.app.notifications.vapid.public_key.clone(),
    })
}
