//! What goes back as server-sent events, and how a stream is resumed: `outbox` (what a
//! session sends for one POST, bounded), `sse` (the framing, and the bodies made of it),
//! `event_store` (`EventStore`: a legacy session's events, kept for `Last-Event-ID`),
//! `channel` (a resumable stream's sending end, which numbers and stores each event), and
//! `slot` (a legacy session's GET stream, one open at a time). Each imports only those
//! before it.

pub(super) mod channel;
pub(super) mod event_store;
pub(super) mod outbox;
pub(super) mod slot;
pub(super) mod sse;
