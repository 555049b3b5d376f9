//! What the client wrote before serving began.
//!
//! A client that spawns a server writes `initialize` at once, so by the time the server is
//! ready to serve, that line is usually waiting on stdin. [`read`] takes what is waiting
//! into the input's buffer without blocking, and the serving thread dispatches the complete
//! lines there ([`dispatch`]) before it starts the stdin reader thread: the handshake's reply
//! goes out without waiting for a thread to start (a clone, a stack, and the thread's own
//! malloc arena at its first allocation), about a tenth of a cold start (bench/findings.md,
//! "cold start"). A line cut short stays in the buffer for the reader thread.
//!
//! The serving thread is the runtime's, so the lines are dispatched as any task would
//! dispatch them: a call that runs user code is spawned, never run in place (a sync body
//! goes to the sync workers), and nothing here can block serving.

use std::io::{BufRead, BufReader, Read};

use crate::swar;

/// Fill `input`'s buffer with what is waiting on its descriptor now, if anything is: one
/// read, which does not block since the descriptor polled readable. Nothing is read when
/// nothing waits, at end of input, or when polling or reading fails (the reader thread
/// then meets the same end or error and reports it).
#[cfg(unix)]
pub(super) fn read<R: Read + std::os::fd::AsFd>(input: &mut BufReader<R>) {
    if super::fd::poll_now(input.get_ref().as_fd(), libc::POLLIN) & libc::POLLIN != 0 {
        let _ = input.fill_buf();
    }
}

/// Hand each complete line in `input`'s buffer (its `\r\n` or `\n` cut off, as the reader
/// cuts them) to `handle`, in order, consuming it; what follows the last newline stays.
/// Reads nothing more.
///
/// The newlines are found with `swar::find`, not `memchr`: `memchr`'s first call in a
/// process asks the CPU which vector instructions it has (`cpuid`, through std's feature
/// detection), and in a virtual machine each `cpuid` exits to the hypervisor: 27 µs in the
/// bench's VM, about a seventh of what a cold start costs over the no-SDK floor's
/// (bench/findings.md, "cold start"). The lines waiting here are the handshake's, a few
/// hundred bytes; the reader thread, started after the reply, makes that first call.
pub(super) fn dispatch<R: Read>(input: &mut BufReader<R>, mut handle: impl FnMut(&[u8])) {
    let mut used = 0;
    let buffer = input.buffer();
    while let Some(n) = swar::find(&buffer[used..], b'\n') {
        let line = &buffer[used..used + n];
        handle(line.strip_suffix(b"\r").unwrap_or(line));
        used += n + 1;
    }
    input.consume(used);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_lines_are_handed_on_in_order_and_the_rest_is_kept() {
        let mut input = BufReader::new(&b"a\r\nb\n\nc\r\r\npartial"[..]);
        input.fill_buf().unwrap();
        let mut lines = Vec::new();
        dispatch(&mut input, |line| lines.push(String::from_utf8(line.to_vec()).unwrap()));
        assert_eq!(lines, ["a", "b", "", "c\r"]);
        assert_eq!(input.buffer(), b"partial");
        // Nothing complete: nothing handed on, nothing consumed.
        dispatch(&mut input, |_| panic!("no complete line"));
        assert_eq!(input.buffer(), b"partial");
    }

    #[cfg(unix)]
    #[test]
    fn what_is_waiting_is_read_without_blocking() {
        use std::io::Write;
        let (reader, mut client) = std::io::pipe().unwrap();
        let mut input = BufReader::with_capacity(16, reader);
        // Nothing written yet: nothing read, and no blocked read.
        read(&mut input);
        assert!(input.buffer().is_empty());
        client.write_all(b"{\"id\":0}\n{\"id\"").unwrap();
        read(&mut input);
        assert_eq!(input.buffer(), b"{\"id\":0}\n{\"id\"");
        // More than the buffer holds: a bufferful; the rest stays for the reader.
        input.consume(input.buffer().len());
        client.write_all(&[b'x'; 20]).unwrap();
        read(&mut input);
        assert_eq!(input.buffer().len(), 16);
        // At end of input: nothing (the reader meets the end itself).
        input.consume(16);
        drop(client);
        read(&mut input);
        assert_eq!(input.buffer(), b"xxxx");
        input.consume(4);
        read(&mut input);
        assert!(input.buffer().is_empty());
    }
}
