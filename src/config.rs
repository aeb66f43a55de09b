//! Settings read once from the environment at start, into typed values.
//!
//! An invalid value is an error that names the variable; `main` prints it and
//! exits. Secrets are wrapped in [`Secret`] so they never reach a log line.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

/// A value that must not be printed: `Debug` and `Display` show `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where the games are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// A Postgres server (`DATABASE_URL=postgres://…`).
    Postgres(Secret),
    /// An embedded SQLite file, created on first start.
    Sqlite(String),
}

/// Tokens of an external identity provider, accepted beside our own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The provider's public key, PEM (RSA or EC).
    pub public_key_pem: String,
    /// The `iss` every token must carry.
    pub issuer: String,
    /// The `aud` every token must carry.
    pub audience: String,
}

/// Everything the service is configured with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Address to listen on (`HOST`, default 127.0.0.1).
    pub host: IpAddr,
    /// Port to listen on (`PORT`, default 8080; 0 picks a free one).
    pub port: u16,
    /// The database (`DATABASE_URL`; unset means the embedded SQLite file).
    pub database: Database,
    /// The HS256 signing secret (`JWT_SECRET`); `None` means one kept in the database.
    pub jwt_secret: Option<Secret>,
    /// How long an issued token is valid (`TOKEN_TTL`, seconds, default 30 days).
    pub token_ttl: Duration,
    /// Optional external identity provider (`AUTH_EXTERNAL_*`).
    pub external_identity: Option<ExternalIdentity>,
}

/// The default embedded database file.
pub const DEFAULT_SQLITE_PATH: &str = "kaarttafel.db";
/// The default token lifetime: 30 days.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// A variable with a value the service cannot use.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid {variable}: {reason}")]
pub struct ConfigError {
    /// The environment variable.
    pub variable: &'static str,
    /// Why its value was refused.
    pub reason: String,
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Settings, ConfigError> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests need not touch the environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let invalid = |variable: &'static str, reason: String| ConfigError { variable, reason };

        let host = match get("HOST") {
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| invalid("HOST", format!("`{v}` is not an IP address")))?,
            None => IpAddr::from([127, 0, 0, 1]),
        };
        let port = match get("PORT") {
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| invalid("PORT", format!("`{v}` is not a port (0..65535)")))?,
            None => 8080,
        };
        let database = match get("DATABASE_URL") {
            None => Database::Sqlite(DEFAULT_SQLITE_PATH.to_owned()),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Database::Postgres(Secret::new(url))
            }
            Some(url) if url.starts_with("sqlite:") => {
                let path = url
                    .trim_start_matches("sqlite://")
                    .trim_start_matches("sqlite:");
                Database::Sqlite(path.to_owned())
            }
            Some(_) => {
                return Err(invalid(
                    "DATABASE_URL",
                    "expected postgres://… or sqlite:PATH (leave it unset for the embedded default)".into(),
                ));
            }
        };
        let jwt_secret = match get("JWT_SECRET") {
            Some(v) if v.len() < 32 => {
                return Err(invalid(
                    "JWT_SECRET",
                    "must be at least 32 characters".into(),
                ));
            }
            Some(v) => Some(Secret::new(v)),
            None => None,
        };
        let token_ttl = match get("TOKEN_TTL") {
            Some(v) => match v.trim().parse::<u64>() {
                Ok(secs) if (60..=31_536_000).contains(&secs) => Duration::from_secs(secs),
                _ => {
                    return Err(invalid(
                        "TOKEN_TTL",
                        format!("`{v}` is not a number of seconds between 60 and 31536000"),
                    ));
                }
            },
            None => DEFAULT_TOKEN_TTL,
        };
        let external = (
            get("AUTH_EXTERNAL_PUBLIC_KEY"),
            get("AUTH_EXTERNAL_ISSUER"),
            get("AUTH_EXTERNAL_AUDIENCE"),
        );
        let external_identity = match external {
            (None, None, None) => None,
            (Some(public_key_pem), Some(issuer), Some(audience)) => Some(ExternalIdentity {
                public_key_pem,
                issuer,
                audience,
            }),
            _ => {
                return Err(invalid(
                    "AUTH_EXTERNAL_PUBLIC_KEY",
                    "set AUTH_EXTERNAL_PUBLIC_KEY, AUTH_EXTERNAL_ISSUER and AUTH_EXTERNAL_AUDIENCE together".into(),
                ));
            }
        };
        Ok(Settings {
            host,
            port,
            database,
            jwt_secret,
            token_ttl,
            external_identity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        Settings::from_lookup(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn defaults_run_on_the_embedded_database() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.host, IpAddr::from([127, 0, 0, 1]));
        assert_eq!(s.port, 8080);
        assert_eq!(s.database, Database::Sqlite(DEFAULT_SQLITE_PATH.into()));
        assert_eq!(s.jwt_secret, None);
        assert_eq!(s.token_ttl, DEFAULT_TOKEN_TTL);
    }

    #[test]
    fn invalid_values_name_their_variable() {
        for (var, value) in [
            ("HOST", "localhost:80"),
            ("PORT", "70000"),
            ("DATABASE_URL", "mysql://x"),
            ("JWT_SECRET", "short"),
            ("TOKEN_TTL", "forever"),
            ("TOKEN_TTL", "5"),
        ] {
            assert_eq!(
                settings(&[(var, value)]).unwrap_err().variable,
                var,
                "{var}={value}"
            );
        }
        assert_eq!(
            settings(&[("AUTH_EXTERNAL_ISSUER", "x")])
                .unwrap_err()
                .variable,
            "AUTH_EXTERNAL_PUBLIC_KEY"
        );
    }

    #[test]
    fn secrets_never_print() {
        let s = settings(&[
            ("DATABASE_URL", "postgres://user:hunter2@db/x"),
            ("JWT_SECRET", "0123456789abcdef0123456789abcdef-secret"),
        ])
        .unwrap();
        let printed = format!("{s:?}");
        assert!(
            !printed.contains("hunter2") && !printed.contains("-secret"),
            "{printed}"
        );
    }
}
