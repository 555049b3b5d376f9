//! The `serve_registry!` main's log: a `tracing` subscriber of toolwire's own that writes one
//! line per event to stderr, at or above the `--log-level` flag's level.
//!
//! It replaces `tracing_subscriber::fmt().with_target(false)` (four crates in every server's
//! build: tracing-subscriber, sharded-slab, thread_local, lazy_static, and 34k instructions of
//! set-up before the first answer) and prints the same shape:
//!
//! ```text
//! 2026-12-02T18:48:57.123456Z  INFO serving MCP over stdio server="echo" version="0.1.0" tools=1
//! 2026-12-02T18:48:57.125000Z  WARN fetch{url="https://example.com"}:retry{n=2}: timed out after=5s
//! ```
//!
//! What is kept, and why:
//!
//! - **The timestamp** (RFC 3339, UTC, microseconds), **the level** (padded to five
//!   characters), **the message, then the fields** as `name=value` (`Debug` form, so strings
//!   are quoted; an error field also lists its sources as `name.sources=[..]`), no target:
//!   exactly what the `fmt()` subscriber printed, so anything that reads these lines still
//!   can.
//! - **Span context** (`span{field=value}:child: ` before the message). toolwire itself opens
//!   no span, but a tool's body may (`tracing::info_span!`, `#[instrument]`), and its events
//!   showed which span they ran in. So this keeps a small table of the open spans (name,
//!   fields, parent, reference count) and, per thread, the spans entered, as
//!   tracing-subscriber's registry does. A span below the level is not recorded, as before.
//!   Nothing of it is touched while no span is open.
//! - **ANSI and C1 control characters** in values are escaped (`\x1b`), as `fmt()` escaped
//!   them in messages and errors: a log line cannot drive the terminal it is shown on.
//!
//! Writing (`sink`): each line is formatted whole and then written in one system call, under a lock,
//! so lines from different threads never interleave. A full stderr pipe must not hold the
//! serving loop (a client that never reads the server's stderr would otherwise hang it at
//! the first line past the pipe's 64 KiB): on Linux (glibc) the line is written with
//! `pwritev2(RWF_NOWAIT)`, which writes a pipe line of up to `PIPE_BUF` bytes whole or not at
//! all; a line the pipe cannot take now is dropped and counted, and the next line written is
//! preceded by one saying how many were lost. A terminal or a file (which refuse the flag or
//! never stay full) and other systems are written as before, with a blocking write. Nothing
//! here panics: a poisoned lock is taken over, and a failed write is ignored. The lines a
//! stdio server makes while it answers the `initialize` that was waiting at start are written
//! after that reply, together (`log_hold`): to a file, each line was a system call or two
//! the client's first reply waited for.

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;
use std::fmt::{self, Debug, Write as _};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_core::span::Current;

mod sink;

use crate::protocol::rfc3339::timestamp;
use sink::{Descriptor, Lines};

use crate::log_hold;
use crate::sync::lock;

/// Install the stderr log as the process's default subscriber, at `max` and above. Does
/// nothing when a subscriber is already installed.
pub(crate) fn install(max: LevelFilter) {
    let log = StderrLog::new(max, Holding::new(Descriptor::new(io::stderr())), SystemTime::now);
    let _ = tracing::subscriber::set_global_default(log);
}

/// Lines written through [`log_hold`]: held while the thread that made them holds (a stdio
/// server answering the `initialize` that was waiting), written at once otherwise.
struct Holding(log_hold::Writer);

impl Holding {
    /// `out`'s lines, through [`log_hold`].
    fn new(out: impl Lines) -> Holding {
        Holding(Arc::new(move |text: &str| out.line(text)))
    }
}

impl Lines for Holding {
    fn line(&self, line: &str) {
        log_hold::write(line, &self.0);
    }
}

/// Tells one log's spans from another's in the per-thread stack of entered spans.
static NEXT_LOG: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The spans entered on this thread, innermost last, as (log, span id).
    static ENTERED: RefCell<Vec<(u64, u64)>> = const { RefCell::new(Vec::new()) };
}

/// The subscriber.
pub(crate) struct StderrLog<L> {
    max: LevelFilter,
    /// This log's key in [`ENTERED`].
    key: u64,
    spans: Mutex<Spans>,
    out: L,
    clock: fn() -> SystemTime,
}

/// The open spans.
struct Spans {
    next: u64,
    open: HashMap<u64, Span>,
}

/// One open span.
struct Span {
    metadata: &'static Metadata<'static>,
    /// Its fields as the line shows them (`a=1 b="x"`).
    fields: String,
    parent: Option<u64>,
    /// Handles to it, and its children (each holds its parent open, so the context of an
    /// event in a child is whole even after the parent's own handle is dropped).
    refs: usize,
}

impl<L: Lines> StderrLog<L> {
    /// A log of `max` and above, writing to `out`, stamping lines with `clock`'s time.
    pub(crate) fn new(max: LevelFilter, out: L, clock: fn() -> SystemTime) -> StderrLog<L> {
        StderrLog {
            max,
            key: NEXT_LOG.fetch_add(1, Ordering::Relaxed),
            spans: Mutex::new(Spans { next: 1, open: HashMap::new() }),
            out,
            clock,
        }
    }

    fn spans(&self) -> MutexGuard<'_, Spans> {
        lock(&self.spans)
    }

    /// The span entered last on this thread, if it is one of this log's.
    fn current(&self) -> Option<u64> {
        ENTERED
            .try_with(|entered| {
                let entered = entered.try_borrow().ok()?;
                entered.iter().rev().find(|(log, _)| *log == self.key).map(|(_, id)| *id)
            })
            .ok()
            .flatten()
    }

    /// The span an event or a new span belongs to: the one it names, the current one, or none.
    fn parent_of(&self, explicit: Option<&Id>, contextual: bool) -> Option<u64> {
        match explicit {
            Some(id) => Some(id.into_u64()),
            None if contextual => self.current(),
            None => None,
        }
    }

    /// `root{..}:child{..}: ` for the spans from the root down to `leaf`; nothing without one.
    fn write_context(&self, line: &mut String, leaf: Option<u64>) {
        let Some(leaf) = leaf else { return };
        let spans = self.spans();
        let mut chain = Vec::new();
        let mut next = Some(leaf);
        while let Some(span) = next.and_then(|id| spans.open.get(&id)) {
            chain.push(span);
            next = span.parent;
        }
        for span in chain.iter().rev() {
            line.push_str(span.metadata.name());
            if !span.fields.is_empty() {
                line.push('{');
                line.push_str(&span.fields);
                line.push('}');
            }
            line.push(':');
        }
        if !chain.is_empty() {
            line.push(' ');
        }
    }

    /// The line for `event`, newline included.
    fn format(&self, event: &Event<'_>) -> String {
        let mut line = String::with_capacity(160);
        timestamp(&mut line, (self.clock)());
        line.push(' ');
        line.push_str(level_name(event.metadata().level()));
        line.push(' ');
        self.write_context(&mut line, self.parent_of(event.parent(), event.is_contextual()));
        event.record(&mut Fields::new(&mut line));
        line.push('\n');
        line
    }
}

impl<L: Lines> Subscriber for StderrLog<L> {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) { Interest::always() } else { Interest::never() }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.max
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.max)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let parent = self.parent_of(span.parent(), span.is_contextual());
        let mut fields = String::new();
        span.record(&mut Fields::new(&mut fields));
        let mut spans = self.spans();
        let id = spans.next;
        spans.next += 1;
        // A parent that is not ours (closed, or another subscriber's id) is no context.
        let parent = parent.filter(|p| match spans.open.get_mut(p) {
            Some(p) => {
                p.refs += 1;
                true
            }
            None => false,
        });
        spans.open.insert(id, Span { metadata: span.metadata(), fields, parent, refs: 1 });
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(span) = self.spans().open.get_mut(&span.into_u64()) {
            let empty = span.fields.is_empty();
            values.record(&mut Fields { out: &mut span.fields, empty });
        }
    }

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        if self.enabled(event.metadata()) {
            self.out.line(&self.format(event));
        }
    }

    fn enter(&self, span: &Id) {
        let _ = ENTERED.try_with(|entered| {
            if let Ok(mut entered) = entered.try_borrow_mut() {
                entered.push((self.key, span.into_u64()));
            }
        });
    }

    fn exit(&self, span: &Id) {
        let _ = ENTERED.try_with(|entered| {
            if let Ok(mut entered) = entered.try_borrow_mut() {
                let this = (self.key, span.into_u64());
                if let Some(at) = entered.iter().rposition(|e| *e == this) {
                    entered.remove(at);
                }
            }
        });
    }

    fn clone_span(&self, id: &Id) -> Id {
        if let Some(span) = self.spans().open.get_mut(&id.into_u64()) {
            span.refs += 1;
        }
        id.clone()
    }

    fn try_close(&self, id: Id) -> bool {
        let mut spans = self.spans();
        let id = id.into_u64();
        let Some(span) = spans.open.get_mut(&id) else { return false };
        span.refs = span.refs.saturating_sub(1);
        if span.refs > 0 {
            return false;
        }
        // Closed: its parents lose the handle it held on them.
        let mut parent = spans.open.remove(&id).and_then(|s| s.parent);
        while let Some((id, span)) = parent.and_then(|p| spans.open.get_mut(&p).map(|s| (p, s))) {
            span.refs = span.refs.saturating_sub(1);
            if span.refs > 0 {
                break;
            }
            parent = spans.open.remove(&id).and_then(|s| s.parent);
        }
        true
    }

    fn current_span(&self) -> Current {
        let Some(id) = self.current() else { return Current::none() };
        match self.spans().open.get(&id) {
            Some(span) => Current::new(Id::from_u64(id), span.metadata),
            None => Current::none(),
        }
    }
}

/// The level as `fmt()` printed it: five characters, right-aligned.
fn level_name(level: &Level) -> &'static str {
    match *level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => " INFO",
        Level::WARN => " WARN",
        _ => "ERROR",
    }
}

/// Writes an event's or a span's fields: the message first as is, the others as
/// `name=value`, separated by spaces.
struct Fields<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Fields<'a> {
    /// Fields written after what `out` holds, the first without a space before it.
    fn new(out: &'a mut String) -> Fields<'a> {
        Fields { out, empty: true }
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"))
        } else {
            self.record_debug(field, &value)
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn Error + 'static)) {
        match value.source() {
            Some(source) => self
                .record_debug(field, &format_args!("{value} {}.sources={:?}", field.name(), Sources(source))),
            None => self.record_debug(field, &format_args!("{value}")),
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        if !std::mem::take(&mut self.empty) {
            self.out.push(' ');
        }
        let name = field.name();
        let mut out = Escaping(&mut *self.out);
        let _ = match name {
            "message" => write!(out, "{value:?}"),
            name => write!(out, "{}={value:?}", name.strip_prefix("r#").unwrap_or(name)),
        };
    }
}

/// An error's chain of sources, from the first: `["a", "b"]` as `fmt()` printed them.
struct Sources<'a>(&'a (dyn Error + 'static));

impl Debug for Sources<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut next = Some(self.0);
        while let Some(e) = next {
            list.entry(&format_args!("{e}"));
            next = e.source();
        }
        list.finish()
    }
}

/// Appends to a line with ANSI and C1 control characters escaped.
struct Escaping<'a>(&'a mut String);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // Most text has none: ESC, BEL, BS, FF and DEL are single bytes, and a C1 character
        // is 0xC2 then 0x80..=0x9F in UTF-8.
        let bytes = s.as_bytes();
        let plain = !bytes.iter().enumerate().any(|(i, &b)| {
            matches!(b, 0x1b | 0x07 | 0x08 | 0x0c | 0x7f)
                || (b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
        });
        if plain {
            self.0.push_str(s);
            return Ok(());
        }
        for c in s.chars() {
            match c {
                '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' => {
                    let _ = write!(self.0, "\\x{:02x}", c as u32);
                }
                '\u{80}'..='\u{9f}' => {
                    let _ = write!(self.0, "\\u{{{:x}}}", c as u32);
                }
                c => self.0.push(c),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;
    use std::time::UNIX_EPOCH;

    /// 2026-12-02T18:48:57.123456Z.
    fn fixed() -> SystemTime {
        UNIX_EPOCH + Duration::new(1_796_237_337, 123_456_789)
    }

    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<String>>);

    impl Lines for Capture {
        fn line(&self, line: &str) {
            self.0.lock().unwrap().push_str(line);
        }
    }

    /// What `f` logs at `max` and above.
    fn logged(max: LevelFilter, f: impl FnOnce()) -> String {
        let out = Capture::default();
        tracing::subscriber::with_default(StderrLog::new(max, out.clone(), fixed), f);
        out.0.lock().unwrap().clone()
    }

    const AT: &str = "2026-12-02T18:48:57.123456Z";

    /// The installed log's lines wait while their thread holds and go out in order when the
    /// hold ends; after it they are written at once.
    #[test]
    fn the_installed_logs_lines_wait_for_a_hold() {
        let out = Capture::default();
        tracing::subscriber::with_default(
            StderrLog::new(LevelFilter::INFO, Holding::new(out.clone()), fixed),
            || {
                let held = log_hold::hold();
                tracing::info!("serving");
                tracing::info!(client = "c", "initialize");
                assert_eq!(*out.0.lock().unwrap(), "", "nothing written while held");
                drop(held);
                assert_eq!(
                    *out.0.lock().unwrap(),
                    format!("{AT}  INFO serving\n{AT}  INFO initialize client=\"c\"\n")
                );
                tracing::info!("after");
            },
        );
        assert!(out.0.lock().unwrap().ends_with(&format!("\n{AT}  INFO after\n")));
    }

    #[test]
    fn a_line_is_time_level_message_then_fields() {
        let text = logged(LevelFilter::INFO, || {
            tracing::info!(server = "echo", tools = 1, ok = true, "serving MCP over {}", "stdio");
            tracing::warn!(r#type = ?Some(2), ratio = 0.5, "no {}", "target");
            tracing::error!(detail = %"shown as is");
            tracing::info!("");
        });
        assert_eq!(
            text,
            format!(
                "{AT}  INFO serving MCP over stdio server=\"echo\" tools=1 ok=true\n\
                 {AT}  WARN no target type=Some(2) ratio=0.5\n\
                 {AT} ERROR detail=shown as is\n\
                 {AT}  INFO \n"
            )
        );
    }

    #[test]
    fn the_level_filter_keeps_that_level_and_the_more_severe() {
        let all = || {
            tracing::trace!("t");
            tracing::debug!("d");
            tracing::info!("i");
            tracing::warn!("w");
            tracing::error!("e");
        };
        let levels = |max| logged(max, all).lines().map(|l| l[AT.len() + 1..].to_owned()).collect::<Vec<_>>();
        assert_eq!(levels(LevelFilter::WARN), [" WARN w", "ERROR e"]);
        assert_eq!(levels(LevelFilter::TRACE), ["TRACE t", "DEBUG d", " INFO i", " WARN w", "ERROR e"]);
        assert_eq!(levels(LevelFilter::OFF), Vec::<String>::new());
        // The flag's values, as `--log-level` parses them.
        assert_eq!("debug".parse::<LevelFilter>().unwrap(), LevelFilter::DEBUG);
        let log = StderrLog::new(LevelFilter::INFO, Capture::default(), fixed);
        assert_eq!(log.max_level_hint(), Some(LevelFilter::INFO));
    }

    #[test]
    fn events_in_spans_carry_the_spans_from_the_root() {
        let text = logged(LevelFilter::INFO, || {
            let fetch = tracing::info_span!("fetch", url = "https://example.com");
            let _in_fetch = fetch.enter();
            let retry = tracing::info_span!("retry", n = 2);
            retry.in_scope(|| tracing::warn!(after = 5, "timed out"));
            // A span below the level is no context; a span without fields shows its name only.
            tracing::debug_span!("quiet").in_scope(|| tracing::info!("in fetch"));
            tracing::info_span!("bare").in_scope(|| tracing::info!("in bare"));
            // Fields recorded later join the span's.
            let late = tracing::info_span!("late", a = 1, b = tracing::field::Empty);
            late.record("b", "x");
            late.in_scope(|| tracing::info!("recorded"));
            // An explicit parent wins over the current span; a root event has none.
            let other = tracing::info_span!(parent: None, "other");
            tracing::info!(parent: &other, "explicit");
            tracing::info!(parent: None, "root");
            drop(_in_fetch);
            tracing::info!("outside");
        });
        let lines: Vec<&str> = text.lines().map(|l| &l[AT.len() + 7..]).collect();
        assert_eq!(
            lines,
            [
                "fetch{url=\"https://example.com\"}:retry{n=2}: timed out after=5",
                "fetch{url=\"https://example.com\"}: in fetch",
                "fetch{url=\"https://example.com\"}:bare: in bare",
                "fetch{url=\"https://example.com\"}:late{a=1 b=\"x\"}: recorded",
                "other: explicit",
                "root",
                "outside",
            ]
        );
    }

    #[test]
    fn closed_spans_leave_the_table_and_a_child_keeps_its_parent() {
        let log = Arc::new(StderrLog::new(LevelFilter::INFO, Capture::default(), fixed));
        let out = log.out.clone();
        let dispatch = tracing::Dispatch::from(log.clone());
        tracing::dispatcher::with_default(&dispatch, || {
            let child = {
                let parent = tracing::info_span!("parent");
                tracing::info_span!(parent: &parent, "child")
            };
            // The parent's own handle is gone; the child holds it open.
            assert_eq!(log.spans().open.len(), 2);
            child.in_scope(|| tracing::info!("still"));
            drop(child);
            assert_eq!(log.spans().open.len(), 0);
            let span = tracing::info_span!("cloned");
            let copy = span.clone();
            drop(span);
            assert_eq!(log.spans().open.len(), 1);
            copy.in_scope(|| {
                assert_eq!(tracing::Span::current().metadata().map(|m| m.name()), Some("cloned"))
            });
            drop(copy);
            assert_eq!(log.spans().open.len(), 0);
        });
        assert!(out.0.lock().unwrap().ends_with(" INFO parent:child: still\n"));
    }

    #[test]
    fn errors_list_their_sources_and_control_characters_are_escaped() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("cannot read the config")
            }
        }
        impl Error for Outer {
            fn source(&self) -> Option<&(dyn Error + 'static)> {
                Some(&self.0)
            }
        }
        let e = Outer(std::io::Error::other("disk on fire"));
        let alone = std::io::Error::other("alone");
        let text = logged(LevelFilter::INFO, || {
            tracing::warn!(error = &e as &(dyn Error + 'static), "failed");
            tracing::warn!(error = &alone as &(dyn Error + 'static));
            tracing::info!(name = %"\x1b[31mred\x07", "a \x1b]0;title\x07 \u{9b}");
        });
        let lines: Vec<&str> = text.lines().map(|l| &l[AT.len() + 7..]).collect();
        assert_eq!(
            lines,
            [
                "failed error=cannot read the config error.sources=[disk on fire]",
                "error=alone",
                "a \\x1b]0;title\\x07 \\u{9b} name=\\x1b[31mred\\x07",
            ]
        );
    }

    #[test]
    fn timestamps_are_rfc_3339_in_utc() {
        let at = |secs: i64, nanos: u32| {
            let t = if secs >= 0 {
                UNIX_EPOCH + Duration::new(secs as u64, nanos)
            } else {
                UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + Duration::from_nanos(nanos.into())
            };
            let mut s = String::new();
            timestamp(&mut s, t);
            s
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(at(1_796_237_337, 123_456_789), "2026-12-02T18:48:57.123456Z");
        assert_eq!(at(951_827_696, 789_012_000), "2000-02-29T12:34:56.789012Z");
        assert_eq!(at(-2_203_891_200, 0), "1900-03-01T00:00:00.000000Z");
        assert_eq!(at(-1, 999_999_000), "1969-12-31T23:59:59.999999Z");
        assert_eq!(at(253_402_300_800, 0), "+10000-01-01T00:00:00.000000Z");
    }
}
