//! The machine-readable line each measurement prints: `bench k1=v1 k2=v2 ...`, one per run.
//!
//! Values never contain spaces. `run.sh` appends these lines to a raw file; the `report`
//! binary reads them back with [`Record::parse`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One run's figures, keyed by name, in insertion order when printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    fields: Vec<(String, String)>,
}

impl Record {
    /// An empty record.
    pub fn new() -> Self {
        Record::default()
    }

    /// Add a field; spaces in the value are replaced by `_` so the line stays splittable.
    pub fn set(&mut self, key: &str, value: impl ToString) -> &mut Self {
        let value = value.to_string().replace(' ', "_");
        self.fields.retain(|(k, _)| k != key);
        self.fields.push((key.to_owned(), value));
        self
    }

    /// A field's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// A field's value as a number.
    pub fn num(&self, key: &str) -> Option<f64> {
        self.get(key)?.parse().ok()
    }

    /// The line `bench k=v ...` (no newline).
    pub fn line(&self) -> String {
        let mut s = String::from("bench");
        for (k, v) in &self.fields {
            let _ = write!(s, " {k}={v}");
        }
        s
    }

    /// Read a line printed by [`line`](Record::line); `None` for any other line.
    pub fn parse(line: &str) -> Option<Record> {
        let rest = line.trim().strip_prefix("bench ")?;
        let mut r = Record::new();
        for part in rest.split_whitespace() {
            let (k, v) = part.split_once('=')?;
            r.fields.push((k.to_owned(), v.to_owned()));
        }
        Some(r)
    }

    /// The fields as a sorted map.
    pub fn to_map(&self) -> BTreeMap<&str, &str> {
        self.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back() {
        let mut r = Record::new();
        r.set("case", "rmcp echo").set("rps", 1234.5);
        assert_eq!(r.line(), "bench case=rmcp_echo rps=1234.5");
        let back = Record::parse(&r.line()).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.num("rps"), Some(1234.5));
        assert!(Record::parse("something else").is_none());
    }
}
