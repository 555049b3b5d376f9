//! What holds back a goal that is not met: the explanation the report writes beside it,
//! built from the figures of the same run (the instruction counts, the floor, the
//! experiment servers), so it is evidence and not a guess.

use super::{Data, fmt, ratio};

/// The explanation for the goal named `what`, or a generic line when there is none.
pub(super) fn why(what: &str, d: &Data) -> String {
    if d.smoke && what.contains("callgrind") {
        return "not measured in smoke mode (callgrind runs in full mode only)".to_owned();
    }
    let med = |c: &str, f: &str| d.med(c, f);
    let tw_ir = d.per_call("echo:toolwire");
    let rm_ir = d.per_call("echo:rmcp");
    let hops = || {
        format!(
            "toolwire does {} instructions per call ({}× rmcp's), yet a sequential call takes {} µs at the \
             median against the floor's {} µs: the time goes to thread wake-ups, not work. Inside the server a \
             request is handed across four threads: the stdin reader thread, the serving loop (inside \
             `block_on` on the main thread), a tokio worker running the spawned call, and the stdout writer \
             thread; each hand-off wakes a parked thread. The experiment servers built from the public API show the lever: the serving \
             loop spawned onto a worker gives {} req/s and a current-thread runtime {} req/s, against {} for \
             `serve_registry!`'s main (same rounds)",
            fmt(tw_ir, 0),
            fmt(ratio(tw_ir, rm_ir), 2),
            fmt(med("echo.w1:toolwire", "p50_us"), 1),
            fmt(med("echo.w1:floor", "p50_us"), 1),
            fmt(med("echo.w1:toolwire-spawned", "rps"), 0),
            fmt(med("echo.w1:toolwire-ct", "rps"), 0),
            fmt(med("echo.w1:toolwire", "rps"), 0),
        )
    };
    match what {
        "stdio server, sequential tools/call" => hops(),
        "stdio server, p99, sequential" => format!(
            "{}. The max column is the machine as much as the server: the floor's own worst sample in the \
             same rounds was {} µs",
            hops(),
            fmt(med("echo.w1:floor", "max_us"), 0)
        ),
        "stdio server, 16 pipelined" => format!(
            "with 16 in flight the hand-offs overlap and toolwire reaches {} req/s, {}× the floor; rmcp \
             collapses under pipelining ({} req/s, below its own sequential {}), so the ratio is bounded by \
             how close toolwire already is to the floor, not by rmcp",
            fmt(med("echo.w16:toolwire", "rps"), 0),
            fmt(ratio(med("echo.w16:toolwire", "rps"), med("echo.w16:floor", "rps")), 2),
            fmt(med("echo.w16:rmcp", "rps"), 0),
            fmt(med("echo.w1:rmcp", "rps"), 0),
        ),
        "stdio server, instructions per call (callgrind)" => format!(
            "{} vs {} instructions per call; the top self-cost functions of toolwire's call are listed under \
             'Where toolwire's echo call goes' below",
            fmt(tw_ir, 0),
            fmt(rm_ir, 0)
        ),
        "per-call cost with 50 tools vs 1 tool" => {
            "see the figures: the instruction ratio, the time ratio and the schemars instructions per request \
             must all hold"
                .to_owned()
        }
        "stdio client, sequential / 16 in flight" => format!(
            "toolwire's client: {} / {} req/s; rmcp's: {} / {} req/s",
            fmt(med("client.w1:toolwire", "rps"), 0),
            fmt(med("client.w16:toolwire", "rps"), 0),
            fmt(med("client.w1:rmcp", "rps"), 0),
            fmt(med("client.w16:rmcp", "rps"), 0)
        ),
        "end to end stdio, ours+ours vs rmcp+rmcp" => format!(
            "the client side is fast (toolwire's client alone against the floor: {} req/s sequential), so the \
             end-to-end figure is the server's sequential latency: {}",
            fmt(med("client.w1:toolwire", "rps"), 0),
            hops()
        ),
        "idle stdio server RSS" => format!(
            "the floor idles at {} KiB; the difference is tokio's worker threads' stacks and the runtime \
             (a current-thread runtime idles at {} KiB in the same rounds)",
            fmt(med("echo.w1:floor", "rss_idle_kb"), 0),
            fmt(med("echo.w1:toolwire-ct", "rss_idle_kb"), 0),
        ),
        "cold start, spawn to initialize reply" => format!(
            "spawn to initialize reply includes exec, the dynamic loader and the first round trip; the floor \
             (no runtime, no logging) takes {} µs. toolwire's main also installs a tracing subscriber and starts \
             a multi-thread runtime plus two stdio threads before it reads the first line",
            fmt(d.init("floor"), 0)
        ),
        "macro expansion per tool" => {
            "two syn majors: toolwire's own macros use syn 3, but `tracing`'s default `attributes` feature \
             pulls `tracing-attributes`, which is on syn 2; depending on `tracing` with \
             `default-features = false, features = [\"std\"]` (toolwire never uses `#[instrument]`) removes it"
                .to_owned()
        }
        "clean dev build of the 50-tool crate" => {
            "most of a clean build is the dependency graph both crates share (tokio, serde, schemars, syn); \
             see the crate-alone row for the part the macros decide"
                .to_owned()
        }
        _ => "no analysis written for this goal yet; see the figures".to_owned(),
    }
}
