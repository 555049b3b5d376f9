//! Serving a registry as a program: what `serve_registry!` expands to (`cli`).

pub(crate) mod cli;
