//! `resources/read`, `resources/subscribe`/`unsubscribe` and (2026-07-28)
//! `subscriptions/listen` params. (The lists take [`ListParams`](super::meta::ListParams).)
//!
//! The listed objects and the read result are written by the engine
//! (`crate::server::resources`) from the `resource` layer's types.

use std::borrow::Cow;

use serde::Deserialize;

use super::meta::RequestMeta;

/// `resources/directory/read` params (the Skills extension): a directory's URI, and the
/// cursor of the page after the first.
#[derive(Debug, Deserialize)]
pub struct DirectoryReadParams<'a> {
    /// The directory's URI.
    #[serde(borrow)]
    pub uri: Cow<'a, str>,
    /// The opaque cursor from a previous page.
    #[serde(default, borrow)]
    pub cursor: Option<Cow<'a, str>>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
}

/// `resources/read`, `resources/subscribe` and `resources/unsubscribe` params: one URI.
#[derive(Debug, Deserialize)]
pub struct UriParams<'a> {
    /// The resource's URI.
    #[serde(borrow)]
    pub uri: Cow<'a, str>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
    /// 2026-07-28 (`resources/read`): the client's answers to the previous round's
    /// `inputRequests`, raw.
    #[serde(rename = "inputResponses", default, borrow, deserialize_with = "super::meta::present")]
    pub input_responses: Option<&'a serde_json::value::RawValue>,
    /// 2026-07-28 (`resources/read`): the previous round's `requestState`, raw.
    #[serde(rename = "requestState", default, borrow, deserialize_with = "super::meta::present")]
    pub request_state: Option<&'a serde_json::value::RawValue>,
}

/// `subscriptions/listen` params (2026-07-28).
#[derive(Debug, Deserialize)]
pub struct ListenParams<'a> {
    /// Which notifications the client wants.
    #[serde(default)]
    pub notifications: ListenFilter,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
}

/// The `notifications` filter of `subscriptions/listen`. Only what this server can send is
/// read; a list-changed flag is acknowledged only for a list that can change (a live
/// server's).
#[derive(Debug, Default, Deserialize)]
pub struct ListenFilter {
    /// `resourceSubscriptions`: the URIs whose `notifications/resources/updated` it wants.
    #[serde(rename = "resourceSubscriptions", default)]
    pub resource_subscriptions: Vec<String>,
    /// `toolsListChanged`: it wants `notifications/tools/list_changed`.
    #[serde(rename = "toolsListChanged", default)]
    pub tools_list_changed: bool,
    /// `resourcesListChanged`: it wants `notifications/resources/list_changed`.
    #[serde(rename = "resourcesListChanged", default)]
    pub resources_list_changed: bool,
    /// `promptsListChanged`: it wants `notifications/prompts/list_changed`.
    #[serde(rename = "promptsListChanged", default)]
    pub prompts_list_changed: bool,
    /// `taskIds` (the tasks extension): the tasks whose `notifications/tasks` it wants.
    #[serde(rename = "taskIds", default)]
    pub task_ids: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_reads_the_resource_filter() {
        let p: ListenParams<'_> = serde_json::from_str(
            r#"{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a://x"]}}"#,
        )
        .unwrap();
        assert_eq!(p.notifications.resource_subscriptions, ["a://x"]);
        assert!(p.notifications.tools_list_changed && !p.notifications.prompts_list_changed);
        let p: UriParams<'_> = serde_json::from_str(r#"{"uri":"a://x"}"#).unwrap();
        assert_eq!(p.uri, "a://x");
    }
}
