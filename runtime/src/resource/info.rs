//! What the resource lists advertise: [`ResourceInfo`] for a fixed resource, [`TemplateInfo`]
//! for a template, and the [`Icon`]s either may carry (the protocol's own
//! [`Icon`](crate::protocol::wire::Icon), the one tools and prompts carry too). Each
//! serialises as the MCP object its list carries.

use serde::Serialize;
use toolwire_grammar::uri_template::UriTemplate;

use crate::protocol::wire::Icon;

/// One fixed resource as `resources/list` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceInfo {
    uri: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    icons: Vec<Icon>,
}

impl ResourceInfo {
    /// A resource at `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> ResourceInfo {
        ResourceInfo {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: Vec::new(),
        }
    }

    /// With a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description (empty is none).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        let d = description.into();
        self.description = (!d.is_empty()).then_some(d);
        self
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With its size in bytes.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Its URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its title, if it has one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Its description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Its MIME type, if it has one.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// Its icons.
    pub fn icons(&self) -> &[Icon] {
        &self.icons
    }
}

/// One template as `resources/templates/list` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TemplateInfo {
    #[serde(rename = "uriTemplate", serialize_with = "as_text")]
    template: UriTemplate,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    icons: Vec<Icon>,
}

fn as_text<S: serde::Serializer>(t: &UriTemplate, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.as_str())
}

impl TemplateInfo {
    /// A template called `name`.
    pub fn new(template: UriTemplate, name: impl Into<String>) -> TemplateInfo {
        TemplateInfo {
            template,
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: Vec::new(),
        }
    }

    /// With a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description (empty is none).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        let d = description.into();
        self.description = (!d.is_empty()).then_some(d);
        self
    }

    /// With the MIME type of what it names.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With an icon.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Its title, if it has one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Its icons.
    pub fn icons(&self) -> &[Icon] {
        &self.icons
    }

    /// The template.
    pub fn template(&self) -> &UriTemplate {
        &self.template
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its MIME type, if it has one.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// Its description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infos_serialise_as_the_lists_carry_them() {
        let r = ResourceInfo::new("config://app", "app")
            .with_mime_type("application/json")
            .with_description("")
            .with_icon(Icon::new("https://x/i.png").with_sizes(["48x48"]));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"uri":"config://app","name":"app","mimeType":"application/json","icons":[{"src":"https://x/i.png","sizes":["48x48"]}]}"#
        );
        let t = TemplateInfo::new(UriTemplate::parse("db://{t}").unwrap(), "rows")
            .with_title("Rows")
            .with_icon(Icon::new("https://x/t.svg").with_theme(crate::protocol::wire::IconTheme::Dark));
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"uriTemplate":"db://{t}","name":"rows","title":"Rows","icons":[{"src":"https://x/t.svg","theme":"dark"}]}"#
        );
        assert_eq!((t.title(), t.icons().len()), (Some("Rows"), 1));
    }
}
