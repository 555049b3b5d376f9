//! The sync-tool part of the report (issue 15): a sync `#[tool] fn echo` (the README's
//! style) against the async one in the same run, over stdio (`echo.w1:toolwire-sync`,
//! `echo.w16:toolwire-sync`, the `toolwire-echo-sync` binary) and over HTTP, stateless
//! JSON at c=16 (`http.json.c16:toolwire-sync`, the `echo_sync` tool of `toolwire-http`),
//! and in the README's HTTP main, `serve_registry!` run with `--http`, one legacy session at
//! c=16 (`http.session.c16:toolwire-main-sync` against `http.session.c16:toolwire-main`, the
//! `toolwire-http-main` binary).

use std::fmt::Write as _;

use super::{Bound, Data, Goal, fmt, ratio, versus, without_keep_awake};

fn rps(d: &Data, case: &str) -> Option<f64> {
    d.med(case, "rps")
}

/// The three sync-tool goals, and the sync tool against rmcp.
pub(super) fn goals(d: &Data) -> Vec<Goal> {
    let mut g = Vec::new();
    let seq = rps(d, "echo.w1:toolwire-sync");
    let mut first = versus(
        "sync `#[tool] fn`, stdio sequential (build: tools-only, toolwire without default features)",
        "≥ 0.8× the async tool, and ≥ 5× rmcp",
        (seq, rps(d, "echo.w1:toolwire")),
        "req/s",
        0,
        Bound::AtLeast(0.8),
    );
    let vs_rmcp = ratio(seq, rps(d, "echo.w1:rmcp"));
    let _ = write!(first.figure, "; {}× rmcp ({} req/s)", fmt(vs_rmcp, 3), fmt(rps(d, "echo.w1:rmcp"), 0));
    if vs_rmcp.is_some_and(|r| r < 5.0) {
        first.status = super::Status::NotMet;
    }
    first.add_idle(d, "echo.w1:toolwire-sync", "echo.w1:toolwire");
    if let Some(idle) = without_keep_awake(d, ("echo.w1:toolwire-sync", "echo.w1:rmcp"), "rps", "req/s", 0) {
        let _ = write!(first.figure, ", against rmcp {idle}");
    }
    g.push(first);
    let mut pipelined = versus(
        "sync `#[tool] fn`, stdio 16 pipelined (build: tools-only, toolwire without default features)",
        "≥ 0.8× the async tool",
        (rps(d, "echo.w16:toolwire-sync"), rps(d, "echo.w16:toolwire")),
        "req/s",
        0,
        Bound::AtLeast(0.8),
    );
    pipelined.add_idle(d, "echo.w16:toolwire-sync", "echo.w16:toolwire");
    g.push(pipelined);
    let mut http = versus(
        "sync `#[tool] fn` over HTTP, stateless JSON, c=16 (build: `http`)",
        "≥ 0.8× the async tool",
        (rps(d, "http.json.c16:toolwire-sync"), rps(d, "http.json.c16:toolwire")),
        "req/s",
        0,
        Bound::AtLeast(0.8),
    );
    http.add_idle(d, "http.json.c16:toolwire-sync", "http.json.c16:toolwire");
    g.push(http);
    let mut main = versus(
        "sync `#[tool] fn` in the README's `serve_registry!` main run with `--http`, one legacy session, c=16 (build: `http`)",
        "≥ 0.8× the async tool in the same main",
        (rps(d, "http.session.c16:toolwire-main-sync"), rps(d, "http.session.c16:toolwire-main")),
        "req/s",
        0,
        Bound::AtLeast(0.8),
    );
    main.add_idle(d, "http.session.c16:toolwire-main-sync", "http.session.c16:toolwire-main");
    g.push(main);
    g
}

/// The paragraph under the stdio table.
pub(super) fn markdown(d: &Data, s: &mut String) {
    let sync = |case: &str| rps(d, &format!("{case}:toolwire-sync"));
    let asy = |case: &str| rps(d, &format!("{case}:toolwire"));
    let (main_sync, main_async) =
        (rps(d, "http.session.c16:toolwire-main-sync"), rps(d, "http.session.c16:toolwire-main"));
    let _ = writeln!(
        s,
        "\nA *sync* `#[tool] fn echo` (toolwire's README style; over stdio the body runs in place on the \
         stdin reader, relieved by a new reader when it runs long (1 to 9 ms); over HTTP on a multi-threaded runtime in \
         place on the runtime worker that polls it while another worker is left; see \
         `runtime/src/tool/run/relief.rs`): {} req/s sequential, {} req/s 16 pipelined over stdio, {} req/s \
         over HTTP (stateless JSON, c=16) ({}× / {}× / {}× the async tool in the same run); in the README's \
         `serve_registry!` main with `--http` (one legacy session, c=16), {} req/s against the async tool's {} \
         ({}×).\n",
        fmt(sync("echo.w1"), 0),
        fmt(sync("echo.w16"), 0),
        fmt(sync("http.json.c16"), 0),
        fmt(ratio(sync("echo.w1"), asy("echo.w1")), 2),
        fmt(ratio(sync("echo.w16"), asy("echo.w16")), 2),
        fmt(ratio(sync("http.json.c16"), asy("http.json.c16")), 2),
        fmt(main_sync, 0),
        fmt(main_async, 0),
        fmt(ratio(main_sync, main_async), 2),
    );
}

/// What holds back a sync-tool goal, from the same run's figures: `None` for other goals.
pub(super) fn why(what: &str, d: &Data) -> Option<String> {
    let p50 = |case: &str| d.med(case, "p50_us");
    let inline = |case: &str| match rps(d, &format!("{case}:toolwire-inline")) {
        Some(v) => format!(
            "; `#[tool(inline)]`, the same body run where the call is polled, does {} req/s ({}× the async tool)",
            fmt(Some(v), 0),
            fmt(ratio(Some(v), rps(d, &format!("{case}:toolwire"))), 2)
        ),
        None => String::new(),
    };
    let handover = "Over HTTP on a multi-threaded runtime a sync body runs in place on the worker that polls \
                    it while fewer than workers − 1 bodies do (on 2 workers: one), so at least one worker \
                    always serves the rest; past that seat it runs on one of toolwire's sync workers, at two \
                    thread hand-overs per call (counted in findings.md; at c=16 on 2 cores few calls find \
                    the seat taken)";
    let in_place = "Over stdio a sync body runs in place on the stdin reader, which a new reader relieves once \
                    the body has run on two 1 ms ticks of the watcher thread, so a short body costs what \
                    `#[tool(inline)]` costs plus two uncontended locks; a gap left is the watcher's ticks \
                    (1000 wake-ups a second while bodies run) competing for 2 cores";
    if what.starts_with("sync `#[tool] fn`, stdio sequential") {
        return Some(format!(
            "{in_place}: p50 {} µs against the async tool's {} µs{}",
            fmt(p50("echo.w1:toolwire-sync"), 1),
            fmt(p50("echo.w1:toolwire"), 1),
            inline("echo.w1"),
        ));
    }
    if what.starts_with("sync `#[tool] fn`, stdio 16 pipelined") {
        return Some(format!("{in_place}{}", inline("echo.w16")));
    }
    if what.starts_with("sync `#[tool] fn` over HTTP") {
        return Some(format!(
            "{handover}. With this server's options (stateless, no deadline, no host cancellation: \
             nothing could answer a call while its body runs) the body runs in the request handler's \
             own poll, where the async tool's call completes too, at the async tool's instructions per \
             request (findings.md). Round by round in this run, sync against async: {}; p50 {} µs \
             against the async tool's {} µs",
            by_round(d, "http.json.c16:toolwire-sync", "http.json.c16:toolwire"),
            fmt(d.med("http.json.c16:toolwire-sync", "p50_us"), 0),
            fmt(d.med("http.json.c16:toolwire", "p50_us"), 0),
        ));
    }
    if what.starts_with("sync `#[tool] fn` in the README's") {
        return Some(format!(
            "`--http` runs one runtime worker per core; {handover}. In a legacy session (whose client \
             may cancel a call) a sync body is held back from the request handler's own poll and pays \
             a task spawn and a wake-up of the handler: p50 {} µs against the async tool's {} µs",
            fmt(d.med("http.session.c16:toolwire-main-sync", "p50_us"), 0),
            fmt(d.med("http.session.c16:toolwire-main", "p50_us"), 0),
        ));
    }
    None
}

/// `a`'s requests/s over `b`'s, round by round (the rounds interleave them), and the median
/// of those ratios.
fn by_round(d: &Data, a: &str, b: &str) -> String {
    let ratios: Vec<f64> = d.values(a, "rps").iter().zip(d.values(b, "rps")).map(|(x, y)| x / y).collect();
    let each: Vec<String> = ratios.iter().map(|r| fmt(Some(*r), 2)).collect();
    format!("{} (median {})", each.join(", "), fmt(toolwire_bench::stats::median(&ratios), 2))
}
