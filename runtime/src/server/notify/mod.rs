//! Notifications sent outside any call: who takes which (`subscriptions`), a live server's
//! changes (`live`), `subscriptions/listen` (`listen`) and the replicas' shared channel
//! (`fanout`).

pub(super) mod fanout;
pub(super) mod listen;
pub(super) mod live;
pub(super) mod subscriptions;
