//! Each server's health, the hub's events, and the backoff between attempts.

use std::time::Duration;

use super::call::ErrorCode;

/// A server's state, read with [`Hub::health`](super::Hub::health) and followed with
/// [`Hub::watch`](super::Hub::watch).
///
/// `Idle` and `Disabled` are the states before any connection: a lazy server that nobody
/// used yet, and one declared `disabled`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Health {
    /// Declared, connected lazily on first use, not used yet (no child, no socket).
    Idle,
    /// Declared `disabled`: never connected.
    Disabled,
    /// The first connection (or one after [`Health::Failed`]) is being made.
    Connecting,
    /// Connected, tools adopted, serving.
    Ready,
    /// The connection was lost and is being healed; its tools are unavailable meanwhile.
    Degraded {
        /// Why it was lost (our words).
        reason: String,
        /// The reconnection attempt under way (from 1), or 0 before the first.
        attempt: u32,
    },
    /// It could not be started, or healing gave up. The next use tries again once the
    /// backoff delay has passed.
    Failed {
        /// Why (our words).
        reason: String,
    },
    /// Closed by [`Hub::close`](super::Hub::close) or [`Hub::close_all`](super::Hub::close_all).
    Closed,
}

impl Health {
    /// A short name: `idle`, `disabled`, `connecting`, `ready`, `degraded`, `failed`, `closed`.
    pub fn label(&self) -> &'static str {
        match self {
            Health::Idle => "idle",
            Health::Disabled => "disabled",
            Health::Connecting => "connecting",
            Health::Ready => "ready",
            Health::Degraded { .. } => "degraded",
            Health::Failed { .. } => "failed",
            Health::Closed => "closed",
        }
    }
}

/// What happened, in order, on [`Hub::events`](super::Hub::events) (a broadcast: a
/// subscriber that falls behind by more than the hub's capacity misses the oldest).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HubEvent {
    /// A connection is being made (the first, or after a failure).
    Connecting {
        /// The server.
        server: String,
    },
    /// Connected and adopted.
    Connected {
        /// The server.
        server: String,
        /// The child's pid (stdio).
        pid: Option<u32>,
        /// How many tools were adopted.
        tools: usize,
    },
    /// An established connection was lost.
    Disconnected {
        /// The server.
        server: String,
        /// Why (our words).
        reason: String,
    },
    /// A reconnection (HTTP) or respawn (stdio) is about to be tried after `delay`.
    Reconnecting {
        /// The server.
        server: String,
        /// The attempt (from 1).
        attempt: u32,
        /// The backoff delay before it, jitter included.
        delay: Duration,
    },
    /// A start or a healing gave up.
    Failed {
        /// The server.
        server: String,
        /// Why (our words).
        reason: String,
    },
    /// Closed by the application.
    Closed {
        /// The server.
        server: String,
    },
    /// A tool call succeeded.
    ToolCalled {
        /// The server.
        server: String,
        /// The tool, as the model names it.
        tool: String,
        /// How long it took.
        elapsed: Duration,
    },
    /// A tool call failed.
    CallFailed {
        /// The server, when the call reached one.
        server: Option<String>,
        /// The tool, as the model names it.
        tool: String,
        /// The stable code.
        code: ErrorCode,
        /// The error's message.
        message: String,
    },
}

/// Exponential backoff with jitter, bounded: attempt `n` waits `initial × 2^(n-1)`, at most
/// `max`, then a random fraction of up to `jitter` of it is added or taken away; after
/// `attempts` failures healing gives up ([`Health::Failed`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Backoff {
    /// The first delay (default 200 ms).
    pub initial: Duration,
    /// The largest delay (default 5 s).
    pub max: Duration,
    /// How many attempts before giving up (default 8).
    pub attempts: u32,
    /// The jitter, a fraction of the delay in `0.0..=1.0` (default 0.2).
    pub jitter: f64,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { initial: Duration::from_millis(200), max: Duration::from_secs(5), attempts: 8, jitter: 0.2 }
    }
}

impl Backoff {
    /// The given bounds.
    pub fn new(initial: Duration, max: Duration, attempts: u32) -> Self {
        Backoff { initial, max, attempts, ..Backoff::default() }
    }

    /// With this jitter fraction (clamped to `0.0..=1.0`).
    pub fn jitter(mut self, jitter: f64) -> Self {
        self.jitter = jitter.clamp(0.0, 1.0);
        self
    }

    /// The delay before attempt `attempt` (from 1), before jitter.
    pub fn base(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(30));
        self.initial.saturating_mul(factor).min(self.max)
    }

    /// The delay before attempt `attempt`, jitter included (never past `max × (1 + jitter)`).
    pub fn delay(&self, attempt: u32) -> Duration {
        let base = self.base(attempt);
        let spread = base.mul_f64(self.jitter);
        let offset = spread.mul_f64(random_unit());
        // Half the spread below the base, half above.
        (base + offset).saturating_sub(spread / 2)
    }
}

/// A number in `0.0..1.0` from the clock and a counter: jitter needs spread, not secrecy.
fn random_unit() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0x9e37_79b9_7f4a_7c15);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let mut x = (nanos as u64) ^ COUNTER.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
    // splitmix64
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap_and_jitter_stays_in_its_band() {
        let b = Backoff::new(Duration::from_millis(100), Duration::from_millis(1000), 6);
        let bases: Vec<u128> = (1..=6).map(|n| b.base(n).as_millis()).collect();
        assert_eq!(bases, [100, 200, 400, 800, 1000, 1000]);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let d = b.delay(3).as_millis();
            assert!((360..=440).contains(&d), "{d}");
            seen.insert(d);
        }
        assert!(seen.len() > 10, "jitter spreads the delays: {seen:?}");
        assert_eq!(b.jitter(0.0).delay(2), Duration::from_millis(200));
    }
}
