//! What the client tells a server about itself after connecting:
//! [`Client::set_level`] (the log messages it wants) and [`Client::set_roots`] (its roots
//! changed), in both eras.

use serde_json::json;

use super::connection::Client;
use super::error::ClientError;
use super::options::Root;
use crate::protocol::LoggingLevel;
use crate::protocol::methods;
use crate::sync::lock;

impl Client {
    /// Ask for the server's log messages at `level` and above, delivered to
    /// [`ClientOptions::on_log`](super::ClientOptions::on_log).
    ///
    /// On a legacy connection this sends `logging/setLevel` (a server without the
    /// `logging` capability answers it with an error, returned as
    /// [`ClientError::Rpc`]). On a 2026-07-28 connection, which has no such request, every
    /// later request carries the level in its `_meta`
    /// (`io.modelcontextprotocol/logLevel`), and the server logs only on the streams of
    /// those requests.
    pub async fn set_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        *lock(&self.inner.conn.log_level) = Some(level);
        if self.inner.conn.is_modern() {
            return Ok(());
        }
        self.request(methods::LOGGING_SET_LEVEL, Some(json!({ "level": level.as_str() }))).await.map(drop)
    }

    /// Replace the roots this client offers. A legacy server is sent
    /// `notifications/roots/list_changed` and asks again; on 2026-07-28 the next
    /// `roots/list` input request is answered with the new ones.
    ///
    /// Only a client built with [`ClientOptions::roots`](super::ClientOptions::roots)
    /// declared the `roots` capability; any other is [`ClientError::Config`], and nothing
    /// is sent.
    pub fn set_roots(&self, roots: Vec<Root>) -> Result<(), ClientError> {
        let answerer = &self.inner.conn.answerer;
        if !answerer.has_roots() {
            return Err(ClientError::Config {
                server: self.name().to_owned(),
                problem: "this client did not declare the 'roots' capability (ClientOptions::roots), so its roots cannot change".to_owned(),
                source: None,
            });
        }
        answerer.set_roots(roots);
        if !self.inner.conn.is_modern() {
            self.inner.conn.notify(methods::NOTIFICATIONS_ROOTS_LIST_CHANGED, None);
        }
        Ok(())
    }
}
