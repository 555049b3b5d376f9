//! The system calls a stdio server's answer can be written to a pipe with, timed side by side
//! in one run: each round writes one line of `--bytes` bytes (120 by default, about an echo's
//! answer) to a pipe and reads it back on the same thread, so a round is the two system calls
//! and nothing else (no wake-up, no other process).
//!
//!   target/release/pipe-writes [--rounds N] [--bytes B] [--repeat R]
//!
//! The ways (see `runtime/src/transport/stdio/output/pipe.rs`):
//!
//! - `write`: a plain `write` on a blocking descriptor (what the no-SDK floor does);
//! - `pwritev2-nowait`: `pwritev2(RWF_NOWAIT)` of one slice (toolwire's first way, which
//!   cannot block on a pipe's shared description);
//! - `pwritev2-nowait-2`: the same with the line and its newline as two slices (toolwire
//!   before session 28);
//! - `write-own-nonblocking`: a plain `write` on a non-blocking description of the pipe of
//!   its own, opened through `/proc/self/fd/N` (toolwire's second way).
//!
//! Prints `bench kind=pipe-writes way=… ns_per_round=…` per way and repeat, the ways
//! interleaved, and the ratio of each way's median to `write`'s. Linux only.

#[cfg(target_os = "linux")]
fn main() {
    use std::io::Read;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::Instant;

    let mut rounds = 1_000_000usize;
    let mut bytes = 120usize;
    let mut repeat = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage(&flag));
        match flag.as_str() {
            "--rounds" => rounds = value(),
            "--bytes" => bytes = value(),
            "--repeat" => repeat = value(),
            _ => usage(&flag),
        }
    }
    if !(2..=4096).contains(&bytes) {
        usage("--bytes (2 to 4096: one write a pipe takes whole)");
    }
    let (mut reader, writer) = std::io::pipe().expect("pipe");
    let shared = writer.as_raw_fd();
    let own: OwnedFd = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(format!("/proc/self/fd/{shared}"))
        .expect("reopen the pipe through /proc/self/fd")
        .into();
    let own = own.as_raw_fd();
    let mut line = vec![b'x'; bytes];
    line[bytes - 1] = b'\n';
    let mut back = vec![0u8; bytes];
    let ways = ["write", "pwritev2-nowait", "pwritev2-nowait-2", "write-own-nonblocking"];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); ways.len()];
    for r in 0..repeat {
        for (w, way) in ways.iter().enumerate() {
            let started = Instant::now();
            for _ in 0..rounds {
                let one = [libc::iovec { iov_base: line.as_ptr() as *mut _, iov_len: bytes }];
                let two = [
                    libc::iovec { iov_base: line.as_ptr() as *mut _, iov_len: bytes - 1 },
                    libc::iovec { iov_base: b"\n".as_ptr() as *mut _, iov_len: 1 },
                ];
                // SAFETY: every pointer handed to the kernel points at a live buffer of the
                // length given (`line`, a static newline), which it only reads; `shared` and
                // `own` are open descriptors of this process for the whole loop.
                #[allow(unsafe_code)]
                let n = unsafe {
                    match w {
                        0 => libc::write(shared, line.as_ptr().cast(), bytes),
                        1 => libc::pwritev2(shared, one.as_ptr(), 1, -1, libc::RWF_NOWAIT),
                        2 => libc::pwritev2(shared, two.as_ptr(), 2, -1, libc::RWF_NOWAIT),
                        _ => libc::write(own, line.as_ptr().cast(), bytes),
                    }
                };
                assert_eq!(n, bytes as isize, "{way}: {}", std::io::Error::last_os_error());
                reader.read_exact(&mut back).expect("read the line back");
            }
            let ns = started.elapsed().as_nanos() as f64 / rounds as f64;
            times[w].push(ns);
            println!("bench kind=pipe-writes way={way} repeat={r} bytes={bytes} ns_per_round={ns:.1}");
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base = median(&times[0]);
    for (w, way) in ways.iter().enumerate() {
        let m = median(&times[w]);
        println!("{way:>22}: median {m:.1} ns a round, {:.3}x write's ({:+.1} ns)", m / base, m - base);
    }
}

#[cfg(target_os = "linux")]
fn usage(what: &str) -> ! {
    eprintln!(
        "pipe-writes: bad or missing value for {what}\nusage: pipe-writes [--rounds N] [--bytes B] [--repeat R]"
    );
    std::process::exit(2)
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("pipe-writes: Linux only (RWF_NOWAIT, /proc/self/fd)");
    std::process::exit(2)
}
