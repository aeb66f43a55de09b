//! Who the bearer of a verified token is: its player, while the token's
//! generation is the player's current one (signing out starts a new one),
//! or the player of an external identity's subject, made on its first
//! visit. The commonest requests read the token's player in the same
//! statement as their game and [`accept`] what they read.

use sqlx::AnyConnection;
use uuid::Uuid;

use super::context::App;
use super::error::Error;
use crate::auth::{Identity, TokenError};
use crate::store::games::CallerToken;
use crate::store::{cleanup, players};

/// How stale a player's activity mark may get before an authenticated
/// request writes it again: one hour, so a busy player costs one write an
/// hour, not one per request.
pub const TOUCH_EVERY_MICROS: i64 = 3600 * 1_000_000;

/// The player of `identity`, given what was read about it (`found`: its
/// token generation and last activity, `None` when there is no such
/// player); marks the player active when that is due.
///
/// # Errors
/// [`Error::Token`] for a player that does not exist (never did, or was
/// removed as an idle guest) or signed out since the token was issued; an
/// external identity is never accepted this way.
pub async fn accept(
    app: &App,
    conn: &mut AnyConnection,
    identity: &Identity,
    found: CallerToken,
) -> Result<Uuid, Error> {
    let Identity::Player { id, generation } = *identity else {
        return Err(Error::Internal(
            "an external identity is checked, not accepted".into(),
        ));
    };
    match found {
        Some((current, seen)) if current == generation => {
            let now = app.now();
            if seen < now - TOUCH_EVERY_MICROS {
                // Activity keeps a guest (docs/operations.md); a failed
                // mark costs the caller nothing.
                if let Err(error) = cleanup::touch(conn, id, now).await {
                    tracing::warn!(%error, "could not mark the player active");
                }
            }
            Ok(id)
        }
        Some(_) => Err(TokenError::SignedOut.into()),
        None => Err(TokenError::Invalid.into()),
    }
}

/// The player of `identity`, read on `conn` with a statement of its own.
///
/// # Errors
/// As [`accept`], or the database's error.
pub async fn check(
    app: &App,
    conn: &mut AnyConnection,
    identity: &Identity,
) -> Result<Uuid, Error> {
    match identity {
        Identity::Player { id, .. } => {
            let found = cleanup::player_for_token(conn, *id).await?;
            accept(app, conn, identity, found).await
        }
        Identity::External { subject, name } => {
            let player = players::for_external_subject(conn, subject, name).await?;
            Ok(player.id)
        }
    }
}

/// The player of `identity`, on a connection of its own, given back
/// before the request goes on.
///
/// # Errors
/// As [`check`].
pub async fn authenticate(app: &App, identity: &Identity) -> Result<Uuid, Error> {
    match *identity {
        // One primary-key read per request makes sign-out immediate on
        // every instance (docs/api.md, tokens).
        Identity::Player { id, .. } => {
            let (mut conn, found) = app
                .store
                .acquire_with(async |conn| cleanup::player_for_token(conn, id).await)
                .await?;
            accept(app, &mut conn, identity, found).await
        }
        Identity::External { .. } => {
            let mut conn = app.store.acquire().await?;
            check(app, &mut conn, identity).await
        }
    }
}

/// Whether a token whose `exp` is `expires_at` (Unix seconds), checked
/// when a stream or long poll began, is still unexpired now, by the
/// application's clock and with the check's leeway.
///
/// # Errors
/// [`Error::Token`] `Expired` once it is not.
pub fn unexpired(app: &App, expires_at: i64) -> Result<(), Error> {
    let now = app.now().div_euclid(1_000_000);
    if now > expires_at.saturating_add(crate::auth::LEEWAY as i64) {
        return Err(TokenError::Expired.into());
    }
    Ok(())
}

/// The player a token of ours names, to read beside a game; `None` for an
/// external identity, which [`check`] maps to a player.
pub fn named_player(identity: &Identity) -> Option<Uuid> {
    match identity {
        Identity::Player { id, .. } => Some(*id),
        Identity::External { .. } => None,
    }
}
