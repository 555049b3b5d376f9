//! The output side of the stdio transport: one message per line, written inline on the
//! runtime when that cannot block, and otherwise by a dedicated writer thread. Both coalesce.
//!
//! A sequential client waits for each answer before it sends the next request, so handing
//! every answer to a parked writer thread costs a thread wake-up per call: most of a
//! sequential call's time. Instead [`LineSink::send`] queues the line and wakes a flusher
//! task on the runtime (no system call: it is the thread that is already running). The
//! flusher runs after the tasks that were ready before it, so a burst of answers is one
//! batch, and it writes that batch itself, in one `write`, when all of these hold:
//!
//! - the writer thread is not writing (it holds the output while it does, so nothing is
//!   overtaken and no line interleaves with another);
//! - the batch is at most [`INLINE_MAX`] bytes (`PIPE_BUF` on Linux: a pipe write that size
//!   is atomic and, when the pipe has a free slot, does not block);
//! - the output is a pipe, a socket or a regular file and `poll` says it is writable now.
//!   Any other output (a terminal, or a stream [`serve_lines`](super::serve_lines) was
//!   handed, whose descriptor is unknown) is never written inline. On Linux a pipe needs no
//!   `poll`: the batch is written in a way that writes it whole or fails with `EAGAIN` when
//!   the pipe is full (a write of at most `PIPE_BUF` bytes to a pipe is atomic), so an answer
//!   costs one system call, not two: `pwritev2(RWF_NOWAIT)` at first, then a plain `write`
//!   on a non-blocking description of the pipe of the output's own (module `pipe`). A batch
//!   of any size is tried that way (the first bullet is the `poll` path's): of more than `PIPE_BUF` bytes the pipe
//!   takes what it has room for now (64 KiB when the client has read everything), and what
//!   it did not take goes to the writer thread, which skips the part written. So a long
//!   answer (a listing of many tools, a tool result of some kilobytes) costs no thread
//!   wake-up while the client keeps up.
//!
//! What the stdin reader thread sends (it dispatches requests itself) is not handed to the
//! flusher, which would wake the runtime thread: the reader writes it the same way, just
//! before it blocks on its next read, so a burst of pipelined requests is one batch too.
//!
//! The writer thread is started the first time it has work (a batch that cannot be written
//! inline, an output that never is, or the close at the end), not before serving starts: an
//! answer to a client that reads goes out inline, so a server's start-up and its first
//! answers need no second thread.
//!
//! Otherwise the batch goes to the writer thread, which writes whatever is queued and
//! flushes only when the queue runs dry. The writer thread is the only one that may block on
//! the output, so a client that stops reading stdout stalls neither the runtime nor the
//! stdin reader: answers queue in memory as before, and the flusher stops writing because
//! the pipe no longer polls writable.
//!
//! What is queued is bounded from the input side: [`Output::wait_for_room`] holds the stdin
//! reader (so nothing more is read, let alone admitted) while more than its bound of bytes
//! is sent and not yet written, until the client has drained it to half the bound. The
//! count covers the queue and the batch the writer thread is writing; calls admitted before
//! the pause still answer into the queue, so the bound is exceeded by at most their answers.

use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

#[cfg(unix)]
use super::fd::file_kind;
use crate::protocol::Outbound;
use crate::server::Sink;
use crate::sync::{lock, wait};

thread_local! {
    /// Its address tells this thread from any other alive now.
    static THIS_THREAD: u8 = const { 0 };
}

/// A number no other thread alive has (see [`Output::defer_on_this_thread`]).
fn this_thread() -> usize {
    THIS_THREAD.with(|t| std::ptr::from_ref(t) as usize)
}

/// The most bytes written inline after a `poll` said the output is writable: `PIPE_BUF` on
/// Linux. (A pipe on Linux is tried with a batch of any size: see the module docs.)
pub(super) const INLINE_MAX: usize = 4096;

/// Where the lines go, and whether a short write would not block right now.
pub(super) trait Destination: Write + Send + 'static {
    /// Whether [`writable_now`](Self::writable_now) can ever say yes.
    const INLINE: bool;

    /// Whether a write of at most [`INLINE_MAX`] bytes would complete without blocking now.
    fn writable_now(&self) -> bool;

    /// Write `lines` (each ending in its `\n`, of any length) in one system call that cannot
    /// block: `Some(Ok(n))` when the first `n` bytes are written (0 when the write would
    /// block; fewer than all when the output took no more now), `None` when this output
    /// cannot do that (then, for at most [`INLINE_MAX`] bytes,
    /// [`writable_now`](Self::writable_now) and an ordinary write are used).
    fn write_now(&mut self, _lines: &[String]) -> Option<io::Result<usize>> {
        None
    }
}

/// A stream whose readiness is unknown: always written by the writer thread.
pub(super) struct Opaque<W>(pub(super) W);

impl<W: Write + Send + 'static> Write for Opaque<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<W: Write + Send + 'static> Destination for Opaque<W> {
    const INLINE: bool = false;

    fn writable_now(&self) -> bool {
        false
    }
}

/// A stream on a pipe, socket or regular file, polled before each inline write (a pipe on
/// Linux is written without one instead, while the kernel allows: module `pipe`).
#[cfg(unix)]
pub(super) struct Polled<W> {
    out: W,
    /// A pipe on Linux, written without a `poll` (module `pipe`) until the kernel refuses.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    pipe: Option<pipe::Pipe>,
}

#[cfg(unix)]
impl<W: Write + std::os::fd::AsFd + Send + 'static> Polled<W> {
    /// `output` if its descriptor is a pipe, a socket or a regular file (where `POLLOUT`
    /// means a write of [`INLINE_MAX`] bytes does not block); `None` otherwise (a terminal
    /// can accept fewer bytes than it polls writable for).
    pub(super) fn new(output: W) -> Result<Polled<W>, W> {
        match file_kind(output.as_fd()) {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            Some(kind @ (libc::S_IFIFO | libc::S_IFSOCK | libc::S_IFREG)) => {
                Ok(Polled { out: output, pipe: (kind == libc::S_IFIFO).then(pipe::Pipe::new) })
            }
            #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
            Some(libc::S_IFIFO | libc::S_IFSOCK | libc::S_IFREG) => Ok(Polled { out: output }),
            _ => Err(output),
        }
    }
}

#[cfg(unix)]
impl<W: Write> Write for Polled<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(unix)]
impl<W: Write + std::os::fd::AsFd + Send + 'static> Destination for Polled<W> {
    const INLINE: bool = true;

    fn writable_now(&self) -> bool {
        // POLLERR (the reader is gone) is "writable" too: the write fails at once with EPIPE.
        super::fd::poll_now(self.out.as_fd(), libc::POLLOUT) & (libc::POLLOUT | libc::POLLERR) != 0
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn write_now(&mut self, lines: &[String]) -> Option<io::Result<usize>> {
        if lines.len() > pipe::MAX_LINES {
            // This batch takes the poll path; the next is written as before.
            return None;
        }
        let written = self.pipe.as_mut()?.write_now(self.out.as_fd(), lines);
        if written.is_none() {
            // The kernel refuses RWF_NOWAIT: poll from now on.
            self.pipe = None;
        }
        written
    }
}

/// Starts the writer thread (see [`Output::start_writer_with`]); an error when it could not.
pub(super) type Starter = Box<dyn FnOnce() -> io::Result<()> + Send>;

/// A thread's deferral of its sends (see [`Output::defer_on_this_thread`]), ended on drop
/// unless another thread has taken it over.
pub(super) struct Deferring<'a, D: Destination>(&'a Output<D>);

impl<D: Destination> Drop for Deferring<'_, D> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        if s.deferrer == this_thread() {
            s.deferrer = 0;
        }
    }
}

/// The output shared by the sinks, the flusher task and the writer thread.
pub(super) struct Output<D: Write> {
    state: Mutex<State<D>>,
    /// Wakes the writer thread: a batch for it, an inline write failed, or closing.
    wake: Condvar,
    /// Wakes the flusher task.
    flush: tokio::sync::Notify,
    /// Wakes the stdin reader paused in [`wait_for_room`](Self::wait_for_room).
    room: Condvar,
    /// Lines written so far (by anyone): how the end of serving tells a slow client from
    /// one that stopped reading.
    lines_written: AtomicU64,
}

struct State<D: Write> {
    /// The output, when the writer thread does not hold it. The writer thread takes it out
    /// while it writes (its writes may block); an inline write happens under this lock.
    out: Option<BufWriter<D>>,
    /// Lines not yet written, in send order, each ending in its newline.
    queue: Vec<String>,
    /// The bytes in `queue`, newlines included (less `first_written`).
    queued: usize,
    /// The bytes of the queue's first line (its newline included) an inline write wrote
    /// before the pipe filled; the writer thread, which has the rest, skips them.
    first_written: usize,
    /// The bytes sent and not yet written: `queued` plus the batch the writer thread holds.
    unwritten: usize,
    /// Once `unwritten` is at most this, the paused reader is woken; `None`: nobody waits.
    resume_at: Option<usize>,
    /// The flusher task has been woken and has not run yet.
    flush_due: bool,
    /// The writer thread has been handed the queue.
    thread_due: bool,
    /// Close once the queue is written; lines sent after this are dropped.
    closing: bool,
    /// The writer has stopped (or an inline write failed): lines are dropped.
    gone: bool,
    /// An inline write's error, for the writer thread to report.
    failed: Option<io::Error>,
    /// Starts the writer thread, until it has been started.
    starter: Option<Starter>,
    /// The thread whose sends wait for its [`flush_deferred`](Output::flush_deferred) (the
    /// stdin reader), by [`this_thread`]; 0 for none.
    deferrer: usize,
}

impl<D: Destination> Output<D> {
    /// An output writing to `out`. Run [`write_queued`](Self::write_queued) on a thread
    /// and, if `D` can be written inline, [`flush_inline`](Self::flush_inline) as a task.
    pub(super) fn new(out: D) -> Arc<Output<D>> {
        Arc::new(Output {
            state: Mutex::new(State {
                out: Some(BufWriter::with_capacity(64 * 1024, out)),
                queue: Vec::new(),
                queued: 0,
                first_written: 0,
                unwritten: 0,
                resume_at: None,
                flush_due: false,
                thread_due: false,
                closing: false,
                gone: false,
                failed: None,
                starter: None,
                deferrer: 0,
            }),
            wake: Condvar::new(),
            flush: tokio::sync::Notify::new(),
            room: Condvar::new(),
            lines_written: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State<D>> {
        lock(&self.state)
    }

    /// Start the writer thread with `start` the first time it has work, not now. When it
    /// cannot be started, the output is gone (lines are dropped); `start` reports why to
    /// whoever waits for the writer.
    pub(super) fn start_writer_with(&self, start: Starter) {
        self.lock().starter = Some(start);
    }

    /// Wake the writer thread, starting it first if it has not been.
    fn wake_writer(&self, s: &mut State<D>) {
        if let Some(start) = s.starter.take() {
            // The thread's first step is to take this lock, which is held here: it sees the
            // state as it is once this caller lets go.
            if let Err(e) = start() {
                s.gone = true;
                s.queue.clear();
                let left = std::mem::take(&mut s.queued);
                self.written(s, left);
                // No log line here: a forwarded one would come back into this output.
                drop(e);
                return;
            }
        }
        self.wake.notify_one();
    }

    /// Queue one line, and wake whoever writes it next.
    pub(super) fn send(&self, message: Outbound) {
        let mut s = self.lock();
        if s.gone || s.closing {
            return;
        }
        // The newline in the line's own buffer (a call's result has room for it: see
        // `RESULT_ROOM`), so a line is one slice to write.
        let mut line = message.into_string();
        line.push('\n');
        s.queued += line.len();
        s.unwritten += line.len();
        s.queue.push(line);
        // While the writer thread holds the output (or has been handed the queue) it looks
        // at the queue again before it waits: nobody else needs waking.
        if s.out.is_none() || s.thread_due || s.flush_due || s.deferrer == this_thread() {
            return;
        }
        if D::INLINE {
            s.flush_due = true;
            drop(s);
            self.flush.notify_one();
        } else {
            s.thread_due = true;
            self.wake_writer(&mut s);
        }
    }

    /// Make this thread the one that flushes its own sends, with
    /// [`flush_deferred`](Self::flush_deferred), instead of waking anyone, while the guard
    /// lives: the stdin reader, which flushes before it blocks on its next read. One thread at
    /// a time defers: when a new stdin reader takes over (a sync body relieved the old one,
    /// see `relief`), the old one's sends (its body's progress, its answer) are written as
    /// anyone else's are. The guard's drop (the thread leaving) ends it, since the thread's
    /// number may become a later thread's.
    pub(super) fn defer_on_this_thread(&self) -> Deferring<'_, D> {
        self.lock().deferrer = this_thread();
        Deferring(self)
    }

    /// Write what this thread sent and has not been written (see
    /// [`defer_on_this_thread`](Self::defer_on_this_thread)).
    pub(super) fn flush_deferred(&self) {
        let mut s = self.lock();
        if !s.flush_due {
            self.write_or_hand_off(&mut s);
        }
    }

    /// The flusher task: write each batch inline when that cannot block, else hand it to
    /// the writer thread. Runs until aborted.
    pub(super) async fn flush_inline(self: Arc<Self>) {
        loop {
            self.flush.notified().await;
            let mut s = self.lock();
            s.flush_due = false;
            self.write_or_hand_off(&mut s);
        }
    }

    /// Write the queue in one `write` if that cannot block, else hand it (or what of it the
    /// write left) to the writer thread (unless it has it already). Answers of any length
    /// are written inline where the output can take part of a write without blocking (a
    /// pipe on Linux): one over `INLINE_MAX` bytes (a long listing, a large tool result)
    /// no longer wakes the writer thread while the pipe has room for it.
    fn write_or_hand_off(&self, s: &mut State<D>) {
        if s.queue.is_empty() || s.thread_due || s.gone {
            return;
        }
        debug_assert_eq!(s.first_written, 0, "a partly written line is the writer thread's");
        let small = s.queued <= INLINE_MAX;
        let State { out, queue, queued, thread_due, .. } = &mut *s;
        let now = match out.as_mut() {
            Some(o) if o.buffer().is_empty() => o.get_mut().write_now(queue),
            _ => None,
        };
        let written = match (now, out.as_mut()) {
            (Some(Ok(n)), _) if n == *queued => {
                self.lines_written.fetch_add(queue.len() as u64, Ordering::Relaxed);
                queue.clear();
                Ok(())
            }
            // Part of it: the lines written whole leave the queue, the rest is the writer
            // thread's (which waits for room).
            (Some(Ok(n)), Some(_)) if n > 0 => {
                let (whole, first_written) = lines_within(queue, n);
                queue.drain(..whole);
                self.lines_written.fetch_add(whole as u64, Ordering::Relaxed);
                s.first_written = first_written;
                s.queued -= n;
                self.written(s, n);
                s.thread_due = true;
                self.wake_writer(s);
                return;
            }
            (Some(Err(e)), _) => {
                queue.clear();
                Err(e)
            }
            (None, Some(o)) if small && o.get_ref().writable_now() => {
                let written =
                    queue.iter().try_for_each(|line| o.write_all(line.as_bytes())).and_then(|()| o.flush());
                self.lines_written.fetch_add(queue.len() as u64, Ordering::Relaxed);
                queue.clear();
                written
            }
            // The writer thread is writing: it will see the queue.
            (_, None) => return,
            // Full (or too big to write inline): the writer thread waits for room.
            (_, Some(_)) => {
                *thread_due = true;
                self.wake_writer(s);
                return;
            }
        };
        let bytes = std::mem::take(&mut s.queued);
        self.written(s, bytes);
        if let Err(e) = written {
            s.gone = true;
            s.failed = Some(e);
            self.wake_writer(s);
        }
    }

    /// `bytes` of what was sent have been written (or dropped): wake the paused reader if
    /// that made room.
    fn written(&self, s: &mut State<D>, bytes: usize) {
        s.unwritten = s.unwritten.saturating_sub(bytes);
        if s.resume_at.is_some_and(|at| s.unwritten <= at) {
            s.resume_at = None;
            self.room.notify_all();
        }
    }

    /// Hold the calling thread (the stdin reader) while more than `limit` bytes are sent and
    /// not yet written, until the client has taken all but `limit / 2` of them; returns at
    /// once if the output is closing or gone. What this thread sent itself is handed on
    /// first, so it is among what drains.
    #[inline]
    pub(super) fn wait_for_room(&self, limit: usize) {
        let s = self.lock();
        if s.unwritten > limit {
            self.pause_for_room(s, limit);
        }
    }

    /// [`wait_for_room`](Self::wait_for_room) once there is none: out of line, so the check
    /// every line makes stays in the reader's loop.
    #[cold]
    #[inline(never)]
    fn pause_for_room(&self, mut s: MutexGuard<'_, State<D>>, limit: usize) {
        if !s.flush_due {
            self.write_or_hand_off(&mut s);
        }
        let resume_at = limit / 2;
        let paused = s.unwritten;
        tracing::debug!(unwritten = paused, limit, "stdout is not being read; pausing stdin");
        while s.unwritten > resume_at && !s.gone && !s.closing {
            s.resume_at = Some(resume_at);
            s = wait(&self.room, s);
        }
        s.resume_at = None;
        tracing::debug!(unwritten = s.unwritten, "stdout drained; reading stdin again");
    }

    /// Write what is queued and flush when the queue runs dry, until closed; the writer
    /// thread's body. Returns the first write error (an inline one included).
    pub(super) fn write_queued(&self) -> io::Result<()> {
        let result = self.run();
        let mut s = self.lock();
        s.gone = true;
        s.queue.clear();
        s.queued = 0;
        // Whatever is left is dropped: a paused reader goes on (serving is ending).
        let left = s.unwritten;
        self.written(&mut s, left);
        self.room.notify_all();
        result
    }

    fn run(&self) -> io::Result<()> {
        // Some while this thread holds the output (taken out of the state).
        let mut held: Option<BufWriter<D>> = None;
        let mut s = self.lock();
        loop {
            if let Some(e) = s.failed.take() {
                return Err(e);
            }
            if !s.queue.is_empty() {
                let batch = std::mem::take(&mut s.queue);
                let bytes = std::mem::take(&mut s.queued);
                let mut skip = std::mem::take(&mut s.first_written);
                let Some(mut out) = held.take().or_else(|| s.out.take()) else {
                    return Err(io::Error::other("the stdio output went missing"));
                };
                drop(s);
                let written: io::Result<()> = batch.iter().try_for_each(|m| {
                    write_line_from(&mut out, m, std::mem::take(&mut skip))?;
                    self.lines_written.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                });
                drop(batch);
                s = self.lock();
                held = Some(out);
                written?;
                self.written(&mut s, bytes);
                continue;
            }
            if let Some(mut out) = held.take() {
                // The queue ran dry: flush (outside the lock: it may block), then hand the
                // output back for inline writes unless more was queued meanwhile.
                drop(s);
                let flushed = out.flush();
                s = self.lock();
                flushed?;
                if s.queue.is_empty() {
                    s.out = Some(out);
                    s.thread_due = false;
                } else {
                    held = Some(out);
                }
                continue;
            }
            s.thread_due = false;
            if s.closing {
                // Inline writes flush themselves: nothing is buffered.
                return s.out.as_mut().map_or(Ok(()), BufWriter::flush);
            }
            s = wait(&self.wake, s);
        }
    }

    /// How many lines have been written so far.
    pub(super) fn lines_written(&self) -> u64 {
        self.lines_written.load(Ordering::Relaxed)
    }

    /// Write what is queued, then stop; later lines are dropped.
    ///
    /// When the writer thread was never started and nothing is queued (every answer went out
    /// inline, and inline writes flush themselves), it is not started just to stop: its
    /// starter is dropped instead, which tells whoever waits for the writer that it is done
    /// (the channel it would have reported on closes). A server that answered everything
    /// inline exits without starting a thread.
    pub(super) fn close(&self) {
        let mut s = self.lock();
        s.closing = true;
        // (A failed inline write has started the thread already, to report it.)
        if s.starter.is_some() && s.queue.is_empty() {
            s.gone = true;
            let starter = s.starter.take();
            drop(s);
            drop(starter);
        } else {
            self.wake_writer(&mut s);
            drop(s);
        }
        self.room.notify_all();
    }
}

/// Write `line` (its newline included) but its first `skip` bytes (written already).
fn write_line_from<W: Write>(out: &mut W, line: &str, skip: usize) -> io::Result<()> {
    out.write_all(line.as_bytes().get(skip..).unwrap_or_default())
}

/// Of `lines` (each with its newline), how many the first `n` bytes hold whole, and how
/// many bytes of the next one they hold.
fn lines_within(lines: &[String], mut n: usize) -> (usize, usize) {
    for (whole, line) in lines.iter().enumerate() {
        if n < line.len() {
            return (whole, n);
        }
        n -= line.len();
    }
    (lines.len(), 0)
}

/// The sink of a stdio session.
pub(super) struct LineSink<D: Write>(pub(super) Arc<Output<D>>);

impl<D: Destination> Sink for LineSink<D> {
    fn send(&self, message: Outbound) {
        self.0.send(message);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod pipe;
#[cfg(test)]
mod tests;
