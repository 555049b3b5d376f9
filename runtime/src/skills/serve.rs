//! A [`SkillCatalog`]'s files as resources: each `SKILL.md` a fixed resource (listed by
//! `resources/list` with the skill's name and description, `text/markdown`), and every file
//! read through one template, `skill://{+path}`, so `resources/read` serves exactly the bytes
//! the manifest digested: text when they are UTF-8, else a base64 blob.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::catalog::{HeldFile, SkillCatalog, mime_type};
use crate::context::Context;
use crate::resource::{
    ReadFuture, Resource, ResourceContents, ResourceError, ResourceInfo, ResourceRegistry,
    ResourceRegistryError, ResourceTemplate, TemplateInfo, UriTemplate, base64_encode,
};

/// The template every skill file is read through.
pub(crate) const FILES_TEMPLATE: &str = "skill://{+path}";

/// One file's contents, as `resources/read` answers.
fn contents(file: &HeldFile) -> Vec<ResourceContents> {
    let item = match std::str::from_utf8(&file.bytes) {
        Ok(text) => ResourceContents::text(file.uri.clone(), text),
        Err(_) => ResourceContents::blob(file.uri.clone(), base64_encode(&file.bytes)),
    };
    vec![item.with_mime_type(mime_type(&file.path))]
}

/// A skill's `SKILL.md`.
struct SkillMd {
    info: ResourceInfo,
    file: HeldFile,
}

impl Resource for SkillMd {
    fn info(&self) -> &ResourceInfo {
        &self.info
    }

    fn read<'a>(&'a self, _ctx: &'a Context) -> ReadFuture<'a> {
        Box::pin(async { Ok(contents(&self.file)) })
    }
}

/// Every file of every skill, by URI.
struct SkillFiles {
    info: TemplateInfo,
    files: BTreeMap<String, HeldFile>,
}

impl ResourceTemplate for SkillFiles {
    fn info(&self) -> &TemplateInfo {
        &self.info
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        _variables: &'a [(String, String)],
        _ctx: &'a Context,
    ) -> ReadFuture<'a> {
        Box::pin(async move {
            match self.files.get(uri) {
                Some(file) => Ok(contents(file)),
                None => Err(ResourceError::NotFound { uri: uri.to_owned() }),
            }
        })
    }
}

/// Add `catalog`'s resources to `registry`: a fixed resource per `SKILL.md`, and the
/// [`FILES_TEMPLATE`] for the rest.
pub(crate) fn add_resources(
    catalog: &SkillCatalog,
    registry: &mut ResourceRegistry,
) -> Result<(), ResourceRegistryError> {
    let mut files = BTreeMap::new();
    for skill in catalog.held() {
        for file in &skill.files {
            if file.path == "SKILL.md" {
                let info = ResourceInfo::new(file.uri.clone(), skill.name.clone())
                    .with_description(skill.description())
                    .with_mime_type("text/markdown")
                    .with_size(file.bytes.len() as u64);
                registry.add_shared(Arc::new(SkillMd { info, file: file.clone() }), "SkillCatalog")?;
            }
            files.insert(file.uri.clone(), file.clone());
        }
    }
    let template = UriTemplate::parse(FILES_TEMPLATE).expect("the skill files template parses");
    let info = TemplateInfo::new(template, "skill-files")
        .with_description("A file of one of the skills this server serves (skills/list names them)");
    registry.add_template_shared(Arc::new(SkillFiles { info, files }), "SkillCatalog")?;
    Ok(())
}
