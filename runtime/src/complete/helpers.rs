//! Ready-made completers: a fixed list by prefix ([`Fixed`]), and adapters that make a
//! plain fn a [`Complete`] ([`from_fn`], [`from_async_fn`]).

use std::future::Future;

use super::{Complete, Completion, CompletionFuture, CompletionRequest, IntoCompletion};

/// The values of `values` that start with `prefix`, compared without regard to ASCII case,
/// in their order.
pub fn prefix_matches<'a, I, S>(values: I, prefix: &str) -> Vec<String>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    values
        .into_iter()
        .map(AsRef::as_ref)
        .filter(|v| {
            v.len() >= prefix.len()
                && v.is_char_boundary(prefix.len())
                && v[..prefix.len()].eq_ignore_ascii_case(prefix)
        })
        .map(str::to_owned)
        .collect()
}

/// A fixed list of values, offered by prefix ([`prefix_matches`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    values: Vec<String>,
}

impl Fixed {
    /// Offer `values`, in this order.
    pub fn new<I, S>(values: I) -> Fixed
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Fixed { values: values.into_iter().map(Into::into).collect() }
    }

    /// The values offered.
    pub fn values(&self) -> &[String] {
        &self.values
    }
}

impl Complete for Fixed {
    fn complete(&self, request: CompletionRequest) -> CompletionFuture<'_> {
        let found = Completion::of(prefix_matches(&self.values, &request.value));
        Box::pin(std::future::ready(found))
    }
}

/// A sync fn as a completer.
struct SyncFn<F>(F);

impl<F, R> Complete for SyncFn<F>
where
    F: Fn(CompletionRequest) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    fn complete(&self, request: CompletionRequest) -> CompletionFuture<'_> {
        let found = (self.0)(request).into_completion();
        Box::pin(std::future::ready(found))
    }
}

/// An async fn as a completer.
struct AsyncFn<F>(F);

impl<F, Fut> Complete for AsyncFn<F>
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn complete(&self, request: CompletionRequest) -> CompletionFuture<'_> {
        let fut = (self.0)(request);
        Box::pin(async move { fut.await.into_completion() })
    }
}

/// `f` as a completer: `fn(CompletionRequest) -> Completion` (or `-> Vec<String>`).
///
/// ```
/// use toolwire::complete::{CompletionRequest, from_fn, prefix_matches};
///
/// let words = from_fn(|r: CompletionRequest| prefix_matches(["alpha", "beta"], &r.value));
/// # let _ = words;
/// ```
pub fn from_fn<F, R>(f: F) -> impl Complete
where
    F: Fn(CompletionRequest) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    SyncFn(f)
}

/// `f` as a completer: `async fn(CompletionRequest) -> Completion` (or `-> Vec<String>`).
pub fn from_async_fn<F, Fut>(f: F) -> impl Complete
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    AsyncFn(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(c: &dyn Complete, value: &str) -> Completion {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(c.complete(CompletionRequest::new("a", value)))
    }

    #[test]
    fn prefixes_ignore_ascii_case_and_keep_the_order() {
        assert_eq!(prefix_matches(["Rust", "ruby", "go"], "ru"), ["Rust", "ruby"]);
        assert_eq!(prefix_matches(["é", "e"], "e"), ["e"]);
        assert!(prefix_matches(["a"], "ab").is_empty());
        assert_eq!(prefix_matches(["a", "b"], ""), ["a", "b"]);
    }

    #[test]
    fn fns_sync_and_async_complete() {
        assert_eq!(run(&Fixed::new(["go", "rust"]), "r").values, ["rust"]);
        let sync = from_fn(|r: CompletionRequest| vec![format!("{}!", r.value)]);
        assert_eq!(run(&sync, "hi").values, ["hi!"]);
        let not_async = from_async_fn(|r: CompletionRequest| async move { Completion::of([r.value]) });
        assert_eq!(run(&not_async, "x").values, ["x"]);
    }
}
