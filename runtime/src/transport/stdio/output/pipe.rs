//! A pipe's inline writes on Linux, none of which can block: [`Pipe::write_now`].
//!
//! The output is written by the runtime's thread only when the write cannot block (see the
//! parent module). Two ways do that on a pipe without a `poll` first:
//!
//! - `pwritev2(RWF_NOWAIT)` on stdout's own descriptor. It takes a vector, and the kernel's
//!   vectored path costs more than a plain `write`: 120 to 230 ns a call on this project's
//!   machines (`bench/src/bin/pipe-writes.rs`: a 120-byte line written and read back, a
//!   million rounds each way, the ways interleaved), some 2% of a sequential stdio call.
//! - A plain `write` on a **description of the pipe of this output's own**, opened
//!   `O_NONBLOCK` through `/proc/self/fd/N`: opening a pipe that way makes a new open file
//!   description of the same pipe, so its non-blocking flag touches nothing else (stdout's
//!   own description stays blocking for the writer thread, for the rest of the process and
//!   for anyone who shares it). A batch of several lines is one `writev` on it.
//!
//! The second is taken after [`OWN_AFTER`] inline writes, not at start: the open costs 5 to
//! 35 µs (procfs), which a server's first reply should not wait for, and a server that
//! answers a handful of calls gains nothing from it. It is checked to be the same pipe
//! (device and inode) before it is used; when it cannot be opened (no `/proc`, the reader
//! gone) the first way stays.
//!
//! Both write a batch of at most `PIPE_BUF` bytes whole or not at all (`EAGAIN`: the pipe is
//! full), and of a longer one as much as the pipe has room for. The description of its own is
//! closed with the output (when serving ends); it is never inherited (`O_CLOEXEC`).

use std::fs::OpenOptions;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

use crate::transport::stdio::fd::identity;

/// Inline writes on stdout's shared description before the pipe gets one of its own.
pub(super) const OWN_AFTER: u32 = 16;

/// The most lines written in one system call; a longer batch takes the `poll` path (rare:
/// `INLINE_MAX` bytes of answers are few lines).
pub(super) const MAX_LINES: usize = 64;

/// How a pipe is written inline.
pub(super) enum Pipe {
    /// `pwritev2(RWF_NOWAIT)` on the shared description; its own is opened after this many
    /// more writes.
    NoWait { until_own: u32 },
    /// A description of its own, `O_NONBLOCK`: `write` and `writev`.
    Own(OwnedFd),
    /// `pwritev2(RWF_NOWAIT)` on the shared description for good (no description of its
    /// own could be had).
    NoWaitOnly,
}

impl Pipe {
    /// A pipe starting on the shared description.
    pub(super) fn new() -> Pipe {
        Pipe::NoWait { until_own: OWN_AFTER }
    }

    /// Write `lines` (each ending in its newline; at most [`MAX_LINES`]) to the pipe
    /// `shared` in one system call that cannot block: `Some(Ok(n))` when the first `n` bytes
    /// are written (0 when the pipe is full), `None` when the kernel refuses `RWF_NOWAIT`
    /// (then the caller polls from now on).
    pub(super) fn write_now(
        &mut self,
        shared: BorrowedFd<'_>,
        lines: &[String],
    ) -> Option<io::Result<usize>> {
        debug_assert!(lines.len() <= MAX_LINES, "the caller polls for a longer batch");
        if let Pipe::NoWait { until_own } = self {
            match until_own.checked_sub(1) {
                Some(left) => *until_own = left,
                None => *self = own_description(shared).map_or(Pipe::NoWaitOnly, Pipe::Own),
            }
        }
        // One line (every sequential answer) fills a slice of one, not an array of 64 zeroed
        // first (a kilobyte's memset a call).
        let slice =
            |line: &String| libc::iovec { iov_base: line.as_ptr() as *mut libc::c_void, iov_len: line.len() };
        let (one, mut many);
        let iov: &[libc::iovec] = match lines {
            [line] => {
                one = [slice(line)];
                &one
            }
            _ => {
                many = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; MAX_LINES];
                for (slot, line) in many.iter_mut().zip(lines) {
                    *slot = slice(line);
                }
                &many[..lines.len()]
            }
        };
        loop {
            let n = match self {
                Pipe::Own(fd) => own_write(fd.as_raw_fd(), iov),
                _ => nowait_write(shared.as_raw_fd(), iov),
            };
            // Up to PIPE_BUF bytes a pipe takes whole or not at all; of more, as much as it
            // has room for (the caller hands the rest to the writer thread).
            if n >= 0 {
                return Some(Ok(n as usize));
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => return Some(Ok(0)),
                // A kernel before 4.14 (no pwritev2 flags), or one whose pipes refuse
                // RWF_NOWAIT: the caller polls from now on.
                Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS) if !matches!(self, Pipe::Own(_)) => {
                    return None;
                }
                _ => return Some(Err(e)),
            }
        }
    }
}

/// `write` (one line) or `writev` on the pipe's own non-blocking description.
fn own_write(fd: RawFd, iov: &[libc::iovec]) -> isize {
    // SAFETY: every iovec points at a live byte slice (a line borrowed for the call) of the
    // length given, and the kernel only reads them; `fd` is owned by the caller's `Pipe`,
    // so open. `iov` holds at most MAX_LINES (64) entries, well under IOV_MAX.
    #[allow(unsafe_code)]
    unsafe {
        match iov {
            [one] => libc::write(fd, one.iov_base, one.iov_len),
            _ => libc::writev(fd, iov.as_ptr(), iov.len() as libc::c_int),
        }
    }
}

/// `pwritev2(RWF_NOWAIT)` on stdout's own descriptor.
fn nowait_write(fd: RawFd, iov: &[libc::iovec]) -> isize {
    // SAFETY: as in `own_write`; `fd` is borrowed from the output, so open. Offset -1 writes
    // at the current position, as `write` does.
    #[allow(unsafe_code)]
    unsafe {
        libc::pwritev2(fd, iov.as_ptr(), iov.len() as libc::c_int, -1, libc::RWF_NOWAIT)
    }
}

/// A new open file description of the pipe `shared` is, non-blocking and closed on exec;
/// `None` if it cannot be opened or is not that pipe.
pub(super) fn own_description(shared: BorrowedFd<'_>) -> Option<OwnedFd> {
    let path = format!("/proc/self/fd/{}", shared.as_raw_fd());
    // std opens with O_CLOEXEC; a pipe with no reader left refuses (ENXIO).
    let own: OwnedFd = OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(path).ok()?.into();
    let (a, b) = (identity(shared)?, identity(own.as_fd())?);
    (a == b && a.0 == libc::S_IFIFO).then_some(own)
}
