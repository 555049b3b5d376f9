//! A server of `#[tool(local)]` bodies, whose futures are not `Send`, for
//! tests/tests/local_tools.rs: `tally` holds an `Rc<RefCell<_>>` borrow across its awaits and
//! reports progress between them, `forever` holds an `Rc` and never returns (and records, when
//! its future is dropped, that it was), `boom` panics after an await, `whereabouts` is a sync
//! `local` body naming its thread. Served by `serve_registry!`, so it takes the usual flags
//! (`--deadline`, `--http`, ...). `LOCAL_TOOLS_MARKS` names a directory where `forever` writes
//! `<label>.dropped` when its body is dropped.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use toolwire::Context;

/// The name of the thread the caller's body runs on.
fn thread_name() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_owned()
}

/// Count to `n` in an `Rc<RefCell<u32>>` whose borrow is held across each await, reporting
/// progress at each step, and say where it ran.
#[toolwire::tool(read_only, local)]
#[expect(
    clippy::await_holding_refcell_ref,
    reason = "the borrow across an await is what this tool proves runs"
)]
async fn tally(ctx: &Context, n: u32) -> String {
    let count = Rc::new(RefCell::new(0u32));
    let mut held = count.borrow_mut();
    for i in 1..=n {
        tokio::time::sleep(Duration::from_millis(20)).await;
        *held += 1;
        ctx.report_progress(f64::from(i), Some(f64::from(n)), Some("counted"));
    }
    format!("{} on {}", *held, thread_name())
}

/// Records in `LOCAL_TOOLS_MARKS/<label>.dropped` that the body holding it was dropped.
struct DropMark(String);

impl Drop for DropMark {
    fn drop(&mut self) {
        if let Some(dir) = std::env::var_os("LOCAL_TOOLS_MARKS") {
            let at = thread_name();
            let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{}.dropped", self.0)), at);
        }
    }
}

/// Hold an `Rc` and wait forever; when the call is stopped (cancelled, past the deadline, its
/// connection gone) the body is dropped, and says so under `label`.
#[toolwire::tool(read_only, local)]
async fn forever(label: String) -> String {
    let _mark = DropMark(label);
    let _not_send = Rc::new(());
    std::future::pending::<()>().await;
    "never".to_owned()
}

/// Panic after an await, holding an `Rc`.
#[toolwire::tool(read_only, local)]
async fn boom() -> String {
    let held = Rc::new("the local body gave up");
    tokio::task::yield_now().await;
    panic!("{}", *held)
}

/// The name of the thread this sync `local` body runs on.
#[toolwire::tool(read_only, local)]
fn whereabouts() -> String {
    thread_name()
}

fn main() {
    toolwire::serve_registry!(name = "local-tools", tools = [tally, forever, boom, whereabouts]);
}
