//! Reading a [`ContentBlock`] from a peer, leniently (feature `client`: the server only
//! writes them).

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::super::ResourceContents;
use super::ContentBlock;

/// `Some` when `v` reads as a `T`.
fn lenient<T: de::DeserializeOwned>(v: Value) -> Option<T> {
    serde_json::from_value(v).ok()
}

/// Every member any known block has, each lenient (a member of the wrong type reads as
/// absent); the `type` picks which are used.
#[derive(Default)]
struct AnyBlock {
    kind: Option<String>,
    text: Option<String>,
    data: Option<String>,
    mime_type: Option<String>,
    uri: Option<String>,
    name: Option<String>,
    description: Option<String>,
    resource: Option<ResourceContents>,
}

impl AnyBlock {
    fn into_block(self) -> ContentBlock {
        let AnyBlock { kind, text, data, mime_type, uri, name, description, resource } = self;
        match kind.as_deref().unwrap_or("") {
            "text" => ContentBlock::Text { text: text.unwrap_or_default() },
            "image" => ContentBlock::Image {
                data: data.unwrap_or_default(),
                mime_type: mime_type.unwrap_or_default(),
            },
            "audio" => ContentBlock::Audio {
                data: data.unwrap_or_default(),
                mime_type: mime_type.unwrap_or_default(),
            },
            "resource_link" => ContentBlock::ResourceLink {
                uri: uri.unwrap_or_default(),
                name: name.unwrap_or_default(),
                description,
                mime_type,
            },
            "resource" => ContentBlock::Resource { resource: resource.unwrap_or_default() },
            _ => ContentBlock::Unknown { kind: kind.unwrap_or_default() },
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BlockVisitor)
    }
}

/// Reads a block's members straight from the text (no `Value` in between): every result a
/// client reads goes through here. A member sent twice keeps the last, as a JSON object read
/// whole would.
struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = ContentBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentBlock, A::Error> {
        let mut b = AnyBlock::default();
        while let Some(BlockMember(key)) = map.next_key()? {
            let slot = match key {
                "type" => &mut b.kind,
                "text" => &mut b.text,
                "data" => &mut b.data,
                "mimeType" => &mut b.mime_type,
                "uri" => &mut b.uri,
                "name" => &mut b.name,
                "description" => &mut b.description,
                "resource" => {
                    b.resource = lenient(map.next_value::<Value>()?);
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = map.next_value::<LenientString>()?.0;
        }
        Ok(b.into_block())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ContentBlock, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(not_an_object())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<ContentBlock, E> {
        Ok(not_an_object())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<ContentBlock, E> {
        Ok(not_an_object())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<ContentBlock, E> {
        Ok(not_an_object())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<ContentBlock, E> {
        Ok(not_an_object())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<ContentBlock, E> {
        Ok(not_an_object())
    }

    fn visit_unit<E: de::Error>(self) -> Result<ContentBlock, E> {
        Ok(not_an_object())
    }
}

/// A block's member name, read without allocating: one of the names a block has, or `""`.
struct BlockMember(&'static str);

impl<'de> Deserialize<'de> for BlockMember {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = BlockMember;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<BlockMember, E> {
                const NAMES: [&str; 8] =
                    ["type", "text", "data", "mimeType", "uri", "name", "description", "resource"];
                Ok(BlockMember(NAMES.into_iter().find(|n| *n == name).unwrap_or("")))
            }
        }
        d.deserialize_identifier(NameVisitor)
    }
}

/// A block that is not an object: of no type.
fn not_an_object() -> ContentBlock {
    ContentBlock::Unknown { kind: String::new() }
}

/// `Some` for a string, `None` (the value skipped) for anything else.
struct LenientString(Option<String>);

impl<'de> Deserialize<'de> for LenientString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientStringVisitor).map(LenientString)
    }
}

struct LenientStringVisitor;

impl<'de> Visitor<'de> for LenientStringVisitor {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Some(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Some(s))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> ContentBlock {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn known_blocks_read_with_empty_defaults() {
        assert_eq!(read(json!({"type": "text"})), ContentBlock::text(""));
        assert_eq!(
            read(json!({"type": "image", "data": "AA==", "mimeType": "image/png"})),
            ContentBlock::image("AA==", "image/png")
        );
        let link = read(json!({"type": "resource_link", "uri": "file:///a", "mimeType": "text/plain"}));
        assert_eq!(
            link,
            ContentBlock::ResourceLink {
                uri: "file:///a".into(),
                name: String::new(),
                description: None,
                mime_type: Some("text/plain".into())
            }
        );
        let r = read(json!({"type": "resource", "resource": {"uri": "u", "text": "t"}}));
        assert_eq!(r, ContentBlock::resource(ResourceContents::text("u", "t")));
        assert_eq!(read(json!({"type": "resource"})), ContentBlock::resource(ResourceContents::default()));
    }

    #[test]
    fn unknown_blocks_keep_their_type_and_never_fail() {
        assert_eq!(read(json!({"type": "video"})), ContentBlock::Unknown { kind: "video".into() });
        assert_eq!(read(json!("text")), ContentBlock::Unknown { kind: String::new() });
        assert_eq!(read(json!({"type": 3})), ContentBlock::Unknown { kind: String::new() });
        assert!(serde_json::to_string(&ContentBlock::Unknown { kind: "x".into() }).is_err());
    }

    #[test]
    fn blocks_read_from_text_as_from_a_value_leniently() {
        let cases = [
            (r#"{"type":"text","text":"a","text":"b"}"#, ContentBlock::text("b")),
            (r#"{"text":"a","type":"text","extra":{"x":[1,{"y":null}]}}"#, ContentBlock::text("a")),
            (r#"{"type":"text","text":5}"#, ContentBlock::text("")),
            (r#"{"type":"text","text":"q\"\u00e9"}"#, ContentBlock::text("q\"é")),
            (r#"{"type":"image","data":{"a":1},"mimeType":["x"]}"#, ContentBlock::image("", "")),
            (
                r#"{"type":"audio","data":"AA==","mimeType":"audio/wav"}"#,
                ContentBlock::audio("AA==", "audio/wav"),
            ),
            (
                r#"{"type":"resource_link","uri":"u","name":null,"description":"d","mimeType":5}"#,
                ContentBlock::ResourceLink {
                    uri: "u".into(),
                    name: String::new(),
                    description: Some("d".into()),
                    mime_type: None,
                },
            ),
            (r#"{"type":"resource","resource":5}"#, ContentBlock::resource(ResourceContents::default())),
            (
                r#"{"type":"resource","resource":{"uri":"u","text":"t"}}"#,
                ContentBlock::resource(ResourceContents::text("u", "t")),
            ),
            (r#"{"type":"ty\u0070e","type":"video"}"#, ContentBlock::Unknown { kind: "video".into() }),
            (r#"{"type":true}"#, ContentBlock::Unknown { kind: String::new() }),
            (r#"{}"#, ContentBlock::Unknown { kind: String::new() }),
            // Not an object: of no type, whatever it holds (an array is not read by position).
            (r#"["text","hello"]"#, ContentBlock::Unknown { kind: String::new() }),
            (r#"null"#, ContentBlock::Unknown { kind: String::new() }),
            (r#"-1.5"#, ContentBlock::Unknown { kind: String::new() }),
            (r#"7"#, ContentBlock::Unknown { kind: String::new() }),
        ];
        for (text, want) in cases {
            assert_eq!(serde_json::from_str::<ContentBlock>(text).unwrap(), want, "{text}");
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(read(value), want, "{text} as a Value");
        }
    }
}
