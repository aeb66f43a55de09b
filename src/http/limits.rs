//! Rate limits, per instance, with `governor` (GCRA): strict on creating
//! players, on failed authentication, on guessing ids (404s) and on invite
//! look-ups per client address (an IPv6 client by its /64); looser on reads and changes per player (the token's `sub`, or
//! the address without a valid token). A stream or long poll is one request
//! and counts once. A refused request is 429 `rate_limited` with
//! `Retry-After` and the IETF `RateLimit` / `RateLimit-Policy` headers.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode, header};
use actix_web::middleware::Next;
use actix_web::web;
use governor::clock::Clock as _;
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::error::ApiError;
use super::proxy::{NO_PROXIES, TrustedProxies};
use super::state::AppState;
use crate::auth::Identity;
use crate::config::{Limit, RateLimits};

/// Who a limit counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Address(IpAddr),
    Player(uuid::Uuid),
}

/// The application's clock (`crate::clock`) as the limits' clock, as time
/// since the Unix epoch: tests move it by hand instead of waiting.
#[derive(Clone)]
pub struct LimitClock(pub Arc<dyn crate::clock::Clock>);

impl governor::clock::Clock for LimitClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        Duration::from_micros(u64::try_from(self.0.now_micros()).unwrap_or(0))
    }
}

/// One named limit.
struct Policy {
    name: &'static str,
    limit: Limit,
    limiter: RateLimiter<Key, DefaultKeyedStateStore<Key>, LimitClock, NoOpMiddleware<Duration>>,
    clock: LimitClock,
}

impl Policy {
    fn new(name: &'static str, limit: Option<Limit>, clock: &LimitClock) -> Option<Policy> {
        let limit = limit?;
        let period = limit.per / limit.requests.get();
        let quota = Quota::with_period(period)?.allow_burst(limit.requests);
        Some(Policy {
            name,
            limit,
            limiter: RateLimiter::new(quota, DefaultKeyedStateStore::default(), clock.clone()),
            clock: clock.clone(),
        })
    }

    /// Takes one request from `key`'s allowance, or says how long to wait.
    fn take(&self, key: &Key) -> Result<(), Duration> {
        self.limiter
            .check_key(key)
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    fn refusal(&self, wait: Duration) -> ApiError {
        ApiError::RateLimited {
            policy: self.name,
            quota: self.limit.requests.get(),
            window: self.limit.per.as_secs().max(1),
            retry_after: wait.as_secs_f64().ceil().max(1.0) as u64,
        }
    }
}

/// The limits of this instance.
pub struct Limiter {
    signups: Option<Policy>,
    auth_failures: Option<Policy>,
    not_found: Option<Policy>,
    reads: Option<Policy>,
    writes: Option<Policy>,
    solver: Option<Policy>,
    invite_guesses: Option<Policy>,
    /// Addresses refused until a time (by `clock`), after too many failed
    /// tokens or 404s.
    blocked: Mutex<HashMap<IpAddr, (Duration, &'static str)>>,
    requests: AtomicU64,
    clock: LimitClock,
}

impl Limiter {
    /// The limiter for `limits`, on the time of `clock`.
    pub fn new(limits: &RateLimits, clock: Arc<dyn crate::clock::Clock>) -> Limiter {
        let clock = LimitClock(clock);
        Limiter {
            signups: Policy::new("signups", limits.signups, &clock),
            auth_failures: Policy::new("auth_failures", limits.auth_failures, &clock),
            not_found: Policy::new("not_found", limits.not_found, &clock),
            reads: Policy::new("reads", limits.reads, &clock),
            writes: Policy::new("writes", limits.writes, &clock),
            solver: Policy::new("solver", limits.solver, &clock),
            invite_guesses: Policy::new("invite_guesses", limits.invite_guesses, &clock),
            blocked: Mutex::default(),
            requests: AtomicU64::new(0),
            clock,
        }
    }

    fn policy(&self, name: &str) -> Option<&Policy> {
        [
            &self.signups,
            &self.auth_failures,
            &self.not_found,
            &self.reads,
            &self.writes,
            &self.solver,
            &self.invite_guesses,
        ]
        .into_iter()
        .flatten()
        .find(|p| p.name == name)
    }

    fn blocked(&self, address: IpAddr) -> Option<ApiError> {
        let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        let (until, name) = *blocked.get(&address)?;
        let now = self.clock.now();
        if until <= now {
            blocked.remove(&address);
            return None;
        }
        self.policy(name).map(|p| p.refusal(until - now))
    }

    /// Counts a failure against `address`; past the limit it is refused
    /// until the allowance refills.
    fn failure(&self, policy: &Option<Policy>, address: IpAddr) {
        let Some(policy) = policy else { return };
        if let Err(wait) = policy.take(&Key::Address(address)) {
            let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
            blocked.insert(address, (self.clock.now() + wait, policy.name));
        }
    }

    /// Forgets keys whose allowance is full again, now and then, so memory
    /// stays bounded by the clients of the last window.
    fn tidy(&self) {
        if self.requests.fetch_add(1, Ordering::Relaxed) % 4096 != 4095 {
            return;
        }
        for policy in [
            &self.signups,
            &self.auth_failures,
            &self.not_found,
            &self.reads,
            &self.writes,
            &self.solver,
            &self.invite_guesses,
        ]
        .into_iter()
        .flatten()
        {
            policy.limiter.retain_recent();
        }
        let now = self.clock.now();
        self.blocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, (until, _)| *until > now);
    }
}

/// Middleware: applies the limits before the request and counts failed
/// tokens and 404s after it.
pub async fn rate_limit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(limiter) = req.app_data::<web::Data<Limiter>>().cloned() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    limiter.tidy();
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok());
    let proxies = req
        .app_data::<web::Data<TrustedProxies>>()
        .map_or(&NO_PROXIES, |p| p.get_ref());
    let Some(address) = proxies.client(req.peer_addr().map(|a| a.ip()), forwarded) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let address = network_of(address);
    let state = req.app_data::<web::Data<AppState>>();
    let prefix = state.map_or("", |s| s.app.path_prefix.as_str());
    // The path as the router reads it, percent-escapes of plain characters
    // decoded (`/%761/games` is `/v1/games`): the raw path would let such a
    // spelling reach the handlers past every limit.
    let path = req.match_info().as_str().strip_prefix(prefix).unwrap_or("");
    if !path.starts_with("/v1/") {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    if let Some(refusal) = limiter.blocked(address) {
        return Ok(req.error_response(refusal).map_into_boxed_body());
    }
    let invite = path.starts_with("/v1/invites/");
    if invite && let Some(policy) = &limiter.invite_guesses {
        // Taken before the code is looked up, right or wrong: guesses sent
        // in parallel each take their share before any answer is known, so
        // no more of them are looked up than the allowance.
        if let Err(wait) = policy.take(&Key::Address(address)) {
            return Ok(req
                .error_response(policy.refusal(wait))
                .map_into_boxed_body());
        }
    }
    let signup = req.method() == Method::POST && path == "/v1/players";
    let (policy, solver) = if signup {
        (limiter.signups.as_ref(), None)
    } else if req.method() == Method::GET {
        // A hint or a deal's analysis runs the solver (up to a fifth of a
        // second of a core each): counted once more, against its own limit.
        let solver = limiter.solver.as_ref().filter(|_| runs_the_solver(path));
        (limiter.reads.as_ref(), solver)
    } else {
        (limiter.writes.as_ref(), None)
    };
    if policy.is_some() || solver.is_some() {
        // The token is looked at only for a limit that counts it (with
        // RATE_LIMITS=off, never: the handler checks it anyway).
        let key = if signup {
            Key::Address(address)
        } else {
            caller_key(&req, state, address)
        };
        for policy in [policy, solver].into_iter().flatten() {
            if let Err(wait) = policy.take(&key) {
                return Ok(req
                    .error_response(policy.refusal(wait))
                    .map_into_boxed_body());
            }
        }
    }
    let response = next.call(req).await?;
    match response.status() {
        StatusCode::UNAUTHORIZED => limiter.failure(&limiter.auth_failures, address),
        // Invite look-ups took their allowance before.
        StatusCode::NOT_FOUND if invite => {}
        StatusCode::NOT_FOUND => limiter.failure(&limiter.not_found, address),
        _ => {}
    }
    Ok(response.map_into_boxed_body())
}

/// The key of a client address for the limits: an IPv6 client by its /64
/// (the network a single subscriber is given, so one client cannot take a
/// fresh allowance with each of its 2^64 addresses); an IPv4 client, also
/// one written as an IPv4-mapped IPv6 address, by its address.
fn network_of(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => {
            let [a, b, c, d, ..] = v6.segments();
            IpAddr::V6(std::net::Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// Whether `path` (under the prefix) asks for solver work: a hint or a
/// deal's analysis.
fn runs_the_solver(path: &str) -> bool {
    path.starts_with("/v1/games/") && (path.ends_with("/hint") || path.ends_with("/analysis"))
}

/// Whom a read or change counts against: the player of a valid token of
/// ours, otherwise the client's address.
fn caller_key(req: &ServiceRequest, state: Option<&web::Data<AppState>>, address: IpAddr) -> Key {
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .and_then(|(_, token)| state?.app.tokens.verify(token.trim()).ok())
        .and_then(|identity| match identity {
            Identity::Player { id, .. } => Some(Key::Player(id)),
            Identity::External { .. } => None,
        })
        .unwrap_or(Key::Address(address))
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Limiter")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_is_counted_by_its_64_and_an_ipv4_client_by_its_address() {
        let key = |a: &str| network_of(a.parse().unwrap()).to_string();
        assert_eq!(key("2001:db8:1:2::a"), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:2:ffff:1:2:3"), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:3::a"), "2001:db8:1:3::");
        assert_eq!(key("192.0.2.7"), "192.0.2.7");
        assert_eq!(key("::ffff:192.0.2.7"), "192.0.2.7");
    }
}
