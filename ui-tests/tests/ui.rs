//! The `#[tool]`, `tools![]` diagnostics and supported shapes, as trybuild cases.
//!
//! Regenerate `.stderr` snapshots only with `TRYBUILD=overwrite`, then review the diff: each
//! one is the message a user reads.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
    t.compile_fail("fail/**/*.rs");
}
