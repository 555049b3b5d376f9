//! Redis behind toolwire's store seams (feature `redis`): what lets several replicas of one
//! server, behind a load balancer, serve the same legacy sessions.
//!
//! | seam | Redis type | what it shares |
//! | --- | --- | --- |
//! | [`SessionStore`](crate::http::SessionStore) ([`HttpConfig::session_store`](crate::http::HttpConfig::session_store)) | [`RedisSessionStore`] | a legacy session's negotiated version, client info and capabilities, log level, `initialized`, its `resources/subscribe` URIs, and the principal that made it, with the idle TTL |
//! | [`EventStore`](crate::http::EventStore) ([`HttpConfig::event_store`](crate::http::HttpConfig::event_store)) | [`RedisEventStore`] | SSE events, for `Last-Event-ID` replay on any replica |
//! | [`Fanout`](crate::server::Fanout) ([`ServerBuilder::fanout`](crate::server::ServerBuilder::fanout)) | [`RedisFanout`] | `notifications/resources/updated` and `notifications/*/list_changed`, to every replica's subscribers (pub/sub) |
//! | [`TaskStore`](crate::server::TaskStore) ([`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store)) | [`RedisTaskStore`] | the tasks of the tasks extension: each task's record (status, input requests, result or error, its owner's lease) and its inbox (the `tasks/update` answers and `tasks/cancel` left for the replica running it) |
//!
//! All four are made from one [`Redis`] (a URL and a key prefix: [`Redis::open`]), sharing
//! its connection; so several deployments can share one Redis, and a replica opens one
//! connection for its commands (plus the fan-out's subscription), not one per store. Each
//! type's own `open` ([`RedisSessionStore::open`]) opens a connection of its own. The 2026-07-28 revision needs none of them: its
//! requests are stateless, and an `input_required` round finishes on any replica that has
//! the same [`ServerOptions::request_state_key`](crate::ServerOptions::request_state_key).
//!
//! **Tasks.** A task runs on the replica that made it (its body is a future there), which
//! keeps its record in the store, renews a lease in it every third of
//! [`ServerOptions::task_lease`](crate::ServerOptions::task_lease), and takes its inbox every
//! poll interval. Any replica answers `tasks/get` from the record, and leaves a `tasks/update`
//! or `tasks/cancel` in the inbox: it takes effect within one poll interval (on the owner
//! itself, at once). A task whose replica died stops renewing its lease, and every replica
//! then reads it as failed, saying why.
//!
//! # What is shared, and what stays on one replica
//!
//! Shared: what a session's handshake settled (a request for a session this replica does
//! not hold re-makes it from the store); its subscriptions; a `DELETE`, and the idle TTL
//! (every request on a session restarts it in the store); the events of every resumable
//! stream; resource updates and list changes.
//!
//! **Subscriptions.** A legacy session's `resources/subscribe` and `resources/unsubscribe`
//! change its state in the session store (saved before the request is answered), like
//! `logging/setLevel`. A resource update, raised on any replica and carried to the others
//! by the fan-out, is sent on the session's GET stream by the replica that holds the
//! stream, and that replica reads the session's subscriptions from the store first: so a
//! subscribe that landed on replica A after the stream opened on C takes effect on C at
//! once, and an update is never sent for a URI the session unsubscribed from elsewhere.
//! The cost is one store read (one `GET`) per update and per session whose GET stream is
//! open on the replica, in a task of its own: not on any request's path, and nothing when
//! no stream is open. The other way, publishing each session's change on the fan-out so
//! that the replicas holding its stream update their copy, costs nothing per update, but
//! an update raised just after a subscribe was answered could overtake the change (the
//! fan-out's publish is queued, not awaited), and the update would be lost; re-reading
//! cannot be overtaken, since the subscribe is in the store before its answer leaves. A
//! session copy whose stream is not open on a replica goes by the subscriptions it last
//! read there (a GET that opens the stream reads the store first). Two subscribes of one
//! session served at the same moment by two replicas each save the whole state, and the
//! later save wins (as for two `logging/setLevel`s): send them one at a time.
//!
//! **List changes and `notifications/initialized`.** A session takes list changes once it is
//! initialized. Its GET stream may open on replica C before its `notifications/initialized`
//! reaches replica A (toolwire's own client opens the stream in that order): C re-made the
//! session from a state not yet initialized. So a list change that finds, on the replica
//! holding the stream, a session not initialized as far as that replica knows reads the
//! session from the store, as an update reads its subscriptions, and goes out once the store
//! says `initialized`; the first such read marks it initialized there for good, and later
//! changes pay nothing.
//!
//! Per replica:
//!
//! - **Calls in flight**, and so their cancellation: a `notifications/cancelled` reaches
//!   the call only on the replica running it, and a server-to-client request a call makes
//!   (elicitation, sampling, roots) must be answered on that replica. A replica that dies
//!   takes its calls with it; the client's retry runs elsewhere.
//! - **A stream's live half**: a POST's answer, or the GET stream, is written by the
//!   replica that holds its connection. On another replica, `Last-Event-ID` replays what
//!   the store holds and then ends the stream with `retry:` (the client polls again); the
//!   live tail follows only where the call runs.
//! - **What is served**: a live server's `add_tool` changes this replica only; the fan-out
//!   carries the `list_changed`, and each replica must make the same change itself.
//! - **The session cap** ([`HttpConfig::max_sessions`](crate::http::HttpConfig::max_sessions))
//!   counts the sessions this replica holds.
//!
//! # When Redis is down
//!
//! Every command is bounded ([`DEFAULT_COMMAND_TIMEOUT`]). A legacy request that needs the
//! session store is answered 503 with the JSON-RPC error message
//! [`STORE_UNAVAILABLE`](crate::http::STORE_UNAVAILABLE) (`service unavailable: the session
//! store is unavailable; try again`); a `Last-Event-ID` the event store cannot read is 503
//! `service unavailable: the event store could not be read (…); try again`; events and
//! notices raised meanwhile are logged as not stored or not published. Modern requests,
//! and stateless ones, do not touch Redis and are served as usual. The connection manager
//! reconnects in the background, and service resumes when Redis is back.

mod connection;
mod event_store;
mod fanout;
mod handle;
mod session_store;
mod task_store;

pub use connection::{DEFAULT_COMMAND_TIMEOUT, RedisError};
pub use event_store::{
    DEFAULT_EVENT_RETENTION, DEFAULT_REDIS_EVENTS_PER_STREAM, RedisEventStore, WRITE_QUEUE,
};
pub use fanout::{PUBLISH_QUEUE, RedisFanout};
pub use handle::Redis;
pub use session_store::RedisSessionStore;
pub use task_store::RedisTaskStore;
