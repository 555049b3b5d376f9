//! [`RedisSessionStore`]: legacy sessions' [`SessionState`]s in Redis, one string key per
//! session (`<prefix>:session:<id>`, the state's JSON) expiring its idle TTL after the last
//! save or touch (`SET … PX`; `GETEX … PX`, Redis 6.2 or later).

use std::time::Duration;

use crate::transport::http::{SessionState, SessionStore, SessionStoreError, StoreFuture};

use super::connection::{Connection, RedisError};

/// A [`SessionStore`] in Redis, for replicas to share (give each replica's
/// [`HttpConfig::session_store`](crate::http::HttpConfig::session_store) one made from the
/// same URL and prefix). Each call is one command, bounded by the command timeout
/// ([`DEFAULT_COMMAND_TIMEOUT`](super::DEFAULT_COMMAND_TIMEOUT) unless set).
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwire::http::{Auth, HttpConfig};
/// use toolwire::redis::RedisSessionStore;
///
/// # async fn replica() -> Result<(), toolwire::redis::RedisError> {
/// let sessions = RedisSessionStore::open("redis://127.0.0.1:6379/", "tools-prod")?;
/// let config = HttpConfig::new(Auth::None).session_store(Arc::new(sessions));
/// # let _ = config;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct RedisSessionStore {
    redis: Connection,
}

impl RedisSessionStore {
    /// A store on the Redis at `url`, its keys under `prefix` (so that deployments sharing
    /// one Redis do not meet). Connects lazily: a Redis that is down now is an error at the
    /// first request, and is reconnected to when it is back. Must be called inside a tokio
    /// runtime.
    /// To share one connection with the other stores, make it from a
    /// [`Redis`](super::Redis) instead.
    pub fn open(url: &str, prefix: &str) -> Result<RedisSessionStore, RedisError> {
        Ok(RedisSessionStore::on(Connection::open(url, prefix)?))
    }

    /// A store on `redis`.
    pub(super) fn on(redis: Connection) -> RedisSessionStore {
        RedisSessionStore { redis }
    }

    /// The same store, each command bounded by `timeout`.
    pub fn with_command_timeout(self, timeout: Duration) -> Result<RedisSessionStore, RedisError> {
        Ok(RedisSessionStore { redis: self.redis.with_timeout(timeout)? })
    }

    fn key(&self, id: &str) -> String {
        self.redis.key("session", id)
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl SessionStore for RedisSessionStore {
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>> {
        Box::pin(async move {
            let text: Option<String> = self
                .redis
                .run(::redis::cmd("GET").arg(self.key(id)))
                .await
                .map_err(SessionStoreError::Unavailable)?;
            text.map(|t| SessionState::from_json(&t)).transpose()
        })
    }

    fn save<'a>(&'a self, id: &'a str, state: &'a SessionState, idle_ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let cmd = ::redis::cmd("SET")
                .arg(self.key(id))
                .arg(state.to_json())
                .arg("PX")
                .arg(millis(idle_ttl))
                .clone();
            let _: () = self.redis.run(&cmd).await.map_err(SessionStoreError::Unavailable)?;
            Ok(())
        })
    }

    fn touch<'a>(&'a self, id: &'a str, idle_ttl: Duration) -> StoreFuture<'a, Option<SessionState>> {
        Box::pin(async move {
            let cmd = ::redis::cmd("GETEX").arg(self.key(id)).arg("PX").arg(millis(idle_ttl)).clone();
            let text: Option<String> = self.redis.run(&cmd).await.map_err(SessionStoreError::Unavailable)?;
            text.map(|t| SessionState::from_json(&t)).transpose()
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let removed: i64 = self
                .redis
                .run(::redis::cmd("DEL").arg(self.key(id)))
                .await
                .map_err(SessionStoreError::Unavailable)?;
            Ok(removed == 1)
        })
    }
}
