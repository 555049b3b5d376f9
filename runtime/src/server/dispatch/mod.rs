//! A session and the messages it is fed: the [`Session`](session::Session) a transport
//! holds (`session`), its state (`state`), the method table (`table`), the era a request is
//! served in (`era`), where answers go (`sink`) and what a legacy call asks its client
//! (`talk`).

pub(super) mod era;
pub(super) mod session;
pub(super) mod sink;
pub(super) mod state;
pub(super) mod table;
pub(super) mod talk;
