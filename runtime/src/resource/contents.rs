//! What a read returns and how it can fail: [`ResourceReturn`] turns a fn's return value
//! into [`ResourceContents`] items, and [`ResourceError`] is why a read gave none.
//!
//! - `String` or `&'static str` is one text item.
//! - `Vec<u8>` is one `blob` item, base64 on the wire.
//! - [`Json<T>`] is one text item holding `T` as JSON, `application/json` unless the
//!   resource says otherwise.
//! - A [`ResourceContents`] or a `Vec` of them is used as it is (several items).
//! - `Result<T, E: Display>` is `T` as above, or [`ResourceError::Failed`] with `e`'s text.
//!
//! Each item gets the URI that was read and the resource's MIME type, unless it set its own.

use std::fmt::Display;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::args::{ArgSpec, ArgumentProblem, PyStr};
use crate::protocol::wire::ResourceContents;
use crate::tool::Json;

/// Why a read returned no contents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource or template serves the URI.
    #[error("resource {} not found", PyStr(.uri))]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// The URI matched a template, but a variable's value does not parse as its parameter.
    #[error("resource {} does not fit template {}: {problem}", PyStr(.uri), PyStr(.template))]
    BadVariable {
        /// The URI asked for.
        uri: String,
        /// The template it matched.
        template: String,
        /// What is wrong with the value, in the words a tool's argument error uses.
        problem: Box<ArgumentProblem>,
    },
    /// The read itself failed.
    #[error("resource {} could not be read: {message}", PyStr(.uri))]
    Failed {
        /// The URI read.
        uri: String,
        /// What went wrong.
        message: String,
    },
}

impl ResourceError {
    /// A failed read of `uri`.
    pub fn failed(uri: impl Into<String>, message: impl Display) -> ResourceError {
        ResourceError::Failed { uri: uri.into(), message: message.to_string() }
    }
}

/// A return type a `#[resource]` fn may have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot become the contents of a resource",
    label = "a `#[resource]` fn cannot return this",
    note = "return `String`, `&'static str`, `Vec<u8>` (a blob), `Json<T>`, `ResourceContents`, `Vec<ResourceContents>`, or a `Result` of one of these whose error implements `Display`"
)]
pub trait ResourceReturn: Send + 'static {
    /// The contents of the resource `uri`, whose MIME type is `mime_type`.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError>;
}

fn with_mime(item: ResourceContents, mime_type: Option<&str>) -> ResourceContents {
    match mime_type {
        Some(m) if item.mime_type.is_none() => item.with_mime_type(m),
        _ => item,
    }
}

impl ResourceReturn for String {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![with_mime(ResourceContents::text(uri, self), mime_type)])
    }
}

impl ResourceReturn for &'static str {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.to_owned().into_contents(uri, mime_type)
    }
}

impl ResourceReturn for Vec<u8> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![with_mime(ResourceContents::blob(uri, base64_encode(&self)), mime_type)])
    }
}

impl<T: Serialize + Send + 'static> ResourceReturn for Json<T> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        let text = serde_json::to_string(&self.0).map_err(|e| {
            ResourceError::failed(uri, format_args!("its contents could not be serialised: {e}"))
        })?;
        Ok(vec![ResourceContents::text(uri, text).with_mime_type(mime_type.unwrap_or("application/json"))])
    }
}

impl ResourceReturn for ResourceContents {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        vec![self].into_contents(uri, mime_type)
    }
}

impl ResourceReturn for Vec<ResourceContents> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self
            .into_iter()
            .map(|mut item| {
                if item.uri.is_empty() {
                    item.uri = uri.to_owned();
                }
                with_mime(item, mime_type)
            })
            .collect())
    }
}

impl<T: ResourceReturn, E: Display + Send + 'static> ResourceReturn for Result<T, E> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        match self {
            Ok(v) => v.into_contents(uri, mime_type),
            Err(e) => Err(ResourceError::failed(uri, e)),
        }
    }
}

/// Standard base64 (RFC 4648, with padding), as MCP's `blob` carries bytes.
///
/// ```
/// assert_eq!(toolwire::resource::base64_encode(b"hi!?"), "aGkhPw==");
/// ```
pub fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A template's variables as the JSON arguments object `spec` validates: a value goes as a
/// JSON string when its parameter's schema admits strings, else as the JSON scalar it spells
/// (`42`, `true`), else as a string (which the check then refuses with the usual message).
pub fn variables_as_arguments(spec: &ArgSpec, variables: &[(String, String)]) -> Box<RawValue> {
    let mut map = serde_json::Map::new();
    for (name, value) in variables {
        let takes_string = spec.params().iter().find(|p| p.name == name.as_str()).is_none_or(|p| {
            match p.schema.get("type") {
                Some(serde_json::Value::String(t)) => t == "string",
                Some(serde_json::Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                _ => false,
            }
        });
        let json = match serde_json::from_str::<serde_json::Value>(value) {
            Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) if !takes_string => v,
            _ => serde_json::Value::String(value.clone()),
        };
        map.insert(name.clone(), json);
    }
    serde_json::value::to_raw_value(&map).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(input.as_bytes()), want);
        }
        assert_eq!(base64_encode(&[0xff, 0xfe, 0x00]), "//4A");
    }

    #[test]
    fn returns_become_items_with_the_uri_and_mime_type() {
        let text = "hi".to_owned().into_contents("a://x", Some("text/plain")).unwrap();
        assert_eq!(
            serde_json::to_string(&text).unwrap(),
            r#"[{"uri":"a://x","mimeType":"text/plain","text":"hi"}]"#
        );
        let blob = vec![1u8, 2, 3].into_contents("a://b", None).unwrap();
        assert_eq!(serde_json::to_string(&blob).unwrap(), r#"[{"uri":"a://b","blob":"AQID"}]"#);
        let json = Json(serde_json::json!({"k": 1})).into_contents("a://j", None).unwrap();
        assert_eq!(
            serde_json::to_string(&json).unwrap(),
            r#"[{"uri":"a://j","mimeType":"application/json","text":"{\"k\":1}"}]"#
        );
        let failed: Result<String, &str> = Err("disk gone");
        assert_eq!(
            failed.into_contents("a://x", None).unwrap_err().to_string(),
            "resource 'a://x' could not be read: disk gone"
        );
    }
}
