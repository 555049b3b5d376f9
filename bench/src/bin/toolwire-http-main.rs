//! The README's HTTP server as a user writes it: `serve_registry!` in `main`, run with
//! `--http` (and `--show-token`, so the bench can call it). The same echo tools as
//! `toolwire-http` (`src/toolwire_echo.rs`): `echo(text)`, async, and `echo_sync(text)`, the
//! README's sync fn. The runtime is whatever `serve_registry!`'s main picks for `--http` (or
//! `--worker-threads N`). `http-bench` reads the lines `--http` prints and stops it with
//! SIGTERM.

#[path = "../toolwire_echo.rs"]
mod toolwire_echo;

fn main() {
    toolwire::serve_registry!(
        name = "toolwire-bench-http-main",
        tools = [toolwire_echo::echo, toolwire_echo::echo_sync]
    );
}
