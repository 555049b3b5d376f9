//! The compile-cost part of `results.md`: the two generated 50-tool crates' clean and
//! incremental builds, their expansion lines, their dependency graphs and `syn` majors,
//! from the `kind=compile|hyperfine|expand|deps|syn` records `compile.sh` wrote.

use std::fmt::Write as _;

use super::{Data, fmt, ratio};

/// The compile-cost section (full runs only).
pub(super) fn markdown(d: &Data, s: &mut String) {
    let _ = writeln!(s, "\n## Compile cost (two generated 50-tool crates)\n");
    let _ = writeln!(
        s,
        "`bench/compile.sh`: `gen-compile` writes the same 50 tools with toolwire's `#[tool]` and with \
         rmcp's macros (one `Parameters` struct per tool, as 50 different tools need), each its own \
         workspace built offline against a copy of the workspace's `Cargo.lock`.\n\n\
         Expansion lines: stable rustc has no way to print an expansion, so this uses \
         `RUSTC_BOOTSTRAP=1 cargo rustc -- -Zunpretty=expanded` on the pinned stable compiler (the flag \
         cargo-expand passes), rustfmt-ed with the workspace config, and subtracts a macro-free twin \
         of each crate (same fns, no attributes or derives), divided by 50. It counts everything the \
         macros cause, derives included. The stable-only cross-check for toolwire is its own \
         `TOOLWIRE_MACROS_DEBUG=1` hook (one tool, rustfmt-ed, minus the user's fn).\n"
    );
    let _ = writeln!(s, "| figure | toolwire | rmcp | toolwire/rmcp |\n| --- | ---: | ---: | ---: |");
    let rows = [
        ("clean dev build, all dependencies (s)", d.compile("clean", "toolwire"), d.compile("clean", "rmcp")),
        ("the crate alone, non-incremental (s)", d.compile("crate", "toolwire"), d.compile("crate", "rmcp")),
        ("incremental rebuild after editing tool_7 (s)", d.incremental("toolwire"), d.incremental("rmcp")),
        ("expanded lines per tool", d.expand_per_tool("toolwire"), d.expand_per_tool("rmcp")),
    ];
    for (label, a, b) in rows {
        let _ = writeln!(s, "| {label} | {} | {} | {} |", fmt(a, 2), fmt(b, 2), fmt(ratio(a, b), 2));
    }
    for (imp, other) in [("toolwire", "rmcp"), ("rmcp", "toolwire")] {
        if let Some(r) = d.recs.iter().find(|r| r.get("kind") == Some("deps") && r.get("impl") == Some(imp)) {
            let _ = writeln!(
                s,
                "\n{imp}'s crate builds {} packages; only in its graph, not {other}'s: {}.",
                r.get("count").unwrap_or("?"),
                r.get("only").unwrap_or("").replace(',', ", ")
            );
        }
    }
    if let Some(w) = d.syn("toolwire-workspace") {
        let _ = write!(
            s,
            "\n`syn` in toolwire's own tree (`cargo tree -p toolwire`): {}",
            w.get("versions").unwrap_or("–")
        );
        match w.get("syn2_via") {
            Some(via) if via != "none" => {
                let _ = writeln!(s, "; syn 2 comes in through `{}`.", via.replace('@', " "));
            }
            _ => {
                let _ = writeln!(s, ".");
            }
        }
    }
}
