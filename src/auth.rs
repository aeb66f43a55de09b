//! Bearer tokens: our own HS256 tokens for guest players, and optionally the
//! tokens of an external identity provider (RS256/ES256), whose `sub` maps to
//! a player of ours.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use jsonwebtoken::{
    Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, decode_header, encode,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::config::{ExternalIdentity, Secret};

/// The `iss` of the tokens this service issues.
pub const ISSUER: &str = "kaarttafel";

/// What a verified token says about its bearer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    /// A player of ours, by id, with the token generation the token was
    /// issued in (valid only while it is the player's current one).
    Player {
        /// The player's id.
        id: Uuid,
        /// The player's token generation when the token was issued.
        generation: i64,
    },
    /// A subject of the external identity provider, with the name it gave.
    External {
        /// The provider's `sub`.
        subject: String,
        /// The provider's `name` claim, or the subject.
        name: String,
    },
}

/// Why a token was refused. Every case is a 401 to the caller.
#[derive(Clone, Copy, Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    /// No `Authorization: Bearer …` header.
    #[error("this call needs an `Authorization: Bearer <token>` header")]
    Missing,
    /// Not a token we accept: malformed, wrong algorithm, bad signature or claims.
    #[error("the bearer token is not valid")]
    Invalid,
    /// A valid token past its `exp`.
    #[error("the bearer token has expired")]
    Expired,
    /// A token issued before its player signed out everywhere.
    #[error("the bearer token was signed out (sign_out); use the token issued since")]
    SignedOut,
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    iat: i64,
    exp: i64,
    iss: String,
    /// The player's token generation (`players.token_generation`) at issue;
    /// absent in the provider's tokens and in tokens issued before sign-out
    /// existed, both read as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    generation: Option<i64>,
}

/// Seconds a token is still accepted past its `exp` (clock skew).
pub const LEEWAY: u64 = 5;

/// How many verified tokens [`Tokens`] remembers; when full it forgets
/// them all and starts again (a token is verified again at most once per
/// fill, and the memory stays bounded: about 300 bytes an entry for a
/// token of ours, up to about 1.5 KB for a provider's RS256 token with its
/// name, so at most about 6 MB).
const VERIFIED_MAX: usize = 4096;

/// Verified tokens, with who they name and their `exp` ([`Tokens`]).
type Verified = HashMap<String, (Identity, i64)>;

/// Issues and verifies tokens.
#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// The checks of our own HS256 tokens, built once.
    ours: Validation,
    /// The first segment (the encoded header) of every token we issue,
    /// with its dot: a token that starts with it needs no header parse.
    our_header: String,
    ttl: chrono::Duration,
    external: Option<(DecodingKey, Validation)>,
    /// Tokens that passed every check, ours and the provider's, with who
    /// they name and their `exp`. A token is the same text each time a
    /// client sends it, so its signature and claims need checking once;
    /// only its expiry is checked again. Whether one of ours was signed
    /// out is the store's question, asked on every request
    /// (`players.token_generation`). The provider's keys, issuer and
    /// audience are fixed while the instance runs, so its tokens' checks
    /// do not change either, and they cost the most: an ES256 or RS256
    /// signature, where ours is an HMAC.
    verified: Arc<Mutex<Verified>>,
}

impl Tokens {
    /// Keys from the HS256 `secret`, the token lifetime and the optional provider.
    pub fn new(
        secret: &Secret,
        ttl: std::time::Duration,
        external: Option<&ExternalIdentity>,
    ) -> Result<Tokens, jsonwebtoken::errors::Error> {
        let external = external
            .map(|provider| {
                let pem = provider.public_key_pem.as_bytes();
                let (key, algorithm) = match DecodingKey::from_rsa_pem(pem) {
                    Ok(key) => (key, Algorithm::RS256),
                    Err(_) => (DecodingKey::from_ec_pem(pem)?, Algorithm::ES256),
                };
                let mut validation = Validation::new(algorithm);
                validation.set_issuer(&[&provider.issuer]);
                validation.set_audience(&[&provider.audience]);
                // Without this a token that leaves `aud` or `iss` out passes:
                // jsonwebtoken only checks the claims that are present.
                validation.set_required_spec_claims(&["exp", "sub", "iss", "aud"]);
                validation.leeway = LEEWAY;
                Ok::<_, jsonwebtoken::errors::Error>((key, validation))
            })
            .transpose()?;
        let encoding = EncodingKey::from_secret(secret.expose().as_bytes())?;
        let mut ours = Validation::new(Algorithm::HS256);
        ours.set_issuer(&[ISSUER]);
        ours.set_required_spec_claims(&["exp", "sub", "iss"]);
        ours.leeway = LEEWAY;
        let sample = encode(&Header::new(Algorithm::HS256), &(), &encoding)?;
        let our_header = sample
            .split_inclusive('.')
            .next()
            .unwrap_or_default()
            .to_owned();
        Ok(Tokens {
            encoding,
            decoding: DecodingKey::from_secret(secret.expose().as_bytes())?,
            ours,
            our_header,
            ttl: chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::days(30)),
            external,
            verified: Arc::default(),
        })
    }

    /// A token for `player` in its token `generation`, and when it expires.
    pub fn issue(
        &self,
        player: Uuid,
        generation: i64,
        now: DateTime<Utc>,
    ) -> (String, DateTime<Utc>) {
        let expires_at = now + self.ttl;
        let claims = Claims {
            sub: player.to_string(),
            name: None,
            iat: now.timestamp(),
            exp: expires_at.timestamp(),
            iss: ISSUER.to_owned(),
            generation: Some(generation),
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing with an in-memory key cannot fail");
        (token, expires_at)
    }

    /// Who `token` speaks for. Only HS256 tokens of ours, or the external
    /// provider's algorithm when configured, are accepted (never `alg: none`).
    pub fn verify(&self, token: &str) -> Result<Identity, TokenError> {
        self.verify_until(token).map(|(identity, _)| identity)
    }

    /// [`Tokens::verify`], and the token's `exp` (Unix seconds): what a
    /// stream or long poll, which outlives the check at its start, checks
    /// again before each answer.
    pub fn verify_until(&self, token: &str) -> Result<(Identity, i64), TokenError> {
        let now = Utc::now().timestamp();
        if let Some(remembered) = self.remembered(token, now) {
            return Ok(remembered);
        }
        let ours = token.starts_with(&self.our_header)
            || decode_header(token).map_err(|_| TokenError::Invalid)?.alg == Algorithm::HS256;
        if ours {
            let claims = decode::<Claims>(token, &self.decoding, &self.ours)
                .map_err(classify)?
                .claims;
            let generation = claims.generation.unwrap_or(0);
            let identity = Uuid::parse_str(&claims.sub)
                .map(|id| Identity::Player { id, generation })
                .map_err(|_| TokenError::Invalid)?;
            self.remember(token, &identity, claims.exp);
            return Ok((identity, claims.exp));
        }
        let Some((key, validation)) = &self.external else {
            return Err(TokenError::Invalid);
        };
        let claims = decode::<Claims>(token, key, validation)
            .map_err(classify)?
            .claims;
        let name = claims.name.unwrap_or_else(|| claims.sub.clone());
        let identity = Identity::External {
            subject: claims.sub,
            name,
        };
        self.remember(token, &identity, claims.exp);
        Ok((identity, claims.exp))
    }
}

impl Tokens {
    /// Who `token` names and its `exp`, if it passed every check before
    /// and has not expired at `now` (Unix seconds), with the same leeway
    /// as the check.
    fn remembered(&self, token: &str, now: i64) -> Option<(Identity, i64)> {
        let verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
        let (identity, exp) = verified.get(token)?;
        (*exp >= now - LEEWAY as i64).then(|| (identity.clone(), *exp))
    }

    fn remember(&self, token: &str, identity: &Identity, exp: i64) {
        let mut verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
        if verified.len() >= VERIFIED_MAX {
            verified.clear();
        }
        verified.insert(token.to_owned(), (identity.clone(), exp));
    }
}

fn classify(error: jsonwebtoken::errors::Error) -> TokenError {
    match error.kind() {
        jsonwebtoken::errors::ErrorKind::ExpiredSignature => TokenError::Expired,
        _ => TokenError::Invalid,
    }
}

/// A fresh random HS256 secret (64 hex characters) for a database that has none.
pub fn generate_secret() -> Secret {
    use rand::RngExt;
    let bytes: [u8; 32] = rand::rng().random();
    Secret::new(crate::rules::fairness::to_hex(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens::new(
            &Secret::new("a".repeat(32)),
            std::time::Duration::from_secs(3600),
            None,
        )
        .unwrap()
    }

    #[test]
    fn an_issued_token_names_its_player() {
        let id = Uuid::new_v4();
        let (token, _) = tokens().issue(id, 3, Utc::now());
        assert_eq!(
            tokens().verify(&token),
            Ok(Identity::Player { id, generation: 3 })
        );
    }

    #[test]
    fn a_token_verified_before_is_refused_once_it_expires() {
        let tokens = tokens();
        let id = Uuid::new_v4();
        let (token, expires_at) = tokens.issue(id, 0, Utc::now());
        assert!(tokens.verify(&token).is_ok());
        let exp = expires_at.timestamp();
        let leeway = LEEWAY as i64;
        assert_eq!(
            tokens.remembered(&token, exp + leeway),
            Some((Identity::Player { id, generation: 0 }, exp))
        );
        assert_eq!(tokens.remembered(&token, exp + leeway + 1), None);
        // Only tokens that passed are remembered.
        let forged = format!("{token}x");
        assert_eq!(tokens.verify(&forged), Err(TokenError::Invalid));
        assert_eq!(tokens.remembered(&forged, 0), None);
    }

    /// The provider's token is checked (an ES256 signature) once, then
    /// remembered until it expires, like ours; one that fails is not.
    #[test]
    fn an_external_token_that_passed_is_remembered_until_it_expires() {
        let provider = ExternalIdentity {
            public_key_pem: include_str!("../tests/data/idp-test-key.pub.pem").to_owned(),
            issuer: "https://idp.example".into(),
            audience: "kaarttafel".into(),
        };
        let tokens = Tokens::new(
            &Secret::new("a".repeat(32)),
            std::time::Duration::from_secs(3600),
            Some(&provider),
        )
        .unwrap();
        let key =
            EncodingKey::from_ec_pem(include_bytes!("../tests/data/idp-test-key.pem")).unwrap();
        let exp = Utc::now().timestamp() + 600;
        let token = |aud: &str| {
            let claims = serde_json::json!({"sub": "ext-1", "name": "Extern",
                "iss": "https://idp.example", "aud": aud, "iat": 0, "exp": exp});
            encode(&Header::new(Algorithm::ES256), &claims, &key).unwrap()
        };
        let external = Identity::External {
            subject: "ext-1".into(),
            name: "Extern".into(),
        };
        let good = token("kaarttafel");
        assert_eq!(tokens.remembered(&good, 0), None, "not before its check");
        assert_eq!(tokens.verify(&good), Ok(external.clone()));
        assert_eq!(tokens.remembered(&good, exp), Some((external, exp)));
        assert_eq!(tokens.remembered(&good, exp + LEEWAY as i64 + 1), None);
        let wrong_audience = token("someone-else");
        assert_eq!(tokens.verify(&wrong_audience), Err(TokenError::Invalid));
        assert_eq!(tokens.remembered(&wrong_audience, 0), None);
    }

    #[test]
    fn a_token_of_another_header_is_still_read_by_its_algorithm() {
        // Our header segment is recognised without a parse; a token whose
        // header says HS256 in other words is checked the long way.
        let tokens = tokens();
        let id = Uuid::new_v4();
        let claims = Claims {
            sub: id.to_string(),
            name: None,
            iat: Utc::now().timestamp(),
            exp: Utc::now().timestamp() + 60,
            iss: ISSUER.to_owned(),
            generation: Some(2),
        };
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("k1".into());
        let token = encode(&header, &claims, &tokens.encoding).unwrap();
        assert!(!token.starts_with(&tokens.our_header));
        assert_eq!(
            tokens.verify(&token),
            Ok(Identity::Player { id, generation: 2 })
        );
    }

    #[test]
    fn an_expired_token_is_refused_as_expired() {
        let (token, _) = tokens().issue(Uuid::new_v4(), 0, Utc::now() - chrono::Duration::hours(2));
        assert_eq!(tokens().verify(&token), Err(TokenError::Expired));
    }

    #[test]
    fn a_token_signed_with_another_secret_is_invalid() {
        let other = Tokens::new(
            &Secret::new("b".repeat(32)),
            std::time::Duration::from_secs(3600),
            None,
        )
        .unwrap();
        let (token, _) = other.issue(Uuid::new_v4(), 0, Utc::now());
        assert_eq!(tokens().verify(&token), Err(TokenError::Invalid));
    }

    #[test]
    fn an_unsigned_token_is_invalid() {
        // {"alg":"none","typ":"JWT"} . {"sub":<uuid>,"iat":0,"exp":4102444800,"iss":"kaarttafel"} .
        let claims = format!(
            r#"{{"sub":"{}","iat":0,"exp":4102444800,"iss":"kaarttafel"}}"#,
            Uuid::new_v4()
        );
        let b64 = |s: &str| {
            use base64::Engine;
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
        };
        let token = format!("{}.{}.", b64(r#"{"alg":"none","typ":"JWT"}"#), b64(&claims));
        assert_eq!(tokens().verify(&token), Err(TokenError::Invalid));
    }
}
