//! A `SKILL.md`'s frontmatter: the YAML between its two `---` lines, read into the JSON
//! object a skill entry carries (`frontmatter`), on both sides: the server builds entries
//! from it, the client compares a fetched `SKILL.md`'s against its entry's.
//!
//! The YAML read is the subset frontmatter is written in, typed as YAML 1.2's core schema
//! (what the TypeScript SDK and the conformance suite read it as): block mappings and
//! sequences nested by indentation; plain, single- and double-quoted scalars, a plain scalar
//! continued on more indented lines; `|` and `>` block scalars with their chomping
//! indicators; one-line flow sequences of scalars and `{}`; comments. Plain scalars are typed:
//! `null`/`~`/empty, `true`/`false`, integers (decimal, `0o`, `0x`) and floats; the rest are
//! strings.
//!
//! Anything else (anchors, aliases, tags, flow mappings, multi-line quoted scalars,
//! directives, complex keys, tab indentation, `.inf`/`.nan`, which JSON cannot hold) is
//! refused with an error naming the line, never guessed at: a server refuses the skill when
//! it is built, and a client refuses the file, as it would one whose frontmatter differs.

use serde_json::{Map, Number, Value};

/// Why a `SKILL.md`'s frontmatter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontmatterError {
    /// The text does not begin with a `---` line (after an optional byte order mark).
    #[error("it does not begin with a `---` line opening its YAML frontmatter")]
    Missing,
    /// No `---` line closes the frontmatter.
    #[error("its YAML frontmatter has no closing `---` line")]
    Unterminated,
    /// The YAML is malformed, or uses what this reader does not read.
    #[error("its YAML frontmatter, line {line}: {message}")]
    Yaml {
        /// The line of the frontmatter (1 is the line after the opening `---`).
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// A required field is absent, or not a non-empty string.
    #[error("its frontmatter has no `{0}` (a non-empty string is required)")]
    Field(&'static str),
}

/// The frontmatter of `text` (a whole `SKILL.md`) and the markdown after it.
pub fn split(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(FrontmatterError::Missing)?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.strip_prefix("---").is_some_and(|t| t.trim_matches([' ', '\t']).is_empty()) {
            let yaml = rest[..at].strip_suffix('\n').unwrap_or(&rest[..at]);
            let yaml = yaml.strip_suffix('\r').unwrap_or(yaml);
            return Ok((yaml, &rest[at + line.len()..]));
        }
        at += line.len();
    }
    Err(FrontmatterError::Unterminated)
}

/// `text`'s frontmatter as a JSON object, with `name` and `description` checked present, and
/// the body after it.
pub fn read(text: &str) -> Result<(Map<String, Value>, &str), FrontmatterError> {
    let (yaml, body) = split(text)?;
    let map = parse(yaml)?;
    for field in ["name", "description"] {
        if map.get(field).and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(FrontmatterError::Field(field));
        }
    }
    Ok((map, body))
}

/// The YAML `yaml` (a frontmatter block) as a JSON object.
pub fn parse(yaml: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let mut lines = Vec::new();
    for (i, raw) in yaml.lines().enumerate() {
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        if raw[indent..].starts_with('\t') && !raw.trim().is_empty() {
            return Err(yaml_error(i + 1, "a tab in the indentation (YAML indents with spaces)"));
        }
        lines.push(Line { no: i + 1, indent, text: raw[indent..].trim_end().to_owned() });
    }
    let mut p = Parser { lines, at: 0 };
    p.skip_blank();
    let Some(first) = p.peek() else { return Ok(Map::new()) };
    if first.indent != 0 {
        return Err(yaml_error(first.no, "the frontmatter must start at column 1"));
    }
    if first.text.starts_with("- ") || first.text == "-" {
        return Err(yaml_error(first.no, "the frontmatter must be a mapping, not a sequence"));
    }
    let map = p.mapping(0)?;
    p.skip_blank();
    if let Some(line) = p.peek() {
        return Err(yaml_error(line.no, "unexpected indentation"));
    }
    Ok(map)
}

fn yaml_error(line: usize, message: impl Into<String>) -> FrontmatterError {
    FrontmatterError::Yaml { line, message: message.into() }
}

struct Line {
    no: usize,
    indent: usize,
    text: String,
}

struct Parser {
    lines: Vec<Line>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Line> {
        self.lines.get(self.at)
    }

    /// Past blank and comment-only lines.
    fn skip_blank(&mut self) {
        while self.peek().is_some_and(|l| l.text.is_empty() || l.text.starts_with('#')) {
            self.at += 1;
        }
    }

    /// The next content line at exactly `indent`, if any (blank lines skipped).
    fn next_at(&mut self, indent: usize) -> Option<usize> {
        self.skip_blank();
        self.peek().filter(|l| l.indent == indent).map(|l| l.no)
    }

    fn mapping(&mut self, indent: usize) -> Result<Map<String, Value>, FrontmatterError> {
        let mut map = Map::new();
        while let Some(no) = self.next_at(indent) {
            let text = std::mem::take(&mut self.lines[self.at].text);
            if text.starts_with("- ") || text == "-" {
                return Err(yaml_error(no, "a sequence item where a mapping key was expected"));
            }
            let (key, rest) = split_key(&text)
                .ok_or_else(|| yaml_error(no, format!("expected `key: value`, got {}", quote(&text))))?;
            self.at += 1;
            let value = self.value(indent, rest, no)?;
            if map.insert(key.clone(), value).is_some() {
                return Err(yaml_error(no, format!("the key `{key}` appears twice")));
            }
        }
        Ok(map)
    }

    fn sequence(&mut self, indent: usize) -> Result<Vec<Value>, FrontmatterError> {
        let mut items = Vec::new();
        while let Some(no) = self.next_at(indent) {
            let line = &mut self.lines[self.at];
            let rest = if line.text == "-" {
                String::new()
            } else if let Some(rest) = line.text.strip_prefix("- ") {
                rest.to_owned()
            } else {
                break;
            };
            let inner = rest.trim_start();
            if inner.is_empty() || split_key(inner).is_none() || inner.starts_with(['"', '\'', '[', '{']) {
                self.at += 1;
                items.push(self.value(indent, inner, no)?);
            } else {
                // `- key: value`: a mapping whose first line is this item's, at its column.
                line.indent = indent + 2 + (rest.len() - inner.len());
                line.text = inner.to_owned();
                let column = line.indent;
                items.push(Value::Object(self.mapping(column)?));
            }
        }
        Ok(items)
    }

    /// The value after `key:` (`rest`) on line `no`, whose key is at `indent`.
    fn value(&mut self, indent: usize, rest: &str, no: usize) -> Result<Value, FrontmatterError> {
        let rest = strip_comment(rest);
        if rest.is_empty() {
            self.skip_blank();
            return match self.peek() {
                Some(l) if l.indent > indent && (l.text.starts_with("- ") || l.text == "-") => {
                    let column = l.indent;
                    Ok(Value::Array(self.sequence(column)?))
                }
                Some(l) if l.indent > indent => {
                    let column = l.indent;
                    Ok(Value::Object(self.mapping(column)?))
                }
                Some(l) if l.indent == indent && (l.text.starts_with("- ") || l.text == "-") => {
                    Ok(Value::Array(self.sequence(indent)?))
                }
                _ => Ok(Value::Null),
            };
        }
        match rest.as_bytes()[0] {
            b'|' | b'>' => self.block_scalar(indent, rest, no),
            b'"' | b'\'' => {
                let (value, after) = quoted(rest, no)?;
                if !strip_comment(after).is_empty() {
                    return Err(yaml_error(no, format!("text after a quoted scalar: {}", quote(after))));
                }
                Ok(Value::String(value))
            }
            b'[' => flow_sequence(rest, no),
            b'{' if rest == "{}" => Ok(Value::Object(Map::new())),
            b'{' => {
                Err(yaml_error(no, "flow mappings (`{…}`) are not read; write the mapping in block form"))
            }
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'?' => Err(yaml_error(
                no,
                format!("`{}` (anchors, aliases, tags, reserved indicators) is not read", &rest[..1]),
            )),
            _ => {
                let mut text = rest.to_owned();
                // A plain scalar continues on lines indented past its key.
                while let Some(next) = self.peek() {
                    if next.indent <= indent && !next.text.is_empty() {
                        break;
                    }
                    if next.text.is_empty() {
                        let blanks = self.lines[self.at..].iter().take_while(|l| l.text.is_empty()).count();
                        let resumes = self.lines.get(self.at + blanks).is_some_and(|l| l.indent > indent);
                        if !resumes {
                            break;
                        }
                        for _ in 0..blanks {
                            text.push('\n');
                        }
                        self.at += blanks;
                        continue;
                    }
                    if split_key(&next.text).is_some() {
                        return Err(yaml_error(next.no, "a mapping nested under a scalar value"));
                    }
                    if !text.ends_with('\n') {
                        text.push(' ');
                    }
                    text.push_str(strip_comment(&next.text));
                    self.at += 1;
                }
                if text.contains(": ") || text.ends_with(':') {
                    return Err(yaml_error(no, "a plain scalar holding `: `; quote the value"));
                }
                plain(&text, no)
            }
        }
    }

    /// A `|` or `>` block scalar whose header is `header`, on the lines indented past `indent`.
    fn block_scalar(&mut self, indent: usize, header: &str, no: usize) -> Result<Value, FrontmatterError> {
        let literal = header.starts_with('|');
        let mut chomp = 'c';
        let mut explicit = None;
        for c in header[1..].chars() {
            match c {
                '-' | '+' if chomp == 'c' => chomp = c,
                '1'..='9' if explicit.is_none() => explicit = c.to_digit(10).map(|d| d as usize),
                _ => {
                    return Err(yaml_error(no, format!("a malformed block scalar header {}", quote(header))));
                }
            }
        }
        let mut raw: Vec<(usize, String)> = Vec::new();
        while let Some(l) = self.peek() {
            if !l.text.is_empty() && l.indent <= indent {
                break;
            }
            raw.push((l.indent, l.text.clone()));
            self.at += 1;
        }
        let column = match explicit {
            Some(n) => indent + n,
            None => raw.iter().find(|(_, t)| !t.is_empty()).map_or(indent + 1, |(i, _)| *i),
        };
        let mut lines: Vec<String> = Vec::new();
        for (i, text) in raw {
            if text.is_empty() {
                lines.push(String::new());
            } else if i < column {
                return Err(yaml_error(no, "a block scalar line indented less than its first line"));
            } else {
                lines.push(format!("{}{}", " ".repeat(i - column), text));
            }
        }
        let trailing = lines.iter().rev().take_while(|l| l.is_empty()).count();
        let content = &lines[..lines.len() - trailing];
        let mut out = String::new();
        if literal {
            out = content.join("\n");
        } else {
            // Folded: single line breaks between unindented lines become spaces.
            for (k, line) in content.iter().enumerate() {
                if k > 0 {
                    // An empty line is one line break; the break before it is folded away.
                    let prev = &content[k - 1];
                    if line.is_empty() || line.starts_with(' ') || prev.starts_with(' ') {
                        out.push('\n');
                    } else if !prev.is_empty() {
                        out.push(' ');
                    }
                }
                out.push_str(line);
            }
        }
        if !content.is_empty() {
            match chomp {
                '-' => {}
                '+' => out.push_str(&"\n".repeat(trailing + 1)),
                _ => out.push('\n'),
            }
        }
        Ok(Value::String(out))
    }
}

/// `key` and what follows `key:`, if `text` is a mapping entry.
fn split_key(text: &str) -> Option<(String, &str)> {
    if text.starts_with(['"', '\'']) {
        let (key, after) = quoted(text, 0).ok()?;
        let rest = after.strip_prefix(':')?;
        return (rest.is_empty() || rest.starts_with(' ')).then_some((key, rest.trim_start()));
    }
    let mut search = 0;
    loop {
        let i = search + text[search..].find(':')?;
        let after = &text[i + 1..];
        if after.is_empty() || after.starts_with(' ') {
            let key = text[..i].trim_end();
            if key.is_empty()
                || key.starts_with(['#', '-', '[', '{', '&', '*', '!', '?'])
                || key.contains(" #")
            {
                return None;
            }
            return Some((key.to_owned(), after.trim_start()));
        }
        search = i + 1;
    }
}

/// `text` without a trailing ` # comment`, trimmed.
fn strip_comment(text: &str) -> &str {
    let text = text.trim();
    if text.starts_with('#') {
        return "";
    }
    match text.find(" #") {
        Some(i) if !text.starts_with(['"', '\'']) => text[..i].trim_end(),
        _ => text,
    }
}

/// A quoted scalar at the start of `text`, and what follows it.
fn quoted(text: &str, no: usize) -> Result<(String, &str), FrontmatterError> {
    let single = text.starts_with('\'');
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' if single => {
                if text[i + 1..].starts_with('\'') {
                    out.push('\'');
                    chars.next();
                } else {
                    return Ok((out, &text[i + 1..]));
                }
            }
            '"' if !single => return Ok((out, &text[i + 1..])),
            '\\' if !single => {
                let (_, e) = chars.next().ok_or_else(|| yaml_error(no, "a `\\` ends the line"))?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    '"' | '\\' | '/' | ' ' => out.push(e),
                    'u' => {
                        let hex: String = (0..4).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                        let c = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| yaml_error(no, format!("a bad escape `\\u{hex}`")))?;
                        out.push(c);
                    }
                    other => return Err(yaml_error(no, format!("the escape `\\{other}` is not read"))),
                }
            }
            c => out.push(c),
        }
    }
    Err(yaml_error(
        no,
        "a quoted scalar that does not end on its line (multi-line quoted scalars are not read)",
    ))
}

/// A one-line flow sequence of scalars: `[a, "b", 3]`.
fn flow_sequence(text: &str, no: usize) -> Result<Value, FrontmatterError> {
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| yaml_error(no, "a flow sequence that does not end on its line"))?;
    let mut items = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let (item, after) = if rest.starts_with(['"', '\'']) {
            let (value, after) = quoted(rest, no)?;
            (Value::String(value), after.trim_start())
        } else if rest.starts_with(['[', '{']) {
            return Err(yaml_error(no, "nested flow collections are not read"));
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            (plain(rest[..end].trim(), no)?, &rest[end..])
        };
        items.push(item);
        rest = match after.strip_prefix(',') {
            Some(after) => after.trim_start(),
            None if after.is_empty() => after,
            None => {
                return Err(yaml_error(no, format!("expected `,` in a flow sequence, got {}", quote(after))));
            }
        };
    }
    Ok(Value::Array(items))
}

/// A plain scalar, typed by YAML 1.2's core schema.
fn plain(text: &str, no: usize) -> Result<Value, FrontmatterError> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "true" | "True" | "TRUE" => return Ok(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Value::Bool(false)),
        _ => {}
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !unsigned.is_empty()
        && unsigned.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = text.parse::<i64>()
    {
        return Ok(Value::Number(n.into()));
    }
    for (prefix, radix) in [("0o", 8), ("0x", 16)] {
        if let Some(digits) = text.strip_prefix(prefix)
            && !digits.is_empty()
            && let Ok(n) = i64::from_str_radix(digits, radix)
        {
            return Ok(Value::Number(n.into()));
        }
    }
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), ".inf" | ".nan") {
        return Err(yaml_error(no, format!("`{text}` is a float JSON cannot hold")));
    }
    if is_float(unsigned)
        && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return Ok(Value::Number(n));
    }
    Ok(Value::String(text.to_owned()))
}

/// `[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?` or `\.[0-9]+(…)?`: the core schema's float.
fn is_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(whole) && digits(fraction) && (!whole.is_empty() || !fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(text: &str) -> Value {
        Value::Object(parse(text).unwrap())
    }

    #[test]
    fn scalars_are_typed_by_the_core_schema() {
        let v = yaml(
            "name: pdf-processing\ndescription: 'Extract: fill, and # not a comment'\nlicense: 'It''s MIT' # a comment\nversion: 1.5\ncount: 0x1F\nflag: true\nnone: ~\nempty:\nquoted: \"a\\tb \\u00e9\"\nnumberish: 1.2.3\n",
        );
        assert_eq!(
            v,
            json!({"name": "pdf-processing", "description": "Extract: fill, and # not a comment",
                   "license": "It's MIT", "version": 1.5, "count": 31, "flag": true, "none": null,
                   "empty": null, "quoted": "a\tb é", "numberish": "1.2.3"})
        );
    }

    #[test]
    fn nesting_sequences_and_block_scalars() {
        let v = yaml(
            "metadata:\n  author: me\n  tags: [a, \"b c\", 3]\nallowed-tools:\n- Bash\n- Read\nsteps:\n  - name: one\n    run: x\n  - two\nbody: |\n  line one\n    indented\n\n  after blank\nfolded: >-\n  a\n  b\n\n  c\nlong: first\n  second\n",
        );
        assert_eq!(
            v,
            json!({"metadata": {"author": "me", "tags": ["a", "b c", 3]},
                   "allowed-tools": ["Bash", "Read"],
                   "steps": [{"name": "one", "run": "x"}, "two"],
                   "body": "line one\n  indented\n\nafter blank\n",
                   "folded": "a b\nc",
                   "long": "first second"})
        );
    }

    #[test]
    fn what_is_not_read_is_refused_with_its_line() {
        for (text, line, says) in [
            ("name: &a x\n", 1, "anchors"),
            ("name: x\nname: y\n", 2, "appears twice"),
            ("name: x\ndesc: {a: 1}\n", 2, "flow mappings"),
            ("name: \"open\n", 1, "does not end on its line"),
            ("name: x\n\tdesc: y\n", 2, "tab"),
            ("- a\n", 1, "not a sequence"),
            ("name: .inf\n", 1, "JSON cannot hold"),
            ("just text\n", 1, "expected `key: value`"),
            ("description: a: b\n", 1, "quote the value"),
        ] {
            match parse(text) {
                Err(FrontmatterError::Yaml { line: l, message }) => {
                    assert_eq!(l, line, "{text:?}: {message}");
                    assert!(message.contains(says), "{text:?}: {message}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn split_and_read_a_skill_md() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: b\r\n---\r\nBody.\n";
        let (map, body) = read(text).unwrap();
        assert_eq!(Value::Object(map), json!({"name": "a", "description": "b"}));
        assert_eq!(body, "Body.\n");
        assert_eq!(split("# no frontmatter\n"), Err(FrontmatterError::Missing));
        assert_eq!(split("---\nname: a\n"), Err(FrontmatterError::Unterminated));
        let err = read("---\nname: a\n---\n").unwrap_err();
        assert_eq!(err.to_string(), "its frontmatter has no `description` (a non-empty string is required)");
        let err = read("---\nname: a\ndescription: [x\n---\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "its YAML frontmatter, line 2: a flow sequence that does not end on its line"
        );
    }
}
