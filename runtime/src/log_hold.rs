//! Log lines held back on one thread until its first answers are written.
//!
//! A stdio server answers what its client wrote before serving began (usually `initialize`)
//! on the serving thread, before any other thread starts (`transport/stdio`, `waiting`). The
//! log lines made meanwhile (the server's "serving MCP over stdio", the handshake's
//! "initialize") were written before the reply, and to a regular file each is a system call
//! or two that the client's first reply waited for (11.5 and 18.5 µs of a cold start in two
//! runs with stderr on a file: bench/findings.md, session 27). The transport now opens a
//! [`hold`] around those first answers; a log that takes part (the `serve_registry!` main's
//! stderr log, `cli::stderr`) hands each line to [`write`], which keeps it while this thread
//! holds and writes it at once otherwise. When the hold ends, the lines kept are written, in
//! order, each writer's run of lines in one call.
//!
//! A log that does not take part (a host's own `tracing` subscriber) writes as it always
//! did. Only the writing waits: a line is still made (its timestamp taken) when its event
//! happens. A hold is per thread; another thread's lines are written as they come.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::Arc;

/// Writes log text: whole lines, newlines included.
pub(crate) type Writer = Arc<dyn Fn(&str) + Send + Sync>;

thread_local! {
    /// `Some` while this thread holds: the text kept, in runs by writer, in the order written.
    static HELD: RefCell<Option<Vec<(Writer, String)>>> = const { RefCell::new(None) };
}

/// Hold this thread's log lines (those written through [`write`]) until the guard drops.
/// A hold opened inside another is part of the outer one: the lines wait for the outer end.
pub(crate) fn hold() -> Hold {
    let outer = HELD.with_borrow_mut(|held| {
        if held.is_some() {
            return false;
        }
        *held = Some(Vec::new());
        true
    });
    Hold { outer, _this_thread: PhantomData }
}

/// Write `text` with `writer` now, or, while this thread holds, when the hold ends.
pub(crate) fn write(text: &str, writer: &Writer) {
    let kept = HELD.with_borrow_mut(|held| {
        let Some(runs) = held else { return false };
        match runs.last_mut() {
            Some((last, run)) if Arc::ptr_eq(last, writer) => run.push_str(text),
            _ => runs.push((writer.clone(), text.to_owned())),
        }
        true
    });
    if !kept {
        writer(text);
    }
}

/// This thread's hold on its log lines; dropping the outermost writes the lines kept.
#[must_use = "the lines are held only while the guard lives"]
pub(crate) struct Hold {
    /// The first hold on this thread: its end writes the lines.
    outer: bool,
    /// Made and dropped on one thread (the lines are kept per thread).
    _this_thread: PhantomData<*const ()>,
}

impl Drop for Hold {
    fn drop(&mut self) {
        if !self.outer {
            return;
        }
        // Taken out before writing, so a writer that logs (or holds) finds no hold open.
        let runs = HELD.with_borrow_mut(Option::take).unwrap_or_default();
        for (writer, text) in runs {
            writer(&text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A writer that records each call it gets, tagged.
    fn recorder(tag: &'static str, calls: &Arc<Mutex<Vec<String>>>) -> Writer {
        let calls = calls.clone();
        Arc::new(move |text: &str| calls.lock().unwrap().push(format!("{tag}:{text}")))
    }

    #[test]
    fn lines_wait_for_the_hold_and_go_out_in_order_one_call_per_run() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let (a, b) = (recorder("a", &calls), recorder("b", &calls));
        write("before\n", &a);
        {
            let _held = hold();
            write("one\n", &a);
            write("two\n", &a);
            write("three\n", &b);
            write("four\n", &a);
            assert_eq!(*calls.lock().unwrap(), ["a:before\n"], "nothing written while held");
        }
        write("after\n", &a);
        assert_eq!(
            *calls.lock().unwrap(),
            ["a:before\n", "a:one\ntwo\n", "b:three\n", "a:four\n", "a:after\n"]
        );
    }

    #[test]
    fn an_inner_hold_ends_with_the_outer_one() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let a = recorder("a", &calls);
        let outer = hold();
        drop(hold());
        write("kept\n", &a);
        assert!(calls.lock().unwrap().is_empty(), "the inner hold's end wrote nothing");
        drop(outer);
        assert_eq!(*calls.lock().unwrap(), ["a:kept\n"]);
    }

    #[test]
    fn another_threads_lines_are_not_held() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let a = recorder("a", &calls);
        let _held = hold();
        let theirs = a.clone();
        std::thread::spawn(move || write("theirs\n", &theirs)).join().unwrap();
        assert_eq!(*calls.lock().unwrap(), ["a:theirs\n"]);
    }

    /// A panic while held still writes the lines kept (the guard drops as it unwinds).
    #[test]
    fn a_panic_while_held_still_writes_the_lines() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let a = recorder("a", &calls);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _held = hold();
            write("kept\n", &a);
            panic!("boom");
        }));
        assert!(caught.is_err());
        assert_eq!(*calls.lock().unwrap(), ["a:kept\n"]);
    }
}
