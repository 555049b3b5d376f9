//! A session and the messages it is fed: the [`Session`](session::Session) a transport
//! holds (`session`), its state (`state`), the method table (`table`), the era a request is
//! served in (`era`), where answers go (`sink`), what a legacy call asks its client
//! (`talk`) and, with feature `tower`, a request served through tower layers (`layered`).

pub(super) mod era;
#[cfg(feature = "tower")]
pub(super) mod layered;
pub(super) mod session;
pub(super) mod sink;
pub(super) mod state;
pub(super) mod table;
pub(super) mod talk;
