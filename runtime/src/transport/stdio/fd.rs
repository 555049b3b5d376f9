//! What the stdio transport asks of a file descriptor, one system call each: what is ready
//! on it now ([`poll_now`], for the inline writes and the input waiting before serving), and
//! what it is ([`file_kind`], [`identity`], for which outputs are written inline and whether
//! a pipe's own description names the same pipe).

/// The events of `events` that `fd` has now (`poll` with a zero timeout, which never
/// blocks); 0 when it has none, or when polling fails.
pub(super) fn poll_now(fd: std::os::fd::BorrowedFd<'_>, events: libc::c_short) -> libc::c_short {
    use std::os::fd::AsRawFd;
    let mut pollfd = libc::pollfd { fd: fd.as_raw_fd(), events, revents: 0 };
    // SAFETY: `poll` reads and writes exactly one `pollfd` through the pointer, which points
    // at a live, initialised local for the whole call; the descriptor is borrowed, so it is
    // open. A timeout of 0 never blocks.
    #[allow(unsafe_code)]
    let ready = unsafe { libc::poll(&mut pollfd, 1, 0) };
    if ready == 1 { pollfd.revents } else { 0 }
}

/// What kind of file `fd` is (its mode's `S_IFMT` bits: `S_IFIFO`, `S_IFREG`, ...), or
/// `None` if `fstat` fails. One system call, where std's way (a duplicate descriptor's
/// `metadata()`) takes three (`fcntl`, `statx`, `close`) before a server's first reply.
pub(crate) fn file_kind(fd: std::os::fd::BorrowedFd<'_>) -> Option<libc::mode_t> {
    identity(fd).map(|(kind, _, _)| kind)
}

/// What `fd` names: its file's kind (as [`file_kind`]), device and inode; `None` if
/// `fstat` fails.
pub(super) fn identity(fd: std::os::fd::BorrowedFd<'_>) -> Option<(libc::mode_t, libc::dev_t, libc::ino_t)> {
    use std::os::fd::AsRawFd;
    // SAFETY: `fstat` writes one `stat` through the pointer, which points at a live,
    // zero-initialised local for the whole call (`stat` is plain integers, for which all
    // zeroes is a valid value); `fd` is borrowed, so it is open for the call.
    #[allow(unsafe_code)]
    let (status, stat) = unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        (libc::fstat(fd.as_raw_fd(), &mut stat), stat)
    };
    (status == 0).then_some((stat.st_mode & libc::S_IFMT, stat.st_dev, stat.st_ino))
}
