//! [`Lines`]: stdio's framing (one JSON message per line) over any pair of async byte
//! streams: a socket, a pipe, a child you spawned yourself, one end of a `tokio::io::duplex`.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::task::JoinHandle;

use super::stdio::{MAX_LINE, read_line_capped};
use super::transport::{CloseFuture, Incoming, Link, Outgoing, StartFuture, Transport};
use crate::race::{Either, first};

/// A [`Transport`] speaking one JSON message per line over `reader` and `writer`, as
/// [`StdioServer`](super::StdioServer) does over a child's stdout and stdin:
/// `Client::connect(Lines::new(read_half, write_half), options)`.
///
/// A line over [`MAX_LINE`] bytes is discarded whole, one that is not UTF-8 or not JSON is
/// skipped. When `reader` ends (or fails), the connection is gone: every request waiting
/// fails as `closed the connection`. [`Client::close`](super::Client::close) shuts `writer`
/// down (the far end reads end-of-file) and stops reading.
#[derive(Debug)]
pub struct Lines<R, W> {
    reader: R,
    writer: W,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Messages read from `reader`, written to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        Lines { reader, writer }
    }
}

/// The two tasks of a running [`Lines`], and how to end the writer gracefully.
struct LinesLink {
    writer: JoinHandle<()>,
    reader: JoinHandle<()>,
    close: Arc<tokio::sync::Notify>,
}

impl<R, W> Transport for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    fn start(self: Box<Self>, mut outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            let Lines { reader, mut writer } = *self;
            let close = Arc::new(tokio::sync::Notify::new());
            let (closing, failed) = (Arc::clone(&close), incoming.clone());
            let writer = tokio::spawn(async move {
                loop {
                    let message = match first(closing.notified(), outgoing.recv()).await {
                        Either::Right(Some(m)) => m,
                        Either::Left(()) | Either::Right(None) => break,
                    };
                    let id = message.request_id();
                    let mut line = message.into_json().into_bytes();
                    line.push(b'\n');
                    if writer.write_all(&line).await.is_err() || writer.flush().await.is_err() {
                        if let Some(id) = id {
                            failed.not_sent(id, "closed the connection");
                        }
                        break;
                    }
                }
                let _ = writer.shutdown().await;
            });
            let reader = tokio::spawn(async move {
                let mut reader = BufReader::new(reader);
                let mut buf = Vec::new();
                while let Ok(Some(whole)) = read_line_capped(&mut reader, &mut buf, MAX_LINE).await {
                    match (whole, std::str::from_utf8(&buf)) {
                        (true, Ok(text)) => incoming.deliver(text),
                        (true, Err(_)) => tracing::warn!("ignoring a line that is not UTF-8"),
                        (false, _) => tracing::warn!(limit = MAX_LINE, "discarding a line over the limit"),
                    }
                }
                incoming.closed("closed the connection");
            });
            Ok(Box::new(LinesLink { writer, reader, close }) as Box<dyn Link>)
        })
    }
}

impl Link for LinesLink {
    fn close(&mut self) -> CloseFuture<'_> {
        Box::pin(async move {
            self.close.notify_one();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), &mut self.writer).await;
            self.reader.abort();
        })
    }
}

impl Drop for LinesLink {
    fn drop(&mut self) {
        self.writer.abort();
        self.reader.abort();
    }
}
