//! [`PromptRegistry`]: a set of prompts with unique names.

use std::sync::Arc;

use crate::by_name::ByName;
use crate::complete::{Completers, CompletionRef, Fixed};

use super::Prompt;

/// Why a prompt registry could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptRegistryError {
    /// Two prompts share a name; one never shadows the other.
    #[error("duplicate prompt name '{name}': registered twice")]
    Duplicate {
        /// The shared name.
        name: String,
    },
    /// A prompt cannot be served as it was declared.
    #[error("prompt '{name}' cannot be served: {why}")]
    Invalid {
        /// The prompt.
        name: String,
        /// Why.
        why: String,
    },
}

/// The prompts a server serves, by name.
///
/// ```
/// use toolwire::prompt::PromptRegistry;
/// use toolwire::{prompt, prompts};
///
/// /// Greet someone.
/// #[prompt]
/// fn greet(
///     /// Who to greet.
///     name: String,
/// ) -> String {
///     format!("Say hello to {name}.")
/// }
///
/// let registry: PromptRegistry = prompts![greet].unwrap();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["greet"]);
/// assert!(prompts![greet, greet].is_err());
/// ```
#[derive(Clone, Default)]
pub struct PromptRegistry {
    prompts: ByName<Arc<dyn Prompt>>,
}

impl std::fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.prompts.keys()).finish()
    }
}

impl PromptRegistry {
    /// No prompts.
    pub fn new() -> PromptRegistry {
        PromptRegistry::default()
    }

    /// A registry of `prompts`; a duplicate name, or a prompt that cannot be served, is an
    /// error.
    pub fn from_prompts<I>(prompts: I) -> Result<PromptRegistry, PromptRegistryError>
    where
        I: IntoIterator<Item = Arc<dyn Prompt>>,
    {
        let mut registry = PromptRegistry::new();
        for p in prompts {
            registry.insert(p)?;
        }
        Ok(registry)
    }

    /// Add `prompt`; its name must be new.
    pub fn insert(&mut self, prompt: Arc<dyn Prompt>) -> Result<(), PromptRegistryError> {
        let info = prompt.info();
        if let Some(why) = &info.problem {
            return Err(PromptRegistryError::Invalid { name: info.name.clone(), why: why.clone() });
        }
        if self.prompts.contains_key(&info.name) {
            return Err(PromptRegistryError::Duplicate { name: info.name.clone() });
        }
        self.prompts.insert(info.name.clone(), prompt);
        Ok(())
    }

    /// Take out the prompt called `name`, if there is one.
    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn Prompt>> {
        self.prompts.remove(name)
    }

    /// The prompt called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Prompt>> {
        self.prompts.get(name)
    }

    /// Every prompt, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Prompt>> {
        self.prompts.values()
    }

    /// Every name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.prompts.keys()
    }

    /// How many prompts there are.
    pub fn len(&self) -> usize {
        self.prompts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// Every prompt's completers, keyed by [`CompletionRef::Prompt`]: the ones each prompt
    /// attached, and for an enum argument without one, its values by prefix ([`Fixed`]).
    pub fn completers(&self) -> Completers {
        let mut all = Completers::new();
        for (name, prompt) in self.prompts.iter() {
            let target = CompletionRef::Prompt(name.to_owned());
            for arg in &prompt.info().arguments {
                if let Some(values) = &arg.values {
                    all.insert(
                        target.clone(),
                        arg.name.clone(),
                        Arc::new(Fixed::new(values.iter().cloned())),
                    );
                }
            }
            for (arg, completer) in prompt.completers() {
                all.insert(target.clone(), arg, completer);
            }
        }
        all
    }
}
