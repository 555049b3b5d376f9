//! [`ByName`]: values kept by a name, in the names' order, in one sorted `Vec`.
//!
//! The registries and the engine's output checks are keyed by names (tool and prompt names,
//! resource URIs) and are read far more often than they change: a handful to a few
//! thousand entries, filled once at start and looked up on every call. A sorted `Vec` serves
//! that as well as a `BTreeMap` (a binary search over contiguous entries; in order to list)
//! and costs far less code: each `BTreeMap<String, V>` a crate instantiates brings some
//! 8,000 to 26,000 lines of LLVM IR (node splits and merges, leaf ranges, entries), which
//! every user's first build of toolwire compiled (bench/findings.md, session 22). Inserting
//! or removing is `O(n)` moves, harmless at these sizes and in name order (how registries are
//! usually filled) an append.
//!
//! Names compare as `str` does (byte-wise), the order `BTreeMap<String, _>` keeps.

use std::fmt;

/// Values keyed by distinct names, iterated in the names' order.
#[derive(Clone)]
pub struct ByName<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for ByName<V> {
    fn default() -> Self {
        ByName { entries: Vec::new() }
    }
}

impl<V: fmt::Debug> fmt::Debug for ByName<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V> ByName<V> {
    /// Where `name` is (`Ok`), or where it would go (`Err`).
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    /// The value called `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    /// Whether there is a value called `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Keep `value` under `name`; the value it replaces, if there was one.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (name, value));
                None
            }
        }
    }

    /// Take out the value called `name`.
    pub fn remove(&mut self, name: &str) -> Option<V> {
        self.find(name).ok().map(|i| self.entries.remove(i).1)
    }

    /// The names and values, in name order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &V)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The names, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// The values, in their names' order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values, in their names' order, taken.
    pub fn into_values(self) -> impl ExactSizeIterator<Item = V> {
        self.entries.into_iter().map(|(_, v)| v)
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<V> FromIterator<(String, V)> for ByName<V> {
    /// As `BTreeMap` collects: a name given twice keeps the later value.
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        let mut by = ByName::default();
        for (name, value) in entries {
            by.insert(name, value);
        }
        by
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::ByName;

    /// The same operations on a `BTreeMap` and a `ByName` leave the same contents, in the same
    /// order, with the same answers on the way (names where UTF-8 byte order matters).
    #[test]
    fn keeps_what_a_btree_map_keeps() {
        let mut map = BTreeMap::new();
        let mut by = ByName::default();
        let names = ["b", "a", "é", "Z", "", "ab", "a", "zz", "b", "ü", "aa"];
        for (i, name) in names.iter().enumerate() {
            assert_eq!(by.insert(name.to_string(), i), map.insert(name.to_string(), i), "insert {name:?}");
        }
        for name in ["a", "nope", "", "ü"] {
            assert_eq!(by.get(name), map.get(name), "get {name:?}");
            assert_eq!(by.contains_key(name), map.contains_key(name));
        }
        assert_eq!(by.remove("ab"), map.remove("ab"));
        assert_eq!(by.remove("ab"), None);
        assert_eq!(by.insert("zz".into(), 100), map.insert("zz".into(), 100));
        assert_eq!(by.keys().collect::<Vec<_>>(), map.keys().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(by.values().collect::<Vec<_>>(), map.values().collect::<Vec<_>>());
        assert_eq!(
            by.iter().collect::<Vec<_>>(),
            map.iter().map(|(k, v)| (k.as_str(), v)).collect::<Vec<_>>()
        );
        assert_eq!(by.len(), map.len());
        assert_eq!(format!("{by:?}"), format!("{map:?}"));
        let pairs = || names.iter().enumerate().map(|(i, n)| (n.to_string(), i));
        let collected: ByName<usize> = pairs().collect();
        let expected: BTreeMap<String, usize> = pairs().collect();
        assert_eq!(
            collected.iter().collect::<Vec<_>>(),
            expected.iter().map(|(k, v)| (k.as_str(), v)).collect::<Vec<_>>()
        );
        assert_eq!(by.into_values().collect::<Vec<_>>(), map.into_values().collect::<Vec<_>>());
    }
}
