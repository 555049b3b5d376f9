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
            "toolwire does {} instructions per call ({}× rmcp's) and a sequential call takes {} µs at the \
             median against the floor's {} µs. On the sequential path the stdio transport reads, dispatches, \
             polls an async call once and writes its answer on the stdin reader thread, with no wake-up of \
             another thread (`bash bench/syscalls.sh`: one read and one write per call, as the floor; the \
             write is `pwritev2(RWF_NOWAIT)` on a pipe, so no `poll` first); the gap to the floor is the \
             engine's work (the JSON-RPC parse, the arguments, the result). With \
             `--worker-threads 2` (a multi-threaded runtime: every call spawned onto a worker; the same echo \
             built with toolwire's `multi-thread` feature) it does {} req/s against {} for the default single runtime thread (same rounds)",
            fmt(tw_ir, 0),
            fmt(ratio(tw_ir, rm_ir), 2),
            fmt(med("echo.w1:toolwire", "p50_us"), 1),
            fmt(med("echo.w1:floor", "p50_us"), 1),
            fmt(med("echo.w1:toolwire-mt", "rps"), 0),
            fmt(med("echo.w1:toolwire", "rps"), 0),
        )
    };
    match what {
        "stdio server, sequential tools/call" => hops(),
        "stdio server, p99, sequential" => {
            let over = |c: &str| {
                let v = d.values(c, "max_us");
                format!("{} of {}", v.iter().filter(|&&m| m > 2000.0).count(), v.len())
            };
            format!(
                "p99 is {} µs against rmcp's {} µs and the floor's {} µs. Runs with a sample above 2 ms: toolwire \
                 {}, rmcp {}, the floor {} (median worst samples {}, {} and {} µs). toolwire's sequential path \
                 runs on one thread, as the floor's does, so a stall above 2 ms is not a hand-off between \
                 threads; when the floor's runs have them too, they are the machine's: on 2 shared cores at \
                 this load average a process can wait out another's scheduler slice",
                fmt(med("echo.w1:toolwire", "p99_us"), 1),
                fmt(med("echo.w1:rmcp", "p99_us"), 1),
                fmt(med("echo.w1:floor", "p99_us"), 1),
                over("echo.w1:toolwire"),
                over("echo.w1:rmcp"),
                over("echo.w1:floor"),
                fmt(med("echo.w1:toolwire", "max_us"), 0),
                fmt(med("echo.w1:rmcp", "max_us"), 0),
                fmt(med("echo.w1:floor", "max_us"), 0),
            )
        }
        "stdio server, 16 pipelined" => format!(
            "with 16 in flight the hand-offs overlap and toolwire reaches {} req/s, {}× the floor; rmcp \
             collapses under pipelining ({} req/s, below its own sequential {}), so the ratio is bounded by \
             how close toolwire already is to the floor, not by rmcp",
            fmt(med("echo.w16:toolwire", "rps"), 0),
            fmt(ratio(med("echo.w16:toolwire", "rps"), med("echo.w16:floor", "rps")), 2),
            fmt(med("echo.w16:rmcp", "rps"), 0),
            fmt(med("echo.w1:rmcp", "rps"), 0),
        ),
        // The same breakdown for both instruction goals: the 16286 of a68147a was this call.
        "stdio server, instructions per call (callgrind)"
        | "tools/call instructions per call, against before resources existed" => {
            let f = d.per_call_functions("echo:toolwire").unwrap_or_default();
            let sum = |pred: &dyn Fn(&str) -> bool| -> f64 { f.iter().filter(|(n, _)| pred(n)).map(|(_, v)| v).sum() };
            let alloc = sum(&|n| ["malloc", "free", "_int_malloc", "_int_free", "unlink_chunk", "realloc", "__rdl_", "__rust_alloc", "__rust_dealloc"].iter().any(|a| n.contains(a)));
            let contended = sum(&|n| n.contains("lock_contended"));
            let sip = sum(&|n| n.contains("sip::Hasher") || n.contains("hash_one"));
            let scan = sum(&|n| n.contains("serde_json::read::") || n.contains("ignore_value") || n.contains("ignore_str"));
            format!(
                "{} vs {} instructions per call (the floor: {}). The avoidable parts, per call: allocator {}; contended \
                 locks {}; SipHash {} (`hash_one`: the in-flight table past 8 calls, and any other hashed map on the path); \
                 re-scanning the same JSON bytes {} (`skip_to_escape`, `ignore_value`, `ignore_str`: the envelope, the \
                 raw arguments and the argument parse each walk the line). See 'Where toolwire's echo call goes'",
                fmt(tw_ir, 0),
                fmt(rm_ir, 0),
                fmt(d.per_call("echo:floor"), 0),
                fmt(Some(alloc), 0),
                fmt(Some(contended), 0),
                fmt(Some(sip), 0),
                fmt(Some(scan), 0),
            )
        }
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
        "idle stdio server RSS" => {
            let split = |imp: &str| {
                let c = format!("echo.w1:{imp}");
                match (med(&c, "rss_idle_anon_kb"), med(&c, "rss_idle_file_kb")) {
                    (Some(a), Some(f)) => format!(" ({a:.0} KiB anonymous, {f:.0} KiB file-backed)"),
                    _ => String::new(),
                }
            };
            format!(
                "toolwire idles at {} KiB{}, rmcp at {} KiB{}, the floor (one thread, a 0.5 MB binary) at {} KiB{}. \
                 The same echo built with toolwire's `multi-thread` feature and run with `--worker-threads 2` idles \
                 at {} KiB: two threads more, and libm, which the multi-threaded scheduler's one `pow` import \
                 loads. Most of a small server's resident set is file-backed pages of the binary and the \
                 libraries touched while loading (relocations, start-up code), so the lever is the size of what \
                 the serve main links. The stdio binary is built as a tools-only crate is (bench/servers): \
                 without toolwire's `http` and `multi-thread` features (no axum, hyper, mio, no multi-threaded \
                 scheduler), logging to stderr through toolwire's own subscriber. Libraries mapped when idle: \
                 toolwire {}; with `multi-thread` {}; rmcp {}; the floor {}",
                fmt(med("echo.w1:toolwire", "rss_idle_kb"), 0),
                split("toolwire"),
                fmt(med("echo.w1:rmcp", "rss_idle_kb"), 0),
                split("rmcp"),
                fmt(med("echo.w1:floor", "rss_idle_kb"), 0),
                split("floor"),
                fmt(med("echo.w1:toolwire-mt", "rss_idle_kb"), 0),
                d.libraries("toolwire"),
                d.libraries("toolwire-mt"),
                d.libraries("rmcp"),
                d.libraries("floor"),
            )
        }
        "cold start, spawn to initialize reply" => format!(
            "spawn to initialize reply includes exec, the dynamic loader and the first round trip; the floor \
             (no runtime, no logging, one thread, a 0.5 MB binary) takes {} µs without keep-awake. toolwire's \
             main also installs its stderr log, builds the registry and a current-thread runtime, and answers \
             the `initialize` waiting on stdin on that thread before it starts the stdin reader thread (and \
             before it writes its log lines); rmcp \
             builds a multi-threaded runtime (a worker per core) first. toolwire's binary is several times \
             the floor's, so the loader and the first touches of its pages fault in more (findings.md, 'cold \
             start'). {}",
            fmt(d.med("cold-idle:floor", "init_us"), 0),
            super::cold::spread(d)
        ),
        "macro expansion per tool" => {
            "two syn majors: toolwire's own macros use syn 3, but `tracing`'s default `attributes` feature \
             pulls `tracing-attributes`, which is on syn 2; depending on `tracing` with \
             `default-features = false, features = [\"std\"]` (toolwire never uses `#[instrument]`) removes it"
                .to_owned()
        }
        "clean dev build of the 50-tool crate" => {
            let deps = |imp: &str| {
                d.recs.iter().find(|r| r.get("kind") == Some("deps") && r.get("impl") == Some(imp))
            };
            let count = |imp: &str| deps(imp).and_then(|r| r.get("count")).unwrap_or("?");
            let only = deps("toolwire")
                .and_then(|r| r.get("only"))
                .unwrap_or("?")
                .split(',')
                .filter(|p| !p.starts_with("toolwire"))
                .collect::<Vec<_>>()
                .join(", ");
            format!(
                "the macros' own share is small (the crate alone builds in {} vs {} s), and the graph is already \
                 the smaller one: the crate depends on toolwire without its `http` feature (no axum, hyper, tower, \
                 mio), {} packages against rmcp's {}. Only in toolwire's graph: {only} (`cargo tree -i <name>` in the \
                 generated crate says what pulls each in). toolwire is built as a registry dependency is, not \
                 incrementally, as rmcp is (gen-compile's profile overrides: by path cargo would build it \
                 incrementally). On 2 cores the build is bound less by the graph's size than by its longest \
                 serial chain (syn, serde_derive, serde, serde_json, schemars, toolwire, the crate: see `cargo \
                 build --timings` in the generated crate): both cores are busy until toolwire starts, and \
                 toolwire's own compile then runs on one core, the last unit to finish (findings.md, 'What a \
                 tools-only crate compiles and links' and session 20's section)",
                fmt(d.compile("crate", "toolwire"), 2),
                fmt(d.compile("crate", "rmcp"), 2),
                count("toolwire"),
                count("rmcp"),
            )
        }
        _ => super::http::why(what, d)
            .or_else(|| super::sync::why(what, d))
            .unwrap_or_else(|| "no analysis written for this goal yet; see the figures".to_owned()),
    }
}
