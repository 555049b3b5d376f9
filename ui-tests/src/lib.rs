//! trybuild cases live in `pass/` and `fail/`; see `tests/ui.rs`.
