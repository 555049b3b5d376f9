//! [`RedisFanout`]: a server's [`Notice`]s carried to the other replicas over Redis
//! pub/sub, on the channel `<prefix>:notices:all`.
//!
//! Each message is JSON naming the replica that raised it (a random id per
//! `RedisFanout`), so a replica skips its own: `{"origin":"…","uri":"…"}` for a resource
//! update, `{"origin":"…","list":"tools"}` for a list change. Publishing is queued and sent
//! by a background task (the server's `notify_resource_updated` never waits for Redis); a
//! second task holds the subscription, and makes it again (after 100 ms, then up to 2 s
//! between tries) whenever the connection drops. Pub/sub keeps nothing: a notice published
//! while a replica is disconnected does not reach that replica's subscribers.

use std::sync::OnceLock;
use std::time::Duration;

use futures_util::StreamExt as _;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::server::{ChangedList, Delivery, Fanout, Notice};

use super::connection::{Connection, RedisError};

/// The most notices waiting to be published: 10,000.
pub const PUBLISH_QUEUE: usize = 10_000;

/// A [`Fanout`] over Redis pub/sub: give each replica's
/// [`ServerBuilder::fanout`](crate::server::ServerBuilder::fanout) one made from the same
/// URL and prefix, and a resource update or list change raised on any replica reaches the
/// subscribers of all of them.
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwire::redis::RedisFanout;
/// use toolwire::resource::ResourceRegistry;
/// use toolwire::{Server, ServerOptions};
///
/// # async fn replica() -> Result<(), toolwire::redis::RedisError> {
/// let fanout = RedisFanout::open("redis://127.0.0.1:6379/", "tools-prod")?;
/// let server = Server::builder(ServerOptions::new("docs", "1.0.0"))
///     .resources(ResourceRegistry::new())
///     .fanout(Arc::new(fanout))
///     .build();
/// server.notify_resource_updated("file:///docs/index.md"); // every replica's subscribers hear it
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RedisFanout {
    redis: Connection,
    channel: String,
    origin: String,
    /// The publisher's queue, made (and its task spawned) at the first notice.
    queue: OnceLock<mpsc::Sender<String>>,
    /// The runtime it was opened in, where the publisher's task runs: a notice may be raised
    /// on a thread with none (a sync tool's body).
    runtime: Option<tokio::runtime::Handle>,
}

/// A notice as it travels.
#[derive(Serialize, Deserialize)]
struct Wire {
    origin: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    list: Option<String>,
}

impl RedisFanout {
    /// A fan-out on the Redis at `url`, on the channel `<prefix>:notices:all`. Connects lazily.
    /// Open it inside the tokio runtime that serves: its publisher runs there, so a notice
    /// raised on any thread (a sync tool's body included) is published.
    /// To share one connection with the stores, make it from a [`Redis`](super::Redis)
    /// instead (its subscription still takes a connection of its own: Redis serves nothing
    /// else on a subscribed one).
    pub fn open(url: &str, prefix: &str) -> Result<RedisFanout, RedisError> {
        Ok(RedisFanout::on(Connection::open(url, prefix)?))
    }

    /// A fan-out publishing on `redis`.
    pub(super) fn on(redis: Connection) -> RedisFanout {
        let channel = redis.key("notices", "all");
        RedisFanout {
            redis,
            channel,
            origin: crate::transport::http::random_id(12),
            queue: OnceLock::new(),
            runtime: tokio::runtime::Handle::try_current().ok(),
        }
    }

    /// The channel it publishes and listens on.
    pub fn channel(&self) -> &str {
        &self.channel
    }
}

fn encode(origin: &str, notice: &Notice) -> Option<String> {
    let wire = match notice {
        Notice::ResourceUpdated { uri } => {
            Wire { origin: origin.to_owned(), uri: Some(uri.clone()), list: None }
        }
        Notice::ListChanged(list) => {
            Wire { origin: origin.to_owned(), uri: None, list: Some(list.as_str().to_owned()) }
        }
    };
    serde_json::to_string(&wire).ok()
}

/// The notice in `text`, unless this replica (`origin`) raised it or it is not one.
fn decode(origin: &str, text: &str) -> Option<Notice> {
    let wire: Wire = serde_json::from_str(text).ok()?;
    if wire.origin == origin {
        return None;
    }
    match (wire.uri, wire.list) {
        (Some(uri), None) => Some(Notice::ResourceUpdated { uri }),
        (None, Some(list)) => ChangedList::parse(&list).map(Notice::ListChanged),
        _ => None,
    }
}

impl Fanout for RedisFanout {
    fn publish(&self, notice: &Notice) {
        let Some(text) = encode(&self.origin, notice) else { return };
        let Some(runtime) = self.runtime.clone().or_else(|| tokio::runtime::Handle::try_current().ok())
        else {
            return tracing::error!(
                "RedisFanout opened outside a tokio runtime and a notice raised outside one: it is not published"
            );
        };
        let queue = self.queue.get_or_init(|| {
            let (tx, mut rx) = mpsc::channel::<String>(PUBLISH_QUEUE);
            let (redis, channel) = (self.redis.clone(), self.channel.clone());
            runtime.spawn(async move {
                while let Some(text) = rx.recv().await {
                    let cmd = ::redis::cmd("PUBLISH").arg(&channel).arg(text).clone();
                    if let Err(why) = redis.run::<i64>(&cmd).await {
                        tracing::warn!(why, "a notice could not be published to the other replicas");
                    }
                }
            });
            tx
        });
        if let Err(e) = queue.try_send(text) {
            tracing::warn!(error = %e, "a notice was not published: the Redis publish queue is full or closed");
        }
    }

    fn attach(&self, delivery: Delivery) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return tracing::error!(
                "RedisFanout::attach outside a tokio runtime: other replicas' notices are not delivered here"
            );
        };
        let (client, channel, origin) =
            (self.redis.client.clone(), self.channel.clone(), self.origin.clone());
        let timeout = self.redis.timeout;
        runtime.spawn(listen(client, channel, origin, timeout, delivery));
    }
}

/// Hold the subscription while the server lives, delivering what others publish.
async fn listen(
    client: ::redis::Client,
    channel: String,
    origin: String,
    timeout: Duration,
    delivery: Delivery,
) {
    let mut backoff = Duration::from_millis(100);
    while delivery.is_alive() {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, ::redis::RedisError>(pubsub)
        };
        match tokio::time::timeout(timeout, subscribed).await {
            Ok(Ok(pubsub)) => {
                backoff = Duration::from_millis(100);
                tracing::debug!(channel, "listening for other replicas' notices");
                let mut messages = pubsub.into_on_message();
                loop {
                    // Woken now and then to notice a server that is gone.
                    match tokio::time::timeout(Duration::from_secs(1), messages.next()).await {
                        Ok(Some(message)) => {
                            let Ok(text) = message.get_payload::<String>() else { continue };
                            if let Some(notice) = decode(&origin, &text) {
                                delivery.deliver(&notice);
                            }
                        }
                        Ok(None) => break,
                        Err(_) if !delivery.is_alive() => return,
                        Err(_) => {}
                    }
                }
                tracing::warn!(
                    channel,
                    "the Redis subscription for other replicas' notices dropped; resubscribing"
                );
            }
            Ok(Err(e)) => tracing::debug!(error = %e, "could not subscribe to other replicas' notices"),
            Err(_) => tracing::debug!("subscribing to other replicas' notices timed out"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_travels_as_json_and_a_replica_skips_its_own() {
        let update = Notice::ResourceUpdated { uri: "file:///a".into() };
        let text = encode("me", &update).unwrap();
        assert_eq!(text, r#"{"origin":"me","uri":"file:///a"}"#);
        assert_eq!(decode("other", &text), Some(update));
        assert_eq!(decode("me", &text), None);
        let list = encode("me", &Notice::ListChanged(ChangedList::Prompts)).unwrap();
        assert_eq!(list, r#"{"origin":"me","list":"prompts"}"#);
        assert_eq!(decode("x", &list), Some(Notice::ListChanged(ChangedList::Prompts)));
        for junk in
            ["", "{}", r#"{"origin":"x","list":"songs"}"#, r#"{"origin":"x","uri":"a","list":"tools"}"#]
        {
            assert_eq!(decode("me", junk), None, "{junk}");
        }
    }
}
