//! RFC 6570 URI templates, as far as a resource template needs them: parsing (a bad template
//! is an error naming the position) and matching a URI back to its variables.
//!
//! Two expression kinds are served:
//!
//! - **simple**, `{x}` (and `{x,y}`): a value is one or more characters other than `/`, `?`,
//!   `#` and `,`; it is percent-decoded.
//! - **reserved**, `{+path}`: a value may contain `/` (and anything but `?` and `#`); it is
//!   percent-decoded too.
//!
//! Any other operator (`#`, `.`, `/`, `;`, `?`, `&`) and the value modifiers (`:3`, `*`) are
//! refused at parse time, so a template this module accepts is one it can match.
//!
//! The `#[resource]` macro parses with this same code, so a bad template is a compile error
//! with the same message the runtime gives.

use std::fmt;

use crate::percent::percent_decode;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
    variables: Vec<String>,
}

/// One piece of a template: literal text, or an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expr { reserved: bool, names: Vec<String> },
}

/// Why a URI template was refused: what is wrong, and the byte position it was found at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplateError {
    /// The template as written.
    pub template: String,
    /// The byte offset of the problem in the template.
    pub position: usize,
    /// What is wrong, e.g. `unclosed '{'`.
    pub problem: String,
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad URI template '{}': {} at position {}", self.template, self.problem, self.position)
    }
}

impl std::error::Error for UriTemplateError {}

impl UriTemplate {
    /// Parse `text`.
    ///
    /// ```
    /// use toolwire_grammar::uri_template::UriTemplate; // toolwire::resource::UriTemplate in a toolwire program
    /// let t = UriTemplate::parse("db://tables/{table}/rows/{id}").unwrap();
    /// assert_eq!(t.variables(), ["table", "id"]);
    /// let err = UriTemplate::parse("db://{table").unwrap_err();
    /// assert_eq!(err.to_string(), "bad URI template 'db://{table': unclosed '{' at position 5");
    /// ```
    pub fn parse(text: &str) -> Result<UriTemplate, UriTemplateError> {
        let error = |position: usize, problem: String| UriTemplateError {
            template: text.to_owned(),
            position,
            problem,
        };
        let mut parts = Vec::new();
        let mut variables: Vec<String> = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '}' => return Err(error(at, "'}' without an opening '{'".to_owned())),
                '{' => {
                    let body_start = at + 1;
                    let Some(close) = text[body_start..].find('}').map(|i| body_start + i) else {
                        return Err(error(at, "unclosed '{'".to_owned()));
                    };
                    if let Some(nested) = text[body_start..close].find('{') {
                        return Err(error(body_start + nested, "'{' inside an expression".to_owned()));
                    }
                    let mut body = &text[body_start..close];
                    let mut name_start = body_start;
                    let reserved = body.starts_with('+');
                    if reserved {
                        body = &body[1..];
                        name_start += 1;
                    } else if let Some(op) = body.chars().next().filter(|c| "#./;?&=,!@|".contains(*c)) {
                        return Err(error(
                            body_start,
                            format!("operator '{op}' is not supported (use {{name}} or {{+name}})"),
                        ));
                    }
                    if body.is_empty() {
                        return Err(error(at, "empty expression".to_owned()));
                    }
                    let mut names = Vec::new();
                    for name in body.split(',') {
                        if let Some(bad) = name.find([':', '*']) {
                            return Err(error(
                                name_start + bad,
                                format!("modifier '{}' is not supported", &name[bad..bad + 1]),
                            ));
                        }
                        if name.is_empty() {
                            return Err(error(name_start, "empty variable name".to_owned()));
                        }
                        if let Some((i, bad)) =
                            name.char_indices().find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                        {
                            return Err(error(
                                name_start + i,
                                format!("'{bad}' cannot appear in a variable name (use A-Z a-z 0-9 _)"),
                            ));
                        }
                        if variables.iter().any(|v| v == name) {
                            return Err(error(name_start, format!("variable '{name}' appears twice")));
                        }
                        variables.push(name.to_owned());
                        names.push(name.to_owned());
                        name_start += name.len() + 1;
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    if matches!(parts.last(), Some(Part::Expr { .. })) {
                        return Err(error(
                            at,
                            "two expressions side by side cannot be told apart; put literal text between them"
                                .to_owned(),
                        ));
                    }
                    parts.push(Part::Expr { reserved, names });
                    while chars.peek().is_some_and(|(i, _)| *i <= close) {
                        chars.next();
                    }
                }
                c if c.is_whitespace() || c.is_control() => {
                    return Err(error(at, "whitespace cannot appear in a URI template".to_owned()));
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate { text: text.to_owned(), parts, variables })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its variable names, in the order they appear.
    pub fn variables(&self) -> &[String] {
        &self.variables
    }

    /// Whether it has no expressions (it names one URI).
    pub fn is_fixed(&self) -> bool {
        self.variables.is_empty()
    }

    /// Match `uri` against the template: each variable's percent-decoded value, in
    /// [`variables`](Self::variables) order, or `None` when the URI does not fit.
    ///
    /// ```
    /// use toolwire_grammar::uri_template::UriTemplate; // toolwire::resource::UriTemplate in a toolwire program
    /// let t = UriTemplate::parse("file:///{+path}").unwrap();
    /// let vars = t.match_uri("file:///src/main%20file.rs").unwrap();
    /// assert_eq!(vars, [("path".to_owned(), "src/main file.rs".to_owned())]);
    /// assert!(UriTemplate::parse("db://{table}").unwrap().match_uri("db://a/b").is_none());
    /// ```
    pub fn match_uri(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut raw = Vec::new();
        if !match_parts(&self.parts, uri, &mut raw) {
            return None;
        }
        let mut out = Vec::with_capacity(self.variables.len());
        for (name, value) in raw {
            out.push((name, percent_decode(value)?));
        }
        Some(out)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether `c` may appear in a value of an expression of this kind.
fn allowed(c: char, reserved: bool) -> bool {
    match c {
        '?' | '#' => false,
        '/' | ',' => reserved,
        _ => !c.is_whitespace() && !c.is_control(),
    }
}

/// Match `parts` against all of `rest`, pushing each variable's raw value; backtracks over
/// where each expression ends.
fn match_parts<'u>(parts: &[Part], rest: &'u str, out: &mut Vec<(String, &'u str)>) -> bool {
    let Some((first, more)) = parts.split_first() else { return rest.is_empty() };
    match first {
        Part::Literal(lit) => rest.strip_prefix(lit.as_str()).is_some_and(|r| match_parts(more, r, out)),
        Part::Expr { reserved, names } => {
            // The longest run of allowed characters, then shorter ones.
            let run =
                rest.find(|c| !(allowed(c, *reserved) || names.len() > 1 && c == ',')).unwrap_or(rest.len());
            let mut ends: Vec<usize> = rest[..run].char_indices().map(|(i, c)| i + c.len_utf8()).collect();
            ends.reverse();
            for end in ends {
                let value = &rest[..end];
                let values: Vec<&str> =
                    if names.len() > 1 { value.split(',').collect() } else { vec![value] };
                if values.len() != names.len() || values.iter().any(|v| v.is_empty()) {
                    continue;
                }
                let mark = out.len();
                out.extend(names.iter().cloned().zip(values));
                if match_parts(more, &rest[end..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().match_uri(uri)
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    }

    #[test]
    fn simple_variables_stop_at_slashes_and_are_decoded() {
        assert_eq!(
            vars("db://tables/{table}/rows/{id}", "db://tables/users/rows/42"),
            Some(pairs(&[("table", "users"), ("id", "42")]))
        );
        assert_eq!(vars("db://t/{x}", "db://t/a%2Fb"), Some(pairs(&[("x", "a/b")])));
        assert_eq!(vars("db://t/{x}", "db://t/a/b"), None);
        assert_eq!(vars("db://t/{x}", "db://t/"), None);
        assert_eq!(vars("db://t/{x}", "db://t/a?q"), None);
        assert_eq!(vars("db://t/{x}", "db://t/%zz"), None);
        assert_eq!(vars("db://t/{x}", "db://t/%ff"), None);
        assert_eq!(vars("db://t/{x}.json", "db://t/a.b.json"), Some(pairs(&[("x", "a.b")])));
        assert_eq!(vars("db://t/{x,y}", "db://t/1,2"), Some(pairs(&[("x", "1"), ("y", "2")])));
        assert_eq!(vars("db://t/{x}", "other://t/a"), None);
    }

    #[test]
    fn reserved_variables_take_slashes() {
        assert_eq!(vars("file:///{+path}", "file:///a/b/c.rs"), Some(pairs(&[("path", "a/b/c.rs")])));
        assert_eq!(
            vars("repo://{owner}/{+path}/raw", "repo://me/a/b/raw"),
            Some(pairs(&[("owner", "me"), ("path", "a/b")]))
        );
        assert_eq!(vars("file:///{+path}", "file:///a#frag"), None);
    }

    #[test]
    fn bad_templates_name_the_position() {
        let cases = [
            ("db://{table", "unclosed '{' at position 5"),
            ("db://table}", "'}' without an opening '{' at position 10"),
            ("db://{}", "empty expression at position 5"),
            ("db://{#x}", "operator '#' is not supported (use {name} or {+name}) at position 6"),
            ("db://{x:3}", "modifier ':' is not supported at position 7"),
            ("db://{x*}", "modifier '*' is not supported at position 7"),
            ("db://{a-b}", "'-' cannot appear in a variable name (use A-Z a-z 0-9 _) at position 7"),
            ("db://{x}/{x}", "variable 'x' appears twice at position 10"),
            (
                "db://{x}{y}",
                "two expressions side by side cannot be told apart; put literal text between them at position 8",
            ),
            ("db://{a{b}", "'{' inside an expression at position 7"),
            ("db:// x", "whitespace cannot appear in a URI template at position 5"),
            ("db://{x,}", "empty variable name at position 8"),
        ];
        for (t, want) in cases {
            assert_eq!(
                UriTemplate::parse(t).unwrap_err().to_string(),
                format!("bad URI template '{t}': {want}")
            );
        }
    }

    #[test]
    fn round_trip_property_over_generated_values() {
        // Every value of allowed characters, percent-encoded where it must be, matches back.
        let alphabet = ['a', 'Z', '0', '-', '.', '_', '~', '/', ' ', 'é', '%', ','];
        let t = UriTemplate::parse("x://{a}/mid/{+b}").unwrap();
        let mut seed: u64 = 7;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..500 {
            let mut value = |max: usize| -> String {
                let n = 1 + next() % max;
                (0..n).map(|_| alphabet[next() % alphabet.len()]).collect()
            };
            let (a, b) = (value(5), value(7));
            let enc = |s: &str, keep_slash: bool| -> String {
                s.chars()
                    .map(|c| match c {
                        '/' if keep_slash => "/".to_owned(),
                        c if c.is_ascii_alphanumeric() || "-._~".contains(c) => c.to_string(),
                        c => c.to_string().bytes().map(|b| format!("%{b:02X}")).collect(),
                    })
                    .collect()
            };
            let uri = format!("x://{}/mid/{}", enc(&a, false), enc(&b, true));
            let got = t.match_uri(&uri).unwrap_or_else(|| panic!("{uri} did not match"));
            assert_eq!(got, pairs(&[("a", &a), ("b", &b)]), "{uri}");
        }
    }
}
