//! [`Redis`]: one connection for a replica's shared stores, each made from it.

use std::time::Duration;

#[cfg(doc)]
use super::connection::DEFAULT_COMMAND_TIMEOUT;
use super::connection::{Connection, RedisError};
use super::event_store::RedisEventStore;
use super::fanout::RedisFanout;
use super::session_store::RedisSessionStore;
use super::task_store::RedisTaskStore;

/// One Redis connection under one key prefix, for a replica's three shared stores: open it
/// once, and make each of them from it. Their commands share its one multiplexed connection
/// (the fan-out's subscription takes one more: Redis serves nothing else on a subscribed
/// connection), where opening each type by itself opens one each.
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwire::http::{Auth, BearerToken, HttpConfig};
/// use toolwire::redis::Redis;
/// use toolwire::{Server, ServerOptions, ToolRegistry};
///
/// # async fn replica() -> Result<(), toolwire::redis::RedisError> {
/// let redis = Redis::open("redis://127.0.0.1:6379/", "tools-prod")?;
/// let server = Server::builder(ServerOptions::new("tools", "1.0.0"))
///     .tools(ToolRegistry::new())
///     .fanout(Arc::new(redis.fanout()))
///     .build();
/// let config = HttpConfig::new(Auth::Bearer(BearerToken::generate()))
///     .session_store(Arc::new(redis.session_store()))
///     .event_store(Arc::new(redis.event_store()));
/// # let _ = (server, config);
/// # Ok(()) }
/// ```
///
/// The fan-out is the server's (every way of serving carries notifications), the two stores
/// the HTTP endpoint's (only HTTP has sessions and streams to keep): so the first goes to
/// [`ServerBuilder::fanout`](crate::server::ServerBuilder::fanout), the others to
/// [`HttpConfig`](crate::http::HttpConfig).
#[derive(Debug, Clone)]
pub struct Redis {
    connection: Connection,
}

impl Redis {
    /// Open the Redis at `url` (lazily: nothing is sent until the first command), every key
    /// under `prefix` (so that deployments sharing one Redis do not meet), each command
    /// bounded by [`DEFAULT_COMMAND_TIMEOUT`]. Must be called inside a tokio runtime.
    pub fn open(url: &str, prefix: &str) -> Result<Redis, RedisError> {
        Ok(Redis { connection: Connection::open(url, prefix)? })
    }

    /// The same Redis, each command bounded by `timeout` (for the stores made from it after).
    pub fn with_command_timeout(self, timeout: Duration) -> Result<Redis, RedisError> {
        Ok(Redis { connection: self.connection.with_timeout(timeout)? })
    }

    /// A session store on this connection, for [`HttpConfig::session_store`](crate::http::HttpConfig::session_store).
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore::on(self.connection.clone())
    }

    /// An event store on this connection, for [`HttpConfig::event_store`](crate::http::HttpConfig::event_store).
    pub fn event_store(&self) -> RedisEventStore {
        RedisEventStore::on(self.connection.clone())
    }

    /// A fan-out publishing on this connection, for
    /// [`ServerBuilder::fanout`](crate::server::ServerBuilder::fanout). Make it inside the
    /// runtime that serves (see [`RedisFanout::open`]).
    pub fn fanout(&self) -> RedisFanout {
        RedisFanout::on(self.connection.clone())
    }

    /// A task store on this connection, for
    /// [`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store): the tasks of
    /// the tasks extension, shared by the replicas.
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::on(self.connection.clone())
    }
}
