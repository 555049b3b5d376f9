//! [`ResourceRegistry`]: the fixed resources (unique URIs) and templates (unique template
//! text) a server serves, and [`ResourceRegistry::resolve`], which finds what serves a URI.

use std::sync::Arc;

use super::{Resource, ResourceTemplate};
use crate::by_name::ByName;
use crate::complete::{Completers, CompletionRef};

/// Why a resource registry could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceRegistryError {
    /// Two resources share a URI; a registry never lets one shadow the other.
    #[error("duplicate resource URI '{uri}': registered by `{first}` and by `{second}`")]
    DuplicateUri {
        /// The shared URI.
        uri: String,
        /// The type of the resource registered first.
        first: &'static str,
        /// The type of the resource registered second.
        second: &'static str,
    },
    /// Two templates are the same text.
    #[error("duplicate resource template '{template}': registered by `{first}` and by `{second}`")]
    DuplicateTemplate {
        /// The shared template.
        template: String,
        /// The type of the template registered first.
        first: &'static str,
        /// The type of the template registered second.
        second: &'static str,
    },
}

/// What serves a URI.
pub enum Resolved<'r> {
    /// A fixed resource at exactly this URI.
    Fixed(&'r Arc<dyn Resource>),
    /// A template the URI matched, with its variables.
    Template(&'r Arc<dyn ResourceTemplate>, Vec<(String, String)>),
}

/// A set of fixed resources (kept sorted by URI) and templates (kept in the order added,
/// which is the order a URI is tried against them).
///
/// ```
/// # use toolwire::resource::ResourceRegistry;
/// let registry = ResourceRegistry::new();
/// assert!(registry.is_empty());
/// ```
#[derive(Clone, Default)]
pub struct ResourceRegistry {
    fixed: ByName<(Arc<dyn Resource>, &'static str)>,
    templates: Vec<(Arc<dyn ResourceTemplate>, &'static str)>,
}

impl std::fmt::Debug for ResourceRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceRegistry")
            .field("resources", &self.fixed.keys().collect::<Vec<_>>())
            .field(
                "templates",
                &self.templates.iter().map(|(t, _)| t.info().template().as_str()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ResourceRegistry {
    /// An empty registry.
    pub fn new() -> ResourceRegistry {
        ResourceRegistry::default()
    }

    /// Add a fixed resource; a URI already registered is refused, naming both types.
    pub fn add<R: Resource>(&mut self, resource: R) -> Result<&mut Self, ResourceRegistryError> {
        self.add_shared(Arc::new(resource), std::any::type_name::<R>())
    }

    /// Add a fixed resource already behind an `Arc`; `type_name` names it in errors.
    pub fn add_shared(
        &mut self,
        resource: Arc<dyn Resource>,
        type_name: &'static str,
    ) -> Result<&mut Self, ResourceRegistryError> {
        let uri = resource.info().uri().to_owned();
        if let Some((_, first)) = self.fixed.get(&uri) {
            return Err(ResourceRegistryError::DuplicateUri { uri, first, second: type_name });
        }
        self.fixed.insert(uri, (resource, type_name));
        Ok(self)
    }

    /// Add a template; the same template text twice is refused, naming both types.
    pub fn add_template<T: ResourceTemplate>(
        &mut self,
        template: T,
    ) -> Result<&mut Self, ResourceRegistryError> {
        self.add_template_shared(Arc::new(template), std::any::type_name::<T>())
    }

    /// Add a template already behind an `Arc`; `type_name` names it in errors.
    pub fn add_template_shared(
        &mut self,
        template: Arc<dyn ResourceTemplate>,
        type_name: &'static str,
    ) -> Result<&mut Self, ResourceRegistryError> {
        let text = template.info().template().as_str();
        if let Some((_, first)) = self.templates.iter().find(|(t, _)| t.info().template().as_str() == text) {
            return Err(ResourceRegistryError::DuplicateTemplate {
                template: text.to_owned(),
                first,
                second: type_name,
            });
        }
        self.templates.push((template, type_name));
        Ok(self)
    }

    /// Take out what is registered under `uri_or_template`: the fixed resource at exactly
    /// that URI, else the template whose text it is. Whether there was one.
    pub fn remove(&mut self, uri_or_template: &str) -> bool {
        if self.fixed.remove(uri_or_template).is_some() {
            return true;
        }
        let before = self.templates.len();
        self.templates.retain(|(t, _)| t.info().template().as_str() != uri_or_template);
        self.templates.len() != before
    }

    /// The fixed resources, sorted by URI.
    pub fn resources(&self) -> impl Iterator<Item = &Arc<dyn Resource>> {
        self.fixed.values().map(|(r, _)| r)
    }

    /// The templates, in the order added.
    pub fn templates(&self) -> impl Iterator<Item = &Arc<dyn ResourceTemplate>> {
        self.templates.iter().map(|(t, _)| t)
    }

    /// What `completion/complete` can complete here: each template (by its text, as a
    /// [`CompletionRef::ResourceTemplate`]), its variable names, and the completers it
    /// attached (none is still a target: completing it gives no values).
    pub fn completion_targets(&self) -> Vec<(CompletionRef, Vec<String>, Completers)> {
        self.templates
            .iter()
            .map(|(t, _)| {
                let target = CompletionRef::ResourceTemplate(t.info().template().as_str().to_owned());
                let mut completers = Completers::new();
                for (variable, completer) in t.completers() {
                    completers.insert(target.clone(), variable, completer);
                }
                (target, t.variables().to_vec(), completers)
            })
            .collect()
    }

    /// How many resources and templates it holds.
    pub fn len(&self) -> usize {
        self.fixed.len() + self.templates.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a fixed resource or a template serves `uri`.
    pub fn serves(&self, uri: &str) -> bool {
        self.resolve(uri).is_some()
    }

    /// What serves `uri`: the fixed resource at exactly that URI, else the first template
    /// (in the order added) that matches it.
    pub fn resolve(&self, uri: &str) -> Option<Resolved<'_>> {
        if let Some((r, _)) = self.fixed.get(uri) {
            return Some(Resolved::Fixed(r));
        }
        self.templates
            .iter()
            .find_map(|(t, _)| t.info().template().match_uri(uri).map(|vars| Resolved::Template(t, vars)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Context;
    use crate::resource::{ReadFuture, ResourceInfo, TemplateInfo, UriTemplate};

    struct Fixed(ResourceInfo);
    impl Resource for Fixed {
        fn info(&self) -> &ResourceInfo {
            &self.0
        }
        fn read<'a>(&'a self, _: &'a Context) -> ReadFuture<'a> {
            Box::pin(async { Ok(vec![]) })
        }
    }
    struct Tmpl(TemplateInfo);
    impl ResourceTemplate for Tmpl {
        fn info(&self) -> &TemplateInfo {
            &self.0
        }
        fn read<'a>(&'a self, _: &'a str, _: &'a [(String, String)], _: &'a Context) -> ReadFuture<'a> {
            Box::pin(async { Ok(vec![]) })
        }
    }

    #[test]
    fn duplicates_are_refused_and_uris_resolve() {
        let mut r = ResourceRegistry::new();
        r.add(Fixed(ResourceInfo::new("a://x", "x"))).unwrap();
        let err = r.add(Fixed(ResourceInfo::new("a://x", "y"))).unwrap_err();
        assert!(err.to_string().starts_with("duplicate resource URI 'a://x': registered by `"), "{err}");
        let t = || Tmpl(TemplateInfo::new(UriTemplate::parse("a://{name}").unwrap(), "t"));
        r.add_template(t()).unwrap();
        assert!(matches!(r.add_template(t()), Err(ResourceRegistryError::DuplicateTemplate { .. })));
        assert!(matches!(r.resolve("a://x"), Some(Resolved::Fixed(_))));
        match r.resolve("a://y") {
            Some(Resolved::Template(_, vars)) => assert_eq!(vars, [("name".to_owned(), "y".to_owned())]),
            _ => panic!("a://y should match the template"),
        }
        assert!(r.resolve("b://y").is_none());
        assert_eq!(r.templates().next().unwrap().variables(), ["name"]);
    }

    struct Completed(TemplateInfo);
    impl ResourceTemplate for Completed {
        fn info(&self) -> &TemplateInfo {
            &self.0
        }
        fn read<'a>(&'a self, _: &'a str, _: &'a [(String, String)], _: &'a Context) -> ReadFuture<'a> {
            Box::pin(async { Ok(vec![]) })
        }
        fn completers(&self) -> Vec<(String, Arc<dyn crate::complete::Complete>)> {
            vec![("table".to_owned(), Arc::new(crate::complete::Fixed::new(["users", "orders"])))]
        }
    }

    #[test]
    fn every_template_is_a_completion_target_with_its_completers() {
        let mut r = ResourceRegistry::new();
        r.add(Fixed(ResourceInfo::new("a://x", "x"))).unwrap();
        r.add_template(Tmpl(TemplateInfo::new(UriTemplate::parse("a://{name}").unwrap(), "t"))).unwrap();
        let rows = UriTemplate::parse("db://{table}/{id}").unwrap();
        r.add_template(Completed(TemplateInfo::new(rows, "rows"))).unwrap();
        let targets = r.completion_targets();
        let summary: Vec<_> =
            targets.iter().map(|(t, vars, c)| (t.to_string(), vars.clone(), c.len())).collect();
        assert_eq!(
            summary,
            [
                ("resource template 'a://{name}'".to_owned(), vec!["name".to_owned()], 0),
                (
                    "resource template 'db://{table}/{id}'".to_owned(),
                    vec!["table".to_owned(), "id".to_owned()],
                    1
                ),
            ]
        );
        let rows = CompletionRef::ResourceTemplate("db://{table}/{id}".into());
        assert!(targets[1].2.get(&rows, "table").is_some());
        assert!(targets[1].2.get(&rows, "id").is_none());
    }
}
