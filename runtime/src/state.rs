//! [`State<T>`]: a value a registry is given once and every call of its tools is handed, and
//! [`StateMap`], the values a registry holds, one per type.
//!
//! A `#[tool]` parameter `db: State<Pool>` is injected (it implements
//! [`FromContext`](crate::inject::FromContext)), so it is left out of the schema. Its tool
//! declares that it needs a `Pool` ([`ToolInfo::state_needs`](crate::tool::ToolInfo::state_needs)),
//! and a registry refuses the tool when it was not given one: the mistake surfaces when the
//! registry is built, never on a call. `#[toolbox]` methods reach their `&self` the same way.
//!
//! Nothing here knows about tools; the layers above (`context`, `inject`, `registry`) use it.

use std::any::{Any, TypeId};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A shared value of type `T` that a tool is handed on every call.
///
/// Give the registry the value (`tools![query; state = [pool]]`, or
/// [`ToolRegistry::add_state`](crate::registry::ToolRegistry::add_state)); take it in a tool
/// by naming `State<T>` as a parameter. It derefs to `T`. All calls share one `T` (held in an
/// [`Arc`]), so mutable state needs its own lock or atomics inside `T`.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use toolwire::registry::RegistryError;
/// use toolwire::state::State;
///
/// #[derive(Default)]
/// struct Counter(AtomicU64);
///
/// /// Count the calls so far.
/// #[toolwire::tool]
/// fn bump(counter: State<Counter>) -> String {
///     (counter.0.fetch_add(1, Ordering::Relaxed) + 1).to_string()
/// }
///
/// let registry = toolwire::tools![bump; state = [Counter::default()]]?;
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["bump"]);
///
/// // Without the state, the registry is refused when it is built, naming the tool and type.
/// let err = toolwire::tools![bump].unwrap_err();
/// let RegistryError::MissingState { tool, type_name } = &err else { panic!("{err}") };
/// assert_eq!((tool.as_str(), type_name.rsplit("::").next()), ("bump", Some("Counter")));
/// assert!(err.to_string().starts_with("tool 'bump' needs state `"));
/// # Ok::<(), toolwire::registry::RegistryError>(())
/// ```
pub struct State<T: ?Sized + Send + Sync + 'static>(Arc<T>);

impl<T: ?Sized + Send + Sync + 'static> State<T> {
    /// Wrap a shared value.
    pub fn new(value: Arc<T>) -> Self {
        State(value)
    }

    /// The shared value itself.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized + Send + Sync + 'static> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized + Send + Sync + 'static> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + Send + Sync + 'static + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// That a tool needs a state value of one type: what a registry checks when the tool is added.
#[derive(Clone, Copy)]
pub struct StateNeed {
    type_id: fn() -> TypeId,
    type_name: &'static str,
}

impl StateNeed {
    /// The need for a `T`.
    pub fn of<T: Send + Sync + 'static>() -> Self {
        StateNeed { type_id: TypeId::of::<T>, type_name: std::any::type_name::<T>() }
    }

    /// The type's id.
    pub fn type_id(&self) -> TypeId {
        (self.type_id)()
    }

    /// The type's name, as `std::any::type_name` writes it.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

impl PartialEq for StateNeed {
    fn eq(&self, other: &Self) -> bool {
        self.type_id() == other.type_id()
    }
}

impl Eq for StateNeed {}

impl fmt::Debug for StateNeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateNeed({})", self.type_name)
    }
}

/// One state value, with its type's name kept for messages.
#[derive(Clone)]
struct Entry {
    type_id: TypeId,
    type_name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

/// The state values a registry holds, at most one per type.
///
/// Looked up by [`TypeId`] in a short vector: a registry holds a handful of values, and a call
/// that takes one pays a few comparisons and a reference-count increment.
#[derive(Clone, Default)]
pub struct StateMap {
    entries: Vec<Entry>,
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|e| e.type_name)).finish()
    }
}

/// A second value of a type a [`StateMap`] already holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlreadyProvided {
    /// The type's name.
    pub type_name: &'static str,
}

impl StateMap {
    /// No values.
    pub fn new() -> Self {
        StateMap::default()
    }

    /// Add `value`, refusing a second value of the same type (one would silently shadow the
    /// other).
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Result<(), AlreadyProvided> {
        self.insert_arc(Arc::new(value))
    }

    /// Add a value that is already shared.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) -> Result<(), AlreadyProvided> {
        let type_name = std::any::type_name::<T>();
        if self.contains(TypeId::of::<T>()) {
            return Err(AlreadyProvided { type_name });
        }
        self.entries.push(Entry { type_id: TypeId::of::<T>(), type_name, value });
        Ok(())
    }

    /// Add every value of `other`, refusing a type both hold.
    pub fn extend(&mut self, other: &StateMap) -> Result<(), AlreadyProvided> {
        for e in &other.entries {
            if self.contains(e.type_id) {
                return Err(AlreadyProvided { type_name: e.type_name });
            }
        }
        self.entries.extend(other.entries.iter().cloned());
        Ok(())
    }

    /// Whether a value of the type `id` is held.
    pub fn contains(&self, id: TypeId) -> bool {
        self.entries.iter().any(|e| e.type_id == id)
    }

    /// The value of type `T`, if one is held.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let id = TypeId::of::<T>();
        let entry = self.entries.iter().find(|e| e.type_id == id)?;
        Arc::clone(&entry.value).downcast::<T>().ok().map(State)
    }

    /// The names of the held types, in the order they were added.
    pub fn type_names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.entries.iter().map(|e| e.type_name)
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type_and_lookup_by_type() {
        let mut map = StateMap::new();
        map.insert(7u32).unwrap();
        map.insert(String::from("pool")).unwrap();
        assert_eq!(map.insert(8u32), Err(AlreadyProvided { type_name: "u32" }));
        assert_eq!(*map.get::<u32>().unwrap(), 7);
        assert_eq!(&*map.get::<String>().unwrap(), "pool");
        assert!(map.get::<u64>().is_none());
        assert_eq!(map.type_names().collect::<Vec<_>>(), ["u32", "alloc::string::String"]);

        let mut other = StateMap::new();
        other.insert(1u32).unwrap();
        assert_eq!(map.extend(&other), Err(AlreadyProvided { type_name: "u32" }));
        assert_eq!(StateNeed::of::<u32>(), StateNeed::of::<u32>());
        assert_ne!(StateNeed::of::<u32>(), StateNeed::of::<u64>());
    }
}
