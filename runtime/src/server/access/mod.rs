//! Who calls, and what they may do: the [`Caller`](caller::Caller) each message is served
//! for (`caller`), who may see and call what (`policy`), the requests each principal may make
//! (`rate`) and the two profiles of callers (`exposure`).

pub(super) mod caller;
pub(super) mod exposure;
pub(super) mod policy;
pub(super) mod rate;
