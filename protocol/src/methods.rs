//! The MCP method names, one constant each: the one table the server, the transports and the
//! client name a method by (`match method { TOOLS_CALL => .. }`, `request(TOOLS_CALL, ..)`).
//!
//! Each constant is its method in upper case, with `/` and each inner capital's word break
//! read as `_` (`notifications/tools/list_changed` is [`NOTIFICATIONS_TOOLS_LIST_CHANGED`],
//! `logging/setLevel` is [`LOGGING_SET_LEVEL`]), so a name seen on the wire is found here
//! without a search. A constant is a `&'static str`: it costs what the literal did, and it serves as a
//! `match` pattern.
//!
//! Public (as `toolwire::protocol::methods`) because a program speaks these names too: a raw
//! `Client::request`, a scripted fake server, a custom transport that looks at what it carries.
//! Tests keep their literals: they check the wire, not this table.
//!
//! Two scans read one of these names inside JSON text, quotes included, and keep it as a
//! literal there (`call_scan`'s `b"\"tools/call\""` and the serde fallback's quick test in
//! `envelope`): a constant cannot be spliced into a literal, and their unit tests read real
//! `tools/call` messages.

/// Defines each method constant with its doc line, and [`ALL`] listing them in order.
macro_rules! methods {
    ($($(#[doc = $doc:literal])+ $name:ident = $value:literal;)+) => {
        $(
            $(#[doc = $doc])+
            pub const $name: &str = $value;
        )+

        /// Every method name above, in the order this module lists them.
        pub const ALL: &[&str] = &[$($name),+];
    };
}

methods! {
    // The lifecycle and utilities.

    /// `initialize`: the legacy era's handshake, client to server.
    INITIALIZE = "initialize";
    /// `ping`: is the peer still there (either direction in the legacy era).
    PING = "ping";
    /// `server/discover`: the 2026-07-28 era's question for the server's versions and
    /// capabilities, in place of a handshake.
    SERVER_DISCOVER = "server/discover";
    /// `logging/setLevel`: the least severe log level the client wants (legacy era).
    LOGGING_SET_LEVEL = "logging/setLevel";
    /// `completion/complete`: values for a prompt argument or a resource template variable.
    COMPLETION_COMPLETE = "completion/complete";
    /// `subscriptions/listen`: the 2026-07-28 era's one stream of the notifications a client
    /// asked for.
    SUBSCRIPTIONS_LISTEN = "subscriptions/listen";

    // Tools, resources, prompts.

    /// `tools/list`: the tools a server offers, a page at a time.
    TOOLS_LIST = "tools/list";
    /// `tools/call`: call one tool with arguments.
    TOOLS_CALL = "tools/call";
    /// `resources/list`: the concrete resources, a page at a time.
    RESOURCES_LIST = "resources/list";
    /// `resources/templates/list`: the resource templates, a page at a time.
    RESOURCES_TEMPLATES_LIST = "resources/templates/list";
    /// `resources/read`: one resource's contents, by URI.
    RESOURCES_READ = "resources/read";
    /// `resources/subscribe`: ask for `notifications/resources/updated` about one URI.
    RESOURCES_SUBSCRIBE = "resources/subscribe";
    /// `resources/unsubscribe`: stop those notifications.
    RESOURCES_UNSUBSCRIBE = "resources/unsubscribe";
    /// `prompts/list`: the prompts a server offers, a page at a time.
    PROMPTS_LIST = "prompts/list";
    /// `prompts/get`: one prompt's messages, with arguments.
    PROMPTS_GET = "prompts/get";

    // The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`).

    /// `skills/list`: the skills a server serves, a page at a time, each entry with its
    /// files' digests and sizes.
    SKILLS_LIST = "skills/list";
    /// `skills/get`: one skill's entry, by the URI of its `SKILL.md`.
    SKILLS_GET = "skills/get";
    /// `resources/directory/read`: the direct children of a directory resource (a skill's
    /// folder), a page at a time.
    RESOURCES_DIRECTORY_READ = "resources/directory/read";

    // What a server asks of the client (a request in the legacy era, an input request of an
    // `input_required` round in 2026-07-28).

    /// `elicitation/create`: ask the user for input.
    ELICITATION_CREATE = "elicitation/create";
    /// `sampling/createMessage`: ask the client's model for a message.
    SAMPLING_CREATE_MESSAGE = "sampling/createMessage";
    /// `roots/list`: ask for the client's roots.
    ROOTS_LIST = "roots/list";

    // The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` the
    // server answers with a task, then polled, answered and cancelled by its id.

    /// `tasks/get`: a task's status, and its result or error once it has one.
    TASKS_GET = "tasks/get";
    /// `tasks/update`: the client's answers to a task's `inputRequests`.
    TASKS_UPDATE = "tasks/update";
    /// `tasks/cancel`: ask for a task to be cancelled (an acknowledgement, not a state).
    TASKS_CANCEL = "tasks/cancel";

    // Notifications.

    /// `notifications/initialized`: the client's end of the legacy handshake.
    NOTIFICATIONS_INITIALIZED = "notifications/initialized";
    /// `notifications/cancelled`: a request is no longer wanted (either direction).
    NOTIFICATIONS_CANCELLED = "notifications/cancelled";
    /// `notifications/progress`: progress of a request that carried a progress token.
    NOTIFICATIONS_PROGRESS = "notifications/progress";
    /// `notifications/message`: a log message, server to client.
    NOTIFICATIONS_MESSAGE = "notifications/message";
    /// `notifications/tools/list_changed`: the tool list changed.
    NOTIFICATIONS_TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
    /// `notifications/resources/list_changed`: the resource list changed.
    NOTIFICATIONS_RESOURCES_LIST_CHANGED = "notifications/resources/list_changed";
    /// `notifications/prompts/list_changed`: the prompt list changed.
    NOTIFICATIONS_PROMPTS_LIST_CHANGED = "notifications/prompts/list_changed";
    /// `notifications/resources/updated`: a subscribed resource changed.
    NOTIFICATIONS_RESOURCES_UPDATED = "notifications/resources/updated";
    /// `notifications/roots/list_changed`: the client's roots changed.
    NOTIFICATIONS_ROOTS_LIST_CHANGED = "notifications/roots/list_changed";
    /// `notifications/subscriptions/acknowledged`: the first message of a
    /// `subscriptions/listen` stream, saying what it will carry.
    NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
    /// `notifications/elicitation/complete`: a URL-mode elicitation finished out of band.
    NOTIFICATIONS_ELICITATION_COMPLETE = "notifications/elicitation/complete";
    /// `notifications/tasks`: a task's whole state, pushed on a `subscriptions/listen`
    /// stream that asked for it (tasks extension).
    NOTIFICATIONS_TASKS = "notifications/tasks";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naming rule the module header promises, checked on this file's text: each name is
    /// its method in upper case with `/` and word breaks as `_`, and no method is listed twice.
    #[test]
    fn each_name_is_its_method_in_upper_case() {
        let source = include_str!("methods.rs");
        let mut seen = std::collections::BTreeSet::new();
        for method in ALL {
            let mut name = String::new();
            for c in method.chars() {
                match c {
                    '/' => name.push('_'),
                    c if c.is_ascii_uppercase() => {
                        name.push('_');
                        name.push(c);
                    }
                    c => name.push(c.to_ascii_uppercase()),
                }
            }
            let line = format!("    {name} = \"{method}\";");
            assert!(source.contains(&line), "`{method}` is not defined as `{name}`");
            assert!(seen.insert(*method), "`{method}` is listed twice");
        }
        assert_eq!(ALL.len(), 36);
    }
}
