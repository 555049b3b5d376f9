//! [`ToolRegistry`], a set of tools with unique names and the state values they take, and
//! [`NameMap`], the qualified names an agent CLI addresses them by (`mcp__<server>__<tool>`).

use std::sync::Arc;

use crate::by_name::ByName;
use crate::state::StateMap;
use crate::tool::Tool;

/// Why a registry or a name mapping could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools share a name; a registry never lets one shadow the other.
    #[error("duplicate tool name '{name}': registered by `{first}` and by `{second}`")]
    Duplicate {
        /// The shared name.
        name: String,
        /// The type of the tool registered first.
        first: &'static str,
        /// The type of the tool registered second.
        second: &'static str,
    },
    /// A tool's name is outside MCP's grammar `^[A-Za-z0-9_.-]{1,128}$`.
    #[error("tool name '{name}' is not a valid MCP tool name; use 1 to 128 of `A-Z a-z 0-9 _ - .`")]
    InvalidToolName {
        /// The offending name.
        name: String,
    },
    /// Two tool names become the same qualified name once sanitised.
    #[error(
        "tool names '{first}' and '{second}' both sanitise to '{sanitised}' for an agent CLI; rename one of them"
    )]
    SanitisedCollision {
        /// One name.
        first: String,
        /// The other name.
        second: String,
        /// What both become.
        sanitised: String,
    },
    /// A tool takes a state value of a type the registry was never given. Reported when the
    /// tool is added, so it never surfaces on a call.
    #[error(
        "tool '{tool}' needs state `{type_name}`, which was never provided; give it to the registry: `tools![..; state = [value]]` or `ToolRegistry::add_state(value)`"
    )]
    MissingState {
        /// The tool's name.
        tool: String,
        /// The state type, as `std::any::type_name` writes it.
        type_name: &'static str,
    },
    /// A second state value of a type the registry already holds; one would shadow the other.
    #[error(
        "state `{type_name}` is provided twice; a registry holds one value per type (wrap one of them in its own type)"
    )]
    DuplicateState {
        /// The state type.
        type_name: &'static str,
    },
    /// The server name cannot appear in a qualified name. It is refused, never rewritten:
    /// you typed it, and are holding it in a string somewhere else.
    #[error(
        "server name '{name}' is not usable in `mcp__<server>__<tool>`; use 1 to 64 of `A-Z a-z 0-9 _ -`"
    )]
    InvalidServerName {
        /// The offending name.
        name: String,
    },
}

/// Whether `name` matches MCP's tool-name grammar, `^[A-Za-z0-9_.-]{1,128}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A name with everything outside `[A-Za-z0-9_-]` replaced by `_`: one glob-free,
/// quote-free token that survives `--allowedTools`, shell arguments and log greps.
pub fn sanitise_tool_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// A set of tools with unique names, kept sorted by name.
///
/// ```
/// # use toolwire::{tool, tools};
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// let registry = tools![hello].unwrap();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["hello"]);
/// let names = registry.qualified_names("engine").unwrap();
/// assert_eq!(names.qualified("hello"), Some("mcp__engine__hello"));
/// ```
///
/// A registry also holds the [`State`](crate::state::State) values its tools take, one per
/// type. Give them before the tools that need them: a tool whose state is missing is refused
/// when it is added, naming the tool and the type.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: ByName<Arc<dyn Tool>>,
    states: Arc<StateMap>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.states.is_empty() {
            return f.debug_list().entries(self.tools.keys()).finish();
        }
        f.debug_struct("ToolRegistry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("states", &self.states)
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// A registry of `tools`, refusing a duplicate or invalid name.
    pub fn from_tools<I>(tools: I) -> Result<Self, RegistryError>
    where
        I: IntoIterator<Item = Arc<dyn Tool>>,
    {
        let mut registry = ToolRegistry::new();
        for tool in tools {
            registry.insert(tool)?;
        }
        Ok(registry)
    }

    /// Add a tool.
    pub fn register<T: Tool>(&mut self, tool: T) -> Result<&mut Self, RegistryError> {
        self.insert(Arc::new(tool))?;
        Ok(self)
    }

    /// Give the registry a state value, which every tool taking a
    /// [`State<T>`](crate::state::State) is handed. One value per type: a second is refused.
    ///
    /// ```
    /// use toolwire::state::State;
    ///
    /// struct Config { greeting: String }
    ///
    /// /// Greet someone.
    /// #[toolwire::tool(read_only)]
    /// fn greet(config: State<Config>, name: String) -> String {
    ///     format!("{}, {name}", config.greeting)
    /// }
    ///
    /// let mut registry = toolwire::ToolRegistry::new();
    /// registry.add_state(Config { greeting: "hello".into() })?.register(greet {})?;
    /// assert_eq!(registry.names().collect::<Vec<_>>(), ["greet"]);
    /// # Ok::<(), toolwire::registry::RegistryError>(())
    /// ```
    pub fn add_state<T: Send + Sync + 'static>(&mut self, value: T) -> Result<&mut Self, RegistryError> {
        Arc::make_mut(&mut self.states)
            .insert(value)
            .map_err(|e| RegistryError::DuplicateState { type_name: e.type_name })?;
        Ok(self)
    }

    /// Add every tool and state value of `other`, refusing a duplicate tool name or state type.
    pub fn merge(&mut self, other: ToolRegistry) -> Result<(), RegistryError> {
        Arc::make_mut(&mut self.states)
            .extend(&other.states)
            .map_err(|e| RegistryError::DuplicateState { type_name: e.type_name })?;
        for tool in other.tools.into_values() {
            self.insert(tool)?;
        }
        Ok(())
    }

    /// The state values, which the engine hands each call's [`Context`](crate::Context).
    pub fn states(&self) -> &Arc<StateMap> {
        &self.states
    }

    /// Add a shared tool, refusing a duplicate or invalid name and a tool whose state the
    /// registry was not given.
    pub fn insert(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let name = tool.info().name().to_owned();
        if !is_valid_tool_name(&name) {
            return Err(RegistryError::InvalidToolName { name });
        }
        if let Some(need) = tool.info().state_needs().iter().find(|n| !self.states.contains(n.type_id())) {
            return Err(RegistryError::MissingState { tool: name, type_name: need.type_name() });
        }
        if let Some(existing) = self.tools.get(&name) {
            return Err(RegistryError::Duplicate {
                name,
                first: existing.type_name(),
                second: tool.type_name(),
            });
        }
        self.tools.insert(name, tool);
        Ok(())
    }

    /// Take out the tool called `name`, if there is one (its state values stay: another tool
    /// may take them).
    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.remove(name)
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// The tools, sorted by name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }

    /// The tool names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.tools.keys()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The qualified names an agent CLI uses for these tools when served as `server`.
    ///
    /// Tool names are sanitised to `[A-Za-z0-9_-]`; two that collide after sanitising are an
    /// error, not a shadow. The server name is refused, never rewritten.
    pub fn qualified_names(&self, server: &str) -> Result<NameMap, RegistryError> {
        if !(1..=64).contains(&server.len())
            || !server.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(RegistryError::InvalidServerName { name: server.to_owned() });
        }
        let mut by_sanitised: ByName<&str> = ByName::default();
        for name in self.names() {
            let sanitised = sanitise_tool_name(name);
            if let Some(first) = by_sanitised.insert(sanitised.clone(), name) {
                return Err(RegistryError::SanitisedCollision {
                    first: first.to_owned(),
                    second: name.to_owned(),
                    sanitised,
                });
            }
        }
        let entries = self
            .names()
            .map(|name| (name.to_owned(), format!("mcp__{server}__{}", sanitise_tool_name(name))))
            .collect();
        Ok(NameMap { server: server.to_owned(), entries })
    }
}

/// The mapping between tool names and the qualified names an agent CLI uses for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameMap {
    server: String,
    /// (tool name, qualified name), sorted by tool name.
    entries: Vec<(String, String)>,
}

impl NameMap {
    /// The server name the qualified names were built with.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The qualified name of `tool`.
    pub fn qualified(&self, tool: &str) -> Option<&str> {
        self.entries.iter().find(|(t, _)| t == tool).map(|(_, q)| q.as_str())
    }

    /// The tool a qualified name stands for.
    pub fn tool(&self, qualified: &str) -> Option<&str> {
        self.entries.iter().find(|(_, q)| q == qualified).map(|(t, _)| t.as_str())
    }

    /// Every `(tool name, qualified name)` pair, sorted by tool name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> {
        self.entries.iter().map(|(t, q)| (t.as_str(), q.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitising_keeps_one_token() {
        assert_eq!(sanitise_tool_name("run.check"), "run_check");
        assert_eq!(sanitise_tool_name("a-b_c9"), "a-b_c9");
        assert!(is_valid_tool_name("run.check"));
        assert!(!is_valid_tool_name("run check"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name(&"a".repeat(129)));
    }
}
