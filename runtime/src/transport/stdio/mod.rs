//! The stdio transport: one compact JSON-RPC message per line on stdin and stdout.
//!
//! - Nothing but MCP goes to stdout; logs go through `tracing` (the `serve_registry!` main
//!   sends them to stderr).
//! - stdin is read by a dedicated blocking thread, not through the reactor: a line is split
//!   off the buffer as soon as it is complete, and a line over the size limit is discarded as
//!   it streams past (answered with -32600), never buffered whole. The same thread dispatches
//!   each line (inside the runtime's context): on a current-thread runtime a tool call is
//!   polled once there and spawned only if it waits, so a quick call never wakes the runtime.
//!   A sync tool body runs right there too; one that runs long (past 1 to 9 ms) is
//!   relieved: a new reader thread takes over the input (the two take turns under one mutex,
//!   see `tool::relief`), and the old one leaves once its body has answered.
//! - What the client wrote before serving began (on stdin, usually `initialize`) is read
//!   without blocking and dispatched by the serving thread itself, every call spawned, before
//!   the reader thread starts: the handshake does not wait for a thread to start (see
//!   `waiting`), nor for the `serve_registry!` main's log lines made meanwhile, which are
//!   written after those answers (`log_hold`). [`serve_lines`] does not do this: it cannot
//!   poll its input.
//! - stdout is written inline, by the thread that produced the answer, when the write cannot
//!   block and nothing is queued; otherwise by a dedicated thread that coalesces: it writes
//!   whatever is queued and flushes only when the queue is empty, so a burst of answers costs
//!   one flush. A client that stops reading stalls only that thread (see `output`).
//! - Backpressure: while more than [`MAX_UNWRITTEN_OUTPUT`] bytes of answers are sent and
//!   not yet written (the client is not reading stdout), the stdin reader stops reading, so
//!   nothing more is admitted and the client's own writes block once the pipe is full. It
//!   reads on once the client has taken all but half of that. Reading also pauses while
//!   more than [`MAX_WAITING_CALLS`] admitted calls wait for an in-flight slot (the answers
//!   they will owe are not in the output yet, and each holds its request). Calls admitted
//!   before a pause run on and answer; nothing is dropped. A `notifications/cancelled` the client
//!   wrote after the pause began sits unread with the requests before it: it takes effect
//!   when it is read, and by then the call it names may have answered (the cancel is then
//!   ignored, as any cancel of a finished call is). A client must therefore read stdout
//!   while it writes (or write from another thread): one that writes without end and never
//!   reads blocks on its own write once the pause begins.
//! - Serving ends when stdin closes. Calls still in flight get the server's shutdown grace
//!   to finish and answer (a client that writes its requests and then closes its end still
//!   reads the answers); then the function returns `Ok(())`, so a `main` exits 0. If the
//!   client closes stdout first, serving ends at once, also with `Ok(())`.

mod config;
#[cfg(unix)]
mod fd;
mod output;
mod waiting;

pub use config::{DEFAULT_SHUTDOWN_GRACE, StdioConfig};

#[cfg(unix)]
pub(crate) use fd::file_kind;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::log_hold;
use crate::race::{Either, first};
use crate::server::{Server, Session, Sink};
use crate::sync::lock;
use crate::tool::relief;

/// How many bytes of answers may be sent and not yet written to stdout before the stdin
/// reader stops reading (4 MiB): the bound on what a client that stops reading can make
/// the server hold, beyond the answers of the calls already admitted. Reading resumes once
/// the client has taken all but half of it. A bound for stdio and for [`serve_lines`].
pub const MAX_UNWRITTEN_OUTPUT: usize = 4 * 1024 * 1024;

/// How many admitted tool calls may wait for an in-flight slot
/// ([`ServerOptions::max_in_flight`](crate::ServerOptions::max_in_flight)) before the stdin
/// reader stops reading (1024). It reads on once half of them have started. If none
/// finishes for 100 ms (the tools are stuck, not slow), it reads one more line, so a
/// `notifications/cancelled` still gets through, at one line per 100 ms.
pub const MAX_WAITING_CALLS: usize = 1024;

/// See [`MAX_WAITING_CALLS`].
const STALLED: std::time::Duration = std::time::Duration::from_millis(100);

/// The line buffer's capacity kept between lines: a longer line's buffer is given back
/// once that line has been handled, so one 16 MiB line does not leave 16 MiB behind.
const LINE_KEEP: usize = 64 * 1024;

/// The input's buffer: a read takes up to this much of what the client wrote.
const INPUT_BUFFER: usize = 64 * 1024;

/// Why serving over stdio stopped with an error. (stdin closing is not an error: it is how
/// a client says it is done.)
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StdioError {
    /// Reading the input failed.
    #[error("reading the MCP input (stdin) failed: {0}")]
    Input(#[source] io::Error),
    /// Writing the output failed (other than the client closing it).
    #[error("writing the MCP output (stdout) failed: {0}")]
    Output(#[source] io::Error),
    /// A transport thread could not be started.
    #[error("could not start the stdio {0} thread: {1}")]
    Thread(&'static str, #[source] io::Error),
}

/// Serve `server` over this process's stdin and stdout until stdin closes (the crate root
/// re-exports it as [`serve_stdio`](crate::serve_stdio)). Keep a clone of the server to
/// read [`calls_seen`](Server::calls_seen) afterwards.
///
/// ```no_run
/// use toolwire::stdio::StdioConfig;
/// use toolwire::{Server, ServerOptions, serve_stdio, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// #[tokio::main]
/// async fn main() -> Result<(), toolwire::stdio::StdioError> {
///     let options = ServerOptions::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
///     let server = Server::new(tools![hello].unwrap(), options);
///     serve_stdio(server, StdioConfig::new()).await
/// }
/// ```
pub async fn serve(server: Server, config: StdioConfig) -> Result<(), StdioError> {
    let mut input = BufReader::with_capacity(INPUT_BUFFER, io::stdin());
    #[cfg(unix)]
    {
        waiting::read(&mut input);
        match output::Polled::new(io::stdout()) {
            Ok(stdout) => serve_bounded(server, config, input, stdout, MAX_UNWRITTEN_OUTPUT).await,
            Err(stdout) => {
                serve_bounded(server, config, input, output::Opaque(stdout), MAX_UNWRITTEN_OUTPUT).await
            }
        }
    }
    #[cfg(not(unix))]
    serve_bounded(server, config, input, output::Opaque(io::stdout()), MAX_UNWRITTEN_OUTPUT).await
}

/// Serve over any byte streams with stdio's framing (one message per line): a Unix socket,
/// a TCP connection, a pipe. Returns when `input` reaches end-of-file, or when `output`
/// is closed by the peer.
///
/// `output` is always written by the writer thread (this function cannot tell whether a
/// write to it would block); [`serve`] also writes inline, on the runtime, when stdout
/// is a pipe, socket or file that takes the write at once.
pub async fn serve_lines<R, W>(
    server: Server,
    config: StdioConfig,
    input: R,
    output: W,
) -> Result<(), StdioError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    serve_bounded(
        server,
        config,
        BufReader::with_capacity(INPUT_BUFFER, input),
        output::Opaque(output),
        MAX_UNWRITTEN_OUTPUT,
    )
    .await
}

/// [`serve_lines`] on an output that may be written inline, reading paused while more than
/// `max_unwritten` bytes are not yet written. The complete lines already in `input`'s buffer
/// (what [`serve`] read before, see [`waiting`]) are dispatched on this thread before the
/// reader thread starts.
async fn serve_bounded<R, D>(
    server: Server,
    config: StdioConfig,
    mut input: BufReader<R>,
    output: D,
    max_unwritten: usize,
) -> Result<(), StdioError>
where
    R: Read + Send + 'static,
    D: output::Destination,
{
    let options = server.options().clone();
    let session = server.session();
    // The log's lines until the answers to what is waiting are written (this one, and the
    // handshake's when `initialize` is waiting) are written after those answers: the client's
    // first reply does not wait on stderr (see `log_hold`).
    let held = log_hold::hold();
    tracing::info!(
        server = options.name(),
        version = options.version(),
        tools = server.registry().len(),
        "serving MCP over stdio"
    );

    let out = output::Output::new(output);
    let (done_tx, mut writer_done) = oneshot::channel::<io::Result<()>>();
    // Started on its first batch (see `output`): the reply to `initialize` needs no thread.
    let writer = Arc::downgrade(&out);
    out.start_writer_with(Box::new(move || {
        let done = Arc::new(std::sync::Mutex::new(Some(done_tx)));
        let theirs = done.clone();
        let spawned = std::thread::Builder::new().name("toolwire-stdout".into()).spawn(move || {
            let result = match writer.upgrade() {
                Some(writer) => writer.write_queued(),
                None => Ok(()),
            };
            if let Some(tx) = lock(&theirs).take() {
                let _ = tx.send(result);
            }
        });
        spawned.map(drop).inspect_err(|e| {
            let message = format!("could not start the stdio writer thread: {e}");
            if let Some(tx) = lock(&done).take() {
                let _ = tx.send(Err(io::Error::new(e.kind(), message)));
            }
        })
    }));
    // However serving ends (this future dropped included), the flusher stops and the writer
    // thread writes what is queued and exits (one that never started, with nothing queued,
    // is not started: see `Output::close`).
    let _close = CloseOnDrop(&*out, D::INLINE.then(|| tokio::spawn(out.clone().flush_inline())));
    let sink: Arc<dyn Sink> = Arc::new(output::LineSink(out.clone()));
    session.set_notifier(sink.clone());
    let (input_tx, input_done) = oneshot::channel::<io::Result<()>>();
    let reader = Arc::new(Reader {
        session: session.clone(),
        sink: sink.clone(),
        out: out.clone(),
        runtime: tokio::runtime::Handle::current(),
        limit: options.max_message_size,
        max_unwritten,
        max_admitted: options.max_in_flight + MAX_WAITING_CALLS,
    });
    // What the client wrote before serving began, dispatched here with every call spawned
    // (this is the runtime's thread) and its answers written now, as the reader writes its
    // own: the reply to `initialize` goes out before any thread starts.
    if !input.buffer().is_empty() {
        let _deferring = out.defer_on_this_thread();
        waiting::dispatch(&mut input, |line| session.handle_bytes(line, &sink));
        out.flush_deferred();
    }
    drop(held);
    let input = Arc::new(Mutex::new(Input { reader: input, done: Some(input_tx) }));
    // Readers take turns: a sync body run in place that runs long hands the reading to a
    // new thread (see `relief`).
    let post = relief::Post::new(tokio::runtime::Handle::current(), move |post, generation| {
        let (reader, input) = (reader.clone(), input.clone());
        std::thread::Builder::new()
            .name("toolwire-stdin".into())
            .spawn(move || reader.run(&input, &post, generation))
            .map(drop)
    });
    post.start().map_err(|e| StdioError::Thread("reader", e))?;
    let keepalive =
        config.ping_interval.map(|every| tokio::spawn(keepalive(session.clone(), sink.clone(), every)));

    let ended = match first(input_done, &mut writer_done).await {
        // Err: the reader thread is gone without a word (it panicked): as good as EOF.
        Either::Left(Ok(Ok(())) | Err(_)) => Ended::Eof,
        Either::Left(Ok(Err(e))) => Ended::Input(e),
        Either::Right(written) => Ended::Output(written.unwrap_or(Ok(()))),
    };
    if let Some(task) = keepalive {
        task.abort();
    }
    let result = match ended {
        Ended::Eof => {
            tracing::info!(in_flight = session.in_flight(), "stdin closed");
            finish(&session, config.shutdown_grace, &out, writer_done).await
        }
        Ended::Input(e) => {
            let _ = finish(&session, config.shutdown_grace, &out, writer_done).await;
            Err(StdioError::Input(e))
        }
        Ended::Output(Ok(())) => Ok(()),
        Ended::Output(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            tracing::info!("the client closed stdout; stopping");
            Ok(())
        }
        Ended::Output(Err(e)) => Err(StdioError::Output(e)),
    };
    tracing::info!(calls_seen = server.calls_seen(), "done serving");
    result
}

/// Let in-flight calls finish (within the grace), then flush and close the output, waiting
/// for the last answers to be taken as long as the client takes some every grace period: a
/// client that closed stdin but stopped reading stdout does not keep the server alive, and
/// one that reads slowly still gets everything.
async fn finish<D: output::Destination>(
    session: &Session,
    grace: std::time::Duration,
    out: &output::Output<D>,
    mut writer_done: oneshot::Receiver<io::Result<()>>,
) -> Result<(), StdioError> {
    session.drain(grace).await;
    out.close();
    let mut written = out.lines_written();
    let done = loop {
        match tokio::time::timeout(grace, &mut writer_done).await {
            Ok(done) => break done,
            Err(_) if out.lines_written() > written => written = out.lines_written(),
            Err(_) => {
                return Err(StdioError::Output(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "stdout took nothing for {}s after stdin closed: the client stopped reading, so the answers still queued were not delivered",
                        crate::tool::fmt_secs(grace)
                    ),
                )));
            }
        }
    };
    match done {
        Ok(Err(e)) if e.kind() != io::ErrorKind::BrokenPipe => Err(StdioError::Output(e)),
        _ => Ok(()),
    }
}

enum Ended {
    Eof,
    Input(io::Error),
    Output(io::Result<()>),
}

/// Closes the output when serving ends, and stops its flusher task.
struct CloseOnDrop<'a, D: output::Destination>(&'a output::Output<D>, Option<tokio::task::JoinHandle<()>>);

impl<D: output::Destination> Drop for CloseOnDrop<'_, D> {
    fn drop(&mut self) {
        self.0.close();
        if let Some(flusher) = &self.1 {
            flusher.abort();
        }
    }
}

/// The stdin reader thread: it reads each line and dispatches it itself, so an answer the
/// engine gives at once (and a tool call that completes on its first poll) costs no wake-up
/// of the runtime thread; a call that waits is spawned onto the runtime. What it sends is
/// written when it is about to block on its next read, so a burst of pipelined requests
/// gets its answers in few writes.
struct Reader<D: output::Destination> {
    session: Session,
    sink: Arc<dyn Sink>,
    out: Arc<output::Output<D>>,
    runtime: tokio::runtime::Handle,
    /// The longest line accepted.
    limit: usize,
    /// Reading pauses while more than this is sent and not yet written.
    max_unwritten: usize,
    /// Reading pauses while more calls than this are in flight (running or waiting).
    max_admitted: usize,
}

/// The input the stdin readers take turns on (one reads at a time, see [`relief::Post`]).
struct Input<R> {
    reader: BufReader<R>,
    /// Told how reading ended (end-of-file or a read error); `None` once told.
    done: Option<oneshot::Sender<io::Result<()>>>,
}

impl<D: output::Destination> Reader<D> {
    /// Read and dispatch as `post`'s reader of `generation` until end-of-file, a read error
    /// (reported through `done`), the end of serving (`done`'s receiver gone), or relief (a
    /// sync body this thread ran in place ran long, and a new reader took over).
    fn run<R: Read>(&self, input: &Mutex<Input<R>>, post: &Arc<relief::Post>, generation: u64) {
        let _runtime = self.runtime.enter();
        let _deferring = self.out.defer_on_this_thread();
        relief::read_for(post, generation);
        let mut line = Vec::new();
        loop {
            if !post.reads(generation) {
                return;
            }
            let mut input = lock(input);
            let Input { reader, done } = &mut *input;
            // Relieved while this thread waited for the input, or reading is over.
            let Some(done_tx) = done.as_ref().filter(|_| post.reads(generation)) else { return };
            // Backpressure: no more is read while the client is not taking what it is owed.
            self.out.wait_for_room(self.max_unwritten);
            self.wait_for_calls();
            let read = next_line(reader, &mut line, self.limit, &mut || self.out.flush_deferred());
            // Serving ended while this thread was blocked reading: the runtime may be gone, so
            // nothing more is dispatched.
            if done_tx.is_closed() {
                return;
            }
            let result = match read {
                Ok(Line::Complete) => {
                    drop(input);
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    self.session.handle_bytes_polled(&line, &self.sink, crate::server::Inline::Reader);
                    continue;
                }
                Ok(Line::Oversized) => {
                    drop(input);
                    self.session.reject_oversized(&self.sink);
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Line::Eof) => Ok(()),
                Err(e) => Err(e),
            };
            self.out.flush_deferred();
            if let Some(tx) = done.take() {
                let _ = tx.send(result);
            }
            return;
        }
    }
}

impl<D: output::Destination> Reader<D> {
    /// Hold this thread while more than `max_admitted` calls are in flight, until they are
    /// down to `max_admitted` less half of [`MAX_WAITING_CALLS`], or until none has
    /// finished for [`STALLED`].
    fn wait_for_calls(&self) {
        let mut in_flight = self.session.in_flight();
        if in_flight <= self.max_admitted {
            return;
        }
        // What this thread sent is written while it waits.
        self.out.flush_deferred();
        let resume_at = self.max_admitted - MAX_WAITING_CALLS / 2;
        let mut moved = std::time::Instant::now();
        while in_flight > resume_at && moved.elapsed() < STALLED {
            std::thread::sleep(std::time::Duration::from_millis(1));
            let now = self.session.in_flight();
            if now < in_flight {
                moved = std::time::Instant::now();
            }
            in_flight = now;
        }
    }
}

enum Line {
    Complete,
    Oversized,
    Eof,
}

/// Read one line into `line`. A line longer than `limit` is consumed and dropped without
/// being buffered. A last line without a newline still counts.
/// `before_blocking` runs whenever the buffer is empty, so the next read may block.
fn next_line<R: Read>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    limit: usize,
    before_blocking: &mut dyn FnMut(),
) -> io::Result<Line> {
    line.clear();
    // The previous line was long (or over the limit, and grew the buffer before it was
    // dropped): give the memory back.
    if line.capacity() > LINE_KEEP {
        line.shrink_to(LINE_KEEP);
    }
    let mut oversized = false;
    loop {
        if reader.buffer().is_empty() {
            before_blocking();
        }
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(if oversized {
                Line::Oversized
            } else if line.is_empty() {
                Line::Eof
            } else {
                Line::Complete
            });
        }
        let (chunk, found) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !oversized {
            if line.len() + chunk.len() > limit {
                oversized = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = found.unwrap_or(buf.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(if oversized { Line::Oversized } else { Line::Complete });
        }
    }
}

/// Ping the client of a legacy session every `every`; a missed ping is logged.
async fn keepalive(session: Session, sink: Arc<dyn Sink>, every: std::time::Duration) {
    let mut tick = tokio::time::interval(every);
    tick.tick().await;
    loop {
        tick.tick().await;
        if !session.is_initialized() {
            continue;
        }
        match session.ping(&sink, every).await {
            Ok(rtt) => tracing::debug!(?rtt, "client answered ping"),
            Err(e) => tracing::warn!("{e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::ToolRegistry;
    use crate::server::ServerOptions;

    fn lines(input: &[u8], limit: usize) -> Vec<Result<String, &'static str>> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            match next_line(&mut reader, &mut line, limit, &mut || {}).unwrap() {
                Line::Complete => out.push(Ok(String::from_utf8(line.clone()).unwrap())),
                Line::Oversized => out.push(Err("oversized")),
                Line::Eof => return out,
            }
        }
    }

    #[test]
    fn lines_split_on_newlines_and_oversized_ones_are_skipped_whole() {
        assert_eq!(
            lines(b"ab\n0123456789\ncd\n\nlast", 5),
            vec![Ok("ab".into()), Err("oversized"), Ok("cd".into()), Ok("".into()), Ok("last".into())]
        );
        assert_eq!(lines(b"12345\n123456", 5), vec![Ok("12345".into()), Err("oversized")]);
        assert!(lines(b"", 5).is_empty());
    }

    /// A long line's buffer is given back once it is handled, whether it was accepted or
    /// over the limit.
    #[test]
    fn the_line_buffer_shrinks_back_after_a_long_line() {
        for limit in [1 << 20, 100_000] {
            let mut input = vec![b'x'; 300_000];
            input.extend_from_slice(b"\nshort\n");
            let mut reader = BufReader::with_capacity(4096, &input[..]);
            let mut line = Vec::new();
            let first = next_line(&mut reader, &mut line, limit, &mut || {}).unwrap();
            assert!(matches!(first, Line::Complete | Line::Oversized));
            assert!(line.capacity() > LINE_KEEP, "the long line grew the buffer (limit {limit})");
            assert!(matches!(next_line(&mut reader, &mut line, limit, &mut || {}).unwrap(), Line::Complete));
            assert_eq!(line, b"short");
            assert!(line.capacity() <= LINE_KEEP, "{} bytes kept (limit {limit})", line.capacity());
        }
    }

    /// A client that writes without reading: past the bound of unwritten output the reader
    /// stops reading, so the client's writes block; once it reads, everything is read and
    /// every request is answered exactly once, in order.
    #[test]
    fn a_client_that_stops_reading_stops_the_reading_and_loses_nothing() {
        const PINGS: usize = 20_000;
        let (input, mut to_server) = io::pipe().unwrap();
        let (mut from_server, output) = io::pipe().unwrap();
        let server = Server::new(ToolRegistry::new(), ServerOptions::new("t", "1"));
        let serving = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(serve_bounded(
                server,
                StdioConfig::new(),
                BufReader::new(input),
                output::Opaque(output),
                16 * 1024,
            ))
        });
        let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = written.clone();
        let client = std::thread::spawn(move || {
            for n in 0..PINGS {
                writeln!(to_server, r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#).unwrap();
                counter.store(n + 1, std::sync::atomic::Ordering::Relaxed);
            }
        });
        // Let the pipes fill; then the client must be stuck, far short of the end.
        let mut stuck_at = 0;
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let now = written.load(std::sync::atomic::Ordering::Relaxed);
            if now == stuck_at {
                break;
            }
            stuck_at = now;
        }
        assert!(
            stuck_at < PINGS / 2,
            "the server read {stuck_at} of {PINGS} requests nobody read answers to"
        );
        let mut answers = String::new();
        from_server.read_to_string(&mut answers).unwrap();
        client.join().unwrap();
        serving.join().unwrap().unwrap();
        let expected: String =
            (0..PINGS).map(|n| format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"result\":{{}}}}\n")).collect();
        assert!(answers == expected, "every ping answered once, in order ({} bytes)", answers.len());
    }

    /// Serving is a future a host can spawn on a multi-threaded runtime: the log hold
    /// (`log_hold::Hold`, tied to its thread) is not held across an await.
    #[test]
    fn serving_is_send() {
        fn send<T: Send>(_: &T) {}
        let server = Server::new(ToolRegistry::new(), ServerOptions::new("t", "1"));
        send(&serve(server.clone(), StdioConfig::new()));
        send(&serve_lines(server.clone(), StdioConfig::new(), io::empty(), io::sink()));
    }

    /// A `tracing` subscriber that writes each event's message through `log_hold`, as the
    /// `serve_registry!` main's stderr log does.
    #[cfg(unix)]
    struct ThroughHold(log_hold::Writer);

    #[cfg(unix)]
    impl tracing::Subscriber for ThroughHold {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            let mut message = String::new();
            event.record(&mut |field: &tracing::field::Field, value: &dyn std::fmt::Debug| {
                if field.name() == "message" {
                    message = format!("{value:?}\n");
                }
            });
            log_hold::write(&message, &self.0);
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    /// The log lines made while the `initialize` that was waiting is answered ("serving MCP
    /// over stdio", the handshake's "initialize") are written after its reply, on a stdout
    /// written inline (a socket here, as a pipe is): the reply does not wait on stderr.
    #[cfg(unix)]
    #[test]
    fn the_log_lines_before_the_first_reply_are_written_after_it() {
        use std::os::unix::net::UnixStream;
        let (server_out, client_in) = UnixStream::pair().unwrap();
        let early = client_in.try_clone().unwrap();
        early.set_nonblocking(true).unwrap();
        // Each line written, with whether the reply was on the socket by then (what was, read
        // without blocking, is kept in `received`).
        let lines = Arc::new(std::sync::Mutex::new(Vec::<(String, bool)>::new()));
        let received = Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        let (seen, got) = (lines.clone(), received.clone());
        let writer: log_hold::Writer = Arc::new(move |text: &str| {
            let mut got = got.lock().unwrap();
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = (&early).read(&mut buffer) {
                got.extend_from_slice(&buffer[..n]);
            }
            seen.lock().unwrap().push((text.trim_end().to_owned(), got.contains(&b'\n')));
        });
        let (input, mut to_server) = io::pipe().unwrap();
        writeln!(
            to_server,
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        )
        .unwrap();
        drop(to_server);
        let mut input = BufReader::with_capacity(INPUT_BUFFER, input);
        input.fill_buf().unwrap();
        let server = Server::new(ToolRegistry::new(), ServerOptions::new("t", "1"));
        let output = output::Polled::new(server_out).expect("a socket is written inline");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        tracing::subscriber::with_default(ThroughHold(writer), || {
            runtime
                .block_on(serve_bounded(server, StdioConfig::new(), input, output, MAX_UNWRITTEN_OUTPUT))
                .unwrap();
        });
        let lines = lines.lock().unwrap().clone();
        // The two held lines went out together, in one write, after the reply.
        assert_eq!(lines[0].0, "serving MCP over stdio\ninitialize", "all lines: {lines:?}");
        assert!(lines.iter().all(|(_, replied)| *replied), "a line was written before the reply: {lines:?}");
        let mut reply = String::from_utf8(received.lock().unwrap().clone()).unwrap();
        if reply.is_empty() {
            BufReader::new(client_in).read_line(&mut reply).unwrap();
        }
        assert!(reply.starts_with(r#"{"jsonrpc":"2.0","id":0,"result":{"#), "{reply}");
    }

    /// A line that arrives after serving ended (the future dropped, its runtime gone) is not
    /// dispatched: the reader thread just stops.
    #[test]
    fn a_line_after_serving_ended_is_not_dispatched() {
        let (input, mut client) = io::pipe().unwrap();
        let server = Server::new(ToolRegistry::new(), ServerOptions::new("t", "1"));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let serving = serve_lines(server.clone(), StdioConfig::new(), input, io::sink());
        let timed_out = runtime
            .block_on(async { tokio::time::timeout(std::time::Duration::from_millis(50), serving).await });
        assert!(timed_out.is_err(), "serving runs until stdin closes");
        drop(runtime);
        writeln!(client, r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x"}}}}"#)
            .unwrap();
        drop(client);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(server.calls_seen(), 0);
    }
}
