//! Where the stderr log's lines go: [`Descriptor`] writes each line whole, in one system
//! call where it can, and never lets a full pipe hold the caller (see the parent module's
//! header: on Linux with glibc a pipe is written with `pwritev2(RWF_NOWAIT)`, a line it cannot
//! take now is dropped and counted, and the next line written says how many were lost).

use std::fmt::Write as _;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use crate::protocol::rfc3339::timestamp;
use crate::sync::lock;

/// Where a log's lines go.
pub(crate) trait Lines: Send + Sync + 'static {
    /// Write one whole line (its newline included).
    fn line(&self, line: &str);
}

/// A descriptor the lines are written to (stderr), each whole.
pub(crate) struct Descriptor<W> {
    out: W,
    /// Held while a line is written, so a line that takes two writes is still whole.
    lock: Mutex<()>,
    /// Lines dropped because the pipe was full, not yet reported.
    dropped: AtomicU64,
    /// `RWF_NOWAIT` may be tried (this descriptor has not refused it).
    nowait: AtomicBool,
}

impl<W: Output> Descriptor<W> {
    /// Lines written to `out`.
    pub(crate) fn new(out: W) -> Descriptor<W> {
        Descriptor { out, lock: Mutex::new(()), dropped: AtomicU64::new(0), nowait: AtomicBool::new(true) }
    }
}

impl<W: Output> Lines for Descriptor<W> {
    fn line(&self, line: &str) {
        let _held = lock(&self.lock);
        let dropped = self.dropped.load(Ordering::Relaxed);
        let with_notice;
        let bytes = if dropped == 0 {
            line.as_bytes()
        } else {
            with_notice = format!("{}{line}", dropped_notice(dropped));
            with_notice.as_bytes()
        };
        let rest = if self.nowait.load(Ordering::Relaxed) {
            match self.out.try_write(bytes) {
                Try::Written => return self.reported(dropped),
                Try::Partly(n) => &bytes[n..],
                Try::Full => {
                    self.dropped.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                Try::Failed => return,
                Try::Refused => {
                    self.nowait.store(false, Ordering::Relaxed);
                    bytes
                }
            }
        } else {
            bytes
        };
        if self.out.write_all(rest).is_ok() {
            self.reported(dropped);
        }
    }
}

impl<W> Descriptor<W> {
    /// `dropped` lines have been reported.
    fn reported(&self, dropped: u64) {
        if dropped != 0 {
            self.dropped.fetch_sub(dropped, Ordering::Relaxed);
        }
    }
}

/// The line that says lines were lost, before the next one written.
fn dropped_notice(dropped: u64) -> String {
    let mut line = String::new();
    timestamp(&mut line, SystemTime::now());
    let lines = if dropped == 1 { "line was" } else { "lines were" };
    let _ = writeln!(line, "  WARN {dropped} log {lines} dropped: stderr was full (nobody was reading it)");
    line
}

/// A stream the log writes to.
pub(crate) trait Output: Send + Sync + 'static {
    /// Write all of `bytes`, blocking if need be.
    fn write_all(&self, bytes: &[u8]) -> io::Result<()>;

    /// Write `bytes` without blocking, if the stream can.
    fn try_write(&self, bytes: &[u8]) -> Try;
}

impl Output for io::Stderr {
    fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        // `&Stderr` holds std's stderr lock for the whole `write_all`, so a panic's report
        // (`eprintln!`) does not land inside a line either.
        let mut out = self;
        io::Write::write_all(&mut out, bytes)
    }

    fn try_write(&self, bytes: &[u8]) -> Try {
        let _std = self.lock();
        nowait(self, bytes)
    }
}

/// What a write without blocking came to.
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
pub(crate) enum Try {
    /// All of it is written.
    Written,
    /// The first `n` bytes are written (a line longer than `PIPE_BUF`); the rest is to go.
    Partly(usize),
    /// Nothing is written: the pipe or socket is full.
    Full,
    /// The write failed (the reader is gone): there is nobody to tell.
    Failed,
    /// The stream takes no `RWF_NOWAIT` (a terminal, a regular file, an old kernel), or this
    /// system has none: it is written with a blocking write from now on.
    Refused,
}

/// `pwritev2(RWF_NOWAIT)` of `bytes` to `out`: to a pipe, at most `PIPE_BUF` bytes are
/// written whole or not at all.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn nowait(out: &impl std::os::fd::AsFd, bytes: &[u8]) -> Try {
    use crate::transport::stdio::file_kind;
    use std::os::fd::AsRawFd;
    let fd = out.as_fd().as_raw_fd();
    let iov = libc::iovec { iov_base: bytes.as_ptr() as *mut libc::c_void, iov_len: bytes.len() };
    loop {
        // SAFETY: the one iovec points at `bytes`, live and of that length for the whole
        // call; the kernel only reads it. The descriptor is borrowed from `out`, so it is
        // open. Offset -1 writes at the current position, as `write` does.
        #[allow(unsafe_code)]
        let n = unsafe { libc::pwritev2(fd, &iov, 1, -1, libc::RWF_NOWAIT) };
        if n >= 0 {
            return if n as usize == bytes.len() { Try::Written } else { Try::Partly(n as usize) };
        }
        return match io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            // A regular file can answer EAGAIN for a moment's contention, but never stays full.
            Some(libc::EAGAIN) if file_kind(out.as_fd()) == Some(libc::S_IFREG) => Try::Refused,
            Some(libc::EAGAIN) => Try::Full,
            Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS) => Try::Refused,
            _ => Try::Failed,
        };
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn nowait<T>(_out: &T, _bytes: &[u8]) -> Try {
    Try::Refused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::stderr::StderrLog;
    use std::io::Read as _;
    use std::sync::Arc;
    use std::time::{Duration, UNIX_EPOCH};
    use tracing::level_filters::LevelFilter;

    /// 2026-12-02T18:48:57.123456Z.
    fn fixed() -> SystemTime {
        UNIX_EPOCH + Duration::new(1_796_237_337, 123_456_789)
    }

    const AT: &str = "2026-12-02T18:48:57.123456Z";

    impl Output for io::PipeWriter {
        fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
            let mut out = self;
            io::Write::write_all(&mut out, bytes)
        }

        fn try_write(&self, bytes: &[u8]) -> Try {
            nowait(self, bytes)
        }
    }

    /// A full pipe does not hold the writer: the lines it cannot take are dropped, and the
    /// next line written says how many.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_full_pipe_drops_lines_and_the_next_line_says_how_many() {
        let (mut reader, writer) = io::pipe().unwrap();
        let out = Descriptor::new(writer);
        let line = |i: usize| format!("line {i:058}\n");
        let mut written = Vec::new();
        let mut i = 0;
        while out.dropped.load(Ordering::Relaxed) == 0 {
            assert!(i < 1_000_000, "the pipe never filled");
            let before = out.dropped.load(Ordering::Relaxed);
            out.line(&line(i));
            assert!(out.nowait.load(Ordering::Relaxed), "this kernel's pipes refuse RWF_NOWAIT");
            if out.dropped.load(Ordering::Relaxed) == before {
                written.push(line(i));
            }
            i += 1;
        }
        for j in 0..4 {
            out.line(&line(i + j));
        }
        assert_eq!(out.dropped.load(Ordering::Relaxed), 5);
        let mut text = vec![0; written.concat().len()];
        reader.read_exact(&mut text).unwrap();
        assert_eq!(String::from_utf8(text).unwrap(), written.concat());
        out.line("after\n");
        assert_eq!(out.dropped.load(Ordering::Relaxed), 0);
        drop(out);
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        let (notice, after) = rest.split_once('\n').unwrap();
        assert_eq!(
            &notice[AT.len()..],
            "  WARN 5 log lines were dropped: stderr was full (nobody was reading it)"
        );
        assert_eq!(after, "after\n");
    }

    /// A pipe written with blocking writes only (as a terminal is).
    struct Blocking(io::PipeWriter);

    impl Output for Blocking {
        fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
            let mut out = &self.0;
            io::Write::write_all(&mut out, bytes)
        }

        fn try_write(&self, _bytes: &[u8]) -> Try {
            Try::Refused
        }
    }

    /// Lines logged from many threads at once arrive whole, one per line, those longer than
    /// a pipe writes at once (`PIPE_BUF`) too.
    #[test]
    fn lines_from_many_threads_never_interleave() {
        let (reader, writer) = io::pipe().unwrap();
        let log = Arc::new(StderrLog::new(LevelFilter::INFO, Descriptor::new(Blocking(writer)), fixed));
        let read = std::thread::spawn(move || io::read_to_string(reader).unwrap());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let dispatch = tracing::Dispatch::from(log.clone());
                std::thread::spawn(move || {
                    tracing::dispatcher::with_default(&dispatch, || {
                        for i in 0..300 {
                            tracing::info!(thread = t, i, "{}", "x".repeat(i * 37 % 9000));
                        }
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        drop(log);
        let text = read.join().unwrap();
        let mut seen = 0;
        for line in text.lines() {
            let rest =
                line.strip_prefix(&format!("{AT}  INFO ")).unwrap_or_else(|| panic!("broken: {line:.80}"));
            let (xs, fields) = rest.rsplit_once(" thread=").unwrap();
            let (_, i) = fields.split_once(" i=").unwrap();
            let i: usize = i.parse().unwrap();
            assert_eq!(xs, "x".repeat(i * 37 % 9000));
            seen += 1;
        }
        assert_eq!(seen, 1200);
    }
}
