//! The cold-start bench: many starts of each stdio server, interleaved, spawn to the
//! `initialize` reply.
//!
//! The echo runs record one start each (`init_us`), fourteen per server in a full run, and
//! under the keep-awake loop those few are bimodal (some starts wait milliseconds for a
//! core), so their median swung between runs. This bench starts each server `--rounds`
//! times, one start of each in turn (the order rotates every round, so no server always
//! follows the same one), and prints one [`Record`] per server with every sample:
//!
//! - `init_us`: the median; `p10_us`, `p90_us`, `min_us`, `max_us`;
//! - `over_2500`: how many starts took over 2.5 ms (the slow mode);
//! - `samples_us`: every start, in the order taken.
//!
//! A start is: spawn the command (stdin and stdout piped, stderr inherited), write
//! `initialize` (protocol 2025-06-18), read lines until the reply to it (a `result`, or the
//! run fails), note the time; then close stdin and wait for the exit (killed after 10 s),
//! which is not measured. `run.sh` runs it with the keep-awake loop and without.
//!
//! Each server runs from a copy of its executable, made before the first round with
//! `std::fs::copy` (as `cargo install` puts a binary in place), unless `--in-place`. How a
//! file was written decides how its pages sit in the page cache, and so what mapping them
//! costs at every start: a binary the linker has just written in small pieces started
//! 90 to 140 µs slower than a copy of the same bytes (toolwire's echo; rmcp's about 220 µs,
//! the floor's about 30), and a copy written 4 KiB at a time was as slow as the linker's
//! (bench/findings.md, session 21). A server an agent starts was installed, unpacked or read
//! from disk, not linked a moment ago; the copy measures that, the same for every server.
//! The record says which (`binary=copy` or `binary=in-place`).
//!
//! ```text
//! cold-start --case cold --rounds 40 --server toolwire=PATH --server rmcp=PATH ...
//! cold-start --case cold50 --rounds 40 --server "floor=PATH --tools 50" ... [--in-place]
//! ```
//!
//! A server is `NAME=COMMAND`: the command's words split on whitespace, the first the
//! executable, the rest its arguments.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use toolwire_bench::json;
use toolwire_bench::proc::wait_bounded;
use toolwire_bench::record::Record;
use toolwire_bench::stats::{median, percentile_sorted};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolwire-bench-cold-start","version":"0.1.0"}}}"#;

struct Args {
    case: String,
    rounds: usize,
    /// `(name, command)`: each server's executable and its arguments, split on whitespace.
    servers: Vec<(String, String)>,
    /// Run each executable where it lies, not from a copy.
    in_place: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { case: "cold".into(), rounds: 40, servers: Vec::new(), in_place: false };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--case" => args.case = value()?,
            "--rounds" => args.rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--server" => {
                let v = value()?;
                let (name, path) =
                    v.split_once('=').ok_or_else(|| format!("--server wants NAME=PATH, got {v:?}"))?;
                args.servers.push((name.to_owned(), path.to_owned()));
            }
            "--in-place" => args.in_place = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.servers.is_empty() || args.rounds == 0 {
        return Err("usage: cold-start [--case NAME] --rounds N --server NAME=PATH... [--in-place]".into());
    }
    Ok(args)
}

/// Copy each server's executable into `dir` (as `cargo install` puts one in place) and
/// point its command at the copy.
fn install(servers: &mut [(String, String)], dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (k, (name, command)) in servers.iter_mut().enumerate() {
        let mut words = command.split_whitespace();
        let path = Path::new(words.next().ok_or_else(|| format!("{name}: an empty server command"))?);
        let file = path.file_name().ok_or_else(|| format!("{name}: {} names no file", path.display()))?;
        let copy = dir.join(format!("{k}-{}", file.to_string_lossy()));
        std::fs::copy(path, &copy)
            .map_err(|e| format!("cannot copy {} to {}: {e}", path.display(), copy.display()))?;
        let rest: Vec<&str> = words.collect();
        *command = std::iter::once(copy.to_string_lossy().as_ref()).chain(rest).collect::<Vec<_>>().join(" ");
    }
    Ok(())
}

/// One start of `command`: microseconds from spawn to the `initialize` reply.
fn start(command: &str) -> Result<u64, String> {
    let mut words = command.split_whitespace();
    let path = words.next().ok_or("an empty server command")?;
    let spawned_at = Instant::now();
    let mut child = Command::new(path)
        .args(words)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot spawn {path}: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let sent = stdin.write_all(format!("{INITIALIZE}\n").as_bytes()).and_then(|()| stdin.flush());
    let mut line = Vec::new();
    let replied = sent.map_err(|e| format!("{path}: write: {e}")).and_then(|()| {
        loop {
            line.clear();
            match stdout.read_until(b'\n', &mut line) {
                Ok(0) => break Err(format!("{path} closed its output before answering initialize")),
                Ok(_) if json::top_level(&line, "id") == Some(b"0") => break Ok(()),
                Ok(_) => continue, // a notification or a log line
                Err(e) => break Err(format!("{path}: read: {e}")),
            }
        }
    });
    let took = spawned_at.elapsed().as_micros() as u64;
    drop(stdin);
    wait_bounded(&mut child, Duration::from_secs(10));
    replied?;
    if json::top_level(&line, "result").is_none() {
        return Err(format!("{path}: initialize failed: {}", String::from_utf8_lossy(&line)));
    }
    Ok(took)
}

fn main() -> ExitCode {
    let mut args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cold-start: {e}");
            return ExitCode::from(2);
        }
    };
    let installed = (!args.in_place)
        .then(|| std::env::temp_dir().join(format!("toolwire-cold-start-{}", std::process::id())));
    if let Some(dir) = &installed
        && let Err(e) = install(&mut args.servers, dir)
    {
        eprintln!("cold-start: {e}");
        let _ = std::fs::remove_dir_all(dir);
        return ExitCode::from(2);
    }
    let code = measure(&args);
    if let Some(dir) = &installed {
        let _ = std::fs::remove_dir_all(dir);
    }
    code
}

/// The rounds, then one record per server.
fn measure(args: &Args) -> ExitCode {
    let n = args.servers.len();
    let mut samples: Vec<Vec<u64>> = vec![Vec::with_capacity(args.rounds); n];
    for round in 0..args.rounds {
        for k in 0..n {
            let i = (round + k) % n;
            match start(&args.servers[i].1) {
                Ok(us) => samples[i].push(us),
                Err(e) => {
                    eprintln!("cold-start: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    for ((name, _), taken) in args.servers.iter().zip(&samples) {
        let mut sorted = taken.clone();
        sorted.sort_unstable();
        let list: Vec<String> = taken.iter().map(u64::to_string).collect();
        let mut r = Record::new();
        r.set("case", format!("{}:{name}", args.case))
            .set("starts", sorted.len())
            .set("binary", if args.in_place { "in-place" } else { "copy" })
            .set("init_us", median(&sorted.iter().map(|&us| us as f64).collect::<Vec<_>>()).unwrap_or(0.0))
            .set("p10_us", percentile_sorted(&sorted, 10.0))
            .set("p90_us", percentile_sorted(&sorted, 90.0))
            .set("min_us", sorted[0])
            .set("max_us", sorted[sorted.len() - 1])
            .set("over_2500", sorted.iter().filter(|&&us| us > 2500).count())
            .set("samples_us", list.join(","));
        println!("{}", r.line());
    }
    ExitCode::SUCCESS
}
