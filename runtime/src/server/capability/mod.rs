//! What a server serves, one module per capability (`tools`, `resources`, `prompts`,
//! `completion`, `logging`) or extension (`skills`, SEP-2640), and what they share: pre-serialised list pages (`listing`), a
//! set fixed or swapped whole (`swap`), and the output check of hand-written tools
//! (`output_check`).

pub(super) mod completion;
pub(super) mod listing;
pub(super) mod logging;
pub(super) mod output_check;
pub(super) mod prompts;
pub(super) mod resources;
pub(super) mod skills;
pub(super) mod swap;
pub(super) mod tools;
