//! Completion: what `completion/complete` answers for a prompt's argument or a resource
//! template's variable.
//!
//! A completer is anything that implements [`Complete`]: given the partial value the user
//! typed and the other arguments already filled in (a [`CompletionRequest`]), it gives the
//! suggestions (a [`Completion`]). Plain fns become completers through [`from_fn`] (sync)
//! and [`from_async_fn`] (async); [`Fixed`] offers a fixed list by prefix, which is also
//! what an enum argument of `#[prompt]` gets by default.
//!
//! [`Completers`] holds them keyed by what they complete: a [`CompletionRef`] (a prompt's
//! name, or a resource template's URI) and the argument's name. The server's
//! `completion/complete` looks the key up there, whoever registered it.
//!
//! ```
//! use toolwire::complete::{Complete, CompletionRequest, Fixed};
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let languages = Fixed::new(["python", "perl", "rust"]);
//! let got = rt.block_on(languages.complete(CompletionRequest::new("language", "p")));
//! assert_eq!(got.values, ["python", "perl"]);
//! assert_eq!((got.total, got.has_more), (Some(2), false));
//! ```

mod helpers;

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use helpers::{Fixed, from_async_fn, from_fn, prefix_matches};

/// The most values one completion answer carries (the spec's limit).
pub const MAX_VALUES: usize = 100;

/// What a completion is for: a prompt or a resource template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum CompletionRef {
    /// `ref/prompt`: a prompt, by name.
    Prompt(String),
    /// `ref/resource`: a resource template, by its URI template.
    ResourceTemplate(String),
}

impl fmt::Display for CompletionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompletionRef::Prompt(name) => write!(f, "prompt '{name}'"),
            CompletionRef::ResourceTemplate(uri) => write!(f, "resource template '{uri}'"),
        }
    }
}

/// One completion request, as a completer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What has been typed so far.
    pub value: String,
    /// The other arguments already filled in (`context.arguments`).
    pub context: BTreeMap<String, String>,
}

impl CompletionRequest {
    /// A request to complete `argument` from `value`, with no other arguments.
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> CompletionRequest {
        CompletionRequest { argument: argument.into(), value: value.into(), context: BTreeMap::new() }
    }

    /// The same request, with `name` already filled in as `value`.
    pub fn with_context(mut self, name: impl Into<String>, value: impl Into<String>) -> CompletionRequest {
        self.context.insert(name.into(), value.into());
        self
    }

    /// An argument already filled in.
    pub fn filled(&self, name: &str) -> Option<&str> {
        self.context.get(name).map(String::as_str)
    }
}

/// A completion answer: at most [`MAX_VALUES`] values, how many there are in all, and
/// whether more exist than were sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Completion {
    /// The suggestions, best first.
    pub values: Vec<String>,
    /// How many suggestions there are in all, when known.
    pub total: Option<u64>,
    /// Whether there are more than `values` holds.
    pub has_more: bool,
}

impl Completion {
    /// No suggestions.
    pub fn empty() -> Completion {
        Completion { values: Vec::new(), total: Some(0), has_more: false }
    }

    /// All of `values`: the first [`MAX_VALUES`] are sent, `total` counts every one, and
    /// `has_more` says whether some were cut.
    pub fn of<I, S>(values: I) -> Completion
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut all: Vec<String> = values.into_iter().map(Into::into).collect();
        let total = all.len();
        all.truncate(MAX_VALUES);
        Completion { has_more: total > all.len(), values: all, total: Some(total as u64) }
    }

    /// Some of a larger set: `values` (cut to [`MAX_VALUES`]), with the completer's own
    /// `total` (when it knows it) and `has_more`.
    pub fn partial(values: Vec<String>, total: Option<u64>, has_more: bool) -> Completion {
        let mut c = Completion { values, total, has_more };
        c.truncate();
        c
    }

    /// Cut to [`MAX_VALUES`], marking `has_more` when anything was cut.
    pub(crate) fn truncate(&mut self) {
        if self.values.len() > MAX_VALUES {
            let len = self.values.len() as u64;
            self.values.truncate(MAX_VALUES);
            self.has_more = true;
            self.total = Some(self.total.map_or(len, |t| t.max(len)));
        }
    }
}

/// What a completer may return: a [`Completion`], or a list of values (all of them; see
/// [`Completion::of`]).
pub trait IntoCompletion {
    /// The answer.
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Completion {
        self
    }
}

impl<S: Into<String>> IntoCompletion for Vec<S> {
    fn into_completion(self) -> Completion {
        Completion::of(self)
    }
}

/// A completer's answer, started.
pub type CompletionFuture<'a> = Pin<Box<dyn Future<Output = Completion> + Send + 'a>>;

/// Something that suggests values for one argument.
pub trait Complete: Send + Sync + 'static {
    /// The suggestions for `request`. The server cuts them to [`MAX_VALUES`] whatever this
    /// returns.
    fn complete(&self, request: CompletionRequest) -> CompletionFuture<'_>;
}

/// Every completer a server has, keyed by what it completes and the argument's name.
#[derive(Clone, Default)]
pub struct Completers {
    map: BTreeMap<(CompletionRef, String), Arc<dyn Complete>>,
}

impl fmt::Debug for Completers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.map.keys()).finish()
    }
}

impl Completers {
    /// None yet.
    pub fn new() -> Completers {
        Completers::default()
    }

    /// Complete `argument` of `target` with `completer` (replacing any earlier one).
    pub fn insert(
        &mut self,
        target: CompletionRef,
        argument: impl Into<String>,
        completer: Arc<dyn Complete>,
    ) {
        self.map.insert((target, argument.into()), completer);
    }

    /// The completer for `argument` of `target`.
    pub fn get(&self, target: &CompletionRef, argument: &str) -> Option<&Arc<dyn Complete>> {
        // A `BTreeMap` of tuples cannot be searched by borrowed parts; the key is small.
        self.map.get(&(target.clone(), argument.to_owned()))
    }

    /// Whether there are none: then the server does not declare `completions`.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Add every completer of `other`.
    pub fn extend(&mut self, other: Completers) {
        self.map.extend(other.map);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_cut_to_one_hundred_and_say_so() {
        let c = Completion::of((0..250).map(|i| i.to_string()));
        assert_eq!(c.values.len(), 100);
        assert_eq!(c.values[99], "99");
        assert_eq!((c.total, c.has_more), (Some(250), true));
        let c = Completion::of(["a"]);
        assert_eq!((c.total, c.has_more), (Some(1), false));
        let c = Completion::partial((0..101).map(|i| i.to_string()).collect(), None, false);
        assert_eq!((c.values.len(), c.total, c.has_more), (100, Some(101), true));
        let c = Completion::partial(vec!["x".into()], Some(7), true);
        assert_eq!((c.total, c.has_more), (Some(7), true));
    }

    #[test]
    fn completers_are_keyed_by_target_and_argument() {
        let mut all = Completers::new();
        assert!(all.is_empty());
        all.insert(CompletionRef::Prompt("review".into()), "language", Arc::new(Fixed::new(["rust"])));
        assert!(all.get(&CompletionRef::Prompt("review".into()), "language").is_some());
        assert!(all.get(&CompletionRef::Prompt("review".into()), "code").is_none());
        assert!(all.get(&CompletionRef::ResourceTemplate("review".into()), "language").is_none());
        assert_eq!(
            CompletionRef::ResourceTemplate("db://{t}".into()).to_string(),
            "resource template 'db://{t}'"
        );
    }
}
