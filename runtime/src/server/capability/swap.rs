//! [`Swap`]: what a capability serves (its registry and its pre-serialised pages), either
//! fixed for the life of the server or replaceable while it serves.
//!
//! A server that never changes ([`Swap::Fixed`]) reads its set with no synchronisation at
//! all: `tools/call` and `tools/list` cost what they cost before live registries existed. A
//! live server ([`Swap::Live`]) keeps the set behind an `RwLock<Arc<_>>`: a reader takes the
//! lock only to clone the `Arc` (a few atomic operations, no allocation, never held across
//! user code), and a change builds the whole new set outside the lock, then swaps it in
//! under the write lock. A reader therefore sees the old set or the new one, never a mix,
//! and a call that cloned an `Arc` of its tool finishes on that tool whatever is swapped in
//! meanwhile. Changes are serialised by their own mutex, so two `add`s never lose one
//! another.

use std::ops::Deref;
use std::sync::{Arc, Mutex, RwLock};

use crate::sync::{lock, read_lock, write_lock};

/// A set that is fixed, or swapped whole on change.
pub(crate) enum Swap<T> {
    /// Never changes.
    Fixed(Arc<T>),
    /// May be replaced while serving.
    Live {
        /// The current set.
        current: RwLock<Arc<T>>,
        /// Held while a change is built, so changes apply one after another.
        writer: Mutex<()>,
    },
}

/// The set as loaded: borrowed from a fixed [`Swap`], or an `Arc` of the live one's current
/// set.
pub(crate) enum Loaded<'a, T> {
    Borrowed(&'a T),
    Owned(Arc<T>),
}

impl<T> Deref for Loaded<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Loaded::Borrowed(t) => t,
            Loaded::Owned(t) => t,
        }
    }
}

impl<T> Swap<T> {
    /// `value`, replaceable when `live`.
    pub(crate) fn new(value: T, live: bool) -> Swap<T> {
        if live {
            Swap::Live { current: RwLock::new(Arc::new(value)), writer: Mutex::new(()) }
        } else {
            Swap::Fixed(Arc::new(value))
        }
    }

    /// Whether the set can change.
    pub(crate) fn is_live(&self) -> bool {
        matches!(self, Swap::Live { .. })
    }

    /// The current set.
    pub(crate) fn load(&self) -> Loaded<'_, T> {
        match self {
            Swap::Fixed(t) => Loaded::Borrowed(t),
            Swap::Live { current, .. } => Loaded::Owned(Arc::clone(&read_lock(current))),
        }
    }

    /// Replace the set with what `change` makes of the current one, when it makes one
    /// (`Ok(Some)`); `Ok(None)` leaves it as it is. `None` when the set is fixed.
    pub(crate) fn update<E>(
        &self,
        change: impl FnOnce(&T) -> Result<Option<T>, E>,
    ) -> Option<Result<bool, E>> {
        let Swap::Live { current, writer } = self else { return None };
        let _one_at_a_time = lock(writer);
        let old = Arc::clone(&read_lock(current));
        Some(match change(&old) {
            Ok(Some(new)) => {
                *write_lock(current) = Arc::new(new);
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_set_never_changes_and_a_live_one_swaps_whole() {
        let fixed = Swap::new(vec![1], false);
        assert!(fixed.update(|_| Ok::<_, ()>(Some(vec![2]))).is_none());
        assert_eq!(*fixed.load(), [1]);

        let live = Swap::new(vec![1], true);
        let before = live.load();
        assert_eq!(live.update(|v| Ok::<_, ()>(Some([v.as_slice(), &[2]].concat()))), Some(Ok(true)));
        // A reader that loaded before the change keeps what it loaded.
        assert_eq!(*before, [1]);
        assert_eq!(*live.load(), [1, 2]);
        assert_eq!(live.update(|_| Ok::<_, ()>(None)), Some(Ok(false)));
        assert_eq!(live.update(|_| Err::<Option<Vec<i32>>, _>("no")), Some(Err("no")));
        assert_eq!(*live.load(), [1, 2]);
    }
}
