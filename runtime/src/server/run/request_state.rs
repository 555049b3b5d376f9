//! `requestState`: what a 2026-07-28 `input_required` round carries to the client's retry,
//! sealed so the server can trust it when it comes back.
//!
//! The server keeps nothing between rounds (any replica may take the retry), so everything
//! a retry needs travels in the state: what it was issued for (the method and the tool's or
//! prompt's name), a SHA-256 of the call's arguments in canonical form (RFC 8785), the
//! answers the body has used so far, the round number and an expiry. The text is
//!
//! ```text
//! base64url(payload JSON) "." base64url(HMAC-SHA-256(key, payload JSON))
//! ```
//!
//! under the server's key ([`ServerOptions::request_state_key`](crate::ServerOptions::request_state_key);
//! by default a random key made once per process, so a state is good only for the process
//! that issued it). The client must echo it untouched; everything about it is checked on
//! the way back, and each refusal is a [`StateError`] that reads as -32602.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::base64::URL;
use crate::protocol::methods;
use hmac_sha256::{HMAC, Hash};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The key states are sealed with when the server was given none: 32 random bytes, made
/// once per process.
fn process_key() -> &'static [u8] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut key = [0u8; 32];
        crate::random::fill(&mut key);
        key
    })
}

/// The key to seal and open states with: the configured one, else the process's own.
pub(crate) fn key(configured: Option<&[u8]>) -> &[u8] {
    match configured {
        Some(key) => key,
        None => process_key(),
    }
}

/// What a state is bound to: one method on one tool or prompt, with one set of arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    /// `tools/call`, `prompts/get`, `resources/read`.
    pub(crate) method: &'static str,
    /// The tool's or prompt's name, or the resource's URI.
    pub(crate) name: String,
    /// Hex SHA-256 of the arguments in canonical form.
    pub(crate) args: String,
}

impl Binding {
    /// The binding of a call of `name` by `method` with `arguments` (a JSON value; absent
    /// arguments are `{}`).
    pub(crate) fn new(method: &'static str, name: &str, arguments: &serde_json::Value) -> Binding {
        let canonical = crate::json::canonical_json(arguments);
        let digest = Hash::hash(canonical.as_bytes());
        let mut args = String::with_capacity(64);
        for byte in digest {
            args.push_str(&format!("{byte:02x}"));
        }
        Binding { method, name: name.to_owned(), args }
    }

    /// What the binding names, as a refusal says it: `tool 'x'`, `prompt 'x'`.
    fn thing(method: &str, name: &str) -> String {
        let kind = match method {
            methods::PROMPTS_GET => "prompt",
            methods::RESOURCES_READ => "resource",
            _ => "tool",
        };
        format!("{kind} {}", crate::args::PyStr(name))
    }
}

/// The sealed payload.
#[derive(Debug, Serialize, Deserialize)]
struct Payload {
    /// The method it was issued on.
    m: String,
    /// The tool or prompt.
    n: String,
    /// Hex SHA-256 of the canonical arguments.
    a: String,
    /// The round that issued it (the first `input_required` is round 1).
    r: u32,
    /// Expiry, in seconds since the Unix epoch.
    e: u64,
    /// The answers used so far, by key.
    #[serde(default)]
    s: BTreeMap<String, Box<RawValue>>,
}

/// What an opened state holds.
#[derive(Debug)]
pub(crate) struct Opened {
    /// The round that issued it.
    pub(crate) round: u32,
    /// The answers carried, by key.
    pub(crate) answers: BTreeMap<String, Box<RawValue>>,
}

/// Why a `requestState` was refused. Each reads as the message of a -32602.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StateError {
    /// Not a state this server (or a replica sharing its key) issued, or altered since.
    #[error(
        "invalid params: requestState failed its integrity check (it was altered, or issued by another server); retry without requestState and inputResponses to start over"
    )]
    Forged,
    /// Issued, but lapsed.
    #[error(
        "invalid params: requestState expired {ago}s ago (states last {ttl}s); retry without requestState and inputResponses to start over"
    )]
    Expired {
        /// Seconds since it lapsed.
        ago: u64,
        /// How long states last.
        ttl: u64,
    },
    /// Issued for another method, tool or prompt.
    #[error("invalid params: requestState was issued for {issued}, not for {used}")]
    OtherTarget {
        /// What it was issued for.
        issued: String,
        /// What it came back with.
        used: String,
    },
    /// Issued for the same tool or prompt with other arguments.
    #[error(
        "invalid params: requestState was issued for a call of {thing} with other arguments; retry with the arguments of the first call, or without requestState to start over"
    )]
    OtherArguments {
        /// The tool or prompt.
        thing: String,
    },
    /// `requestState` is present but not a string.
    #[error("invalid params: requestState must be a string, got {kind}")]
    NotAString {
        /// What it was.
        kind: &'static str,
    },
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Seal a state for `binding` issued by `round`, carrying `answers`, good for `ttl`.
pub(crate) fn seal(
    key: &[u8],
    binding: &Binding,
    round: u32,
    answers: &BTreeMap<String, Box<RawValue>>,
    ttl: Duration,
) -> String {
    seal_at(key, binding, round, answers, now_secs().saturating_add(ttl.as_secs().max(1)))
}

fn seal_at(
    key: &[u8],
    binding: &Binding,
    round: u32,
    answers: &BTreeMap<String, Box<RawValue>>,
    expires: u64,
) -> String {
    let payload = Payload {
        m: binding.method.to_owned(),
        n: binding.name.clone(),
        a: binding.args.clone(),
        r: round,
        e: expires,
        s: answers.clone(),
    };
    // A map of raw values and strings always serialises.
    let json = serde_json::to_string(&payload).unwrap_or_default();
    let mut out = URL.encode(json.as_bytes());
    out.push('.');
    out.push_str(&URL.encode(HMAC::mac(json.as_bytes(), key)));
    out
}

/// Open `text` (a `requestState` as the client sent it) for a call bound to `binding`, with
/// states lasting `ttl`.
pub(crate) fn open(
    key: &[u8],
    text: &RawValue,
    binding: &Binding,
    ttl: Duration,
) -> Result<Opened, StateError> {
    open_at(key, text, binding, ttl, now_secs())
}

fn open_at(
    key: &[u8],
    text: &RawValue,
    binding: &Binding,
    ttl: Duration,
    now: u64,
) -> Result<Opened, StateError> {
    let Ok(text) = serde_json::from_str::<std::borrow::Cow<'_, str>>(text.get()) else {
        return Err(StateError::NotAString { kind: crate::protocol::envelope::kind(text.get()) });
    };
    let (body, sig) = text.split_once('.').ok_or(StateError::Forged)?;
    let json = URL.decode(body).ok_or(StateError::Forged)?;
    let sig = URL.decode(sig).ok_or(StateError::Forged)?;
    // A tag of the wrong length is forged; one of the right length is compared in constant time.
    let sig: [u8; 32] = sig.try_into().map_err(|_| StateError::Forged)?;
    if !HMAC::verify(&json, key, &sig) {
        return Err(StateError::Forged);
    }
    // Sealed by us, so it parses; if it does not, it is no state of ours.
    let payload: Payload = serde_json::from_slice(&json).map_err(|_| StateError::Forged)?;
    if payload.e < now {
        return Err(StateError::Expired { ago: now - payload.e, ttl: ttl.as_secs() });
    }
    if payload.m != binding.method || payload.n != binding.name {
        return Err(StateError::OtherTarget {
            issued: Binding::thing(&payload.m, &payload.n),
            used: Binding::thing(binding.method, &binding.name),
        });
    }
    if payload.a != binding.args {
        return Err(StateError::OtherArguments { thing: Binding::thing(binding.method, &binding.name) });
    }
    Ok(Opened { round: payload.r, answers: payload.s })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &[u8] = b"a key for the tests, 32 bytes ok";
    const TTL: Duration = Duration::from_secs(600);

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    fn quoted(s: &str) -> Box<RawValue> {
        raw(&serde_json::to_string(s).unwrap())
    }

    fn answers() -> BTreeMap<String, Box<RawValue>> {
        BTreeMap::from([("user_name".to_owned(), raw(r#"{"action":"accept","content":{"name":"Alice"}}"#))])
    }

    #[test]
    fn the_binding_and_the_seal_are_sha_256_and_hmac_sha_256() {
        // The digest of the canonical arguments, as `sha256sum` gives it for `{"a":1}`.
        let b = Binding::new("tools/call", "greet", &json!({"a": 1}));
        assert_eq!(b.args, "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
        // RFC 4231, test case 2.
        let tag = HMAC::mac(b"what do ya want for nothing?", b"Jefe");
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        // A seal's tag is that HMAC of its payload under the key.
        let state = seal(KEY, &b, 1, &BTreeMap::new(), TTL);
        let (body, sig) = state.split_once('.').unwrap();
        let payload = URL.decode(body).unwrap();
        assert_eq!(URL.decode(sig).unwrap(), HMAC::mac(&payload, KEY));
    }

    #[test]
    fn a_tag_of_another_length_is_forged() {
        let b = Binding::new("tools/call", "greet", &json!({}));
        let state = seal(KEY, &b, 1, &BTreeMap::new(), TTL);
        let (body, sig) = state.split_once('.').unwrap();
        let sig = URL.decode(sig).unwrap();
        for cut in [&sig[..31], &[sig.as_slice(), &[0]].concat()[..]] {
            let forged = format!("{body}.{}", URL.encode(cut));
            assert_eq!(open(KEY, &quoted(&forged), &b, TTL).unwrap_err(), StateError::Forged);
        }
    }

    #[test]
    fn a_state_round_trips_with_its_round_and_answers() {
        let b = Binding::new("tools/call", "greet", &json!({"b": 1, "a": [true]}));
        let state = seal(KEY, &b, 2, &answers(), TTL);
        assert!(!state.contains('='), "base64url without padding: {state}");
        // The same arguments in another member order are the same call.
        let same = Binding::new("tools/call", "greet", &json!({"a": [true], "b": 1}));
        let opened = open(KEY, &quoted(&state), &same, TTL).unwrap();
        assert_eq!(opened.round, 2);
        assert_eq!(opened.answers["user_name"].get(), r#"{"action":"accept","content":{"name":"Alice"}}"#);
    }

    #[test]
    fn tampered_forged_and_non_string_states_are_refused() {
        let b = Binding::new("tools/call", "greet", &json!({}));
        let state = seal(KEY, &b, 1, &answers(), TTL);
        let forged = "invalid params: requestState failed its integrity check (it was altered, or issued by another server); retry without requestState and inputResponses to start over";
        for bad in [
            format!("{state}-TAMPERED"),
            state.replacen('e', "f", 1),
            "not a state".to_owned(),
            String::new(),
            // A payload of our shape, signed with another key.
            seal(b"another key", &b, 1, &answers(), TTL),
        ] {
            assert_eq!(open(KEY, &quoted(&bad), &b, TTL).unwrap_err().to_string(), forged, "{bad}");
        }
        // The payload rewritten to carry another answer, the signature kept.
        let (_, sig) = state.split_once('.').unwrap();
        let payload =
            format!(r#"{{"m":"tools/call","n":"greet","a":"{}","r":1,"e":99999999999,"s":{{}}}}"#, b.args);
        let rewritten = format!("{}.{sig}", URL.encode(payload));
        assert_eq!(open(KEY, &quoted(&rewritten), &b, TTL).unwrap_err(), StateError::Forged);
        assert_eq!(
            open(KEY, &raw("12"), &b, TTL).unwrap_err().to_string(),
            "invalid params: requestState must be a string, got a number"
        );
    }

    #[test]
    fn an_expired_state_says_how_long_ago() {
        let b = Binding::new("tools/call", "greet", &json!({}));
        let state = seal_at(KEY, &b, 1, &answers(), 1_000);
        assert_eq!(
            open_at(KEY, &quoted(&state), &b, TTL, 1_042).unwrap_err().to_string(),
            "invalid params: requestState expired 42s ago (states last 600s); retry without requestState and inputResponses to start over"
        );
        assert!(open_at(KEY, &quoted(&state), &b, TTL, 1_000).is_ok());
    }

    #[test]
    fn a_state_is_good_only_for_its_tool_and_arguments() {
        let b = Binding::new("tools/call", "greet", &json!({"who": "a"}));
        let state = quoted(&seal(KEY, &b, 1, &answers(), TTL));
        let other_tool = Binding::new("tools/call", "wave", &json!({"who": "a"}));
        assert_eq!(
            open(KEY, &state, &other_tool, TTL).unwrap_err().to_string(),
            "invalid params: requestState was issued for tool 'greet', not for tool 'wave'"
        );
        let prompt = Binding::new("prompts/get", "greet", &json!({"who": "a"}));
        assert_eq!(
            open(KEY, &state, &prompt, TTL).unwrap_err().to_string(),
            "invalid params: requestState was issued for tool 'greet', not for prompt 'greet'"
        );
        let other_args = Binding::new("tools/call", "greet", &json!({"who": "b"}));
        assert_eq!(
            open(KEY, &state, &other_args, TTL).unwrap_err().to_string(),
            "invalid params: requestState was issued for a call of tool 'greet' with other arguments; retry with the arguments of the first call, or without requestState to start over"
        );
    }

    #[test]
    fn the_process_key_is_made_once() {
        assert_eq!(key(None), key(None));
        assert_eq!(key(None).len(), 32);
        assert_eq!(key(Some(b"k")), b"k");
    }
}
