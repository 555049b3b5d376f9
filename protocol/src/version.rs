//! MCP protocol versions and the two eras they fall into.
//!
//! - **Legacy** (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25): a session starts with the
//!   `initialize` handshake, which fixes one version for the whole session.
//! - **Modern** (2026-07-28): stateless; every request names its version in
//!   `_meta["io.modelcontextprotocol/protocolVersion"]`.

use std::fmt;

/// The era a protocol version belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Era {
    /// Handshake-based versions: `initialize` fixes the version for the session.
    Legacy,
    /// Stateless versions: each request carries its version and client capabilities in `_meta`.
    Modern,
}

/// An MCP protocol version this crate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`, the first published revision.
    V2024_11_05,
    /// `2025-03-26`: annotations, JSON-RPC batches (receiving them is required).
    V2025_03_26,
    /// `2025-06-18`: structured tool output; batches removed.
    V2025_06_18,
    /// `2025-11-25`: the last handshake-based revision.
    V2025_11_25,
    /// `2026-07-28`: the stateless, per-request-`_meta` revision.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every supported version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest version of all.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The newest handshake-based version: what `initialize` counter-offers for a version it
    /// does not know.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The version's wire name, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The version called `name`, if this crate speaks it.
    pub fn parse(name: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// Which era the version belongs to.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether a peer speaking this version may send JSON-RPC batch arrays. Only 2025-03-26
    /// has them: it requires receivers to accept them, and 2025-06-18 removed them again.
    pub const fn allows_batches(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// The supported versions of `era`, newest first.
    pub fn of_era(era: Era) -> impl Iterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().rev().filter(move |v| v.era() == era)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_eras_split_at_2026() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert_eq!(ProtocolVersion::parse("2025-11-26"), None);
        let legacy: Vec<_> = ProtocolVersion::of_era(Era::Legacy).map(|v| v.as_str()).collect();
        assert_eq!(legacy, ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
        let modern: Vec<_> = ProtocolVersion::of_era(Era::Modern).map(|v| v.as_str()).collect();
        assert_eq!(modern, ["2026-07-28"]);
        assert_eq!(ProtocolVersion::LATEST_LEGACY.era(), Era::Legacy);
        assert!(ProtocolVersion::V2025_03_26.allows_batches());
        assert!(!ProtocolVersion::V2025_06_18.allows_batches());
    }
}
