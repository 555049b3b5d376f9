//! The serde helpers of the lenient reading (feature `client`): a member of the wrong
//! type reads as absent, never as a failed message.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `#[serde(default, deserialize_with = "lenient")]`: the member as `T` when it reads as
/// one, else absent (a wrongly typed member, or `null`).
pub(in crate::wire) fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}

/// `#[serde(default, deserialize_with = "lenient_or_default")]`: as [`lenient`], with
/// `T::default()` for absent.
pub(in crate::wire) fn lenient_or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    lenient(d).map(Option::unwrap_or_default)
}

/// `#[serde(default, deserialize_with = "present")]`: `Some` whenever the member is there,
/// even as `null` (which `Option`'s own impl would read as `None`).
pub(in crate::wire) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// `#[serde(default, deserialize_with = "valid_items")]`: the items of an array that read as
/// `T`, the others skipped; anything but an array is empty.
pub(in crate::wire) fn valid_items<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect(),
        _ => Vec::new(),
    })
}
