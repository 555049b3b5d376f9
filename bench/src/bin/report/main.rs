//! The report: reads the raw record lines `run.sh` collected, takes medians of the
//! interleaved runs, computes the ratios, evaluates each goal of issue 6 that can be
//! measured, and writes `results.md` (tables, the machine, every goal with met / not met and
//! what holds it back) and an SVG plot of requests/s and p99 per transport. It also prints
//! the goal lines to stdout.
//!
//! ```text
//! report --raw RAW --machine MACHINE --md OUT.md --svg OUT.svg --mode full|smoke [--readme README.md]
//! ```
//!
//! With `--readme`, the goals table is also written into that file between the
//! `<!-- bench-goals:start -->` and `<!-- bench-goals:end -->` markers (the full run does
//! this for the repository's README, so it always shows the last full run).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use toolwire_bench::record::Record;
use toolwire_bench::stats::median;

mod cold;
mod compile;
mod floor;
mod http;
mod report_svg;
mod resources;
mod sync;
mod talk;

const IMPLS: [&str; 3] = ["toolwire", "rmcp", "floor"];

struct Data {
    recs: Vec<Record>,
    machine: BTreeMap<String, String>,
    smoke: bool,
}

impl Data {
    fn runs(&self, case: &str) -> Vec<&Record> {
        self.recs.iter().filter(|r| r.get("case") == Some(case) && r.get("failed").is_none()).collect()
    }

    fn values(&self, case: &str, field: &str) -> Vec<f64> {
        self.runs(case).iter().filter_map(|r| r.num(field)).collect()
    }

    /// The median of `field` over the runs of `case`.
    fn med(&self, case: &str, field: &str) -> Option<f64> {
        median(&self.values(case, field))
    }

    /// Instructions per call by the difference method: (Ir(N2) - Ir(N1)) / (N2 - N1).
    fn per_call(&self, name: &str) -> Option<f64> {
        let (short, long) = self.cg_pair(name)?;
        let d = long.num("calls")? - short.num("calls")?;
        Some((long.num("ir")? - short.num("ir")?) / d)
    }

    fn cg_pair(&self, name: &str) -> Option<(&Record, &Record)> {
        let mut v: Vec<&Record> = self
            .recs
            .iter()
            .filter(|r| r.get("kind") == Some("callgrind") && r.get("case") == Some(name))
            .collect();
        v.sort_by(|a, b| a.num("calls").partial_cmp(&b.num("calls")).expect("numbers"));
        (v.len() >= 2).then(|| (v[0], v[v.len() - 1]))
    }

    /// Per-call self instructions of each function, from the two runs' annotations.
    fn per_call_functions(&self, name: &str) -> Option<Vec<(String, f64)>> {
        let (short, long) = self.cg_pair(name)?;
        let a = read_annotate(short.get("annotate")?)?;
        let b = read_annotate(long.get("annotate")?)?;
        let d = long.num("calls")? - short.num("calls")?;
        let mut out: Vec<(String, f64)> =
            b.iter().map(|(f, &ir)| (f.clone(), (ir - a.get(f).copied().unwrap_or(0.0)) / d)).collect();
        out.sort_by(|x, y| y.1.total_cmp(&x.1));
        Some(out)
    }

    /// The shared libraries `imp`'s echo server had mapped when idle (its first sequential
    /// run's record), as the driver listed them; `–` when no run recorded them.
    fn libraries(&self, imp: &str) -> String {
        let case = format!("echo.w1:{imp}");
        self.runs(&case)
            .iter()
            .find_map(|r| r.get("libs_idle"))
            .map_or_else(|| "–".to_owned(), |l| l.replace(',', ", "))
    }

    fn compile(&self, what: &str, imp: &str) -> Option<f64> {
        let v: Vec<f64> = self
            .recs
            .iter()
            .filter(|r| {
                r.get("kind") == Some("compile") && r.get("what") == Some(what) && r.get("impl") == Some(imp)
            })
            .filter_map(|r| r.num("secs"))
            .collect();
        median(&v)
    }

    /// Every incremental-rebuild time hyperfine measured for `imp`, pooled over rounds.
    fn incremental(&self, imp: &str) -> Option<f64> {
        let mut times = Vec::new();
        for r in self.recs.iter().filter(|r| r.get("kind") == Some("hyperfine") && r.get("impl") == Some(imp))
        {
            let text = std::fs::read_to_string(r.get("json")?).ok()?;
            let v: serde_json::Value = serde_json::from_str(&text).ok()?;
            for t in v["results"][0]["times"].as_array()? {
                times.extend(t.as_f64());
            }
        }
        median(&times)
    }

    fn expand(&self, krate: &str) -> Option<f64> {
        self.recs
            .iter()
            .find(|r| r.get("kind") == Some("expand") && r.get("crate") == Some(krate))?
            .num("lines")
    }

    fn expand_per_tool(&self, imp: &str) -> Option<f64> {
        Some((self.expand(imp)? - self.expand(&format!("{imp}-plain"))?) / 50.0)
    }

    fn syn(&self, imp: &str) -> Option<&Record> {
        self.recs.iter().find(|r| r.get("kind") == Some("syn") && r.get("impl") == Some(imp))
    }
}

/// `file:function -> self Ir` from `callgrind_annotate` output.
fn read_annotate(path: &str) -> Option<BTreeMap<String, f64>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some((num, rest)) = line.split_once(' ') else { continue };
        let Ok(ir) = num.replace(',', "").parse::<f64>() else { continue };
        let Some((_, func)) = rest.split_once(")  ") else { continue };
        if func.contains("PROGRAM TOTALS") {
            continue;
        }
        let func = func.split(" [").next().unwrap_or(func);
        let func = func.split_once(':').map_or(func, |(_, f)| f).to_owned();
        *map.entry(func).or_insert(0.0) += ir;
    }
    Some(map)
}

#[derive(Clone, Copy, PartialEq)]
enum Status {
    Met,
    NotMet,
    Unmeasured,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Met => "met",
            Status::NotMet => "**not met**",
            Status::Unmeasured => "not measured",
        }
    }
}

struct Goal {
    what: &'static str,
    goal: &'static str,
    figure: String,
    status: Status,
    /// What holds it back (unmet or unmeasured), or a note.
    note: String,
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    }
}

/// The pair `a` against `b` from the run without the keep-awake loop (run.sh names those
/// cases `<case>.idle:<impl>`), as "R× (A vs B unit)": issue 15 asks that a goal that depends
/// on the machine also be reported as an idle machine gives it. `None` when run.sh did not
/// make that pair. A goal's status stays the keep-awake run's.
fn without_keep_awake(
    d: &Data,
    (a, b): (&str, &str),
    field: &str,
    unit: &str,
    digits: usize,
) -> Option<String> {
    let idle = |case: &str| match case.split_once(':') {
        Some((name, imp)) => d.med(&format!("{name}.idle:{imp}"), field),
        None => None,
    };
    let (x, y) = (idle(a)?, idle(b)?);
    Some(format!(
        "{}× ({} vs {} {unit})",
        fmt(ratio(Some(x), Some(y)), 3),
        fmt(Some(x), digits),
        fmt(Some(y), digits)
    ))
}

impl Goal {
    /// Appends the same requests/s pair from the run without keep-awake, when there is one.
    fn add_idle(&mut self, d: &Data, a: &str, b: &str) {
        if let Some(idle) = without_keep_awake(d, (a, b), "rps", "req/s", 0) {
            let _ = write!(self.figure, "; without keep-awake {idle}");
        }
    }
}

fn at_least(r: Option<f64>, goal: f64) -> Status {
    r.map_or(Status::Unmeasured, |r| if r >= goal { Status::Met } else { Status::NotMet })
}

fn at_most(r: Option<f64>, goal: f64) -> Status {
    r.map_or(Status::Unmeasured, |r| if r <= goal { Status::Met } else { Status::NotMet })
}

/// Which way a ratio goal points.
#[derive(Clone, Copy)]
enum Bound {
    AtLeast(f64),
    AtMost(f64),
}

/// A goal that is one ratio, toolwire's figure `a` over rmcp's `b`, shown as
/// `r× (a vs b unit)`.
fn versus(
    what: &'static str,
    goal: &'static str,
    (a, b): (Option<f64>, Option<f64>),
    unit: &str,
    digits: usize,
    bound: Bound,
) -> Goal {
    let r = ratio(a, b);
    let status = match bound {
        Bound::AtLeast(x) => at_least(r, x),
        Bound::AtMost(x) => at_most(r, x),
    };
    let figure = format!("{}× ({} vs {} {unit})", fmt(r, 3), fmt(a, digits), fmt(b, digits));
    Goal { what, goal, figure, status, note: String::new() }
}

fn goals(d: &Data) -> Vec<Goal> {
    let mut g = Vec::new();
    let tw = |s: &str, f: &str| d.med(&format!("{s}:toolwire"), f);
    let rm = |s: &str, f: &str| d.med(&format!("{s}:rmcp"), f);

    // stdio, sequential.
    let both = |s: &str, f: &str| (tw(s, f), rm(s, f));
    g.push(versus(
        "stdio server, sequential tools/call",
        "≥ 2.5× rmcp requests/s",
        both("echo.w1", "rps"),
        "req/s",
        0,
        Bound::AtLeast(2.5),
    ));
    g.push(versus(
        "stdio server, 16 pipelined",
        "≥ 5× rmcp",
        both("echo.w16", "rps"),
        "req/s",
        0,
        Bound::AtLeast(5.0),
    ));
    let r = ratio(tw("echo.w1", "p99_us"), rm("echo.w1", "p99_us"));
    let maxes = d.values("echo.w1:toolwire", "max_us");
    let floor_maxes = d.values("echo.w1:floor", "max_us");
    let calls = d.med("echo.w1:toolwire", "calls").unwrap_or(0.0);
    let clean = |v: &[f64]| v.iter().filter(|&&m| m <= 2000.0).count();
    let max_med = median(&maxes);
    // Issue 45's restatement of "no sample above 2 ms": a sample that long is a wait for a core
    // on 2 shared cores (the floor's runs have them too), so the goal is decided on whether
    // the server makes any wait of its own: per call, no more system calls and context
    // switches than the floor (perf tracepoints, bench/syscalls.sh, this run; 0.05 a call of
    // slack for the counters' own noise). The samples above 2 ms stay as reported figures.
    let sc = |imp: &str, f: &str| d.med(&format!("sc.{imp}"), f);
    let no_more = |f: &str| match (sc("echo", f), sc("floor", f)) {
        (Some(ours), Some(floor)) => Some(ours <= floor + 0.05),
        _ => None,
    };
    let st = match (at_most(r, 0.5), no_more("syscalls"), no_more("switches")) {
        (Status::Unmeasured, _, _) | (_, None, _) | (_, _, None) => Status::Unmeasured,
        (Status::Met, Some(true), Some(true)) => Status::Met,
        _ => Status::NotMet,
    };
    g.push(Goal {
        what: "stdio server, p99, sequential",
        goal: "≤ 0.5× rmcp; no wait of the server's making: per call no more system calls and context \
               switches than the floor (perf, same run)",
        figure: format!(
            "{}× ({} vs {} µs); per call {} system calls and {} context switches (the floor {} and {}); \
             reported, not the goal: max {} µs (median run); runs of {:.0} calls with no sample above 2 ms: \
             toolwire {} of {}, the floor {} of {}",
            fmt(r, 3),
            fmt(tw("echo.w1", "p99_us"), 1),
            fmt(rm("echo.w1", "p99_us"), 1),
            fmt(sc("echo", "syscalls"), 2),
            fmt(sc("echo", "switches"), 2),
            fmt(sc("floor", "syscalls"), 2),
            fmt(sc("floor", "switches"), 2),
            fmt(max_med, 0),
            calls,
            clean(&maxes),
            maxes.len(),
            clean(&floor_maxes),
            floor_maxes.len(),
        ),
        status: st,
        note: String::new(),
    });
    let (ti, ri) = (d.per_call("echo:toolwire"), d.per_call("echo:rmcp"));
    let r = ratio(ti, ri);
    g.push(Goal {
        what: "stdio server, instructions per call (callgrind)",
        goal: "≤ 0.3× rmcp",
        figure: format!("{}× ({} vs {} instructions)", fmt(r, 3), fmt(ti, 0), fmt(ri, 0)),
        status: at_most(r, 0.3),
        note: String::new(),
    });
    let cg50 = ratio(d.per_call("fifty:toolwire"), ti);
    let rps50 = ratio(tw("echo.w1", "rps"), tw("fifty.w1", "rps"));
    let schema_per_req = schema_work(d);
    let st = match (at_most(cg50, 1.1), at_most(rps50, 1.1), schema_per_req) {
        (Status::Unmeasured, _, _) => at_most(rps50, 1.1),
        (a, b, s) => {
            if a == Status::Met && b != Status::NotMet && s.is_none_or(|s| s.abs() < 1.0) {
                Status::Met
            } else {
                Status::NotMet
            }
        }
    };
    g.push(Goal {
        what: "per-call cost with 50 tools vs 1 tool",
        goal: "≤ 1.1×; tools/list from pre-serialized bytes; no schema work per request",
        figure: format!(
            "instructions {}×, time per call {}×; schemars instructions per request: {}; tools/list (50 tools): {} instructions vs rmcp {}",
            fmt(cg50, 3),
            fmt(rps50, 3),
            fmt(schema_per_req, 1),
            fmt(d.per_call("list50:toolwire"), 0),
            fmt(d.per_call("list50:rmcp"), 0),
        ),
        status: st,
        note: String::new(),
    });
    // Clients.
    let (s1, s16) = (
        ratio(tw("client.w1", "rps"), rm("client.w1", "rps")),
        ratio(tw("client.w16", "rps"), rm("client.w16", "rps")),
    );
    let st = match (at_least(s1, 1.5), at_least(s16, 2.0)) {
        (Status::Met, Status::Met) => Status::Met,
        (Status::Unmeasured, _) | (_, Status::Unmeasured) => Status::Unmeasured,
        _ => Status::NotMet,
    };
    g.push(Goal {
        what: "stdio client, sequential / 16 in flight",
        goal: "≥ 1.5× / ≥ 2× rmcp's client",
        figure: format!(
            "{}× / {}× ({} / {} vs {} / {} req/s, against the floor server)",
            fmt(s1, 3),
            fmt(s16, 3),
            fmt(tw("client.w1", "rps"), 0),
            fmt(tw("client.w16", "rps"), 0),
            fmt(rm("client.w1", "rps"), 0),
            fmt(rm("client.w16", "rps"), 0)
        ),
        status: st,
        note: String::new(),
    });
    g.push(versus(
        "end to end stdio, ours+ours vs rmcp+rmcp",
        "≥ 3× sequential",
        both("e2e.w1", "rps"),
        "req/s",
        0,
        Bound::AtLeast(3.0),
    ));
    g.extend(http::goals(d));
    g.extend(sync::goals(d));
    g.extend(floor::goals(d));
    g.extend(resources::goals(d));
    g.extend(talk::goals(d));
    g.push(versus(
        "idle stdio server RSS",
        "≤ 0.8× rmcp",
        both("echo.w1", "rss_idle_kb"),
        "KiB",
        0,
        Bound::AtMost(0.8),
    ));
    let (end, at10k) = (tw("rss.w16", "rss_end_kb"), tw("rss.w16", "rss_at_10000_kb"));
    let r = ratio(end, at10k);
    g.push(Goal {
        what: "RSS after 1M requests vs after 10k",
        goal: "≤ 1.2×",
        figure: format!(
            "{}× ({} vs {} KiB; rmcp {}×)",
            fmt(r, 3),
            fmt(end, 0),
            fmt(at10k, 0),
            fmt(ratio(rm("rss.w16", "rss_end_kb"), rm("rss.w16", "rss_at_10000_kb")), 3)
        ),
        status: at_most(r, 1.2),
        note: if r.is_none() {
            "not measured in smoke mode (the 1M-request run is full mode only)".into()
        } else {
            String::new()
        },
    });
    g.push(cold::goal(
        d,
        "cold start, spawn to initialize reply",
        "≤ 0.7× rmcp, with keep-awake and without",
        "rmcp",
        0.7,
    ));
    let compile_note = || if d.smoke { "not measured in smoke mode".to_owned() } else { String::new() };
    let (a, b) = (d.compile("clean", "toolwire"), d.compile("clean", "rmcp"));
    let r = ratio(a, b);
    g.push(Goal {
        what: "clean dev build of the 50-tool crate",
        goal: "≤ 0.5× rmcp",
        figure: format!(
            "{}× ({} vs {} s, all dependencies; the crate alone: {} vs {} s)",
            fmt(r, 3),
            fmt(a, 1),
            fmt(b, 1),
            fmt(d.compile("crate", "toolwire"), 2),
            fmt(d.compile("crate", "rmcp"), 2)
        ),
        status: at_most(r, 0.5),
        note: compile_note(),
    });
    g.push(Goal {
        note: compile_note(),
        ..versus(
            "incremental rebuild after editing one tool",
            "≤ 0.7× rmcp",
            (d.incremental("toolwire"), d.incremental("rmcp")),
            "s",
            2,
            Bound::AtMost(0.7),
        )
    });
    let (a, b) = (d.expand_per_tool("toolwire"), d.expand_per_tool("rmcp"));
    let r = ratio(a, b);
    let syn_tw = d.syn("toolwire").and_then(|s| s.get("versions")).unwrap_or("–").to_owned();
    let syn_rm = d.syn("rmcp").and_then(|s| s.get("versions")).unwrap_or("–").to_owned();
    let majors = syn_tw
        .split(',')
        .filter_map(|v| v.split('.').next())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let debug_lines = d
        .recs
        .iter()
        .find(|r| r.get("crate") == Some("toolwire-debug-one-tool"))
        .and_then(|r| Some(r.num("lines")? - r.num("user_fn_lines")?));
    let st = match at_most(r, 0.6) {
        Status::Met if majors == 1 => Status::Met,
        Status::Unmeasured => Status::Unmeasured,
        _ => Status::NotMet,
    };
    g.push(Goal {
        what: "macro expansion per tool",
        goal: "≤ 0.6× rmcp's lines; one `syn` major in the tree",
        figure: format!(
            "{}× ({} vs {} lines per tool; toolwire's debug hook: {} lines for one tool); syn in toolwire's tree: {syn_tw}; in rmcp's: {syn_rm}",
            fmt(r, 3),
            fmt(a, 1),
            fmt(b, 1),
            fmt(debug_lines, 0),
        ),
        status: st,
        note: compile_note(),
    });
    let v = d.runs("validate:toolwire");
    let reject = median(&v.iter().filter_map(|r| r.num("reject_us")).collect::<Vec<_>>());
    let delta = median(&v.iter().filter_map(|r| r.num("delta_us")).collect::<Vec<_>>());
    let lazy = !v.is_empty() && v.iter().all(|r| r.get("lazy_at_connect") == Some("1"));
    let st = match reject {
        None => Status::Unmeasured,
        Some(x) if x <= 2.0 && lazy => Status::Met,
        _ => Status::NotMet,
    };
    g.push(Goal {
        what: "client-side argument validation",
        goal: "≤ 2 µs per call; validators built lazily, none at connect",
        figure: format!(
            "{} µs per rejected call (validation and its message, no I/O); validated minus raw call {} µs; no validator compiled at connect: {}",
            fmt(reject, 3),
            fmt(delta, 2),
            if v.is_empty() { "–" } else if lazy { "yes" } else { "no" }
        ),
        status: st,
        note: String::new(),
    });
    g
}

/// Instructions in `schemars` functions per request (tools/call and tools/list pooled, the
/// larger of the two), by the difference method; `None` without callgrind data.
fn schema_work(d: &Data) -> Option<f64> {
    let per = |name: &str| -> Option<f64> {
        let f = d.per_call_functions(name)?;
        Some(f.iter().filter(|(n, _)| n.contains("schemars")).map(|(_, v)| v).sum())
    };
    match (per("fifty:toolwire"), per("list50:toolwire")) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn why(goal: &Goal, d: &Data) -> String {
    if !goal.note.is_empty() {
        return goal.note.clone();
    }
    if goal.status == Status::Met {
        return String::new();
    }
    reasons::why(goal.what, d)
}

mod reasons;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut opts: BTreeMap<String, String> = BTreeMap::new();
    while let (Some(k), Some(v)) = (args.next(), args.next()) {
        opts.insert(k.trim_start_matches("--").to_owned(), v);
    }
    let need = |k: &str| {
        opts.get(k).cloned().unwrap_or_else(|| {
            eprintln!("report: --{k} is required");
            std::process::exit(2)
        })
    };
    let raw = std::fs::read_to_string(need("raw")).unwrap_or_default();
    let machine = std::fs::read_to_string(need("machine")).unwrap_or_default();
    let d = Data {
        recs: raw.lines().filter_map(Record::parse).collect(),
        machine: machine
            .lines()
            .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())))
            .collect(),
        smoke: need("mode") == "smoke",
    };
    let goals = goals(&d);
    println!("goal | figure | status");
    for g in &goals {
        println!("{} ({}) | {} | {}", g.what, g.goal, g.figure, g.status.label().trim_matches('*'));
        let w = why(g, &d);
        if !w.is_empty() {
            println!("    held back: {w}");
        }
    }
    let md = markdown(&d, &goals);
    let svg = report_svg::plot(&d.machine, &series(&d));
    let write = |path: &str, text: &str| {
        if let Some(dir) = Path::new(path).parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("report: cannot write {path}: {e}");
            std::process::exit(1);
        }
    };
    write(&need("md"), &md);
    write(&need("svg"), &svg);
    if let Some(readme) = opts.get("readme") {
        match std::fs::read_to_string(readme).map(|text| splice_goals(&text, &goals_table(&goals))) {
            Ok(Some(text)) => write(readme, &text),
            Ok(None) => {
                eprintln!("report: {readme} has no {README_START} … {README_END} markers; left as is")
            }
            Err(e) => eprintln!("report: cannot read {readme}: {e}"),
        }
    }
}

/// The markers between which `--readme` puts the goals table.
const README_START: &str = "<!-- bench-goals:start -->";
const README_END: &str = "<!-- bench-goals:end -->";

/// The goals as a markdown table (the same rows as in `results.md`).
fn goals_table(goals: &[Goal]) -> String {
    let mut s = String::from("| what | goal | measured | status |\n| --- | --- | --- | --- |\n");
    for g in goals {
        let _ = writeln!(s, "| {} | {} | {} | {} |", g.what, g.goal, g.figure, g.status.label());
    }
    s
}

/// `text` with what lies between the README markers replaced by `table`; `None` without
/// the markers.
fn splice_goals(text: &str, table: &str) -> Option<String> {
    let start = text.find(README_START)? + README_START.len();
    let end = start + text[start..].find(README_END)?;
    Some(format!("{}\n{table}{}", &text[..start], &text[end..]))
}

/// The plot's data: for each stdio and HTTP case, (label, [(impl, rps, p99)]).
fn series(d: &Data) -> Vec<report_svg::Group> {
    [
        ("stdio echo, sequential", "echo.w1"),
        ("stdio echo, 16 pipelined", "echo.w16"),
        ("stdio 50 tools, sequential", "fifty.w1"),
    ]
    .iter()
    .map(|(label, s)| report_svg::Group {
        label: (*label).to_owned(),
        bars: IMPLS
            .iter()
            .map(|imp| {
                let c = format!("{s}:{imp}");
                ((*imp).to_owned(), d.med(&c, "rps"), d.med(&c, "p99_us"))
            })
            .collect(),
    })
    .chain(http::series(d))
    .collect()
}

fn markdown(d: &Data, goals: &[Goal]) -> String {
    let m = |k: &str| d.machine.get(k).cloned().unwrap_or_else(|| "?".into());
    let mut s = String::new();
    let _ = writeln!(s, "# toolwire benchmark results\n");
    if d.smoke {
        let _ = writeln!(
            s,
            "> **Smoke run**: a few hundred calls per case, one round. The figures only show that every case runs; they are not measurements.\n"
        );
    }
    let _ = writeln!(
        s,
        "Generated by `bash bench/run.sh{}` on {} (commit {}). Every figure is a ratio of medians of {} \
         interleaved rounds (A B C, A B C, …) or a callgrind instruction count; the raw lines are in \
         `target/bench/raw-{}.txt`.\n",
        if d.smoke { " --smoke" } else { "" },
        m("date"),
        m("commit"),
        d.values("echo.w1:toolwire", "rps").len(),
        m("mode"),
    );
    let _ = writeln!(s, "## Machine\n");
    let _ = writeln!(s, "| | |\n| --- | --- |");
    for (k, label) in [
        ("nproc", "cores (`nproc`)"),
        ("cpu", "CPU (`lscpu`)"),
        ("memory", "memory"),
        ("kernel", "kernel"),
        ("rustc", "rustc"),
        ("loadavg_start", "load average at start"),
        ("loadavg_end", "load average at end"),
        ("wrk", "wrk"),
    ] {
        let _ = writeln!(s, "| {label} | {} |", m(k));
    }
    let _ = writeln!(
        s,
        "| kept awake | {} |",
        match m("keep_awake").as_str() {
            "1" =>
                "yes: one nice-19 busy loop ran during the stdio, HTTP and client cases (see run.sh: an idle \
                    core of this VM halts, and waking it costs every process about 40 µs); the cases of \
                    issue 15's goals ran again without it, shown as \"without keep-awake\" beside each goal",
            "0" => "no (`--no-keep-awake`): sequential figures include the VM's wake-up from idle",
            _ => "?",
        }
    );
    let _ = writeln!(
        s,
        "\nShared and noisy: absolute figures move between runs; the ratios of interleaved medians are what the goals use. \
         Counts and options measured by hand between full runs (the sync-tool design, issue 15's unmet goals counted, \
         the cost of serving untrusted callers) are in [`findings.md`](findings.md), each with its conditions.\n"
    );

    let _ = writeln!(s, "## Goals (issues 6 and 15)\n");
    s.push_str(&goals_table(goals));
    let _ = writeln!(s, "\n### What holds back each unmet or unmeasured goal\n");
    for g in goals {
        let w = why(g, d);
        if !w.is_empty() {
            let _ = writeln!(s, "- **{}** ({}): {w}", g.what, g.status.label().trim_matches('*'));
        }
    }

    let _ = writeln!(s, "\n## stdio servers: ours, rmcp and the floor\n");
    let _ = writeln!(
        s,
        "The neutral driver (`driver`, std only) spawns each server, initializes (2025-06-18) and calls \
         `echo` (or `tool_7` of 50) with a 29-byte text (16 and 64 KiB in the `echo of a … text` rows). \
         Medians over the rounds; ratios are toolwire / other.\n"
    );
    let _ = writeln!(s, "| case | figure | toolwire | rmcp | floor | toolwire/rmcp | toolwire/floor |");
    let _ = writeln!(s, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    let rows: [(&str, &str, &str, usize); 20] = [
        ("echo, sequential", "echo.w1", "rps", 0),
        ("echo, sequential", "echo.w1", "p50_us", 1),
        ("echo, sequential", "echo.w1", "p99_us", 1),
        ("echo, sequential", "echo.w1", "max_us", 0),
        ("echo, 16 pipelined", "echo.w16", "rps", 0),
        ("echo, 16 pipelined", "echo.w16", "p99_us", 1),
        ("50 tools, call tool_7, sequential", "fifty.w1", "rps", 0),
        ("50 tools, call tool_7, sequential", "fifty.w1", "p99_us", 1),
        ("50 tools, tools/list, sequential", "list50.w1", "rps", 0),
        ("50 tools, tools/list, sequential", "list50.w1", "p99_us", 1),
        ("echo of a 16 KiB text, sequential", "text16k.w1", "rps", 0),
        ("echo of a 16 KiB text, sequential", "text16k.w1", "p99_us", 1),
        ("echo of a 64 KiB text, sequential", "text64k.w1", "rps", 0),
        ("echo of a 64 KiB text, sequential", "text64k.w1", "p99_us", 1),
        ("spawn to initialize reply (cold-start bench, with keep-awake)", "cold", "init_us", 0),
        ("spawn to initialize reply (cold-start bench, without keep-awake)", "cold-idle", "init_us", 0),
        ("50 tools, spawn to initialize reply (with keep-awake)", "cold50", "init_us", 0),
        ("50 tools, spawn to initialize reply (without keep-awake)", "cold50-idle", "init_us", 0),
        ("idle RSS (KiB)", "echo.w1", "rss_idle_kb", 0),
        ("RSS after the run (KiB)", "echo.w1", "rss_end_kb", 0),
    ];
    for (label, suite, field, digits) in rows {
        let v: Vec<Option<f64>> = IMPLS.iter().map(|i| d.med(&format!("{suite}:{i}"), field)).collect();
        let unit = match field {
            "rps" => "req/s",
            "p50_us" => "p50 µs",
            "p99_us" => "p99 µs",
            "max_us" => "max µs",
            "init_us" => "µs",
            _ => "KiB",
        };
        let _ = writeln!(
            s,
            "| {label} | {unit} | {} | {} | {} | {} | {} |",
            fmt(v[0], digits),
            fmt(v[1], digits),
            fmt(v[2], digits),
            fmt(ratio(v[0], v[1]), 2),
            fmt(ratio(v[0], v[2]), 2)
        );
    }
    let mt = |suite: &str| d.med(&format!("{suite}:toolwire-mt"), "rps");
    let _ = writeln!(
        s,
        "\nThe same echo built with toolwire's `multi-thread` feature and run with `--worker-threads 2` \
         (`toolwire-echo-workers`: a multi-threaded runtime instead of the default single runtime thread): {} req/s sequential, {} req/s 16 pipelined ({}× / {}× the default), \
         idle RSS {} KiB.",
        fmt(mt("echo.w1"), 0),
        fmt(mt("echo.w16"), 0),
        fmt(ratio(mt("echo.w1"), d.med("echo.w1:toolwire", "rps")), 2),
        fmt(ratio(mt("echo.w16"), d.med("echo.w16:toolwire", "rps")), 2),
        fmt(d.med("echo.w1:toolwire-mt", "rss_idle_kb"), 0),
    );
    let _ = writeln!(
        s,
        "\nShared libraries each server had mapped when idle: toolwire {}; toolwire with `multi-thread` {}; \
         rmcp {}; the floor {}.",
        d.libraries("toolwire"),
        d.libraries("toolwire-mt"),
        d.libraries("rmcp"),
        d.libraries("floor"),
    );
    sync::markdown(d, &mut s);
    resources::markdown(d, &mut s);
    talk::markdown(d, &mut s);

    if d.recs.iter().any(|r| r.get("kind") == Some("callgrind")) {
        let _ = writeln!(s, "## Instructions per request (callgrind, difference method)\n");
        let _ = writeln!(
            s,
            "`valgrind --tool=callgrind` on the server, driven for two run lengths; per request = \
             (Ir(long) − Ir(short)) / (long − short), which cancels start-up and shutdown.\n"
        );
        let _ = writeln!(
            s,
            "| case | toolwire | rmcp | floor | toolwire/rmcp |\n| --- | ---: | ---: | ---: | ---: |"
        );
        for (label, c) in [
            ("echo tools/call", "echo"),
            ("50 tools, tools/call tool_7", "fifty"),
            ("50 tools, tools/list", "list50"),
        ] {
            let v: Vec<Option<f64>> = IMPLS.iter().map(|i| d.per_call(&format!("{c}:{i}"))).collect();
            let _ = writeln!(
                s,
                "| {label} | {} | {} | {} | {} |",
                fmt(v[0], 0),
                fmt(v[1], 0),
                fmt(v[2], 0),
                fmt(ratio(v[0], v[1]), 2)
            );
        }
        if let Some(funcs) = d.per_call_functions("list50:toolwire") {
            let copy: f64 = funcs
                .iter()
                .filter(|(f, _)| f.contains("memcpy") || f.contains("memmove"))
                .map(|(_, v)| v)
                .sum();
            let _ = writeln!(
                s,
                "\ntoolwire's `tools/list` of 50 tools: {} of its {} instructions per request are `memcpy` (the floor \
                 writes the same kind of listing in {} in all), so the pre-serialized page is copied several times \
                 on its way out.",
                fmt(Some(copy), 0),
                fmt(d.per_call("list50:toolwire"), 0),
                fmt(d.per_call("list50:floor"), 0)
            );
        }
        for imp in ["toolwire", "rmcp"] {
            if let Some(funcs) = d.per_call_functions(&format!("echo:{imp}")) {
                let _ = writeln!(s, "\nWhere {imp}'s echo call goes (self instructions per call, top 15):\n");
                let _ = writeln!(s, "| instructions | function |\n| ---: | --- |");
                for (f, v) in funcs.iter().take(15) {
                    let _ = writeln!(s, "| {v:.0} | `{}` |", f.replace('|', "\\|"));
                }
            }
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## Clients\n");
    let _ = writeln!(
        s,
        "`client-bench`: each SDK's stdio client spawns the server and calls `echo` (after a warm-up), \
         sequentially or from 16 tasks sharing the connection.\n"
    );
    let _ = writeln!(
        s,
        "| case | figure | toolwire | rmcp | toolwire/rmcp |\n| --- | --- | ---: | ---: | ---: |"
    );
    for (label, c) in [
        ("client → floor server, sequential", "client.w1"),
        ("client → floor server, 16 in flight", "client.w16"),
        ("end to end, own client → own server, sequential", "e2e.w1"),
    ] {
        for (field, unit) in [("rps", "req/s"), ("p99_us", "p99 µs")] {
            let a = d.med(&format!("{c}:toolwire"), field);
            let b = d.med(&format!("{c}:rmcp"), field);
            let _ =
                writeln!(s, "| {label} | {unit} | {} | {} | {} |", fmt(a, 1), fmt(b, 1), fmt(ratio(a, b), 2));
        }
    }

    if !d.smoke {
        compile::markdown(d, &mut s);
    }

    http::markdown(d, &mut s);
    let _ = writeln!(s, "## Plot\n\n![requests/s and p99 per transport](results.svg)\n");
    let _ = writeln!(
        s,
        "## Reproduce\n\n```sh\nbash bench/run.sh          # full run, writes bench/results.md and bench/results.svg\nbash bench/run.sh --smoke  # what .ci/run runs\n```"
    );
    s
}
