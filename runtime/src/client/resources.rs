//! Resources: [`Client::list_resources`], [`Client::read_resource`] (binary parts replaced by
//! a marker), and [`ResourceSource`], the resources as a queryable source with its own 30 s
//! list cache.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::json;

use super::conn::lock;
use super::connection::Client;
use super::error::ClientError;
use super::normalise::{attr_safe, decoded_len};
use super::wire::{Cached, ResourceInfo};
use crate::protocol::wire;

impl Client {
    /// The server's resources, every page, cached for the client's TTL and dropped by
    /// `notifications/resources/list_changed`.
    pub async fn list_resources(&self, force_refresh: bool) -> Result<Arc<[ResourceInfo]>, ClientError> {
        let generation = self.inner.conn.resources_generation.load(Ordering::SeqCst);
        if !force_refresh {
            let ttl = self.inner.options.cache_ttl;
            if let Some(hit) = lock(&self.inner.resources).as_ref().and_then(|c| c.fresh(ttl, generation)) {
                return Ok(hit);
            }
        }
        let raw = self.list_all("resources/list", "resources").await?;
        let list: Arc<[ResourceInfo]> = raw
            .into_iter()
            .filter_map(|r| serde_json::from_value::<wire::Resource>(r).ok())
            .map(ResourceInfo::from_wire)
            .collect::<Vec<_>>()
            .into();
        *lock(&self.inner.resources) = Some(Cached::new(Arc::clone(&list), generation));
        Ok(list)
    }

    /// Read a resource as text: text parts joined with newlines, each binary part replaced by
    /// `[blob <mime>, N bytes elided]`.
    pub async fn read_resource(&self, uri: &str) -> Result<String, ClientError> {
        let result = self.request("resources/read", Some(json!({ "uri": uri }))).await?;
        let Ok(read) = serde_json::from_value::<wire::ReadResourceResult>(result) else {
            return Err(ClientError::Protocol {
                server: self.name().to_owned(),
                method: "resources/read".into(),
                detail: "`contents` is not an array".into(),
            });
        };
        let parts: Vec<String> = read
            .contents
            .into_iter()
            .map(|c| match (c.text, c.blob) {
                (Some(text), _) => text,
                (None, Some(blob)) => {
                    let mime = c.mime_type.as_deref().unwrap_or("application/octet-stream");
                    format!("[blob {}, {} bytes elided]", attr_safe(mime), decoded_len(&blob))
                }
                (None, None) => String::new(),
            })
            .collect();
        Ok(parts.join("\n"))
    }

    /// The resources as a queryable source.
    pub fn resource_source(&self) -> ResourceSource {
        ResourceSource { client: self.clone(), cache: Arc::default() }
    }
}

/// The source's own list cache.
type ListCache = Option<Cached<Arc<[ResourceInfo]>>>;

/// One resource a [`ResourceSource`] query found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceItem {
    /// Its listing.
    pub resource: ResourceInfo,
    /// Its contents as text (see [`Client::read_resource`]).
    pub content: String,
}

/// A server's resources as a source to query: substring match on name, description and
/// URI (case-insensitive), ties in listing order, the top `k` read. It keeps its own 30 s
/// list cache, independent of the client's. Resources are server-authored: there is no
/// write path, and [`write`](ResourceSource::write) is refused.
#[derive(Clone)]
pub struct ResourceSource {
    client: Client,
    cache: Arc<std::sync::Mutex<ListCache>>,
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
        let ttl = self.client.inner.options.cache_ttl;
        let cached = lock(&self.cache).as_ref().and_then(|c| c.fresh(ttl, 0));
        let list = match cached {
            Some(list) => list,
            None => {
                let list = self.client.list_resources(true).await?;
                *lock(&self.cache) = Some(Cached::new(Arc::clone(&list), 0));
                list
            }
        };
        let q = query.to_lowercase();
        let mut out = Vec::new();
        for r in list.iter() {
            if out.len() >= k {
                break;
            }
            let hay = [Some(&r.name), r.description.as_ref(), Some(&r.uri)];
            if hay.iter().flatten().any(|h| h.to_lowercase().contains(&q)) {
                let content = self.client.read_resource(&r.uri).await?;
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
