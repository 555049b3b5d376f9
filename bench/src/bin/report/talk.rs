//! The talk-back part of the report (issue 12): an elicitation round trip over stdio, toolwire
//! against rmcp (`elicit.w1`, the `toolwire-elicit` and `rmcp-elicit` binaries: one
//! `elicitation/create` asked and answered inside each `tools/call`), and what ten log lines
//! the client filtered out cost a call (`echo-log` against `echo`, callgrind).

use std::fmt::Write as _;

use super::{Data, Goal, Status, fmt, ratio};

/// The two goals of issue 12's performance list.
pub(super) fn goals(d: &Data) -> Vec<Goal> {
    let (log, plain) = (d.per_call("echo-log:toolwire"), d.per_call("echo:toolwire"));
    let change = ratio(log, plain).map(|r| (r - 1.0) * 100.0);
    let mut g = vec![Goal {
        what: "tools/call whose tool logs 10 lines the client filtered out, vs one that does not log",
        goal: "within 10% (filtering happens before serialising)",
        figure: format!("{} vs {} instructions per call, {}%", fmt(log, 0), fmt(plain, 0), fmt(change, 1)),
        status: change.map_or(Status::Unmeasured, |c| if c <= 10.0 { Status::Met } else { Status::NotMet }),
        note: if log.is_none() { "callgrind runs in full mode only".into() } else { String::new() },
    }];
    let rps = |i: &str| d.med(&format!("elicit.w1:{i}"), "rps");
    let p50 = |i: &str| d.med(&format!("elicit.w1:{i}"), "p50_us");
    g.push(Goal {
        what: "an elicitation round trip over stdio (a tools/call that asks one question), sequential",
        goal: "reported against rmcp",
        figure: format!(
            "{}× rmcp's calls/s ({} vs {}); p50 {} vs {} µs",
            fmt(ratio(rps("toolwire"), rps("rmcp")), 2),
            fmt(rps("toolwire"), 0),
            fmt(rps("rmcp"), 0),
            fmt(p50("toolwire"), 1),
            fmt(p50("rmcp"), 1),
        ),
        status: if rps("toolwire").is_some() && rps("rmcp").is_some() {
            Status::Met
        } else {
            Status::Unmeasured
        },
        note: String::new(),
    });
    g
}

/// The table of the elicitation cases.
pub(super) fn markdown(d: &Data, s: &mut String) {
    let _ = writeln!(s, "\n## Talking back (issue 12)\n");
    let _ = writeln!(
        s,
        "The driver (`--method elicit`) calls `ask`, whose body asks the driver one question \
         (`elicitation/create`, a form of one string) and returns the answer; the driver accepts \
         at once. Each call is two round trips on the same pipes.\n"
    );
    let _ = writeln!(
        s,
        "| case | figure | toolwire | rmcp | toolwire/rmcp |\n| --- | --- | ---: | ---: | ---: |"
    );
    for (field, unit, digits) in [("rps", "calls/s", 0), ("p50_us", "p50 µs", 1), ("p99_us", "p99 µs", 1)] {
        let a = d.med("elicit.w1:toolwire", field);
        let b = d.med("elicit.w1:rmcp", field);
        if a.is_none() && b.is_none() {
            continue;
        }
        let _ = writeln!(
            s,
            "| elicitation round trip, sequential | {unit} | {} | {} | {} |",
            fmt(a, digits),
            fmt(b, digits),
            fmt(ratio(a, b), 2)
        );
    }
    let (ta, tb) = (d.per_call("elicit:toolwire"), d.per_call("elicit:rmcp"));
    if ta.is_some() || tb.is_some() {
        let _ = writeln!(
            s,
            "\nInstructions per call (callgrind): elicitation round trip {} (rmcp {}); echo with 10 filtered logs {} (without {}).",
            fmt(ta, 0),
            fmt(tb, 0),
            fmt(d.per_call("echo-log:toolwire"), 0),
            fmt(d.per_call("echo:toolwire"), 0),
        );
    }
}
