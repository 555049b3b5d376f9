//! Legacy sessions (2025-03-26 to 2025-11-25), named by `Mcp-Session-Id`: `sessions` (this
//! endpoint's table: the idle TTL, the cap, whose session each is), `session_store`
//! (`SessionStore`: where replicas share what a session settled), `roaming` (the table in
//! front of that store: a session this replica does not hold is re-made from it). The
//! handlers reach them through the endpoint's `find_session`; the session's GET stream is
//! `stream::slot`.

pub(super) mod roaming;
pub(super) mod session_store;
pub(super) mod sessions;
