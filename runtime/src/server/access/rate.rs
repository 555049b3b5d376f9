//! Rate limits per principal: [`RateLimit`], given to
//! [`ServerBuilder::rate_limit`](crate::server::ServerBuilder::rate_limit). A token bucket per
//! subject, kept as the generic cell rate algorithm (GCRA) keeps one: a single instant per
//! subject, the time at which its bucket would be full again. Each request takes one cell; a
//! principal over its limit is refused, and told when to retry, before any of its request
//! is run. (The `governor` crate does the same with lock-free cells, but brought 20 of the
//! 71 packages of a tools-only crate's graph (`cargo tree` of the bench's generated 50-tool
//! crate: 71 with it, 51 without) for what is one `Mutex`-guarded map here.)
//!
//! | transport | a request over the limit |
//! | --- | --- |
//! | HTTP | 429, `Retry-After: <whole seconds, rounded up>`, a JSON-RPC error [`RATE_LIMITED`] |
//! | stdio (and [`Session::handle`](crate::server::Session::handle)) | the JSON-RPC error [`RATE_LIMITED`] with `data: {"retryAfterMs": …}` |
//!
//! Notifications and responses are never limited: only requests are counted.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    /// The time one cell takes to come back.
    refill: Duration,
    /// The most cells a full bucket holds.
    burst: NonZeroU32,
}

impl RateLimit {
    /// `n` in `period`, in bursts of up to `n`.
    fn per(period: Duration, n: NonZeroU32) -> RateLimit {
        RateLimit { refill: period / n.get(), burst: n }
    }

    /// `n` a second, in bursts of up to `n`.
    pub fn per_second(n: NonZeroU32) -> RateLimit {
        RateLimit::per(Duration::from_secs(1), n)
    }

    /// `n` a minute, in bursts of up to `n`.
    pub fn per_minute(n: NonZeroU32) -> RateLimit {
        RateLimit::per(Duration::from_secs(60), n)
    }

    /// `n` an hour, in bursts of up to `n`.
    pub fn per_hour(n: NonZeroU32) -> RateLimit {
        RateLimit::per(Duration::from_secs(3600), n)
    }

    /// The same refill rate, with bursts of up to `burst`.
    pub fn burst(self, burst: NonZeroU32) -> RateLimit {
        RateLimit { burst, ..self }
    }
}

/// The buckets of a server, one per subject.
pub(crate) struct Limiter {
    /// A cell's refill time, in nanoseconds (at least 1).
    refill: u64,
    /// How far ahead of now a bucket's full time may be: `burst` cells' refill.
    tolerance: u64,
    /// What the times below count from.
    epoch: Instant,
    /// Per subject, when its bucket is full again (nanoseconds since `epoch`), and checks
    /// since the full buckets were last dropped. A subject with no entry has a full bucket.
    state: Mutex<Buckets>,
}

#[derive(Default)]
struct Buckets {
    full_at: HashMap<String, u64>,
    since_prune: u32,
}

/// How many checks pass between two prunings of the buckets that are full again.
const PRUNE_EVERY: u32 = 4096;

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Limiter {
        let refill = u64::try_from(limit.refill.as_nanos()).unwrap_or(u64::MAX).max(1);
        Limiter {
            refill,
            tolerance: refill.saturating_mul(u64::from(limit.burst.get())),
            epoch: Instant::now(),
            state: Mutex::new(Buckets::default()),
        }
    }

    /// Take one cell of `principal`'s bucket, or say how long until one is free.
    pub(crate) fn check(&self, principal: &Principal) -> Result<(), Duration> {
        let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        // A panic elsewhere cannot leave a bucket half-written: every write below is one store.
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.since_prune += 1;
        if state.since_prune >= PRUNE_EVERY {
            state.since_prune = 0;
            state.full_at.retain(|_, full_at| *full_at > now);
        }
        let subject = principal.subject();
        // Taking a cell moves the full time on by one refill; it may not run further ahead
        // of now than a whole burst.
        let full_at = state.full_at.get(subject).map_or(now, |&t| t.max(now)).saturating_add(self.refill);
        let ahead = full_at - now;
        if ahead > self.tolerance {
            return Err(Duration::from_nanos(ahead - self.tolerance));
        }
        // The common case borrows: the subject is copied only for a new bucket.
        match state.full_at.get_mut(subject) {
            Some(t) => *t = full_at,
            None => {
                state.full_at.insert(subject.to_owned(), full_at);
            }
        }
        Ok(())
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
        assert_eq!(limiter.state.lock().unwrap().full_at.len(), 2);
        assert_eq!(
            refusal_message(&a, Duration::from_millis(1500)),
            "rate limited: 'a' is over its request limit; retry in 1500 ms"
        );
    }

    #[test]
    fn a_burst_then_one_cell_per_refill() {
        let limit = RateLimit::per_second(NonZeroU32::new(10).unwrap()).burst(NonZeroU32::new(3).unwrap());
        let limiter = Limiter::new(limit);
        let a = Principal::new("a");
        for _ in 0..3 {
            assert!(limiter.check(&a).is_ok());
        }
        // The fourth waits for one cell: at most 100 ms.
        let wait = limiter.check(&a).unwrap_err();
        assert!(wait > Duration::from_millis(90) && wait <= Duration::from_millis(100), "{wait:?}");
        std::thread::sleep(wait);
        assert!(limiter.check(&a).is_ok());
        assert!(limiter.check(&a).is_err());
    }

    #[test]
    fn full_buckets_are_pruned() {
        let limiter = Limiter::new(RateLimit::per_second(NonZeroU32::new(1000).unwrap()));
        for i in 0..10 {
            assert!(limiter.check(&Principal::new(format!("p{i}"))).is_ok());
        }
        std::thread::sleep(Duration::from_millis(5));
        for _ in 0..PRUNE_EVERY {
            let _ = limiter.check(&Principal::new("busy"));
        }
        let state = limiter.state.lock().unwrap();
        assert_eq!(state.full_at.keys().collect::<Vec<_>>(), ["busy"]);
    }
}
