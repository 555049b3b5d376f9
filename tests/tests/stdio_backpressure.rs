//! A client that stops reading, against the example server as a real child process: it
//! writes 50,000 `tools/call` requests without reading stdout, then reads everything. The
//! server must stop reading stdin while its answers are not taken (so its resident set stays
//! bounded), then answer every request exactly once.
//!
//! The figure is printed (`cargo test -p toolwire-tests --test stdio_backpressure -- --nocapture`).
//! `TOOLWIRE_BACKPRESSURE_SERVER=/path/to/server` runs the same client against another
//! build (an older commit's `example-server`), to compare; the assertion on the peak is then
//! reported, not enforced.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use toolwire_tests::example_server::example_server;

const CALLS: usize = 50_000;
/// The goal: the peak resident set at most this far above the idle server's.
const GOAL_KIB: u64 = 16 * 1024;

/// A `kB` field of `/proc/<pid>/status` (`VmRSS:`, `VmHWM:`).
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_client_that_writes_without_reading_keeps_the_server_bounded_and_gets_every_answer_once() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: the resident set cannot be read here; skipped");
        return;
    }
    let other = std::env::var_os("TOOLWIRE_BACKPRESSURE_SERVER").map(PathBuf::from);
    let binary = other.clone().unwrap_or_else(|| example_server().to_owned());
    let mut child = Command::new(&binary)
        .args(["--log-level", "warn"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());

    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"stall","version":"1.0"}}}}}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    stdin.flush().unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains(r#""id":0,"result""#), "initialize answered: {first}");
    std::thread::sleep(Duration::from_millis(200));
    let idle = status_kib(pid, "VmRSS:").expect("the child's VmRSS");

    // Sample the resident set all along (VmHWM is the kernel's own peak; the samples say when).
    let done = Arc::new(AtomicBool::new(false));
    let peak_sampled = Arc::new(AtomicU64::new(idle));
    let sampler = {
        let (done, peak) = (done.clone(), peak_sampled.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Some(rss) = status_kib(pid, "VmRSS:") {
                    peak.fetch_max(rss, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };

    // The client writes every request, on its own thread, and reads nothing meanwhile.
    let written = Arc::new(AtomicUsize::new(0));
    let (all_read, close_stdin) = std::sync::mpsc::channel::<()>();
    let writer = {
        let written = written.clone();
        std::thread::spawn(move || {
            let mut out = std::io::BufWriter::new(stdin);
            for id in 1..=CALLS {
                writeln!(
                    out,
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"request number {id:>8}, padded to look like a small real argument"}}}}}}"#
                )
                .unwrap();
                written.store(id, Ordering::Relaxed);
            }
            out.flush().unwrap();
            // stdin stays open until every answer is read (how a server ends on a client
            // that closes first is stdio_probe's business), then closes: the server exits.
            let _ = close_stdin.recv();
        })
    };
    // Until the client is stuck (the server stopped reading) or done.
    let start = Instant::now();
    let mut last = (0, Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = written.load(Ordering::Relaxed);
        if now == CALLS || (now == last.0 && last.1.elapsed() > Duration::from_millis(1500)) {
            break;
        }
        if now != last.0 {
            last = (now, Instant::now());
        }
        assert!(start.elapsed() < Duration::from_secs(120), "the client neither finished nor got stuck");
    }
    let stuck_at = written.load(Ordering::Relaxed);
    // Let the server take in what it is going to: until its resident set holds still.
    let mut rss = (status_kib(pid, "VmRSS:").unwrap_or(0), Instant::now());
    let settling = Instant::now();
    while rss.1.elapsed() < Duration::from_millis(700) && settling.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
        let now = status_kib(pid, "VmRSS:").unwrap_or(0);
        if now != rss.0 {
            rss = (now, Instant::now());
        }
    }
    let peak_stalled = status_kib(pid, "VmHWM:").unwrap_or(0);

    // Now read everything.
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let mut line = String::new();
    let mut count = 0;
    let mut broken = None;
    while count < CALLS {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let Ok(answer) = serde_json::from_str::<serde_json::Value>(&line) else {
            broken = Some(line.clone());
            break;
        };
        let id = answer["id"].as_u64().expect("an answer has a numeric id");
        assert_eq!(answer["result"]["isError"], false, "answer {id}: {line}");
        *seen.entry(id).or_default() += 1;
        count += 1;
    }
    let peak = status_kib(pid, "VmHWM:").unwrap_or(0);
    let _ = all_read.send(());
    writer.join().unwrap();
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    // stdin is closed: the server ends, and says nothing more.
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();

    let above = peak.saturating_sub(idle);
    eprintln!(
        "{}: idle {idle} KiB; the client got stuck after writing {stuck_at} of {CALLS} requests; \
         peak (VmHWM) {peak} KiB, {above} KiB above idle (VmHWM while stalled {peak_stalled} KiB, \
         highest VmRSS sampled {} KiB); goal <= {GOAL_KIB} KiB above idle; {} of {CALLS} answered",
        binary.display(),
        peak_sampled.load(Ordering::Relaxed),
        seen.len(),
    );
    assert_eq!(broken, None, "a broken line");
    assert!(status.success(), "the server exits 0 once stdin closes: {status}");
    assert_eq!(rest, "", "nothing after the last answer");
    let missing: Vec<u64> = (1..=CALLS as u64).filter(|id| !seen.contains_key(id)).take(5).collect();
    let twice: Vec<(&u64, &usize)> = seen.iter().filter(|(_, n)| **n != 1).take(5).collect();
    assert!(missing.is_empty() && twice.is_empty(), "missing {missing:?}, answered more than once {twice:?}");
    assert_eq!(seen.len(), CALLS);
    if other.is_none() {
        assert!(stuck_at < CALLS, "the server read all {CALLS} requests while nobody read its answers");
        assert!(
            above <= GOAL_KIB,
            "the peak resident set was {above} KiB above idle; the goal is {GOAL_KIB}"
        );
    }
}
