//! Example binaries live in `src/bin/`; tools they share with the tests live here.

pub mod example_tools;
pub mod intercept_demo;
pub mod talk_tools;
pub mod tour_surface;
