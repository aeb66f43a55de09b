//! The settings of notifications (docs/notifications.md): how long a
//! `your_turn` is held, the VAPID key and contact, whether webhooks and push
//! endpoints may be private addresses, and how long deliveries are retried.

use std::time::Duration;

use super::{ConfigError, Secret};

/// How notifications are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotificationSettings {
    /// How long a `your_turn` is held before it is sent, and dropped if the
    /// player is at the game meanwhile (`NOTIFY_DELAY`, seconds, default 5).
    pub delay: Duration,
    /// Whether webhook URLs and push endpoints may be `http://` and name
    /// loopback, private, link-local or multicast addresses
    /// (`WEBHOOK_ALLOW_PRIVATE=1`, for tests and private networks).
    pub allow_private: bool,
    /// The VAPID private key, base64url of the 32-byte P-256 scalar
    /// (`VAPID_PRIVATE_KEY`); `None`: one generated once and kept in the
    /// database.
    pub vapid_private_key: Option<Secret>,
    /// The contact push services see in the VAPID token (`VAPID_SUBJECT`,
    /// `mailto:` or `https:`).
    pub vapid_subject: String,
    /// The longest wait between two attempts of a delivery
    /// (`NOTIFY_RETRY_MAX`, seconds, default 3600).
    pub retry_max: Duration,
    /// How long a notification is retried before it is dropped
    /// (`NOTIFY_GIVE_UP`, seconds, default 86400).
    pub give_up: Duration,
}

/// The contact when `VAPID_SUBJECT` is not set.
pub const DEFAULT_VAPID_SUBJECT: &str = "mailto:notifications@kaarttafel.invalid";

impl Default for NotificationSettings {
    fn default() -> Self {
        NotificationSettings {
            delay: Duration::from_secs(5),
            allow_private: false,
            vapid_private_key: None,
            vapid_subject: DEFAULT_VAPID_SUBJECT.to_owned(),
            retry_max: Duration::from_secs(3600),
            give_up: Duration::from_secs(24 * 3600),
        }
    }
}

/// Reads the notification settings through `get` (a variable's value,
/// `None` when unset or blank).
pub fn read(get: &impl Fn(&str) -> Option<String>) -> Result<NotificationSettings, ConfigError> {
    let defaults = NotificationSettings::default();
    let seconds = |variable: &'static str, max: f64, default: Duration| match get(variable) {
        None => Ok(default),
        Some(v) => match v.trim().parse::<f64>() {
            Ok(secs) if (0.0..=max).contains(&secs) => Ok(Duration::from_secs_f64(secs)),
            _ => Err(ConfigError {
                variable,
                reason: format!("`{v}` is not a number of seconds between 0 and {max}"),
            }),
        },
    };
    let allow_private = match get("WEBHOOK_ALLOW_PRIVATE").as_deref().map(str::trim) {
        None | Some("0" | "false") => false,
        Some("1" | "true") => true,
        Some(v) => {
            return Err(ConfigError {
                variable: "WEBHOOK_ALLOW_PRIVATE",
                reason: format!("`{v}` is not 1 or 0"),
            });
        }
    };
    let vapid_private_key = get("VAPID_PRIVATE_KEY").map(|v| Secret::new(v.trim()));
    let vapid_subject = match get("VAPID_SUBJECT") {
        None => defaults.vapid_subject,
        Some(v) if v.starts_with("mailto:") || v.starts_with("https://") => v.trim().to_owned(),
        Some(v) => {
            return Err(ConfigError {
                variable: "VAPID_SUBJECT",
                reason: format!("`{v}` is not a mailto: or https: URL"),
            });
        }
    };
    Ok(NotificationSettings {
        delay: seconds("NOTIFY_DELAY", 3600.0, defaults.delay)?,
        allow_private,
        vapid_private_key,
        vapid_subject,
        retry_max: seconds("NOTIFY_RETRY_MAX", 86_400.0, defaults.retry_max)?,
        give_up: seconds("NOTIFY_GIVE_UP", 7.0 * 86_400.0, defaults.give_up)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_from(vars: &[(&str, &str)]) -> Result<NotificationSettings, ConfigError> {
        read(&|name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn a_your_turn_is_held_five_seconds_unless_configured() {
        assert_eq!(read_from(&[]).unwrap(), NotificationSettings::default());
        let s = read_from(&[("NOTIFY_DELAY", "0.5"), ("WEBHOOK_ALLOW_PRIVATE", "1")]).unwrap();
        assert_eq!(s.delay, Duration::from_millis(500));
        assert!(s.allow_private);
    }

    #[test]
    fn a_vapid_subject_is_a_mailto_or_https_url() {
        assert_eq!(
            read_from(&[("VAPID_SUBJECT", "ops@example.com")])
                .unwrap_err()
                .variable,
            "VAPID_SUBJECT"
        );
        assert_eq!(
            read_from(&[("NOTIFY_DELAY", "soon")]).unwrap_err().variable,
            "NOTIFY_DELAY"
        );
    }
}
