//! The connection the Redis stores and the fan-out share: a URL opened into redis-rs's
//! tokio connection manager (multiplexed, reconnecting in the background when Redis went
//! away), a key prefix, and a bound on every command.

use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{Cmd, FromRedisValue, Pipeline};

/// The default bound on one Redis command, round trip included: 500 ms. A command not
/// answered by then fails (a request needing it gets a 503), and the connection manager
/// reconnects in the background.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_millis(500);

/// Why a Redis store or fan-out could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RedisError {
    /// The URL is not one redis-rs opens (`redis://host:port/db`, `redis+unix:///path`).
    #[error("the Redis URL is not valid: {0}")]
    InvalidUrl(String),
    /// Made outside a tokio runtime: the connection manager runs on one.
    #[error("a Redis store must be made inside a tokio runtime")]
    NoRuntime,
}

/// One Redis, under one key prefix.
#[derive(Clone)]
pub(crate) struct Connection {
    pub(crate) client: ::redis::Client,
    manager: ConnectionManager,
    prefix: String,
    pub(crate) timeout: Duration,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: only where it points is shown.
        let info = self.client.get_connection_info();
        f.debug_struct("Redis")
            .field("addr", &info.addr().to_string())
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Connection {
    /// Open `url` (lazily: nothing is sent until the first command), keys under `prefix`.
    pub(crate) fn open(url: &str, prefix: &str) -> Result<Connection, RedisError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(RedisError::NoRuntime);
        }
        let client = ::redis::Client::open(url).map_err(|e| RedisError::InvalidUrl(e.to_string()))?;
        let timeout = DEFAULT_COMMAND_TIMEOUT;
        let manager = manager(&client, timeout)?;
        Ok(Connection { client, manager, prefix: prefix.to_owned(), timeout })
    }

    /// The same connection, its commands bounded by `timeout`.
    pub(crate) fn with_timeout(self, timeout: Duration) -> Result<Connection, RedisError> {
        let manager = manager(&self.client, timeout)?;
        Ok(Connection { manager, timeout, ..self })
    }

    /// `<prefix>:<kind>:<name>`.
    pub(crate) fn key(&self, kind: &str, name: &str) -> String {
        format!("{}:{kind}:{name}", self.prefix)
    }

    /// Run `cmd`, bounded by the timeout; a failure as text (for the log and the error).
    pub(crate) async fn run<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T, String> {
        let mut manager = self.manager.clone();
        match tokio::time::timeout(self.timeout, cmd.query_async(&mut manager)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {:?}", self.timeout)),
        }
    }

    /// Run `pipe`, bounded by the timeout.
    pub(crate) async fn run_pipe<T: FromRedisValue>(&self, pipe: &Pipeline) -> Result<T, String> {
        let mut manager = self.manager.clone();
        match tokio::time::timeout(self.timeout, pipe.query_async(&mut manager)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {:?}", self.timeout)),
        }
    }
}

fn manager(client: &::redis::Client, timeout: Duration) -> Result<ConnectionManager, RedisError> {
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
        .set_number_of_retries(2)
        .set_max_delay(Duration::from_millis(200));
    ConnectionManager::new_lazy_with_config(client.clone(), config)
        .map_err(|e| RedisError::InvalidUrl(e.to_string()))
}
