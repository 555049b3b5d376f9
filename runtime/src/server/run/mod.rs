//! The one request path that runs user code (`request`): the table of requests in flight
//! (`running`), a 2026-07-28 call's `input_required` rounds (`rounds`) and the sealed
//! `requestState` they carry (`request_state`), and a call's `tracing` events forwarded to
//! its client (`forward`).

pub(super) mod forward;
pub(super) mod request;
pub(super) mod request_state;
pub(super) mod rounds;
pub(super) mod running;
