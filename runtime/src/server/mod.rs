//! The dispatch engine: a [`Server`] serving what was registered (today: a [`ToolRegistry`](crate::registry::ToolRegistry))
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
//! `subscriptions/listen` that asked (modules `live` and `listen`).
//!
//! # Where things are
//!
//! - `engine`: [`Server`], the built engine every transport serves, and [`ServerBuilder`]
//!   (`build` serialises everything once). `options`: [`ServerOptions`].
//! - `serving`: what a server serves (each capability, built once) and its [`Fanout`]: read
//!   only by the method table, `listen`, `live` and the [`Server`]. `shared`: what every
//!   session shares and every request may read (options, lifecycle answers, the host
//!   principal, access rules, limits, subscribers); it names no capability.
//! - `intercept`: the interceptor seam, [`Interceptor`]s installed with
//!   [`ServerBuilder::intercept`]: what they see of a request ([`Intercepted`]), what they say
//!   ([`Ruling`]), and the [`Watch`] told how a request ended; run by `table` before routing,
//!   a watch carried by the request's `Reply` and entered around each poll of its user code.
//! - `layer` (feature `tower`): tower layers around every request, installed with
//!   `ServerBuilder::layer`: [`McpRequest`], [`McpResponse`], [`Next`] (the rest of the
//!   server a layer wraps) and the errors a layer's failure reads as; run by
//!   `dispatch/layered` after the rate limit and before the interceptors, the engine's answer
//!   held for the layers by a `Reply` whose route is `Held`.
//! - `access/`: who calls and what they may do. `caller`: the `Caller` each message is
//!   served for (principal, exposure, whether the transport admitted it, how its requests
//!   are polled), made by the transport or from the host and passed down as a parameter;
//!   `policy`: [`Access`] and [`Require`], enforced by the capabilities at list and call
//!   time, and [`MissingScopes`] (a tool lacking only scopes hidden, or stepped up); `rate`: [`RateLimit`], a token bucket per principal, checked before each request;
//!   `exposure`: [`Exposure`], the two profiles and the approval callback that fails closed.
//! - `dispatch/`: a session and the messages it is fed. `session`: [`Session`], the
//!   per-connection entry point, which frames and dispatches; `state`: its state (the
//!   handshake, the calls in flight, what it asked the client); `table`: the method table,
//!   the lifecycle methods and one arm per capability; `era`: which era a request is served
//!   in, and the params and errors every method shares; `sink`: [`Sink`], replies and
//!   batches (and the `Held` answers of layered requests); `layered`: a request through the
//!   tower layers; `talk`: what a legacy call sends the client and awaits (elicitation,
//!   sampling, roots, pings), the log level and the roots cache.
//! - `capability/`: one module per capability, `tools` (`tools/list`, `tools/call` and its
//!   error contract), `resources`, `prompts`, `completion` (`completion/complete`, for
//!   prompts and resource templates) and `logging` (`logging/setLevel`); with what they
//!   share: `listing` (pre-serialised list pages and their cursors), `swap` (a capability's
//!   set, fixed or swapped whole when a live server changes) and `output_check`.
//! - `run/`: `request`, the one request path that runs user code (in-flight table,
//!   spawning, slot, deadline, cancellation, panics, progress, and the `input_required`
//!   rounds of every capability); `running`: the table of requests in flight; `rounds`: a
//!   2026-07-28 call's asks as `input_required` rounds, the body run again with the answers;
//!   `request_state`: the sealed `requestState` those rounds carry; `forward`: `tracing`
//!   events of a call forwarded to its client (opt-in).
//! - `notify/`: notifications outside any call. `subscriptions`: who takes which; `live`:
//!   [`Server::add_tool`] and the other changes; `listen`: `subscriptions/listen`
//!   (2026-07-28 resource updates and list changes); `fanout`: [`Fanout`], the replicas'
//!   shared channel.
//!
//! Imports run one way, top to bottom: `live → engine → session → table → listen and the
//! capabilities → request → era → state → shared → caller`, with `serving` between `engine`
//! and the capabilities, and `rounds`, `fanout`, `subscriptions`, `talk`, `sink`, `intercept`,
//! `running`, `policy`, `rate`, `exposure` and `options` below what uses them (`python3
//! scripts/layers.py` checks that nothing loops). Two rules keep it so:
//!
//! - **This module defines nothing**: it declares its children and re-exports what the
//!   crate uses, so no child imports it (nor does a child import its folder's `mod.rs`).
//! - **Who calls travels as a parameter**: the `Caller` is handed from `Session::handle*`
//!   to the method table, each capability's `request` and the request path; no
//!   thread-local carries it, or the poll mode a transport asks for.
//!
//! # Adding a capability (resources, prompts, …)
//!
//! 1. **Wire types** in `crate::protocol`: its params (`ListParams` serves every list) and
//!    its result structs, `#[derive(Serialize)]` with borrowed fields.
//! 2. **One module** in `capability/` beside `tools.rs`, say `capability/resources.rs`,
//!    holding:
//!    - a struct built once from what the user registered (its registry and its
//!      `Listing`s), with an `advertise` that fills its member of
//!      `ServerCapabilities` (add the field in `protocol::lifecycle`);
//!    - `impl Listed` for its items: the result key (`"resources"`,
//!      `"resourceTemplates"`, `"prompts"`) and how one item is written;
//!    - for a method that runs user code (`resources/read`, `prompts/get`), an
//!      `impl Handler` (`run/request.rs`): start the code with the `Context`, turn its
//!      outcome (or the `Stop` that interrupted it) into the result body, and, for a modern
//!      request run in `input_required` rounds, hand over its `RoundCall` (`round`) and say
//!      how a request past the round limit reads (`over_rounds`). Then
//!      `session.run(reply, meta, peer, modern, handler, caller)` gives it the in-flight
//!      table, cancellation, the deadline, panic catching, progress and the rounds;
//!    - `fn request(session, &Self, reply, method, params, caller)`, answering its
//!      methods; each starts with `decode_params` and `session.served(..)` (see
//!      `dispatch/era.rs`), and asks the `Caller` what it may see (`caller.gate(..)`).
//! 3. **One setter** on [`ServerBuilder`] (`engine.rs`) and one `Option` field in
//!    `Serving` (`serving.rs`); `build` constructs it and calls its `advertise`.
//! 4. **One arm** in `dispatch/table.rs`: `"resources/list" | "resources/read" | …`,
//!    delegating to the module, or -32601 when nothing was registered.
//! 5. **Tests** in `tests.rs`, and the method table in `dispatch/table.rs`.
//!
//! Transports need nothing: they frame messages and never look at methods.

mod access;
mod capability;
mod dispatch;
mod engine;
mod intercept;
#[cfg(feature = "tower")]
mod layer;
mod notify;
mod options;
mod run;
mod serving;
mod shared;
mod task;
#[cfg(test)]
mod tests;

pub(crate) use access::caller::Inline;
pub use access::exposure::{
    Approval, Approve, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_UNTRUSTED_RESULT_BYTES, Exposure, GatedCall,
    Untrusted,
};
pub use access::policy::{Access, INSUFFICIENT_SCOPE, MissingScopes, Require};
#[cfg(feature = "http")]
pub(crate) use access::rate::refusal_message as rate_refusal_message;
pub use access::rate::{RATE_LIMITED, RateLimit};
pub use dispatch::session::{PingError, Session};
pub use dispatch::sink::Sink;
#[cfg(feature = "http")]
pub(crate) use dispatch::state::Settled;
pub use engine::{Server, ServerBuilder};
pub use intercept::{Entered, Intercepted, Interceptor, Outcome, REFUSED, Ruling, Watch};
#[cfg(feature = "tower")]
pub use layer::{McpRequest, McpResponse, Next, NextFuture, OVERLOADED, TIMED_OUT};
pub use notify::fanout::{ChangedList, Delivery, Fanout, Notice};
pub use notify::live::LiveError;
#[cfg(feature = "http")]
pub(crate) use notify::subscriptions::{Recheck, Reread};
pub use options::{
    DEFAULT_CLIENT_REQUEST_TIMEOUT, DEFAULT_LIST_TTL, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_INPUT_ROUNDS,
    DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_MAX_TASKS, DEFAULT_PAGE_SIZE, DEFAULT_REQUEST_STATE_TTL,
    DEFAULT_TASK_LEASE, DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_TTL, ServerOptions,
};
pub use task::store::{
    DEFAULT_TASK_CAPACITY, MemoryTaskStore, TaskFuture, TaskInbox, TaskRecord, TaskStore, TaskStoreError,
};
pub use task::tasks::TOO_MANY_TASKS;
