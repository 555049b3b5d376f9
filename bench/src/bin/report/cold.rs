//! The cold start, spawn to initialize reply, from the cold-start bench (`cold-start`): each
//! stdio server started many times, one start of each in turn, once with the keep-awake loop
//! (case `cold`) and once without (case `cold-idle`, what a user's idle machine gives). A
//! cold-start goal is met only when it is met in both runs: under the loop some starts wait
//! milliseconds for a core (rmcp's more than most: its runtime starts a worker per core), so
//! the loop alone could flatter either side. Each server starts from a copy of its binary
//! (`binary=copy` in the records; the bench's docs say why), which the figure names.

use super::{Data, Goal, Status, at_most, fmt, ratio};

/// The two runs: (case, how the report names it).
const RUNS: [(&str, &str); 2] = [("cold", "with keep-awake"), ("cold-idle", "without keep-awake")];

/// A field of `imp`'s record in `case` (the bench prints one per server and run;
/// `init_us` is the median start, in µs).
fn field(d: &Data, case: &str, imp: &str, name: &str) -> Option<f64> {
    d.med(&format!("{case}:{imp}"), name)
}

/// toolwire's cold start against `base` (`rmcp` or `floor`): at most `bound` times its
/// median start, with the keep-awake loop and without.
pub(super) fn goal(d: &Data, what: &'static str, goal: &'static str, base: &str, bound: f64) -> Goal {
    let runs: Vec<(Option<f64>, String)> = RUNS
        .iter()
        .map(|(case, how)| {
            let (tw, other) = (field(d, case, "toolwire", "init_us"), field(d, case, base, "init_us"));
            let r = ratio(tw, other);
            let floor = if base == "floor" {
                String::new()
            } else {
                format!("; floor {} µs", fmt(field(d, case, "floor", "init_us"), 0))
            };
            (r, format!("{how} {}× ({} vs {} µs{floor})", fmt(r, 3), fmt(tw, 0), fmt(other, 0)))
        })
        .collect();
    let statuses: Vec<Status> = runs.iter().map(|(r, _)| at_most(*r, bound)).collect();
    let status = if statuses.contains(&Status::NotMet) {
        Status::NotMet
    } else if statuses.contains(&Status::Unmeasured) {
        Status::Unmeasured
    } else {
        Status::Met
    };
    // Older raw files have no `binary` field: their servers ran where cargo built them.
    let copied = d.runs(&format!("{}:toolwire", RUNS[0].0)).iter().any(|r| r.get("binary") == Some("copy"));
    let figure = format!(
        "{}; {}; medians of {} interleaved starts each{}",
        runs[0].1,
        runs[1].1,
        fmt(field(d, RUNS[0].0, "toolwire", "starts"), 0),
        if copied {
            ", each server started from a copy of its binary, as `cargo install` leaves it"
        } else {
            ""
        }
    );
    let note = match status {
        Status::Unmeasured => "not measured: no cold-start records in this run".to_owned(),
        _ => String::new(),
    };
    Goal { what, goal, figure, status, note }
}

/// How each run's starts spread (p10 to p90, and how many took over 2.5 ms), for the reasons.
pub(super) fn spread(d: &Data) -> String {
    let run = |(case, how): &(&str, &str)| {
        let one = |imp: &str| {
            let f = |name: &str| fmt(field(d, case, imp, name), 0);
            format!(
                "{imp} {} to {} µs ({} of {} over 2.5 ms)",
                f("p10_us"),
                f("p90_us"),
                f("over_2500"),
                f("starts")
            )
        };
        format!("{how}: {}; {}; {}", one("toolwire"), one("rmcp"), one("floor"))
    };
    format!("This run's starts, p10 to p90, {}; {}", run(&RUNS[0]), run(&RUNS[1]))
}
