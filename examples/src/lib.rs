//! Example binaries live in `src/bin/`.
