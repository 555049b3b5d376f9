//! The soak run (stdio): `--calls` tool calls through one server process, a mix of valid
//! calls, panicking tools, calls past the server's deadline and calls the client cancels,
//! with `--window` answers outstanding. std only, like the driver.
//!
//! Per 100 calls (by id): 89 `echo` (a result), 5 `panic` (`isError`), 1 `sleep` past the
//! deadline (`isError`, the server's timeout), 5 `sleep(60s)` cancelled at once with
//! `notifications/cancelled` (no answer, ever; or, if the server's deadline fired before it
//! read the cancel, the deadline's answer, once: `cancel_after_deadline`). At each checkpoint (10k, 100k and the last
//! call, those within `--calls`) it prints the server's resident set, open descriptors,
//! threads, its runtime's alive tasks (`SOAK_METRICS`, see `soak-server`) and the calls the
//! client has outstanding. At the end every call must have been answered exactly once (none
//! for the cancelled ones) and with the outcome its kind owes, and the server must exit 0
//! once stdin closes; otherwise the exit code is 1. `--goal` also fails the run if the
//! resident set at the last checkpoint is over 1.2x the one at 100k.
//!
//! Dropped connections are not part of the stdio mix: a stdio server has one connection,
//! and its end is the end of the process.
//!
//! ```text
//! soak --calls 1000000 [--window 16] [--goal] [--timeout-s 1800] -- SERVER [ARGS...]
//! ```

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use toolwire_bench::json;
use toolwire_bench::proc::{rss_kb, status_kb, wait_bounded};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Echo,
    Panic,
    Timeout,
    Cancelled,
}

fn kind(id: u64) -> Kind {
    match id % 100 {
        0..=88 => Kind::Echo,
        89..=93 => Kind::Panic,
        94 => Kind::Timeout,
        _ => Kind::Cancelled,
    }
}

struct Args {
    calls: u64,
    window: u64,
    goal: bool,
    timeout: Duration,
    server: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        calls: 1_000_000,
        window: 16,
        goal: false,
        timeout: Duration::from_secs(1800),
        server: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--calls" => a.calls = value().parse().expect("--calls N"),
            "--window" => a.window = value().parse::<u64>().expect("--window N").max(1),
            "--timeout-s" => a.timeout = Duration::from_secs(value().parse().expect("--timeout-s N")),
            "--goal" => a.goal = true,
            "--" => {
                a.server = it.collect();
                break;
            }
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(!a.server.is_empty(), "usage: soak --calls N [--window W] [--goal] -- SERVER [ARGS...]");
    a
}

/// What the client has seen: answers per id, and calls it is owed an answer for.
struct Tally {
    answers: Vec<u8>,
    wrong: Vec<String>,
    /// Requests sent that owe an answer and have none yet.
    outstanding: u64,
    /// Answers received (calls completed, for the checkpoints).
    done: u64,
    /// Calls past the deadline answered with their result (the sleep's timer fired first).
    late: u64,
}

fn main() -> ExitCode {
    let a = args();
    let metrics = std::env::temp_dir().join(format!("toolwire-soak-{}.metrics", std::process::id()));
    let mut child = Command::new(&a.server[0])
        .args(&a.server[1..])
        .env("SOAK_METRICS", &metrics)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the server");
    let pid = child.id();
    let mut stdin = BufWriter::new(child.stdin.take().unwrap());
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"soak","version":"1"}}}}}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""id":0,"result""#), "initialize: {line}");

    let watchdog = Arc::new(AtomicBool::new(false));
    {
        let (watchdog, limit) = (watchdog.clone(), a.timeout);
        std::thread::spawn(move || {
            std::thread::sleep(limit);
            watchdog.store(true, Ordering::Relaxed);
            eprintln!("soak: the --timeout-s watchdog fired");
            std::process::exit(1);
        });
    }

    let calls = a.calls;
    let tally = Arc::new((
        Mutex::new(Tally {
            answers: vec![0; calls as usize + 1],
            wrong: Vec::new(),
            outstanding: 0,
            done: 0,
            late: 0,
        }),
        Condvar::new(),
    ));
    let reader = {
        let tally = tally.clone();
        std::thread::spawn(move || {
            let mut line = Vec::new();
            loop {
                line.clear();
                if stdout.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
                    return;
                }
                let id = json::top_level(&line, "id").and_then(json::as_u64);
                let is_error = json::path(&line, &["result", "isError"]) == Some(b"true");
                let (lock, cv) = &*tally;
                let mut t = lock.lock().unwrap();
                let Some(id) = id.filter(|&id| id >= 1 && id <= calls) else {
                    t.wrong.push(format!("an answer to no call: {}", String::from_utf8_lossy(&line)));
                    continue;
                };
                t.answers[id as usize] = t.answers[id as usize].saturating_add(1);
                let ok = match kind(id) {
                    Kind::Echo => json::top_level(&line, "result").is_some() && !is_error,
                    Kind::Panic => is_error,
                    // A runtime thread descheduled past both timers may find the sleep done
                    // first: its result is an answer too (counted as `deadline_late`).
                    Kind::Timeout if !is_error => {
                        t.late += 1;
                        line.windows(10).any(|w| w == b"slept 50ms")
                    }
                    Kind::Timeout => true,
                    // The server's deadline fired before the cancel was read: one answer, the
                    // timeout's, is right too.
                    Kind::Cancelled => is_error && line.windows(16).any(|w| w == b"did not return w"),
                };
                if !ok && t.wrong.len() < 10 {
                    t.wrong.push(format!(
                        "call {id} ({:?}): {}",
                        kind(id),
                        String::from_utf8_lossy(&line).trim_end()
                    ));
                }
                t.outstanding = t.outstanding.saturating_sub(1);
                t.done += 1;
                cv.notify_all();
            }
        })
    };

    let checkpoints: Vec<u64> = [10_000, 100_000, calls].into_iter().filter(|&c| c <= calls).collect();
    let mut rss_at = Vec::new();
    let sent = AtomicU64::new(0);
    let start = Instant::now();
    for id in 1..=calls {
        {
            let (lock, cv) = &*tally;
            let mut t = lock.lock().unwrap();
            if t.outstanding >= a.window {
                drop(t);
                stdin.flush().unwrap();
                t = lock.lock().unwrap();
                while t.outstanding >= a.window {
                    t = cv.wait(t).unwrap();
                }
            }
            if kind(id) != Kind::Cancelled {
                t.outstanding += 1;
            }
        }
        let call = |name: &str, args: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
            )
        };
        let text = match kind(id) {
            Kind::Echo => call("echo", &format!(r#"{{"text":"soak call {id}"}}"#)),
            Kind::Panic => call("panic", r#"{"message":"on purpose"}"#),
            Kind::Timeout => call("sleep", r#"{"ms":50}"#),
            Kind::Cancelled => format!(
                "{}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id},\"reason\":\"soak\"}}}}",
                call("sleep", r#"{"ms":60000}"#)
            ),
        };
        writeln!(stdin, "{text}").unwrap();
        sent.store(id, Ordering::Relaxed);
        if checkpoints.contains(&id) {
            stdin.flush().unwrap();
            // Settle: every answer owed so far is in.
            let (lock, cv) = &*tally;
            let mut t = lock.lock().unwrap();
            while t.outstanding > 0 {
                t = cv.wait(t).unwrap();
            }
            drop(t);
            std::thread::sleep(Duration::from_millis(100));
            let rss = rss_kb(pid).unwrap_or(0);
            let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
            let threads = status_kb(pid, "Threads:").unwrap_or(0);
            let tasks = std::fs::read_to_string(&metrics).unwrap_or_default();
            let tasks = tasks.trim().strip_prefix("alive_tasks=").unwrap_or("?").to_owned();
            println!(
                "soak transport=stdio calls={id} rss_kb={rss} fds={fds} threads={threads} alive_tasks={tasks} outstanding=0 elapsed_s={:.1}",
                start.elapsed().as_secs_f64()
            );
            rss_at.push((id, rss));
        }
    }
    drop(stdin);
    let code = wait_bounded(&mut child, Duration::from_secs(30));
    reader.join().unwrap();
    let _ = std::fs::remove_file(&metrics);

    let t = tally.0.lock().unwrap();
    let mut failed = false;
    let (mut missing, mut twice, mut cancelled_answered, mut raced) = (0u64, 0u64, 0u64, 0u64);
    for id in 1..=calls {
        let n = t.answers[id as usize];
        match (kind(id), n) {
            (Kind::Cancelled, 0) => {}
            (Kind::Cancelled, 1) => raced += 1,
            (Kind::Cancelled, _) => cancelled_answered += 1,
            (_, 0) => missing += 1,
            (_, 1) => {}
            _ => twice += 1,
        }
    }
    println!(
        "soak transport=stdio calls={calls} missing={missing} answered_twice={twice} cancelled_but_answered={cancelled_answered} cancel_after_deadline={raced} deadline_late={} wrong={} exit={code} elapsed_s={:.1}",
        t.late,
        t.wrong.len(),
        start.elapsed().as_secs_f64()
    );
    for w in &t.wrong {
        eprintln!("soak: wrong answer: {w}");
    }
    if missing + twice + cancelled_answered > 0 || !t.wrong.is_empty() || code != 0 {
        failed = true;
    }
    let at_100k = rss_at.iter().find(|(n, _)| *n == 100_000).map(|(_, r)| *r);
    if let (Some(base), Some(&(n, last))) = (at_100k, rss_at.last()) {
        let ratio = last as f64 / base as f64;
        println!("soak transport=stdio rss_ratio_{n}_vs_100k={ratio:.3} goal=1.2");
        if a.goal && ratio > 1.2 {
            eprintln!("soak: the resident set grew {ratio:.3}x from 100k to {n} calls (goal 1.2x)");
            failed = true;
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
