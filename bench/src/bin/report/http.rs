//! The HTTP part of the report: its goals, its table and its groups in the plot, from the
//! `kind=http` records `http-bench` printed.
//!
//! Case names are `http.<mode>.c<connections>:<impl>` (mode `json`, `sse` or `session`;
//! impl `toolwire`, `rmcp` with `TCP_NODELAY`, `rmcp-default` as rmcp's examples serve it,
//! or `floor`) and `sessions:<impl>` for the idle-session memory.

use std::fmt::Write as _;

use super::{
    Bound, Data, Goal, Status, at_least, at_most, fmt, ratio, report_svg, versus, without_keep_awake,
};

/// The implementations in the HTTP table, in column order.
const IMPLS: [&str; 4] = ["toolwire", "rmcp", "rmcp-default", "floor"];
/// The (mode, connections) cases, in row order.
const CASES: [(&str, u32); 6] =
    [("json", 1), ("json", 16), ("sse", 1), ("sse", 16), ("session", 1), ("session", 16)];

fn case(mode: &str, c: u32, imp: &str) -> String {
    format!("http.{mode}.c{c}:{imp}")
}

fn med(d: &Data, mode: &str, c: u32, imp: &str, field: &str) -> Option<f64> {
    d.med(&case(mode, c, imp), field)
}

/// The four HTTP goals.
pub(super) fn goals(d: &Data) -> Vec<Goal> {
    let mut g = Vec::new();
    let default_cases = [("json", 1), ("json", 16), ("sse", 1), ("sse", 16)];
    let p99s: Vec<Option<f64>> =
        default_cases.iter().map(|(m, c)| med(d, m, *c, "toolwire", "p99_us")).collect();
    // Issue 15's form of the goal: at c=1 an absolute bound; at c=16, where the floor itself
    // misses any absolute bound on 2 cores, no worse than the floor's p99 in the same rounds.
    let floor_p99 = |m: &str, c: u32| med(d, m, c, "floor", "p99_us");
    // Issue 45's restatement: at c=16 on 2 cores wrk shares the cores with the server, and the
    // tail is the queue a CPU-bound server builds, so the goal is decided on what sets that
    // queue, the server's own CPU time a request (bench/cpu.sh, this run), against the
    // floor's; the timed p99s stay in the row as reported figures.
    let cpu = |imp: &str| d.med(&format!("cpu.http-json:{imp}"), "cpu_us");
    let cpu_ratio = ratio(cpu("toolwire"), cpu("floor"));
    let status = match (p99s[0], p99s[2], cpu_ratio) {
        (Some(j1), Some(s1), Some(c16)) => {
            if j1 <= 2000.0 && s1 <= 2000.0 && c16 <= 1.0 {
                Status::Met
            } else {
                Status::NotMet
            }
        }
        _ => Status::Unmeasured,
    };
    let timed16 = format!(
        "timed c=16 p99 against the floor's (reported, not the goal): JSON {}×, SSE {}×",
        fmt(ratio(p99s[1], floor_p99("json", 16)), 3),
        fmt(ratio(p99s[3], floor_p99("sse", 16)), 3)
    );
    let rmcp_default: Vec<String> = default_cases
        .iter()
        .map(|(m, c)| fmt(med(d, m, *c, "rmcp-default", "p99_us").map(|v| v / 1000.0), 2))
        .collect();
    let floor: Vec<String> = default_cases
        .iter()
        .map(|(m, c)| fmt(med(d, m, *c, "floor", "p99_us").map(|v| v / 1000.0), 2))
        .collect();
    let ms = |v: Option<f64>| fmt(v.map(|v| v / 1000.0), 2);
    // The JSON cases again without the keep-awake loop (run.sh's `.idle` cases), when made.
    let idle = |c: u32| {
        without_keep_awake(d, (&case("json", c, "toolwire"), &case("json", c, "floor")), "p99_us", "µs", 0)
    };
    let idle = match (idle(1), idle(16)) {
        (Some(c1), Some(c16)) => {
            format!("; without keep-awake, JSON p99 against the floor's: c=1 {c1}, c=16 {c16}")
        }
        _ => String::new(),
    };
    g.push(Goal {
        what: "HTTP with default settings, c=1 and c=16, JSON and SSE",
        goal: "p99 at c=1 ≤ 2 ms (no Nagle stall); at c=16, the server's CPU time a request (JSON, perf \
               task-clock, same run) ≤ 1.0× the axum floor's",
        figure: format!(
            "CPU a request at c=16: {}× the floor's ({} vs {} µs); toolwire p99 JSON c=1 / c=16, SSE c=1 / c=16: \
             {} / {} / {} / {} ms; rmcp as its examples serve it: {} ms; the axum floor: {} ms; {timed16}{idle}",
            fmt(cpu_ratio, 3),
            fmt(cpu("toolwire"), 2),
            fmt(cpu("floor"), 2),
            ms(p99s[0]),
            ms(p99s[1]),
            ms(p99s[2]),
            ms(p99s[3]),
            rmcp_default.join(" / "),
            floor.join(" / "),
        ),
        status,
        note: String::new(),
    });

    let tw = med(d, "json", 16, "toolwire", "rps");
    let (rm, fl) = (med(d, "json", 16, "rmcp", "rps"), med(d, "json", 16, "floor", "rps"));
    let (vs_rmcp, vs_floor) = (ratio(tw, rm), ratio(tw, fl));
    let status = match (at_least(vs_rmcp, 1.4), at_least(vs_floor, 0.7)) {
        (Status::Met, Status::Met) => Status::Met,
        (Status::Unmeasured, _) | (_, Status::Unmeasured) => Status::Unmeasured,
        _ => Status::NotMet,
    };
    g.push(Goal {
        what: "HTTP stateless JSON, c=16",
        goal: "≥ 1.4× rmcp (TCP_NODELAY) and ≥ 0.7× bare axum",
        figure: format!(
            "{}× rmcp, {}× the floor ({} vs {} vs {} req/s)",
            fmt(vs_rmcp, 3),
            fmt(vs_floor, 3),
            fmt(tw, 0),
            fmt(rm, 0),
            fmt(fl, 0)
        ),
        status,
        note: String::new(),
    });

    // Issue 45's restatement: 3× rmcp's requests/s in one session would be above the bare
    // axum floor on this machine (wrk shares its 2 cores), so the goal is decided on the
    // server's own work a session request, counted in this run: rmcp's CPU time a request
    // under load (c=16) and its instructions a request (one at a time) each at least 3×
    // toolwire's. The timed ratio stays as a reported figure.
    let cpu = |imp: &str| d.med(&format!("cpu.http-session:{imp}"), "cpu_us");
    let ins = |imp: &str| d.per_call(&format!("http-session:{imp}"));
    let (cpu_x, ins_x) = (ratio(cpu("rmcp"), cpu("toolwire")), ratio(ins("rmcp"), ins("toolwire")));
    let status = match (at_least(cpu_x, 3.0), at_least(ins_x, 3.0)) {
        (Status::Met, Status::Met) => Status::Met,
        (Status::Unmeasured, _) | (_, Status::Unmeasured) => Status::Unmeasured,
        _ => Status::NotMet,
    };
    let timed = versus(
        "",
        "",
        (med(d, "session", 16, "toolwire", "rps"), med(d, "session", 16, "rmcp", "rps")),
        "req/s",
        0,
        Bound::AtLeast(3.0),
    );
    let mut session = Goal {
        what: "one legacy session with 16 concurrent requests",
        goal: "≥ 3× rmcp in the server's own work a request: rmcp's CPU time a request at c=16 (perf \
               task-clock) and its instructions a request (callgrind), each ≥ 3× toolwire's, same run",
        figure: format!(
            "CPU: rmcp {}× toolwire's ({} vs {} µs a request); instructions: rmcp {}× ({} vs {}); timed \
             (reported, not the goal): {}",
            fmt(cpu_x, 2),
            fmt(cpu("toolwire"), 2),
            fmt(cpu("rmcp"), 2),
            fmt(ins_x, 2),
            fmt(ins("toolwire"), 0),
            fmt(ins("rmcp"), 0),
            timed.figure,
        ),
        status,
        note: String::new(),
    };
    session.add_idle(d, &case("session", 16, "toolwire"), &case("session", 16, "rmcp"));
    g.push(session);

    let (a, b) = (d.med("sessions:toolwire", "session_bytes"), d.med("sessions:rmcp", "session_bytes"));
    let r = ratio(a, b);
    let expired = |imp: &str| {
        let v = d.values(&format!("sessions:{imp}"), "expired");
        if v.is_empty() {
            "–"
        } else if v.iter().all(|&e| e == 1.0) {
            "yes"
        } else {
            "no"
        }
    };
    let status = match (at_most(r, 0.25), expired("toolwire")) {
        (Status::Met, "yes") => Status::Met,
        (Status::Unmeasured, _) | (_, "–") => Status::Unmeasured,
        _ => Status::NotMet,
    };
    g.push(Goal {
        what: "memory per idle HTTP session",
        goal: "≤ 0.25× rmcp; idle sessions expire",
        figure: format!(
            "{}× ({} vs {} bytes of resident set per idle session, {} sessions); idle sessions gone after their TTL: toolwire {}, rmcp {}",
            fmt(r, 3),
            fmt(a, 0),
            fmt(b, 0),
            fmt(d.med("sessions:toolwire", "sessions"), 0),
            expired("toolwire"),
            expired("rmcp"),
        ),
        status,
        note: String::new(),
    });
    g
}

/// The HTTP section of `results.md`.
pub(super) fn markdown(d: &Data, s: &mut String) {
    let _ = writeln!(s, "\n## HTTP: ours, rmcp and the axum floor\n");
    let _ = writeln!(
        s,
        "`http-bench` (std only) spawns each server, checks one call by hand, then runs `wrk -t1 -c C` for \
         the run's duration with `bench/http.lua`: every request a `tools/call` with its own id, \
         `MCP-Protocol-Version: 2025-06-18`. Modes: **json** is stateless (no session) calling `echo`; \
         **sse** is stateless calling `echo_progress` with a progress token, so the answer streams the \
         progress notification and then the result as SSE (both SDKs, and the floor's `/sse`); **session** \
         is one legacy session (`Mcp-Session-Id`) shared by every connection, calling `echo`. toolwire is \
         served by `serve_registry()` with its defaults (bearer token, `TCP_NODELAY`); *rmcp* is rmcp's \
         `StreamableHttpService` under `axum::serve` with `TCP_NODELAY` set on accepted sockets; \
         *rmcp-default* is the same without it, as rmcp's examples serve it; the *floor* is a bare axum \
         JSON / SSE echo in one binary (no MCP, no auth). Medians over the rounds.\n"
    );
    let _ = writeln!(
        s,
        "| case | figure | toolwire | rmcp | rmcp-default | floor | toolwire/rmcp | toolwire/floor |"
    );
    let _ = writeln!(s, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (mode, c) in CASES {
        for (field, unit, digits) in [("rps", "req/s", 0), ("p50_us", "p50 µs", 0), ("p99_us", "p99 µs", 0)]
        {
            let v: Vec<Option<f64>> = IMPLS.iter().map(|i| med(d, mode, c, i, field)).collect();
            if v.iter().all(Option::is_none) {
                continue;
            }
            let framing = |imp: &str| {
                d.runs(&case(mode, c, imp)).first().and_then(|r| r.get("framing")).unwrap_or("–").to_owned()
            };
            let label = format!("{mode}, c={c} ({} / {})", framing("toolwire"), framing("rmcp"));
            let _ = writeln!(
                s,
                "| {label} | {unit} | {} | {} | {} | {} | {} | {} |",
                fmt(v[0], digits),
                fmt(v[1], digits),
                fmt(v[2], digits),
                fmt(v[3], digits),
                fmt(ratio(v[0], v[1]), 2),
                fmt(ratio(v[0], v[3]), 2)
            );
        }
    }
    let _ = writeln!(
        s,
        "\nIn parentheses: the answer's framing, toolwire / rmcp (`json` = `application/json`, `sse` = \
         `text/event-stream`). toolwire answers JSON unless a notification must stream before the result; \
         rmcp's default framing is SSE."
    );
    let sess = |imp: &str, f: &str| d.med(&format!("sessions:{imp}"), f);
    let _ = writeln!(
        s,
        "\nIdle legacy sessions (`http-bench --sessions N`: N sessions opened with initialize and \
         notifications/initialized, then left idle; the server's resident set before and after): toolwire \
         {} → {} KiB ({} bytes per session), rmcp {} → {} KiB ({} bytes per session). With a 2-second idle \
         TTL on both (toolwire `session_idle_ttl`, rmcp `SessionConfig::keep_alive`), the first session \
         answers 404 after the wait: toolwire {}, rmcp {}.\n",
        fmt(sess("toolwire", "rss_before_kb"), 0),
        fmt(sess("toolwire", "rss_after_kb"), 0),
        fmt(sess("toolwire", "session_bytes"), 0),
        fmt(sess("rmcp", "rss_before_kb"), 0),
        fmt(sess("rmcp", "rss_after_kb"), 0),
        fmt(sess("rmcp", "session_bytes"), 0),
        fmt(sess("toolwire", "expired"), 0).replace('1', "yes").replace('0', "no"),
        fmt(sess("rmcp", "expired"), 0).replace('1', "yes").replace('0', "no"),
    );
}

/// The plot's HTTP groups: c=16 in each mode, and JSON at c=1.
pub(super) fn series(d: &Data) -> Vec<report_svg::Group> {
    [("json", 1), ("json", 16), ("sse", 16), ("session", 16)]
        .iter()
        .map(|(mode, c)| report_svg::Group {
            label: format!("HTTP {mode}, c={c}"),
            bars: IMPLS
                .iter()
                .filter(|imp| **imp != "rmcp-default" || *c == 1)
                .filter(|imp| **imp != "floor" || *mode != "session")
                .map(|imp| ((*imp).to_owned(), med(d, mode, *c, imp, "rps"), med(d, mode, *c, imp, "p99_us")))
                .collect(),
        })
        .collect()
}

/// What holds back an HTTP goal, from the same run's figures; `None` for a goal that is not
/// an HTTP one.
pub(super) fn why(what: &str, d: &Data) -> Option<String> {
    let m = |mode: &str, c: u32, imp: &str, f: &str| med(d, mode, c, imp, f);
    let us = |v: Option<f64>| fmt(v, 0);
    Some(match what {
        "HTTP with default settings, c=1 and c=16, JSON and SSE" => format!(
            "no Nagle stall: toolwire's p50 is {} / {} µs (JSON / SSE, c=1) where rmcp as its examples serve it \
             waits {} µs for a streamed answer (SSE, c=1: Nagle's algorithm holding the last small write \
             until the client's delayed ACK; toolwire sets `TCP_NODELAY` on every accepted socket). The tail \
             is the machine's: in the same rounds the bare axum floor's p99 is {} / {} µs (JSON c=1 / c=16) \
             against toolwire's {} / {} µs, with wrk, the server and the machine's other tenants on 2 cores; a \
             request that lands while its worker thread is descheduled waits out a scheduler slice. At c=16 \
             each of the 2 runtime workers also has up to 8 requests queued (toolwire p50 {} µs)",
            us(m("json", 1, "toolwire", "p50_us")),
            us(m("sse", 1, "toolwire", "p50_us")),
            us(m("sse", 1, "rmcp-default", "p50_us")),
            us(m("json", 1, "floor", "p99_us")),
            us(m("json", 16, "floor", "p99_us")),
            us(m("json", 1, "toolwire", "p99_us")),
            us(m("json", 16, "toolwire", "p99_us")),
            us(m("json", 16, "toolwire", "p50_us")),
        ),
        "HTTP stateless JSON, c=16" => format!(
            "toolwire {} req/s, rmcp {}, the floor {}. The floor is axum answering bytes: no bearer check, no \
             header checks, no JSON parse beyond a byte scan, no session. Per request toolwire checks Host, \
             Origin and the token (constant time), reads the body's routing fields (`peek`) and then the \
             envelope, the call and its arguments again in the engine, makes a session already initialized \
             at the header's version, and polls the call once in the handler (a call that waits is spawned \
             as its own task, so a slow tool never holds up the connection); at c=1 the gap is {} vs {} µs \
             at the median. {}",
            fmt(m("json", 16, "toolwire", "rps"), 0),
            fmt(m("json", 16, "rmcp", "rps"), 0),
            fmt(m("json", 16, "floor", "rps"), 0),
            us(m("json", 1, "toolwire", "p50_us")),
            us(m("json", 1, "floor", "p50_us")),
            counted(d, "http-json", &["floor", "rmcp"]),
        ),
        "one legacy session with 16 concurrent requests" => {
            let three = m("session", 16, "rmcp", "rps").map(|r| 3.0 * r);
            let floor = m("json", 16, "floor", "rps");
            let side = match (three, floor) {
                (Some(t), Some(f)) if t > f => "above",
                (Some(_), Some(_)) => "below",
                _ => "against",
            };
            format!(
                "toolwire serves a session's requests side by side ({} req/s in one session at c=16, {} \
             stateless JSON). rmcp passes every message of a session through that session's one worker task \
             and its service loop (the handlers themselves run as tasks), but `echo` returns at once, so the \
             serial routing costs rmcp little here ({} req/s in one session against {} stateless with SSE, \
             its framing in both). With an instant tool both servers are bounded by hyper, the kernel and \
             the 2 cores wrk shares with them, and the ratio tracks the stateless one. 3× rmcp would be {} \
             req/s, {} the bare axum floor's {} req/s for a stateless request in the same run (a floor that \
             parses nothing and keeps no session). {} {}",
                fmt(m("session", 16, "toolwire", "rps"), 0),
                fmt(m("json", 16, "toolwire", "rps"), 0),
                fmt(m("session", 16, "rmcp", "rps"), 0),
                fmt(m("sse", 16, "rmcp", "rps"), 0),
                fmt(three, 0),
                side,
                fmt(floor, 0),
                rounds(d, ("session", 16, "toolwire"), ("session", 16, "rmcp"), 3.0),
                counted(d, "http-session", &["rmcp"]),
            )
        }
        "memory per idle HTTP session" => format!(
            "toolwire keeps a session as its handshake state and an empty table of calls in flight ({} bytes \
             per idle session); rmcp keeps a worker task with its channels per session ({} bytes)",
            fmt(d.med("sessions:toolwire", "session_bytes"), 0),
            fmt(d.med("sessions:rmcp", "session_bytes"), 0),
        ),
        _ => return None,
    })
}

/// The instructions a request of callgrind case `name` cost toolwire and each of `others`
/// (run.sh's `cg_http`: one request at a time on one connection, so no load and no machine in
/// them), as a sentence; empty when this run did not count them.
fn counted(d: &Data, name: &str, others: &[&str]) -> String {
    let Some(ours) = d.per_call(&format!("{name}:toolwire")) else { return String::new() };
    let theirs: Vec<String> = others
        .iter()
        .filter_map(|imp| {
            let n = d.per_call(&format!("{name}:{imp}"))?;
            let who = if *imp == "floor" { "the floor's".to_owned() } else { format!("{imp}'s") };
            Some(format!("{who} {} ({}× toolwire's)", fmt(Some(n), 0), fmt(Some(n / ours), 2)))
        })
        .collect();
    format!(
        "Counted under callgrind in this run, one request at a time: toolwire {} instructions a request, {}.",
        fmt(Some(ours), 0),
        theirs.join(", ")
    )
}

/// Round by round, `a` over `b` (each a (mode, connections, impl) case; run.sh runs them in
/// the same round one after the other), and how many of the rounds reach `goal`.
fn rounds(d: &Data, a: (&str, u32, &str), b: (&str, u32, &str), goal: f64) -> String {
    let (a, b) = (d.values(&case(a.0, a.1, a.2), "rps"), d.values(&case(b.0, b.1, b.2), "rps"));
    if a.is_empty() || a.len() != b.len() {
        return String::new();
    }
    let ratios: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
    let reached = ratios.iter().filter(|r| **r >= goal).count();
    let listed: Vec<String> = ratios.iter().map(|r| fmt(Some(*r), 2)).collect();
    format!(
        "Round by round the ratio was {}× ({reached} of {} rounds at {goal}× or more).",
        listed.join(", "),
        ratios.len()
    )
}
