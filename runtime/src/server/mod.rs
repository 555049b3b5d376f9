//! The dispatch engine: a [`Server`] serving what was registered (today: a [`ToolRegistry`])
//! over MCP, in both protocol eras, independent of any transport.
//!
//! A transport creates a [`Session`] per connection and feeds it one message at a time with
//! [`Session::handle`]; answers come back through a [`Sink`], zero or more per message. The
//! engine owns the protocol (lifecycle, version negotiation, routing), the error contract of
//! `tools/call`, concurrency, cancellation and progress; a transport owns only framing.
//!
//! Everything the server advertises is serialised once, in [`ServerBuilder::build`]: the
//! capabilities, the list pages (copied out as bytes), the lifecycle answers. No schema work
//! happens per request.
//!
//! # Fixed or live
//!
//! What a server serves is fixed unless it is built with [`ServerBuilder::live`]. The
//! decision is the program's, made once, because it changes what the server promises: only
//! a live server advertises `listChanged: true` (on `tools`, `resources` and `prompts`,
//! whichever it serves), and only a live one accepts [`Server::add_tool`],
//! [`Server::remove_tool`] and their resource and prompt twins (a fixed one refuses with
//! [`LiveError::NotLive`]). A server that never changes keeps `listChanged: false`, its
//! byte-exact answers, and borrows its sets with no synchronisation at all; a live one
//! holds each capability's set (registry and pages) in a `swap::Swap`, rebuilt whole on a
//! change and swapped in, so `tools/call` pays one `Arc` clone under a read lock, and a call
//! in flight finishes on the tool it started with. The change is then announced
//! (`notifications/*/list_changed`) to every initialized session that has a channel
//! outside calls (stdout; an HTTP session's GET stream) and to every 2026-07-28
//! `subscriptions/listen` that asked (module `live`).
//!
//! - `options`: [`ServerOptions`].
//! - `policy`: [`Access`] and [`Require`], who may see and call what; enforced by `tools`,
//!   `prompts` and `resources` at list time and at call time.
//! - `exposure`: [`Exposure`], the two profiles (trusted host, untrusted callers) and the
//!   approval callback that fails closed.
//! - `rate`: [`RateLimit`], a token bucket per principal, checked before each request.
//! - `session`: [`Session`], the per-connection entry point; `caller`: who the request
//!   being dispatched is served for (its [`Principal`]).
//! - `methods`: the method table: the lifecycle methods, and one arm per capability.
//! - `era`: which era a request is served in; the params and errors every method shares.
//! - `tools`: the tools capability (`tools/list`, `tools/call` and its error contract).
//! - `prompts`: the prompts capability (`prompts/list`, `prompts/get`).
//! - `completion`: the completions capability (`completion/complete`), for prompts and
//!   resource templates.
//! - `request`: the one request path that runs user code (in-flight table, spawning, slot,
//!   deadline, cancellation, panics, progress).
//! - `listing`: pre-serialised list pages and their cursors, for any list method; a cursor
//!   from a listing since replaced gets its own -32602.
//! - `swap`: a capability's set, fixed or swapped whole when a live server changes.
//! - `live`: [`Server::add_tool`] and the other changes, their notifications, and
//!   `subscriptions/listen` (2026-07-28 resource updates and list changes).
//! - `subscriptions`: who takes which notification sent outside any call.
//! - `running`: the table of requests in flight.
//! - `sink`: [`Sink`], replies and batches.
//! - `talk`: what a legacy call sends the client and awaits (elicitation, sampling, roots,
//!   pings), the session's log level and roots cache; `logging`: `logging/setLevel`;
//! - `rounds`: a 2026-07-28 call's asks as `input_required` rounds, the body run again
//!   with the answers; `request_state`: the sealed `requestState` those rounds carry;
//!   `forward`: `tracing` events of a call forwarded to its client (opt-in).
//!
//! Imports between these run one way, `methods → live → tools → request → era → session →
//! sink → running`, with `listing` and `swap` beside `running` at the bottom; this module
//! holds what they all share ([`Server`], `Shared`).
//!
//! # Adding a capability (resources, prompts, …)
//!
//! 1. **Wire types** in `crate::protocol`: its params (`ListParams` serves every list) and
//!    its result structs, `#[derive(Serialize)]` with borrowed fields.
//! 2. **One module** beside `tools.rs`, say `resources.rs`, holding:
//!    - a struct built once from what the user registered (its registry and its
//!      `Listing`s), with an `advertise` that fills its member of
//!      `ServerCapabilities` (add the field in `protocol::lifecycle`);
//!    - `impl Listed` for its items: the result key (`"resources"`,
//!      `"resourceTemplates"`, `"prompts"`) and how one item is written;
//!    - for a method that runs user code (`resources/read`, `prompts/get`), an
//!      `impl Handler`: start the code with the `Context`, and turn its outcome (or the
//!      `Stop` that interrupted it) into the result body. Then
//!      `session.run(reply, meta, peer, modern, handler)` gives it the in-flight table,
//!      cancellation, the deadline, panic catching and progress;
//!    - `fn request(session, &Self, reply, method, params)`, answering its methods; each
//!      starts with `decode_params` and `session.served(..)` (see `era`).
//! 3. **One setter** on [`ServerBuilder`] and one `Option` field in `Shared`; `build`
//!    constructs it and calls its `advertise`.
//! 4. **One arm** in `methods.rs`: `"resources/list" | "resources/read" | …`, delegating to
//!    the module, or -32601 when nothing was registered.
//! 5. **Tests** in `tests.rs`, and the method table in `methods.rs`.
//!
//! Transports need nothing: they frame messages and never look at methods.

mod access;
mod capability;
mod dispatch;
mod engine;
mod notify;
mod options;
mod run;
mod serving;
mod shared;
#[cfg(test)]
mod tests;

pub(crate) use access::caller::Inline;
pub use access::exposure::{
    Approval, ApprovalRequest, Approve, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_MAX_RESULT_BYTES, Exposure,
    Untrusted,
};
pub use access::policy::{Access, Require};
#[cfg(feature = "http")]
pub(crate) use access::rate::refusal_message as rate_refusal_message;
pub use access::rate::{RATE_LIMITED, RateLimit};
pub use dispatch::session::{PingError, Session};
pub use dispatch::sink::Sink;
#[cfg(feature = "http")]
pub(crate) use dispatch::state::Settled;
pub use engine::{Server, ServerBuilder};
pub use notify::fanout::{ChangedList, Delivery, Fanout, Notice};
pub use notify::live::LiveError;
#[cfg(feature = "http")]
pub(crate) use notify::subscriptions::{Recheck, Reread};
pub use options::{
    DEFAULT_CLIENT_REQUEST_TIMEOUT, DEFAULT_LIST_TTL, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_INPUT_ROUNDS,
    DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, DEFAULT_REQUEST_STATE_TTL, DEFAULT_SHUTDOWN_GRACE,
    ServerOptions,
};
