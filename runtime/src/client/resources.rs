//! Resources: [`Client::list_resources`] and [`Client::list_resource_templates`] (cached as
//! the server's hints say), [`Client::read_resource`] (typed text and blob items),
//! [`Client::read_resource_text`] (flattened, binary parts replaced by a marker),
//! [`Client::subscribe`] (`notifications/resources/updated` to a callback), and
//! [`ResourceSource`], the resources as a queryable source.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::conn::UpdateFn;
use super::connection::Client;
use super::error::ClientError;
use super::normalise::{attr_safe, decoded_len};
use super::wire::{Cached, ListedResource, ListedResourceTemplate, ResourceContent};
use crate::protocol::methods;
use crate::protocol::wire;
use crate::sync::lock;

impl Client {
    /// The server's resources, every page, cached as the server's caching hints say (see
    /// [`list_tools`](Client::list_tools)) and dropped by
    /// `notifications/resources/list_changed`.
    pub async fn list_resources(&self, force_refresh: bool) -> Result<Arc<[ListedResource]>, ClientError> {
        let generation = self.inner.conn.resources_generation.load(Ordering::SeqCst);
        if !force_refresh
            && let Some(hit) = lock(&self.inner.resources).as_ref().and_then(|c| c.fresh(generation))
        {
            return Ok(hit);
        }
        let (raw, ttl) = self.list_all_hinted(methods::RESOURCES_LIST, "resources").await?;
        let list: Arc<[ListedResource]> = raw
            .into_iter()
            .filter_map(|r| serde_json::from_value::<wire::Resource>(r).ok())
            .map(ListedResource::from_wire)
            .collect::<Vec<_>>()
            .into();
        *lock(&self.inner.resources) = Some(Cached::new(Arc::clone(&list), generation, ttl));
        Ok(list)
    }

    /// The server's resource templates (`resources/templates/list`), every page, cached and
    /// dropped like [`list_resources`](Client::list_resources).
    pub async fn list_resource_templates(
        &self,
        force_refresh: bool,
    ) -> Result<Arc<[ListedResourceTemplate]>, ClientError> {
        let generation = self.inner.conn.resources_generation.load(Ordering::SeqCst);
        if !force_refresh
            && let Some(hit) = lock(&self.inner.templates).as_ref().and_then(|c| c.fresh(generation))
        {
            return Ok(hit);
        }
        let (raw, ttl) = self.list_all_hinted(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates").await?;
        let list: Arc<[ListedResourceTemplate]> = raw
            .into_iter()
            .filter_map(|r| serde_json::from_value::<wire::ResourceTemplate>(r).ok())
            .map(ListedResourceTemplate::from_wire)
            .collect::<Vec<_>>()
            .into();
        *lock(&self.inner.templates) = Some(Cached::new(Arc::clone(&list), generation, ttl));
        Ok(list)
    }

    /// Read a resource: its items, text or blob, each with its URI and MIME type, as the
    /// server sent them (untrusted). A 2026-07-28 server's `input_required` rounds are
    /// answered through the client's handlers; what the client cannot give is
    /// [`ClientError::Input`].
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContent>, ClientError> {
        let mut params = serde_json::Map::new();
        params.insert("uri".into(), uri.into());
        let result = self.request_rounds(methods::RESOURCES_READ, uri, params).await?;
        let Ok(read) = serde_json::from_value::<wire::ReadResourceResult>(result) else {
            return Err(ClientError::Protocol {
                server: self.name().to_owned(),
                method: methods::RESOURCES_READ.into(),
                detail: "`contents` is not an array".into(),
            });
        };
        Ok(read.contents.into_iter().map(ResourceContent::from_wire).collect())
    }

    /// Read a resource as text, the view [`ResourceSource`] gives: text items joined with
    /// newlines, each blob replaced by `[blob <mime>, N bytes elided]`.
    pub async fn read_resource_text(&self, uri: &str) -> Result<String, ClientError> {
        let parts: Vec<String> = self
            .read_resource(uri)
            .await?
            .into_iter()
            .map(|c| match c {
                ResourceContent::Text { text, .. } => text,
                ResourceContent::Blob { mime_type, base64, .. } => {
                    let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                    format!("[blob {}, {} bytes elided]", attr_safe(mime), decoded_len(&base64))
                }
            })
            .collect();
        Ok(parts.join("\n"))
    }

    /// Subscribe to the resource `uri`: every `notifications/resources/updated` the server
    /// sends for it calls `on_update` with the URI, until [`unsubscribe`](Client::unsubscribe).
    /// Subscribing again to one URI replaces its callback.
    ///
    /// On a legacy connection this is `resources/subscribe`; a server that refuses (one
    /// without the `subscribe` capability, or an unknown URI) is [`ClientError::Rpc`] and
    /// nothing is registered. On a 2026-07-28 connection the client's
    /// `subscriptions/listen` is reopened with the URI in its `resourceSubscriptions`, and
    /// this returns once the server acknowledged it; an acknowledgment without the URI (or
    /// none within the request timeout) is [`ClientError::NotSubscribed`] and nothing is
    /// registered.
    pub async fn subscribe(&self, uri: &str, on_update: UpdateFn) -> Result<(), ClientError> {
        // Registered first, so an update sent right after the answer is not missed.
        let previous = lock(&self.inner.conn.subscriptions).insert(uri.to_owned(), on_update);
        let outcome = match &self.inner.listener {
            Some(listener) => {
                let after = listener.refresh();
                let ack = listener.acknowledged(after, self.inner.options.request_timeout).await;
                let listed = ack
                    .as_ref()
                    .and_then(|f| f.get("resourceSubscriptions"))
                    .and_then(Value::as_array)
                    .is_some_and(|uris| uris.iter().any(|u| u.as_str() == Some(uri)));
                if listed {
                    Ok(())
                } else {
                    Err(ClientError::NotSubscribed { server: self.name().to_owned(), uri: uri.to_owned() })
                }
            }
            None => self.request(methods::RESOURCES_SUBSCRIBE, Some(json!({ "uri": uri }))).await.map(drop),
        };
        if outcome.is_err() {
            {
                let mut subs = lock(&self.inner.conn.subscriptions);
                match previous {
                    Some(p) => subs.insert(uri.to_owned(), p),
                    None => subs.remove(uri),
                };
            }
            if let Some(listener) = &self.inner.listener {
                listener.refresh();
            }
        }
        outcome
    }

    /// End a [`subscribe`](Client::subscribe)tion: the callback is dropped first, so no
    /// update reaches it after this returns; then `resources/unsubscribe` (legacy), or the
    /// listen reopened without the URI (2026-07-28).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        lock(&self.inner.conn.subscriptions).remove(uri);
        if let Some(listener) = &self.inner.listener {
            listener.refresh();
            return Ok(());
        }
        self.request(methods::RESOURCES_UNSUBSCRIBE, Some(json!({ "uri": uri }))).await.map(drop)
    }

    /// The resources as a queryable source.
    pub fn resource_source(&self) -> ResourceSource {
        ResourceSource { client: self.clone() }
    }
}

/// One resource a [`ResourceSource`] query found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceItem {
    /// Its listing.
    pub resource: ListedResource,
    /// Its contents as text (see [`Client::read_resource_text`]).
    pub content: String,
}

/// A server's resources as a source to query: substring match on name, description and
/// URI (case-insensitive), ties in listing order, the top `k` read as text. The list is the
/// client's, cached as the server's hints say. Resources are server-authored: there is no
/// write path, and [`write`](ResourceSource::write) is refused.
#[derive(Clone)]
pub struct ResourceSource {
    client: Client,
}

/// A write to a [`ResourceSource`] was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("resources of server '{server}' are read-only: MCP resources are server-authored")]
#[non_exhaustive]
pub struct ResourceWriteRefused {
    /// The server's configured name.
    pub server: String,
}

impl std::fmt::Debug for ResourceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceSource").field("server", &self.client.name()).finish_non_exhaustive()
    }
}

impl ResourceSource {
    /// The top `k` resources matching `query`, read.
    pub async fn query(&self, query: &str, k: usize) -> Result<Vec<ResourceItem>, ClientError> {
        let list = self.client.list_resources(false).await?;
        let q = query.to_lowercase();
        let mut out = Vec::new();
        for r in list.iter() {
            if out.len() >= k {
                break;
            }
            let hay = [Some(&r.name), r.description.as_ref(), Some(&r.uri)];
            if hay.iter().flatten().any(|h| h.to_lowercase().contains(&q)) {
                let content = self.client.read_resource_text(&r.uri).await?;
                out.push(ResourceItem { resource: r.clone(), content });
            }
        }
        Ok(out)
    }

    /// Always refused.
    pub fn write(&self, _uri: &str, _content: &str) -> Result<(), ResourceWriteRefused> {
        Err(ResourceWriteRefused { server: self.client.name().to_owned() })
    }
}
