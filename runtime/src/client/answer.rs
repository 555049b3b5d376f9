//! Answering what a server asks of the client, the same way in both eras: a legacy
//! server's `roots/list`, `sampling/createMessage` and `elicitation/create` requests, and a
//! 2026-07-28 `input_required` result's `inputRequests`, all go through [`Answerer::answer`].
//!
//! - `roots/list` is answered from the current roots ([`ClientOptions::roots`], changed by
//!   [`Client::set_roots`](super::Client::set_roots)).
//! - Sampling and elicitation go to the handlers the client was given.
//! - A request for a capability the client did not declare is a [`Refusal`], never sent to
//!   a handler: the client declares a capability only when it has the handler for it.
//! - A URL elicitation is refused unless URL mode was declared; one the handler accepted is
//!   remembered by its `elicitationId`, so `notifications/elicitation/complete` reaches the
//!   callback once, and only for an id this client accepted.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::handlers::{HandlerError, HandlerFuture, INVALID_PARAMS};
use super::options::{ClientOptions, Root};
use crate::protocol::methods;
use crate::sync::lock;

/// Why a server's request was not handed to a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The client did not declare the capability the request needs.
    NotDeclared {
        /// `sampling`, `elicitation` or `roots`.
        capability: &'static str,
    },
    /// Not a request a server may make of a client.
    Unknown,
    /// The capability is declared but this request is not one it covers.
    Invalid(String),
}

impl Refusal {
    /// The JSON-RPC error a legacy server is answered with.
    pub(crate) fn to_rpc(&self, method: &str) -> HandlerError {
        match self {
            Refusal::NotDeclared { capability } => HandlerError::new(
                -32601,
                format!(
                    "method '{method}' not found: this client did not declare the '{capability}' capability"
                ),
            ),
            Refusal::Unknown => HandlerError::new(-32601, format!("method '{method}' not found")),
            Refusal::Invalid(why) => HandlerError::new(INVALID_PARAMS, why.clone()),
        }
    }

    /// Why a 2026-07-28 call could not go on, in our words.
    pub(crate) fn problem(&self, method: &str) -> String {
        match self {
            Refusal::NotDeclared { capability } => {
                format!("it asked for {capability} ({method}), a capability this client did not declare")
            }
            Refusal::Unknown => {
                format!("it asked for '{method}', which is not an input request this client knows")
            }
            Refusal::Invalid(why) => format!("its {method} input request was refused: {why}"),
        }
    }
}

/// The client's side of a server's questions: its handlers, its roots, and the URL
/// elicitations it accepted.
pub(crate) struct Answerer {
    options: ClientOptions,
    roots: Mutex<Option<Vec<Root>>>,
    accepted_urls: Arc<Mutex<HashSet<String>>>,
}

impl Answerer {
    /// Answers with `options`' handlers and roots.
    pub(crate) fn new(options: &ClientOptions) -> Answerer {
        Answerer {
            options: options.clone(),
            roots: Mutex::new(options.roots.clone()),
            accepted_urls: Arc::default(),
        }
    }

    /// Whether roots were declared (they can be changed only then).
    pub(crate) fn has_roots(&self) -> bool {
        lock(&self.roots).is_some()
    }

    /// Answer `roots/list` with `roots` from now on.
    pub(crate) fn set_roots(&self, roots: Vec<Root>) {
        *lock(&self.roots) = Some(roots);
    }

    /// Whether `id` is a URL elicitation this client accepted and has not seen completed;
    /// it is forgotten, so a second completion is ignored.
    pub(crate) fn complete(&self, id: &str) -> bool {
        lock(&self.accepted_urls).remove(id)
    }

    /// The answer to `method` with `params`, or why there is none.
    pub(crate) fn answer(&self, method: &str, params: Value) -> Result<HandlerFuture, Refusal> {
        match method {
            methods::ROOTS_LIST => {
                let Some(roots) = lock(&self.roots).clone() else {
                    return Err(Refusal::NotDeclared { capability: "roots" });
                };
                let roots: Vec<Value> = roots
                    .iter()
                    .map(|r| match &r.name {
                        Some(name) => json!({"uri": r.uri, "name": name}),
                        None => json!({"uri": r.uri}),
                    })
                    .collect();
                let answer = json!({ "roots": roots });
                Ok(Box::pin(async move { Ok(answer) }))
            }
            methods::SAMPLING_CREATE_MESSAGE => match &self.options.sampling {
                Some(h) => Ok(h(params)),
                None => Err(Refusal::NotDeclared { capability: "sampling" }),
            },
            methods::ELICITATION_CREATE => {
                let Some(h) = &self.options.elicitation else {
                    return Err(Refusal::NotDeclared { capability: "elicitation" });
                };
                if params.get("mode").and_then(Value::as_str) != Some("url") {
                    return Ok(h(params));
                }
                if !self.options.elicitation_url {
                    return Err(Refusal::Invalid(
                        "elicitation mode 'url' was not declared by this client".to_owned(),
                    ));
                }
                let id = params.get("elicitationId").and_then(Value::as_str).map(str::to_owned);
                let fut = h(params);
                let accepted = Arc::clone(&self.accepted_urls);
                Ok(Box::pin(async move {
                    let answer = fut.await?;
                    if let Some(id) = id
                        && answer.get("action").and_then(Value::as_str) == Some("accept")
                    {
                        lock(&accepted).insert(id);
                    }
                    Ok(answer)
                }))
            }
            _ => Err(Refusal::Unknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn undeclared_capabilities_are_refused_and_roots_answer_from_the_current_list() {
        let a = Answerer::new(&ClientOptions::new("t"));
        for (method, cap) in [
            ("roots/list", "roots"),
            ("sampling/createMessage", "sampling"),
            ("elicitation/create", "elicitation"),
        ] {
            let refusal = a.answer(method, json!({})).err().unwrap();
            assert_eq!(refusal, Refusal::NotDeclared { capability: cap });
        }
        assert_eq!(
            Refusal::NotDeclared { capability: "sampling" }.problem("sampling/createMessage"),
            "it asked for sampling (sampling/createMessage), a capability this client did not declare"
        );
        assert_eq!(a.answer("tasks/get", json!({})).err().unwrap(), Refusal::Unknown);

        let a = Answerer::new(&ClientOptions::new("t").roots(vec![Root::new("file:///a", None)]));
        assert_eq!(
            a.answer("roots/list", Value::Null).ok().unwrap().await.unwrap(),
            json!({"roots": [{"uri": "file:///a"}]})
        );
        a.set_roots(vec![Root::new("file:///b", Some("b".into()))]);
        assert_eq!(
            a.answer("roots/list", Value::Null).ok().unwrap().await.unwrap(),
            json!({"roots": [{"uri": "file:///b", "name": "b"}]})
        );
    }

    #[tokio::test]
    async fn a_url_elicitation_needs_url_mode_and_an_accepted_one_completes_once() {
        let options =
            ClientOptions::new("t").on_elicit(|_| async { Ok(super::super::Elicited::accept_url()) });
        let url = json!({"mode": "url", "message": "m", "url": "https://x.test", "elicitationId": "e1"});
        let refusal = Answerer::new(&options).answer("elicitation/create", url.clone()).err().unwrap();
        assert_eq!(
            refusal.to_rpc("elicitation/create"),
            HandlerError::new(-32602, "elicitation mode 'url' was not declared by this client")
        );
        let a = Answerer::new(&options.elicitation_url(true));
        assert!(!a.complete("e1"));
        assert_eq!(
            a.answer("elicitation/create", url).ok().unwrap().await.unwrap(),
            json!({"action": "accept"})
        );
        assert!(a.complete("e1"));
        assert!(!a.complete("e1"));
    }
}
