//! [`InProcess`]: a client connected to a [`Server`] in the same process, through the whole
//! protocol, with no socket and no child.
//!
//! The transport opens one [`Session`](crate::server::Session) of the server, as a stdio
//! process is one: each message the client sends is handed to the session as text, and each
//! message the session sends (answers, progress, log messages, its own requests: elicitation,
//! sampling, roots) is handed to the client as text, in the order it was sent. Both eras work
//! as on stdio: the handshake is the client's ordinary `initialize` or `server/discover`, and
//! a 2026-07-28 call's `input_required` rounds are answered by the client's handlers.
//!
//! The server's answers reach the client through a channel and a task of the transport's own,
//! never from inside the server's call: a client callback (progress, a log message) runs on
//! that task, not on the server's stack.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::transport::{CloseFuture, Incoming, Link, Outgoing, StartFuture, Transport};
use crate::server::{Server, Sink};

/// How long [`Client::close`](super::Client::close) lets the server's calls in flight finish
/// before they are dropped.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// A [`Transport`] to a [`Server`] in this process: `Client::connect(InProcess::new(server),
/// options)`.
#[derive(Debug, Clone)]
pub struct InProcess {
    server: Server,
}

impl InProcess {
    /// A transport to `server` (each connection opens a session of its own).
    pub fn new(server: Server) -> InProcess {
        InProcess { server }
    }
}

/// A running in-process connection: the task feeding the session, the task feeding the
/// client, and the session, for draining on close.
struct InProcessLink {
    session: crate::server::Session,
    tasks: [JoinHandle<()>; 2],
}

impl Transport for InProcess {
    fn start(self: Box<Self>, mut outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            let session = self.server.session();
            let (to_client, mut from_server) = mpsc::unbounded_channel::<String>();
            let sink: Arc<dyn Sink> = Arc::new(move |message: crate::protocol::Outbound| {
                let _ = to_client.send(message.into_string());
            });
            session.set_notifier(Arc::clone(&sink));
            let serving = session.clone();
            let to_server = tokio::spawn(async move {
                while let Some(message) = outgoing.recv().await {
                    serving.handle(message.json(), &sink);
                }
            });
            let to_client = tokio::spawn(async move {
                while let Some(message) = from_server.recv().await {
                    incoming.deliver(&message);
                }
            });
            Ok(Box::new(InProcessLink { session, tasks: [to_server, to_client] }) as Box<dyn Link>)
        })
    }
}

impl Link for InProcessLink {
    fn close(&mut self) -> CloseFuture<'_> {
        Box::pin(async move {
            self.tasks[0].abort();
            self.session.drain(CLOSE_GRACE).await;
            self.tasks[1].abort();
        })
    }
}

impl Drop for InProcessLink {
    /// A client dropped without [`close`](Link::close): its session's calls in flight are
    /// dropped with it, as a stdio server's are when its client dies.
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.session.inner.running.abort_all();
    }
}
