//! `toolwire-echo` built with toolwire's `multi-thread` feature, so its `serve_registry!`
//! main takes `--worker-threads N` (run.sh's `toolwire-mt` row: every call spawned onto a
//! worker of a multi-threaded runtime). A binary of its own, built on its own: `toolwire-echo`
//! is built as a tools-only crate is, without the multi-threaded runtime (and so without
//! libm). The same tool and the same main, `toolwire-echo`'s own.

#[path = "toolwire-echo.rs"]
mod echo;

fn main() {
    echo::main()
}
