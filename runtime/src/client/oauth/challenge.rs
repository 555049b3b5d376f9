//! A `WWW-Authenticate` header's `Bearer` (or `DPoP`, RFC 9449) challenge (RFC 6750 §3, RFC 9728 §5.1): its
//! `resource_metadata`, `scope` and `error` parameters.

/// What a `Bearer` challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// The protected resource metadata URL (RFC 9728).
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated.
    pub(crate) scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, ...
    pub(crate) error: Option<String>,
    /// Whether the header offers the `DPoP` scheme (RFC 9449 §7.1): the resource takes
    /// DPoP-bound tokens.
    pub(crate) offers_dpop: bool,
}

impl Challenge {
    /// The `Bearer` challenge in `header` (a header may list several challenges, of several
    /// schemes); the first `Bearer` one, or an empty challenge when there is none.
    pub(crate) fn parse(header: &str) -> Challenge {
        let mut out = Challenge::default();
        let mut in_bearer = false;
        let mut rest = header.trim();
        while !rest.is_empty() {
            // A token: either a scheme (followed by space or end) or a parameter name (`=`).
            let end = rest.find(|c: char| c == '=' || c == ',' || c.is_whitespace()).unwrap_or(rest.len());
            let token = &rest[..end];
            let after = rest[end..].trim_start();
            if let Some(value_part) = after.strip_prefix('=') {
                let (value, remaining) = read_value(value_part.trim_start());
                if in_bearer {
                    match token.to_ascii_lowercase().as_str() {
                        "resource_metadata" => out.resource_metadata = Some(value),
                        "scope" => out.scope = Some(value),
                        "error" => out.error = Some(value),
                        _ => {}
                    }
                }
                rest = remaining.trim_start().trim_start_matches(',').trim_start();
            } else {
                if token.eq_ignore_ascii_case("dpop") {
                    out.offers_dpop = true;
                }
                if !token.is_empty() {
                    // A new scheme; a second Bearer (or DPoP) challenge is not read.
                    if in_bearer && out != Challenge::default() {
                        break;
                    }
                    in_bearer = token.eq_ignore_ascii_case("bearer") || token.eq_ignore_ascii_case("dpop");
                }
                rest = after.trim_start_matches(',').trim_start();
                if token.is_empty() && after.len() == rest.len() {
                    break;
                }
            }
        }
        out
    }

    /// The challenged scopes, one by one.
    pub(crate) fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(split_scopes).unwrap_or_default()
    }
}

/// A space-separated scope list as its scopes.
pub(crate) fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_whitespace().map(str::to_owned).collect()
}

/// A parameter's value (a quoted string with `\` escapes, or a token) and what follows it.
fn read_value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                c => value.push(c),
            }
        }
        (value, "")
    } else {
        let end = s.find(|c: char| c == ',' || c.is_whitespace()).unwrap_or(s.len());
        (s[..end].to_owned(), &s[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bearer_parameters() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \"write\"""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scopes(), ["files:read", "files:write"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
    }

    #[test]
    fn tokens_other_schemes_and_case() {
        let c =
            Challenge::parse(r#"Basic realm="x", bearer scope=mcp:basic, Resource_Metadata="http://a/b""#);
        assert_eq!(c.scope.as_deref(), Some("mcp:basic"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://a/b"));
        // A Basic challenge's parameters are not a Bearer's.
        assert_eq!(Challenge::parse(r#"Basic scope="x""#), Challenge::default());
        assert_eq!(Challenge::parse("Bearer"), Challenge::default());
        assert_eq!(Challenge::parse(""), Challenge::default());
        assert_eq!(Challenge::parse(r#"Bearer scope="unterminated"#).scope.as_deref(), Some("unterminated"));
        assert!(!Challenge::parse(r#"Bearer scope="x""#).offers_dpop);
    }

    #[test]
    fn a_dpop_challenge_is_read_and_noticed() {
        let c = Challenge::parse(r#"DPoP error="use_dpop_nonce", resource_metadata="http://a/b""#);
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://a/b"));
        assert!(c.offers_dpop);
        let both = Challenge::parse(r#"Bearer scope="mcp", DPoP algs="ES256""#);
        assert_eq!(both.scope.as_deref(), Some("mcp"));
        assert!(both.offers_dpop);
    }
}
