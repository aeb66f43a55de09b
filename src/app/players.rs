//! Players: a guest signs up with a name and gets a token; a player renews
//! its token, signs out everywhere, reads and changes its name, and anyone
//! reads a player's results.

use chrono::{DateTime, Utc};
use skillratings::weng_lin::WengLinRating;
use uuid::Uuid;

use super::context::App;
use super::error::Error;
use crate::auth::TokenError;
use crate::store::friends::{self as results, StatsRow};
use crate::store::players::{self, PlayerRow};
use crate::store::{Backend, listen};
use crate::table::GameKind;

/// The longest player name, in characters.
pub const NAME_MAX: usize = 40;

/// `name` trimmed, when it is a name others may see: at most
/// [`NAME_MAX`] characters as sent (as the OpenAPI document's `maxLength`
/// says), not blank, no control characters (sign-up and renaming).
///
/// # Errors
/// [`Error::Invalid`] otherwise.
pub fn valid_name(name: &str) -> Result<&str, Error> {
    let sent = name.chars().count();
    let name = name.trim();
    if name.is_empty() || sent > NAME_MAX || name.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "name: 1 to {NAME_MAX} characters, not blank, no control characters"
        )));
    }
    Ok(name)
}

/// A bearer token issued to a player.
pub struct Issued {
    /// The player.
    pub player: Uuid,
    /// The token, for `Authorization: Bearer <token>`.
    pub token: String,
    /// When it expires.
    pub expires_at: DateTime<Utc>,
}

impl Issued {
    fn new(app: &App, player: Uuid, generation: i64) -> Issued {
        let (token, expires_at) = app.tokens.issue(player, generation, Utc::now());
        Issued {
            player,
            token,
            expires_at,
        }
    }
}

/// A new guest player named `name` (trimmed), and its first token.
///
/// # Errors
/// [`Error::Invalid`] for a name others may not see; the database's.
pub async fn sign_up(app: &App, name: &str) -> Result<(String, Issued), Error> {
    let name = valid_name(name)?;
    let id = Uuid::new_v4();
    let mut conn = app.store.acquire().await?;
    players::insert(&mut conn, id, name).await?;
    Ok((name.to_owned(), Issued::new(app, id, 0)))
}

/// The caller's player.
///
/// # Errors
/// [`Error::Token`] when the player is gone; the database's.
pub async fn me(app: &App, caller: Uuid) -> Result<PlayerRow, Error> {
    let mut conn = app.store.acquire().await?;
    players::get(&mut conn, caller)
        .await?
        .ok_or(Error::Token(TokenError::Invalid))
}

/// A fresh token for the caller, valid for the full token lifetime; the
/// caller's current token stays valid until it expires.
///
/// # Errors
/// [`Error::Token`] when the player is gone; the database's.
pub async fn renew_token(app: &App, caller: Uuid) -> Result<Issued, Error> {
    let mut conn = app.store.acquire().await?;
    let generation = players::token_generation(&mut conn, caller)
        .await?
        .ok_or(Error::Token(TokenError::Invalid))?;
    Ok(Issued::new(app, caller, generation))
}

/// Signs the caller out everywhere: every token issued to it before is
/// refused from now on, and the streams and long polls they hold end.
/// Returns the one token issued since.
///
/// # Errors
/// [`Error::Token`] when the player is gone; the database's.
pub async fn sign_out(app: &App, caller: Uuid) -> Result<Issued, Error> {
    let mut conn = app.store.acquire().await?;
    let generation = players::next_token_generation(&mut conn, caller)
        .await?
        .ok_or(Error::Token(TokenError::Invalid))?;
    // Streams and long polls the old tokens hold end now, here and on
    // every other instance, each after its own check of the token.
    app.notifier.signed_out(caller);
    if app.store.backend() == Backend::Postgres
        && let Err(error) = listen::announce_sign_out(&mut conn, caller).await
    {
        // Each stream still checks its token before its next event.
        tracing::warn!(%error, "could not announce a sign-out to the other instances");
    }
    Ok(Issued::new(app, caller, generation))
}

/// A player and its results in each game.
pub struct Profile {
    /// The player.
    pub player: PlayerRow,
    /// Klaverjassen: finished matches and rating.
    pub klaverjassen: Results,
    /// Potverteren: finished tables and rating.
    pub potverteren: Results,
}

/// A player's finished games of one kind, and its rating in it.
pub struct Results {
    /// Games finished.
    pub played: i64,
    /// Games won.
    pub won: i64,
    /// Games drawn.
    pub drawn: i64,
    /// Klaverjassen: the player's team's points over all deals.
    pub points: i64,
    /// Klaverjassen: deals played.
    pub deals: i64,
    /// Potverteren: net chips over all tables.
    pub chips: i64,
    /// The Weng-Lin rating.
    pub rating: f64,
    /// The Weng-Lin uncertainty.
    pub uncertainty: f64,
}

impl Results {
    /// No game finished yet, and a new player's rating.
    fn none() -> Results {
        let fresh = WengLinRating::new();
        Results {
            played: 0,
            won: 0,
            drawn: 0,
            points: 0,
            deals: 0,
            chips: 0,
            rating: fresh.rating,
            uncertainty: fresh.uncertainty,
        }
    }
}

impl From<StatsRow> for Results {
    fn from(row: StatsRow) -> Self {
        Results {
            played: row.played,
            won: row.won,
            drawn: row.drawn,
            points: row.points,
            deals: row.deals,
            chips: row.chips,
            rating: row.rating,
            uncertainty: row.uncertainty,
        }
    }
}

/// Player `id` and its results, read on `conn`: a game it never finished
/// shows no results and a new player's rating.
async fn profile_on(conn: &mut sqlx::AnyConnection, id: Uuid) -> Result<Profile, Error> {
    let player = players::get(conn, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no player {id}")))?;
    let mut in_game = async |kind: GameKind| -> Result<Results, Error> {
        let stats = results::stats(conn, id, kind.as_str()).await?;
        Ok(stats.map_or_else(Results::none, Results::from))
    };
    let klaverjassen = in_game(GameKind::Klaverjassen).await?;
    let potverteren = in_game(GameKind::Potverteren).await?;
    Ok(Profile {
        player,
        klaverjassen,
        potverteren,
    })
}

/// Player `id`'s public profile.
///
/// # Errors
/// [`Error::NotFound`]; the database's.
pub async fn profile(app: &App, id: Uuid) -> Result<Profile, Error> {
    let mut conn = app.store.acquire().await?;
    profile_on(&mut conn, id).await
}

/// Renames the caller to `name` (trimmed); every table shows the new name.
/// Returns the caller's profile.
///
/// # Errors
/// [`Error::Invalid`] for a name others may not see; [`Error::Token`]
/// when the player is gone; the database's.
pub async fn rename(app: &App, caller: Uuid, name: &str) -> Result<Profile, Error> {
    let name = valid_name(name)?;
    let mut tx = app.store.begin_write().await?;
    if !results::rename(&mut tx, caller, name).await? {
        return Err(Error::Token(TokenError::Invalid));
    }
    let profile = profile_on(&mut tx, caller).await?;
    tx.commit().await?;
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length is the name's as sent, before trimming: the document's
    /// `maxLength` holds for what a client sends.
    #[test]
    fn a_name_is_at_most_forty_characters_as_sent_and_kept_trimmed() {
        let forty = "a".repeat(NAME_MAX);
        assert_eq!(valid_name(&forty).unwrap(), forty);
        assert_eq!(valid_name(" Anne ").unwrap(), "Anne");
        assert!(valid_name(&format!("\u{a0}{forty}")).is_err());
        assert!(valid_name(&format!("{}\u{a0}", "a".repeat(NAME_MAX - 1))).is_ok());
        assert!(valid_name(" \u{a0} ").is_err());
        assert!(valid_name("An\nne").is_err());
    }
}
