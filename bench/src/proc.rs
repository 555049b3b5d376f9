//! Facts about a child process the bench measures (Linux `/proc`), and a bounded wait for
//! its exit.

use std::process::Child;
use std::time::{Duration, Instant};

/// The resident set of process `pid`, in KiB.
pub fn rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmRSS:")
}

/// A `kB` field of `/proc/<pid>/status` (`VmRSS:`, `RssAnon:`, `RssFile:`).
pub fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The shared libraries process `pid` has mapped (file names, as `libm.so.6`), sorted, the
/// dynamic loader included: what its resident set holds besides the binary.
pub fn mapped_libraries(pid: u32) -> Option<Vec<String>> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    let mut libs: Vec<String> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter_map(|path| path.rsplit('/').next())
        .filter(|name| name.contains(".so"))
        .map(str::to_owned)
        .collect();
    libs.sort();
    libs.dedup();
    Some(libs)
}

/// Wait for the child to exit (after its stdin closed); kill it after `limit`.
/// Returns the exit code, or -1 if it had to be killed or died by a signal.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> i32 {
    let start = Instant::now();
    while start.elapsed() < limit {
        match child.try_wait() {
            Ok(Some(status)) => return status.code().unwrap_or(-1),
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    -1
}
