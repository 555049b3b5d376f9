//! The request headers the transport reads, found in one pass over the map.
//!
//! A POST used to look up each header by name: `Host` and `Origin` (the guard),
//! `Authorization`, `Accept` and `Content-Type`, `Content-Length`, `MCP-Protocol-Version` and
//! `Mcp-Session-Id` (twice). Each look-up hashes the name and probes the map: some 1,800
//! instructions a request (callgrind, bench/findings.md). [`Heads::of`] walks the map once
//! and keeps, for each of them, the value `HeaderMap::get` gives (the first) and whether
//! another follows.

use axum::http::{HeaderMap, HeaderValue};

use super::names;

/// One header's first value, and whether the request carries more than one.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Seen<'a> {
    /// The first value: what `HeaderMap::get` gives.
    pub(crate) first: Option<&'a HeaderValue>,
    /// A second value followed (the same name twice, or one name with two values).
    pub(crate) repeated: bool,
}

impl<'a> Seen<'a> {
    fn note(&mut self, value: &'a HeaderValue) {
        match self.first {
            None => self.first = Some(value),
            Some(_) => self.repeated = true,
        }
    }

    /// The first value as text, when it is visible ASCII.
    pub(crate) fn text(&self) -> Option<&'a str> {
        self.first.and_then(|v| v.to_str().ok())
    }
}

/// The headers the transport reads of one request, and the map for any other.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Heads<'a> {
    /// The whole map: `Accept` when it is given more than once, `Mcp-Param-*`, `Last-Event-ID`.
    pub(crate) map: &'a HeaderMap,
    pub(crate) host: Seen<'a>,
    pub(crate) origin: Seen<'a>,
    pub(crate) authorization: Seen<'a>,
    pub(super) accept: Seen<'a>,
    pub(super) content_type: Seen<'a>,
    pub(super) content_length: Seen<'a>,
    pub(crate) protocol_version: Seen<'a>,
    pub(super) session_id: Seen<'a>,
    pub(super) method: Seen<'a>,
    pub(super) name: Seen<'a>,
}

impl<'a> Heads<'a> {
    /// Walk `map` once. Header names are lower case in a `HeaderMap`, so they are compared
    /// as they are.
    pub(crate) fn of(map: &'a HeaderMap) -> Heads<'a> {
        let mut heads = Heads {
            map,
            host: Seen::default(),
            origin: Seen::default(),
            authorization: Seen::default(),
            accept: Seen::default(),
            content_type: Seen::default(),
            content_length: Seen::default(),
            protocol_version: Seen::default(),
            session_id: Seen::default(),
            method: Seen::default(),
            name: Seen::default(),
        };
        for (name, value) in map {
            let seen = match name.as_str() {
                "host" => &mut heads.host,
                "origin" => &mut heads.origin,
                "authorization" => &mut heads.authorization,
                "accept" => &mut heads.accept,
                "content-type" => &mut heads.content_type,
                "content-length" => &mut heads.content_length,
                names::PROTOCOL_VERSION => &mut heads.protocol_version,
                names::SESSION_ID => &mut heads.session_id,
                names::METHOD => &mut heads.method,
                names::NAME => &mut heads.name,
                _ => continue,
            };
            seen.note(value);
        }
        heads
    }

    /// The legacy session the request names (`Mcp-Session-Id`), when it is text.
    pub(crate) fn session_id(&self) -> Option<&'a str> {
        self.session_id.text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::http::read::names::MCP_SESSION_ID;
    use axum::http::{HeaderName, header};

    const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static(names::PROTOCOL_VERSION);
    const MCP_METHOD: HeaderName = HeaderName::from_static(names::METHOD);
    const MCP_NAME: HeaderName = HeaderName::from_static(names::NAME);

    /// Every header `Heads` keeps, with the name it is found by.
    fn kept<'h>(heads: &Heads<'h>) -> [(HeaderName, Seen<'h>); 10] {
        [
            (header::HOST, heads.host),
            (header::ORIGIN, heads.origin),
            (header::AUTHORIZATION, heads.authorization),
            (header::ACCEPT, heads.accept),
            (header::CONTENT_TYPE, heads.content_type),
            (header::CONTENT_LENGTH, heads.content_length),
            (MCP_PROTOCOL_VERSION, heads.protocol_version),
            (MCP_SESSION_ID, heads.session_id),
            (MCP_METHOD, heads.method),
            (MCP_NAME, heads.name),
        ]
    }

    /// What one pass finds is what a look-up by name finds: the first value, and whether
    /// there is a second.
    fn agrees_with_lookups(map: &HeaderMap) {
        let heads = Heads::of(map);
        for (name, seen) in kept(&heads) {
            assert_eq!(seen.first, map.get(&name), "{name}");
            assert_eq!(seen.repeated, map.get_all(&name).iter().count() > 1, "{name}");
        }
    }

    #[test]
    fn one_pass_finds_what_lookups_find() {
        let mut map = HeaderMap::new();
        agrees_with_lookups(&map);
        for (name, value) in [
            ("Host", "127.0.0.1:8080"),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("X-Other", "ignored"),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Authorization", "Bearer t"),
            ("Mcp-Session-Id", "abc"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "echo"),
            ("Content-Length", "12"),
            ("Origin", "http://localhost"),
        ] {
            map.append(HeaderName::from_bytes(name.as_bytes()).unwrap(), HeaderValue::from_static(value));
            agrees_with_lookups(&map);
        }
        // Each kept header given a second time, under its own spelling, after others.
        for (name, _) in kept(&Heads::of(&map.clone())) {
            map.append(name, HeaderValue::from_static("second"));
            agrees_with_lookups(&map);
        }
        let heads = Heads::of(&map);
        assert_eq!(heads.host.text(), Some("127.0.0.1:8080"));
        assert_eq!(heads.session_id(), Some("abc"));
        assert!(heads.accept.repeated && heads.host.repeated);
    }

    #[test]
    fn a_value_that_is_not_text_is_seen_but_reads_as_none() {
        let mut map = HeaderMap::new();
        map.insert(MCP_SESSION_ID, HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap());
        let heads = Heads::of(&map);
        assert!(heads.session_id.first.is_some());
        assert_eq!(heads.session_id(), None);
    }
}
