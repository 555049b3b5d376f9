//! Rate limits per principal: [`RateLimit`], given to
//! [`ServerBuilder::rate_limit`](super::ServerBuilder::rate_limit). A token bucket (GCRA,
//! crate `governor`) per subject: each request takes one cell; a principal over its limit
//! is refused, and told when to retry, before any of its request is run.
//!
//! | transport | a request over the limit |
//! | --- | --- |
//! | HTTP | 429, `Retry-After: <whole seconds, rounded up>`, a JSON-RPC error [`RATE_LIMITED`] |
//! | stdio (and [`Session::handle`](super::Session::handle)) | the JSON-RPC error [`RATE_LIMITED`] with `data: {"retryAfterMs": …}` |
//!
//! Notifications and responses are never limited: only requests are counted.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::principal::Principal;
use crate::protocol::RpcError;

/// The JSON-RPC error code of a request refused for its principal's rate limit (in the
/// implementation-defined server range).
pub const RATE_LIMITED: i64 = -32029;

/// How many requests one principal may make: a burst, refilled one cell at a time.
///
/// ```
/// use std::num::NonZeroU32;
/// use toolwire::server::RateLimit;
///
/// // 20 at once, then one more every 3 s (20 a minute).
/// let limit = RateLimit::per_minute(NonZeroU32::new(20).unwrap());
/// # let _ = limit;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    quota: Quota,
}

impl RateLimit {
    /// `n` a second, in bursts of up to `n`.
    pub fn per_second(n: NonZeroU32) -> RateLimit {
        RateLimit { quota: Quota::per_second(n) }
    }

    /// `n` a minute, in bursts of up to `n`.
    pub fn per_minute(n: NonZeroU32) -> RateLimit {
        RateLimit { quota: Quota::per_minute(n) }
    }

    /// `n` an hour, in bursts of up to `n`.
    pub fn per_hour(n: NonZeroU32) -> RateLimit {
        RateLimit { quota: Quota::per_hour(n) }
    }

    /// The same refill rate, with bursts of up to `burst`.
    pub fn burst(self, burst: NonZeroU32) -> RateLimit {
        RateLimit { quota: self.quota.allow_burst(burst) }
    }
}

/// The buckets of a server, one per subject.
pub(crate) struct Limiter {
    buckets: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
    /// Checks since the idle buckets were last dropped.
    since_prune: AtomicU32,
}

/// How many checks pass between two prunings of the buckets of idle subjects.
const PRUNE_EVERY: u32 = 4096;

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Limiter {
        Limiter {
            buckets: DefaultKeyedRateLimiter::dashmap(limit.quota),
            clock: DefaultClock::default(),
            since_prune: AtomicU32::new(0),
        }
    }

    /// Take one cell of `principal`'s bucket, or say how long until one is free.
    pub(crate) fn check(&self, principal: &Principal) -> Result<(), Duration> {
        if self.since_prune.fetch_add(1, Ordering::Relaxed) >= PRUNE_EVERY {
            self.since_prune.store(0, Ordering::Relaxed);
            self.buckets.retain_recent();
        }
        // The common case borrows: the subject is copied only for a new bucket.
        self.buckets
            .check_key(&principal.subject().to_owned())
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }
}

/// The refusal of a request over its principal's limit, with the delay in `data`.
pub(crate) fn refused(principal: &Principal, retry_after: Duration) -> RpcError {
    let ms = retry_after.as_millis().max(1);
    RpcError::new(RATE_LIMITED, refusal_message(principal, retry_after))
        .with_data(format!("{{\"retryAfterMs\":{ms}}}"))
}

/// What a refused caller reads.
pub(crate) fn refusal_message(principal: &Principal, retry_after: Duration) -> String {
    let ms = retry_after.as_millis().max(1);
    format!(
        "rate limited: {} is over its request limit; retry in {ms} ms",
        crate::args::PyStr(principal.subject())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_subject_has_its_own_bucket() {
        let limiter = Limiter::new(RateLimit::per_hour(NonZeroU32::new(2).unwrap()));
        let (a, b) = (Principal::new("a"), Principal::new("b"));
        assert!(limiter.check(&a).is_ok() && limiter.check(&a).is_ok());
        let wait = limiter.check(&a).unwrap_err();
        assert!(wait > Duration::from_secs(1700) && wait <= Duration::from_secs(1800), "{wait:?}");
        assert!(limiter.check(&b).is_ok());
        assert_eq!(
            refusal_message(&a, Duration::from_millis(1500)),
            "rate limited: 'a' is over its request limit; retry in 1500 ms"
        );
    }
}
