//! What the client wrote before serving began.
//!
//! A client that spawns a server writes `initialize` at once, so by the time the server is
//! ready to serve, that line is usually waiting on stdin. [`read`] takes what is waiting
//! without blocking, and the serving thread dispatches its complete lines ([`dispatch`])
//! before it starts the stdin reader thread: the handshake's reply goes out without waiting
//! for a thread to start (a clone, a stack, and the thread's own malloc arena at its first
//! allocation), which was about a tenth of a cold start (bench/findings.md, "cold start").
//! The rest, and a line cut short, is read by the reader thread first.
//!
//! The serving thread is the runtime's, so the lines are dispatched as any task would
//! dispatch them: a call that runs user code is spawned, never run in place (a sync body
//! goes to the sync workers), and nothing here can block serving.

use std::io::Read;

/// The most bytes read before serving begins: a handshake and a few requests. What does
/// not fit stays on stdin for the reader thread.
const MAX_WAITING: usize = 8 * 1024;

/// What is waiting on `input` now, at most [`MAX_WAITING`] bytes: empty when nothing is (the
/// read would block), at end of input, or when polling or reading fails (the reader thread
/// then meets the same end or error and reports it).
#[cfg(unix)]
pub(super) fn read(input: &mut (impl Read + std::os::fd::AsFd)) -> Vec<u8> {
    use std::os::fd::AsRawFd;
    let mut fd = libc::pollfd { fd: input.as_fd().as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: `poll` reads and writes exactly one `pollfd` through the pointer, which points
    // at a live, initialised local for the whole call; the descriptor is borrowed from
    // `input`, so it is open. A timeout of 0 never blocks.
    #[allow(unsafe_code)]
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    if ready != 1 || fd.revents & libc::POLLIN == 0 {
        return Vec::new();
    }
    // Readable: one read returns what is there without blocking.
    let mut buf = vec![0; MAX_WAITING];
    match input.read(&mut buf) {
        Ok(n) => buf.truncate(n),
        Err(_) => buf.clear(),
    }
    buf
}

/// Hand each complete line of `waiting` (its `\r\n` or `\n` cut off, as the reader cuts
/// them) to `handle`, in order; return what follows the last newline.
pub(super) fn dispatch(mut waiting: Vec<u8>, mut handle: impl FnMut(&[u8])) -> Vec<u8> {
    let mut used = 0;
    while let Some(n) = memchr::memchr(b'\n', &waiting[used..]) {
        let line = &waiting[used..used + n];
        handle(line.strip_suffix(b"\r").unwrap_or(line));
        used += n + 1;
    }
    waiting.drain(..used);
    waiting
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(waiting: &[u8]) -> (Vec<String>, Vec<u8>) {
        let mut lines = Vec::new();
        let rest = dispatch(waiting.to_vec(), |line| lines.push(String::from_utf8(line.to_vec()).unwrap()));
        (lines, rest)
    }

    #[test]
    fn complete_lines_are_handed_on_in_order_and_the_rest_is_kept() {
        assert_eq!(
            lines_of(b"a\r\nb\n\nc\r\r\npartial"),
            (vec!["a".into(), "b".into(), "".into(), "c\r".into()], b"partial".to_vec())
        );
        assert_eq!(lines_of(b"only part"), (vec![], b"only part".to_vec()));
        assert_eq!(lines_of(b""), (vec![], vec![]));
    }

    #[cfg(unix)]
    #[test]
    fn what_is_waiting_is_read_without_blocking() {
        use std::io::Write;
        let (mut input, mut client) = std::io::pipe().unwrap();
        // Nothing written yet: empty at once, not a blocked read.
        assert!(read(&mut input).is_empty());
        client.write_all(b"{\"id\":0}\n{\"id\"").unwrap();
        assert_eq!(read(&mut input), b"{\"id\":0}\n{\"id\"");
        // More than fits: the first MAX_WAITING bytes; the rest stays for the reader.
        client.write_all(&vec![b'x'; MAX_WAITING + 10]).unwrap();
        assert_eq!(read(&mut input).len(), MAX_WAITING);
        assert_eq!(read(&mut input).len(), 10);
        // At end of input: empty (the reader meets the end itself).
        drop(client);
        assert!(read(&mut input).is_empty());
    }
}
