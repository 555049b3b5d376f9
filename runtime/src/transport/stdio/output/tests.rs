//! The output's tests: inline writes, the writer thread, long lines, stalled readers.

use std::io::Read;
use std::time::{Duration, Instant};

use super::*;
use crate::protocol::RequestId;

fn line(n: u64, pad: usize) -> Outbound {
    Outbound::result(&RequestId::Number(n as i64), &format!("{{\"pad\":\"{}\"}}", "x".repeat(pad)))
}

/// `batch` as the output queues it: each message's text and its newline.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn queued(batch: &[Outbound]) -> Vec<String> {
    batch.iter().map(|m| format!("{}\n", m.as_str())).collect()
}

/// A pipe's writer that writes each way the whole test: on stdout's shared description
/// with `RWF_NOWAIT`, or on a non-blocking description of its own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn polled_pipe(writer: io::PipeWriter, own: bool) -> Polled<io::PipeWriter> {
    use std::os::fd::AsFd;
    let mut out = Polled::new(writer).expect("a pipe can be polled");
    out.pipe = Some(match own {
        false => pipe::Pipe::NoWait { until_own: u32::MAX },
        true => {
            pipe::Pipe::Own(pipe::own_description(out.out.as_fd()).expect("a pipe with a reader reopens"))
        }
    });
    out
}

/// A shared byte buffer that counts the `write` calls it gets.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<(Vec<u8>, usize)>>);

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut r = self.0.lock().unwrap();
        r.0.extend_from_slice(buf);
        r.1 += 1;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_writer_thread_writes_a_queued_burst_at_once_and_stops_on_close() {
    let recorder = Recorder::default();
    let out = Output::new(Opaque(recorder.clone()));
    out.send(Outbound::result(&RequestId::Number(1), "{}"));
    out.send(Outbound::result(&RequestId::Number(1), "{\"a\":1}"));
    out.close();
    out.send(Outbound::result(&RequestId::Number(2), "{}"));
    out.write_queued().unwrap();
    let (bytes, writes) = recorder.0.lock().unwrap().clone();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1}}\n"
    );
    assert_eq!(writes, 1, "a queued burst is one write");
}

#[cfg(unix)]
#[tokio::test]
async fn a_burst_is_written_inline_in_one_piece_without_the_writer_thread() {
    let (mut reader, writer) = io::pipe().unwrap();
    let out = Output::new(Polled::new(writer).expect("a pipe can be polled"));
    let flusher = tokio::spawn(out.clone().flush_inline());
    // No writer thread: whatever arrives was written inline, by the flusher task.
    for n in 0..3 {
        out.send(line(n, 10));
    }
    let expected: String = (0..3).map(|n| format!("{}\n", line(n, 10).as_str())).collect();
    let mut got = vec![0; expected.len()];
    let got = tokio::task::spawn_blocking(move || reader.read_exact(&mut got).map(|()| got))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), expected);
    flusher.abort();
}

/// Read `len` bytes from `reader` off the runtime, and hand the reader back.
#[cfg(unix)]
async fn read_n(mut reader: io::PipeReader, len: usize) -> (io::PipeReader, String) {
    tokio::task::spawn_blocking(move || {
        let mut got = vec![0; len];
        reader.read_exact(&mut got).unwrap();
        (reader, String::from_utf8(got).unwrap())
    })
    .await
    .unwrap()
}

/// How a test's writer thread ended.
#[cfg(unix)]
type WriterEnd = std::sync::mpsc::Receiver<Result<(), String>>;

/// An output on a new pipe (its read end returned) whose writer thread, when started,
/// adds one to `starts` and reports how it ended on the returned channel.
#[cfg(unix)]
fn counted_output(
    starts: &Arc<AtomicU64>,
) -> (io::PipeReader, Arc<Output<Polled<io::PipeWriter>>>, WriterEnd) {
    let (reader, writer) = io::pipe().unwrap();
    let (out, done) = counted_output_on(writer, starts);
    (reader, out, done)
}

/// [`counted_output`] on the write end of a pipe the test already has.
#[cfg(unix)]
fn counted_output_on(
    writer: io::PipeWriter,
    starts: &Arc<AtomicU64>,
) -> (Arc<Output<Polled<io::PipeWriter>>>, WriterEnd) {
    let out = Output::new(Polled::new(writer).expect("a pipe can be polled"));
    let (counted, theirs) = (starts.clone(), Arc::downgrade(&out));
    let (done_tx, done) = std::sync::mpsc::channel();
    out.start_writer_with(Box::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        let out = theirs.upgrade().expect("the output is alive when it starts its writer");
        std::thread::spawn(move || done_tx.send(out.write_queued().map_err(|e| e.to_string())));
        Ok(())
    }));
    (out, done)
}

#[cfg(unix)]
#[tokio::test(flavor = "current_thread")]
async fn the_writer_thread_starts_on_its_first_batch_not_before() {
    let starts = Arc::new(AtomicU64::new(0));
    let (reader, out, done) = counted_output(&starts);
    let flusher = tokio::spawn(out.clone().flush_inline());
    out.send(line(1, 10));
    let small = format!("{}\n", line(1, 10).as_str());
    let (reader, got) = read_n(reader, small.len()).await;
    assert_eq!(got, small);
    assert_eq!(starts.load(Ordering::SeqCst), 0, "an answer written inline needs no writer thread");
    // Over PIPE_BUF, with room in the pipe: on Linux a pipe's write that cannot block
    // (module `pipe`) writes it inline too.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let reader = {
        out.send(line(2, 20_000));
        let long = format!("{}\n", line(2, 20_000).as_str());
        let (reader, got) = read_n(reader, long.len()).await;
        assert_eq!(got, long);
        assert_eq!(starts.load(Ordering::SeqCst), 0, "a long answer the pipe has room for is written inline");
        reader
    };
    // More than the pipe holds: the writer thread writes what the inline write left (on
    // Linux), or all of it.
    out.send(line(3, 100_000));
    let big = format!("{}\n", line(3, 100_000).as_str());
    let (_reader, got) = read_n(reader, big.len()).await;
    assert_eq!(got, big);
    assert_eq!(starts.load(Ordering::SeqCst), 1);
    out.close();
    assert_eq!(done.recv().unwrap(), Ok(()));
    assert_eq!(starts.load(Ordering::SeqCst), 1, "started once");
    flusher.abort();
}

/// Closing an output whose answers all went out inline starts no writer thread: its
/// starter is dropped, so whoever waits for the writer hears it is done. With a line
/// still queued, closing starts the thread, which writes it.
#[cfg(unix)]
#[tokio::test(flavor = "current_thread")]
async fn closing_after_inline_answers_starts_no_writer_thread() {
    let starts = Arc::new(AtomicU64::new(0));
    let (reader, out, done) = counted_output(&starts);
    let flusher = tokio::spawn(out.clone().flush_inline());
    out.send(line(1, 10));
    let small = format!("{}\n", line(1, 10).as_str());
    let (_reader, got) = read_n(reader, small.len()).await;
    assert_eq!(got, small);
    out.close();
    assert!(done.recv().is_err(), "the writer's channel closed without a thread");
    assert_eq!(starts.load(Ordering::SeqCst), 0, "no writer thread started to close");
    out.send(line(2, 10));
    assert_eq!(out.lines_written(), 1, "a line sent after closing is dropped");
    flusher.abort();

    // A line queued and not yet written when closing: the thread starts and writes it.
    let (reader, out, done) = counted_output(&starts);
    out.send(line(3, 10)); // no flusher task: it stays queued
    out.close();
    let queued = format!("{}\n", line(3, 10).as_str());
    let (_reader, got) = read_n(reader, queued.len()).await;
    assert_eq!(got, queued);
    assert_eq!(done.recv().unwrap(), Ok(()));
    assert_eq!(starts.load(Ordering::SeqCst), 1);
}

/// On Linux a pipe is written without a `poll`, either way (module `pipe`): whole while it
/// has room, and not at all (no blocking, nothing torn) once it is full.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_pipe_is_written_whole_or_not_at_all_without_a_poll() {
    for own in [false, true] {
        let (mut reader, writer) = io::pipe().unwrap();
        let mut out = polled_pipe(writer, own);
        let batch = queued(&[line(1, 10), line(2, 20)]);
        let expected = batch.concat();
        assert!(
            matches!(out.write_now(&batch), Some(Ok(n)) if n == expected.len()),
            "an empty pipe takes the batch (own: {own})"
        );
        let mut got = vec![0; expected.len()];
        reader.read_exact(&mut got).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), expected);
        let big = queued(&[line(3, 4000)]);
        let mut written = 0;
        let full = loop {
            match out.write_now(&big) {
                Some(Ok(n)) if n == big[0].len() => written += 1,
                Some(Ok(0)) => break true,
                other => panic!("{:?}", other.map(|r| r.map_err(|e| e.to_string()))),
            }
            assert!(written < 10_000, "the pipe never filled");
        };
        assert!(full && written > 0);
        // Everything in the pipe is whole lines: nothing was torn when it filled.
        drop(out);
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, big[0].repeat(written), "own: {own}");
    }
}

/// After [`pipe::OWN_AFTER`] inline writes a pipe is written on a description of its own,
/// non-blocking, while stdout's own description stays blocking (the writer thread's, and
/// anyone's who shares it); every line arrives, in order.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_pipe_gets_a_nonblocking_description_of_its_own_and_stdout_stays_blocking() {
    use std::os::fd::AsRawFd;
    let nonblocking = |fd: i32| {
        // SAFETY: F_GETFL reads a descriptor's flags and touches no memory; a closed or
        // bad descriptor answers -1 (then the assertion below fails).
        #[allow(unsafe_code)]
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        assert!(flags >= 0, "fcntl: {}", io::Error::last_os_error());
        flags & libc::O_NONBLOCK != 0
    };
    let (mut reader, writer) = io::pipe().unwrap();
    let shared = writer.as_raw_fd();
    let mut out = Polled::new(writer).expect("a pipe can be polled");
    let mut expected = String::new();
    for n in 0..=u64::from(pipe::OWN_AFTER) + 3 {
        let one = queued(&[line(n, 10)]);
        assert!(matches!(out.write_now(&one), Some(Ok(k)) if k == one[0].len()), "line {n}");
        expected.push_str(&one[0]);
    }
    let Some(pipe::Pipe::Own(own)) = &out.pipe else { panic!("no description of its own after the writes") };
    assert!(nonblocking(own.as_raw_fd()), "its own description is non-blocking");
    assert!(!nonblocking(shared), "stdout's description is left blocking");
    drop(out);
    let mut got = String::new();
    reader.read_to_string(&mut got).unwrap();
    assert_eq!(got, expected, "every line, in order, on the same pipe");
}

/// A batch of more lines than one system call takes goes the `poll` way, and the next one is
/// written without a `poll` again: one long batch does not turn the pipe's way off.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_batch_of_many_lines_is_polled_and_the_next_is_not() {
    let (mut reader, writer) = io::pipe().unwrap();
    let mut out = Polled::new(writer).expect("a pipe can be polled");
    let many = queued(&(0..=pipe::MAX_LINES as u64).map(|n| line(n, 1)).collect::<Vec<_>>());
    assert!(out.write_now(&many).is_none(), "{} lines take the poll path", many.len());
    let one = queued(&[line(1, 10)]);
    assert!(matches!(out.write_now(&one), Some(Ok(n)) if n == one[0].len()), "the next batch does not");
    assert!(out.pipe.is_some());
    drop(out);
    let mut got = String::new();
    reader.read_to_string(&mut got).unwrap();
    assert_eq!(got, one[0]);
}

/// Only a pipe gets a description of its own (a socket's `/proc/self/fd` link does not open);
/// a pipe nobody reads any more fails each write with `BrokenPipe`, before its own
/// description is had and after.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn only_a_pipe_gets_its_own_description_and_a_closed_one_fails_either_way() {
    use std::os::fd::AsFd;
    let (socket, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
    assert!(pipe::own_description(socket.as_fd()).is_none(), "a socket");
    let (reader, writer) = io::pipe().unwrap();
    drop(reader);
    let mut out = Polled::new(writer).expect("a pipe can be polled");
    for n in 0..=pipe::OWN_AFTER + 1 {
        let written = out.write_now(&queued(&[line(1, 10)]));
        assert!(
            matches!(written, Some(Err(ref e)) if e.kind() == io::ErrorKind::BrokenPipe),
            "{n}: {written:?}"
        );
    }
    assert!(matches!(out.pipe, Some(pipe::Pipe::Own(_))), "the last writes went the second way");
}

/// A line longer than `PIPE_BUF` is written as far as the pipe has room (without
/// blocking), and [`Output`] hands the rest to the writer thread, which skips what was
/// written: the client reads every line whole, in order.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[tokio::test(flavor = "current_thread")]
async fn a_long_line_is_written_in_part_and_the_writer_thread_writes_the_rest() {
    let (mut reader, writer) = io::pipe().unwrap();
    let mut direct = polled_pipe(writer.try_clone().unwrap(), true);
    // The pipe full, then 10,000 bytes read: a long line goes in as far as there is room.
    let filler = queued(&[line(1, 4000)]);
    let mut filled = 0;
    while matches!(direct.write_now(&filler), Some(Ok(n)) if n > 0) {
        filled += 1;
    }
    let long = queued(&[line(2, 30_000)]);
    let mut head = vec![0; 10_000];
    reader.read_exact(&mut head).unwrap();
    let part = match direct.write_now(&long) {
        Some(Ok(n)) => n,
        other => panic!("{:?}", other.map(|r| r.map_err(|e| e.to_string()))),
    };
    assert!(part > 0 && part < long[0].len(), "written in part: {part} bytes");
    let mut expected = filler[0].repeat(filled)[10_000..].to_owned();
    expected.push_str(&long[0][..part]);
    let mut drained = vec![0; expected.len()];
    reader.read_exact(&mut drained).unwrap();
    assert!(drained == expected.as_bytes(), "the pipe held whole fillers, then the part");
    drop(direct);

    // Through `Output`, on the empty pipe: a line longer than the pipe holds is written in
    // part inline, the rest by the writer thread, then two short lines after it.
    let starts = Arc::new(AtomicU64::new(0));
    let (out, _done) = counted_output_on(writer, &starts);
    let sent = [line(3, 70_000), line(4, 10), line(5, 5000)];
    {
        let _deferring = out.defer_on_this_thread();
        for l in &sent {
            out.send(l.clone());
        }
        out.flush_deferred();
    }
    assert_eq!(starts.load(Ordering::SeqCst), 1, "the rest went to the writer thread");
    out.close();
    drop(out);
    let rest = tokio::task::spawn_blocking(move || {
        let mut rest = String::new();
        reader.read_to_string(&mut rest).map(|_| rest)
    })
    .await
    .unwrap()
    .unwrap();
    let expected: String = sent.iter().map(|l| format!("{}\n", l.as_str())).collect();
    assert!(rest == expected, "every line whole, in order ({} bytes of {})", rest.len(), expected.len());
}

/// A client that stops reading: sends never block, the runtime keeps running, and once the
/// client reads again every line arrives whole, in order.
#[cfg(unix)]
#[tokio::test(flavor = "current_thread")]
async fn a_stalled_reader_blocks_no_send_and_loses_nothing() {
    let (reader, writer) = io::pipe().unwrap();
    let out = Output::new(Polled::new(writer).expect("a pipe can be polled"));
    let flusher = tokio::spawn(out.clone().flush_inline());
    let writer = out.clone();
    let thread = std::thread::spawn(move || writer.write_queued());
    // Far more than a pipe holds, in sizes on both sides of INLINE_MAX, with the flusher
    // getting its turn between sends.
    let sizes = [10, 200, 3000, 5000, 70_000];
    let count = 200;
    let start = Instant::now();
    for n in 0..count {
        out.send(line(n, sizes[n as usize % sizes.len()]));
        if n % 3 == 0 {
            tokio::task::yield_now().await;
        }
    }
    // The runtime is not blocked on the full pipe: timers still fire.
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(start.elapsed() < Duration::from_secs(5), "sends must not wait for the reader");

    // Now read, slowly and in small pieces.
    let lines = tokio::task::spawn_blocking(move || {
        let mut reader = io::BufReader::with_capacity(512, reader);
        let mut lines = Vec::new();
        for _ in 0..count {
            let mut l = String::new();
            io::BufRead::read_line(&mut reader, &mut l).unwrap();
            lines.push(l);
            if lines.len() % 50 == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        lines
    })
    .await
    .unwrap();
    for (n, l) in lines.iter().enumerate() {
        let expected = line(n as u64, sizes[n % sizes.len()]);
        assert_eq!(l.strip_suffix('\n'), Some(expected.as_str()), "line {n} whole and in order");
    }
    out.close();
    thread.join().unwrap().unwrap();
    flusher.abort();
}
