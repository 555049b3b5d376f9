//! The common `tools/call` read by hand: what every SDK we know writes, scanned in place.
//!
//! The envelope's one-pass decode (`envelope::decode_call`) runs serde's machinery over a
//! message whose shape is nearly always the same:
//!
//! ```text
//! {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{...}}}
//! ```
//!
//! [`scan_call`] reads that shape directly: the members of the envelope and of `params` in
//! any order, whitespace anywhere JSON allows it. The values that are not fixed text
//! (`arguments`, and a `_meta`) are checked and delimited by `raw_value`, as strictly as
//! serde_json would, and lent out as `&RawValue`s of the message's own text.
//!
//! It gives up (`None`) on anything else, and the serde decode then reads the message as
//! before: a name or id string with an escape or a control character, an id that is not a
//! plain integer or string, any member not listed above (also `inputResponses` and
//! `requestState`), a repeated member, and `arguments` or `_meta` nested deep enough that
//! the whole message could reach serde_json's depth limit (`raw_value::MAX_DEPTH`). So what
//! it reads, it reads as the serde decode does: the fuzz target `envelope` and the property
//! tests hold the two to the same id and params on every message it reads.

use serde_json::value::RawValue;

use super::id::RequestId;
use super::meta::RequestMeta;
use super::raw_value;
use crate::json::skip_whitespace;

/// A `tools/call` [`scan_call`] read.
#[derive(Debug)]
pub struct ScannedCall<'a> {
    pub id: RequestId,
    /// The id as its JSON text.
    pub raw_id: &'a str,
    /// The tool's name, which had no escape to undo.
    pub name: &'a str,
    /// `params.arguments`; `null` reads as absent.
    pub arguments: Option<&'a RawValue>,
    /// `params._meta`; `null` reads as absent.
    pub meta: Option<RequestMeta<'a>>,
}

/// Read `text` as a `tools/call` request of the common shape, or `None` (see the module
/// docs for what that turns away).
pub fn scan_call(text: &str) -> Option<ScannedCall<'_>> {
    let mut s = Scanner { text, at: 0 };
    s.open()?;
    let (mut jsonrpc, mut id, mut method, mut params) = (false, None, false, None);
    loop {
        match s.key()? {
            Key::Jsonrpc if !jsonrpc => {
                s.exactly(b"\"2.0\"")?;
                jsonrpc = true;
            }
            Key::Id if id.is_none() => id = Some(s.id()?),
            Key::Method if !method => {
                s.exactly(b"\"tools/call\"")?;
                method = true;
            }
            Key::Params if params.is_none() => params = Some(s.params()?),
            _ => return None,
        }
        if s.close()? {
            break;
        }
    }
    s.whitespace();
    let ((id, raw_id), (name, arguments, meta)) = (id?, params?);
    (s.at == text.len() && jsonrpc && method).then_some(ScannedCall { id, raw_id, name, arguments, meta })
}

/// The members the scan reads: the envelope's, then `params`'.
#[derive(Clone, Copy)]
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Name,
    Arguments,
    Meta,
}

/// The message, and how far it has been read.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

/// The bytes that end a plain string's scan: the closing quote, and what a plain string
/// cannot hold (a backslash, a control character).
static STOPS: [bool; 256] = {
    let mut stops = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        stops[b] = true;
        b += 1;
    }
    stops[b'"' as usize] = true;
    stops[b'\\' as usize] = true;
    stops
};

impl<'a> Scanner<'a> {
    fn rest(&self) -> &'a [u8] {
        &self.text.as_bytes()[self.at..]
    }

    fn whitespace(&mut self) {
        self.at = skip_whitespace(self.text.as_bytes(), self.at);
    }

    /// `{`, after any whitespace.
    fn open(&mut self) -> Option<()> {
        self.whitespace();
        self.exactly(b"{")
    }

    /// After a member: `true` at the object's `}`, `false` at a `,` (another member follows).
    fn close(&mut self) -> Option<bool> {
        self.whitespace();
        let closed = match self.rest().first()? {
            b'}' => true,
            b',' => false,
            _ => return None,
        };
        self.at += 1;
        Some(closed)
    }

    /// `literal`, exactly. A literal of a length known at compile time is compared in
    /// place, not by a call to `memcmp`.
    fn exactly<const N: usize>(&mut self, literal: &[u8; N]) -> Option<()> {
        (self.rest().first_chunk::<N>() == Some(literal)).then(|| self.at += N)
    }

    /// A member's name, one the scan knows, and its colon. The name's first letter says
    /// which it can be; the whole name and its closing quote must follow.
    fn key(&mut self) -> Option<Key> {
        self.whitespace();
        let key = match self.rest().get(1)? {
            b'j' => self.exactly(b"\"jsonrpc\"").map(|_| Key::Jsonrpc),
            b'i' => self.exactly(b"\"id\"").map(|_| Key::Id),
            b'm' => self.exactly(b"\"method\"").map(|_| Key::Method),
            b'p' => self.exactly(b"\"params\"").map(|_| Key::Params),
            b'n' => self.exactly(b"\"name\"").map(|_| Key::Name),
            b'a' => self.exactly(b"\"arguments\"").map(|_| Key::Arguments),
            b'_' => self.exactly(b"\"_meta\"").map(|_| Key::Meta),
            _ => None,
        }?;
        self.whitespace();
        self.exactly(b":")?;
        self.whitespace();
        Some(key)
    }

    /// A string with no escape and no control character: its contents, borrowed.
    fn plain_string(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        // One loop over the bytes, a table look-up each: the strings read here are short,
        // where a vectorised search costs more to set up than it saves (`json::next_escape`
        // looks for the same bytes eight at a time: 63 more instructions a call here).
        let start = self.at + 1;
        let mut end = start;
        while let Some(&b) = bytes.get(end) {
            if STOPS[usize::from(b)] {
                break;
            }
            end += 1;
        }
        if bytes.get(end) != Some(&b'"') {
            return None;
        }
        self.at = end + 1;
        // Both ends are ASCII quotes, so both are character boundaries.
        self.text.get(start..end)
    }

    /// The id, and its text: a plain string, or an integer with no fraction or exponent
    /// that fits in 64 bits (anything else is for the serde decode to answer).
    fn id(&mut self) -> Option<(RequestId, &'a str)> {
        let start = self.at;
        if let Some(s) = self.plain_string() {
            return Some((RequestId::String(s.to_owned()), &self.text[start..self.at]));
        }
        let rest = self.rest();
        let sign = usize::from(rest.first() == Some(&b'-'));
        let digits = rest[sign..].iter().take_while(|b| b.is_ascii_digit()).count();
        let leading_zero = digits > 1 && rest[sign] == b'0';
        let fraction = matches!(rest.get(sign + digits), Some(b'.' | b'e' | b'E'));
        if digits == 0 || leading_zero || fraction {
            return None;
        }
        let text = &self.text[start..start + sign + digits];
        let n = text.parse::<i64>().ok()?;
        self.at += sign + digits;
        Some((RequestId::Number(n), text))
    }

    /// `params`: an object of `name`, and optionally `arguments` and `_meta`, each once.
    #[allow(clippy::type_complexity)] // Read once, into `ScannedCall`.
    fn params(&mut self) -> Option<(&'a str, Option<&'a RawValue>, Option<RequestMeta<'a>>)> {
        self.exactly(b"{")?;
        let (mut name, mut arguments, mut meta) = (None, None, None);
        self.whitespace();
        if self.exactly(b"}").is_some() {
            return None;
        }
        loop {
            match self.key()? {
                Key::Name if name.is_none() => name = Some(self.plain_string()?),
                Key::Arguments if arguments.is_none() => arguments = Some(self.value()?),
                Key::Meta if meta.is_none() => meta = Some(self.value()?),
                _ => return None,
            }
            if self.close()? {
                break;
            }
        }
        let meta = match meta {
            None => None,
            Some(raw) => serde_json::from_str::<Option<RequestMeta<'a>>>(raw.get()).ok()?,
        };
        let arguments = arguments.filter(|raw| raw.get() != "null");
        Some((name?, arguments, meta))
    }

    /// Any JSON value, checked and lent by `raw_value` without a second pass.
    fn value(&mut self) -> Option<&'a RawValue> {
        let (raw, end) = raw_value::read(self.text, self.at)?;
        self.at = end;
        Some(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<(String, &str, Option<&str>)> {
        let c = scan_call(text)?;
        Some((c.id.to_json(), c.name, c.arguments.map(RawValue::get)))
    }

    #[test]
    fn the_common_shapes_are_read() {
        let want = Some(("7".to_owned(), "echo", Some(r#"{"text":"hi"}"#)));
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"method":"tools/call","params":{"arguments":{"text":"hi"},"name":"echo"},"jsonrpc":"2.0","id":7}"#,
            " {\n \"jsonrpc\" : \"2.0\" ,\t\"id\": 7, \"method\":\"tools/call\",\r\n \"params\": { \"name\" : \"echo\", \"arguments\" : {\"text\":\"hi\"} } } \n",
        ] {
            assert_eq!(read(text), want, "{text}");
        }
        let text = r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","arguments":null,"_meta":{"progressToken":3}}}"#;
        let call = scan_call(text).unwrap();
        assert_eq!((call.raw_id, call.name, call.arguments.is_none()), (r#""a-1""#, "x", true));
        assert_eq!(call.meta.unwrap().progress_token.unwrap().get(), "3");
        let text = r#"{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(read(text), Some(("0".to_owned(), "x", None)));
    }

    #[test]
    fn anything_unusual_is_left_to_the_serde_decode() {
        let call = |id: &str, params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
        };
        let plain = r#"{"name":"echo","arguments":{}}"#;
        for text in [
            call("01", plain),
            call("1.0", plain),
            call("1e3", plain),
            call("-", plain),
            call("9223372036854775808", plain),
            call(r#""a\"b""#, plain),
            call("null", plain),
            call("1", r#"{"name":"ec\u0068o"}"#),
            call("1", "{\"name\":\"a\tb\"}"),
            call("1", r#"{"name":"echo","name":"echo"}"#),
            call("1", r#"{"name":"echo","other":1}"#),
            call("1", r#"{"name":"echo","requestState":"s"}"#),
            call("1", r#"{"arguments":{}}"#),
            call("1", "{}"),
            call("1", "[]"),
            call("1", r#"{"name":"echo","arguments":{"a":}}"#),
            call("1", &format!(r#"{{"name":"echo","arguments":{}1{}}}"#, "[".repeat(121), "]".repeat(121))),
            call("1", plain) + "x",
            call("1", plain).replace("}}", "}"),
            call("1", plain).replace(r#""2.0""#, r#""2.0 ""#),
            call("1", plain).replace("tools/call", "tools/list"),
            call("1", plain).replace(r#""id":1,"#, r#""id":1,"id":2,"#),
            call("1", plain).replace(r#""id":1,"#, ""),
            call("1", plain).replace(r#""jsonrpc":"2.0","#, ""),
            call("1", plain).replace(r#""id":1,"#, r#""id":1,"result":{},"#),
        ] {
            assert!(scan_call(&text).is_none(), "{text}");
        }
    }
}
