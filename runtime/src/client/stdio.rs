//! The stdio transport: a child process spoken to over its stdin and stdout, one JSON
//! message per line.
//!
//! - The child gets [`SAFE_ENV_VARS`](super::options::SAFE_ENV_VARS) plus its configured
//!   `env`, unless it inherits everything.
//! - Its stderr is drained line by line into `tracing` (target `toolwire::client::stderr`),
//!   so a chatty child never blocks on a full pipe and its words are never read as errors.
//! - A stdout line that is not JSON is logged and skipped; one longer than [`MAX_LINE`] is
//!   discarded whole.
//! - When stdout closes, every pending request fails with what happened to the child
//!   (`exited with status 1`, `was killed by signal 9`).
//! - Shutdown is graceful: close stdin, wait; SIGTERM, wait; SIGKILL. Dropping the link
//!   kills the child at once.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::conn::{Conn, Out};
use super::error::ClientError;
use super::options::{SAFE_ENV_VARS, ShutdownGrace, StdioServer};
use crate::race::{Either, first};

/// The longest stdout line accepted: 64 MiB.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// How long to wait, after stdout closes, for the child's exit status to name the cause.
const EXIT_STATUS_WAIT: Duration = Duration::from_secs(1);

/// A running child and the tasks that serve it.
pub(crate) struct StdioLink {
    pid: Option<u32>,
    grace: ShutdownGrace,
    close_stdin: CancellationToken,
    kill: mpsc::UnboundedSender<()>,
    status: watch::Receiver<Option<String>>,
    waiter: JoinHandle<()>,
    tasks: Vec<JoinHandle<()>>,
}

impl StdioLink {
    /// Spawn the child and start serving `conn` over it.
    pub(crate) fn spawn(
        cfg: &StdioServer,
        conn: &Arc<Conn>,
        outbox: mpsc::UnboundedReceiver<Out>,
    ) -> Result<StdioLink, ClientError> {
        let mut cmd = Command::new(&cfg.command);
        cmd.args(&cfg.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if !cfg.inherit_env {
            cmd.env_clear();
            for key in SAFE_ENV_VARS {
                if let Some(v) = std::env::var_os(key) {
                    cmd.env(key, v);
                }
            }
        }
        cmd.envs(&cfg.env);
        if let Some(dir) = &cfg.cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|e| ClientError::Spawn {
            server: conn.server.clone(),
            command: cfg.command.display().to_string(),
            source: Arc::new(e),
        })?;
        let pid = child.id();
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let (status_tx, status) = watch::channel(None);
        let (kill, kill_rx) = mpsc::unbounded_channel();
        let waiter = tokio::spawn(wait_child(child, kill_rx, status_tx));

        let close_stdin = CancellationToken::new();
        let writer = tokio::spawn(write_loop(stdin, outbox, close_stdin.clone(), Arc::clone(conn)));
        let reader = tokio::spawn(read_loop(BufReader::new(stdout), Arc::clone(conn), status.clone()));
        let server = conn.server.clone();
        let logger = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr);
            let mut buf = Vec::new();
            while let Ok(Some(_)) = read_line_capped(&mut lines, &mut buf, MAX_LINE).await {
                let line = String::from_utf8_lossy(&buf);
                tracing::info!(target: "toolwire::client::stderr", server = %server, "{}", line.trim_end());
            }
        });
        Ok(StdioLink {
            pid,
            grace: cfg.grace,
            close_stdin,
            kill,
            status,
            waiter,
            tasks: vec![writer, reader, logger],
        })
    }

    /// The child's process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Stop the child gracefully: close stdin and wait, SIGTERM and wait, then SIGKILL.
    pub(crate) async fn shutdown(&mut self) {
        self.close_stdin.cancel();
        if !self.wait_exit(self.grace.after_stdin).await {
            if let Some(pid) = self.pid {
                terminate(pid);
            }
            if !self.wait_exit(self.grace.after_term).await {
                let _ = self.kill.send(());
                self.wait_exit(Duration::from_secs(5)).await;
            }
        }
        for t in &self.tasks {
            t.abort();
        }
    }

    /// Wait up to `limit` for the child to exit; whether it did.
    async fn wait_exit(&mut self, limit: Duration) -> bool {
        let mut status = self.status.clone();
        tokio::time::timeout(limit, status.wait_for(Option::is_some)).await.is_ok_and(|r| r.is_ok())
    }
}

impl Drop for StdioLink {
    fn drop(&mut self) {
        // Dropping the waiter drops the `Child`, whose `kill_on_drop` sends SIGKILL; tokio
        // reaps it in the background.
        self.waiter.abort();
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Send SIGTERM to the child `pid` (on Unix; elsewhere there is no SIGTERM, and the
/// SIGKILL that follows the grace period is the only signal).
fn terminate(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: `kill(2)` takes two integers and reads or writes no memory of this
        // process, so no argument can make it unsound; a failure (the child already exited)
        // is reported through the return value, which is ignored as `kill(1)`'s was.
        #[allow(unsafe_code)]
        let _ = unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Own the child: publish its exit status, or kill it on request.
async fn wait_child(
    mut child: Child,
    mut kill: mpsc::UnboundedReceiver<()>,
    status: watch::Sender<Option<String>>,
) {
    let exit = loop {
        match first(child.wait(), kill.recv()).await {
            Either::Left(exit) => break exit,
            Either::Right(Some(())) => {
                let _ = child.start_kill();
            }
            // No one can ask for the kill any more: wait for the exit alone.
            Either::Right(None) => break child.wait().await,
        }
    };
    let reason = match exit {
        Ok(s) => describe_exit(s),
        Err(e) => format!("could not be waited for: {e}"),
    };
    let _ = status.send(Some(reason));
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("was killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "exited".to_owned(),
    }
}

async fn write_loop(
    mut stdin: tokio::process::ChildStdin,
    mut outbox: mpsc::UnboundedReceiver<Out>,
    close: CancellationToken,
    conn: Arc<Conn>,
) {
    loop {
        let msg = match first(close.cancelled(), outbox.recv()).await {
            Either::Right(Some(m)) => m,
            Either::Left(()) | Either::Right(None) => break,
        };
        let mut line = msg.json.into_bytes();
        line.push(b'\n');
        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
            if let Some(id) = msg.id {
                conn.fail(id, super::conn::Failure::Gone("closed its stdin".into()));
            }
            break;
        }
    }
    // Dropping stdin closes it: the first step of a graceful shutdown.
    drop(stdin);
}

async fn read_loop<R: AsyncBufRead + Unpin>(
    mut stdout: R,
    conn: Arc<Conn>,
    mut status: watch::Receiver<Option<String>>,
) {
    let mut buf = Vec::new();
    loop {
        match read_line_capped(&mut stdout, &mut buf, MAX_LINE).await {
            Ok(Some(true)) => match std::str::from_utf8(&buf) {
                Ok(text) => conn.on_text(text),
                Err(_) => tracing::warn!(server = %conn.server, "ignoring a stdout line that is not UTF-8"),
            },
            Ok(Some(false)) => {
                tracing::warn!(server = %conn.server, limit = MAX_LINE, "discarding a stdout line over the limit")
            }
            Ok(None) | Err(_) => break,
        }
    }
    let reason = match tokio::time::timeout(EXIT_STATUS_WAIT, status.wait_for(Option::is_some)).await {
        Ok(Ok(s)) => s.clone().unwrap_or_default(),
        _ => "closed its stdout".to_owned(),
    };
    conn.shut(reason);
}

/// Read one line into `buf` (without its newline). `Ok(None)` at end of input;
/// `Ok(Some(false))` when the line was longer than `max` and was discarded.
pub(crate) async fn read_line_capped<R: AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    let mut overflow = false;
    let mut any = false;
    loop {
        let chunk = r.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if any { Some(!overflow) } else { None });
        }
        any = true;
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if !overflow {
            if buf.len() + take > max {
                overflow = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        r.consume(if done { take + 1 } else { take });
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Some(!overflow));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_discarded_and_the_next_one_is_read() {
        let input = format!("{}\nshort\r\nlast", "x".repeat(100));
        let mut r = BufReader::with_capacity(7, input.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_line_capped(&mut r, &mut buf, 50).await.unwrap(), Some(false));
        assert_eq!(read_line_capped(&mut r, &mut buf, 50).await.unwrap(), Some(true));
        assert_eq!(buf, b"short");
        assert_eq!(read_line_capped(&mut r, &mut buf, 50).await.unwrap(), Some(true));
        assert_eq!(buf, b"last");
        assert_eq!(read_line_capped(&mut r, &mut buf, 50).await.unwrap(), None);
    }
}
